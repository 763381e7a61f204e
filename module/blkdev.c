// SPDX-License-Identifier: GPL-2.0
/*
 * Raw block devices: their NOWAIT write rules and their hook.
 *  - a buffered NOWAIT write: blkdev_write_iter()'s own answers first
 *    (EPERM on a read-only device, 0 for an empty write, ENOSPC at or past
 *    the end), then EOPNOTSUPP;
 *  - a direct one whose range has page-cache pages is refused
 *    (generic_file_direct_write(), 4.14), and it must not sleep for a
 *    free request or tag (the 4.13 series, with 5.10's f8b78caf21d5 for
 *    raw devices).  With the block
 *    layer's per-bio no-wait allocation (block.c) it must fit one bio the
 *    queue will not split (6.2's 9cea62b2cbab and 67d59247d4b5), and its
 *    bio is marked for that allocation; without it, the queue's state
 *    decides before issuing.
 */
#include <linux/blkdev.h>
#include <linux/fs.h>
#include <linux/uio.h>

#include "rules.h"
#include "hook.h"
#include "queue.h"
#include "write.h"
#include "parts.h"

static nw_rw_fn nw_orig_blkdev_write;

static struct inode *nw_bd_inode(struct nw_write *w)
{
	return w->iocb->ki_filp->f_mapping->host;
}

static bool nw_blkdev_buffered_first(struct nw_write *w)
{
	struct inode *bd_inode = nw_bd_inode(w);

	return bdev_read_only(I_BDEV(bd_inode)) || !w->count ||
	       w->iocb->ki_pos >= i_size_read(bd_inode);
}

static struct request_queue *nw_blkdev_queue(struct nw_write *w)
{
	return bdev_get_queue(I_BDEV(nw_bd_inode(w)));
}

/*
 * generic_file_direct_write() (4.14): a NOWAIT write whose range has
 * page-cache pages is refused, rather than written back and waited for.
 */
static bool nw_blkdev_cached(struct nw_write *w)
{
	loff_t pos = w->iocb->ki_pos;
	loff_t end = min_t(loff_t, pos + w->count,
			   i_size_read(nw_bd_inode(w)));

	return nw_check_on[NW_CHECK_PAGECACHE] && end > pos &&
	       nw_range_has_page(w->iocb->ki_filp->f_mapping, pos, end - 1);
}

static int nw_blkdev_direct(struct nw_write *w)
{
	if (nw_blkdev_cached(w))
		return nw_eagain(NW_CNT_EAGAIN_PAGECACHE);
	if (!nw_check_on[NW_CHECK_CONGESTION])
		return 0;
	if (nw_perbio_nowait(w->q)) {
		/* one bio, never split: EAGAIN means nothing written */
		if (!nw_blkdev_single_bio(w->q, w->from, w->iocb->ki_pos))
			return nw_eagain(NW_CNT_EAGAIN_CONGESTION);
	} else if (!nw_queue_has_room(w->q)) {
		/* DIO through fs/direct-io.c (< 4.10): decide now */
		return nw_eagain(NW_CNT_EAGAIN_CONGESTION);
	}
	return 0;
}

static const struct nw_fs_ops nw_blkdev_ops = {
	.buffered_first = nw_blkdev_buffered_first,
	.queue = nw_blkdev_queue,
	.direct = nw_blkdev_direct,
};

/*
 * A NOWAIT write's one bio allocates its request without waiting: the
 * task is marked while it is in the write (its checks issue no I/O, and
 * a deferred sync's bios are not the block device's DIO bios).
 */
static ssize_t nw_blkdev_write_iter(struct kiocb *iocb, struct iov_iter *from)
{
	struct block_device *bdev = I_BDEV(iocb->ki_filp->f_mapping->host);
	struct nw_mark mark;
	bool marked;
	ssize_t ret;

	nw_enter();
	marked = (nw_req_flags(iocb) & NW_IOCB_NOWAIT) &&
		 nw_perbio_nowait(bdev_get_queue(bdev));
	if (marked)
		nw_mark_push(&nw_blk_marks, &mark);
	ret = nw_write_iter(iocb, from, &nw_blkdev_ops, nw_orig_blkdev_write);
	if (marked)
		nw_mark_pop(&nw_blk_marks, &mark);
	nw_exit();
	return ret;
}
NW_RW_HOOK(nw_blkdev_write_iter_hook, nw_blkdev_write_iter)

enum { NW_BLKDEV_WRITE };

static struct nw_hook nw_blkdev_hooks[] = {
	[NW_BLKDEV_WRITE] =
	NW_HOOK(NW_FOP_SYM("blkdev_write_iter", "blkdev_aio_write"),
		nw_blkdev_write_iter_hook, nw_orig_blkdev_write, NW_REQUIRED,
		"block device NOWAIT writes"),
};

static void nw_blkdev_setup(void)
{
	struct nw_hook *wi = &nw_blkdev_hooks[NW_BLKDEV_WRITE];

	nw_fs_set(NW_FS_BLKDEV, nw_hook_ready(wi) ? wi->addr : 0, true);
}

const struct nw_part nw_blkdev_part = {
	NW_PART_HOOKS(nw_blkdev_hooks),
	.setup = nw_blkdev_setup,
};
