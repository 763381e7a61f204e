// SPDX-License-Identifier: GPL-2.0
/*
 * fs.<fs>.*: where a no-wait direct write must refuse with EAGAIN instead of
 * blocking, and where it must go through.
 *
 * Upstream rules (4.13 series, patches 05 and 08-10; fixes named per case):
 *  - generic/iomap direct write: page-cache pages in the range -> EAGAIN
 *    (filemap_range_has_page) instead of writeback-and-wait.
 *  - ext4: inode lock only tried; anything but an overwrite of mapped,
 *    written blocks inside i_size -> EAGAIN (ext4_overwrite_io).
 *  - XFS: IOLOCK tried; xfs_file_iomap_begin refuses allocation (hole,
 *    delalloc, past EOF) and any write to a reflink inode; unaligned DIO
 *    with other DIO in flight -> EAGAIN.
 *  - btrfs: inode lock tried; only NODATACOW/PREALLOC inodes whose whole
 *    range can be written in place (check_can_nocow) go through.
 *  - The refusal comes back from ->write_iter, so io_submit counts the iocb
 *    and the event's res is -EAGAIN; the file's bytes and size are unchanged.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <linux/fiemap.h>
#include <linux/fs.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <unistd.h>

#include "nwconf.h"

#define F "fs.dat"

/* btrfs overwrites in place only for NODATACOW files: ask for one there */
static int pat(struct nw_ctx *c, int pattern)
{
	return c->fs == NW_BTRFS ? -pattern : pattern;
}

/* Submit a NOWAIT aio write of @len at @off (file content 0x5a). */
static struct nw_aio_res aio_nowait(int fd, off_t off, size_t len,
				    unsigned int flags)
{
	void *b = nw_buf(len, 0x5a);
	struct nw_aio_res r;

	r = nw_aio_rw(fd, IO_CMD_PWRITE, b, len, off, flags | RWF_NOWAIT);
	free(b);
	return r;
}

/* The iocb must be accepted and complete with @want; check the file. */
static void check(struct nw_ctx *c, int fd, off_t off, size_t len, long want,
		  struct nw_aio_res r, struct nw_snap *s)
{
	if (!nw_expect_res(c, "io_submit", 1, r.submit) ||
	    !nw_expect_res(c, "event res", want, r.res))
		return;
	if (want < 0)
		nw_expect_unchanged(c, F, s);
	else
		nw_expect_content(c, fd, off, len, 0x5a);
}

static void aio_expect(struct nw_ctx *c, int fd, off_t off, size_t len,
		       long want, unsigned int flags)
{
	struct nw_snap s;

	if (!nw_snap_take(c, F, &s))
		return;
	check(c, fd, off, len, want, aio_nowait(fd, off, len, flags), &s);
}

/*
 * A NOWAIT write that needs no allocation completes with @n bytes.  Except
 * on XFS from 6.0 on, where xfs_file_write_checks() calls kiocb_modified(),
 * which refuses with EAGAIN whenever mtime/ctime must change (66fa3cedf16a
 * "fs: Add async write file modification handling", 6.0); whether they
 * must depends on the clock tick, so there either answer is upstream's (an
 * EAGAIN still leaves the file unchanged).  4.13/4.14 and the module update
 * the timestamps and write.
 */
static void aio_expect_ow(struct nw_ctx *c, int fd, off_t off, size_t len,
			  unsigned int flags)
{
	struct nw_snap s;
	struct nw_aio_res r;

	if (!nw_snap_take(c, F, &s))
		return;
	r = aio_nowait(fd, off, len, flags);
	if (c->fs == NW_XFS && nw_native(c) && nw_kver_ge(c, KV(6, 0, 0)) &&
	    r.res == -EAGAIN)
		check(c, fd, off, len, -EAGAIN, r, &s);
	else
		check(c, fd, off, len, len, r, &s);
}

static void overwrite(struct nw_ctx *c)
{
	int fd = nw_make_file(c, F, 65536, 65536, pat(c, 0x11));

	if (fd >= 0)
		aio_expect_ow(c, fd, NW_BS, 2 * NW_BS, 0);
	close(fd);
}

static void overwrite_dsync(struct nw_ctx *c)
{
	int fd = nw_make_file(c, F, 65536, 65536, pat(c, 0x11));

	if (fd >= 0)
		aio_expect_ow(c, fd, 0, NW_BS, RWF_DSYNC);
	close(fd);
}

