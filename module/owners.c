// SPDX-License-Identifier: GPL-2.0
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
#include <linux/kernel.h>
#include <linux/module.h>
#include <linux/string.h>
#include <linux/workqueue.h>

#include "rules.h"
#include "hook.h"
#include "demand.h"

/*
 * Parts whose module is still loading (bit i: nw_parts[i]).  They are
 * attached from a work item once the module is settled (compat.h,
 * nw_module_unsettled()), never from inside its load.
 */
unsigned long nw_parts_pending;

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

/**
 * nw_owners_defer() - @i's module is loading: its hooks wait, and it is
 * attached later.
 * @i: the part's index in nw_parts
 */
void nw_owners_defer(size_t i)
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

/**
 * nw_owners_init() - before the parts are resolved: no module event can be
 * missed.
 */
int nw_owners_init(void)
{
	return nw_fault_at("register_module_notifier") ?:
	       register_module_notifier(&nw_owner_nb);
}

/**
 * nw_owners_start() - after the parts are installed: module events now attach.
 */
void nw_owners_start(void)
{
	mutex_lock(&nw_hooks_mutex);
	nw_owners_ready = true;
	if (nw_parts_pending)
		schedule_delayed_work(&nw_attach_work, 0);
	mutex_unlock(&nw_hooks_mutex);
}

/**
 * nw_owners_exit() - unload: no module event attaches any more, and no part is
 * left pending
 */
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
