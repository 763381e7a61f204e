// SPDX-License-Identifier: GPL-2.0
/*
 * nowait_aio - no-wait AIO (RWF_NOWAIT, Linux 4.13) for older kernels.
 *
 * The hook table below is the whole list of kernel functions the module
 * wraps or calls without an export.  It is resolved completely before any
 * hook goes live, and taken down in reverse order.
 */
#include <linux/module.h>
#include <linux/moduleparam.h>
#include <linux/random.h>
#include <linux/utsname.h>

#include "nowait_aio.h"

bool nw_enabled = true;
module_param_named(enabled, nw_enabled, bool, 0444);
MODULE_PARM_DESC(enabled, "Start with RWF_NOWAIT support on (default 1); runtime switch: /sys/kernel/nowait_aio/enabled");

unsigned int nw_fault_inject;
module_param_named(fault_inject, nw_fault_inject, uint, 0444);
MODULE_PARM_DESC(fault_inject, "Refuse one NOWAIT request in N with EAGAIN, for testing (default 0: off)");

module_param_named(hook_idle_ms, nw_hook_idle_ms, uint, 0444);
MODULE_PARM_DESC(hook_idle_ms, "Remove the per-request hooks after this many ms without a flagged request (default 10000; 0: keep them; runtime switch: /sys/kernel/nowait_aio/hook_idle_ms)");

bool nw_check_on[NW_NR_CHECKS] = { true, true, true, true };
bool nw_unload_pinned;	/* rmmod refused: see NW_UNLOAD_SAFE */
bool nw_check_avail[NW_NR_CHECKS] = { true, true, true, true };

DEFINE_PER_CPU(unsigned long, nw_counters[NW_NR_COUNTERS]);

unsigned long nw_counter_sum(enum nw_counter c)
{
	unsigned long sum = 0;
	int cpu;

	for_each_possible_cpu(cpu)
		sum += per_cpu(nw_counters[c], cpu);
	return sum;
}

bool nw_inject_eagain(void)
{
	unsigned int n = READ_ONCE(nw_fault_inject);

	return n && prandom_u32() % n == 0;
}

