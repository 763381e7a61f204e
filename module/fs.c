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
 * The write-path EAGAIN checks (lock, page cache, allocation, COW) belong
 * here too and are added per filesystem.
 */
#include <linux/fs.h>
#include <linux/uio.h>

#include "nowait_aio.h"

ssize_t (*nw_orig_ext4_file_write_iter)(struct kiocb *, struct iov_iter *);
ssize_t (*nw_orig_xfs_file_write_iter)(struct kiocb *, struct iov_iter *);
ssize_t (*nw_orig_btrfs_file_write_iter)(struct kiocb *, struct iov_iter *);
ssize_t (*nw_orig_blkdev_write_iter)(struct kiocb *, struct iov_iter *);
ssize_t (*nw_orig_xfs_file_read_iter)(struct kiocb *, struct iov_iter *);
ssize_t (*nw_orig_ext4_file_read_iter)(struct kiocb *, struct iov_iter *);

/*
 * Checks every NOWAIT write makes before the filesystem runs.  Returns 0 to
 * let the write go on, or the errno it gets.
 */
static int nw_write_checks(struct kiocb *iocb)
{
	if (!(iocb->ki_flags & IOCB_DIRECT)) {
		nw_count(NW_CNT_EOPNOTSUPP);
		return -EOPNOTSUPP;
	}
	if (nw_inject_eagain()) {
		nw_count(NW_CNT_EAGAIN_INJECTED);
		return -EAGAIN;
	}
	return 0;
}

static ssize_t nw_write_iter(struct kiocb *iocb, struct iov_iter *from,
			     ssize_t (*orig)(struct kiocb *, struct iov_iter *))
{
	ssize_t ret;

	nw_enter();
	if (likely(!(iocb->ki_flags & NW_IOCB_NOWAIT))) {
		ret = orig(iocb, from);
	} else {
		ret = nw_write_checks(iocb);
		if (!ret)
			ret = orig(iocb, from);
	}
	nw_exit();
	return ret;
}

ssize_t nw_ext4_file_write_iter(struct kiocb *iocb, struct iov_iter *from)
{
	return nw_write_iter(iocb, from, nw_orig_ext4_file_write_iter);
}

ssize_t nw_xfs_file_write_iter(struct kiocb *iocb, struct iov_iter *from)
{
	return nw_write_iter(iocb, from, nw_orig_xfs_file_write_iter);
}

ssize_t nw_btrfs_file_write_iter(struct kiocb *iocb, struct iov_iter *from)
{
	return nw_write_iter(iocb, from, nw_orig_btrfs_file_write_iter);
}

ssize_t nw_blkdev_write_iter(struct kiocb *iocb, struct iov_iter *from)
{
	return nw_write_iter(iocb, from, nw_orig_blkdev_write_iter);
}

/*
 * Is the inode's i_rwsem (XFS's IOLOCK) free for a shared taker right now?
 * Taken and dropped at once: the kernel's own path then takes it.
 */
static bool nw_rwsem_free_shared(struct inode *inode)
{
	if (!down_read_trylock(&inode->i_rwsem))
		return false;
	up_read(&inode->i_rwsem);
	return true;
}

/*
 * NOWAIT reads that would sleep on the inode lock: XFS takes its IOLOCK for
 * every read (4.13 tries it); ext4 takes i_rwsem shared for direct reads,
 * which 4.14 still slept on and 5.5 tries (b1b4705d54ab "ext4: introduce
 * direct I/O read using iomap infrastructure").  The page-cache rule for
 * ext4 reads is in the generic_file_read_iter hook; XFS direct reads do not
 * go there (iomap), so it is checked here.
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
	if (nw_check_on[NW_CHECK_LOCK] && !nw_rwsem_free_shared(inode)) {
		nw_count(NW_CNT_EAGAIN_LOCK);
		ret = -EAGAIN;
		goto out;
	}
	if (direct && check_pagecache && nw_check_on[NW_CHECK_PAGECACHE] &&
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

ssize_t nw_ext4_file_read_iter(struct kiocb *iocb, struct iov_iter *to)
{
	return nw_read_iter(iocb, to, true, false, nw_orig_ext4_file_read_iter);
}
