// SPDX-License-Identifier: GPL-2.0
/*
 * ext4 (also serving ext3): its NOWAIT write rules (4.14.67's
 * ext4_file_write_iter(), with 5.5's fix for unaligned AIO), and its hooks.
 *  - the inode lock (i_rwsem, exclusive) only tried;
 *  - an overwrite of written blocks inside i_size only (ext4_overwrite_io());
 *  - "unaligned AIO", which 4.14 let through to allocate, refused first.
 */
#include <linux/blkdev.h>
#include <linux/fs.h>
#include <linux/uio.h>

#include "rules.h"
#include "hook.h"
#include "write.h"
#include "parts.h"

static nw_rw_fn nw_orig_ext4_file_write;
static int (*nw_ext4_map_blocks)(void *handle, struct inode *inode,
				 struct nw_ext4_map_blocks *map, int flags);

/*
 * 4.14's ext4_overwrite_io(): inside i_size, and one lookup of ext4's own
 * block map (its extent-status cache first) finds every block of the range
 * mapped and written, in one run.  A range over two extents counts as
 * "no", as it does there.  Without the symbol: fiemap, which also accepts
 * a range over several written extents.
 */
static bool nw_ext4_in_place(struct nw_write *w)
{
	struct nw_ext4_map_blocks map = { 0 };
	struct inode *inode = w->inode;
	unsigned int blkbits = inode->i_blkbits;
	loff_t pos = w->pos;
	size_t len = w->count;
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
 * ext4's "unaligned AIO" (async, below i_size rounded up to a block, not
 * aligned to its block: ext4_unaligned_aio()) skipped 4.14's NOWAIT
 * overwrite test.  Refused for one the device cannot take either: its
 * answer there, without the waits, is generic_file_direct_write()'s
 * page-cache test first (EAGAIN), then the direct I/O's EINVAL.
 */
static int nw_ext4_misaligned(struct nw_write *w)
{
	struct kiocb *iocb = w->iocb;
	struct inode *inode = w->inode;
	unsigned int lbs_mask;
	unsigned long align;

	if (!w->q || is_sync_kiocb(iocb))
		return 0;
	lbs_mask = queue_logical_block_size(w->q) - 1;
	align = w->pos | iov_iter_alignment(w->from);
	if (w->pos >= ALIGN(i_size_read(inode), i_blocksize(inode)) ||
	    !(align & (i_blocksize(inode) - 1)) || !(align & lbs_mask))
		return 0;
	if (nw_check_on[NW_CHECK_PAGECACHE] &&
	    nw_range_has_page(iocb->ki_filp->f_mapping, w->pos,
			      w->pos + w->count - 1))
		return nw_eagain(NW_CNT_EAGAIN_PAGECACHE);
	return -EINVAL;
}

static const struct nw_fs_ops nw_ext4_ops = {
	.lock = nw_write_lock_excl,
	.misaligned = nw_ext4_misaligned,
	.in_place = nw_ext4_in_place,
};

static ssize_t nw_ext4_file_write_iter(struct kiocb *iocb,
				       struct iov_iter *from)
{
	return nw_write_iter(iocb, from, &nw_ext4_ops,
			     nw_orig_ext4_file_write);
}
NW_RW_HOOK(nw_ext4_file_write_iter_hook, nw_ext4_file_write_iter)

enum { NW_EXT4_MAP_BLOCKS, NW_EXT4_WRITE };

static struct nw_hook nw_ext4_hooks[] = {
	[NW_EXT4_MAP_BLOCKS] =
	NW_SYMBOL("ext4_map_blocks",
		  nw_ext4_map_blocks, NW_OPTIONAL,
		  "ext4 overwrite test by block map, as 4.14 (else fiemap)"),
	[NW_EXT4_WRITE] =
	NW_HOOK(NW_FOP_SYM("ext4_file_write_iter", "ext4_file_write"),
		nw_ext4_file_write_iter_hook, nw_orig_ext4_file_write,
		NW_FS, "ext4 NOWAIT writes"),
};

static void nw_ext4_setup(void)
{
	struct nw_hook *wi = &nw_ext4_hooks[NW_EXT4_WRITE];

	nw_fs_set(NW_FS_EXT4, nw_hook_ready(wi) ? wi->addr : 0, true);
}

const struct nw_part nw_ext4_part = {
	.owner = "ext4",
	NW_PART_HOOKS(nw_ext4_hooks),
	.setup = nw_ext4_setup,
};
