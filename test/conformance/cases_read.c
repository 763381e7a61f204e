// SPDX-License-Identifier: GPL-2.0
/*
 * read.<fs>.*: RWF_NOWAIT on reads.
 *
 * Upstream rules:
 *  - direct read (4.13 generic_file_read_iter / iomap_dio_rw): page-cache
 *    pages in the range -> EAGAIN rather than writeback-and-wait;
 *  - XFS takes IOLOCK shared with nowait on reads (4.13), ext4 from 5.5 on
 *    (iomap DIO, ext4_dio_read_iter);
 *  - buffered read (4.14 91f9943e1c7b "fs: support RWF_NOWAIT for buffered
 *    reads"): return what is cached, EAGAIN when the first page is not; a
 *    short count for a partly cached range, never 0 before EOF (5.9/5.10
 *    regression fixed by 13e6b4e7e3c9 and friends).
 * Each read goes through preadv2 (where the kernel has it) and io_submit,
 * which must agree.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <linux/fiemap.h>
#include <linux/fs.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <sys/uio.h>

#include "nwconf.h"

#define F "read.dat"

static int pat(struct nw_ctx *c, int pattern)
{
	return c->fs == NW_BTRFS ? -pattern : pattern;
}

/* Dirty (not yet written back) page in the range of a direct read */
static void dio_dirty_page(struct nw_ctx *c)
{
	int fd = nw_make_file(c, F, 65536, 65536, pat(c, 0x11));
	int bfd = nw_open(c, F, O_RDWR);
	void *b = nw_buf(NW_BS, 0x22);

	if (fd < 0 || bfd < 0)
		return;
	if (pwrite(bfd, b, NW_BS, NW_BS) != NW_BS) {
		nw_fail(c, "buffered write: ok vs errno %d", errno);
		return;
	}
	nw_expect_res(c, "NOWAIT read", -EAGAIN,
		      nw_read_nowait(c, fd, b, NW_BS, NW_BS));
	close(bfd);
	close(fd);
}

/*
 * Inode lock held exclusively by a buffered writer.  XFS: EAGAIN (IOLOCK
 * shared tried, 4.13).  ext4 takes i_rwsem shared for direct reads; 4.14
 * slept there, 5.5 tries it (b1b4705d54ab "ext4: introduce direct I/O read
 * using iomap infrastructure"): EAGAIN, which the module ships.  btrfs does
 * not lock for direct reads before 5.5, so the read completes; 5.5+ (iomap
 * DIO) takes the lock shared without nowait: not a NOWAIT path there.
 */
static void dio_locked(struct nw_ctx *c)
{
	int fd = nw_make_file(c, F, 2 << 20, 2 << 20, pat(c, 0x11));
	int bfd = nw_open(c, F, O_RDWR);
	unsigned char *b = nw_buf(NW_BS, 0);
	struct nw_lockholder *h;
	long want, got;

	if (fd < 0 || bfd < 0)
		return;
	if (c->fs == NW_BTRFS && nw_kver_ge(c, KV(5, 5, 0))) {
		nw_skip(c, "btrfs %s: direct reads take the inode lock without NOWAIT",
			"5.5+ (iomap DIO)");
		return;
	}
	if (c->fs == NW_EXT4 && nw_native(c) && !nw_kver_ge(c, KV(5, 5, 0))) {
		/* running it would only show the native kernel sleeping */
		nw_skip(c, "fixed upstream in 5.5 (b1b4705d54ab); this native kernel sleeps on i_rwsem");
		return;
	}
	if (c->fs == NW_XFS && nw_native(c) && !nw_kver_ge(c, KV(6, 1, 0))) {
		/*
		 * 4.13/4.14 tried the IOLOCK for buffered reads only;
		 * xfs_file_dio_aio_read() took it unconditionally.  Later
		 * kernels try it (6.1's xfs_file_dio_read: xfs_ilock_iocb).
		 */
		nw_skip(c, "fixed in later upstream (6.1 verified); 4.14's XFS direct read sleeps on the IOLOCK");
		return;
	}
	want = c->fs == NW_BTRFS ? NW_BS : -EAGAIN;
	h = nw_hold_inode_lock(c, bfd, 1 << 20);
	if (!h)
		return;
	got = nw_read_nowait(c, fd, b, NW_BS, 0);
	nw_release(h);
	nw_expect_res(c, "NOWAIT read", want, got);
	if (want > 0)
		nw_expect_true(c, "data read", b[9] == 0x11);
	close(bfd);
	close(fd);
}

