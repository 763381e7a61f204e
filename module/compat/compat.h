/* SPDX-License-Identifier: GPL-2.0 */
/*
 * compat.h - every kernel-version difference nowait_aio cares about, in one
 * place.  The logic files include this and never test LINUX_VERSION_CODE.
 * Where a feature can be probed by a macro it defines, it is probed that
 * way (distro kernels backport features); otherwise by version.
 *
 * Version tests compare with x.y.0 boundaries only, so a SUBLEVEL above 255
 * (4.9.337: kbuild clamps it to 255 in LINUX_VERSION_CODE, older trees let
 * it carry into the minor number) cannot move a comparison across a
 * boundary the module cares about.
 */
#ifndef NOWAIT_AIO_COMPAT_H
#define NOWAIT_AIO_COMPAT_H

#include <linux/buffer_head.h>
#include <linux/version.h>
#include <linux/fs.h>
#include <linux/ftrace.h>
#include <linux/kallsyms.h>
#include <linux/uaccess.h>
#include <linux/rcupdate.h>

/*
 * Native no-wait AIO (4.13+) defines IOCB_NOWAIT; such a kernel needs no
 * backport and the module refuses to load there.
 */
#ifdef IOCB_NOWAIT
#define NW_NATIVE_NOWAIT 1
#define NW_IOCB_NOWAIT IOCB_NOWAIT
#else
#define NW_NATIVE_NOWAIT 0
/* upstream's bit; unused by these kernels' ki_flags (IOCB_WRITE is 1 << 6) */
#define NW_IOCB_NOWAIT (1 << 7)
#endif

/*
 * preadv2/pwritev2 and their RWF_* flags arrived in 4.6; before that the
 * kernel's read/write helpers take no flags argument at all, so the
 * module's preadv2 hooks must not be used there.
 */
#ifdef RWF_HIPRI
#define NW_HAVE_RWF_SYSCALLS 1
#else
#define NW_HAVE_RWF_SYSCALLS 0
#endif

/*
 * 4.4 is the oldest kernel the module knows (aio_run_iocb()'s signature,
 * the iov_iter and kiocb flag plumbing).
 */
#define NW_KERNEL_SUPPORTED (LINUX_VERSION_CODE >= KERNEL_VERSION(4, 4, 0))

/* iocb->aio_rw_flags was aio_reserved1 before 4.13 */
#if NW_NATIVE_NOWAIT
#define NW_IOCB_RW_FLAGS(cb) ((cb)->aio_rw_flags)
#else
#define NW_IOCB_RW_FLAGS(cb) ((cb)->aio_reserved1)
#endif

/*
 * A request whose RWF_DSYNC/RWF_SYNC the module carries itself (sync.c);
 * the next ki_flags bit no kernel in range uses.
 */
#define NW_IOCB_DSYNC_DEFERRED (1 << 8)

#ifndef RWF_HIPRI
#define RWF_HIPRI 0x00000001
#endif
#ifndef RWF_DSYNC
#define RWF_DSYNC 0x00000002
#endif
#ifndef RWF_SYNC
#define RWF_SYNC 0x00000004
#endif
#ifndef RWF_NOWAIT
#define RWF_NOWAIT 0x00000008
#endif
#define NW_RWF_SUPPORTED (RWF_HIPRI | RWF_DSYNC | RWF_SYNC | RWF_NOWAIT)

/* Polled I/O (IOCB_HIPRI) arrived in 4.6; before, RWF_HIPRI is a no-op hint. */
#ifdef IOCB_HIPRI
#define NW_IOCB_HIPRI IOCB_HIPRI
#else
#define NW_IOCB_HIPRI 0
#endif

/*
 * Per-request O_DSYNC/O_SYNC (IOCB_DSYNC, IOCB_SYNC) arrived in 4.7; before,
 * only the file's flags make a write synchronous, and the module carries
 * RWF_DSYNC/RWF_SYNC itself for every write (sync.c).
 */
#ifdef IOCB_DSYNC
#define NW_HAVE_IOCB_DSYNC 1
#define NW_IOCB_DSYNC IOCB_DSYNC
#define NW_IOCB_SYNC IOCB_SYNC
#else
#define NW_HAVE_IOCB_DSYNC 0
#define NW_IOCB_DSYNC 0
#define NW_IOCB_SYNC 0
#endif

/*
 * Before 4.10 a raw block device's direct I/O goes through fs/direct-io.c
 * too (blkdev_direct_IO() -> __blockdev_direct_IO()), whose async
 * completion runs generic_write_sync() in interrupt context for a
 * per-request IOCB_DSYNC (fixed in 4.14, d9c10e5b8863).
 */
