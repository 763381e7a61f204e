// SPDX-License-Identifier: GPL-2.0
/*
 * The NOWAIT write path of the filesystems and block devices: where 4.14
 * (with the later upstream fixes) refuses a NOWAIT write before anything is
 * written.  Each part says what is its own in a struct nw_fs_ops (write.h);
 * this file asks it in upstream's order.
 *
 * Rules carried here (4.14.67):
 *  - a NOWAIT write without O_DIRECT: EOPNOTSUPP (ext4, XFS and btrfs
 *    ->write_iter; blkdev_write_iter), after the answers some of them give
 *    first;
 *  - NOWAIT direct writes: the inode lock only tried, no allocation or COW,
 *    no page-cache pages in the range, a free request or tag on the device.
 * The lock tests take and drop the lock at once, first where 4.14 tries it
 * (for its order of answers) and again after the other tests: the
 * filesystem then takes it itself (a writer that slips in between makes
 * that one call wait, as a plain write would; it never makes a refused one
 * write).  README "Locks" says why the lock is not handed over.
 */
#include <linux/blkdev.h>
#include <linux/fiemap.h>
#include <linux/fs.h>
#include <linux/slab.h>
#include <linux/uio.h>

#include "rules.h"
#include "hook.h"
#include "queue.h"
#include "sync.h"
#include "write.h"

#define NW_FIEMAP_BATCH 4	/* extents per fiemap call, on the stack */
#define NW_FIEMAP_ROUNDS 4	/* calls per range: at most 16 extents */

/* One fiemap call over [cur, end): the extents it filled in, or -errno. */
static int nw_fiemap(struct inode *inode, loff_t cur, loff_t end,
		     struct fiemap_extent *ext)
{
	struct fiemap_extent_info fi = {
		.fi_extents_max = NW_FIEMAP_BATCH,
		.fi_extents_start = (struct fiemap_extent __user *)ext,
	};
	nw_addr_limit_t old = nw_kernel_ds_enter();
	int err = inode->i_op->fiemap(inode, &fi, cur, end - cur);

	nw_addr_limit_restore(old);
	return err ? err : fi.fi_extents_mapped;
}

/* Where in-place writing ends if @e goes on from @cur, or -1. */
static loff_t nw_extent_in_place(const struct fiemap_extent *e, loff_t cur,
				 bool written_ok, bool unwritten_ok)
{
	u32 f = e->fe_flags;

	if (e->fe_logical > cur)
		return -1;	/* a hole */
	if (f & (FIEMAP_EXTENT_UNKNOWN | FIEMAP_EXTENT_DELALLOC |
		 FIEMAP_EXTENT_ENCODED | FIEMAP_EXTENT_DATA_INLINE |
		 FIEMAP_EXTENT_SHARED))
		return -1;
	if ((f & FIEMAP_EXTENT_UNWRITTEN) ? !unwritten_ok : !written_ok)
		return -1;
	return max_t(loff_t, cur, e->fe_logical + e->fe_length);
}

/**
 * nw_range_in_place() - can a direct write to [@pos, @pos + @len) go ahead
 * without allocating?
 * @inode: the file's inode
 * @pos: the write's first byte
 * @len: its length in bytes
 * @written_ok: written extents count as in place (btrfs: only with
 *	NODATACOW)
 * @unwritten_ok: unwritten (preallocated) extents count as in place
 *
 * Asks the filesystem for the extents of the range through its fiemap
 * method (the FIEMAP ioctl's; a public interface, unlike the filesystems'
 * private block maps).  The range must be covered without holes by
 * extents that are not delayed, inline, encoded or shared, and are written
 * or unwritten as @written_ok and @unwritten_ok allow.  Anything the answer
 * does not cover (more than 16 extents, an error) counts as "no".  Only
 * the write's own range is asked for: btrfs locks the queried range for
 * the whole walk, and a NOWAIT write must not wait on locks past it.  The
 * extents go to the stack, a few per call: nothing is allocated.
 *
 * Return: true when the write can go ahead in place; false also for a file
 * without fiemap, an empty range, or @pos at or past s_maxbytes.
 */
bool nw_range_in_place(struct inode *inode, loff_t pos, size_t len,
		       bool written_ok, bool unwritten_ok)
{
	struct fiemap_extent ext[NW_FIEMAP_BATCH];
	loff_t cur = pos, end = pos + len;
	int round, n, i;

	if (!inode->i_op->fiemap || !len || pos >= inode->i_sb->s_maxbytes)
		return false;
	for (round = 0; round < NW_FIEMAP_ROUNDS; round++) {
		n = nw_fiemap(inode, cur, end, ext);
		if (n <= 0)
			return false;	/* an error, or nothing but a hole */
		for (i = 0; i < n && cur < end; i++) {
			cur = nw_extent_in_place(&ext[i], cur, written_ok,
						 unwritten_ok);
			if (cur < 0)
				return false;
		}
		if (cur >= end)
			return true;
		if (n < NW_FIEMAP_BATCH)
			return false;	/* a hole at the end */
	}
	return false;
}