#define NW_HOOK(sym, check, why) \
	{ #sym, nw_##sym, (void **)&nw_orig_##sym, check, why }
#define NW_SYM(sym, ptr, why) \
	{ #sym, NULL, (void **)&ptr, NW_REQUIRED, why }
#define NW_SYM_FOR(sym, ptr, check, why) \
	{ #sym, NULL, (void **)&ptr, check, why }
/* a filesystem's hook: its module may come and go (hook.c) */
#define NW_FS_HOOK(sym, mod, reason) \
	{ .name = #sym, .wrapper = nw_##sym, .orig = (void **)&nw_orig_##sym, \
	  .check = NW_FS, .why = reason, .owner = mod }
#define NW_HOOK_ALT(sym, primary, why) \
	{ #sym, nw_##sym, (void **)&nw_orig_##sym, NW_REQUIRED, why, primary }
/* an entry point: live from load to unload (see demand.c) */
#define NW_ENTRY(sym, wrap, orig_ptr, primary, reason) \
	{ .name = #sym, .wrapper = wrap, .orig = (void **)&orig_ptr, \
	  .check = NW_REQUIRED, .why = reason, .alt_of = primary, \
	  .entry = true }

/*
 * Deepest first: the entry points (io_submit, preadv2/pwritev2) go live
 * last and come out first, so no flagged request can enter while a hook
 * below it is missing.  Only the entry points stay live all the time; the
 * hooks below them go in while flagged requests are about (demand.c).
 */
struct nw_hook nw_hooks[] = {
	NW_SYM(rw_verify_area, nw_rw_verify_area, "preadv2/pwritev2 checks"),
	NW_SYM_FOR(blkdev_bio_end_io, nw_blkdev_bio_end_io, NW_OPTIONAL,
		   "block-device DIO bios (4.10+): no-wait allocation"),
	NW_SYM_FOR(blkdev_bio_end_io_simple, nw_blkdev_bio_end_io_simple,
		   NW_OPTIONAL,
		   "block-device DIO bios (4.10+): no-wait allocation"),
	{ .name = "ext4_map_blocks", .orig = (void **)&nw_ext4_map_blocks,
	  .check = NW_OPTIONAL, .owner = "ext4",
	  .why = "ext4 overwrite test by block map, as 4.14 (else fiemap)" },
	{ .name = "can_nocow_extent",
	  .orig = (void **)&nw_btrfs_can_nocow_extent,
	  .check = NW_OPTIONAL, .owner = "btrfs",
	  .why = "btrfs in-place test, as 4.14 (else fiemap)" },
	NW_SYM_FOR(blk_mq_has_free_tags, nw_blk_mq_has_free_tags, NW_OPTIONAL,
		   "free scheduler tags"),
	{ "get_request", NW_GET_REQUEST_WRAPPER,
	  (void **)&nw_orig_get_request, NW_OPTIONAL,
	  "legacy queues (4.10+): request without waiting" },
	NW_HOOK(blk_mq_sched_get_request, NW_OPTIONAL,
		"blk-mq (4.11+): tag without waiting"),
	NW_HOOK(generic_file_read_iter, NW_REQUIRED, "NOWAIT reads"),
	NW_FS_HOOK(ext4_file_write_iter, "ext4", "ext4 NOWAIT writes"),
	NW_FS_HOOK(xfs_file_write_iter, "xfs", "XFS NOWAIT writes"),
	NW_FS_HOOK(xfs_file_read_iter, "xfs", "XFS NOWAIT reads"),
	NW_FS_HOOK(btrfs_file_write_iter, "btrfs", "btrfs NOWAIT writes"),
	NW_HOOK(blkdev_write_iter, NW_REQUIRED, "block device NOWAIT writes"),
	NW_HOOK(aio_read, NW_REQUIRED, "io_submit: flags onto read requests"),
	NW_HOOK(aio_write, NW_REQUIRED, "io_submit: flags onto write requests"),
	/* before 4.9: one function runs every opcode */
	NW_HOOK_ALT(aio_run_iocb, "aio_read,aio_write",
		    "io_submit: flags onto requests"),
#if NW_HAVE_RWF_SYSCALLS
	NW_ENTRY(__do_readv_writev, nw_do_readv_writev,
		 nw_orig_do_readv_writev, NULL,
		 "preadv2/pwritev2: RWF_NOWAIT"),
	/* before 4.10: the per-call kiocb setup is its own function */
	NW_ENTRY(do_iter_readv_writev, nw_do_iter_readv_writev,
		 nw_orig_do_iter_readv_writev, "__do_readv_writev",
		 "preadv2/pwritev2: RWF_NOWAIT"),
#endif
	NW_ENTRY(do_io_submit, nw_do_io_submit, nw_orig_do_io_submit, NULL,
		 "io_submit: aio_rw_flags"),
};
const size_t nw_nr_hooks = ARRAY_SIZE(nw_hooks);

/* Resolve the whole table, then install it (a failure removes it all). */
static int __init nw_load_hooks(void)
{
	int err;

	mutex_lock(&nw_hooks_mutex);
	err = nw_hooks_resolve(nw_hooks, nw_nr_hooks);
	if (!err) {
		nw_fs_setup();
		nw_sync_setup();
		err = nw_hooks_install(nw_hooks, nw_nr_hooks, NW_HOOKS_ALL);
		if (err) {
			nw_hooks_remove(nw_hooks, nw_nr_hooks, NW_HOOKS_ALL);
			nw_hooks_release();
		}
	}
	mutex_unlock(&nw_hooks_mutex);
	if (err)
		nw_hooks_wait_idle();
	return err;
}

static int __init nw_init(void)
{
	int err;

	if (NW_NATIVE_NOWAIT) {
		pr_info("kernel %s has native RWF_NOWAIT (4.13+); nowait_aio is not needed, not loading\n",
			utsname()->release);
		return -EOPNOTSUPP;
	}
	if (!NW_KERNEL_SUPPORTED) {
		pr_err("kernel %s predates 4.4; nowait_aio supports 4.4 to 4.12, not loading\n",
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
	nw_blk_setup();
	nw_owners_start();
	nw_demand_init();
	if (!NW_UNLOAD_SAFE) {
		/* a preempted task could be left on freed wrapper code */
		__module_get(THIS_MODULE);
		nw_unload_pinned = true;
		pr_warn("preemptible kernel without TASKS_RCU: unloading cannot be made safe, so rmmod is refused until reboot\n");
	}
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
	mutex_lock(&nw_hooks_mutex);
	nw_hooks_remove(nw_hooks, nw_nr_hooks, NW_HOOKS_ENTRY);
	mutex_unlock(&nw_hooks_mutex);
	nw_demand_exit();
	nw_hooks_wait_idle();
	nw_demand_release();
	/* filesystem modules may come and go until here */
	nw_owners_exit();
	mutex_lock(&nw_hooks_mutex);
	nw_hooks_release();
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
