// SPDX-License-Identifier: GPL-2.0
/*
 * XFS: its NOWAIT rules (4.14.67's xfs_file_write_iter() and
 * xfs_file_read_iter(), with the later upstream fixes), and its hooks.
 *  - its own answers first: an empty write is 0 (even buffered); a direct
 *    write the device cannot take is EINVAL; an unaligned direct write to
 *    a reflinked file falls back to a buffered one, which refuses NOWAIT;
 *  - the IOLOCK (i_rwsem: shared for aligned DIO, exclusive for unaligned
 *    DIO, which also waits for all DIO in flight) only tried; reads too;
 *  - allocated blocks only (unwritten allowed), no COW, no EOF zeroing
 *    (354be7e3b2ba, 5.12), the whole range (883a790a8440, 5.10);
 *  - direct reads over cached pages refused (iomap_dio_rw()).
 * Extents are read from XFS's own map as its fiemap reads them (its
 * iomap_begin, 4.8+), or through fiemap.
 */
#include <linux/blkdev.h>
#include <linux/fiemap.h>
#include <linux/fs.h>
#include <linux/slab.h>
#include <linux/uio.h>

#include "rules.h"
#include "hook.h"
#include "write.h"
#include "parts.h"

static nw_rw_fn nw_orig_xfs_file_write;
static nw_rw_fn nw_orig_xfs_file_read;
static const void *nw_xfs_iomap_ops;

/* XFS's own IOLOCK before 4.10 (compat/xfs.h) */
static int (*nw_xfs_ilock_nowait)(void *ip, unsigned int lock_flags);
static void (*nw_xfs_iunlock)(void *ip, unsigned int lock_flags);
static struct kmem_cache **nw_xfs_inode_zone;
static long nw_xfs_vnode_at;	/* where struct xfs_inode has i_vnode */
static bool nw_xfs_layout_bad;	/* an inode was not where it was looked for */

static bool nw_xfs_iolock_usable(void)
{
	return !NW_XFS_OWN_IOLOCK ||
	       (READ_ONCE(nw_xfs_vnode_at) && nw_xfs_ilock_nowait &&
		nw_xfs_iunlock && !READ_ONCE(nw_xfs_layout_bad));
}

/*
 * XFS's inode around @inode, if the head of the place where it should
 * start says it is one (struct nw_xfs_inode_head); read without faulting,
 * since a layout other than the one expected may put the start anywhere.
 * NULL when it does not.
 */
static void *nw_xfs_inode_at(struct inode *inode, long vnode_at)
{
	void *ip = (char *)inode - vnode_at;
	struct nw_xfs_inode_head head;

	if (!vnode_at || probe_kernel_read(&head, ip, sizeof(head)))
		return NULL;
	if (head.i_mount != inode->i_sb->s_fs_info)
		return NULL;
	if (head.i_ino != inode->i_ino && (u64)head.dquot[2] != inode->i_ino)
		return NULL;
	return ip;
}

/*
 * Is XFS's IOLOCK free right now?  Before 4.10 that is both the VFS inode
 * lock (buffered writers and unaligned DIO take it first) and XFS's own
 * i_iolock (a hole punch takes only that).  0, -EAGAIN, or -EOPNOTSUPP
 * when XFS's inode is not where the module looks for it.
 */
