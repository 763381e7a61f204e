/* SPDX-License-Identifier: GPL-2.0 */
/*
 * nowait_aio - internal interfaces shared by the module's files.
 */
#ifndef NOWAIT_AIO_H
#define NOWAIT_AIO_H

#include <linux/aio_abi.h>
#include <linux/atomic.h>
#include <linux/fs.h>
#include <linux/mutex.h>
#include <linux/percpu.h>
#include <linux/spinlock.h>
#include <linux/types.h>
#include <linux/uio.h>
#include <linux/hash.h>
#include <linux/sched.h>

#include "compat.h"

/* --- checks that can be switched off one by one --- */
enum nw_check {
	NW_CHECK_LOCK,		/* inode lock only tried */
	NW_CHECK_PAGECACHE,	/* page-cache pages in a direct range */
	NW_CHECK_ALLOC,		/* block allocation, COW */
	NW_CHECK_CONGESTION,	/* no free request or tag */
	NW_NR_CHECKS,
};

/* --- counters under /sys/kernel/nowait_aio/ --- */
enum nw_counter {
	NW_CNT_ACCEPTED,	/* NOWAIT requests let in */
	NW_CNT_EAGAIN_LOCK,
	NW_CNT_EAGAIN_PAGECACHE,
	NW_CNT_EAGAIN_ALLOC,
	NW_CNT_EAGAIN_CONGESTION,
	NW_CNT_EAGAIN_INJECTED,
	NW_CNT_EAGAIN_WARMUP,	/* per-request hooks were out (demand.c) */
	NW_CNT_EOPNOTSUPP,	/* refused: unsupported file or flag */
	NW_CNT_EINVAL,		/* refused: invalid request */
	NW_NR_COUNTERS,
};

extern bool nw_enabled;
extern bool nw_check_on[NW_NR_CHECKS];
extern bool nw_check_avail[NW_NR_CHECKS];	/* its hooks resolved */
extern unsigned int nw_fault_inject;	/* EAGAIN on 1 NOWAIT request in N */
DECLARE_PER_CPU(unsigned long, nw_counters[NW_NR_COUNTERS]);

static inline void nw_count(enum nw_counter c)
{
	this_cpu_inc(nw_counters[c]);
}

unsigned long nw_counter_sum(enum nw_counter c);

/* --- the hook engine --- */
struct nw_hook {
	const char *name;	/* kernel symbol */
	void *wrapper;		/* NULL: resolve only, do not hook */
	void **orig;		/* receives the callable original */
	int check;		/* NW_REQUIRED, NW_OPTIONAL, or the check */
	const char *why;	/* what the hook is for, for dmesg/features */
	const char *alt_of;	/* stands in for this entry when it is absent */
	bool entry;		/* an entry point: live from load to unload */
	/*
	 * The kernel module that holds the symbol when the kernel builds
	 * it as one (a filesystem: "ext4", "xfs", "btrfs"), or NULL for
	 * vmlinux.  Such a hook is attached when that module comes and
	 * detached before it goes (hook.c); a missing one turns off only
	 * that filesystem.
	 */
	const char *owner;
	/* filled in by the engine */
	bool filtered;		/* in the shared ops' filter */
	unsigned long addr;
	bool live;
	const char *off_reason;
	struct ftrace_ops ops;
};

#define NW_REQUIRED	(-1)
#define NW_OPTIONAL	(-2)	/* a refinement: missing only turns it off */
#define NW_FS		(-3)	/* a filesystem's: missing turns off that fs */

/* which hooks nw_hooks_install()/nw_hooks_remove() act on */
enum nw_hook_set {
	NW_HOOKS_ENTRY,		/* the entry points */
	NW_HOOKS_DEMAND,	/* the hooks below them (demand.c) */
	NW_HOOKS_ALL,
};

/* installs, removals, attaching and detaching owners' hooks */
extern struct mutex nw_hooks_mutex;
int nw_hooks_resolve(struct nw_hook *hooks, size_t n);
bool nw_hook_usable(const char *name);
unsigned long nw_hook_addr(const char *name);
int nw_hooks_install(struct nw_hook *hooks, size_t n, enum nw_hook_set set);
void nw_hooks_remove(struct nw_hook *hooks, size_t n, enum nw_hook_set set);
void nw_hooks_release(void);
void nw_hooks_wait_idle(void);
int nw_owners_init(void);
void nw_owners_start(void);
void nw_owners_exit(void);
size_t nw_owners_show(char *buf, size_t len);
extern bool nw_unload_pinned;

