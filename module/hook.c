// SPDX-License-Identifier: GPL-2.0
/*
 * The hook engine: one table of {symbol, wrapper, &original}.
 *
 * Every symbol is resolved with kallsyms before anything is installed.  A
 * missing required symbol fails the load; a missing optional one switches
 * off only the check it serves.  dmesg names the symbol either way, and
 * /sys/kernel/nowait_aio/features shows it.  Hooks are ftrace callbacks
 * (SAVE_REGS|IPMODIFY) that send the call to the wrapper; the wrapper
 * reaches the original past its fentry call, so it is never redirected
 * twice.  Each entry point has an ftrace_ops of its own; the hooks below
 * them share one, so that they go in and out in one ftrace update
 * (demand.c).  Removal runs in reverse order (entry points first), then
 * waits until no task is left in module code.
 */
#include <linux/delay.h>
#include <linux/ftrace.h>
#include <linux/kernel.h>
#include <linux/module.h>
#include <linux/sched.h>
#include <linux/string.h>

#include "nowait_aio.h"

DEFINE_PER_CPU(long, nw_active);
DEFINE_MUTEX(nw_hooks_mutex);

static const char *const nw_check_names[NW_NR_CHECKS] = {
	"lock", "pagecache", "alloc", "congestion",
};

static NW_FTRACE_THUNK(nw_thunk)
{
	struct nw_hook *h = container_of(ops, struct nw_hook, ops);

	NW_FTRACE_REGS(regs)->ip = (unsigned long)h->wrapper;
}

/*
 * The hooks below the entry points share one ftrace_ops, so that putting
 * them in or out is one ftrace update: each registration walks every
 * ftrace record of the kernel and patches with three cross-CPU syncs, and
 * ten of them took 94 ms of guest time under the benchmark's emulation.
 * Its callback finds the wrapper by the hooked function's address.
 */
static NW_FTRACE_THUNK(nw_demand_thunk);
static struct ftrace_ops nw_demand_ops = {
	.func = nw_demand_thunk,
	.flags = NW_FTRACE_FLAGS,
};
static bool nw_demand_registered;
static unsigned int nw_demand_nfiltered;	/* sites in its filter */

/* One of the hooks below the entry points, on the shared ops? */
static bool nw_is_demand(const struct nw_hook *h)
{
	return h->wrapper && !h->entry;
}

static NW_FTRACE_THUNK(nw_demand_thunk)
{
	size_t i;

	for (i = 0; i < nw_nr_hooks; i++) {
		const struct nw_hook *h = &nw_hooks[i];

		if (READ_ONCE(h->addr) == ip && nw_is_demand(h)) {
			NW_FTRACE_REGS(regs)->ip = (unsigned long)h->wrapper;
			return;
		}
	}
}

/* ftrace_location() is not exported; the engine needs it to check sites */
static unsigned long (*nw_ftrace_location)(unsigned long ip);

static struct nw_hook *nw_hook_find(struct nw_hook *hooks, size_t n,
				     const char *name)
{
	size_t i;

	for (i = 0; i < n; i++)
		if (!strcmp(hooks[i].name, name))
			return &hooks[i];
	return NULL;
}

/* Is @name one of the comma-separated symbols in @list? */
static bool nw_name_in_list(const char *list, const char *name)
{
	size_t len = strlen(name);

	while (list && *list) {
		if (!strncmp(list, name, len) &&
		    (list[len] == ',' || !list[len]))
			return true;
		list = strchr(list, ',');
		if (list)
			list++;
	}
	return false;
}

/* Does any of the entries @list names resolve? */
static bool nw_any_resolved(struct nw_hook *hooks, size_t n, const char *list)
{
	size_t i;

	for (i = 0; i < n; i++)
		if (hooks[i].addr && nw_name_in_list(list, hooks[i].name))
			return true;
	return false;
}

/* an owner's hook whose module is not loaded (yet, or any more) */
static const char nw_reason_waiting[] = "waiting for its module";

/* kallsyms_lookup_size_offset() is not exported either; optional */
static int (*nw_sym_size_offset)(unsigned long addr, unsigned long *size,
				 unsigned long *offset);