static void hole_write(struct nw_ctx *c)
{
	int fd = nw_make_file(c, F, 0, 1 << 20, pat(c, 0x11));

	if (fd >= 0)
		aio_expect(c, fd, 65536, NW_BS, -EAGAIN, 0);
	close(fd);
}

/* the same refusal with RWF_DSYNC: nothing written, nothing left pending */
static void hole_dsync(struct nw_ctx *c)
{
	int fd = nw_make_file(c, F, 0, 1 << 20, pat(c, 0x11));

	if (fd >= 0)
		aio_expect(c, fd, 65536, NW_BS, -EAGAIN, RWF_DSYNC);
	close(fd);
}

static void hole_pwritev2(struct nw_ctx *c)
{
	int fd = nw_make_file(c, F, 0, 1 << 20, pat(c, 0x11));
	void *b = nw_buf(NW_BS, 0x5a);
	struct nw_snap s;

	if (fd < 0 || !nw_snap_take(c, F, &s))
		return;
	nw_expect_res(c, "pwritev2", -EAGAIN,
		      nw_pwritev2(fd, b, NW_BS, 65536, RWF_NOWAIT)) &&
	nw_expect_unchanged(c, F, &s);
	close(fd);
}

static void past_eof(struct nw_ctx *c)
{
	int fd = nw_make_file(c, F, 2 * NW_BS, 2 * NW_BS, pat(c, 0x11));

	if (fd >= 0)
		aio_expect(c, fd, 2 * NW_BS, NW_BS, -EAGAIN, 0);
	close(fd);
}

/*
 * Unwritten (preallocated) extent inside i_size.  ext4 refuses (not MAPPED
 * in ext4_overwrite_io); XFS writes (imap_needs_alloc is false for unwritten
 * extents, conversion happens at completion); btrfs writes in place
 * (PREALLOC inode, check_can_nocow sees a prealloc extent).
 */
static void prealloc(struct nw_ctx *c)
{
	int fd = nw_make_file(c, F, 0, 0, 0x11);

	if (fd < 0)
		return;
	if (fallocate(fd, 0, 0, 65536)) {
		nw_fail(c, "fallocate: ok vs errno %d", errno);
		close(fd);
		return;
	}
	fsync(fd);
	if (c->fs == NW_EXT4)
		aio_expect(c, fd, NW_BS, NW_BS, -EAGAIN, 0);
	else
		aio_expect_ow(c, fd, NW_BS, NW_BS, 0);
	close(fd);
}

/* How many extents does FIEMAP report for [0, len)?  -1 on error. */
static int extents_of(int fd, off_t len)
{
	struct {
		struct fiemap fm;
		struct fiemap_extent ext[8];
	} q = { .fm = { .fm_length = len, .fm_flags = FIEMAP_FLAG_SYNC,
			.fm_extent_count = 8 } };

	if (ioctl(fd, FS_IOC_FIEMAP, &q))
		return -1;
	return q.fm.fm_mapped_extents;
}

/*
 * ext4's overwrite test (ext4_overwrite_io(), from 4.13 to today) is one
 * lookup of its block map, which stops at the end of an extent: a NOWAIT
 * overwrite of written blocks in two extents gets EAGAIN, file unchanged.
 * Block 1 is written after another file took the blocks behind block 0.
 */
static void two_extents(struct nw_ctx *c)
{
	int fd = nw_make_file(c, F, NW_BS, NW_BS, pat(c, 0x11));
	int sp = nw_make_file(c, "spacer.dat", 16 * NW_BS, 16 * NW_BS, 0x22);
	void *b = nw_buf(NW_BS, pat(c, 0x11));
	int n;

	if (fd < 0 || sp < 0)
		goto out;
	if (pwrite(fd, b, NW_BS, NW_BS) != NW_BS || fsync(fd)) {
		nw_fail(c, "setup write of block 1: ok vs errno %d", errno);
		goto out;
	}
	n = extents_of(fd, 2 * NW_BS);
	if (n != 2) {
		nw_skip(c, "blocks 0 and 1 ended up in %d extent(s), not 2", n);
		goto out;
	}
	aio_expect(c, fd, 0, 2 * NW_BS, -EAGAIN, 0);
out:
	free(b);
	if (sp >= 0)
		close(sp);
	if (fd >= 0)
		close(fd);
}