#define NW_BLKDEV_DIO_GENERIC \
	(LINUX_VERSION_CODE < KERNEL_VERSION(4, 10, 0))

/*
 * Is the inode lock free right now?  Taken and dropped at once.  It is
 * i_rwsem from 4.7; before that the i_mutex, which a shared taker (XFS's
 * direct I/O, ext4's direct reads) would find held exactly when an
 * exclusive one would.
 */
#if LINUX_VERSION_CODE >= KERNEL_VERSION(4, 7, 0)
static inline bool nw_inode_lock_free_excl(struct inode *inode)
{
	if (!down_write_trylock(&inode->i_rwsem))
		return false;
	up_write(&inode->i_rwsem);
	return true;
}

static inline bool nw_inode_lock_free_shared(struct inode *inode)
{
	if (!down_read_trylock(&inode->i_rwsem))
		return false;
	up_read(&inode->i_rwsem);
	return true;
}
#else
static inline bool nw_inode_lock_free_excl(struct inode *inode)
{
	if (!inode_trylock(inode))
		return false;
	inode_unlock(inode);
	return true;
}

static inline bool nw_inode_lock_free_shared(struct inode *inode)
{
	return nw_inode_lock_free_excl(inode);
}
#endif

/*
 * btrfs's fiemap marks an extent FIEMAP_EXTENT_SHARED by walking the
 * committed tree before 4.9 (btrfs_check_shared() without a transaction,
 * as in 4.4.220; 4.9.337 joins the running one).  A reflink made since the
 * last commit is invisible there, so the module cannot tell a write that
 * must COW from one in place, and does not offer NOWAIT on btrfs.
 */
#define NW_BTRFS_FIEMAP_SEES_SHARED \
	(LINUX_VERSION_CODE >= KERNEL_VERSION(4, 9, 0))

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

/* The original function, entered past its 5-byte fentry call. */
#define NW_FENTRY_SIZE MCOUNT_INSN_SIZE

static inline unsigned long nw_lookup_name(const char *name)
{
	return kallsyms_lookup_name(name);
}

/*
 * Before set_fs() was removed (5.10), the address limit lets copy_from_user
 * read a kernel copy of an iocb.  Used only around the one substituted iocb.
 */
typedef mm_segment_t nw_addr_limit_t;
static inline nw_addr_limit_t nw_kernel_ds_enter(void)
{
	nw_addr_limit_t old = get_fs();

	set_fs(KERNEL_DS);
	return old;
}

static inline void nw_addr_limit_restore(nw_addr_limit_t old)
{
	set_fs(old);
}

/*
 * After the ftrace callbacks are gone, wait until no task can still be
 * between a callback and the first instruction of a wrapper.
 */
/*
 * Unload waits for tasks in the wrappers with nw_sync_trampolines().  On a
 * preemptible kernel a task can be preempted on a wrapper's first or last
 * instructions, outside nw_enter()/nw_exit(); only TASKS_RCU waits for
 * such a task (4.4's ftrace selects none).  Without it, unload is refused.
 */
#define NW_UNLOAD_SAFE \
	(!IS_ENABLED(CONFIG_PREEMPT) || IS_ENABLED(CONFIG_TASKS_RCU))

/* Is a module of this name loaded (not necessarily live yet)? */
#include <linux/module.h>
static inline bool nw_module_loaded(const char *name)
{
	bool found;

	mutex_lock(&module_mutex);
	found = find_module(name) != NULL;
	mutex_unlock(&module_mutex);
	return found;
}

/*
 * Is a module of this name loaded but not finished loading (live, and its
 * init text freed)?  Freeing comes after do_init_module() has made the
 * core text read-only (module_enable_ro(mod, true), 4.9+), under
 * module_mutex.  Before 5.1 (9f255b632bf1 "module: Fix livepatch/ftrace
 * module text permissions race") ftrace can patch a module's text while
 * that happens, fail, and WARN in ftrace_bug() (seen on 4.12 when xfs.ko
 * loaded during a hook install): so a module's sites go into a filter only
 * once this is false.  4.4 names the init text module_init.
 */
#if LINUX_VERSION_CODE >= KERNEL_VERSION(4, 5, 0)
#define NW_MODULE_INIT_TEXT(mod) ((mod)->init_layout.base)
#else
#define NW_MODULE_INIT_TEXT(mod) ((mod)->module_init)
#endif

static inline bool nw_module_unsettled(const char *name)
{
	struct module *mod;
	bool unsettled;

	mutex_lock(&module_mutex);
	mod = find_module(name);
	unsettled = mod && (mod->state != MODULE_STATE_LIVE ||
			    NW_MODULE_INIT_TEXT(mod));
	mutex_unlock(&module_mutex);
	return unsettled;
}

