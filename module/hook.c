// SPDX-License-Identifier: GPL-2.0
/*
 * The hook engine.  Each part of the module (io_submit, preadv2/pwritev2,
 * reads, each filesystem, block devices, the block layer) owns a table of
 * {symbol, wrapper, &original} (struct nw_part); main.c hands the engine
 * the list of parts, deepest first.
 *
 * Every symbol is resolved with kallsyms before anything is installed.  A
 * missing required symbol fails the load; a missing optional one turns off
 * only the refinement it serves; a missing filesystem symbol turns off that
 * filesystem.  dmesg names the symbol either way, and
 * /sys/kernel/nowait_aio/features shows it.  A part may carry stand-ins:
 * an older kernel's hook points for the same job, used only where none of
 * the hooks they stand in for resolves.
 *
 * Hooks are ftrace callbacks (SAVE_REGS|IPMODIFY) that send the call to
 * the wrapper; the wrapper reaches the original past its fentry call, so
 * it is never redirected twice.  Each entry point has an ftrace_ops of its
 * own; the hooks below them share one, so that they go in and out in one
 * ftrace update (demand.c).  Removal runs in reverse order (entry points
 * first), then waits until no task is left in module code.
 *
 * A part whose symbols live in a kernel module (a filesystem built as one)
 * is attached once that module has finished loading and detached before it
 * goes.
 */
#include <linux/delay.h>
#include <linux/ftrace.h>
#include <linux/kernel.h>
#include <linux/module.h>
#include <linux/sched.h>
#include <linux/string.h>
#include <linux/workqueue.h>

#include "nowait_aio.h"

DEFINE_PER_CPU(long, nw_active);
DEFINE_PER_CPU(long, nw_gate_active);
DEFINE_MUTEX(nw_hooks_mutex);
bool nw_unload_pinned;	/* rmmod refused: see NW_UNLOAD_SAFE (main.c) */

static const struct nw_part *const *nw_parts;
static size_t nw_nr_parts;

/* The @i-th hook of @p, its stand-ins after its own; NULL past the end. */
static struct nw_hook *nw_part_hook(const struct nw_part *p, size_t i)
{
	if (i < p->nr_hooks)
		return &p->hooks[i];
	i -= p->nr_hooks;
	return i < p->nr_standins ? &p->standins[i] : NULL;
}

#define nw_for_each_hook(p, h, i) \
	for ((i) = 0; ((h) = nw_part_hook((p), (i))); (i)++)

static NW_FTRACE_THUNK(nw_thunk)
{
	struct nw_hook *h = container_of(ops, struct nw_hook, ops);

	if (nw_hook_trusts(h, NW_FTRACE_REGS(regs)))
		NW_FTRACE_REGS(regs)->ip = (unsigned long)h->wrapper;
}

/* One of the hooks below the entry points, on the shared ops? */
static bool nw_is_demand(const struct nw_hook *h)
{
	return h->wrapper && !h->entry;
}

/*
 * The hooks below the entry points share one ftrace_ops, so that putting
 * them in or out is one ftrace update: each registration walks every
 * ftrace record of the kernel and patches with three cross-CPU syncs, and
 * ten of them took 94 ms of guest time under the benchmark's emulation.
 * Its callback finds the wrapper by the hooked function's address, in a
 * flat list of every part's per-request hooks.
 */
#define NW_MAX_DEMAND 32
static struct nw_hook *nw_demand_hooks[NW_MAX_DEMAND];
static size_t nw_nr_demand;

static NW_FTRACE_THUNK(nw_demand_thunk)
{
	size_t i;

	for (i = 0; i < nw_nr_demand; i++) {
		struct nw_hook *h = nw_demand_hooks[i];

		if (READ_ONCE(h->addr) != ip)
			continue;
		if (nw_hook_trusts(h, NW_FTRACE_REGS(regs)))
			NW_FTRACE_REGS(regs)->ip = (unsigned long)h->wrapper;
		return;
	}
}

static struct ftrace_ops nw_demand_ops = {
	.func = nw_demand_thunk,
	.flags = NW_FTRACE_FLAGS,
};
static bool nw_demand_registered;
static unsigned int nw_demand_nfiltered;	/* sites in its filter */