/*
 * The snapshot (a direct read) is taken before the pages are made: XFS's
 * direct reads invalidate cached pages of their range on these kernels.
 */
static void pagecache_read(struct nw_ctx *c)
{
	int fd = nw_make_file(c, F, 65536, 65536, pat(c, 0x11));
	int bfd = nw_open(c, F, O_RDONLY);
	void *b = nw_buf(NW_BS, 0);
	struct nw_snap s;

	if (fd < 0 || bfd < 0 || !nw_snap_take(c, F, &s))
		return;
	if (pread(bfd, b, NW_BS, 2 * NW_BS) != NW_BS)
		nw_fail(c, "buffered read: ok vs errno %d", errno);
	check(c, fd, 2 * NW_BS, NW_BS, -EAGAIN,
	      aio_nowait(fd, 2 * NW_BS, NW_BS, 0), &s);
	close(bfd);
	close(fd);
}

static void pagecache_mmap(struct nw_ctx *c)
{
	int fd = nw_make_file(c, F, 65536, 65536, pat(c, 0x11));
	int bfd = nw_open(c, F, O_RDWR);
	volatile unsigned char *m;
	struct nw_snap s;

	if (fd < 0 || bfd < 0 || !nw_snap_take(c, F, &s))
		return;
	m = mmap(NULL, 65536, PROT_READ, MAP_SHARED, bfd, 0);
	if (m == MAP_FAILED) {
		nw_fail(c, "mmap: ok vs errno %d", errno);
		return;
	}
	(void)m[3 * NW_BS];	/* fault the page in */
	check(c, fd, 3 * NW_BS, NW_BS, -EAGAIN,
	      aio_nowait(fd, 3 * NW_BS, NW_BS, 0), &s);
	munmap((void *)m, 65536);
	close(bfd);
	close(fd);
}

/* i_rwsem held by a buffered writer stuck on a userfaultfd fault */
static void inode_lock(struct nw_ctx *c)
{
	int fd = nw_make_file(c, F, 2 << 20, 2 << 20, pat(c, 0x11));
	int bfd = nw_open(c, F, O_RDWR);
	struct nw_lockholder *h;
	struct nw_aio_res r;
	struct nw_snap s;

	if (fd < 0 || bfd < 0)
		return;
	if (!nw_snap_take(c, F, &s))
		return;
	h = nw_hold_inode_lock(c, bfd, 1 << 20);
	if (!h)
		return;
	r = aio_nowait(fd, 0, NW_BS, 0);
	nw_release(h);
	check(c, fd, 0, NW_BS, -EAGAIN, r, &s);
	close(bfd);
	close(fd);
}

/* [written 4k][hole 4k]: all or nothing */
static void span_hole(struct nw_ctx *c)
{
	int fd = nw_make_file(c, F, NW_BS, 1 << 20, pat(c, 0x11));

	if (c->fs == NW_XFS)
		nw_fixed_in(c, KV(5, 10, 0), "883a790a8440 xfs: don't allow NOWAIT DIO across extent boundaries");
	if (c->fs == NW_BTRFS)
		nw_fixed_in(c, KV(5, 8, 0), "260a63395f90 btrfs: fix RWF_NOWAIT write not failling when we need to cow");
	if (fd >= 0)
		aio_expect(c, fd, 0, 2 * NW_BS, -EAGAIN, 0);
	close(fd);
}

/*
 * ext4's "unaligned AIO" (async, a buffer not aligned to the block): 4.14
 * skips its NOWAIT overwrite test, and a buffer the device cannot take
 * (not sector-aligned) gets EINVAL from the direct I/O; but the page-cache
 * test of generic_file_direct_write() comes first: with a dirty page in
 * the range the answer is EAGAIN (6.1: the page needs writeback, EAGAIN
 * too), and the page keeps its bytes.  XFS the same: iomap_dio_rw()
 * tests the page cache before its mapping's alignment test.
 */