/**
 * nw_range_first_encoded() - where a direct read of [@pos, @pos + @len) meets
 * an extent it cannot take.
 * @inode: the file's inode
 * @pos: the read's first byte
 * @len: its length in bytes
 *
 * Such an extent is compressed or otherwise encoded, or inline: btrfs
 * reads those through the page cache.  Asked through the filesystem's
 * fiemap method, for the read's range only, 16 extents at the most; past
 * them, none is assumed.  Nothing is allocated.
 *
 * Return: the byte where the first such extent starts (@pos when the range
 * starts inside it), or -1 when the answer shows none, on an error, and for
 * a file without fiemap or an empty range.
 */
loff_t nw_range_first_encoded(struct inode *inode, loff_t pos, size_t len)
{
	struct fiemap_extent ext[NW_FIEMAP_BATCH];
	loff_t cur = pos, end = pos + len;
	int round, n, i;

	if (!inode->i_op->fiemap || !len)
		return -1;
	for (round = 0; round < NW_FIEMAP_ROUNDS && cur < end; round++) {
		n = nw_fiemap(inode, cur, end, ext);
		if (n <= 0)
			return -1;
		for (i = 0; i < n; i++) {
			if (ext[i].fe_flags & (FIEMAP_EXTENT_ENCODED |
					       FIEMAP_EXTENT_DATA_INLINE))
				return max_t(loff_t, pos, ext[i].fe_logical);
			cur = ext[i].fe_logical + ext[i].fe_length;
		}
		if (n < NW_FIEMAP_BATCH)
			return -1;
	}
	return -1;
}

/**
 * nw_write_lock_excl() - the lock test of ext4 and btrfs.
 * @w: the write being checked
 *
 * Is the inode lock free for an exclusive taker right now?  It is tried
 * and, when taken, dropped at once; the filesystem takes it itself later.
 * Does not sleep.
 *
 * Return: 0 when it is free, -EAGAIN (counted as eagain_lock) when it is
 * held.
 */
int nw_write_lock_excl(struct nw_write *w)
{
	return nw_inode_lock_free_excl(w->inode) ? 0 :
	       nw_eagain(NW_CNT_EAGAIN_LOCK);
}

/* Before the direct write's own checks; 0 to go on. */
static int nw_write_prologue(struct nw_write *w, const struct nw_fs_ops *ops)
{
	struct kiocb *iocb = w->iocb;

	if (!(nw_req_flags(iocb) & IOCB_DIRECT)) {
		if (ops->buffered_first && ops->buffered_first(w))
			return NW_LET_FS;
		return nw_unsupported();
	}
	if (nw_inject_eagain())
		return nw_eagain(NW_CNT_EAGAIN_INJECTED);
	if (!w->count)
		return NW_LET_FS;
	if (w->q && nw_queue_is_stacked(w->q)) {
		/* the 4.13 series: NOWAIT only on request-based queues */
		return nw_unsupported();
	}
	return 0;
}

/* A filesystem's direct write, in the order of 4.14's write paths. */
static int nw_fs_direct_checks(struct nw_write *w, const struct nw_fs_ops *ops)
{
	struct kiocb *iocb = w->iocb;
	int ret;

	if (ops->before_lock) {
		ret = ops->before_lock(w);
		if (ret)
			return ret;
	}
	if (nw_check_on[NW_CHECK_LOCK]) {
		ret = ops->lock(w);
		if (ret)
			return ret;
	}
	w->size = i_size_read(w->inode);
	w->pos = (nw_req_flags(iocb) & IOCB_APPEND) ? w->size : iocb->ki_pos;
	/* generic_write_checks() answers EFBIG before any NOWAIT test */
	if (w->pos >= w->inode->i_sb->s_maxbytes)
		return NW_LET_FS;
	if (ops->misaligned) {
		ret = ops->misaligned(w);
		if (ret)
			return ret;
	}
	if (nw_check_on[NW_CHECK_ALLOC] && !ops->in_place(w))
		return nw_eagain(NW_CNT_EAGAIN_ALLOC);
	/* generic_file_direct_write()/iomap_dio_rw(): no writeback wait */
	if (nw_check_on[NW_CHECK_PAGECACHE] &&
	    nw_direct_would_wait(iocb->ki_filp->f_mapping, w->pos,
				 w->pos + w->count - 1))
		return nw_eagain(NW_CNT_EAGAIN_PAGECACHE);
	/* decided before issuing: the bios of a filesystem DIO never fail */
	if (nw_check_on[NW_CHECK_CONGESTION] && w->q &&
	    !nw_queue_has_room(w->q))
		return nw_eagain(NW_CNT_EAGAIN_CONGESTION);
	/*
	 * The lock once more, last: the filesystem takes it next, so a
	 * writer has the least time to take it first (XFS's mapping lookup
	 * above can sleep on its ILOCK, which left that writer time enough).
	 */
	return nw_check_on[NW_CHECK_LOCK] ? ops->lock(w) : 0;
}

