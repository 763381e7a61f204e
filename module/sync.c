// SPDX-License-Identifier: GPL-2.0
/*
 * RWF_DSYNC/RWF_SYNC on an asynchronous direct write.
 *
 * Before 4.14, do_blockdev_direct_IO() defers the completion of an async
 * DIO to a workqueue only when the *file* is O_DSYNC; a per-request
 * IOCB_DSYNC would run generic_write_sync() from the bio's end_io, in IRQ
 * context (upstream fixed this in 4.14, d9c10e5b8863 "direct-io: Fix sleep
 * in atomic due to sync AIO").  So for such requests the module keeps
 * IOCB_DSYNC off the kiocb, takes over its ki_complete, and syncs the
 * written range from a workqueue before it completes the request: the
 * same guarantee, in process context.
 *
 * A kiocb without ki_complete (before 4.1: RHEL/CentOS 7's 3.10) is
 * completed by aio_complete() by name, for every request, also one its
 * write finished at once, and one aio_run_iocb() retried after a short
 * write: the module hooks aio_complete() and takes the completion there,
 * for the whole request.  That hook is one of the per-request hooks
 * (demand.c), held in for as long as a taken request is pending.
 */
#include <linux/fs.h>
#include <linux/hashtable.h>
#include <linux/slab.h>
#include <linux/spinlock.h>
#include <linux/workqueue.h>

#include "rules.h"
#include "hook.h"
#include "demand.h"
#include "sync.h"

struct nw_sync_req {
	struct work_struct work;
	struct hlist_node node;
	struct kiocb *req;
	void (*complete)(struct kiocb *req, long res, long res2);
	long res, res2;
	bool datasync;
	loff_t pos;	/* where the caller asked (3.10: ki_pos stays there) */
};

static DEFINE_HASHTABLE(nw_sync_hash, 6);
static DEFINE_SPINLOCK(nw_sync_lock);
/* requests in the hash: one load tells a completion there are none */
static unsigned int nw_sync_count;
static struct workqueue_struct *nw_sync_wq;

#if NW_COMPLETE_BY_HOOK
static void (*nw_orig_aio_complete)(struct kiocb *, long, long);
#endif

/*
 * The bytes to sync once the write wrote @res of them, from its completion
 * (@async) or within ->write_iter: where ki_pos stands then
 * (NW_ASYNC_COMPLETION_MOVES_POS).  Without ki_flags (3.10) the bytes
 * from where the caller asked (s->pos), but an O_APPEND write's place is
 * known only to the filesystem: all of the file.
 */
static void nw_sync_range(struct kiocb *req, struct nw_sync_req *s, long res,
			  bool async, loff_t *start, loff_t *end)
{
	bool append = req->ki_filp->f_flags & O_APPEND;

	if (!NW_KIOCB_FLAGS) {
		*start = append ? 0 : s->pos;
		*end = append ? LLONG_MAX : s->pos + res - 1;
	} else if (async && !NW_ASYNC_COMPLETION_MOVES_POS) {
		*start = req->ki_pos;
		*end = req->ki_pos + res - 1;
	} else {
		*start = req->ki_pos - res;
		*end = req->ki_pos - 1;
	}
}

static int nw_sync_written(struct kiocb *req, struct nw_sync_req *s, long res,
			   bool async)
{
	loff_t start, end;

	nw_sync_range(req, s, res, async, &start, &end);
	return vfs_fsync_range(req->ki_filp, start, end, s->datasync);
}

/**
 * nw_sync_by_module() - must the module carry this write's RWF_DSYNC or
 * RWF_SYNC itself?
 * @req: a write with RWF_DSYNC or RWF_SYNC
 *
 * Before 4.7 the kernel has no per-request sync flag at all: always.  From
 * 4.7, for an asynchronous direct write to a regular file, or to a raw
 * block device before 4.10: its completion may run in interrupt context
 * (fs/direct-io.c: ext4, btrfs, XFS and raw block devices before 4.10),
 * where generic_write_sync() would sleep (on 4.9: "kernel BUG at
 * kernel/irq_work.c"), so the module syncs it from the workqueue; if it
 * completes at once instead, the write_iter hook syncs it in the caller's
 * context (nw_deferred_sync_finish()).
 *
 * Return: true when the module must sync it (nw_defer_sync()), false when
 * the kernel's IOCB_DSYNC does.
 */
bool nw_sync_by_module(struct kiocb *req)
{
	umode_t mode = file_inode(req->ki_filp)->i_mode;

	if (!NW_HAVE_IOCB_DSYNC)
		return true;
	if (!(nw_req_flags(req) & IOCB_DIRECT) || is_sync_kiocb(req))
		return false;
	return S_ISREG(mode) || (S_ISBLK(mode) && NW_BLKDEV_DIO_GENERIC);
}

