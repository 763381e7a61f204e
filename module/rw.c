// SPDX-License-Identifier: GPL-2.0
/*
 * preadv2/pwritev2 with RWF_NOWAIT, and the read side of the contract.
 *
 * A pre-4.13 kernel rejects RWF_NOWAIT in do_iter_readv_writev() (inlined).
 * For a call that carries RWF_NOWAIT the module runs its own copy of the
 * kernel's __do_readv_writev() (shared by the native and 32-bit compat
 * system calls), with 4.14's kiocb_set_rw_flags() rules; every other call
 * runs the kernel's code after one test of the flags.
 *
 * Reads follow 4.14: a NOWAIT direct read refuses when the page cache holds
 * pages of the range; a NOWAIT buffered read returns what is cached from
 * the start of the range and EAGAIN when nothing is (91f9943e1c7b), never 0
 * before EOF, and 0 at or past EOF without touching the page cache (6.1).
 */
#include <linux/fs.h>
#include <linux/fsnotify.h>
#include <linux/pagemap.h>
#include <linux/uio.h>

#include "nowait_aio.h"

ssize_t (*nw_orig_do_readv_writev)(int, struct file *, struct iov_iter *,
				   loff_t *, int);
ssize_t (*nw_orig_do_iter_readv_writev)(struct file *, struct iov_iter *,
					loff_t *, nw_iter_fn, int);
ssize_t (*nw_orig_generic_file_read_iter)(struct kiocb *, struct iov_iter *);
/* int, as the kernel declares it: its errors live in the low 32 bits only */
int (*nw_rw_verify_area)(int, struct file *, const loff_t *, size_t);

/*
 * 4.14 lets RWF_NOWAIT in only for files whose filesystem set FMODE_NOWAIT
 * at open: ext4 (also serving ext3), XFS, btrfs regular files and block
 * devices.  Everything else gets EOPNOTSUPP, as upstream.
 */
static bool nw_is_ext4(struct inode *inode)
{
	const char *fs = inode->i_sb->s_type->name;

	return S_ISREG(inode->i_mode) &&
	       (!strcmp(fs, "ext4") || !strcmp(fs, "ext3"));
}

static bool nw_is_btrfs(struct inode *inode)
{
	return S_ISREG(inode->i_mode) &&
	       !strcmp(inode->i_sb->s_type->name, "btrfs");
}

bool nw_file_nowait_capable(struct file *file)
{
	struct inode *inode = file_inode(file);

	if (S_ISBLK(inode->i_mode))
		return true;
	/* a filesystem is in only while its write_iter hook is live */
	return nw_fs_nowait_offered(inode);
}

/* Does the page cache hold any page of [start, end] (bytes, inclusive)? */
bool nw_range_has_page(struct address_space *mapping, loff_t start, loff_t end)
{
	pgoff_t index;

	if (end < start || !mapping->nrpages)
		return false;
	if (!nw_first_cached_index(mapping, start >> PAGE_SHIFT, &index))
		return false;
	return index <= (end >> PAGE_SHIFT);
}

/* Bytes from @pos that are in up-to-date cached pages, at most @count. */
static size_t nw_cached_prefix(struct address_space *mapping, loff_t pos,
			       size_t count)
{
	pgoff_t idx = pos >> PAGE_SHIFT;
	pgoff_t last = (pos + count - 1) >> PAGE_SHIFT;

	for (; idx <= last; idx++) {
		struct page *page = find_get_page(mapping, idx);
		bool ok = page && PageUptodate(page);

		if (page)
			put_page(page);
		if (!ok)
			break;
	}
	if (idx > last)
		return count;
	return (idx << PAGE_SHIFT) > pos ? (idx << PAGE_SHIFT) - pos : 0;
}

static ssize_t nw_eagain(enum nw_counter why)
{
	nw_count(why);
	return -EAGAIN;
}

/*
 * btrfs serves from the page cache a direct read that its
 * check_direct_IO() turns down (4.4 to 6.1): an offset or a buffer not
 * aligned to the sector size, or, for a read, two iovec segments with the
 * same base ("we'll get csum errors").  generic_file_read_iter() then takes
 * its buffered path, so the buffered rule applies.
 */
