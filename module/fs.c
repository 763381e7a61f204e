// SPDX-License-Identifier: GPL-2.0
/*
 * The filesystems' and block devices' ->write_iter/->read_iter: where 4.14
 * refuses a NOWAIT request before it can block.
 *
 * Rules carried here (4.14.67):
 *  - a NOWAIT write without O_DIRECT: EOPNOTSUPP (ext4, XFS and btrfs
 *    ->write_iter; blkdev_write_iter);
 *  - reads that would sleep on the inode lock (XFS; ext4 direct reads, as
 *    fixed in 5.5), and XFS direct reads over cached pages (iomap_dio_rw).
 *  - NOWAIT direct writes: the inode lock only tried, no allocation or COW
 *    (ext4: overwrite of written blocks inside i_size; XFS: allocated
 *    blocks, unwritten allowed; btrfs: in place only), no page-cache pages
 *    in the range.
 */
#include <linux/blkdev.h>
#include <linux/fiemap.h>
#include <linux/fs.h>
#include <linux/slab.h>
#include <linux/uio.h>

#include "nowait_aio.h"

ssize_t (*nw_orig_ext4_file_write_iter)(struct kiocb *, struct iov_iter *);
ssize_t (*nw_orig_xfs_file_write_iter)(struct kiocb *, struct iov_iter *);
ssize_t (*nw_orig_btrfs_file_write_iter)(struct kiocb *, struct iov_iter *);
ssize_t (*nw_orig_blkdev_write_iter)(struct kiocb *, struct iov_iter *);
ssize_t (*nw_orig_xfs_file_read_iter)(struct kiocb *, struct iov_iter *);

enum nw_fs_kind { NW_FS_EXT4, NW_FS_XFS, NW_FS_BTRFS, NW_FS_BLKDEV };

static ssize_t nw_eagain(enum nw_counter why)
{
	nw_count(why);
	return -EAGAIN;
}

/*
 * Ask the filesystem for the extents of [pos, pos + len) through its fiemap
 * method (the FIEMAP ioctl's; a public interface, unlike the filesystems'
 * private block maps) and decide whether a direct write there can go ahead
 * without allocating: the range is covered without holes by extents that
 * are not delayed, inline, encoded or shared, and unwritten (preallocated)
 * ones only where @unwritten_ok.  Written extents count only if
 * @written_ok (btrfs writes in place only with NODATACOW).  Anything the
 * answer does not cover (too many extents, an error) counts as "no".
 */
#define NW_FIEMAP_EXTENTS 16

static bool nw_range_in_place(struct inode *inode, loff_t pos, size_t len,
			      bool written_ok, bool unwritten_ok)
{
	struct fiemap_extent *ext;
	struct fiemap_extent_info fi = { 0 };
	nw_addr_limit_t old;
	loff_t cur = pos, end = pos + len;
	unsigned int i;
	bool ok = false;
	int err;

	if (!inode->i_op->fiemap || !len || pos >= inode->i_sb->s_maxbytes)
		return false;
	/* a NOWAIT request's path: no reclaim; no memory means "no" (EAGAIN) */
	ext = kcalloc(NW_FIEMAP_EXTENTS, sizeof(*ext), NW_GFP_NOWAIT);
	if (!ext)
		return false;
	fi.fi_extents_max = NW_FIEMAP_EXTENTS;
	fi.fi_extents_start = (struct fiemap_extent __user *)ext;
	/*
	 * Only the write's own range: btrfs locks the queried range for the
	 * whole walk, and a NOWAIT write must not wait on locks past it.
	 * (4.12's btrfs logs "unhandled fiemap cache detected" for such a
	 * query: noise, not a WARN.)
	 */
	old = nw_kernel_ds_enter();
	err = inode->i_op->fiemap(inode, &fi, pos, len);
	nw_addr_limit_restore(old);
	if (err)
		goto out;
	for (i = 0; i < fi.fi_extents_mapped && cur < end; i++) {
		u32 f = ext[i].fe_flags;

		if (ext[i].fe_logical > cur)
			goto out;	/* a hole */
		if (f & (FIEMAP_EXTENT_UNKNOWN | FIEMAP_EXTENT_DELALLOC |
			 FIEMAP_EXTENT_ENCODED | FIEMAP_EXTENT_DATA_INLINE |
			 FIEMAP_EXTENT_SHARED))
			goto out;
		if ((f & FIEMAP_EXTENT_UNWRITTEN) ? !unwritten_ok : !written_ok)
			goto out;
		cur = max_t(loff_t, cur, ext[i].fe_logical + ext[i].fe_length);
	}
	ok = cur >= end;
out:
	kfree(ext);
	return ok;
}