/* 0 to let the write run, or the errno it is refused with. */
static int nw_write_checks(struct kiocb *iocb, struct iov_iter *from,
			   const struct nw_fs_ops *ops)
{
	struct inode *inode = file_inode(iocb->ki_filp);
	struct nw_write w = {
		.iocb = iocb,
		.from = from,
		.inode = inode,
		.count = iov_iter_count(from),
	};
	int ret;

	if (ops->queue)
		w.q = ops->queue(&w);
	else if (inode->i_sb->s_bdev)
		w.q = bdev_get_queue(inode->i_sb->s_bdev);
	ret = nw_write_prologue(&w, ops);
	if (!ret)
		ret = ops->direct ? ops->direct(&w) :
		      nw_fs_direct_checks(&w, ops);
	return ret == NW_LET_FS ? 0 : nw_write_refusal(iocb, ret);
}

#if NW_IOVEC_FOPS
/**
 * nw_rw_call_nomem() - call a file's aio_read or aio_write original with the
 * bytes of @it.
 * @fn: the original
 * @iocb: the request
 * @it: the bytes: the iovec array NW_RW_HOOK() built, possibly truncated by
 *	the checks
 * @nomem: what to return when there is no memory for a copy of the array
 *
 * Before 3.16 a file's reads and writes take iovecs.  @fn gets @it's whole
 * array, at @iocb's ki_pos, when @it still holds all of its bytes, and no
 * segment when it holds none; otherwise a copy cut to @it's count, on the
 * stack up to UIO_FASTIOV segments and allocated without reclaim past that.
 *
 * Return: what @fn returned, or @nomem.
 */
ssize_t nw_rw_call_nomem(nw_rw_fn fn, struct kiocb *iocb, struct iov_iter *it,
			 ssize_t nomem)
{
	struct iovec fast[UIO_FASTIOV], *iov = fast;
	size_t left = it->count;
	unsigned long n;
	ssize_t ret;

	if (left == iov_length(it->iov, it->nr_segs))
		return fn(iocb, it->iov, it->nr_segs, iocb->ki_pos);
	for (n = 0; n < it->nr_segs && left; n++)
		left -= min(left, it->iov[n].iov_len);
	if (!n)
		return fn(iocb, it->iov, 0, iocb->ki_pos);
	if (n > UIO_FASTIOV) {
		iov = kmalloc_array(n, sizeof(*iov), NW_GFP_NOWAIT);
		if (!iov)
			return nomem;
	}
	memcpy(iov, it->iov, n * sizeof(*iov));
	iov[n - 1].iov_len -= iov_length(iov, n) - it->count;
	ret = fn(iocb, iov, n, iocb->ki_pos);
	if (iov != fast)
		kfree(iov);
	return ret;
}
#endif

/**
 * nw_write_iter() - the write_iter of every filesystem and block-device part.
 * @iocb: the request
 * @from: its data
 * @ops: the part's own checks
 * @orig: the kernel's write_iter (aio_write before 3.16) the part hooks
 *
 * A request with neither NW_IOCB_NOWAIT nor a deferred sync goes straight
 * to @orig.  A NOWAIT one is checked first, in the order of 4.14's write
 * paths with @ops's answers, and refused where 4.14 refuses it, before
 * anything is written.  A request whose sync the module carries
 * (nw_defer_sync()) and that ends without being queued (not -EIOCBQUEUED)
 * is synced and given back here (nw_deferred_sync_finish()); a queued one
 * is not touched again, as it may be complete and freed already.  Called
 * from the part's write_iter hook.
 *
 * Return: what @orig returned, the errno the write is refused with, or the
 * error of the deferred sync.
 */
ssize_t nw_write_iter(struct kiocb *iocb, struct iov_iter *from,
		      const struct nw_fs_ops *ops, nw_rw_fn orig)
{
	ssize_t ret;
	int flags;

	nw_enter();
	flags = nw_req_flags(iocb);
	if (likely(!(flags & (NW_IOCB_NOWAIT | NW_IOCB_DSYNC_DEFERRED)))) {
		ret = nw_rw_call(orig, iocb, from);
	} else {
		ret = 0;
		if (flags & NW_IOCB_NOWAIT)
			ret = nw_write_checks(iocb, from, ops);
		if (!ret)
			ret = nw_rw_call(orig, iocb, from);
		/* a queued request may be complete and freed already */
		if (ret != -EIOCBQUEUED && (flags & NW_IOCB_DSYNC_DEFERRED))
			ret = nw_deferred_sync_finish(iocb, ret);
	}
	nw_exit();
	return ret;
}