/**
 * nw_can_defer_sync() - can the module carry @req's sync itself?
 * @req: a write nw_sync_by_module() said the module must sync
 *
 * Only where a part hooks the file's write_iter: a request that completes
 * within it is synced there (nw_deferred_sync_finish()).
 *
 * Return: true when a filesystem part hooks the writes to @req's file.
 */
bool nw_can_defer_sync(struct kiocb *req)
{
	return nw_fs_write_hooked(file_inode(req->ki_filp));
}

#if !NW_COMPLETE_BY_HOOK
static void nw_sync_complete(struct kiocb *req, long res, long res2);
#endif

/*
 * Take over @req's completion: its ki_complete, or (without one) the
 * aio_complete() hook, held in until nw_sync_let_go().
 */
static void nw_sync_hold(struct kiocb *req, struct nw_sync_req *s)
{
#if NW_COMPLETE_BY_HOOK
	s->complete = nw_orig_aio_complete;
	nw_demand_hold();
#else
	s->complete = req->ki_complete;
	req->ki_complete = nw_sync_complete;
#endif
	nw_enter();
}

static void nw_sync_give_back(struct kiocb *req, struct nw_sync_req *s)
{
#if !NW_COMPLETE_BY_HOOK
	req->ki_complete = s->complete;
#endif
}

/* The request no longer points into the module. */
static void nw_sync_let_go(void)
{
#if NW_COMPLETE_BY_HOOK
	nw_demand_put();
#endif
	nw_exit();
}

static void nw_sync_work(struct work_struct *work)
{
	struct nw_sync_req *s = container_of(work, struct nw_sync_req, work);
	struct kiocb *req = s->req;
	long res = s->res;

	nw_req_flags_clear(req, NW_IOCB_DSYNC_DEFERRED);
	if (res > 0) {
		int err = nw_sync_written(req, s, res, true);

		if (err)
			res = err;
	}
	s->complete(req, res, s->res2);
	kfree(s);
	nw_sync_let_go();
}

static struct nw_sync_req *nw_sync_take(struct kiocb *req);

/* Queue @req's taken-over completion; false if it was not taken. */
static bool nw_sync_queue(struct kiocb *req, long res, long res2)
{
	struct nw_sync_req *s = nw_sync_take(req);

	if (!s)
		return false;
	s->res = res;
	s->res2 = res2;
	queue_work(nw_sync_wq, &s->work);
	return true;
}

#if !NW_COMPLETE_BY_HOOK
static void nw_sync_complete(struct kiocb *req, long res, long res2)
{
	WARN_ON_ONCE(!nw_sync_queue(req, res, res2));
}
#endif

/**
 * nw_defer_sync() - take over @req's completion, to sync the written range
 * before it.
 * @req: an asynchronous write the module syncs (nw_sync_by_module(),
 *	nw_can_defer_sync())
 * @datasync: true for RWF_DSYNC (the data only), false for RWF_SYNC
 * @nowait: @req is a NOWAIT request: its memory is taken without reclaim
 *
 * Called before the kernel runs the request.  From then on, its completion
 * (its ki_complete, or the aio_complete() hook where it has none) queues it
 * on the module's workqueue, which syncs the bytes written and then
 * completes it.  Two other ends give it back: nw_deferred_sync_finish()
 * when its write_iter finishes it at once, nw_defer_sync_cancel() when it
 * fails before it is queued.  Until one of the three, the request counts as
 * a task in module code (nw_enter()) and, with the aio_complete() hook,
 * holds the demand set.  @req gets NW_IOCB_DSYNC_DEFERRED.  May sleep
 * unless @nowait.
 *
 * Return: true when taken over; false (nothing changed) when there is no
 * memory, for which a NOWAIT request gets EAGAIN instead of ENOMEM.
 */
bool nw_defer_sync(struct kiocb *req, bool datasync, bool nowait)
{
	struct nw_sync_req *s = kzalloc(sizeof(*s),
					nowait ? NW_GFP_NOWAIT : GFP_KERNEL);
	unsigned long irqflags;

	if (!s)
		return false;
	INIT_WORK(&s->work, nw_sync_work);
	s->req = req;
	s->datasync = datasync;
	s->pos = req->ki_pos;
	nw_sync_hold(req, s);
	spin_lock_irqsave(&nw_sync_lock, irqflags);
	hash_add(nw_sync_hash, &s->node, (unsigned long)req);
	WRITE_ONCE(nw_sync_count, nw_sync_count + 1);
	spin_unlock_irqrestore(&nw_sync_lock, irqflags);
	nw_req_flags_set(req, NW_IOCB_DSYNC_DEFERRED);
	return true;
}