int (*nw_ext4_map_blocks)(void *handle, struct inode *inode,
			  struct nw_ext4_map_blocks *map, int flags);

/*
 * 4.14's ext4_overwrite_io(): inside i_size, and one lookup of ext4's own
 * block map (its extent-status cache first) finds every block of the range
 * mapped and written, in one run.  A range over two extents counts as
 * "no", as it does there.  Without the symbol: fiemap, which also accepts
 * a range over several written extents.
 */
static bool nw_ext4_overwrite(struct inode *inode, loff_t pos, size_t len)
{
	struct nw_ext4_map_blocks map = { 0 };
	unsigned int blkbits = inode->i_blkbits;
	int err, blklen;

	if (pos + len > i_size_read(inode))
		return false;
	if (!nw_ext4_map_blocks)
		return nw_range_in_place(inode, pos, len, true, false);
	map.m_lblk = pos >> blkbits;
	map.m_len = (ALIGN(pos + len, 1ULL << blkbits) >> blkbits) -
		    (pos >> blkbits);
	blklen = map.m_len;
	err = nw_ext4_map_blocks(NULL, inode, &map, 0);
	return err == blklen && (map.m_flags & NW_EXT4_MAP_MAPPED);
}

/*
 * Does the file have a shared (reflinked) extent anywhere?  XFS marks such
 * an inode (XFS_DIFLAG2_REFLINK, private to XFS); its extents are the
 * public trace of that.  Looks at the first 128 extents.  1 or 0, or
 * -EAGAIN when it cannot tell without memory reclaim.
 */
#define NW_SHARED_SCAN_ROUNDS 8

static int nw_inode_has_shared(struct inode *inode)
{
	struct fiemap_extent *ext;
	struct fiemap_extent_info fi;
	nw_addr_limit_t old;
	u64 start = 0;
	unsigned int i, round;
	bool shared = false;
	int err;

	if (!inode->i_op->fiemap)
		return 0;
	ext = kcalloc(NW_FIEMAP_EXTENTS, sizeof(*ext), NW_GFP_NOWAIT);
	if (!ext)
		return -EAGAIN;	/* no answer without reclaim */
	for (round = 0; round < NW_SHARED_SCAN_ROUNDS && !shared; round++) {
		memset(&fi, 0, sizeof(fi));
		fi.fi_extents_max = NW_FIEMAP_EXTENTS;
		fi.fi_extents_start = (struct fiemap_extent __user *)ext;
		old = nw_kernel_ds_enter();
		err = inode->i_op->fiemap(inode, &fi, start, LLONG_MAX - start);
		nw_addr_limit_restore(old);
		if (err || !fi.fi_extents_mapped)
			break;
		for (i = 0; i < fi.fi_extents_mapped; i++)
			if (ext[i].fe_flags & FIEMAP_EXTENT_SHARED)
				shared = true;
		i = fi.fi_extents_mapped - 1;
		if (ext[i].fe_flags & FIEMAP_EXTENT_LAST)
			break;
		start = ext[i].fe_logical + ext[i].fe_length;
	}
	kfree(ext);
	return shared;
}