static void buffered_cached(struct nw_ctx *c)
{
	int fd = nw_make_file(c, F, 65536, 65536, pat(c, 0x11));
	int bfd = nw_open(c, F, O_RDONLY);
	unsigned char *b = nw_buf(2 * NW_BS, 0);

	if (fd < 0 || bfd < 0)
		return;
	if (pread(bfd, b, 2 * NW_BS, 0) != 2 * NW_BS) {
		nw_fail(c, "buffered read: ok vs errno %d", errno);
		return;
	}
	memset(b, 0, 2 * NW_BS);
	nw_expect_res(c, "NOWAIT read", 2 * NW_BS,
		      nw_read_nowait(c, bfd, b, 2 * NW_BS, 0)) &&
	nw_expect_true(c, "data read", b[NW_BS + 5] == 0x11);
	close(bfd);
	close(fd);
}

static void buffered_uncached(struct nw_ctx *c)
{
	int fd = nw_make_file(c, F, 65536, 65536, pat(c, 0x11));
	int bfd = nw_open(c, F, O_RDONLY);
	unsigned char *b = nw_buf(NW_BS, 0);

	if (fd < 0 || bfd < 0)
		return;
	nw_drop_cache(bfd);
	nw_expect_res(c, "NOWAIT read", -EAGAIN,
		      nw_read_nowait(c, bfd, b, NW_BS, 0));
	close(bfd);
	close(fd);
}

/* First page cached, second not: a short read of what is cached */
static void buffered_partial(struct nw_ctx *c)
{
	int fd = nw_make_file(c, F, 65536, 65536, pat(c, 0x11));
	int bfd = nw_open(c, F, O_RDONLY);
	unsigned char *b = nw_buf(2 * NW_BS, 0);

	if (fd < 0 || bfd < 0)
		return;
	nw_drop_cache(bfd);
	posix_fadvise(bfd, 0, 0, POSIX_FADV_RANDOM);	/* no readahead */
	if (pread(bfd, b, NW_BS, 0) != NW_BS) {
		nw_fail(c, "buffered read: ok vs errno %d", errno);
		return;
	}
	nw_expect_res(c, "NOWAIT read", NW_BS,
		      nw_read_nowait(c, bfd, b, 2 * NW_BS, 0));
	close(bfd);
	close(fd);
}

/*
 * At EOF a NOWAIT read returns 0, as without the flag.  4.14's
 * generic_file_buffered_read() looked the page up before comparing with
 * i_size and so answered EAGAIN at EOF; later kernels (6.1 verified here,
 * filemap_read) answer 0, and so does the module.
 */
static void buffered_eof(struct nw_ctx *c)
{
	int fd = nw_make_file(c, F, 65536, 65536, pat(c, 0x11));
	int bfd = nw_open(c, F, O_RDONLY);
	unsigned char *b = nw_buf(NW_BS, 0);

	if (fd < 0 || bfd < 0)
		return;
	if (nw_native(c) && !nw_kver_ge(c, KV(6, 1, 0))) {
		nw_skip(c, "fixed in later upstream (6.1 verified); 4.14 answers EAGAIN at EOF");
		return;
	}
	nw_expect_res(c, "NOWAIT read at EOF", 0,
		      nw_read_nowait(c, bfd, b, NW_BS, 65536));
	close(bfd);
	close(fd);
}

/* Is page @index of the file in the page cache (mincore; past EOF too)? */
static int page_cached(int fd, long index)
{
	size_t len = (index + 1) * NW_BS;
	unsigned char vec[64] = { 0 };
	void *m;
	int r;

	if (index >= 64)
		return -1;
	m = mmap(NULL, len, PROT_READ, MAP_SHARED, fd, 0);
	if (m == MAP_FAILED)
		return -1;
	r = mincore(m, len, vec) ? -1 : vec[index] & 1;
	munmap(m, len);
	return r;
}