static void unaligned_aio_dirty(struct nw_ctx *c)
{
	int fd = nw_make_file(c, F, 65536, 65536, 0x11);
	int bfd = nw_open(c, F, O_RDWR);
	unsigned char *d = nw_buf(NW_BS, 0x22), *b = nw_buf(NW_BS + 1, 0x5a);
	struct nw_aio_res r;

	if (fd < 0 || bfd < 0)
		return;
	if (pwrite(bfd, d, NW_BS, 0) != NW_BS) {
		nw_fail(c, "buffered write: ok vs errno %d", errno);
		return;
	}
	r = nw_aio_rw(fd, IO_CMD_PWRITE, b + 1, NW_BS, 0, RWF_NOWAIT);
	memset(d, 0, NW_BS);
	nw_expect_res(c, "io_submit", 1, r.submit) &&
	nw_expect_res(c, "event res", -EAGAIN, r.res) &&
	nw_expect_true(c, "the dirty page keeps its bytes",
		       pread(bfd, d, NW_BS, 0) == NW_BS && d[7] == 0x22);
	close(bfd);
	close(fd);
}

/*
 * The answer to a NOWAIT unaligned overwrite at 512 while another holds
 * XFS's IOLOCK shared: EAGAIN; 512 natively from 5.12, where it runs
 * under the shared lock.  6.0+ also refuses when mtime/ctime must change
 * (kiocb_modified, see aio_expect_ow()); whether they must depends on the
 * clock tick since the file was last written, so either answer is
 * upstream's there.
 */
static void check_unaligned_shared(struct nw_ctx *c, int fd,
				   struct nw_aio_res r, struct nw_snap *s)
{
	if (nw_native(c) && nw_kver_ge(c, KV(6, 0, 0)) && r.res == -EAGAIN)
		check(c, fd, 512, 512, -EAGAIN, r, s);
	else
		check(c, fd, 512, 512, nw_native(c) &&
		      nw_kver_ge(c, KV(5, 12, 0)) ? 512 : -EAGAIN, r, s);
}

/*
 * XFS: an unaligned DIO needs IOLOCK_EXCL and must wait for DIO in flight;
 * with NOWAIT it refuses.  The DIO in flight is a direct write whose source
 * buffer faults on userfaultfd (holds IOLOCK shared, i_dio_count raised).
 * From 5.12 on (ed1128c2d0c8 "xfs: reduce exclusive locking on unaligned
 * dio") an unaligned overwrite inside EOF runs under the shared lock as an
 * overwrite-only DIO, so it completes beside the other one.
 */
static void xfs_unaligned_inflight(struct nw_ctx *c)
{
	int fd = nw_make_file(c, F, 2 << 20, 2 << 20, 0x11);
	int dfd = nw_open(c, F, O_RDWR | O_DIRECT);
	struct nw_lockholder *h;
	struct nw_aio_res r;
	struct nw_snap s;

	if (fd < 0 || dfd < 0)
		return;
	if (!nw_snap_take(c, F, &s))
		return;
	h = nw_hold_dio(c, dfd, 1 << 20);
	if (!h)
		return;
	r = aio_nowait(fd, 512, 512, 0);
	nw_release(h);
	check_unaligned_shared(c, fd, r, &s);
	close(dfd);
	close(fd);
}

/*
 * XFS's IOLOCK held shared by a FIEMAP (xfs_vn_fiemap() copies extents out
 * with it held; the VFS inode lock is not taken): an unaligned DIO needs
 * it exclusive, so 4.14's xfs_ilock_nowait() refuses a NOWAIT one at once.
 * Before 4.10 that lock is XFS's own i_iolock, not the VFS inode's; a
 * module that probes only the VFS lock lets the write wait for the holder
 * (here until the watchdog lets it go, and it completes).  4.4's fiemap
 * drops the IOLOCK before it copies anything out: nothing to hold it with.
 * From 5.12 an unaligned overwrite inside EOF runs under the shared lock
 * (ed1128c2d0c8), as in xfs_unaligned_inflight().
 */
static void xfs_iolock_fiemap(struct nw_ctx *c)
{
	int fd = nw_make_file(c, F, 2 << 20, 2 << 20, 0x11);
	struct nw_lockholder *h;
	struct nw_aio_res r;
	struct nw_snap s;

	if (c->env->kver < KV(4, 8, 0)) {
		nw_skip(c, "XFS's fiemap before 4.8 copies out without the IOLOCK");
		close(fd);
		return;
	}
	if (fd < 0 || !nw_snap_take(c, F, &s))
		return;
	h = nw_hold_fiemap(c, fd);
	if (!h)
		return;
	if (nw_release_later(h)) {
		nw_fail(c, "cannot start the holder's watchdog");
		nw_release(h);
		return;
	}
	r = aio_nowait(fd, 512, 512, 0);
	nw_release(h);
	check_unaligned_shared(c, fd, r, &s);
	close(fd);
}