/* btrfs NODATACOW, through the FS_IOC_GETFLAGS ioctl's own handler */
static bool nw_btrfs_nodatacow(struct file *file)
{
	nw_addr_limit_t old;
	unsigned int flags = 0;
	long err;

	if (!file->f_op->unlocked_ioctl)
		return false;
	old = nw_kernel_ds_enter();
	err = file->f_op->unlocked_ioctl(file, FS_IOC_GETFLAGS,
					 (unsigned long)&flags);
	nw_addr_limit_restore(old);
	return !err && (flags & FS_NOCOW_FL);
}

int (*nw_btrfs_can_nocow_extent)(struct inode *inode, u64 offset, u64 *len,
				 u64 *orig_start, u64 *orig_block_len,
				 u64 *ram_bytes);

/*
 * btrfs: can a direct write of [pos, pos + len) go in place?  btrfs's own
 * can_nocow_extent(), which 4.14's check_can_nocow() asks, one extent at a
 * time over the whole range (260a63395f90, 5.8): a regular extent only on
 * a NODATACOW inode, a preallocated one without delalloc over it; neither
 * shared (its cross-reference test sees snapshots, reflinks and delayed
 * references), checksummed nor encoded.  Unlike 4.14 it does not lock the
 * range or wait for ordered extents first: an extent still being written
 * has no file extent item yet and counts as "no".  Without the symbol:
 * fiemap, whose shared-extent test walks the backrefs (and misses recent
 * reflinks before 4.9: btrfs is not offered there, nw_btrfs_offered()).
 */
#define NW_BTRFS_NOCOW_EXTENTS 16

static bool nw_btrfs_in_place(struct file *file, loff_t pos, size_t len)
{
	struct inode *inode = file_inode(file);
	u64 cur = pos, end = pos + len;
	unsigned int i;

	if (!nw_btrfs_can_nocow_extent)
		return nw_range_in_place(inode, pos, len,
					 nw_btrfs_nodatacow(file), true);
	for (i = 0; i < NW_BTRFS_NOCOW_EXTENTS && cur < end; i++) {
		u64 n = end - cur;

		if (nw_btrfs_can_nocow_extent(inode, cur, &n, NULL, NULL,
					      NULL) <= 0 || !n)
			return false;
		cur += n;
	}
	return cur >= end;
}

/*
 * ext4's "unaligned AIO" (async, below i_size rounded up to a block, not
 * aligned to its block: ext4_unaligned_aio()) skipped 4.14's NOWAIT
 * overwrite test.  True for one the device cannot take either.
 */
static bool nw_ext4_unaligned_aio(struct kiocb *iocb, struct iov_iter *from,
				  loff_t pos, unsigned int lbs_mask)
{
	struct inode *inode = file_inode(iocb->ki_filp);
	unsigned long align = pos | iov_iter_alignment(from);

	return !is_sync_kiocb(iocb) &&
	       pos < ALIGN(i_size_read(inode), i_blocksize(inode)) &&
	       (align & (i_blocksize(inode) - 1)) && (align & lbs_mask);
}

/*
 * Its answer there, without the waits: generic_file_direct_write()'s
 * page-cache test first (EAGAIN), then the direct I/O's EINVAL.
 */
static ssize_t nw_ext4_unaligned_aio_answer(struct kiocb *iocb, loff_t pos,
					    size_t count)
{
	if (nw_check_on[NW_CHECK_PAGECACHE] &&
	    nw_range_has_page(iocb->ki_filp->f_mapping, pos, pos + count - 1))
		return nw_eagain(NW_CNT_EAGAIN_PAGECACHE);
	return -EINVAL;
}