/*
 * The same read must not touch the page cache: 6.1's filemap_read() stops
 * at EOF before it looks there, and 4.14 refuses the missing page.  4.12's
 * generic_file_buffered_read() added a page past EOF and read it in (an
 * allocation and a ->readpage() for a NOWAIT read), which the module let
 * happen until it answered EOF itself.
 */
static void buffered_eof_no_page(struct nw_ctx *c)
{
	int fd = nw_make_file(c, F, 65536, 65536, pat(c, 0x11));
	int bfd = nw_open(c, F, O_RDONLY);
	unsigned char *b = nw_buf(NW_BS, 0);
	long want = 0;

	if (fd < 0 || bfd < 0)
		return;
	nw_drop_cache(bfd);
	if (nw_native(c) && !nw_kver_ge(c, KV(6, 1, 0)))
		want = -EAGAIN;
	nw_expect_res(c, "NOWAIT read at EOF", want,
		      nw_read_nowait(c, bfd, b, NW_BS, 65536)) &&
	nw_expect_true(c, "no page past EOF in the page cache",
		       page_cached(bfd, 65536 / NW_BS) == 0);
	close(bfd);
	close(fd);
}

/*
 * btrfs serves a direct read that it cannot align to its sector size from
 * the page cache.  4.14's generic_file_read_iter() looks for cached pages
 * in the range before it calls btrfs's direct_IO, so a NOWAIT unaligned
 * direct read of a cached range is EAGAIN there; btrfs's own read_iter in
 * later kernels (6.1 verified) falls back before any such test and returns
 * the cached data, as a NOWAIT buffered read does, and so does the module.
 * An uncached range is EAGAIN on all three.
 */
static void dio_unaligned(struct nw_ctx *c, int cached)
{
	int fd = nw_make_file(c, F, 65536, 65536, pat(c, 0x11));
	int bfd = nw_open(c, F, O_RDONLY);
	unsigned char *b = nw_buf(2 * NW_BS, 0);

	if (fd < 0 || bfd < 0)
		return;
	nw_drop_cache(bfd);
	if (cached && nw_native(c) && !nw_kver_ge(c, KV(6, 1, 0))) {
		nw_skip(c, "later upstream (6.1 verified); 4.14 answers EAGAIN, having found cached pages before btrfs falls back");
	} else if (cached && pread(bfd, b, 2 * NW_BS, 0) != 2 * NW_BS) {
		nw_fail(c, "buffered read: ok vs errno %d", errno);
	} else if (cached) {
		memset(b, 0, 2 * NW_BS);
		nw_expect_res(c, "NOWAIT unaligned direct read", NW_BS,
			      nw_read_nowait(c, fd, b, NW_BS, 512)) &&
		nw_expect_true(c, "data read", b[5] == 0x11);
	} else {
		nw_expect_res(c, "NOWAIT unaligned direct read", -EAGAIN,
			      nw_read_nowait(c, fd, b, NW_BS, 512));
	}
	close(bfd);
	close(fd);
}

/* Does FIEMAP (no sync) call [off, off + len) delayed allocation? */
static int delalloc_at(int fd, off_t off, off_t len)
{
	struct {
		struct fiemap fm;
		struct fiemap_extent ext[4];
	} q = { .fm = { .fm_start = off, .fm_length = len,
			.fm_extent_count = 4 } };

	if (ioctl(fd, FS_IOC_FIEMAP, &q) || !q.fm.fm_mapped_extents)
		return 0;
	return !!(q.fm.fm_extents[0].fe_flags & FIEMAP_EXTENT_DELALLOC);
}

/*
 * The same, over a dirty page in a hole (delayed allocation).  NOWAIT must
 * not write the page back and wait: 4.14 says EAGAIN on seeing the page,
 * 6.1's btrfs falls back before any writeback and copies the cached bytes.
 * 4.12's generic_file_read_iter() writes back and waits before it calls
 * btrfs's direct_IO, so the module must not send the read through there.
 * The page still being delayed allocation afterwards shows no writeback.
 */
