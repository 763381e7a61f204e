// SPDX-License-Identifier: GPL-2.0
/*
 * Trust in the kernel the module runs on.
 *
 * Some hooked functions are static, or declared in no header the module is
 * built against: the module took their prototypes from the sources of each
 * supported version (aio_read(), __do_readv_writev(), get_request(), ...).
 * A vendor update that reorders or retypes their arguments would have a
 * wrapper read a pointer as an int and call the original with it cut to
 * 32 bits: on a 4.12.0 with __do_readv_writev()'s first two arguments
 * swapped, the first readv() after the load oopsed.
 *
 * So each such hook says what its arguments must look like, register by
 * register (NW_ARGS), and its ftrace callback checks them on every call
 * before it sends the call to the wrapper.  Only values the kernel chooses
 * are checked; a user's pointer, id or length never is, so no user can
 * turn anything off.  A call whose arguments do not fit goes on to the
 * kernel's own function with its registers untouched, and so does every
 * later call of that hook.  What the hook serves is switched off: a
 * required hook turns RWF_NOWAIT off (flagged requests get the kernel's
 * own answer, as with enabled=0, until the module is loaded again), a
 * filesystem's hook that filesystem, an optional one its refinement.
 * dmesg names the function, the argument and what it should have been.
 *
 * What this cannot see: arguments of one kind swapped with each other
 * (two kernel pointers), a changed layout behind a pointer, and the
 * functions the module calls without hooking them (README, "What the
 * module assumes").
 */
#include <linux/err.h>
#include <linux/fs.h>
#include <linux/workqueue.h>

#include "rules.h"
#include "hook.h"

char *nw_distrust_test;

#define NW_BAD_TEST (NW_MAX_ARGS + 1)	/* distrust_test= named the hook */

static const char *const nw_arg_wants[] = {
	[NW_ARG_ANY] = "any value",
	[NW_ARG_KPTR] = "a kernel address",
	[NW_ARG_KPTR_NULL] = "a kernel address or NULL",
	[NW_ARG_RW] = "READ or WRITE",
	[NW_ARG_BOOL] = "a bool",
	[NW_ARG_U16] = "a 16-bit value",
};

static void nw_distrust_work_fn(struct work_struct *work);
static DECLARE_WORK(nw_distrust_work, nw_distrust_work_fn);

static notrace bool nw_kaddr(unsigned long v)
{
	return v >= TASK_SIZE_MAX && !IS_ERR_VALUE(v);
}

/* Only the bits the calling convention defines: an int's low 32, ... */
static notrace bool nw_arg_fits(u8 kind, unsigned long v)
{
	switch (kind) {
	case NW_ARG_KPTR:
		return nw_kaddr(v);
	case NW_ARG_KPTR_NULL:
		return !v || nw_kaddr(v);
	case NW_ARG_RW:
		return (u32)v == READ || (u32)v == WRITE;
	case NW_ARG_BOOL:
		return (u8)v <= 1;
	case NW_ARG_U16:
		return (u32)v <= U16_MAX;
	}
	return true;
}

/* The first call found wanting: the rest is said from a work item. */
static noinline notrace bool nw_distrust(struct nw_hook *h, int bad)
{
	if (!cmpxchg(&h->bad_arg, 0, bad)) {
		if (h->need == NW_REQUIRED)
			WRITE_ONCE(nw_distrusted, true);
		schedule_work(&nw_distrust_work);
	}
	return false;
}

/**
 * nw_hook_trusts() - may @h's wrapper have this call?
 * @h: the hook whose function is being called
 * @regs: the registers of the call
 *
 * Each argument up to the last checked one (nw_hook_trust_init()) must fit
 * the kind its NW_ARGS says.  The first call that does not fit sets
 * h->bad_arg, which sends every later call to the kernel's own function
 * too; for a required hook it also turns RWF_NOWAIT off (nw_distrusted).
 * dmesg and the parts' setup then hear of it from a work item.  Called from
 * @h's ftrace callback on every call of its function: takes no lock, does
 * not sleep, and is not traced.
 *
 * Return: true to send the call to the wrapper, false to leave it to the
 * kernel's function with its registers untouched.
 */