static bool nw_btrfs_dio_declined(struct kiocb *iocb, struct iov_iter *to)
{
	struct inode *inode = file_inode(iocb->ki_filp);
	unsigned long i, j;

	if (!nw_is_btrfs(inode))
		return false;
	if ((iocb->ki_pos | iov_iter_alignment(to)) & (i_blocksize(inode) - 1))
		return true;
	if (!iter_is_iovec(to))
		return false;
	for (i = 0; i < to->nr_segs; i++)
		for (j = i + 1; j < to->nr_segs; j++)
			if (to->iov[i].iov_base == to->iov[j].iov_base)
				return true;
	return false;
}

/*
 * The cached part of a NOWAIT buffered read.  A direct read that btrfs
 * declines goes in without IOCB_DIRECT: the kernel's direct path would
 * write back and wait on dirty pages of the range before btrfs declines
 * (6.1's btrfs declines first, then reads the cache).
 */
static ssize_t nw_buffered_read(struct kiocb *iocb, struct iov_iter *to)
{
	int direct = iocb->ki_flags & IOCB_DIRECT;
	ssize_t ret;

	iocb->ki_flags &= ~direct;
	ret = nw_orig_generic_file_read_iter(iocb, to);
	iocb->ki_flags |= direct;
	return ret;
}

/* A NOWAIT read that takes the filesystem's direct path */
static ssize_t nw_nowait_direct_read(struct kiocb *iocb, struct iov_iter *to,
				     size_t count)
{
	struct address_space *mapping = iocb->ki_filp->f_mapping;

	/*
	 * ext4 takes i_rwsem shared for direct reads; 4.14 slept there, 5.5
	 * tries it (b1b4705d54ab "ext4: introduce direct I/O read using iomap
	 * infrastructure").
	 */
	if (nw_check_on[NW_CHECK_LOCK] && nw_is_ext4(mapping->host) &&
	    !nw_inode_lock_free_shared(mapping->host))
		return nw_eagain(NW_CNT_EAGAIN_LOCK);
	/*
	 * 4.14's generic_file_read_iter(): cached pages first, even past EOF;
	 * with none in the range its writeback wait has nothing to wait for,
	 * and the direct path gives its own answers (EINVAL for a misaligned
	 * request, also past EOF).
	 */
	if (nw_check_on[NW_CHECK_PAGECACHE] &&
	    nw_range_has_page(mapping, iocb->ki_pos, iocb->ki_pos + count - 1))
		return nw_eagain(NW_CNT_EAGAIN_PAGECACHE);
	return nw_orig_generic_file_read_iter(iocb, to);
}

/* A NOWAIT buffered read: what is cached, from the start of the range */
static ssize_t nw_nowait_buffered_read(struct kiocb *iocb,
				       struct iov_iter *to, size_t count,
				       loff_t size)
{
	struct address_space *mapping = iocb->ki_filp->f_mapping;
	size_t cached;
	ssize_t ret;

	/*
	 * 6.1's filemap_read() stops at EOF before it looks at the page
	 * cache; 4.12's would add a page past EOF and read it in.
	 */
	if (iocb->ki_pos >= size)
		return 0;
	cached = nw_cached_prefix(mapping, iocb->ki_pos,
				  min_t(loff_t, count, size - iocb->ki_pos));
	if (!cached)
		return nw_eagain(NW_CNT_EAGAIN_PAGECACHE);
	if (cached < count)
		iov_iter_truncate(to, cached);
	ret = nw_buffered_read(iocb, to);
	if (cached < count)
		iov_iter_reexpand(to, iov_iter_count(to) + count - cached);
	return ret;
}

ssize_t nw_generic_file_read_iter(struct kiocb *iocb, struct iov_iter *to)
{
	size_t count = iov_iter_count(to);
	loff_t size;
	ssize_t ret;

	nw_enter();
	if (likely(!(iocb->ki_flags & NW_IOCB_NOWAIT)) || !count) {
		ret = nw_orig_generic_file_read_iter(iocb, to);
		goto out;
	}
	size = i_size_read(iocb->ki_filp->f_mapping->host);
	if (iocb->ki_pos < size && nw_inject_eagain()) {
		ret = nw_eagain(NW_CNT_EAGAIN_INJECTED);
		goto out;
	}
	if ((iocb->ki_flags & IOCB_DIRECT) && !nw_btrfs_dio_declined(iocb, to))
		ret = nw_nowait_direct_read(iocb, to, count);
	else
		ret = nw_nowait_buffered_read(iocb, to, count, size);
out:
	nw_exit();
	return ret;
}