static void nw_hook_resolve_one(struct nw_hook *h)
{
	unsigned long size = 0, offset = 0;

	h->addr = nw_lookup_name(h->name);
	h->live = false;
	h->off_reason = NULL;
	if (!h->addr && h->owner && !nw_module_loaded(h->owner)) {
		h->off_reason = nw_reason_waiting;
	} else if (!h->addr) {
		h->off_reason = "symbol not found (inlined or absent)";
	} else if (h->owner && !nw_addr_in_live_code(h->addr)) {
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
 * Resolve every entry before anything is installed.  An entry with alt_of
 * is used only when the entry it stands in for is absent (the same hook
 * point on another kernel's code).  A missing required symbol fails the
 * load; a missing check's symbol turns that check off; a missing optional
 * one only turns off the refinement it serves.
 */
int nw_hooks_resolve(struct nw_hook *hooks, size_t n)
{
	size_t i;
	int err = 0;

	nw_ftrace_location = (void *)nw_lookup_name("ftrace_location");
	if (!nw_ftrace_location) {
		pr_err("required symbol ftrace_location not found; not loading\n");
		return -ENOENT;
	}
	nw_sym_size_offset =
		(void *)nw_lookup_name("kallsyms_lookup_size_offset");
	for (i = 0; i < n; i++)
		nw_hook_resolve_one(&hooks[i]);
	for (i = 0; i < n; i++) {
		struct nw_hook *h = &hooks[i];
		int check = h->check;
		size_t j;
		bool covered = false;

		if (h->alt_of && nw_any_resolved(hooks, n, h->alt_of)) {
			/* not needed here: a primary hook point exists */
			h->addr = 0;
			h->off_reason =
				"not needed (primary hook point present)";
			continue;
		}
		if (h->addr)
			continue;
		/* a primary whose stand-in resolved is not missing */
		for (j = 0; j < n; j++)
			if (hooks[j].alt_of && hooks[j].addr &&
			    nw_name_in_list(hooks[j].alt_of, h->name) &&
			    !nw_any_resolved(hooks, n, hooks[j].alt_of))
				covered = true;
		if (covered) {
			h->off_reason = "absent; its stand-in is used";
			continue;
		}
		if (h->off_reason == nw_reason_waiting) {
			/* its module is not loaded: attached when it comes */
			continue;
		} else if (check == NW_FS) {
			pr_warn("symbol %s (%s): %s; RWF_NOWAIT on %s is off\n",
				h->name, h->why, h->off_reason, h->owner);
		} else if (check == NW_REQUIRED) {
			pr_err("required symbol %s (%s): %s; not loading\n",
			       h->name, h->why, h->off_reason);
			err = -ENOENT;
		} else if (check == NW_OPTIONAL) {
			pr_info("symbol %s (%s): %s; that refinement is off\n",
				h->name, h->why, h->off_reason);
		} else {
			nw_check_on[check] = false;
			nw_check_avail[check] = false;
			pr_warn("symbol %s (%s): %s; check '%s' is off\n",
				h->name, h->why, h->off_reason,
				nw_check_names[check]);
		}
	}
	return err;
}

/*
 * Will @name's wrapper run for a flagged request?  Every resolved hook is
 * installed at load (or the load fails), and the ones below the entry
 * points are back in before any flagged request goes down (demand.c).
 */
bool nw_hook_usable(const char *name)
{
	struct nw_hook *h = nw_hook_find(nw_hooks, nw_nr_hooks, name);

	return h && h->wrapper && h->addr;
}

/* The address @name resolved to (0: not resolved, or its module gone). */
unsigned long nw_hook_addr(const char *name)
{
	struct nw_hook *h = nw_hook_find(nw_hooks, nw_nr_hooks, name);

	return h ? h->addr : 0;
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
	err = ftrace_set_filter_ip(&nw_demand_ops, h->addr, 0, 0);
	if (err) {
		pr_err("ftrace_set_filter_ip(%s) failed: %d\n", h->name, err);
		return err;
	}
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

/* The shared ops: every resolved site in its filter, then in. */
static int nw_demand_ops_install(struct nw_hook *hooks, size_t n)
{
	size_t i;
	int err;

	if (nw_demand_registered)
		return 0;
	for (i = 0; i < n; i++) {
		if (!nw_is_demand(&hooks[i]) || !hooks[i].addr)
			continue;
		err = nw_demand_filter_add(&hooks[i]);
		if (err)
			return err;
	}
	if (!nw_demand_nfiltered)
		return 0;
	err = register_ftrace_function(&nw_demand_ops);
	if (err) {
		pr_err("register_ftrace_function(per-request hooks) failed: %d\n",
		       err);
		return err;
	}
	nw_demand_registered = true;
	for (i = 0; i < n; i++)
		if (hooks[i].filtered)
			hooks[i].live = true;
	return 0;
}

static void nw_demand_ops_remove(struct nw_hook *hooks, size_t n)
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
	for (i = 0; i < n; i++)
		if (!hooks[i].entry)
			hooks[i].live = false;
}

/* Unload or a failed load: the shared ops' filter goes too. */
void nw_hooks_release(void)
{
	size_t i;

	if (nw_demand_registered)
		return;
	for (i = 0; i < nw_nr_hooks; i++)
		nw_demand_filter_del(&nw_hooks[i]);
}

static int nw_hook_install(struct nw_hook *h)
{
	int err;

	h->ops.func = nw_thunk;
	h->ops.flags = NW_FTRACE_FLAGS;
	err = ftrace_set_filter_ip(&h->ops, h->addr, 0, 0);
	if (err) {
		pr_err("ftrace_set_filter_ip(%s) failed: %d\n", h->name, err);
		return err;
	}
	err = register_ftrace_function(&h->ops);
	if (err) {
		pr_err("register_ftrace_function(%s) failed: %d\n", h->name,
		       err);
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

/*
 * Install @set: the per-request hooks (below the entry points in the
 * table) in one go, then the entry points in table order.  On failure,
 * remove what this call put in.
 */
int nw_hooks_install(struct nw_hook *hooks, size_t n, enum nw_hook_set set)
{
	size_t i;
	int err;

	if (set != NW_HOOKS_ENTRY) {
		err = nw_demand_ops_install(hooks, n);
		if (err)
			return err;
	}
	if (set == NW_HOOKS_DEMAND)
		return 0;
	for (i = 0; i < n; i++) {
		if (!hooks[i].wrapper || !hooks[i].addr || hooks[i].live ||
		    !hooks[i].entry)
			continue;
		err = nw_hook_install(&hooks[i]);
		if (err) {
			nw_hooks_remove(hooks, i, set);
			return err;
		}
	}
	return 0;
}

/* Remove @set: the entry points in reverse table order, then the rest. */
void nw_hooks_remove(struct nw_hook *hooks, size_t n, enum nw_hook_set set)
{
	size_t i = n;

	if (set != NW_HOOKS_DEMAND)
		while (i--)
			if (hooks[i].entry)
				nw_hook_remove(&hooks[i]);
	if (set != NW_HOOKS_ENTRY)
		nw_demand_ops_remove(hooks, n);
}

/* Wait until no task is inside a wrapper (it may be blocked in the kernel). */
void nw_hooks_wait_idle(void)
{
	unsigned int waited = 0;

	nw_sync_trampolines();
	for (;;) {
		long sum = 0;
		int cpu;

		for_each_possible_cpu(cpu)
			sum += per_cpu(nw_active, cpu);
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

size_t nw_features_show(char *buf, size_t len)
{
	size_t i, off = 0;
	int c;

	for (i = 0; i < nw_nr_hooks && off < len; i++) {
		const struct nw_hook *h = &nw_hooks[i];

		if (!h->wrapper && h->addr)
			continue;	/* resolved helper symbols */
		if (h->off_reason == nw_reason_waiting) {
			off += scnprintf(buf + off, len - off,
					 "hook %s off: waiting for %s.ko\n",
					 h->name, h->owner);
			continue;
		}
		off += scnprintf(buf + off, len - off, "hook %s %s%s%s\n",
				 h->name, h->live ? "live" :
				 !h->addr ? "off" :
				 h->wrapper ? "standby" : "resolved",
				 h->off_reason ? ": " : "",
				 h->off_reason ? h->off_reason : "");
	}
	if (off < len)
		off += nw_demand_show(buf + off, len - off);
	if (off < len)
		off += nw_owners_show(buf + off, len - off);
	if (nw_unload_pinned && off < len)
		off += scnprintf(buf + off, len - off,
				 "unload refused: preemptible kernel without TASKS_RCU\n");
	for (c = 0; c < NW_NR_CHECKS && off < len; c++)
		off += scnprintf(buf + off, len - off, "check %s %s\n",
				 nw_check_names[c],
				 !nw_check_avail[c] ? "unavailable" :
				 nw_check_on[c] ? "on" : "off");
	return off;
}

/*
 * Filesystems built as modules come and go while nowait_aio is loaded.
 * A hook whose owner is a module is attached when that module comes
 * (MODULE_STATE_COMING: its code and ftrace records are in place, and
 * its init, which registers the filesystem, has not run yet) and
 * detached when it goes (MODULE_STATE_GOING: its exit has run, so no
 * file of it is open, and its ftrace records still exist).  No filter
 * of the module's ops ever names freed module text.
 */
static bool nw_owners_ready;	/* the table is resolved and installed */

static bool nw_owner_is(const struct nw_hook *h, const char *owner)
{
	return h->owner && !strcmp(h->owner, owner);
}

static bool nw_owner_known(const char *owner)
{
	size_t i;

	for (i = 0; i < nw_nr_hooks; i++)
		if (nw_owner_is(&nw_hooks[i], owner))
			return true;
	return false;
}

/* Under nw_hooks_mutex: @owner's module has come; attach its hooks. */
static void nw_owner_attach(const char *owner)
{
	size_t i;

	for (i = 0; i < nw_nr_hooks; i++) {
		struct nw_hook *h = &nw_hooks[i];

		if (!nw_owner_is(h, owner) || h->addr)
			continue;
		nw_hook_resolve_one(h);
		if (h->addr && nw_is_demand(h) && nw_demand_filter_add(h)) {
			h->addr = 0;
			h->off_reason = "ftrace refused the hook";
		}
		if (!h->addr && h->check == NW_OPTIONAL)
			pr_info("%s.ko: symbol %s (%s): %s; the module does without it\n",
				owner, h->name, h->why, h->off_reason);
		else if (!h->addr)
			pr_warn("%s.ko: symbol %s (%s): %s; RWF_NOWAIT on %s is off\n",
				owner, h->name, h->why, h->off_reason, owner);
	}
	nw_fs_setup();
	pr_info("%s.ko loaded: its hooks are attached\n", owner);
}

/* Under nw_hooks_mutex: @owner's module is going; detach its hooks. */
static void nw_owner_detach(const char *owner)
{
	size_t i;
	bool any = false;

	for (i = 0; i < nw_nr_hooks; i++) {
		struct nw_hook *h = &nw_hooks[i];

		if (!nw_owner_is(h, owner))
			continue;
		if (h->addr) {
			nw_demand_filter_del(h);
			any = true;
		}
		WRITE_ONCE(h->addr, 0);
		WRITE_ONCE(*h->orig, NULL);
		h->off_reason = nw_reason_waiting;
	}
	nw_fs_setup();
	if (any)
		pr_info("%s.ko unloading: its hooks are detached\n", owner);
}

static int nw_owner_notify(struct notifier_block *nb, unsigned long state,
			   void *data)
{
	struct module *mod = data;

	if (!nw_owner_known(mod->name))
		return NOTIFY_DONE;
	mutex_lock(&nw_hooks_mutex);
	if (state == MODULE_STATE_COMING && nw_owners_ready)
		nw_owner_attach(mod->name);
	else if (state == MODULE_STATE_GOING)
		nw_owner_detach(mod->name);
	mutex_unlock(&nw_hooks_mutex);
	return NOTIFY_DONE;
}

static struct notifier_block nw_owner_nb = {
	.notifier_call = nw_owner_notify,
};

/* Before the table is resolved: no module event can be missed. */
int nw_owners_init(void)
{
	return register_module_notifier(&nw_owner_nb);
}

/* After the table is installed: module events now attach. */
void nw_owners_start(void)
{
	mutex_lock(&nw_hooks_mutex);
	nw_owners_ready = true;
	mutex_unlock(&nw_hooks_mutex);
}

void nw_owners_exit(void)
{
	unregister_module_notifier(&nw_owner_nb);
	mutex_lock(&nw_hooks_mutex);
	nw_owners_ready = false;
	mutex_unlock(&nw_hooks_mutex);
}

/* One features line per owner: "fs xfs live", "fs xfs waiting for xfs.ko". */
size_t nw_owners_show(char *buf, size_t len)
{
	size_t i, j, off = 0;

	mutex_lock(&nw_hooks_mutex);
	for (i = 0; i < nw_nr_hooks && off < len; i++) {
		const struct nw_hook *h = &nw_hooks[i], *bad = NULL;

		if (h->check != NW_FS)
			continue;
		for (j = 0; j < i; j++)
			if (nw_hooks[j].check == NW_FS &&
			    nw_owner_is(&nw_hooks[j], h->owner))
				break;
		if (j < i)
			continue;	/* that owner's line is out */
		for (j = i; j < nw_nr_hooks; j++)
			if (nw_hooks[j].check == NW_FS &&
			    nw_owner_is(&nw_hooks[j], h->owner) &&
			    !nw_hooks[j].addr && !bad)
				bad = &nw_hooks[j];
		if (!bad && nw_owner_is(h, "btrfs") && !nw_btrfs_offered())
			off += scnprintf(buf + off, len - off,
					 "fs btrfs off: no can_nocow_extent, and fiemap before 4.9 cannot see reflinks since the last commit\n");
		else if (!bad)
			off += scnprintf(buf + off, len - off, "fs %s live\n",
					 h->owner);
		else if (bad->off_reason == nw_reason_waiting)
			off += scnprintf(buf + off, len - off,
					 "fs %s waiting for %s.ko\n", h->owner,
					 h->owner);
		else
			off += scnprintf(buf + off, len - off,
					 "fs %s off: %s: %s\n", h->owner,
					 bad->name, bad->off_reason);
	}
	mutex_unlock(&nw_hooks_mutex);
	return off;
}