notrace bool nw_hook_trusts(struct nw_hook *h, const struct pt_regs *regs)
{
	unsigned int i;

	if (unlikely(READ_ONCE(h->bad_arg)))
		return false;
	for (i = 0; i < h->nr_checked; i++)
		if (unlikely(!nw_arg_fits(h->args[i], nw_regs_arg(regs, i))))
			return nw_distrust(h, i + 1);
	if (unlikely(h->test_distrust))
		return nw_distrust(h, NW_BAD_TEST);
	return true;
}

/**
 * nw_hook_trust_init() - set up the argument checks of @h.
 * @h: a hook being resolved
 *
 * Called when @h is resolved (nw_hook_resolve_one()): how many of its
 * arguments nw_hook_trusts() looks at (up to the last one that is
 * checked), and whether distrust_test= names it, which makes the first call
 * of a hook with a wrapper count as one that does not fit.
 */
void nw_hook_trust_init(struct nw_hook *h)
{
	unsigned int i;

	h->nr_checked = 0;
	for (i = 0; i < NW_MAX_ARGS; i++)
		if (h->args[i] != NW_ARG_ANY)
			h->nr_checked = i + 1;
	h->test_distrust = h->wrapper && nw_distrust_test &&
			   !strcmp(nw_distrust_test, h->name);
}

/**
 * nw_distrust_why() - why @h is not trusted, for dmesg and features.
 * @h: a hook
 * @buf: where the text goes
 * @len: room in @buf
 *
 * The argument that did not fit and what it should have been, or that
 * distrust_test= named the hook.  No newline.
 *
 * Return: the bytes written; 0 when @h is trusted.
 */
size_t nw_distrust_why(const struct nw_hook *h, char *buf, size_t len)
{
	int bad = READ_ONCE(h->bad_arg);

	if (!bad)
		return 0;
	if (bad == NW_BAD_TEST)
		return scnprintf(buf, len,
				 "its arguments do not fit (distrust_test)");
	return scnprintf(buf, len,
			 "argument %d is not %s: not the function the module was written for",
			 bad, nw_arg_wants[h->args[bad - 1]]);
}

/* Under nw_hooks_mutex: say it of @h, once. */
static void nw_distrust_say(const struct nw_part *p, struct nw_hook *h)
{
	char why[96];

	if (!READ_ONCE(h->bad_arg) || h->bad_said)
		return;
	h->bad_said = true;
	nw_distrust_why(h, why, sizeof(why));
	if (h->need == NW_REQUIRED)
		pr_err("%s (%s): %s; RWF_NOWAIT is off until the module is loaded again (flagged requests get the kernel's own answer)\n",
		       h->name, h->why, why);
	else if (h->need == NW_FS)
		pr_err("%s (%s): %s; RWF_NOWAIT on %s is off\n", h->name,
		       h->why, why, p->owner);
	else
		pr_err("%s (%s): %s; that refinement is off\n", h->name,
		       h->why, why);
}

static void nw_distrust_work_fn(struct work_struct *work)
{
	mutex_lock(&nw_hooks_mutex);
	nw_hooks_for_each(nw_distrust_say);
	/* nw_hook_ready() is false for it now */
	nw_parts_setup();
	mutex_unlock(&nw_hooks_mutex);
}

/**
 * nw_trust_exit() - unload or a failed load: wait for the report of a
 * distrusted hook.
 *
 * Called once no ftrace callback can run any more, so none can queue the
 * work again; a pending run is cancelled, a running one waited for.
 */
void nw_trust_exit(void)
{
	cancel_work_sync(&nw_distrust_work);
}
