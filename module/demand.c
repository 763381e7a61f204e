// SPDX-License-Identifier: GPL-2.0
/*
 * The hooks below the entry points, installed on demand.
 *
 * Only the entry points (io_submit, preadv2/pwritev2) can see a flagged
 * request arrive, so only they stay live from load to unload.  The hooks
 * below them (aio_read/aio_write, the filesystems' read_iter/write_iter,
 * the block layer's request allocation) matter only while a flagged
 * request is being submitted, yet each costs every plain request an ftrace
 * trampoline (a pt_regs save and restore around a callback).  So they go
 * in when a flagged request arrives and they are not live, and come out
 * again after hook_idle_ms milliseconds without one.  hook_idle_ms=0 keeps
 * them in from load to unload.
 *
 * A flagged request holds them from nw_demand_get() until its submission
 * returns (nw_demand_put()); that is all the time they are needed, as the
 * module does nothing in a request's completion.  The first flagged
 * request after an idle spell waits while they go in (ftrace patches each
 * site with a breakpoint and three cross-CPU syncs).  The load installs
 * every hook once, so a hook that cannot go in fails the load, and then
 * takes the demand set out again.
 *
 * The lock-free test pairs with the removal as in Dekker's algorithm: a
 * getter counts itself in, then reads nw_demand_on; the remover clears
 * nw_demand_on, then reads the count.  With a full barrier between each
 * pair, one of the two sees the other.
 */
#include <linux/atomic.h>
#include <linux/delay.h>
#include <linux/jiffies.h>
#include <linux/ktime.h>
#include <linux/mutex.h>
#include <linux/workqueue.h>

#include "nowait_aio.h"

unsigned int nw_hook_idle_ms = 10000;

static atomic_t nw_demand_users = ATOMIC_INIT(0);
static bool nw_demand_on;		/* the demand set is live */
static bool nw_demand_stopping;		/* unload: no more installs */
static unsigned long nw_demand_last;	/* jiffies of the last put */
static unsigned long nw_demand_installs;	/* for features */
static u64 nw_demand_install_ns;		/* the last one's duration */

static void nw_demand_idle(struct work_struct *work);
static DECLARE_DELAYED_WORK(nw_demand_work, nw_demand_idle);

static void nw_demand_arm(void)
{
	unsigned int ms = READ_ONCE(nw_hook_idle_ms);

	if (ms && !nw_demand_stopping)
		mod_delayed_work(system_wq, &nw_demand_work,
				 msecs_to_jiffies(ms));
}

/* Under nw_hooks_mutex. */
static int nw_demand_install_locked(void)
{
	ktime_t t0;
	int err;

	if (nw_demand_on)
		return 0;
	if (nw_demand_stopping)
		return -EOPNOTSUPP;
	t0 = ktime_get();
	err = nw_hooks_install(nw_hooks, nw_nr_hooks, NW_HOOKS_DEMAND);
	nw_demand_install_ns = ktime_to_ns(ktime_sub(ktime_get(), t0));
	if (err) {
		pr_warn_ratelimited("cannot install the per-request hooks (%d); flagged requests fail with EOPNOTSUPP\n",
				    err);
		return -EOPNOTSUPP;
	}
	nw_demand_installs++;
	WRITE_ONCE(nw_demand_last, jiffies);
	/* the hooks are in before a lock-free getter can see "on" */
	smp_store_release(&nw_demand_on, true);
	nw_demand_arm();
	return 0;
}

/* Under nw_hooks_mutex.  -EBUSY while a flagged request holds them. */
static int nw_demand_remove_locked(void)
{
	if (!nw_demand_on)
		return 0;
	WRITE_ONCE(nw_demand_on, false);
	smp_mb();	/* pairs with nw_demand_get() */
	if (atomic_read(&nw_demand_users)) {
		WRITE_ONCE(nw_demand_on, true);
		return -EBUSY;
	}
	nw_hooks_remove(nw_hooks, nw_nr_hooks, NW_HOOKS_DEMAND);
	return 0;
}

/*
 * Before a flagged request goes below the entry point: 0 with the demand
 * set live until nw_demand_put(), or -EOPNOTSUPP when it cannot be (the
 * module is being unloaded, or ftrace refused a hook).
 */
