// SPDX-License-Identifier: GPL-2.0
/*
 * The hook engine's second half: ftrace in and out (resolve.c resolves).
 * Each part of the module (io_submit, preadv2/pwritev2, reads, each
 * filesystem, block devices, the block layer) owns a table of {symbol,
 * wrapper, &original} (struct nw_part, hook.h).
 *
 * Hooks are ftrace callbacks (SAVE_REGS|IPMODIFY) that send the call to
 * the wrapper; the wrapper reaches the original past its fentry call, so
 * it is never redirected twice.  Each entry point has an ftrace_ops of its
 * own; the hooks below them share one, so that they go in and out in one
 * ftrace update (demand.c).  Removal runs in reverse order (entry points
 * first), then waits until no task is left in module code.  A part whose
 * symbols live in a kernel module (a filesystem built as one) is attached
 * once that module has finished loading and detached before it goes
 * (owners.c).
 */
#include <linux/delay.h>
#include <linux/ftrace.h>
#include <linux/kernel.h>
#include <linux/module.h>

#include "rules.h"
#include "hook.h"
#include "demand.h"

DEFINE_PER_CPU(long, nw_active);
DEFINE_PER_CPU(long, nw_gate_active);
DEFINE_MUTEX(nw_hooks_mutex);
bool nw_unload_pinned;	/* rmmod refused: see NW_UNLOAD_SAFE (main.c) */

static NW_FTRACE_THUNK(nw_thunk)
{
	struct nw_hook *h = container_of(ops, struct nw_hook, ops);

	if (nw_hook_trusts(h, NW_FTRACE_REGS(regs)))
		NW_FTRACE_REGS(regs)->ip = (unsigned long)h->wrapper;
}

/**
 * nw_filter_add() - ftrace_set_filter_ip() adding @h's site to @ops (fault_step
 * counts it)
 * @ops: the ftrace_ops whose filter takes the site
 * @h: the hook, resolved
 */
int nw_filter_add(struct ftrace_ops *ops, const struct nw_hook *h)
{
	int err = nw_fault_at("ftrace_set_filter_ip");

	if (!err)
		err = ftrace_set_filter_ip(ops, h->addr, 0, 0);
	if (err)
		pr_err("ftrace_set_filter_ip(%s) failed: %d\n", h->name, err);
	return err;
}

/**
 * nw_ops_register() - register_ftrace_function() (fault_step counts it)
 * @ops: the ftrace_ops
 * @name: what it hooks, for dmesg
 */
int nw_ops_register(struct ftrace_ops *ops, const char *name)
{
	int err = nw_fault_at("register_ftrace_function");

	if (!err)
		err = register_ftrace_function(ops);
	if (err)
		pr_err("register_ftrace_function(%s) failed: %d\n", name, err);
	return err;
}

/**
 * nw_hook_ready() - will @h's wrapper run for a flagged request?  Every
 * resolved hook is installed at load (or the load fails), and the ones below
 * the entry points are back in before any flagged request goes down (demand.c).
 * @h: a hook of a part
 */
bool nw_hook_ready(const struct nw_hook *h)
{
	return h->wrapper && h->addr && !READ_ONCE(h->bad_arg);
}

/**
 * nw_hooks_for_each() - @fn on every hook of every part, stand-ins too.  Under
 * the mutex.
 * @fn: called with each part and hook
 */
void nw_hooks_for_each(void (*fn)(const struct nw_part *p,
				  struct nw_hook *h))
{
	struct nw_hook *h;
	size_t i, j;

	for (i = 0; i < nw_nr_parts; i++)
		nw_for_each_hook(nw_parts[i], h, j)
			fn(nw_parts[i], h);
}

/**
 * nw_hook_clashes() - does another ftrace user that modifies the instruction
 * pointer (a kprobe, a live patch) hold @h's function?  One registration of its
 * own tells.
 * @h: a resolved hook not registered on its own ops
 */
bool nw_hook_clashes(struct nw_hook *h)
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

/**
 * nw_hooks_install() - install @set: the per-request hooks in one go, then the
 * entry points in the parts' order.  On failure, remove what this call put in.
 * @set: which hooks
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

/**
 * nw_hooks_remove() - remove @set: the entry points in reverse order, then the
 * rest.
 * @set: which hooks
 */
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

/**
 * nw_wait_while() - unload's wait: sleep in 20 ms steps while @busy() counts
 * something, saying what once a second
 * @busy: how many are left (it may act, as taking the demand set out)
 * @what: what they are, for dmesg ("task(s) in hooked calls")
 */
void nw_wait_while(long (*busy)(void), const char *what)
{
	unsigned int waited = 0;
	long n;

	while ((n = busy())) {
		if (++waited % 50 == 0)
			pr_info("unload: waiting for %ld %s\n", n, what);
		msleep(20);
	}
}

static long nw_gates_busy(void)
{
	return nw_percpu_sum(&nw_gate_active);
}

static long nw_wrappers_busy(void)
{
	return nw_percpu_sum(&nw_active);
}

/**
 * nw_hooks_drain_gates() - unload, the gates out: wait until no task is left in
 * a gate's wrapper, so no flagged request is on its way to a per-request hook
 * (aio_read(), aio_write()) that is about to go.  Not under nw_hooks_mutex:
 * such a request may take it (nw_demand_get_wait()).
 */
void nw_hooks_drain_gates(void)
{
	nw_sync_trampolines();
	nw_wait_while(nw_gates_busy, "flagged request(s) being submitted");
}

/**
 * nw_hooks_wait_idle() - wait until no task is inside a wrapper (it may be
 * blocked in the kernel).
 */
void nw_hooks_wait_idle(void)
{
	nw_sync_trampolines();
	nw_wait_while(nw_wrappers_busy, "task(s) in hooked calls");
	/* a task may still be on the wrapper's last instructions */
	nw_sync_trampolines();
}
