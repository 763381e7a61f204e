/* SPDX-License-Identifier: GPL-2.0 */
/*
 * write.h - the NOWAIT write path that the filesystem and block-device
 * parts share (write.c).  Each of them describes itself in a struct
 * nw_fs_ops; the common path asks it in upstream's order.
 */
#ifndef NOWAIT_AIO_WRITE_H
#define NOWAIT_AIO_WRITE_H

#include <linux/fs.h>
#include <linux/uio.h>

#include "compat.h"

/* One NOWAIT write being checked. */
struct nw_write {
	struct kiocb *iocb;
	struct iov_iter *from;
	struct inode *inode;
	struct request_queue *q;	/* the device's queue, or NULL */
	size_t count;
	loff_t pos, size;		/* set once the lock test passed */
	bool unaligned;			/* XFS: not aligned to its block */
};

/* A check's answer: go on (0), stop and let the filesystem run, -errno */
#define NW_LET_FS 1

struct nw_fs_ops {
	/* a buffered NOWAIT write it answers itself before EOPNOTSUPP */
	bool (*buffered_first)(struct nw_write *w);
	/* the device queue, when not its superblock's (block devices) */
	struct request_queue *(*queue)(struct nw_write *w);
	/* the direct write's checks, when not the filesystems' sequence */
	int (*direct)(struct nw_write *w);
	/* its own answers before the locks */
	int (*before_lock)(struct nw_write *w);
	/* its lock test: 0 or -EAGAIN */
	int (*lock)(struct nw_write *w);
	/* its answers for a write the device cannot take as it is */
	int (*misaligned)(struct nw_write *w);
	/* can it write in place, without allocating or COW? */
	bool (*in_place)(struct nw_write *w);
};

/* The lock test of ext4 and btrfs: the inode lock free, exclusive. */
int nw_write_lock_excl(struct nw_write *w);

/* Call a file's read or write original @fn with the bytes of @it. */
#if NW_IOVEC_FOPS
ssize_t nw_rw_call_nomem(nw_rw_fn fn, struct kiocb *iocb, struct iov_iter *it,
			 ssize_t nomem);
#else
/* From 3.16 @fn takes the iov_iter itself. */
static inline ssize_t nw_rw_call_nomem(nw_rw_fn fn, struct kiocb *iocb,
				       struct iov_iter *it, ssize_t nomem)
{
	return fn(iocb, it);
}
#endif

static inline ssize_t nw_rw_call(nw_rw_fn fn, struct kiocb *iocb,
				 struct iov_iter *it)
{
	return nw_rw_call_nomem(fn, iocb, it, -ENOMEM);
}

/* The write_iter wrapper of each part: checks, then @orig. */
ssize_t nw_write_iter(struct kiocb *iocb, struct iov_iter *from,
		      const struct nw_fs_ops *ops, nw_rw_fn orig);

/* Through the filesystem's fiemap: is [pos, pos + len) allocated? */
bool nw_range_in_place(struct inode *inode, loff_t pos, size_t len,
		       bool written_ok, bool unwritten_ok);
#define NW_FIEMAP_EXTENTS 16
/* Where its first compressed or inline extent lies, or -1 */
loff_t nw_range_first_encoded(struct inode *inode, loff_t pos, size_t len);

#endif /* NOWAIT_AIO_WRITE_H */
