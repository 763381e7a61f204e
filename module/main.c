// SPDX-License-Identifier: GPL-2.0
/*
 * nowait_aio - no-wait AIO (RWF_NOWAIT, Linux 4.13) for older kernels.
 *
 * The list of parts below is the whole of what the module hooks: each
 * part keeps its own table of the kernel functions it wraps or calls
 * without an export.  Every part is resolved before any hook goes live,
 * and they are taken down in reverse order.
 */
#include <linux/module.h>
#include <linux/moduleparam.h>
#include <linux/utsname.h>

#include "rules.h"
#include "hook.h"
#include "demand.h"
#include "sync.h"
#include "sysfs.h"
#include "parts.h"

module_param_named(enabled, nw_enabled, bool, 0444);
MODULE_PARM_DESC(enabled, "Start with RWF_NOWAIT support on (default 1); runtime switch: /sys/kernel/nowait_aio/enabled");

module_param_named(fault_inject, nw_fault_inject, uint, 0444);
MODULE_PARM_DESC(fault_inject, "Refuse one NOWAIT request in N with EAGAIN, for testing (default 0: off)");

module_param_named(fault_step, nw_fault_step, uint, 0444);
MODULE_PARM_DESC(fault_step, "Fail the Nth registration step (ftrace, sysfs, notifier) with -ENOMEM, for testing (default 0: off)");

module_param_named(distrust_test, nw_distrust_test, charp, 0444);
MODULE_PARM_DESC(distrust_test, "Take the arguments of this hooked kernel function as not fitting, as on a kernel whose function differs, for testing (default: none)");

module_param_named(hook_idle_ms, nw_hook_idle_ms, uint, 0444);
MODULE_PARM_DESC(hook_idle_ms, "Remove the per-request hooks after this many ms without a flagged request (default 10000; 0: keep them; runtime switch: /sys/kernel/nowait_aio/hook_idle_ms)");

/*
 * The parts, deepest first: the entry points (io_submit, preadv2/pwritev2)
 * go live last and come out first, so no flagged request can enter while a
 * hook below it is missing.  Only the entry points stay live all the time;
 * the hooks below them go in while flagged requests are about (demand.c).
 */
static const struct nw_part *const nw_part_list[] = {
#if NW_COMPLETE_BY_HOOK
	&nw_sync_part,
#endif
	&nw_block_part,
	&nw_read_part,
	&nw_ext4_part,
	&nw_xfs_part,
	&nw_btrfs_part,
	&nw_blkdev_part,
#if NW_HAVE_RWF_SYSCALLS
	&nw_rwf_part,
#endif
	&nw_aio_part,
};

/* Resolve every part, then install them all (a failure removes it all). */
static int __init nw_load_hooks(void)
{
	int err;

	mutex_lock(&nw_hooks_mutex);
	err = nw_parts_resolve(nw_part_list, ARRAY_SIZE(nw_part_list));
	if (!err) {
		nw_parts_setup();
		err = nw_hooks_install(NW_HOOKS_ALL);
		if (err) {
			nw_hooks_remove(NW_HOOKS_ALL);
			nw_demand_ops_release();
		}
	}
	mutex_unlock(&nw_hooks_mutex);
	if (err) {
		nw_hooks_wait_idle();
		/* nw_demand_init() has not run: no install was queued */
		nw_demand_release();
		nw_trust_exit();
	}
	return err;
}

/* Can the module work on this kernel, as configured?  Says why not. */
static int __init nw_kernel_fit(void)
{
	if (NW_NATIVE_NOWAIT) {
		pr_info("kernel %s has native RWF_NOWAIT (4.13+); nowait_aio is not needed, not loading\n",
			utsname()->release);
		return -EOPNOTSUPP;
	}
	if (!NW_KERNEL_SUPPORTED) {
		pr_err("kernel %s is not one nowait_aio supports (4.4 to 4.12, and RHEL/CentOS 7.9's 3.10), not loading\n",
		       utsname()->release);
		return -EOPNOTSUPP;
	}
	if (!NW_HAVE_FTRACE_REGS) {
		pr_err("kernel lacks CONFIG_DYNAMIC_FTRACE_WITH_REGS; cannot hook, not loading\n");
		return -EOPNOTSUPP;
	}
	if (nw_hook_idle_ms > NW_HOOK_IDLE_MS_MAX) {
		pr_err("hook_idle_ms=%u is over the limit of %u; not loading\n",
		       nw_hook_idle_ms, NW_HOOK_IDLE_MS_MAX);
		return -EINVAL;
	}
	if (!nw_lookup_name("do_io_submit")) {
		pr_err("kallsyms lookup of do_io_submit failed (CONFIG_KALLSYMS_ALL off?); not loading\n");
		return -ENOENT;
	}
	return 0;
}

/* On a kernel where unload cannot be made safe, stay until reboot. */
static void __init nw_pin_if_unsafe(void)
{
	if (NW_UNLOAD_SAFE)
		return;
	/* a preempted task could be left on freed wrapper code */
	__module_get(THIS_MODULE);
	nw_unload_pinned = true;
	pr_warn("preemptible kernel without TASKS_RCU: unloading cannot be made safe, so rmmod is refused until reboot\n");
}

static int __init nw_init(void)
{
	int err;

	err = nw_kernel_fit();
	if (err)
		return err;
	/* no filesystem module can come or go unseen from here on */
	err = nw_owners_init();
	if (err)
		return err;
	err = nw_sync_init();
	if (err)
		goto err_owners;
	err = nw_sysfs_init();
	if (err)
		goto err_sync;
	err = nw_load_hooks();
	if (err)
		goto err_sysfs;
	nw_owners_start();
	nw_demand_init();
	nw_pin_if_unsafe();
	pr_info("version %s loaded on %s: RWF_NOWAIT for io_submit%s\n",
		NOWAIT_AIO_VERSION, utsname()->release,
		NW_HAVE_RWF_SYSCALLS ? " and preadv2/pwritev2" :
		" (this kernel has no preadv2/pwritev2: they arrived in 4.6)");
	return 0;

err_sysfs:
	nw_sysfs_exit();
err_sync:
	nw_sync_exit();
err_owners:
	nw_owners_exit();
	return err;
}

static void __exit nw_exit_module(void)
{
	/* no flagged request may reach the kernel without its hooks */
	mutex_lock(&nw_hooks_mutex);
	nw_hooks_remove(NW_HOOKS_GATES);
	mutex_unlock(&nw_hooks_mutex);
	nw_hooks_drain_gates();
	mutex_lock(&nw_hooks_mutex);
	nw_hooks_remove(NW_HOOKS_ENTRY);
	mutex_unlock(&nw_hooks_mutex);
	nw_demand_exit();
	nw_hooks_wait_idle();
	nw_demand_release();
	nw_trust_exit();
	/* filesystem modules may come and go until here */
	nw_owners_exit();
	mutex_lock(&nw_hooks_mutex);
	nw_demand_ops_release();
	mutex_unlock(&nw_hooks_mutex);
	nw_sync_exit();
	nw_sysfs_exit();
	pr_info("unloaded\n");
}

module_init(nw_init);
module_exit(nw_exit_module);

MODULE_LICENSE("GPL v2");
MODULE_DESCRIPTION("No-wait AIO (RWF_NOWAIT) for kernels before 4.13");
MODULE_AUTHOR("nowait-aio developers");
MODULE_VERSION(NOWAIT_AIO_VERSION);