int nw_demand_get(void)
{
	int err;

	atomic_inc(&nw_demand_users);
	smp_mb__after_atomic();	/* pairs with nw_demand_remove_locked() */
	if (likely(READ_ONCE(nw_demand_on)))
		return 0;
	atomic_dec(&nw_demand_users);

	mutex_lock(&nw_hooks_mutex);
	err = nw_demand_install_locked();
	if (!err)
		atomic_inc(&nw_demand_users);
	mutex_unlock(&nw_hooks_mutex);
	return err;
}

void nw_demand_put(void)
{
	unsigned long now = jiffies;

	/* at most one store a tick: the line is shared by every CPU */
	if (READ_ONCE(nw_demand_last) != now)
		WRITE_ONCE(nw_demand_last, now);
	/* the request's use of the hooks is over before it counts itself out */
	smp_mb__before_atomic();
	atomic_dec(&nw_demand_users);
}

static void nw_demand_idle(struct work_struct *work)
{
	unsigned int ms = READ_ONCE(nw_hook_idle_ms);
	unsigned long due;

	if (!ms)
		return;
	mutex_lock(&nw_hooks_mutex);
	due = READ_ONCE(nw_demand_last) + msecs_to_jiffies(ms);
	if (nw_demand_on && !nw_demand_stopping) {
		if (time_before(jiffies, due))
			mod_delayed_work(system_wq, &nw_demand_work,
					 due - jiffies);
		else if (nw_demand_remove_locked())
			/* a request holds them: look again in a while */
			mod_delayed_work(system_wq, &nw_demand_work,
					 msecs_to_jiffies(ms));
	}
	mutex_unlock(&nw_hooks_mutex);
}

/* The features line: state, installs since load, the last one's time. */
size_t nw_demand_show(char *buf, size_t len)
{
	size_t off;

	mutex_lock(&nw_hooks_mutex);
	off = scnprintf(buf, len,
			"demand %s installs %lu last_install_us %llu\n",
			nw_demand_on ? "live" : "standby", nw_demand_installs,
			(unsigned long long)nw_demand_install_ns / 1000);
	mutex_unlock(&nw_hooks_mutex);
	return off;
}

/* The hook_idle_ms switch.  0 installs the demand set and keeps it. */
int nw_demand_set_idle(unsigned int ms)
{
	int err = 0;

	mutex_lock(&nw_hooks_mutex);
	WRITE_ONCE(nw_hook_idle_ms, ms);
	if (!ms)
		err = nw_demand_install_locked();
	else if (nw_demand_on)
		nw_demand_arm();
	mutex_unlock(&nw_hooks_mutex);
	return err;
}

/*
 * After the load installed every hook: the demand set counts as live, and
 * unless hook_idle_ms is 0 it comes out at once, so that a machine where
 * nobody asks for the flags pays for the entry points only.
 */
void nw_demand_init(void)
{
	mutex_lock(&nw_hooks_mutex);
	nw_demand_stopping = false;
	nw_demand_on = true;
	WRITE_ONCE(nw_demand_last, jiffies);
	if (READ_ONCE(nw_hook_idle_ms) && nw_demand_remove_locked())
		nw_demand_arm();
	mutex_unlock(&nw_hooks_mutex);
}

/*
 * Unload, after the entry points came out: no new flagged request can
 * start, but one may still be between its entry point and its put.  Wait
 * for it, then take the demand set out.
 */
void nw_demand_exit(void)
{
	unsigned int waited = 0;

	mutex_lock(&nw_hooks_mutex);
	nw_demand_stopping = true;
	mutex_unlock(&nw_hooks_mutex);
	cancel_delayed_work_sync(&nw_demand_work);
	for (;;) {
		int busy;

		mutex_lock(&nw_hooks_mutex);
		busy = nw_demand_remove_locked();
		mutex_unlock(&nw_hooks_mutex);
		if (!busy)
			break;
		if (++waited % 50 == 0)
			pr_info("unload: waiting for %d flagged request(s) being submitted\n",
				atomic_read(&nw_demand_users));
		msleep(20);
	}
}