static void dio_unaligned_dirty(struct nw_ctx *c)
{
	int fd = nw_make_file(c, F, 65536, 131072, pat(c, 0x11));
	int bfd = nw_open(c, F, O_RDWR);
	unsigned char *b = nw_buf(NW_BS, 0x22);
	long want = NW_BS - 512;

	if (fd < 0 || bfd < 0)
		return;
	if (pwrite(bfd, b, NW_BS, 65536) != NW_BS) {
		nw_fail(c, "buffered write: ok vs errno %d", errno);
		return;
	}
	if (!delalloc_at(bfd, 65536, NW_BS)) {
		nw_skip(c, "the buffered write left no delayed allocation to watch");
		return;
	}
	/*
	 * Before 6.1, 4.14's refusal of a direct read over cached pages.
	 * With the module on RHEL/CentOS 7's 3.10 too: O_DIRECT is the
	 * file's there, and the kernel writes the range back before btrfs
	 * declines, so the module cannot take 6.1's buffered way.
	 */
	if ((nw_native(c) && !nw_kver_ge(c, KV(6, 1, 0))) ||
	    c->env->kver < KV(4, 4, 0))
		want = -EAGAIN;
	memset(b, 0, NW_BS);
	nw_expect_res(c, "NOWAIT unaligned direct read", want,
		      nw_read_nowait(c, fd, b, NW_BS - 512, 65536 + 512)) &&
	nw_expect_true(c, "data read", want < 0 || b[5] == 0x22) &&
	nw_expect_true(c, "the dirty page not written back",
		       delalloc_at(bfd, 65536, NW_BS));
	close(bfd);
	close(fd);
}

/*
 * A direct read into two iovec segments that share one base: btrfs's
 * check_direct_IO() turns it down ("we'll get csum errors"; 4.4 to 6.1)
 * and the read goes the buffered way, so an uncached range is EAGAIN.
 * Before the module knew this it read the range from disk and waited.
 */
static long read_dup_iov_nowait(struct nw_ctx *c, int fd, void *buf,
				off_t off)
{
	struct iovec iov[2] = { { buf, NW_BS }, { buf, NW_BS } };
	struct iocb cb, *cbs[1] = { &cb };
	struct io_event ev;
	long sync = 0, submit, got = -EIO;
	int have = nw_have_rwf_syscalls();
	char a[32], d[32];

	if (have) {
		sync = syscall(__NR_preadv2, fd, iov, 2, (unsigned long)off,
			       0UL, RWF_NOWAIT);
		sync = sync < 0 ? -errno : sync;
	}
	io_prep_preadv(&cb, fd, iov, 2, off);
	cb.aio_rw_flags = RWF_NOWAIT;
	if (nw_aio_submit_raw(cbs, 1, &submit, &ev, 1) == 1)
		got = (long)ev.res;
	else if (submit < 0)
		got = submit;
	if (have && got != sync)
		nw_fail(c, "preadv2 and io_submit disagree: %s vs %s",
			nw_res_str(sync, a, sizeof(a)),
			nw_res_str(got, d, sizeof(d)));
	return got;
}

static void dio_dup_iov(struct nw_ctx *c)
{
	int fd = nw_make_file(c, F, 65536, 65536, pat(c, 0x11));
	unsigned char *b = nw_buf(NW_BS, 0);

	if (fd < 0)
		return;
	nw_drop_cache(fd);
	nw_expect_res(c, "NOWAIT direct read, one base twice", -EAGAIN,
		      read_dup_iov_nowait(c, fd, b, 0));
	close(fd);
}

static void dio_unaligned_cached(struct nw_ctx *c)
{
	dio_unaligned(c, 1);
}

static void dio_unaligned_uncached(struct nw_ctx *c)
{
	dio_unaligned(c, 0);
}

/*
 * btrfs reads a compressed extent through the page cache, also for a
 * direct read (its get_blocks says -ENOTBLK; generic_file_read_iter() goes
 * on buffered).  4.14 honours NOWAIT there (91f9943e1c7b): uncached,
 * EAGAIN; cached, EAGAIN too (the direct read's page-cache test comes
 * first).  6.1 answers the same (both seen: 4.14.67 and Debian's 6.1).
 */
