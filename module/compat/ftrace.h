/* SPDX-License-Identifier: GPL-2.0 */
/*
 * compat/ftrace.h - the hook engine's kernel interfaces: ftrace's callback,
 * kallsyms, and waiting out the trampolines at unload.
 */
#ifndef NOWAIT_AIO_COMPAT_FTRACE_H
#define NOWAIT_AIO_COMPAT_FTRACE_H

#include <linux/ftrace.h>
#include <linux/kallsyms.h>
#include <linux/rcupdate.h>

/* The ftrace callback's signature. */
#define NW_FTRACE_THUNK(name) \
	void notrace name(unsigned long ip, unsigned long parent_ip, \
			  struct ftrace_ops *ops, struct pt_regs *regs)
#define NW_FTRACE_REGS(regs) (regs)

#ifdef CONFIG_DYNAMIC_FTRACE_WITH_REGS
#define NW_HAVE_FTRACE_REGS 1
#else
#define NW_HAVE_FTRACE_REGS 0
#endif

/*
 * Our callbacks never recurse (they only redirect the instruction pointer),
 * so ftrace needs no recursion protection around them.
 */
#define NW_FTRACE_FLAGS (FTRACE_OPS_FL_SAVE_REGS | FTRACE_OPS_FL_IPMODIFY | \
			 FTRACE_OPS_FL_RECURSION_SAFE)

/*
 * The @i-th argument of the hooked call, as the caller left it in its
 * register (x86-64 calling convention; the module is x86-64 only).
 */
static __always_inline unsigned long nw_regs_arg(const struct pt_regs *regs,
						 unsigned int i)
{
	switch (i) {
	case 0: return regs->di;
	case 1: return regs->si;
	case 2: return regs->dx;
	case 3: return regs->cx;
	case 4: return regs->r8;
	default: return regs->r9;
	}
}

/* The original function, entered past its 5-byte fentry call. */
#define NW_FENTRY_SIZE MCOUNT_INSN_SIZE

static inline unsigned long nw_lookup_name(const char *name)
{
	return kallsyms_lookup_name(name);
}

/*
 * Unload waits for tasks in the wrappers with nw_sync_trampolines().  On a
 * preemptible kernel a task can be preempted on a wrapper's first or last
 * instructions, outside nw_enter()/nw_exit(); only TASKS_RCU waits for
 * such a task (4.4's ftrace selects none).  Without it, unload is refused.
 */
#define NW_UNLOAD_SAFE \
	(!IS_ENABLED(CONFIG_PREEMPT) || IS_ENABLED(CONFIG_TASKS_RCU))

/*
 * After the ftrace callbacks are gone, wait until no task can still be
 * between a callback and the first instruction of a wrapper.
 */
static inline void nw_sync_trampolines(void)
{
#ifdef CONFIG_TASKS_RCU
	synchronize_rcu_tasks();
#else
	synchronize_sched();
#endif
}

#endif /* NOWAIT_AIO_COMPAT_FTRACE_H */