/* 4.14's do_iter_readv_writev() with kiocb_set_rw_flags() */
static ssize_t nw_nowait_iter(struct file *file, struct iov_iter *iter,
			      loff_t *pos, int type, int flags)
{
	struct kiocb kiocb;
	ssize_t ret;

	if (flags & ~NW_RWF_SUPPORTED) {
		nw_count(NW_CNT_EOPNOTSUPP);
		return -EOPNOTSUPP;
	}
	if (!nw_file_nowait_capable(file)) {
		nw_count(NW_CNT_EOPNOTSUPP);
		return -EOPNOTSUPP;
	}
	init_sync_kiocb(&kiocb, file);
	nw_apply_rw_flags(&kiocb, flags);
	kiocb.ki_pos = *pos;
	if (type == READ)
		ret = file->f_op->read_iter(&kiocb, iter);
	else
		ret = file->f_op->write_iter(&kiocb, iter);
	*pos = kiocb.ki_pos;
	return ret;
}

/* 4.14's __do_readv_writev() for calls that carry RWF_NOWAIT */
static ssize_t nw_readv_writev_nowait(int type, struct file *file,
				      struct iov_iter *iter, loff_t *pos,
				      int flags)
{
	size_t tot_len = iov_iter_count(iter);
	ssize_t ret = 0;

	if (!tot_len)
		goto out;
	ret = nw_rw_verify_area(type, file, pos, tot_len);
	if (ret < 0)
		goto out;
	if (type != READ)
		file_start_write(file);
	if ((type == READ && file->f_op->read_iter) ||
	    (type == WRITE && file->f_op->write_iter)) {
		ret = nw_demand_get();
		if (!ret) {
			ret = nw_nowait_iter(file, iter, pos, type, flags);
			nw_demand_put();
		}
	} else {
		/* do_loop_readv_writev() takes no flag but RWF_HIPRI */
		nw_count(NW_CNT_EOPNOTSUPP);
		ret = -EOPNOTSUPP;
	}
	if (type != READ)
		file_end_write(file);
out:
	if ((ret + (type == READ)) > 0) {
		if (type == READ)
			fsnotify_access(file);
		else
			fsnotify_modify(file);
	}
	return ret;
}

ssize_t nw_do_readv_writev(int type, struct file *file, struct iov_iter *iter,
			   loff_t *pos, int flags)
{
	ssize_t ret;

	nw_enter();
	if (likely(!(flags & RWF_NOWAIT)) || !READ_ONCE(nw_enabled))
		ret = nw_orig_do_readv_writev(type, file, iter, pos, flags);
	else
		ret = nw_readv_writev_nowait(type, file, iter, pos, flags);
	nw_exit();
	return ret;
}

/*
 * Before 4.10 the kernel's do_iter_readv_writev(), shared by the native and
 * compat entries, builds the kiocb from the flags and calls the file's
 * read_iter/write_iter (@fn): 4.14's kiocb_set_rw_flags() rules go here.
 */
ssize_t nw_do_iter_readv_writev(struct file *file, struct iov_iter *iter,
				loff_t *pos, nw_iter_fn fn, int flags)
{
	struct kiocb kiocb;
	ssize_t ret;

	nw_enter();
	if (likely(!(flags & RWF_NOWAIT)) || !READ_ONCE(nw_enabled)) {
		ret = nw_orig_do_iter_readv_writev(file, iter, pos, fn, flags);
		goto out;
	}
	if ((flags & ~NW_RWF_SUPPORTED) || !nw_file_nowait_capable(file)) {
		nw_count(NW_CNT_EOPNOTSUPP);
		ret = -EOPNOTSUPP;
		goto out;
	}
	ret = nw_demand_get();
	if (ret)
		goto out;
	init_sync_kiocb(&kiocb, file);
	nw_apply_rw_flags(&kiocb, flags);
	kiocb.ki_pos = *pos;
	ret = fn(&kiocb, iter);
	*pos = kiocb.ki_pos;
	nw_demand_put();
out:
	nw_exit();
	return ret;
}
