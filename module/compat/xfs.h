/* SPDX-License-Identifier: GPL-2.0 */
/*
 * compat/xfs.h - XFS's own IOLOCK before 4.10, and its whole-file flush
 * before 4.9.
 */
#ifndef NOWAIT_AIO_COMPAT_XFS_H
#define NOWAIT_AIO_COMPAT_XFS_H

#include <linux/fs.h>
#include <linux/slab.h>
#include <linux/uaccess.h>
#include <linux/version.h>

#include "nowait.h"

/*
 * XFS's IOLOCK is the VFS inode's i_rwsem from 4.10 (65523218fc90, "xfs:
 * remove i_iolock and use i_rwsem in the VFS inode instead").  Before that,
 * and on RHEL 7, it is XFS's own i_iolock in struct xfs_inode: an aligned
 * direct write or a direct read takes it shared, and a hole punch
 * (xfs_file_fallocate) exclusive, neither with the VFS inode lock.  The
 * module tries it with XFS's own xfs_ilock_nowait() and drops it with
 * xfs_iunlock(), whose flags (fs/xfs/xfs_inode.h) are the same from 3.10
 * to 4.9.
 */
#define NW_XFS_OWN_IOLOCK (LINUX_VERSION_CODE < KERNEL_VERSION(4, 10, 0))
#define NW_XFS_IOLOCK_EXCL	(1 << 0)
#define NW_XFS_IOLOCK_SHARED	(1 << 1)

/*
 * Before 4.9, an XFS direct read or write of a file with any page cached
 * takes the IOLOCK exclusive, then writes back and drops the cache of the
 * whole file, not the range's (4.4.220: xfs_file_read_iter() and
 * xfs_file_dio_aio_write(); 4.9.337 and RHEL 7.9 flush the range).
 */
#define NW_XFS_DIO_FLUSHES_FILE \
	(LINUX_VERSION_CODE < KERNEL_VERSION(4, 9, 0) && !NW_RHEL7)

/*
 * The start of struct xfs_inode from 3.10 to 4.9: i_mount, three dquot
 * pointers (two before 3.12: then i_ino is where the third is), i_ino.
 */
struct nw_xfs_inode_head {
	void *i_mount;
	void *dquot[3];
	u64 i_ino;
};

#if NW_XFS_OWN_IOLOCK
/*
 * struct xfs_inode ends with the VFS inode (i_vnode, the last member from
 * 3.10 to 4.9), and its slab cache, xfs_inode_zone, is sized for it: so
 * i_vnode is at the cache's object size less struct inode's.
 */
static inline long nw_xfs_vnode_offset(struct kmem_cache *xfs_inode_zone)
{
	unsigned int size;

	size = xfs_inode_zone ? kmem_cache_size(xfs_inode_zone) : 0;
	if (size <= sizeof(struct inode) ||
	    size - sizeof(struct inode) > 4096)
		return 0;
	return size - sizeof(struct inode);
}

#else
static inline long nw_xfs_vnode_offset(struct kmem_cache *xfs_inode_zone)
{
	return 0;
}
#endif

#endif /* NOWAIT_AIO_COMPAT_XFS_H */