/*
 * A NOWAIT write without O_DIRECT is EOPNOTSUPP, but 4.14 answers some of
 * them first, and nothing is written then: xfs_file_write_iter() returns
 * 0 for an empty write; blkdev_write_iter() says EPERM on a read-only
 * device, 0 for an empty write and ENOSPC at or past the device's end.
 * ext4 and btrfs refuse before anything else.  True: let the filesystem
 * give its own answer (the kernels here answer alike).
 */
static bool nw_buffered_answered_first(struct kiocb *iocb,
				       struct iov_iter *from,
				       enum nw_fs_kind fs)
{
	struct inode *bd_inode = iocb->ki_filp->f_mapping->host;

	if (fs == NW_FS_XFS)
		return !iov_iter_count(from);
	if (fs != NW_FS_BLKDEV)
		return false;
	return bdev_read_only(I_BDEV(bd_inode)) || !iov_iter_count(from) ||
	       iocb->ki_pos >= i_size_read(bd_inode);
}

/*
 * Where 4.14 (with the later upstream fixes) refuses a NOWAIT direct write
 * before anything is written.  Returns 0 to let the filesystem run, or the
 * errno.  The lock tests take and drop the lock at once: the filesystem
 * then takes it itself (a writer that slips in between makes that one call
 * wait, as a plain write would; it never makes a refused one write).
 */
static int nw_write_checks(struct kiocb *iocb, struct iov_iter *from,
			   enum nw_fs_kind fs)
{
	struct file *file = iocb->ki_filp;
	struct inode *inode = file_inode(file);
	size_t count = iov_iter_count(from);
	struct request_queue *q;
	loff_t size, pos;
	bool unaligned;

	if (!(iocb->ki_flags & IOCB_DIRECT)) {
		if (nw_buffered_answered_first(iocb, from, fs))
			return 0;
		nw_count(NW_CNT_EOPNOTSUPP);
		return -EOPNOTSUPP;
	}
	if (nw_inject_eagain())
		return nw_eagain(NW_CNT_EAGAIN_INJECTED);
	if (!count)
		return 0;
	if (fs == NW_FS_BLKDEV)
		q = bdev_get_queue(I_BDEV(file->f_mapping->host));
	else
		q = inode->i_sb->s_bdev ? bdev_get_queue(inode->i_sb->s_bdev) :
		    NULL;
	if (q && nw_queue_is_stacked(q)) {
		/* the 4.13 series: NOWAIT only on request-based queues */
		nw_count(NW_CNT_EOPNOTSUPP);
		return -EOPNOTSUPP;
	}
	if (fs == NW_FS_BLKDEV && nw_check_on[NW_CHECK_CONGESTION]) {
		if (nw_perbio_nowait(q)) {
			/* one bio, never split: EAGAIN means nothing written */
			if (!nw_blkdev_single_bio(q, from))
				return nw_eagain(NW_CNT_EAGAIN_CONGESTION);
		} else if (!nw_queue_has_room(q)) {
			/* DIO through fs/direct-io.c (< 4.10): decide now */
			return nw_eagain(NW_CNT_EAGAIN_CONGESTION);
		}
		return 0;
	}
	if (fs == NW_FS_BLKDEV)
		return 0;

	unaligned = fs == NW_FS_XFS &&
		    ((iocb->ki_pos | count) & (i_blocksize(inode) - 1));
	if (fs == NW_FS_XFS) {
		int shared;

		/* XFS's own first answers, before its locks (4.14) */
		if (q && ((iocb->ki_pos | count) &
			  (queue_logical_block_size(q) - 1)))
			return 0;	/* XFS says EINVAL */
		/*
		 * Unaligned DIO to a reflinked file falls back to a buffered
		 * write, which refuses NOWAIT (xfs_file_dio_aio_write's
		 * -EREMCHG, then xfs_file_buffered_aio_write).
		 */
		shared = unaligned ? nw_inode_has_shared(inode) : 0;
		if (shared < 0)
			return nw_eagain(NW_CNT_EAGAIN_ALLOC);
		if (shared) {
			nw_count(NW_CNT_EOPNOTSUPP);
			return -EOPNOTSUPP;
		}
	}
	if (nw_check_on[NW_CHECK_LOCK]) {
		/* ext4, btrfs and unaligned XFS DIO lock i_rwsem exclusively */
		bool free = (fs == NW_FS_XFS && !unaligned) ?
			    nw_inode_lock_free_shared(inode) :
			    nw_inode_lock_free_excl(inode);
		if (!free)
			return nw_eagain(NW_CNT_EAGAIN_LOCK);
		/* XFS: unaligned DIO waits for all DIO in flight (4.13) */
		if (unaligned && atomic_read(&inode->i_dio_count))
			return nw_eagain(NW_CNT_EAGAIN_LOCK);
	}

