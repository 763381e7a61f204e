// SPDX-License-Identifier: GPL-2.0
/*
 * Resolving the parts' hook tables (the hook engine's first half; hook.c
 * installs).  main.c hands the engine the list of parts, deepest first;
 * every symbol is resolved with kallsyms before anything is installed.  A
 * missing required symbol fails the load; a missing optional one turns off
 * only the refinement it serves; a missing filesystem symbol turns off that
 * filesystem.  dmesg names the symbol either way, and
 * /sys/kernel/nowait_aio/features shows it.  A part may carry stand-ins:
 * an older kernel's hook points for the same job, used only where none of
 * the hooks they stand in for resolves.
 */
#include <linux/kallsyms.h>
#include <linux/kernel.h>
#include <linux/module.h>
#include <linux/sched.h>
#include <linux/string.h>

#include "rules.h"
#include "hook.h"
#include "demand.h"

const struct nw_part *const *nw_parts;
size_t nw_nr_parts;

/* ftrace_location() is not exported; resolving needs it to check sites */
static unsigned long (*nw_ftrace_location)(unsigned long ip);
/* kallsyms_lookup_size_offset() is not exported either; optional */
static int (*nw_sym_size_offset)(unsigned long addr, unsigned long *size,
				 unsigned long *offset);

/* a part's hook whose module is not loaded (yet, or any more) */
const char nw_reason_waiting[] = "waiting for its module";
static const char nw_reason_standin[] = "absent; its stand-in is used";
static const char nw_reason_not_needed[] =
	"not needed (primary hook point present)";

/*
 * How many symbols of the kernel bear each hook's name: kallsyms_lookup_name()
 * gives the first, and two static functions of one name would leave the
 * module hooking or calling the wrong one.  One pass over every symbol,
 * for the hooks of @p (or of every part: NULL), counting those of vmlinux
 * and of the part's owner.  Under nw_hooks_mutex; module_mutex is taken
 * inside it for the walk of the modules' symbols (no module notifier runs
 * under module_mutex, so the order is always this one).
 */
struct nw_syms_scan {
	const struct nw_part *only;
};

static void nw_syms_match(const struct nw_part *p, const char *name,
			  struct module *mod)
{
	struct nw_hook *h;
	size_t i;

	if (mod && (!p->owner || strcmp(mod->name, p->owner)))
		return;
	nw_for_each_hook(p, h, i)
		if (h->name[0] == name[0] && !strcmp(h->name, name))
			h->nsyms++;
}

static int nw_syms_one(void *data, const char *name, struct module *mod,
		       unsigned long addr)
{
	const struct nw_syms_scan *scan = data;
	size_t i;

	/* a walk of every symbol: long under emulation, never preempted */
	cond_resched();
	if (scan->only) {
		nw_syms_match(scan->only, name, mod);
		return 0;
	}
	for (i = 0; i < nw_nr_parts; i++)
		nw_syms_match(nw_parts[i], name, mod);
	return 0;
}

/**
 * nw_syms_count() - count the kernel symbols of each hook's name
 * (nw_hook.nsyms), for @only's hooks or, when NULL, every part's
 * @only: the part to count for, or NULL for every part
 */
void nw_syms_count(const struct nw_part *only)
{
	struct nw_syms_scan scan = { .only = only };
	struct nw_hook *h;
	size_t i, j;

	for (i = 0; i < nw_nr_parts; i++)
		if (!only || nw_parts[i] == only)
			nw_for_each_hook(nw_parts[i], h, j)
				h->nsyms = 0;
	mutex_lock(&module_mutex);
	kallsyms_on_each_symbol(nw_syms_one, &scan);
	mutex_unlock(&module_mutex);
}

/**
 * nw_hook_resolve_one() - resolve @h through kallsyms and check its site; on
 * failure h->addr is 0 and h->off_reason says why
 * @h: the hook
 * @owner: its part's module, or NULL for vmlinux
 */
void nw_hook_resolve_one(struct nw_hook *h, const char *owner)
{
	unsigned long size = 0, offset = 0;

	h->addr = nw_lookup_name(h->name);
	h->live = false;
	h->off_reason = NULL;
	nw_hook_trust_init(h);
	if (!h->addr && owner && !nw_module_loaded(owner)) {
		h->off_reason = nw_reason_waiting;
	} else if (!h->addr) {
		h->off_reason = "symbol not found (inlined or absent)";
	} else if (h->nsyms > 1) {
		/* which of them the module was written for is not known */
		h->off_reason = "more than one symbol of that name";
		h->addr = 0;
	} else if (owner && !nw_addr_in_live_code(h->addr)) {
		/* its module is on its way out: as good as gone */
		h->off_reason = nw_reason_waiting;
		h->addr = 0;
	} else if (h->wrapper && nw_sym_size_offset &&
		   (!nw_sym_size_offset(h->addr, &size, &offset) || offset ||
		    size <= NW_FENTRY_SIZE)) {
		/* not the start of a function with a body: not ours to hook */
		h->off_reason = "not a function entry (unexpected shape)";
		h->addr = 0;
	} else if (h->wrapper && nw_ftrace_location(h->addr) != h->addr) {
		h->off_reason = "no ftrace site at its entry";
		h->addr = 0;
	}
	if (h->addr)
		*h->orig = (void *)(h->wrapper ? h->addr + NW_FENTRY_SIZE :
				    h->addr);
}

