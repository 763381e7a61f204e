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
 * written range from a workqueue before it completes the request: the same
 * guarantee, in process context.
 */
#include <linux/fs.h>
#include <linux/hashtable.h>
#include <linux/slab.h>
#include <linux/spinlock.h>
#include <linux/workqueue.h>

#include "nowait_aio.h"

struct nw_sync_req {
	struct work_struct work;
	struct hlist_node node;
	struct kiocb *req;
	void (*complete)(struct kiocb *req, long res, long res2);
	long res, res2;
	bool datasync;
};

static DEFINE_HASHTABLE(nw_sync_hash, 6);
static DEFINE_SPINLOCK(nw_sync_lock);
static struct workqueue_struct *nw_sync_wq;

/*
 * Must the module carry this write's RWF_DSYNC/RWF_SYNC itself?  Before
 * 4.7 the kernel has no per-request sync flag at all: always.  From 4.7,
 * for an asynchronous direct write to a regular file, or to a raw block
 * device before 4.10: its completion may run in interrupt context
 * (fs/direct-io.c: ext4, btrfs, XFS and raw block devices before 4.10),
 * where generic_write_sync() would sleep (a panic on 4.9: "kernel BUG at
 * kernel/irq_work.c", found by block.raw.dsync), so the module syncs it
 * from the workqueue; if it completes at once instead, the write_iter hook
 * syncs it in the caller's context (nw_deferred_sync_finish()).
 */
bool nw_sync_by_module(struct kiocb *req)
{
	umode_t mode = file_inode(req->ki_filp)->i_mode;

	if (!NW_HAVE_IOCB_DSYNC)
		return true;
	if (!(req->ki_flags & IOCB_DIRECT) || is_sync_kiocb(req))
		return false;
	return S_ISREG(mode) || (S_ISBLK(mode) && NW_BLKDEV_DIO_GENERIC);
}

/* Can it?  Only where it hooks the file's write_iter. */
bool nw_can_defer_sync(struct kiocb *req)
{
	return nw_fs_write_hooked(file_inode(req->ki_filp));
}

static void nw_sync_work(struct work_struct *work)
{
	struct nw_sync_req *s = container_of(work, struct nw_sync_req, work);
	struct kiocb *req = s->req;
	long res = s->res;

	req->ki_flags &= ~NW_IOCB_DSYNC_DEFERRED;
	if (res > 0) {
		int err = vfs_fsync_range(req->ki_filp, req->ki_pos - res,
					  req->ki_pos - 1, s->datasync);
		if (err)
			res = err;
	}
	s->complete(req, res, s->res2);
	kfree(s);
	nw_exit();	/* the request no longer points into the module */
}

static struct nw_sync_req *nw_sync_take(struct kiocb *req);

static void nw_sync_complete(struct kiocb *req, long res, long res2)
{
	struct nw_sync_req *s;

	s = nw_sync_take(req);
	if (WARN_ON_ONCE(!s))
		return;
	s->res = res;
	s->res2 = res2;
	queue_work(nw_sync_wq, &s->work);
}

/*
 * Take over @req's completion; false (nothing changed) when there is no
 * memory: without reclaim for a NOWAIT request (@nowait), which then gets
 * EAGAIN instead of ENOMEM.
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
	s->complete = req->ki_complete;
	s->datasync = datasync;
	nw_enter();
	spin_lock_irqsave(&nw_sync_lock, irqflags);
	hash_add(nw_sync_hash, &s->node, (unsigned long)req);
	spin_unlock_irqrestore(&nw_sync_lock, irqflags);
	req->ki_complete = nw_sync_complete;
	req->ki_flags |= NW_IOCB_DSYNC_DEFERRED;
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
			found = s;
			break;
		}
	}
	spin_unlock_irqrestore(&nw_sync_lock, irqflags);
	return found;
}

/*
 * ->write_iter finished the request itself (bytes or an error, not
 * -EIOCBQUEUED): aio_ret() will complete it directly, bypassing
 * ki_complete, so sync here, in the caller's context, and let go of it.
 */
ssize_t nw_deferred_sync_finish(struct kiocb *req, ssize_t ret)
{
	struct nw_sync_req *s = nw_sync_take(req);

	req->ki_flags &= ~NW_IOCB_DSYNC_DEFERRED;
	if (!s)
		return ret;
	req->ki_complete = s->complete;
	if (ret > 0) {
		int err = vfs_fsync_range(req->ki_filp, req->ki_pos - ret,
					  req->ki_pos - 1, s->datasync);
		if (err)
			ret = err;
	}
	kfree(s);
	nw_exit();
	return ret;
}

/* The request failed before it was queued: it will never complete. */
void nw_defer_sync_cancel(struct kiocb *req)
{
	struct nw_sync_req *s = nw_sync_take(req);

	req->ki_flags &= ~NW_IOCB_DSYNC_DEFERRED;
	if (s) {
		req->ki_complete = s->complete;
		kfree(s);
		nw_exit();
	}
}

int nw_sync_init(void)
{
	nw_sync_wq = alloc_workqueue("nowait_aio_sync", WQ_MEM_RECLAIM, 0);
	return nw_sync_wq ? 0 : -ENOMEM;
}

void nw_sync_exit(void)
{
	destroy_workqueue(nw_sync_wq);
}