/* ftrace_location() is not exported; the engine needs it to check sites */
static unsigned long (*nw_ftrace_location)(unsigned long ip);
/* kallsyms_lookup_size_offset() is not exported either; optional */
static int (*nw_sym_size_offset)(unsigned long addr, unsigned long *size,
				 unsigned long *offset);

/* ftrace_set_filter_ip() adding @h's site to @ops (fault_step counts it) */
static int nw_filter_add(struct ftrace_ops *ops, const struct nw_hook *h)
{
	int err = nw_fault_at("ftrace_set_filter_ip");

	if (!err)
		err = ftrace_set_filter_ip(ops, h->addr, 0, 0);
	if (err)
		pr_err("ftrace_set_filter_ip(%s) failed: %d\n", h->name, err);
	return err;
}

/* register_ftrace_function() (fault_step counts it) */
static int nw_ops_register(struct ftrace_ops *ops, const char *name)
{
	int err = nw_fault_at("register_ftrace_function");

	if (!err)
		err = register_ftrace_function(ops);
	if (err)
		pr_err("register_ftrace_function(%s) failed: %d\n", name, err);
	return err;
}

/* a part's hook whose module is not loaded (yet, or any more) */
static const char nw_reason_waiting[] = "waiting for its module";
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

static void nw_syms_count(const struct nw_part *only)
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

static void nw_hook_resolve_one(struct nw_hook *h, const char *owner)
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

/* Is @h missing in a way that counts (not waiting, not replaced)? */
static bool nw_hook_missing(const struct nw_hook *h)
{
	return !h->addr && h->off_reason != nw_reason_waiting &&
	       h->off_reason != nw_reason_standin &&
	       h->off_reason != nw_reason_not_needed;
}

