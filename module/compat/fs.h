/* SPDX-License-Identifier: GPL-2.0 */
/*
 * compat/fs.h - inode locks, the page cache, and the filesystems' private
 * structures and version limits.
 */
#ifndef NOWAIT_AIO_COMPAT_FS_H
#define NOWAIT_AIO_COMPAT_FS_H

#include <linux/buffer_head.h>
#include <linux/fs.h>
#include <linux/pagevec.h>
#include <linux/version.h>

#include "nowait.h"

/*
 * Is the inode lock free right now?  Taken and dropped at once.  It is
 * i_rwsem from 4.7; before that the i_mutex, which a shared taker (XFS's
 * direct I/O, ext4's direct reads) would find held exactly when an
 * exclusive one would.
 */
#if LINUX_VERSION_CODE >= KERNEL_VERSION(4, 7, 0)
static inline bool nw_inode_lock_free_excl(struct inode *inode)
{
	if (!down_write_trylock(&inode->i_rwsem))
		return false;
	up_write(&inode->i_rwsem);
	return true;
}

static inline bool nw_inode_lock_free_shared(struct inode *inode)
{
	if (!down_read_trylock(&inode->i_rwsem))
		return false;
	up_read(&inode->i_rwsem);
	return true;
}
#else
static inline bool nw_inode_lock_free_excl(struct inode *inode)
{
	if (!inode_trylock(inode))
		return false;
	inode_unlock(inode);
	return true;
}

static inline bool nw_inode_lock_free_shared(struct inode *inode)
{
	return nw_inode_lock_free_excl(inode);
}
#endif

/* pagevec_init() lost its "cold" argument in 4.15 */
#if LINUX_VERSION_CODE >= KERNEL_VERSION(4, 15, 0)
#define nw_pagevec_init(pvec) pagevec_init(pvec)
#else
#define nw_pagevec_init(pvec) pagevec_init(pvec, 0)
#endif

/*
 * The first page cached at or after @start into @pvec, through the
 * exported pagevec_lookup() (find_get_pages() is not exported before
 * 4.15); pagevec_lookup_range() from 4.14.
 */
static inline bool nw_pagevec_lookup_from(struct pagevec *pvec,
					  struct address_space *mapping,
					  pgoff_t start)
{
#if LINUX_VERSION_CODE >= KERNEL_VERSION(4, 14, 0)
	return pagevec_lookup_range(pvec, mapping, &start, (pgoff_t)-1) > 0;
#else
	return pagevec_lookup(pvec, mapping, start, 1) > 0;
#endif
}

/*
 * btrfs's fiemap marks an extent FIEMAP_EXTENT_SHARED by walking the
 * committed tree before 4.9 (btrfs_check_shared() without a transaction,
 * as in 4.4.220; 4.9.337 joins the running one).  A reflink made since the
 * last commit is invisible there, so the module cannot tell a write that
 * must COW from one in place, and does not offer NOWAIT on btrfs.
 */
#define NW_BTRFS_FIEMAP_SEES_SHARED \
	(LINUX_VERSION_CODE >= KERNEL_VERSION(4, 9, 0))

/*
 * btrfs's range writeback (extent_write_cache_pages()) locks the first
 * page tagged for it at or after the range's start before it tests
 * whether that page lies past the range's end, until 4.15's
 * pagevec_lookup_range_tag() (RHEL 7's 3.10 alike).
 */
#define NW_BTRFS_WB_LOCKS_PAST_END \
	(LINUX_VERSION_CODE < KERNEL_VERSION(4, 15, 0))

/*
 * ext4's block-map request (fs/ext4/ext4.h, private), the same from 3.x to
 * 6.x: what ext4_map_blocks() takes and fills in.
 */
struct nw_ext4_map_blocks {
	u64 m_pblk;
	u32 m_lblk;
	unsigned int m_len;
	unsigned int m_flags;
};

#define NW_EXT4_MAP_MAPPED	(1 << BH_Mapped)

/*
 * A filesystem's own extent map through its iomap_ops (4.8+), asked as its
 * fiemap asks it (IOMAP_REPORT: no allocation, no COW reservation), minus
 * fiemap's copying: one mapping from @pos on.  0 or -errno.
 */
struct nw_map {
	loff_t offset;
	u64 length;
	bool written, unwritten, shared;
};

/* iomap arrived in 4.8; RHEL 7 has a backport (7.9: XFS's, ext4's DAX) */
#if LINUX_VERSION_CODE >= KERNEL_VERSION(4, 8, 0) || NW_RHEL7
#include <linux/iomap.h>

static inline void nw_map_from_iomap(struct nw_map *m,
				     const struct iomap *im)
{
	m->offset = im->offset;
	m->length = im->length;
	m->written = im->type == IOMAP_MAPPED;
	m->unwritten = im->type == IOMAP_UNWRITTEN;
	m->shared = im->flags & IOMAP_F_SHARED;
}

static inline int nw_iomap_report(const void *iomap_ops, struct inode *inode,
				  loff_t pos, loff_t len, struct nw_map *m)
{
	const struct iomap_ops *ops = iomap_ops;
	struct iomap im = { 0 };
	int err;

	err = ops->iomap_begin(inode, pos, len, IOMAP_REPORT, &im);
	if (err)
		return err;
	if (ops->iomap_end)
		ops->iomap_end(inode, pos, len, len, IOMAP_REPORT, &im);
	nw_map_from_iomap(m, &im);
	return 0;
}
#else
static inline int nw_iomap_report(const void *iomap_ops, struct inode *inode,
				  loff_t pos, loff_t len, struct nw_map *m)
{
	return -EOPNOTSUPP;	/* no iomap: never resolved, or never used */
}
#endif

#endif /* NOWAIT_AIO_COMPAT_FS_H */