	size = i_size_read(inode);
	pos = (iocb->ki_flags & IOCB_APPEND) ? size : iocb->ki_pos;
	/* generic_write_checks() answers EFBIG before any NOWAIT test */
	if (pos >= inode->i_sb->s_maxbytes)
		return 0;
	if (q) {
		/*
		 * A direct write the device cannot take as it is (not aligned
		 * to its logical block): XFS's iomap DIO says EINVAL, unless
		 * the first block needs allocation, which its NOWAIT test
		 * refuses first.
		 */
		unsigned int lbs_mask = queue_logical_block_size(q) - 1;

		if (fs == NW_FS_EXT4 &&
		    nw_ext4_unaligned_aio(iocb, from, pos, lbs_mask))
			return nw_ext4_unaligned_aio_answer(iocb, pos, count);
		if (fs == NW_FS_XFS && pos <= size &&
		    (iov_iter_alignment(from) & lbs_mask)) {
			size_t first = min_t(size_t, count, i_blocksize(inode) -
					     (pos & (i_blocksize(inode) - 1)));

			if (!nw_check_on[NW_CHECK_ALLOC] ||
			    nw_range_in_place(inode, pos, first, true, true))
				return -EINVAL;
			return nw_eagain(NW_CNT_EAGAIN_ALLOC);
		}
	}
	/*
	 * btrfs turns a direct write it cannot align to its sector size into
	 * a buffered one (check_direct_IO()), which does not honour NOWAIT
	 * before 6.1: refuse it, nothing written.  (4.14 let it through.)
	 */
	if (fs == NW_FS_BTRFS && nw_check_on[NW_CHECK_ALLOC] &&
	    ((pos | iov_iter_alignment(from)) & (i_blocksize(inode) - 1)))
		return nw_eagain(NW_CNT_EAGAIN_ALLOC);
	if (nw_check_on[NW_CHECK_ALLOC]) {
		bool ok;

		switch (fs) {
		case NW_FS_EXT4:
			ok = nw_ext4_overwrite(inode, pos, count);
			break;
		case NW_FS_XFS:
			/*
			 * xfs_file_iomap_begin(): no allocation, no COW; and
			 * no EOF zeroing (354be7e3b2ba, 5.12); the whole range
			 * allocated, so no partial write (883a790a8440, 5.10).
			 */
			ok = pos <= size &&
			     nw_range_in_place(inode, pos, count, true, true);
			break;
		case NW_FS_BTRFS:
			/*
			 * check_can_nocow() on NODATACOW/PREALLOC inodes;
			 * all of the range (260a63395f90, 5.8), prealloc
			 * past EOF too
			 * (4b1946284dd6, 5.8).
			 */
			ok = nw_btrfs_in_place(file, pos, count);
			break;
		default:
			ok = true;
		}
		if (!ok)
			return nw_eagain(NW_CNT_EAGAIN_ALLOC);
	}
	/* generic_file_direct_write()/iomap_dio_rw(): no writeback wait */
	if (nw_check_on[NW_CHECK_PAGECACHE] &&
	    nw_range_has_page(file->f_mapping, pos, pos + count - 1))
		return nw_eagain(NW_CNT_EAGAIN_PAGECACHE);
	/* decided before issuing: the bios of a filesystem DIO never fail */
	if (nw_check_on[NW_CHECK_CONGESTION] && q && !nw_queue_has_room(q))
		return nw_eagain(NW_CNT_EAGAIN_CONGESTION);
	return 0;
}

