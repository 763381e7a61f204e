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
 * module does nothing in a request's completion.  A flagged request that
 * arrives while they are out is refused with EAGAIN (eagain_warmup) and
 * queues their install on a workqueue: putting them in takes a mutex and
 * ftrace's cross-CPU patching (about 10 ms under TCG), a wait that RWF_NOWAIT
 * promises the caller it will not see.  The caller's fallback runs that
 * request, as for any refusal, and the next flagged request finds them in.
 * The load installs every hook once, so a hook that cannot go in fails the
 * load, and then takes the demand set out again.
 *
 * The count of requests holding them is per CPU, so that a flagged request
 * writes no line another CPU writes.  A getter reads nw_demand_on and counts
 * itself in with preemption off; the remover clears nw_demand_on and waits
 * for an RCU-sched grace period, after which every getter that saw it set
 * is counted and no new one can be.  A request may count in on one CPU and
 * out on another, so only the sum means anything; read after the grace
 * period it can be too high (a put not yet seen), never too low.
 */
#include <linux/jiffies.h>
#include <linux/ktime.h>
#include <linux/mutex.h>
#include <linux/percpu.h>
#include <linux/workqueue.h>

#include "rules.h"
#include "hook.h"
#include "demand.h"

unsigned int nw_hook_idle_ms = 10000;

static DEFINE_PER_CPU(long, nw_demand_users);
static DEFINE_PER_CPU(unsigned long, nw_demand_last);	/* jiffies of a put */
bool nw_demand_on;		/* the demand set is live */
/* unload, or not loaded yet: no more installs (nw_demand_init() clears) */
static bool nw_demand_stopping = true;
static int nw_demand_err;		/* the last install's error */
static unsigned long nw_demand_installs;	/* for features */
static u64 nw_demand_install_ns;		/* the last one's duration */

static void nw_demand_idle(struct work_struct *work);
static DECLARE_DELAYED_WORK(nw_demand_work, nw_demand_idle);
static void nw_demand_warmup(struct work_struct *work);
static DECLARE_WORK(nw_demand_install_work, nw_demand_warmup);

static void nw_demand_arm(void)
{
	unsigned int ms = READ_ONCE(nw_hook_idle_ms);

	if (ms && !nw_demand_stopping)
		mod_delayed_work(system_wq, &nw_demand_work,
				 msecs_to_jiffies(ms));
}

static void nw_demand_touch(void)
{
	unsigned long now = jiffies;

	/* at most one store a tick, to this CPU's own line */
	if (__this_cpu_read(nw_demand_last) != now)
		__this_cpu_write(nw_demand_last, now);
}

/* The latest put on any CPU (or the latest install). */
static unsigned long nw_demand_last_put(void)
{
	int cpu = cpumask_first(cpu_possible_mask);
	unsigned long last = READ_ONCE(per_cpu(nw_demand_last, cpu));

	for_each_possible_cpu(cpu) {
		unsigned long t = READ_ONCE(per_cpu(nw_demand_last, cpu));

		if (time_after(t, last))
			last = t;
	}
	return last;
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
	err = nw_hooks_install(NW_HOOKS_DEMAND);
	nw_demand_install_ns = ktime_to_ns(ktime_sub(ktime_get(), t0));
	WRITE_ONCE(nw_demand_err, err ? -EOPNOTSUPP : 0);
	if (err) {
		pr_warn_ratelimited("cannot install the per-request hooks (%d); flagged requests fail with EOPNOTSUPP\n",
				    err);
		return -EOPNOTSUPP;
	}
	nw_demand_installs++;
	preempt_disable();
	nw_demand_touch();
	preempt_enable();
	/* the hooks are in before a lock-free getter can see "on" */
	smp_store_release(&nw_demand_on, true);
	nw_demand_arm();
	return 0;
}

static long nw_demand_count(void)
{
	long sum = 0;
	int cpu;

	for_each_possible_cpu(cpu)
		sum += READ_ONCE(per_cpu(nw_demand_users, cpu));
	return sum;
}