/*
 * The hooks below the entry points, on demand (demand.c): an entry point
 * takes them with nw_demand_get() before it sends a flagged request down
 * and drops them with nw_demand_put() when the submission returns.
 */
extern unsigned int nw_hook_idle_ms;
#define NW_HOOK_IDLE_MS_MAX	3600000	/* an hour */
int nw_demand_get(void);
bool nw_demand_hot(void);
void nw_demand_put(void);
void nw_demand_init(void);
void nw_demand_exit(void);
void nw_demand_release(void);
int nw_demand_set_idle(unsigned int ms);
size_t nw_demand_show(char *buf, size_t len);
size_t nw_features_show(char *buf, size_t len);

/*
 * Every wrapper brackets its body with nw_enter()/nw_exit(), so unload can
 * wait until no task runs module code.  Two per-cpu ops, no shared line.
 */
DECLARE_PER_CPU(long, nw_active);
static inline void nw_enter(void)
{
	this_cpu_inc(nw_active);
}

static inline void nw_exit(void)
{
	this_cpu_dec(nw_active);
}

/* --- shared request rules --- */
/* memory on a NOWAIT request's path: no reclaim, no warning; none: EAGAIN */
#define NW_GFP_NOWAIT	(GFP_NOWAIT | __GFP_NOWARN)

bool nw_file_nowait_capable(struct file *file);
bool nw_range_has_page(struct address_space *mapping, loff_t start, loff_t end);
bool nw_inject_eagain(void);
void nw_apply_rw_flags(struct kiocb *iocb, unsigned int flags);
bool nw_sync_by_module(struct kiocb *req);
bool nw_can_defer_sync(struct kiocb *req);
bool nw_defer_sync(struct kiocb *req, bool datasync, bool nowait);
void nw_defer_sync_cancel(struct kiocb *req);
ssize_t nw_deferred_sync_finish(struct kiocb *req, ssize_t ret);
void nw_fs_setup(void);
bool nw_fs_write_hooked(struct inode *inode);
bool nw_btrfs_offered(void);
bool nw_fs_nowait_offered(struct inode *inode);
int nw_sync_init(void);
void nw_sync_setup(void);
void nw_sync_exit(void);

/* --- per-task marks (task.c) --- */
struct nw_mark {
	struct task_struct *task;
	struct nw_mark *next;
};

/* A set of marks, hashed by task: a task writes only its own bucket. */
#define NW_MARK_BITS 6
#define NW_MARK_BUCKETS (1 << NW_MARK_BITS)
struct nw_mark_bucket {
	spinlock_t lock;
	struct nw_mark *head;
} ____cacheline_aligned_in_smp;

struct nw_marks {
	struct nw_mark_bucket b[NW_MARK_BUCKETS];
};

#define NW_MARKS_INIT(name) {						\
	.b = { [0 ... NW_MARK_BUCKETS - 1] = {				\
		.lock = __SPIN_LOCK_UNLOCKED(name.b.lock) } } }

void nw_mark_push(struct nw_marks *m, struct nw_mark *mark);
/* Might the current task have a mark in @m?  One load: its bucket's head. */
static inline bool nw_mark_maybe(struct nw_marks *m)
{
	return READ_ONCE(m->b[hash_ptr(current, NW_MARK_BITS)].head);
}
void nw_mark_pop(struct nw_marks *m, struct nw_mark *mark);
struct nw_mark *nw_mark_find(struct nw_marks *m);

/* --- the block layer --- */
struct request_queue;
struct blk_mq_tags;
extern struct nw_marks nw_blk_marks;	/* inside a NOWAIT blkdev write */
bool nw_queue_is_stacked(struct request_queue *q);
bool nw_queue_has_room(struct request_queue *q);
bool nw_blkdev_single_bio(struct request_queue *q, struct iov_iter *from);
bool nw_perbio_nowait(struct request_queue *q);
void nw_blk_setup(void);
struct request *nw_get_request(struct request_queue *q, unsigned int op,
			       struct bio *bio, gfp_t gfp_mask);
struct request *nw_blk_mq_sched_get_request(struct request_queue *q,
					    struct bio *bio, unsigned int op,
					    void *data);
