// SPDX-License-Identifier: GPL-2.0
/*
 * NOWAIT reads through generic_file_read_iter() (ext4, btrfs and block
 * devices; XFS has its own, xfs.c), as 4.14 reads them: a NOWAIT direct
 * read refuses when the page cache holds pages of the range; a NOWAIT
 * buffered read returns what is cached from the start of the range and
 * EAGAIN when nothing is (91f9943e1c7b), never 0 before EOF, and 0 at or
 * past EOF without touching the page cache (6.1); a NOWAIT direct read of
 * btrfs's compressed or inline extents is refused, as 4.14 and 6.1 do.
 */
#include <linux/fs.h>
#include <linux/pagemap.h>
#include <linux/uio.h>

#include "rules.h"
#include "hook.h"
#include "write.h"
#include "parts.h"

static nw_rw_fn nw_orig_generic_read;
#if NW_IOVEC_FOPS
static nw_rw_fn nw_orig_generic_read2;
#endif

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

	if (nw_fs_of(inode) != NW_FS_BTRFS)
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
static ssize_t nw_buffered_read(struct kiocb *iocb, struct iov_iter *to,
				nw_rw_fn orig)
{
	struct address_space *mapping = iocb->ki_filp->f_mapping;
	int direct = nw_req_flags(iocb) & IOCB_DIRECT;
	ssize_t ret;

	/*
	 * Where O_DIRECT is the file's alone (3.10), the kernel writes the
	 * range back before btrfs declines: a file with dirty pages is
	 * refused, as 4.14 refuses a direct read over cached pages.
	 */
	if (direct && !NW_DIRECT_PER_REQUEST &&
	    (mapping_tagged(mapping, PAGECACHE_TAG_DIRTY) ||
	     mapping_tagged(mapping, PAGECACHE_TAG_WRITEBACK)))
		return nw_eagain(NW_CNT_EAGAIN_PAGECACHE);
	nw_req_flags_clear(iocb, direct);
	ret = nw_rw_call_nomem(orig, iocb, to, -EAGAIN);
	nw_req_flags_set(iocb, direct);
	return ret;
}

/* A NOWAIT read that takes the filesystem's direct path */
static ssize_t nw_nowait_direct_read(struct kiocb *iocb, struct iov_iter *to,
				     size_t count, nw_rw_fn orig)
{
	struct address_space *mapping = iocb->ki_filp->f_mapping;

	/*
	 * ext4 takes i_rwsem shared for direct reads; 4.14 slept there, 5.5
	 * tries it (b1b4705d54ab "ext4: introduce direct I/O read using iomap
	 * infrastructure").
	 */
	if (nw_check_on[NW_CHECK_LOCK] &&
	    nw_fs_of(mapping->host) == NW_FS_EXT4 &&
	    !nw_inode_lock_free_shared(mapping->host))
		return nw_eagain(NW_CNT_EAGAIN_LOCK);
	/*
	 * 4.14's generic_file_read_iter(): cached pages first, even past EOF;
	 * with none in the range its writeback wait has nothing to wait for,
	 * and the direct path gives its own answers (EINVAL for a misaligned
	 * request, also past EOF).
	 */
	if (nw_check_on[NW_CHECK_PAGECACHE] &&
	    nw_direct_would_wait(mapping, iocb->ki_pos,
				 iocb->ki_pos + count - 1))
		return nw_eagain(NW_CNT_EAGAIN_PAGECACHE);
	return nw_rw_call(orig, iocb, to);
}

/* A NOWAIT buffered read: what is cached, from the start of the range */
static ssize_t nw_nowait_buffered_read(struct kiocb *iocb,
				       struct iov_iter *to, size_t count,
				       loff_t size, nw_rw_fn orig)
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
	ret = nw_buffered_read(iocb, to, orig);
	if (cached < count)
		iov_iter_reexpand(to, iov_iter_count(to) + count - cached);
	return ret;
}

