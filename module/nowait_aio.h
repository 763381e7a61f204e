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
#include "rules.h"

#include "hook.h"

/* RWF_NOWAIT on: the switch, and no required hook found wanting */
static inline bool nw_on(void)
{
	return READ_ONCE(nw_enabled) && !READ_ONCE(nw_distrusted);
}

/*
 * The hooks below the entry points, on demand (demand.c): an entry point
 * takes them with nw_demand_get() before it sends a flagged request down
 * and drops them with nw_demand_put() when the submission returns.
 */
extern unsigned int nw_hook_idle_ms;
#define NW_HOOK_IDLE_MS_MAX	3600000	/* an hour */
int nw_demand_get(void);
int nw_demand_get_wait(void);
/*
 * Are the hooks in right now?  A hint for choosing a path, one load on
 * every io_submit (a request that sees true may still be refused by
 * nw_demand_get() a moment later).
 */
extern bool nw_demand_on;
static inline bool nw_demand_hot(void)
{
	return READ_ONCE(nw_demand_on);
}
void nw_demand_hold(void);
void nw_demand_put(void);
void nw_demand_init(void);
void nw_demand_exit(void);
void nw_demand_release(void);
int nw_demand_set_idle(unsigned int ms);
size_t nw_demand_show(char *buf, size_t len);

/* --- per-request sync (sync.c) --- */
bool nw_sync_by_module(struct kiocb *req);
bool nw_can_defer_sync(struct kiocb *req);
bool nw_defer_sync(struct kiocb *req, bool datasync, bool nowait);
void nw_defer_sync_cancel(struct kiocb *req);
ssize_t nw_deferred_sync_finish(struct kiocb *req, ssize_t ret);
int nw_sync_init(void);
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

/*
 * --- a request's IOCB_* flags (rules.c) ---
 * In its ki_flags (4.1+), or, on a kernel whose kiocb has none
 * (compat/kiocb.h), in a record its submitting task keeps from
 * nw_req_begin() to nw_req_end(), around the kernel's run of the request.
 */
#if NW_KIOCB_FLAGS
struct nw_req_rec { };

static inline void nw_req_begin(struct nw_req_rec *rec, struct kiocb *req)
{
}

static inline void nw_req_end(struct nw_req_rec *rec)
{
}

static inline int nw_req_flags(struct kiocb *req)
{
	return req->ki_flags;
}

static inline void nw_req_flags_set(struct kiocb *req, int flags)
{
	req->ki_flags |= flags;
}

static inline void nw_req_flags_clear(struct kiocb *req, int flags)
{
	req->ki_flags &= ~flags;
}
#else
struct nw_req_rec {
	struct nw_mark mark;	/* first: found by the task's mark */
	struct kiocb *req;
	int flags;
};

void nw_req_begin(struct nw_req_rec *rec, struct kiocb *req);
void nw_req_end(struct nw_req_rec *rec);
int nw_req_flags(struct kiocb *req);
void nw_req_flags_set(struct kiocb *req, int flags);
void nw_req_flags_clear(struct kiocb *req, int flags);
#endif

/* --- the block layer's rules (queue.c) --- */
struct request_queue;
struct blk_mq_tags;
extern struct nw_marks nw_blk_marks;	/* inside a NOWAIT blkdev write */
bool nw_queue_is_stacked(struct request_queue *q);
bool nw_queue_has_room(struct request_queue *q);
bool nw_blkdev_single_bio(struct request_queue *q, struct iov_iter *from,
			  loff_t pos);
bool nw_perbio_nowait(struct request_queue *q);
void nw_queue_setup(bool perbio_mq, bool perbio_legacy,
		    bool (*has_free_tags)(struct blk_mq_tags *tags));

int nw_sysfs_init(void);
void nw_sysfs_exit(void);

typedef ssize_t (*nw_iter_fn)(struct kiocb *, struct iov_iter *);

#endif /* NOWAIT_AIO_H */