static int nw_xfs_iolock_try(struct inode *inode, bool excl)
{
	unsigned int mode = excl ? NW_XFS_IOLOCK_EXCL : NW_XFS_IOLOCK_SHARED;
	void *ip;

	if (!(excl ? nw_inode_lock_free_excl(inode) :
		     nw_inode_lock_free_shared(inode)))
		return nw_eagain(NW_CNT_EAGAIN_LOCK);
	if (!NW_XFS_OWN_IOLOCK)
		return 0;
	ip = nw_xfs_iolock_usable() ?
	     nw_xfs_inode_at(inode, READ_ONCE(nw_xfs_vnode_at)) : NULL;
	if (!ip) {
		if (!xchg(&nw_xfs_layout_bad, true))
			pr_warn("xfs: struct xfs_inode is not as this module expects (i_vnode at %ld): RWF_NOWAIT off on XFS (EOPNOTSUPP)\n",
				nw_xfs_vnode_at);
		return nw_unsupported();
	}
	if (!nw_xfs_ilock_nowait(ip, mode))
		return nw_eagain(NW_CNT_EAGAIN_LOCK);
	nw_xfs_iunlock(ip, mode);
	return 0;
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

/* Would XFS write back and drop the whole file's cache (before 4.9)? */
static bool nw_xfs_flushes_file(struct inode *inode)
{
	return NW_XFS_DIO_FLUSHES_FILE && nw_check_on[NW_CHECK_PAGECACHE] &&
	       inode->i_mapping->nrpages;
}

static bool nw_xfs_buffered_first(struct nw_write *w)
{
	return !w->count;
}

/* XFS's own first answers, before its locks (4.14) */
static int nw_xfs_before_lock(struct nw_write *w)
{
	loff_t pos = w->iocb->ki_pos;
	int shared;

	w->unaligned = (pos | w->count) & (i_blocksize(w->inode) - 1);
	if (w->q && ((pos | w->count) & (queue_logical_block_size(w->q) - 1)))
		return NW_LET_FS;	/* XFS says EINVAL */
	/*
	 * Unaligned DIO to a reflinked file falls back to a buffered write,
	 * which refuses NOWAIT (xfs_file_dio_aio_write's -EREMCHG, then
	 * xfs_file_buffered_aio_write).
	 */
	shared = w->unaligned ? nw_inode_has_shared(w->inode) : 0;
	if (shared < 0)
		return nw_eagain(NW_CNT_EAGAIN_ALLOC);
	if (shared)
		return nw_unsupported();
	/* 4.4: any cached page of the file makes XFS flush all of them */
	if (nw_xfs_flushes_file(w->inode))
		return nw_eagain(NW_CNT_EAGAIN_PAGECACHE);
	return 0;
}

static int nw_xfs_lock(struct nw_write *w)
{
	int ret = nw_xfs_iolock_try(w->inode, w->unaligned);

	if (ret || !w->unaligned)
		return ret;
	/* unaligned DIO waits for all DIO in flight (4.13) */
	if (atomic_read(&w->inode->i_dio_count))
		return nw_eagain(NW_CNT_EAGAIN_LOCK);
	return 0;
}

/*
 * Is [pos, pos + len) allocated, written or unwritten, and not shared, in
 * at most 16 mappings?  What fiemap would say, without its copying.
 */
#define NW_XFS_MAPS 16

static bool nw_xfs_range_in_place(struct inode *inode, loff_t pos, size_t len)
{
	loff_t cur = pos, end = pos + len;
	struct nw_map m;
	int i;

	if (!nw_xfs_iomap_ops)
		return nw_range_in_place(inode, pos, len, true, true);
	for (i = 0; i < NW_XFS_MAPS && cur < end; i++) {
		if (nw_iomap_report(nw_xfs_iomap_ops, inode, cur, end - cur,
				    &m))
			return false;
		if (m.offset > cur || !m.length || m.shared ||
		    !(m.written || m.unwritten))
			return false;
		cur = m.offset + m.length;
	}
	return cur >= end;
}

/*
 * A direct write from a buffer the device cannot take as it is: XFS's
 * iomap DIO says EINVAL, unless its NOWAIT tests refuse first: pages of
 * the range in the page cache (iomap_dio_rw(), before any mapping), or a
 * first block that needs allocation.
 */
static int nw_xfs_misaligned(struct nw_write *w)
{
	unsigned int bs = i_blocksize(w->inode);
	size_t first;

	if (!w->q || w->pos > w->size ||
	    !(iov_iter_alignment(w->from) &
	      (queue_logical_block_size(w->q) - 1)))
		return 0;
	if (nw_check_on[NW_CHECK_PAGECACHE] &&
	    nw_range_has_page(w->iocb->ki_filp->f_mapping, w->pos,
			      w->pos + w->count - 1))
		return nw_eagain(NW_CNT_EAGAIN_PAGECACHE);
	first = min_t(size_t, w->count, bs - (w->pos & (bs - 1)));
	if (!nw_check_on[NW_CHECK_ALLOC] ||
	    nw_xfs_range_in_place(w->inode, w->pos, first))
		return -EINVAL;
	return nw_eagain(NW_CNT_EAGAIN_ALLOC);
}

/*
 * xfs_file_iomap_begin(): no allocation, no COW; and no EOF zeroing
 * (354be7e3b2ba, 5.12); the whole range allocated, so no partial write
 * (883a790a8440, 5.10).
 */
static bool nw_xfs_in_place(struct nw_write *w)
{
	return w->pos <= w->size &&
	       nw_xfs_range_in_place(w->inode, w->pos, w->count);
}

static const struct nw_fs_ops nw_xfs_ops = {
	.buffered_first = nw_xfs_buffered_first,
	.before_lock = nw_xfs_before_lock,
	.lock = nw_xfs_lock,
	.misaligned = nw_xfs_misaligned,
	.in_place = nw_xfs_in_place,
};

static ssize_t nw_xfs_file_write_iter(struct kiocb *iocb,
				      struct iov_iter *from)
{
	return nw_write_iter(iocb, from, &nw_xfs_ops,
			     nw_orig_xfs_file_write);
}
NW_RW_HOOK(nw_xfs_file_write_iter_hook, nw_xfs_file_write_iter)

/* A NOWAIT read's answer before XFS's: 0 to let it run, or -EAGAIN */
static int nw_xfs_read_checks(struct kiocb *iocb, size_t count)
{
	struct inode *inode = file_inode(iocb->ki_filp);
	int ret;

	/* XFS takes its IOLOCK for every read; 4.13 tries it */
	if (nw_check_on[NW_CHECK_LOCK]) {
		ret = nw_xfs_iolock_try(inode, false);
		if (ret)
			return ret;
	}
	if ((nw_req_flags(iocb) & IOCB_DIRECT) && nw_xfs_flushes_file(inode))
		return nw_eagain(NW_CNT_EAGAIN_PAGECACHE);
	/*
	 * XFS direct reads do not go through generic_file_read_iter
	 * (iomap), so the page-cache rule is here; iomap_dio_rw() answers 0
	 * past EOF before its page-cache test.
	 */
	if ((nw_req_flags(iocb) & IOCB_DIRECT) &&
	    nw_check_on[NW_CHECK_PAGECACHE] &&
	    iocb->ki_pos < i_size_read(inode) &&
	    nw_range_has_page(inode->i_mapping, iocb->ki_pos,
			      iocb->ki_pos + count - 1))
		return nw_eagain(NW_CNT_EAGAIN_PAGECACHE);
	return 0;
}

static ssize_t nw_xfs_file_read_iter(struct kiocb *iocb, struct iov_iter *to)
{
	size_t count = iov_iter_count(to);
	ssize_t ret = 0;

	nw_enter();
	if (unlikely(nw_req_flags(iocb) & NW_IOCB_NOWAIT) && count)
		ret = nw_xfs_read_checks(iocb, count);
	if (!ret)
		ret = nw_rw_call(nw_orig_xfs_file_read, iocb, to);
	else
		ret = nw_read_refusal(iocb, ret);
	nw_exit();
	return ret;
}
NW_RW_HOOK(nw_xfs_file_read_iter_hook, nw_xfs_file_read_iter)

enum {
	NW_XFS_IOMAP_OPS, NW_XFS_WRITE, NW_XFS_READ,
	NW_XFS_ILOCK_NOWAIT, NW_XFS_IUNLOCK, NW_XFS_INODE_ZONE,
};

#define NW_XFS_IOLOCK_WHY "XFS's own IOLOCK (before 4.10)"

static struct nw_hook nw_xfs_hooks[] = {
	[NW_XFS_IOMAP_OPS] =
		NW_SYMBOL("xfs_iomap_ops", nw_xfs_iomap_ops, NW_OPTIONAL,
			  "XFS in-place test by its own map (4.8+)"),
	[NW_XFS_WRITE] =
		NW_HOOK(NW_FOP_SYM("xfs_file_write_iter",
				   "xfs_file_aio_write"),
			nw_xfs_file_write_iter_hook, nw_orig_xfs_file_write,
			NW_FS, "XFS NOWAIT writes"),
	[NW_XFS_READ] =
		NW_HOOK(NW_FOP_SYM("xfs_file_read_iter", "xfs_file_aio_read"),
			nw_xfs_file_read_iter_hook, nw_orig_xfs_file_read,
			NW_FS, "XFS NOWAIT reads"),
#if NW_XFS_OWN_IOLOCK
	[NW_XFS_ILOCK_NOWAIT] =
		NW_SYMBOL("xfs_ilock_nowait", nw_xfs_ilock_nowait,
			  NW_FS, NW_XFS_IOLOCK_WHY),
	[NW_XFS_IUNLOCK] =
		NW_SYMBOL("xfs_iunlock", nw_xfs_iunlock, NW_FS,
			  NW_XFS_IOLOCK_WHY),
	[NW_XFS_INODE_ZONE] =
		NW_SYMBOL("xfs_inode_zone", nw_xfs_inode_zone, NW_FS,
			  NW_XFS_IOLOCK_WHY),
#endif
};

static const char *nw_xfs_off_why(void)
{
	if (nw_xfs_iolock_usable())
		return NULL;
	if (!READ_ONCE(nw_xfs_layout_bad) && nw_xfs_ilock_nowait &&
	    nw_xfs_iunlock && nw_xfs_inode_zone)
		return "xfs_inode_zone gives no size to find i_vnode by";
	return "struct xfs_inode not as expected: no IOLOCK test";
}

/* XFS reads take its IOLOCK: the read hook is needed as well */
static void nw_xfs_setup(void)
{
	struct nw_hook *wi = &nw_xfs_hooks[NW_XFS_WRITE];
	bool ready = nw_hook_ready(wi) &&
		     nw_hook_ready(&nw_xfs_hooks[NW_XFS_READ]);
	struct kmem_cache *zone = NULL;

	if (nw_xfs_inode_zone)
		zone = READ_ONCE(*nw_xfs_inode_zone);
	WRITE_ONCE(nw_xfs_vnode_at, nw_xfs_vnode_offset(zone));
	/* missing symbols said so already (NW_FS); a bad cache, here */
	if (ready && nw_xfs_inode_zone && !nw_xfs_iolock_usable())
		pr_warn("xfs: RWF_NOWAIT not offered (EOPNOTSUPP): %s\n",
			nw_xfs_off_why());
	nw_fs_set(NW_FS_XFS, ready ? wi->addr : 0, nw_xfs_iolock_usable());
}

const struct nw_part nw_xfs_part = {
	.owner = "xfs",
	NW_PART_HOOKS(nw_xfs_hooks),
	.setup = nw_xfs_setup,
	.off_why = nw_xfs_off_why,
};