static struct nw_sync_req *nw_sync_take(struct kiocb *req)
{
	struct nw_sync_req *s, *found = NULL;
	unsigned long irqflags;

	spin_lock_irqsave(&nw_sync_lock, irqflags);
	hash_for_each_possible(nw_sync_hash, s, node, (unsigned long)req) {
		if (s->req == req) {
			hash_del(&s->node);
			WRITE_ONCE(nw_sync_count, nw_sync_count - 1);
			found = s;
			break;
		}
	}
	spin_unlock_irqrestore(&nw_sync_lock, irqflags);
	return found;
}

/**
 * nw_deferred_sync_finish() - sync a taken-over request that ->write_iter
 * finished itself.
 * @req: a request nw_defer_sync() took over
 * @ret: what ->write_iter returned: bytes or an error, not -EIOCBQUEUED
 *
 * aio_ret() will complete such a request directly, bypassing ki_complete,
 * so the written range is synced here, in the caller's context, and the
 * request is given back.  Where completions go through the aio_complete()
 * hook, that hook syncs it as any other, and nothing is done here.  May
 * sleep.
 *
 * Return: @ret, or the sync's error when bytes were written and their sync
 * failed.
 */
ssize_t nw_deferred_sync_finish(struct kiocb *req, ssize_t ret)
{
	struct nw_sync_req *s;

	if (NW_COMPLETE_BY_HOOK)
		return ret;	/* aio_complete() is called all the same */
	s = nw_sync_take(req);
	nw_req_flags_clear(req, NW_IOCB_DSYNC_DEFERRED);
	if (!s)
		return ret;
	nw_sync_give_back(req, s);
	if (ret > 0) {
		int err = nw_sync_written(req, s, ret, false);

		if (err)
			ret = err;
	}
	kfree(s);
	nw_sync_let_go();
	return ret;
}

/**
 * nw_defer_sync_cancel() - give back a taken-over request that failed before
 * it was queued.
 * @req: a request nw_defer_sync() took over, or one whose write_iter has
 *	already finished it (nw_deferred_sync_finish())
 *
 * Such a request never completes: its completion is restored, nothing is
 * synced, and the holds nw_defer_sync() took are dropped.  A request no
 * longer taken over only loses its NW_IOCB_DSYNC_DEFERRED.
 */
void nw_defer_sync_cancel(struct kiocb *req)
{
	struct nw_sync_req *s = nw_sync_take(req);

	nw_req_flags_clear(req, NW_IOCB_DSYNC_DEFERRED);
	if (s) {
		nw_sync_give_back(req, s);
		kfree(s);
		nw_sync_let_go();
	}
}

#if NW_COMPLETE_BY_HOOK
/* Every aio completion: one taken over is synced first, from the queue. */
static void nw_aio_complete(struct kiocb *req, long res, long res2)
{
	nw_enter();
	if (likely(!READ_ONCE(nw_sync_count)) ||
	    !nw_sync_queue(req, res, res2))
		nw_orig_aio_complete(req, res, res2);
	nw_exit();
}

static struct nw_hook nw_sync_hooks[] = {
	NW_HOOK("aio_complete", nw_aio_complete, nw_orig_aio_complete,
		NW_REQUIRED, "RWF_DSYNC/RWF_SYNC: the sync before completion",
		NW_ARGS(NW_ARG_KPTR)),
};

const struct nw_part nw_sync_part = {
	NW_PART_HOOKS(nw_sync_hooks),
};
#endif

/**
 * nw_sync_init() - at load: the workqueue the deferred syncs run on.
 *
 * It is WQ_MEM_RECLAIM: with a rescuer of its own, a sync can make
 * progress under memory pressure.
 *
 * Return: 0, or -ENOMEM (also for fault_step).
 */
int nw_sync_init(void)
{
	if (nw_fault_at("alloc_workqueue"))
		return -ENOMEM;
	nw_sync_wq = alloc_workqueue("nowait_aio_sync", WQ_MEM_RECLAIM, 0);
	return nw_sync_wq ? 0 : -ENOMEM;
}

/**
 * nw_sync_exit() - unload or a failed load: the workqueue goes.
 *
 * Called once no request is taken over any more (each one counts as a task
 * in module code until it is completed); destroy_workqueue() waits for a
 * work item that is still returning.
 */
void nw_sync_exit(void)
{
	destroy_workqueue(nw_sync_wq);
}