/* Is @addr in vmlinux, or in a module that is not on its way out? */
static inline bool nw_addr_in_live_code(unsigned long addr)
{
	struct module *mod;
	bool live;

	preempt_disable();
	mod = __module_address(addr);
	live = !mod || mod->state != MODULE_STATE_GOING;
	preempt_enable();
	return live;
}

static inline void nw_sync_trampolines(void)
{
#ifdef CONFIG_TASKS_RCU
	synchronize_rcu_tasks();
#else
	synchronize_sched();
#endif
}

/*
 * Index of the first page cached at or after @start, through the exported
 * pagevec_lookup() (find_get_pages() is not exported before 4.15).
 */
#include <linux/pagevec.h>
static inline bool nw_first_cached_index(struct address_space *mapping,
					 pgoff_t start, pgoff_t *index)
{
	struct pagevec pvec;
	bool found;

#if LINUX_VERSION_CODE >= KERNEL_VERSION(4, 15, 0)
	pagevec_init(&pvec);
#else
	pagevec_init(&pvec, 0);
#endif
#if LINUX_VERSION_CODE >= KERNEL_VERSION(4, 14, 0)
	found = pagevec_lookup_range(&pvec, mapping, &start, (pgoff_t)-1) > 0;
#else
	found = pagevec_lookup(&pvec, mapping, start, 1) > 0;
#endif
	if (found)
		*index = pvec.pages[0]->index;
	pagevec_release(&pvec);
	return found;
}

/*
 * blk-mq's request allocation data is private to block/blk-mq.h; its first
 * two members have been (queue, flags) from 4.10 to 4.14.
 */
#include <linux/blk-mq.h>
struct nw_blk_mq_alloc_data_head {
	struct request_queue *q;
	unsigned int flags;
};

static inline void nw_blk_mq_alloc_data_set_nowait(void *data)
{
#if LINUX_VERSION_CODE >= KERNEL_VERSION(4, 6, 0)
	((struct nw_blk_mq_alloc_data_head *)data)->flags |= BLK_MQ_REQ_NOWAIT;
#else
	/* unreachable: blk_mq_sched_get_request() (hooked) is 4.11+ */
	WARN_ON_ONCE(1);
#endif
}

/*
 * get_request(q, op, bio, gfp) since 4.10 (ef295ecf090d merged op and
 * op_flags); before, (q, op, op_flags, bio, gfp), which nw_get_request()
 * does not match.  No hook there then, and nothing needs one: per-bio
 * no-wait allocation wants the 4.10+ block-device DIO completion too.
 */
#if LINUX_VERSION_CODE >= KERNEL_VERSION(4, 10, 0)
#define NW_GET_REQUEST_WRAPPER nw_get_request
#else
#define NW_GET_REQUEST_WRAPPER NULL
#endif

/* blk-mq scheduler tags (4.11+), where requests come from with an elevator */
static inline struct blk_mq_tags *nw_hctx_sched_tags(struct request_queue *q,
						     struct blk_mq_hw_ctx *hctx)
{
#if LINUX_VERSION_CODE >= KERNEL_VERSION(4, 11, 0)
	return q->elevator ? hctx->sched_tags : NULL;
#else
	return NULL;
#endif
}

/* A data write (not a discard, flush or write-same)?  bio_op() is 4.8+. */
static inline bool nw_bio_is_data_write(struct bio *bio)
{
#if LINUX_VERSION_CODE >= KERNEL_VERSION(4, 8, 0)
	return bio_op(bio) == REQ_OP_WRITE;
#else
	return (bio->bi_rw & (REQ_WRITE | REQ_DISCARD | REQ_WRITE_SAME)) ==
	       REQ_WRITE;
#endif
}

/* A bio's error: bi_error until 4.12, bi_status from 4.13. */
static inline void nw_bio_end_eagain(struct bio *bio)
{
#if LINUX_VERSION_CODE >= KERNEL_VERSION(4, 13, 0)
	bio->bi_status = BLK_STS_AGAIN;
#else
	bio->bi_error = -EAGAIN;
#endif
	bio_endio(bio);
}

/*
 * ext4's block-map request (fs/ext4/ext4.h, private), the same from 3.x to
 * 6.x: what ext4_map_blocks() takes and fills in.
 */
struct nw_ext4_map_blocks {
	u64 m_pblk;
	u32 m_lblk;
	unsigned int m_len;
	unsigned int m_flags;
};

#define NW_EXT4_MAP_MAPPED	(1 << BH_Mapped)

#endif /* NOWAIT_AIO_COMPAT_H */
