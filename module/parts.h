/* SPDX-License-Identifier: GPL-2.0 */
/*
 * parts.h - the parts main.c hands to the hook engine, one per file: the
 * entry points (aio.c, rwf.c), the direct-read rules (read.c), the
 * filesystems' and block devices' write paths (ext4.c, xfs.c, btrfs.c,
 * blkdev.c) and request allocation (block.c).  sync.h names sync.c's.
 */
#ifndef NW_PARTS_H
#define NW_PARTS_H

struct nw_part;

extern const struct nw_part nw_block_part, nw_read_part, nw_ext4_part,
	nw_xfs_part, nw_btrfs_part, nw_blkdev_part, nw_aio_part, nw_rwf_part;

#endif /* NW_PARTS_H */