static int clone_file(struct nw_ctx *c, int src, const char *name, int nocow)
{
	char p[512];
	int fd;

	if (c->fs == NW_XFS && c->env->kver < KV(4, 9, 0)) {
		nw_skip(c, "XFS reflink arrived in 4.9; this kernel's image is made with reflink=0");
		return -1;
	}
	snprintf(p, sizeof(p), "%s/%s", c->dir, name);
	unlink(p);
	fd = open(p, O_RDWR | O_CREAT | O_DIRECT, 0644);
	if (fd < 0)
		return -1;
	if (nocow) {
		int fl = 0;

		ioctl(fd, FS_IOC_GETFLAGS, &fl);
		fl |= FS_NOCOW_FL;
		ioctl(fd, FS_IOC_SETFLAGS, &fl);
	}
	if (ioctl(fd, FICLONE, src)) {
		nw_fail(c, "FICLONE: ok vs errno %d", errno);
		close(fd);
		return -1;
	}
	fsync(fd);
	return fd;
}

/*
 * A write to shared (reflinked) blocks needs COW allocation: EAGAIN.  The
 * write goes to the source file F, which shares its blocks with the clone.
 */
static void reflink_shared(struct nw_ctx *c)
{
	int fd = nw_make_file(c, F, 65536, 65536, pat(c, 0x11));
	int cfd;

	if (fd < 0)
		return;
	cfd = clone_file(c, fd, "fs-clone.dat", c->fs == NW_BTRFS);
	if (cfd < 0) {
		close(fd);
		return;
	}
	aio_expect(c, fd, 0, NW_BS, -EAGAIN, 0);
	close(cfd);
	close(fd);
}

/*
 * XFS: a NOWAIT overwrite of blocks of a reflinked file that are not shared
 * themselves.  4.14's xfs_file_iomap_begin() refused every NOWAIT direct
 * write to a reflinked inode ("FIXME: It could still overwrite on unshared
 * extents"); later kernels refuse only shared extents (6.1 verified:
 * imap_needs_cow()), and so does the module.  The blocks cloned away are
 * still refused.
 */
static void xfs_reflink_unshared(struct nw_ctx *c)
{
	int fd = nw_make_file(c, F, 131072, 131072, 0x11);
	int cfd;
	char p[512];

	if (fd < 0)
		return;
	if (nw_native(c) && !nw_kver_ge(c, KV(6, 1, 0))) {
		nw_skip(c, "later upstream (6.1 verified); 4.14 refuses every NOWAIT write to a reflinked XFS file");
		close(fd);
		return;
	}
	if (c->env->kver < KV(4, 9, 0)) {
		nw_skip(c, "XFS reflink arrived in 4.9; this kernel's image is made with reflink=0");
		close(fd);
		return;
	}
	snprintf(p, sizeof(p), "%s/fs-clone2.dat", c->dir);
	unlink(p);
	cfd = open(p, O_RDWR | O_CREAT, 0644);
	if (cfd < 0) {
		nw_fail(c, "open clone: ok vs errno %d", errno);
		close(fd);
		return;
	}
	{
		struct file_clone_range r = {
			.src_fd = fd, .src_offset = 0, .src_length = 65536,
			.dest_offset = 0,
		};

		if (ioctl(cfd, FICLONERANGE, &r)) {
			nw_fail(c, "FICLONERANGE: ok vs errno %d", errno);
			goto out;
		}
	}
	fsync(cfd);
	aio_expect_ow(c, fd, 65536, NW_BS, 0);
	if (!c->failed)
		aio_expect(c, fd, 0, NW_BS, -EAGAIN, 0);
out:
	close(cfd);
	close(fd);
}

/* btrfs: a plain (COW) file always needs allocation */
static void btrfs_cow(struct nw_ctx *c)
{
	int fd = nw_make_file(c, F, 65536, 65536, 0x11);

	if (fd >= 0)
		aio_expect(c, fd, 0, NW_BS, -EAGAIN, 0);
	close(fd);
}

/*
 * btrfs: a preallocated extent past EOF can be written in place.  Native
 * 4.14 refused it (btrfs_direct_IO: beyond i_size -> EAGAIN); fixed in 5.8.
 */