/* Under nw_hooks_mutex.  -EBUSY while a flagged request holds them. */
static int nw_demand_remove_locked(void)
{
	if (!nw_demand_on)
		return 0;
	WRITE_ONCE(nw_demand_on, false);
	/* every getter that saw "on" has counted itself in */
	synchronize_sched();
	if (nw_demand_count() > 0) {
		WRITE_ONCE(nw_demand_on, true);
		return -EBUSY;
	}
	nw_hooks_remove(NW_HOOKS_DEMAND);
	return 0;
}

static void nw_demand_warmup(struct work_struct *work)
{
	mutex_lock(&nw_hooks_mutex);
	nw_demand_install_locked();
	mutex_unlock(&nw_hooks_mutex);
}

/* The fast path: counted in while the demand set is live, or false. */
static bool nw_demand_try_get(void)
{
	bool on;

	preempt_disable();
	/* acquire: pairs with the install's release, the hooks are in */
	on = smp_load_acquire(&nw_demand_on);
	if (likely(on))
		__this_cpu_inc(nw_demand_users);
	preempt_enable();
	return on;
}

/**
 * nw_demand_get() - before a NOWAIT request goes below the entry point: 0 with
 * the demand set live until nw_demand_put(); -EAGAIN (counted as eagain_warmup)
 * when it is out, its install then queued; -EOPNOTSUPP when it cannot go in
 * (the module is not loaded yet or being unloaded, or ftrace refused a hook the
 * last time).  Never sleeps.
 */
int nw_demand_get(void)
{
	int err;

	if (likely(nw_demand_try_get()))
		return 0;
	if (READ_ONCE(nw_demand_stopping))
		return -EOPNOTSUPP;
	/*
	 * Queued from inside the wrapper (nw_enter()): unload waits for every
	 * wrapper to return before it cancels the work.
	 */
	if (!work_pending(&nw_demand_install_work))
		queue_work(system_wq, &nw_demand_install_work);
	err = READ_ONCE(nw_demand_err);
	if (err)
		return err;
	nw_count(NW_CNT_EAGAIN_WARMUP);
	return -EAGAIN;
}

/**
 * nw_demand_get_wait() - the same for a flagged request without RWF_NOWAIT,
 * which may wait as the kernel's own path may: the demand set is put in here
 * when it is out. 0, or -EOPNOTSUPP.  Sleeps; no lock held.
 */
int nw_demand_get_wait(void)
{
	int err;

	if (likely(nw_demand_try_get()))
		return 0;
	mutex_lock(&nw_hooks_mutex);
	/* under the mutex no remover runs: "on" holds until it is let go */
	err = nw_demand_install_locked();
	if (!err)
		nw_demand_hold();
	mutex_unlock(&nw_hooks_mutex);
	return err;
}

/**
 * nw_demand_hold() - one more hold, by a request that holds them already
 * (sync.c)
 */
void nw_demand_hold(void)
{
	preempt_disable();
	__this_cpu_inc(nw_demand_users);
	preempt_enable();
}

/**
 * nw_demand_put() - a flagged request's submission has returned: let go of
 * the demand set.
 *
 * Drops the hold taken by nw_demand_get(), nw_demand_get_wait() or
 * nw_demand_hold() and notes the time for the idle timer, which takes the
 * demand set out hook_idle_ms after the last put.  The count may go down on
 * another CPU than the one it went up on.  Never sleeps.
 */
void nw_demand_put(void)
{
	/*
	 * The request's use of the hooks is over before it counts itself
	 * out: pairs with the remover's grace period and sum.
	 */
	smp_mb();
	preempt_disable();
	nw_demand_touch();
	__this_cpu_dec(nw_demand_users);
	preempt_enable();
}