/*
 * The filesystems whose hooks are attached, by their write_iter: a file is
 * recognised by its f_op (never by name), and a filesystem module that
 * went and came back has a new address.  Set whenever hooks attach or
 * detach (hook.c, under nw_hooks_mutex); read on every flagged request.
 */
static unsigned long nw_ext4_wi, nw_xfs_wi, nw_btrfs_wi;

static unsigned long nw_fs_wi(const char *write_iter, const char *also)
{
	if (!nw_hook_usable(write_iter) || (also && !nw_hook_usable(also)))
		return 0;
	return nw_hook_addr(write_iter);
}

/*
 * Can the module tell an in-place btrfs write from one that must COW?
 * can_nocow_extent() sees reflinks made since the last commit (its
 * cross-reference test reads the delayed references); fiemap does only
 * from 4.9.
 */
bool nw_btrfs_offered(void)
{
	return NW_BTRFS_FIEMAP_SEES_SHARED ||
	       READ_ONCE(nw_btrfs_can_nocow_extent);
}

/* dmesg, once each time btrfs's hooks attach: why NOWAIT is not offered */
static void nw_btrfs_say_off(unsigned long wi)
{
	static unsigned long said;

	if (wi && wi != said && !nw_btrfs_offered())
		pr_info("btrfs: RWF_NOWAIT not offered (EOPNOTSUPP): btrfs's can_nocow_extent not found, and its fiemap before 4.9 cannot see extents shared since the last commit\n");
	said = wi;
}

void nw_fs_setup(void)
{
	WRITE_ONCE(nw_ext4_wi, nw_fs_wi("ext4_file_write_iter", NULL));
	/* XFS reads take its IOLOCK: the read hook is needed as well */
	WRITE_ONCE(nw_xfs_wi, nw_fs_wi("xfs_file_write_iter",
				       "xfs_file_read_iter"));
	WRITE_ONCE(nw_btrfs_wi, nw_fs_wi("btrfs_file_write_iter", NULL));
	nw_btrfs_say_off(nw_btrfs_wi);
}

bool nw_fs_write_hooked(struct inode *inode)
{
	unsigned long wi;

	if (!S_ISREG(inode->i_mode) || !inode->i_fop->write_iter)
		return false;
	wi = (unsigned long)inode->i_fop->write_iter;
	return wi == READ_ONCE(nw_ext4_wi) || wi == READ_ONCE(nw_xfs_wi) ||
	       wi == READ_ONCE(nw_btrfs_wi);
}

/*
 * May a NOWAIT request reach this regular file's filesystem?  Its hook
 * must be live, and its in-place test trustworthy on this kernel.
 */
bool nw_fs_nowait_offered(struct inode *inode)
{
	if (!nw_fs_write_hooked(inode))
		return false;
	if ((unsigned long)inode->i_fop->write_iter == READ_ONCE(nw_btrfs_wi))
		return nw_btrfs_offered();
	return true;
}

static bool nw_blkdev_perbio(struct kiocb *iocb)
{
	struct block_device *bdev = I_BDEV(iocb->ki_filp->f_mapping->host);

	return nw_perbio_nowait(bdev_get_queue(bdev));
}