static void btrfs_prealloc_past_eof(struct nw_ctx *c)
{
	int fd = nw_make_file(c, F, NW_BS, NW_BS, -0x11);

	nw_fixed_in(c, KV(5, 8, 0), "4b1946284dd6 btrfs: fix failure of RWF_NOWAIT write into prealloc extent beyond eof");
	if (fd < 0)
		return;
	if (fallocate(fd, FALLOC_FL_KEEP_SIZE, NW_BS, 65536)) {
		nw_fail(c, "fallocate: ok vs errno %d", errno);
		close(fd);
		return;
	}
	fsync(fd);
	aio_expect(c, fd, NW_BS, NW_BS, NW_BS, 0);
	close(fd);
}

const struct nw_case nw_fs_cases[] = {
	{ "fs.%s.overwrite",
	  "a NOWAIT overwrite of written blocks completes (btrfs: NODATACOW)",
	  FS_ALL, overwrite },
	{ "fs.%s.overwrite-dsync",
	  "a NOWAIT|DSYNC overwrite completes", FS_ALL, overwrite_dsync },
	{ "fs.%s.hole-write",
	  "a write into a hole needs allocation: event res EAGAIN, file unchanged",
	  FS_ALL, hole_write },
	{ "fs.%s.hole-dsync",
	  "a NOWAIT|DSYNC write into a hole: EAGAIN, file unchanged", FS_ALL,
	  hole_dsync },
	{ "fs.%s.hole-pwritev2",
	  "pwritev2 into a hole returns EAGAIN, file unchanged", FS_ALL,
	  hole_pwritev2 },
	{ "fs.%s.past-eof",
	  "a write past EOF needs allocation: EAGAIN, size unchanged", FS_ALL,
	  past_eof },
	{ "fs.%s.two-extents",
	  "ext4: an overwrite of written blocks in two extents: EAGAIN (one block-map lookup), file unchanged",
	  FS_BIT(NW_EXT4), two_extents },
	{ "fs.%s.prealloc",
	  "a write into an unwritten extent: ext4 EAGAIN, XFS/btrfs complete",
	  FS_ALL, prealloc },
	{ "fs.%s.pagecache-read",
	  "page-cache pages (buffered read) in the range: EAGAIN", FS_ALL,
	  pagecache_read },
	{ "fs.%s.pagecache-mmap",
	  "page-cache pages (mmap fault) in the range: EAGAIN", FS_ALL,
	  pagecache_mmap },
	{ "fs.%s.inode-lock",
	  "the inode lock held by another writer: EAGAIN at once", FS_ALL,
	  inode_lock },
	{ "fs.%s.span-hole",
	  "a write over [written][hole]: EAGAIN with nothing written", FS_ALL,
	  span_hole },
	{ "fs.%s.unaligned-aio-dirty",
	  "async NOWAIT DIO from a misaligned buffer over a dirty page: EAGAIN before EINVAL",
	  FS_BIT(NW_EXT4) | FS_BIT(NW_XFS), unaligned_aio_dirty },
	{ "fs.%s.unaligned-inflight",
	  "XFS: unaligned DIO while DIO is in flight: EAGAIN", FS_BIT(NW_XFS),
	  xfs_unaligned_inflight },
	{ "fs.%s.iolock-fiemap",
	  "XFS: unaligned DIO while a FIEMAP holds the IOLOCK shared (no VFS inode lock): EAGAIN at once",
	  FS_BIT(NW_XFS), xfs_iolock_fiemap },
	{ "fs.%s.reflink-shared",
	  "a write to reflinked (shared) blocks needs COW: EAGAIN",
	  FS_BIT(NW_XFS) | FS_BIT(NW_BTRFS), reflink_shared },
	{ "fs.%s.reflink-unshared",
	  "XFS: unshared blocks of a reflinked file are written in place; shared ones refused",
	  FS_BIT(NW_XFS), xfs_reflink_unshared },
	{ "fs.%s.cow",
	  "btrfs: a COW file (no NODATACOW/PREALLOC) refuses: EAGAIN",
	  FS_BIT(NW_BTRFS),
	  btrfs_cow },
	{ "fs.%s.prealloc-past-eof",
	  "btrfs: a preallocated extent past EOF is written in place",
	  FS_BIT(NW_BTRFS),
	  btrfs_prealloc_past_eof },
	{ NULL }
};