static void nw_demand_idle(struct work_struct *work)
{
	unsigned int ms = READ_ONCE(nw_hook_idle_ms);
	unsigned long due;

	if (!ms)
		return;
	mutex_lock(&nw_hooks_mutex);
	due = nw_demand_last_put() + msecs_to_jiffies(ms);
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

/**
 * nw_demand_show() - the features line: state, installs since load, the last
 * one's time.
 * @buf: the features text being written
 * @len: room left in @buf
 */
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

/**
 * nw_demand_set_idle() - the hook_idle_ms switch. 0 installs the demand set and
 * keeps it.
 * @ms: the new hook_idle_ms, 0 to NW_HOOK_IDLE_MS_MAX
 */
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

/**
 * nw_demand_init() - after the load installed every hook: the demand set counts
 * as live, and unless hook_idle_ms is 0 it comes out at once, so that a machine
 * where nobody asks for the flags pays for the entry points only.
 */
void nw_demand_init(void)
{
	int cpu;

	mutex_lock(&nw_hooks_mutex);
	nw_demand_stopping = false;
	nw_demand_on = true;
	nw_demand_err = 0;
	for_each_possible_cpu(cpu)
		per_cpu(nw_demand_last, cpu) = jiffies;
	if (READ_ONCE(nw_hook_idle_ms) && nw_demand_remove_locked())
		nw_demand_arm();
	mutex_unlock(&nw_hooks_mutex);
}

static long nw_demand_busy(void)
{
	int busy;

	mutex_lock(&nw_hooks_mutex);
	busy = nw_demand_remove_locked();
	mutex_unlock(&nw_hooks_mutex);
	return busy ? max(nw_demand_count(), 1L) : 0;
}

/**
 * nw_demand_exit() - unload, after the entry points came out: no new flagged
 * request can start, but one may still be between its entry point and its put.
 * Wait for it, then take the demand set out.
 */
void nw_demand_exit(void)
{
	mutex_lock(&nw_hooks_mutex);
	nw_demand_stopping = true;
	mutex_unlock(&nw_hooks_mutex);
	cancel_delayed_work_sync(&nw_demand_work);
	nw_wait_while(nw_demand_busy, "flagged request(s) being submitted");
}

/**
 * nw_demand_release() - unload, after every wrapper returned
 * (nw_hooks_wait_idle()): no getter can queue the install any more.  With
 * nw_demand_stopping set, a run of it that is still pending does nothing; wait
 * for it to finish.
 */
void nw_demand_release(void)
{
	cancel_work_sync(&nw_demand_install_work);
}

/*
 * The hooks below the entry points share one ftrace_ops, so that putting
 * them in or out is one ftrace update: each registration walks every
 * ftrace record of the kernel and patches with three cross-CPU syncs, a
 * cost paid once instead of once per hook.  Its callback finds the wrapper
 * by the hooked function's address, in a flat list of every part's
 * per-request hooks.
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

/**
 * nw_demand_ops_collect() - the flat list of every part's per-request hooks;
 * -E2BIG past its size.
 */
int nw_demand_ops_collect(void)
{
	struct nw_hook *h;
	size_t i, j;

	nw_nr_demand = 0;
	for (i = 0; i < nw_nr_parts; i++) {
		nw_for_each_hook(nw_parts[i], h, j) {
			if (!nw_is_demand(h))
				continue;
			if (nw_nr_demand == NW_MAX_DEMAND)
				return -E2BIG;
			nw_demand_hooks[nw_nr_demand++] = h;
		}
	}
	return 0;
}

/**
 * nw_demand_filter_add() - A per-request hook's site goes into the shared ops'
 * filter when it is resolved (at load, or when its module comes) and out when
 * its module goes; the filter outlives unregistering.  On a registered ops
 * ftrace patches the site at once.  The required vmlinux hooks keep the filter
 * from ever becoming empty (an empty filter would trace every function).
 * @h: a resolved per-request hook
 */
int nw_demand_filter_add(struct nw_hook *h)
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

/**
 * nw_demand_filter_del() - take a per-request hook's site out of the
 * shared ops' filter (its module is going, or another user holds it)
 * @h: a per-request hook
 */
void nw_demand_filter_del(struct nw_hook *h)
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

/**
 * nw_demand_ops_install() - the shared ops: every resolved site in its filter,
 * then in.
 */
int nw_demand_ops_install(void)
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

/**
 * nw_demand_ops_remove() - unregister the shared ops (their filter stays, for
 * the next install)
 */
void nw_demand_ops_remove(void)
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

/**
 * nw_demand_ops_release() - unload or a failed load: the shared ops' filter
 * goes too.
 */
void nw_demand_ops_release(void)
{
	size_t i;

	if (nw_demand_registered)
		return;
	for (i = 0; i < nw_nr_demand; i++)
		nw_demand_filter_del(nw_demand_hooks[i]);
}