/*
 * A part's stand-ins are used only when none of the hooks they stand in
 * for (has_standin) resolves; then those are not missing.
 */
static void nw_part_choose(const struct nw_part *p)
{
	bool primary = false, standin = false;
	struct nw_hook *h;
	size_t i;

	if (!p->nr_standins)
		return;
	for (i = 0; i < p->nr_hooks; i++)
		primary |= p->hooks[i].has_standin && p->hooks[i].addr;
	for (i = 0; i < p->nr_standins; i++) {
		h = &p->standins[i];
		if (primary) {
			h->addr = 0;
			h->off_reason = nw_reason_not_needed;
		}
		standin |= !!h->addr;
	}
	for (i = 0; i < p->nr_hooks && standin; i++)
		if (p->hooks[i].has_standin)
			p->hooks[i].off_reason = nw_reason_standin;
}

/**
 * nw_hook_missing() - is @h missing in a way that counts (not waiting, not
 * replaced)?
 * @h: a resolved or refused hook
 */
bool nw_hook_missing(const struct nw_hook *h)
{
	return !h->addr && h->off_reason != nw_reason_waiting &&
	       h->off_reason != nw_reason_standin &&
	       h->off_reason != nw_reason_not_needed;
}

/**
 * nw_hook_report() - dmesg for a hook that is missing; -ENOENT when the load
 * must fail
 * @p: the hook's part
 * @h: the missing hook
 * @attach: its module is being attached (the line names it)
 */
int nw_hook_report(const struct nw_part *p, const struct nw_hook *h,
		   bool attach)
{
	const char *mod = attach ? p->owner : NULL;

	switch (h->need) {
	case NW_REQUIRED:
		pr_err("required symbol %s (%s): %s; not loading\n",
		       h->name, h->why, h->off_reason);
		return -ENOENT;
	case NW_OPTIONAL:
		if (mod)
			pr_info("%s.ko: symbol %s (%s): %s; the module does without it\n",
				mod, h->name, h->why, h->off_reason);
		else
			pr_info("symbol %s (%s): %s; that refinement is off\n",
				h->name, h->why, h->off_reason);
		return 0;
	case NW_FS:
		if (mod)
			pr_warn("%s.ko: symbol %s (%s): %s; RWF_NOWAIT on %s is off\n",
				mod, h->name, h->why, h->off_reason, p->owner);
		else
			pr_warn("symbol %s (%s): %s; RWF_NOWAIT on %s is off\n",
				h->name, h->why, h->off_reason, p->owner);
		return 0;
	}
	return 0;
}

/* Resolve one part, its stand-ins chosen; 0 or -ENOENT. */
static int nw_part_resolve(const struct nw_part *p)
{
	struct nw_hook *h;
	size_t i;
	int err = 0;

	nw_for_each_hook(p, h, i) {
		nw_hook_resolve_one(h, p->owner);
		/* before 4.x kallsyms_lookup_name() reads every symbol */
		cond_resched();
	}
	nw_part_choose(p);
	nw_for_each_hook(p, h, i)
		if (nw_hook_missing(h) && nw_hook_report(p, h, false))
			err = -ENOENT;
	return err;
}

/**
 * nw_parts_resolve() - take the list of parts and resolve every part before
 * anything is installed.  Under nw_hooks_mutex.
 * @parts: the parts, deepest first
 * @n: how many
 */
int nw_parts_resolve(const struct nw_part *const *parts, size_t n)
{
	size_t i;
	int err = 0;

	nw_parts = parts;
	nw_nr_parts = n;
	nw_syms_count(NULL);
	nw_ftrace_location = (void *)nw_lookup_name("ftrace_location");
	if (!nw_ftrace_location) {
		pr_err("required symbol ftrace_location not found; not loading\n");
		return -ENOENT;
	}
	nw_sym_size_offset =
		(void *)nw_lookup_name("kallsyms_lookup_size_offset");
	if (nw_demand_ops_collect())
		return -E2BIG;
	for (i = 0; i < n; i++) {
		if (parts[i]->owner && nw_module_unsettled(parts[i]->owner))
			nw_owners_defer(i);
		else if (nw_part_resolve(parts[i]))
			err = -ENOENT;
	}
	return err;
}

/**
 * nw_parts_setup() - the parts' own setup, once their hooks are resolved.
 * Under the mutex.
 */
void nw_parts_setup(void)
{
	size_t i;

	for (i = 0; i < nw_nr_parts; i++)
		if (nw_parts[i]->setup)
			nw_parts[i]->setup();
}