extern struct request *(*nw_orig_get_request)(struct request_queue *q,
					      unsigned int op, struct bio *bio,
					      gfp_t gfp);
extern struct request *(*nw_orig_blk_mq_sched_get_request)(
	struct request_queue *, struct bio *, unsigned int, void *);
extern void *nw_blkdev_bio_end_io;
extern void *nw_blkdev_bio_end_io_simple;
extern bool (*nw_blk_mq_has_free_tags)(struct blk_mq_tags *tags);

/* --- the parts' hook tables and setup --- */
extern struct nw_hook nw_hooks[];
extern const size_t nw_nr_hooks;
extern int (*nw_rw_verify_area)(int, struct file *, const loff_t *, size_t);
extern int (*nw_btrfs_can_nocow_extent)(struct inode *inode, u64 offset,
					u64 *len, u64 *orig_start,
					u64 *orig_block_len, u64 *ram_bytes);
struct nw_ext4_map_blocks;
extern int (*nw_ext4_map_blocks)(void *handle, struct inode *inode,
				 struct nw_ext4_map_blocks *map, int flags);

int nw_sysfs_init(void);
void nw_sysfs_exit(void);

/* wrappers (one per hooked function) */
long nw_do_io_submit(aio_context_t ctx_id, long nr,
		     struct iocb __user *__user *iocbpp, bool compat);
ssize_t nw_aio_read(struct kiocb *req, struct iocb *iocb, bool vectored,
		    bool compat);
ssize_t nw_aio_write(struct kiocb *req, struct iocb *iocb, bool vectored,
		     bool compat);
ssize_t nw_do_readv_writev(int type, struct file *file, struct iov_iter *iter,
			   loff_t *pos, int flags);
typedef ssize_t (*nw_iter_fn)(struct kiocb *, struct iov_iter *);
ssize_t nw_do_iter_readv_writev(struct file *file, struct iov_iter *iter,
				loff_t *pos, nw_iter_fn fn, int flags);
extern ssize_t (*nw_orig_do_iter_readv_writev)(struct file *,
					       struct iov_iter *, loff_t *,
					       nw_iter_fn, int);
ssize_t nw_generic_file_read_iter(struct kiocb *iocb, struct iov_iter *to);
ssize_t nw_ext4_file_write_iter(struct kiocb *iocb, struct iov_iter *from);
ssize_t nw_xfs_file_write_iter(struct kiocb *iocb, struct iov_iter *from);
ssize_t nw_btrfs_file_write_iter(struct kiocb *iocb, struct iov_iter *from);
ssize_t nw_blkdev_write_iter(struct kiocb *iocb, struct iov_iter *from);
ssize_t nw_xfs_file_read_iter(struct kiocb *iocb, struct iov_iter *to);

extern long (*nw_orig_do_io_submit)(aio_context_t, long,
				    struct iocb __user *__user *, bool);
extern ssize_t (*nw_orig_aio_read)(struct kiocb *, struct iocb *, bool, bool);
extern ssize_t (*nw_orig_aio_write)(struct kiocb *, struct iocb *, bool, bool);
ssize_t nw_aio_run_iocb(struct kiocb *req, unsigned int opcode,
			char __user *buf, size_t len, bool compat);
extern ssize_t (*nw_orig_aio_run_iocb)(struct kiocb *, unsigned int,
				       char __user *, size_t, bool);
extern ssize_t (*nw_orig_do_readv_writev)(int, struct file *, struct iov_iter *,
					  loff_t *, int);
extern ssize_t (*nw_orig_generic_file_read_iter)(struct kiocb *iocb,
					struct iov_iter *iter);
extern ssize_t (*nw_orig_ext4_file_write_iter)(struct kiocb *iocb,
					struct iov_iter *iter);
extern ssize_t (*nw_orig_xfs_file_write_iter)(struct kiocb *iocb,
					struct iov_iter *iter);
extern ssize_t (*nw_orig_btrfs_file_write_iter)(struct kiocb *iocb,
					struct iov_iter *iter);
extern ssize_t (*nw_orig_blkdev_write_iter)(struct kiocb *iocb,
					struct iov_iter *iter);
extern ssize_t (*nw_orig_xfs_file_read_iter)(struct kiocb *iocb,
					struct iov_iter *iter);

#endif /* NOWAIT_AIO_H */