/* dmesg for a hook that is missing; -ENOENT when the load must fail */
static int nw_hook_report(const struct nw_part *p, const struct nw_hook *h,
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

/*
 * Parts whose module is still loading (bit i: nw_parts[i]).  They are
 * attached from a work item once the module is settled (compat.h,
 * nw_module_unsettled()), never from inside its load.
 */
static unsigned long nw_parts_pending;

/*
 * @i's module has come: it is attached later, and NOWAIT on its
 * filesystem is refused with EAGAIN until then (rules.c).
 */
static void nw_part_pend(size_t i)
{
	set_bit(i, &nw_parts_pending);
	nw_fs_attaching(nw_parts[i]->owner, true);
}

static void nw_part_unpend(size_t i)
{
	clear_bit(i, &nw_parts_pending);
	nw_fs_attaching(nw_parts[i]->owner, false);
}

/* @i's module is loading: its hooks wait, and it is attached later. */
static void nw_part_defer(size_t i)
{
	struct nw_hook *h;
	size_t j;

	nw_for_each_hook(nw_parts[i], h, j) {
		h->addr = 0;
		h->live = false;
		h->off_reason = nw_reason_waiting;
	}
	nw_part_pend(i);
}

/*
 * Take the list of parts and resolve every part before anything is
 * installed.  Under nw_hooks_mutex.
 */
int nw_parts_resolve(const struct nw_part *const *parts, size_t n)
{
	struct nw_hook *h;
	size_t i, j;
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
	nw_nr_demand = 0;
	for (i = 0; i < n; i++) {
		nw_for_each_hook(parts[i], h, j) {
			if (!nw_is_demand(h))
				continue;
			if (nw_nr_demand == NW_MAX_DEMAND)
				return -E2BIG;
			nw_demand_hooks[nw_nr_demand++] = h;
		}
	}
	for (i = 0; i < n; i++) {
		if (parts[i]->owner && nw_module_unsettled(parts[i]->owner))
			nw_part_defer(i);
		else if (nw_part_resolve(parts[i]))
			err = -ENOENT;
	}
	return err;
}

/* The parts' own setup, once their hooks are resolved.  Under the mutex. */
void nw_parts_setup(void)
{
	size_t i;

	for (i = 0; i < nw_nr_parts; i++)
		if (nw_parts[i]->setup)
			nw_parts[i]->setup();
}

/*
 * Will @h's wrapper run for a flagged request?  Every resolved hook is
 * installed at load (or the load fails), and the ones below the entry
 * points are back in before any flagged request goes down (demand.c).
 */
bool nw_hook_ready(const struct nw_hook *h)
{
	return h->wrapper && h->addr && !READ_ONCE(h->bad_arg);
}

/* @fn on every hook of every part, stand-ins too.  Under the mutex. */
void nw_hooks_for_each(void (*fn)(const struct nw_part *p,
				  struct nw_hook *h))
{
	struct nw_hook *h;
	size_t i, j;

	for (i = 0; i < nw_nr_parts; i++)
		nw_for_each_hook(nw_parts[i], h, j)
			fn(nw_parts[i], h);
}

/*
 * A per-request hook's site goes into the shared ops' filter when it is
 * resolved (at load, or when its module comes) and out when its module
 * goes; the filter outlives unregistering.  On a registered ops ftrace
 * patches the site at once.  The required vmlinux hooks keep the filter
 * from ever becoming empty (an empty filter would trace every function).
 */
static int nw_demand_filter_add(struct nw_hook *h)
{
	int err;

	if (h->filtered)
		return 0;
	err = nw_filter_add(&nw_demand_ops, h);
	if (err)
		return err;
	h->filtered = true;
	h->live = nw_demand_registered;
	nw_demand_nfiltered++;
	return 0;
}

static void nw_demand_filter_del(struct nw_hook *h)
{
	if (!h->filtered)
		return;
	ftrace_set_filter_ip(&nw_demand_ops, h->addr, 1, 0);
	h->filtered = false;
	h->live = false;
	nw_demand_nfiltered--;
}

static const char nw_reason_clash[] =
	"held by another ftrace user (a kprobe or a live patch)";

/*
 * Does another ftrace user that modifies the instruction pointer (a kprobe,
 * a live patch) hold @h's function?  One registration of its own tells.
 */
static bool nw_hook_clashes(struct nw_hook *h)
{
	int err;

	h->ops.func = nw_thunk;
	h->ops.flags = NW_FTRACE_FLAGS;
	if (ftrace_set_filter_ip(&h->ops, h->addr, 0, 0))
		return false;
	err = register_ftrace_function(&h->ops);
	if (!err)
		unregister_ftrace_function(&h->ops);
	ftrace_set_filter_ip(&h->ops, h->addr, 1, 0);
	return err == -EBUSY;
}

/*
 * The shared ops were refused with -EBUSY: leave out each site another
 * user holds, turning off what it serves (a filesystem's hook: that
 * filesystem; an optional one: its refinement), and say which.  0 to try
 * again, or -EBUSY when a site the module cannot do without is held.
 */
static int nw_demand_drop_clashes(void)
{
	struct nw_hook *h;
	size_t i;
	int err = 0;

	for (i = 0; i < nw_nr_demand; i++) {
		h = nw_demand_hooks[i];
		if (!h->filtered || !nw_hook_clashes(h))
			continue;
		pr_warn("symbol %s (%s): %s; %s\n", h->name, h->why,
			nw_reason_clash, h->need == NW_REQUIRED ?
			"flagged requests fail with EOPNOTSUPP" :
			"what it serves is off");
		if (h->need == NW_REQUIRED) {
			err = -EBUSY;
			continue;
		}
		nw_demand_filter_del(h);
		h->addr = 0;
		h->off_reason = nw_reason_clash;
	}
	if (!err)
		nw_parts_setup();
	return err;
}

/* The shared ops: every resolved site in its filter, then in. */
static int nw_demand_ops_install(void)
{
	size_t i;
	int err;

	if (nw_demand_registered)
		return 0;
	for (i = 0; i < nw_nr_demand; i++) {
		if (!nw_demand_hooks[i]->addr)
			continue;
		err = nw_demand_filter_add(nw_demand_hooks[i]);
		if (err)
			return err;
	}
	if (!nw_demand_nfiltered)
		return 0;
	err = nw_ops_register(&nw_demand_ops, "per-request hooks");
	if (err == -EBUSY && !nw_demand_drop_clashes() && nw_demand_nfiltered)
		err = nw_ops_register(&nw_demand_ops, "per-request hooks");
	if (err)
		return err;
	nw_demand_registered = true;
	for (i = 0; i < nw_nr_demand; i++)
		if (nw_demand_hooks[i]->filtered)
			nw_demand_hooks[i]->live = true;
	return 0;
}

static void nw_demand_ops_remove(void)
{
	size_t i;
	int err;

	if (!nw_demand_registered)
		return;
	err = unregister_ftrace_function(&nw_demand_ops);
	if (err)
		pr_err("unregister_ftrace_function(per-request hooks) failed: %d\n",
		       err);
	nw_demand_registered = false;
	for (i = 0; i < nw_nr_demand; i++)
		nw_demand_hooks[i]->live = false;
}

/* Unload or a failed load: the shared ops' filter goes too. */
void nw_hooks_release(void)
{
	size_t i;

	if (nw_demand_registered)
		return;
	for (i = 0; i < nw_nr_demand; i++)
		nw_demand_filter_del(nw_demand_hooks[i]);
}

static int nw_hook_install(struct nw_hook *h)
{
	int err;

	h->ops.func = nw_thunk;
	h->ops.flags = NW_FTRACE_FLAGS;
	err = nw_filter_add(&h->ops, h);
	if (err)
		return err;
	err = nw_ops_register(&h->ops, h->name);
	if (err) {
		ftrace_set_filter_ip(&h->ops, h->addr, 1, 0);
		return err;
	}
	h->live = true;
	return 0;
}

static void nw_hook_remove(struct nw_hook *h)
{
	int err;

	if (!h->live)
		return;
	err = unregister_ftrace_function(&h->ops);
	if (err)
		pr_err("unregister_ftrace_function(%s) failed: %d\n", h->name,
		       err);
	ftrace_set_filter_ip(&h->ops, h->addr, 1, 0);
	h->live = false;
}

/* Remove the entry points (the gates alone), in reverse order. */
static void nw_entries_remove(bool gates)
{
	size_t i = nw_nr_parts, j;

	while (i--) {
		const struct nw_part *p = nw_parts[i];

		j = p->nr_hooks + p->nr_standins;
		while (j--) {
			struct nw_hook *h = nw_part_hook(p, j);

			if (h->entry && (h->gate || !gates))
				nw_hook_remove(h);
		}
	}
}

static int nw_entries_install(void)
{
	struct nw_hook *h;
	size_t i, j;
	int err;

	for (i = 0; i < nw_nr_parts; i++) {
		nw_for_each_hook(nw_parts[i], h, j) {
			if (!h->entry || !h->addr || h->live)
				continue;
			err = nw_hook_install(h);
			if (err) {
				nw_entries_remove(false);
				return err;
			}
		}
	}
	return 0;
}

/*
 * Install @set: the per-request hooks in one go, then the entry points in
 * the parts' order.  On failure, remove what this call put in.
 */
int nw_hooks_install(enum nw_hook_set set)
{
	int err;

	if (set != NW_HOOKS_ENTRY) {
		err = nw_demand_ops_install();
		if (err)
			return err;
	}
	if (set == NW_HOOKS_DEMAND)
		return 0;
	err = nw_entries_install();
	if (err && set == NW_HOOKS_ALL)
		nw_demand_ops_remove();
	return err;
}

/* Remove @set: the entry points in reverse order, then the rest. */
void nw_hooks_remove(enum nw_hook_set set)
{
	if (set != NW_HOOKS_DEMAND)
		nw_entries_remove(set == NW_HOOKS_GATES);
	if (set == NW_HOOKS_DEMAND || set == NW_HOOKS_ALL)
		nw_demand_ops_remove();
}

static long nw_percpu_sum(long __percpu *count)
{
	long sum = 0;
	int cpu;

	for_each_possible_cpu(cpu)
		sum += *per_cpu_ptr(count, cpu);
	return sum;
}

/*
 * Unload, the gates out: wait until no task is left in a gate's wrapper,
 * so no flagged request is on its way to a per-request hook (aio_read(),
 * aio_write()) that is about to go.  Not under nw_hooks_mutex: such a
 * request may take it (nw_demand_get_wait()).
 */
void nw_hooks_drain_gates(void)
{
	unsigned int waited = 0;

	nw_sync_trampolines();
	while (nw_percpu_sum(&nw_gate_active)) {
		if (++waited % 50 == 0)
			pr_info("unload: waiting for flagged requests being submitted\n");
		msleep(20);
	}
}

/* Wait until no task is inside a wrapper (it may be blocked in the kernel). */
void nw_hooks_wait_idle(void)
{
	unsigned int waited = 0;

	nw_sync_trampolines();
	for (;;) {
		long sum = nw_percpu_sum(&nw_active);

		if (!sum)
			break;
		if (++waited % 50 == 0)
			pr_info("unload: waiting for %ld task(s) in hooked calls\n",
				sum);
		msleep(20);
	}
	/* a task may still be on the wrapper's last instructions */
	nw_sync_trampolines();
}

static size_t nw_hook_show(const struct nw_hook *h, char *buf, size_t len)
{
	size_t off;

	if (READ_ONCE(h->bad_arg)) {
		off = scnprintf(buf, len, "hook %s off: ", h->name);
		off += nw_distrust_why(h, buf + off, len - off);
		return off + scnprintf(buf + off, len - off, "\n");
	}
	return scnprintf(buf, len, "hook %s %s%s%s\n", h->name,
			 h->live ? "live" : !h->addr ? "off" :
			 h->wrapper ? "standby" : "resolved",
			 h->off_reason ? ": " : "",
			 h->off_reason ? h->off_reason : "");
}

/* One "hook" line per hook of every part (resolved helpers left out). */
size_t nw_hooks_show(char *buf, size_t len)
{
	const struct nw_part *p;
	struct nw_hook *h;
	size_t i, j, off = 0;

	for (i = 0; i < nw_nr_parts; i++) {
		p = nw_parts[i];
		nw_for_each_hook(p, h, j) {
			if (off >= len)
				return off;
			if (!h->wrapper && h->addr)
				continue;
			if (h->off_reason == nw_reason_waiting) {
				off += scnprintf(buf + off, len - off,
						 "hook %s off: waiting for %s.ko\n",
						 h->name, p->owner);
				continue;
			}
			off += nw_hook_show(h, buf + off, len - off);
		}
	}
	return off;
}

/*
 * Filesystems built as modules come and go while nowait_aio is loaded.
 * A part whose owner is a module is attached by a work item once that
 * module has settled (loaded, initialised, its text read-only: patching
 * it earlier races with the loader on kernels before 5.1, see compat.h),
 * and detached when it goes (MODULE_STATE_GOING: its exit has run, so no
 * file of it is open, and its ftrace records still exist).  No filter of
 * the module's ops ever names freed module text.  Until it is attached,
 * that filesystem refuses NOWAIT with EOPNOTSUPP, as one without NOWAIT
 * support does: a few milliseconds after its module loads.
 */
static bool nw_owners_ready;	/* the parts are resolved and installed */

static bool nw_owned_by(const struct nw_part *p, const char *owner)
{
	return p->owner && !strcmp(p->owner, owner);
}

/* Under nw_hooks_mutex: @p's module has come; attach its hooks. */
static void nw_part_attach(const struct nw_part *p)
{
	struct nw_hook *h;
	size_t i;

	nw_syms_count(p);
	nw_for_each_hook(p, h, i) {
		/* resolved already: its module came while nowait_aio loaded */
		if (h->addr)
			continue;
		nw_hook_resolve_one(h, p->owner);
		if (h->addr && nw_is_demand(h) && nw_demand_filter_add(h)) {
			h->addr = 0;
			h->off_reason = "ftrace refused the hook";
		}
		if (nw_hook_missing(h))
			nw_hook_report(p, h, true);
		cond_resched();
	}
	if (p->setup)
		p->setup();
	pr_info("%s.ko loaded: its hooks are attached\n", p->owner);
}

/* Under nw_hooks_mutex: @p's module is going; detach its hooks. */
static void nw_part_detach(const struct nw_part *p)
{
	struct nw_hook *h;
	size_t i;
	bool any = false;

	nw_for_each_hook(p, h, i) {
		if (h->addr) {
			nw_demand_filter_del(h);
			any = true;
		}
		WRITE_ONCE(h->addr, 0);
		WRITE_ONCE(*h->orig, NULL);
		h->off_reason = nw_reason_waiting;
	}
	if (p->setup)
		p->setup();
	if (any)
		pr_info("%s.ko unloading: its hooks are detached\n", p->owner);
}

/* Attach the pending parts whose module has settled; retry the rest. */
static void nw_owners_attach_work(struct work_struct *work);
static DECLARE_DELAYED_WORK(nw_attach_work, nw_owners_attach_work);

static void nw_owners_attach_work(struct work_struct *work)
{
	const struct nw_part *p;
	size_t i;

	mutex_lock(&nw_hooks_mutex);
	for (i = 0; i < nw_nr_parts && nw_owners_ready; i++) {
		p = nw_parts[i];
		if (!test_bit(i, &nw_parts_pending) ||
		    nw_module_unsettled(p->owner))
			continue;
		/* gone again: its GOING detached it */
		if (nw_module_loaded(p->owner))
			nw_part_attach(p);
		nw_part_unpend(i);
	}
	if (nw_parts_pending && nw_owners_ready)
		schedule_delayed_work(&nw_attach_work, msecs_to_jiffies(2));
	mutex_unlock(&nw_hooks_mutex);
}

static int nw_owner_notify(struct notifier_block *nb, unsigned long state,
			   void *data)
{
	struct module *mod = data;
	size_t i;

	mutex_lock(&nw_hooks_mutex);
	for (i = 0; i < nw_nr_parts; i++) {
		if (!nw_owned_by(nw_parts[i], mod->name))
			continue;
		/*
		 * A module that goes is always detached, also while the
		 * parts are still being installed: its sites must leave
		 * the filter before its text is freed.  One that comes is
		 * attached once it has settled (nw_module_unsettled()).
		 */
		if (state == MODULE_STATE_GOING) {
			nw_part_unpend(i);
			nw_part_detach(nw_parts[i]);
		} else if (state == MODULE_STATE_COMING) {
			/* also while loading: nw_owners_start() attaches it */
			nw_part_pend(i);
			if (nw_owners_ready)
				schedule_delayed_work(&nw_attach_work, 0);
		}
	}
	mutex_unlock(&nw_hooks_mutex);
	return NOTIFY_DONE;
}

static struct notifier_block nw_owner_nb = {
	.notifier_call = nw_owner_notify,
};

/* Before the parts are resolved: no module event can be missed. */
int nw_owners_init(void)
{
	return nw_fault_at("register_module_notifier") ?:
	       register_module_notifier(&nw_owner_nb);
}

/* After the parts are installed: module events now attach. */
void nw_owners_start(void)
{
	mutex_lock(&nw_hooks_mutex);
	nw_owners_ready = true;
	if (nw_parts_pending)
		schedule_delayed_work(&nw_attach_work, 0);
	mutex_unlock(&nw_hooks_mutex);
}

void nw_owners_exit(void)
{
	size_t i;

	unregister_module_notifier(&nw_owner_nb);
	mutex_lock(&nw_hooks_mutex);
	nw_owners_ready = false;
	mutex_unlock(&nw_hooks_mutex);
	/* it does not requeue itself once nw_owners_ready is false */
	cancel_delayed_work_sync(&nw_attach_work);
	for (i = 0; i < nw_nr_parts; i++)
		if (test_bit(i, &nw_parts_pending))
			nw_part_unpend(i);
}

/* The features line of a part with an owner: "fs xfs live", ... */
static size_t nw_owner_show(const struct nw_part *p, char *buf, size_t len)
{
	const struct nw_hook *bad = NULL, *h;
	const char *why;
	size_t i;

	nw_for_each_hook(p, h, i)
		if (h->need == NW_FS && !bad &&
		    (!h->addr || READ_ONCE(h->bad_arg)))
			bad = h;
	if (!bad) {
		why = p->off_why ? p->off_why() : NULL;
		if (why)
			return scnprintf(buf, len, "fs %s off: %s\n", p->owner,
					 why);
		return scnprintf(buf, len, "fs %s live\n", p->owner);
	}
	if (bad->off_reason == nw_reason_waiting)
		return scnprintf(buf, len, "fs %s waiting for %s.ko\n",
				 p->owner, p->owner);
	if (READ_ONCE(bad->bad_arg))
		return scnprintf(buf, len, "fs %s off: %s: distrusted\n",
				 p->owner, bad->name);
	return scnprintf(buf, len, "fs %s off: %s: %s\n", p->owner, bad->name,
			 bad->off_reason);
}

/* One features line per filesystem part. */
size_t nw_owners_show(char *buf, size_t len)
{
	size_t i, off = 0;

	mutex_lock(&nw_hooks_mutex);
	for (i = 0; i < nw_nr_parts && off < len; i++)
		if (nw_parts[i]->owner)
			off += nw_owner_show(nw_parts[i], buf + off, len - off);
	mutex_unlock(&nw_hooks_mutex);
	return off;
}
