// SPDX-License-Identifier: GPL-2.0
/*
 * btrfs: its NOWAIT write rules (4.14.67's btrfs_file_write_iter(), with
 * 5.8's fixes), and its hooks.
 *  - the inode lock (i_rwsem, exclusive) only tried;
 *  - in place only: NODATACOW or preallocated extents, not shared, over the
 *    whole range (260a63395f90), preallocation past EOF too (4b1946284dd6);
 *  - a direct write it cannot align to its sector size refused: btrfs would
 *    turn it into a buffered one, which ignores NOWAIT before 6.1.
 */
#include <linux/fiemap.h>
#include <linux/fs.h>
#include <linux/uio.h>

#include "rules.h"
#include "hook.h"
#include "write.h"
#include "parts.h"

static nw_rw_fn nw_orig_btrfs_file_write;

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

static int (*nw_btrfs_can_nocow_extent)(struct inode *inode, u64 offset,
					u64 *len, u64 *orig_start,
					u64 *orig_block_len, u64 *ram_bytes);

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

static bool nw_btrfs_in_place(struct nw_write *w)
{
	struct file *file = w->iocb->ki_filp;
	struct inode *inode = w->inode;
	loff_t pos = w->pos;
	size_t len = w->count;
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
 * btrfs turns a direct write it cannot align to its sector size into a
 * buffered one (check_direct_IO()), which does not honour NOWAIT before
 * 6.1: refuse it, nothing written.  (4.14 let it through.)
 */
static int nw_btrfs_misaligned(struct nw_write *w)
{
	if (nw_check_on[NW_CHECK_ALLOC] &&
	    ((w->pos | iov_iter_alignment(w->from)) &
	     (i_blocksize(w->inode) - 1)))
		return nw_eagain(NW_CNT_EAGAIN_ALLOC);
	return 0;
}

static const struct nw_fs_ops nw_btrfs_ops = {
	.lock = nw_write_lock_excl,
	.misaligned = nw_btrfs_misaligned,
	.in_place = nw_btrfs_in_place,
};

static ssize_t nw_btrfs_file_write_iter(struct kiocb *iocb,
					struct iov_iter *from)
{
	return nw_write_iter(iocb, from, &nw_btrfs_ops,
			     nw_orig_btrfs_file_write);
}
NW_RW_HOOK(nw_btrfs_file_write_iter_hook, nw_btrfs_file_write_iter)

enum { NW_BTRFS_CAN_NOCOW, NW_BTRFS_WRITE };

static struct nw_hook nw_btrfs_hooks[] = {
	[NW_BTRFS_CAN_NOCOW] =
	NW_SYMBOL("can_nocow_extent", nw_btrfs_can_nocow_extent,
		  NW_OPTIONAL, "btrfs in-place test, as 4.14 (else fiemap)"),
	[NW_BTRFS_WRITE] =
	NW_HOOK(NW_FOP_SYM("btrfs_file_write_iter", "btrfs_file_aio_write"),
		nw_btrfs_file_write_iter_hook, nw_orig_btrfs_file_write,
		NW_FS, "btrfs NOWAIT writes"),
};

/*
 * Can the module tell an in-place btrfs write from one that must COW?
 * can_nocow_extent() sees reflinks made since the last commit (its
 * cross-reference test reads the delayed references); fiemap does only
 * from 4.9.
 */
static bool nw_btrfs_offered(void)
{
	return NW_BTRFS_FIEMAP_SEES_SHARED ||
	       READ_ONCE(nw_btrfs_can_nocow_extent);
}

static const char *nw_btrfs_off_why(void)
{
	if (nw_btrfs_offered())
		return NULL;
	return "no can_nocow_extent; fiemap before 4.9 misses recent reflinks";
}

static void nw_btrfs_setup(void)
{
	static unsigned long said;
	struct nw_hook *wi = &nw_btrfs_hooks[NW_BTRFS_WRITE];
	unsigned long addr = nw_hook_ready(wi) ? wi->addr : 0;

	nw_fs_set(NW_FS_BTRFS, addr, nw_btrfs_offered());
	/* dmesg, once each time its hooks attach: why NOWAIT is not offered */
	if (addr && addr != said && !nw_btrfs_offered())
		pr_info("btrfs: RWF_NOWAIT not offered (EOPNOTSUPP): btrfs's can_nocow_extent not found, and its fiemap before 4.9 cannot see extents shared since the last commit\n");
	said = addr;
}

const struct nw_part nw_btrfs_part = {
	.owner = "btrfs",
	NW_PART_HOOKS(nw_btrfs_hooks),
	.setup = nw_btrfs_setup,
	.off_why = nw_btrfs_off_why,
};