/*
 * btrfs reads compressed and inline extents through the page cache, even
 * for a direct read: the kernel's generic_file_read_iter() takes the
 * direct read up to the first of them and its buffered path for the rest
 * (4.14 honours NOWAIT there; 4.12 reads from the disk and waits).  4.14
 * and 6.1 both refuse such a NOWAIT read with EAGAIN when the range has
 * pages in the page cache (found before btrfs falls back), and the
 * buffered part would wait for the disk when it has none: the module
 * refuses one that starts on such an extent, and cuts one that reaches
 * one before it (4.14's buffered part would find nothing cached there).
 */
static ssize_t nw_btrfs_direct_read(struct kiocb *iocb, struct iov_iter *to,
				    size_t count, loff_t size, nw_rw_fn orig)
{
	struct inode *inode = file_inode(iocb->ki_filp);
	loff_t pos = iocb->ki_pos, enc = -1;
	ssize_t ret;

	if (nw_fs_of(inode) == NW_FS_BTRFS && pos < size)
		enc = nw_range_first_encoded(inode, pos,
					     min_t(loff_t, count, size - pos));
	if (enc < 0)
		return nw_nowait_direct_read(iocb, to, count, orig);
	if (enc == pos || (nw_check_on[NW_CHECK_PAGECACHE] &&
			   nw_range_has_page(inode->i_mapping, pos,
					     pos + count - 1)))
		return nw_eagain(NW_CNT_EAGAIN_PAGECACHE);
	iov_iter_truncate(to, enc - pos);
	ret = nw_nowait_direct_read(iocb, to, enc - pos, orig);
	iov_iter_reexpand(to, iov_iter_count(to) + count - (enc - pos));
	return ret;
}

static ssize_t nw_generic_read(struct kiocb *iocb, struct iov_iter *to,
			       nw_rw_fn orig)
{
	size_t count = iov_iter_count(to);
	int flags;
	loff_t size;
	ssize_t ret;

	nw_enter();
	flags = nw_req_flags(iocb);
	if (likely(!(flags & NW_IOCB_NOWAIT)) || !count) {
		ret = nw_rw_call(orig, iocb, to);
		goto out;
	}
	size = i_size_read(iocb->ki_filp->f_mapping->host);
	if (iocb->ki_pos < size && nw_inject_eagain())
		ret = nw_eagain(NW_CNT_EAGAIN_INJECTED);
	else if ((flags & IOCB_DIRECT) && !nw_btrfs_dio_declined(iocb, to))
		ret = nw_btrfs_direct_read(iocb, to, count, size, orig);
	else
		ret = nw_nowait_buffered_read(iocb, to, count, size, orig);
	ret = nw_read_refusal(iocb, ret);
out:
	nw_exit();
	return ret;
}

static ssize_t nw_generic_read_iter(struct kiocb *iocb, struct iov_iter *to)
{
	return nw_generic_read(iocb, to, nw_orig_generic_read);
}
NW_RW_HOOK(nw_generic_read_iter_hook, nw_generic_read_iter)

#if NW_IOVEC_FOPS
/* RHEL 7's ext4 reads through its own variant (DIO: EINVAL, 0 at EOF) */
static ssize_t nw_generic_read2_iter(struct kiocb *iocb, struct iov_iter *to)
{
	return nw_generic_read(iocb, to, nw_orig_generic_read2);
}
NW_RW_HOOK(nw_generic_read2_iter_hook, nw_generic_read2_iter)
#endif

static struct nw_hook nw_read_hooks[] = {
	NW_HOOK(NW_FOP_SYM("generic_file_read_iter", "generic_file_aio_read"),
		nw_generic_read_iter_hook, nw_orig_generic_read, NW_REQUIRED,
		"NOWAIT reads"),
#if NW_IOVEC_FOPS
	NW_HOOK("generic_file_aio_read2", nw_generic_read2_iter_hook,
		nw_orig_generic_read2, NW_REQUIRED,
		"NOWAIT reads of RHEL 7's ext4"),
#endif
};

const struct nw_part nw_read_part = {
	NW_PART_HOOKS(nw_read_hooks),
};