static ssize_t nw_write_iter(struct kiocb *iocb, struct iov_iter *from,
			     enum nw_fs_kind fs,
			     ssize_t (*orig)(struct kiocb *, struct iov_iter *))
{
	ssize_t ret;

	nw_enter();
	if (likely(!(iocb->ki_flags &
		     (NW_IOCB_NOWAIT | NW_IOCB_DSYNC_DEFERRED)))) {
		ret = orig(iocb, from);
	} else {
		ret = 0;
		if (iocb->ki_flags & NW_IOCB_NOWAIT)
			ret = nw_write_checks(iocb, from, fs);
		if (!ret && fs == NW_FS_BLKDEV && nw_blkdev_perbio(iocb)) {
			struct nw_mark mark;

			/* its one bio allocates a request without waiting */
			nw_mark_push(&nw_blk_marks, &mark);
			ret = orig(iocb, from);
			nw_mark_pop(&nw_blk_marks, &mark);
		} else if (!ret) {
			ret = orig(iocb, from);
		}
		/* a queued request may be complete and freed already */
		if (ret != -EIOCBQUEUED &&
		    (iocb->ki_flags & NW_IOCB_DSYNC_DEFERRED))
			ret = nw_deferred_sync_finish(iocb, ret);
	}
	nw_exit();
	return ret;
}

ssize_t nw_ext4_file_write_iter(struct kiocb *iocb, struct iov_iter *from)
{
	return nw_write_iter(iocb, from, NW_FS_EXT4,
			     nw_orig_ext4_file_write_iter);
}

ssize_t nw_xfs_file_write_iter(struct kiocb *iocb, struct iov_iter *from)
{
	return nw_write_iter(iocb, from, NW_FS_XFS,
			     nw_orig_xfs_file_write_iter);
}

ssize_t nw_btrfs_file_write_iter(struct kiocb *iocb, struct iov_iter *from)
{
	return nw_write_iter(iocb, from, NW_FS_BTRFS,
			     nw_orig_btrfs_file_write_iter);
}

ssize_t nw_blkdev_write_iter(struct kiocb *iocb, struct iov_iter *from)
{
	return nw_write_iter(iocb, from, NW_FS_BLKDEV,
			     nw_orig_blkdev_write_iter);
}

/*
 * NOWAIT reads that would sleep on the inode lock: XFS takes its IOLOCK for
 * every read (4.13 tries it).  (ext4's direct-read lock is checked in the
 * generic_file_read_iter hook.)  XFS direct reads do not go through
 * generic_file_read_iter (iomap), so the page-cache rule is checked here.
 */
static ssize_t nw_read_iter(struct kiocb *iocb, struct iov_iter *to,
			    bool direct_only, bool check_pagecache,
			    ssize_t (*orig)(struct kiocb *, struct iov_iter *))
{
	struct inode *inode = file_inode(iocb->ki_filp);
	size_t count = iov_iter_count(to);
	bool direct = iocb->ki_flags & IOCB_DIRECT;
	ssize_t ret;

	nw_enter();
	if (likely(!(iocb->ki_flags & NW_IOCB_NOWAIT)) || !count ||
	    (direct_only && !direct)) {
		ret = orig(iocb, to);
		goto out;
	}
	if (nw_check_on[NW_CHECK_LOCK] && !nw_inode_lock_free_shared(inode)) {
		nw_count(NW_CNT_EAGAIN_LOCK);
		ret = -EAGAIN;
		goto out;
	}
	/* iomap_dio_rw() answers 0 past EOF before its page-cache test */
	if (direct && check_pagecache && nw_check_on[NW_CHECK_PAGECACHE] &&
	    iocb->ki_pos < i_size_read(inode) &&
	    nw_range_has_page(inode->i_mapping, iocb->ki_pos,
			      iocb->ki_pos + count - 1)) {
		nw_count(NW_CNT_EAGAIN_PAGECACHE);
		ret = -EAGAIN;
		goto out;
	}
	ret = orig(iocb, to);
out:
	nw_exit();
	return ret;
}

ssize_t nw_xfs_file_read_iter(struct kiocb *iocb, struct iov_iter *to)
{
	return nw_read_iter(iocb, to, false, true, nw_orig_xfs_file_read_iter);
}