static void dio_compressed(struct nw_ctx *c)
{
	unsigned char *b = nw_buf(2 * NW_BS, 0);
	int fd = nw_make_file(c, F, 0, 0, 0x61), bfd = -1, fl = 0, i;

	/* a new file: an earlier case's NODATACOW one is never compressed */
	if (fd < 0)
		return;
	close(fd);
	fd = nw_open(c, F, O_RDWR);
	if (fd < 0)
		return;
	if (ioctl(fd, FS_IOC_GETFLAGS, &fl) ||
	    (fl |= FS_COMPR_FL, ioctl(fd, FS_IOC_SETFLAGS, &fl))) {
		nw_fail(c, "chattr +c: ok vs errno %d", errno);
		goto out;
	}
	memset(b, 0x61, 2 * NW_BS);
	for (i = 0; i < 32; i++)
		if (pwrite(fd, b, 2 * NW_BS, (off_t)i * 2 * NW_BS) != 2 * NW_BS)
			break;
	close(fd);
	fd = nw_open(c, F, O_RDONLY | O_DIRECT);
	bfd = nw_open(c, F, O_RDONLY);
	if (i < 32 || fd < 0 || bfd < 0) {
		nw_fail(c, "a compressed file of 256 KiB: made vs not");
		goto out;
	}
	nw_drop_cache(bfd);
	memset(b, 0, NW_BS);
	if (!nw_expect_res(c, "NOWAIT direct read of an uncached compressed extent",
			   -EAGAIN, nw_read_nowait(c, fd, b, NW_BS, 0)))
		goto out;
	if (pread(bfd, b, NW_BS, 0) != NW_BS) {
		nw_fail(c, "buffered read: ok vs errno %d", errno);
		goto out;
	}
	nw_expect_res(c, "NOWAIT direct read of a cached compressed extent",
		      -EAGAIN, nw_read_nowait(c, fd, b, NW_BS, 0));
out:
	if (bfd >= 0)
		close(bfd);
	if (fd >= 0)
		close(fd);
}

const struct nw_case nw_read_cases[] = {
	{ "read.%s.dio-dirty-page",
	  "a NOWAIT direct read over a dirty page-cache page: EAGAIN", FS_ALL,
	  dio_dirty_page },
	{ "read.%s.dio-locked",
	  "a NOWAIT direct read with the inode lock held (fs-specific rule)",
	  FS_ALL, dio_locked },
	{ "read.%s.buffered-cached",
	  "a NOWAIT buffered read of a cached range returns the data", FS_ALL,
	  buffered_cached },
	{ "read.%s.buffered-uncached",
	  "a NOWAIT buffered read of an uncached range: EAGAIN", FS_ALL,
	  buffered_uncached },
	{ "read.%s.buffered-partial",
	  "a partly cached range: a short read, never 0 before EOF", FS_ALL,
	  buffered_partial },
	{ "read.%s.buffered-eof",
	  "a NOWAIT buffered read at EOF returns 0", FS_ALL, buffered_eof },
	{ "read.%s.buffered-eof-no-page",
	  "a NOWAIT buffered read at EOF adds no page to the page cache", FS_ALL,
	  buffered_eof_no_page },
	{ "read.%s.dio-unaligned-cached",
	  "a NOWAIT direct read btrfs cannot align, of a cached range, returns the data",
	  1u << NW_BTRFS, dio_unaligned_cached },
	{ "read.%s.dio-unaligned-uncached",
	  "a NOWAIT direct read btrfs cannot align, of an uncached range: EAGAIN",
	  1u << NW_BTRFS, dio_unaligned_uncached },
	{ "read.%s.dio-unaligned-dirty",
	  "a NOWAIT direct read btrfs cannot align never writes back a dirty page and waits",
	  1u << NW_BTRFS, dio_unaligned_dirty },
	{ "read.%s.dio-compressed",
	  "a NOWAIT direct read of btrfs compressed extents: EAGAIN, uncached (it would wait for the disk) or cached",
	  1u << NW_BTRFS, dio_compressed },
	{ "read.%s.dio-dup-iov",
	  "a NOWAIT direct read btrfs turns down (one iovec base twice), uncached: EAGAIN",
	  1u << NW_BTRFS, dio_dup_iov },
	{ NULL }
};
