// SPDX-License-Identifier: GPL-2.0
/*
 * interface.*: how RWF_NOWAIT and its neighbours enter the kernel.
 *
 * Upstream rules (4.13 "No wait AIO" series; 4.14's 91f9943e1c7b "fs:
 * support RWF_NOWAIT for buffered reads", which moved the per-filesystem
 * gate to FMODE_NOWAIT in kiocb_set_rw_flags()):
 *  - iocb->aio_rw_flags (formerly aio_reserved1) carries RWF_* flags;
 *    unknown bits fail kiocb_set_rw_flags() with EOPNOTSUPP, reported by
 *    io_submit itself; aio_reserved2 != 0 is EINVAL.
 *  - RWF_NOWAIT on a file whose filesystem did not opt in (no FMODE_NOWAIT:
 *    everything but ext4, XFS, btrfs and block devices) is EOPNOTSUPP at
 *    submission, from io_submit or pwritev2/preadv2.
 *  - errors from ->write_iter/->read_iter of an accepted iocb arrive in the
 *    completion event's res (aio_ret -> aio_complete); io_submit counts the
 *    iocb as submitted.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "nwconf.h"

#define F "iface.dat"

/* A file of 64k written blocks, opened O_DIRECT: the overwrite layout. */
static int overwrite_file(struct nw_ctx *c)
{
	/* btrfs needs NODATACOW for a no-wait overwrite; interface runs on ext4 */
	return nw_make_file(c, F, 65536, 65536, 0x11);
}

static void aio_nowait_accepted(struct nw_ctx *c)
{
	int fd = overwrite_file(c);
	void *b = nw_buf(NW_BS, 0x5a);
	struct nw_aio_res r;

	if (fd < 0)
		return;
	r = nw_aio_rw(fd, IO_CMD_PWRITE, b, NW_BS, 0, RWF_NOWAIT);
	nw_expect_res(c, "io_submit", 1, r.submit) &&
	nw_expect_res(c, "event res", NW_BS, r.res) &&
	nw_expect_content(c, fd, 0, NW_BS, 0x5a);
	close(fd);
}

static void aio_nowait_read(struct nw_ctx *c)
{
	int fd = overwrite_file(c);
	void *b = nw_buf(NW_BS, 0);
	struct nw_aio_res r;

	if (fd < 0)
		return;
	r = nw_aio_rw(fd, IO_CMD_PREAD, b, NW_BS, 0, RWF_NOWAIT);
	nw_expect_res(c, "io_submit", 1, r.submit) &&
	nw_expect_res(c, "event res", NW_BS, r.res) &&
	nw_expect_true(c, "data read", ((unsigned char *)b)[7] == 0x11);
	close(fd);
}

static void aio_flag(struct nw_ctx *c, unsigned int flag, int pattern)
{
	int fd = overwrite_file(c);
	void *b = nw_buf(NW_BS, pattern);
	struct nw_aio_res r;

	if (fd < 0)
		return;
	r = nw_aio_rw(fd, IO_CMD_PWRITE, b, NW_BS, NW_BS, flag);
	nw_expect_res(c, "io_submit", 1, r.submit) &&
	nw_expect_res(c, "event res", NW_BS, r.res) &&
	nw_expect_content(c, fd, NW_BS, NW_BS, pattern);
	close(fd);
}

static void aio_dsync(struct nw_ctx *c) { aio_flag(c, RWF_DSYNC, 0x21); }
static void aio_sync(struct nw_ctx *c) { aio_flag(c, RWF_SYNC, 0x22); }
static void aio_hipri(struct nw_ctx *c) { aio_flag(c, RWF_HIPRI, 0x23); }
static void aio_nowait_dsync(struct nw_ctx *c)
{
	aio_flag(c, RWF_NOWAIT | RWF_DSYNC, 0x24);
}

/*
 * RWF_DSYNC on a write that extends the file: the direct write completes
 * before io_submit returns (an extending DIO waits), so the event comes
 * straight from ->write_iter's result.
 */
static void aio_dsync_extend(struct nw_ctx *c)
{
	int fd = nw_make_file(c, F, 65536, 65536, 0x11);
	void *b = nw_buf(NW_BS, 0x25);
	struct nw_aio_res r;

	if (fd < 0)
		return;
	r = nw_aio_rw(fd, IO_CMD_PWRITE, b, NW_BS, 65536, RWF_DSYNC);
	nw_expect_res(c, "io_submit", 1, r.submit) &&
	nw_expect_res(c, "event res", NW_BS, r.res) &&
	nw_expect_content(c, fd, 65536, NW_BS, 0x25);
	close(fd);
}

static void aio_unknown_flag(struct nw_ctx *c)
{
	int fd = overwrite_file(c);
	void *b = nw_buf(NW_BS, 0x5a);
	struct nw_snap s;
	struct nw_aio_res r;

	if (fd < 0 || !nw_snap_take(c, F, &s))
		return;
	r = nw_aio_rw(fd, IO_CMD_PWRITE, b, NW_BS, 0, NW_UNKNOWN_RWF);
	nw_expect_res(c, "io_submit", -EOPNOTSUPP, r.submit) &&
	nw_expect_unchanged(c, F, &s);
	close(fd);
}

static void aio_reserved2(struct nw_ctx *c)
{
	int fd = overwrite_file(c);
	void *b = nw_buf(NW_BS, 0x5a);
	struct iocb cb, *cbs[1] = { &cb };
	struct io_event ev;
	long submit;

	if (fd < 0)
		return;
	io_prep_pwrite(&cb, fd, b, NW_BS, 0);
	cb.aio_rw_flags = RWF_NOWAIT;
	cb.u.c.__pad3 = 1;	/* the kernel's aio_reserved2 */
	nw_aio_submit_raw(cbs, 1, &submit, &ev, 1);
	nw_expect_res(c, "io_submit", -EINVAL, submit);
	close(fd);
}

/*
 * A buffered (no O_DIRECT) NOWAIT write of @len bytes through io_submit: it
 * is submitted, its event carries @want, and the file is unchanged.
 */
static void aio_buffered_expect(struct nw_ctx *c, size_t len, long want)
{
	int fd;
	void *b = nw_buf(NW_BS, 0x5a);
	struct nw_snap s;
	struct nw_aio_res r;

	fd = nw_make_file(c, F, 65536, 65536, c->fs == NW_BTRFS ? -0x11 : 0x11);
	if (fd < 0)
		return;
	close(fd);
	fd = nw_open(c, F, O_RDWR);
	if (fd < 0 || !nw_snap_take(c, F, &s))
		return;
	r = nw_aio_rw(fd, IO_CMD_PWRITE, b, len, 0, RWF_NOWAIT);
	nw_expect_res(c, "io_submit", 1, r.submit) &&
	nw_expect_res(c, "event res", want, r.res) &&
	nw_expect_unchanged(c, F, &s);
	close(fd);
}

/*
 * 4.14.67: ext4/xfs/btrfs ->write_iter refuse a buffered NOWAIT write with
 * EOPNOTSUPP (after FMODE_NOWAIT let it in), so it arrives in the event.
 */
static void aio_nowait_buffered(struct nw_ctx *c)
{
	aio_buffered_expect(c, NW_BS, -EOPNOTSUPP);
}

/* Batches: flags are per iocb; a bad iocb stops the batch at its index. */
static void aio_batch(struct nw_ctx *c)
{
	int fd = overwrite_file(c), i, n;
	struct iocb cb[3], *cbs[3] = { &cb[0], &cb[1], &cb[2] };
	struct io_event ev[3];
	long submit;
	void *b[3];

	if (fd < 0)
		return;
	for (i = 0; i < 3; i++) {
		b[i] = nw_buf(NW_BS, 0x30 + i);
		io_prep_pwrite(&cb[i], fd, b[i], NW_BS, i * NW_BS);
		cb[i].data = (void *)(long)(i + 1);
	}
	cb[1].aio_rw_flags = RWF_NOWAIT;
	cb[2].aio_rw_flags = RWF_NOWAIT | RWF_DSYNC;
	n = nw_aio_submit_raw(cbs, 3, &submit, ev, 3);
	if (!nw_expect_res(c, "io_submit", 3, submit) ||
	    !nw_expect_res(c, "events", 3, n))
		goto out;
	for (i = 0; i < 3; i++)
		if (!nw_expect_res(c, "event res", NW_BS, (long)ev[i].res))
			goto out;
	for (i = 0; i < 3; i++)
		if (!nw_expect_content(c, fd, i * NW_BS, NW_BS, 0x30 + i))
			break;
out:
	close(fd);
}

static void aio_batch_bad_second(struct nw_ctx *c)
{
	int fd = overwrite_file(c), n;
	struct iocb cb[3], *cbs[3] = { &cb[0], &cb[1], &cb[2] };
	struct io_event ev[3];
	long submit;
	void *b = nw_buf(NW_BS, 0x44);

	if (fd < 0)
		return;
	io_prep_pwrite(&cb[0], fd, b, NW_BS, 0);
	io_prep_pwrite(&cb[1], fd, b, NW_BS, NW_BS);
	io_prep_pwrite(&cb[2], fd, b, NW_BS, 2 * NW_BS);
	cb[0].aio_rw_flags = RWF_NOWAIT;
	cb[1].aio_rw_flags = NW_UNKNOWN_RWF;
	n = nw_aio_submit_raw(cbs, 3, &submit, ev, 3);
	nw_expect_res(c, "io_submit", 1, submit) &&
	nw_expect_res(c, "events", 1, n) &&
	nw_expect_res(c, "event res", NW_BS, (long)ev[0].res) &&
	nw_expect_content(c, fd, NW_BS, NW_BS, 0x11);
	close(fd);
}

static void aio_batch_bad_first(struct nw_ctx *c)
{
	int fd = overwrite_file(c);
	struct iocb cb[2], *cbs[2] = { &cb[0], &cb[1] };
	struct io_event ev[2];
	long submit;
	void *b = nw_buf(NW_BS, 0x45);

	if (fd < 0)
		return;
	io_prep_pwrite(&cb[0], fd, b, NW_BS, 0);
	io_prep_pwrite(&cb[1], fd, b, NW_BS, NW_BS);
	cb[0].aio_rw_flags = NW_UNKNOWN_RWF;
	cb[1].aio_rw_flags = RWF_NOWAIT;
	nw_aio_submit_raw(cbs, 2, &submit, ev, 2);
	nw_expect_res(c, "io_submit", -EOPNOTSUPP, submit) &&
	nw_expect_content(c, fd, 0, 2 * NW_BS, 0x11);
	close(fd);
}

static void aio_efault(struct nw_ctx *c)
{
	struct iocb *cbs[1] = { (struct iocb *)8 };
	long submit;

	nw_aio_submit_raw(cbs, 1, &submit, NULL, 0);
	nw_expect_res(c, "io_submit", -EFAULT, submit);
}

/*
 * The order of io_submit's answers for an iocb with flags (4.14's
 * do_io_submit() and io_submit_one()): the context is looked up before
 * any iocb is read; the flags' checks come before aio_key is stored, and
 * the store before the opcode's work.  One flagged submit first, so that
 * the module's per-request hooks are in (its fast path is the one tested).
 */
#define NW_KEY_MARK 0x5a5a5a5aU

static long raw_io_submit(unsigned long ctx, long nr, struct iocb **cbs)
{
	long r = syscall(__NR_io_submit, ctx, nr, cbs);

	return r < 0 ? -errno : r;
}

static void aio_warm(int fd, void *b)
{
	nw_aio_rw(fd, IO_CMD_PWRITE, b, NW_BS, 0, RWF_NOWAIT);
}

static void aio_bad_ctx_first(struct nw_ctx *c)
{
	int fd = overwrite_file(c);
	void *b = nw_buf(NW_BS, 0x47);
	struct iocb cb, *cbs[1] = { &cb };

	if (fd < 0)
		return;
	aio_warm(fd, nw_buf(NW_BS, 0x11));
	io_prep_pwrite(&cb, -1, b, NW_BS, 0);
	cb.aio_rw_flags = RWF_NOWAIT;
	cb.key = NW_KEY_MARK;
	/* a bad fd and a bad context: the context's EINVAL */
	if (!nw_expect_res(c, "io_submit, bad fd, context 0", -EINVAL,
			   raw_io_submit(0, 1, cbs)))
		goto out;
	io_prep_pwrite(&cb, fd, b, NW_BS, 0);
	cb.aio_rw_flags = RWF_NOWAIT;
	cb.key = NW_KEY_MARK;
	nw_expect_res(c, "io_submit, valid iocb, context 0", -EINVAL,
		      raw_io_submit(0, 1, cbs)) &&
	nw_expect_res(c, "aio_key (never stored)", NW_KEY_MARK, cb.key) &&
	nw_expect_content(c, fd, 0, NW_BS, 0x11);
out:
	close(fd);
}

static void aio_key_readonly(struct nw_ctx *c)
{
	int fd = overwrite_file(c);
	void *b = nw_buf(NW_BS, 0x48);
	struct iocb *cb;
	struct io_event ev;
	long submit;

	if (fd < 0)
		return;
	aio_warm(fd, nw_buf(NW_BS, 0x11));
	cb = mmap(NULL, 4096, PROT_READ | PROT_WRITE,
		  MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (cb == MAP_FAILED) {
		nw_fail(c, "mmap: %s", strerror(errno));
		goto out;
	}
	io_prep_pwrite(cb, fd, b, NW_BS, 0);
	cb->aio_rw_flags = RWF_NOWAIT;
	mprotect(cb, 4096, PROT_READ);
	nw_aio_submit_raw(&cb, 1, &submit, &ev, 1);
	nw_expect_res(c, "io_submit", -EFAULT, submit) &&
	nw_expect_content(c, fd, 0, NW_BS, 0x11);
	munmap(cb, 4096);
out:
	close(fd);
}

static void aio_bad_opcode(struct nw_ctx *c)
{
	int fd = overwrite_file(c);
	void *b = nw_buf(NW_BS, 0x49);
	struct iocb cb, *cbs[1] = { &cb };
	struct io_event ev;
	long submit;

	if (fd < 0)
		return;
	aio_warm(fd, nw_buf(NW_BS, 0x11));
	io_prep_pwrite(&cb, fd, b, NW_BS, 0);
	cb.aio_lio_opcode = 99;
	cb.aio_rw_flags = RWF_NOWAIT;
	cb.key = NW_KEY_MARK;
	nw_aio_submit_raw(cbs, 1, &submit, &ev, 1);
	nw_expect_res(c, "io_submit", -EINVAL, submit) &&
	nw_expect_res(c, "aio_key (stored before the opcode)", 0, cb.key) &&
	nw_expect_content(c, fd, 0, NW_BS, 0x11);
	close(fd);
}

/*
 * 4.14: a write to a file not open for writing is EBADF (aio_write()'s
 * first test), with RWF_DSYNC too: the flags are valid, and checked
 * before it.  Before 4.7 the module carries RWF_DSYNC itself where it
 * hooks the file's writes, and refused it first with EOPNOTSUPP on any
 * other file (found by the fuzzer on 4.4.220 with a pipe's read end).
 */
static void aio_dsync_readonly(struct nw_ctx *c)
{
	void *b = nw_buf(NW_BS, 0x4a);
	struct iocb cb, *cbs[1] = { &cb };
	struct io_event ev;
	long submit;
	int p[2];

	if (pipe(p)) {
		nw_fail(c, "pipe: ok vs errno %d", errno);
		return;
	}
	io_prep_pwrite(&cb, p[0], b, NW_BS, 0);
	cb.aio_rw_flags = RWF_DSYNC;
	nw_aio_submit_raw(cbs, 1, &submit, &ev, 1);
	nw_expect_res(c, "io_submit to a pipe's read end", -EBADF, submit);
	close(p[0]);
	close(p[1]);
}

/* The iocb's memory is not changed by a refusal, nor its flags by success */
static void aio_iocb_untouched(struct nw_ctx *c)
{
	int fd = overwrite_file(c);
	struct iocb cb, copy, *cbs[1] = { &cb };
	struct io_event ev;
	long submit;
	void *b = nw_buf(NW_BS, 0x46);

	if (fd < 0)
		return;
	io_prep_pwrite(&cb, fd, b, NW_BS, 0);
	cb.aio_rw_flags = RWF_NOWAIT | RWF_DSYNC;
	memcpy(&copy, &cb, sizeof(cb));
	nw_aio_submit_raw(cbs, 1, &submit, &ev, 1);
	nw_expect_res(c, "io_submit", 1, submit) &&
	nw_expect_res(c, "aio_rw_flags after submit", RWF_NOWAIT | RWF_DSYNC,
		      cb.aio_rw_flags) &&
	nw_expect_true(c, "iocb bytes other than aio_key unchanged",
		       !memcmp(&cb.aio_lio_opcode, &copy.aio_lio_opcode,
			       sizeof(cb) - offsetof(struct iocb, aio_lio_opcode)));
	close(fd);
}

static void pwritev2_nowait(struct nw_ctx *c)
{
	int fd = overwrite_file(c);
	void *b = nw_buf(NW_BS, 0x61);

	if (fd < 0)
		return;
	nw_expect_res(c, "pwritev2", NW_BS,
		      nw_pwritev2(fd, b, NW_BS, 0, RWF_NOWAIT)) &&
	nw_expect_content(c, fd, 0, NW_BS, 0x61);
	close(fd);
}

static void preadv2_nowait(struct nw_ctx *c)
{
	int fd = overwrite_file(c);
	unsigned char *b = nw_buf(NW_BS, 0);

	if (fd < 0)
		return;
	nw_expect_res(c, "preadv2", NW_BS,
		      nw_preadv2(fd, b, NW_BS, 0, RWF_NOWAIT)) &&
	nw_expect_true(c, "data read", b[100] == 0x11);
	close(fd);
}

static void pwritev2_dsync(struct nw_ctx *c)
{
	int fd = overwrite_file(c);
	void *b = nw_buf(NW_BS, 0x62);

	if (fd < 0)
		return;
	nw_expect_res(c, "pwritev2", NW_BS,
		      nw_pwritev2(fd, b, NW_BS, 0, RWF_NOWAIT | RWF_DSYNC)) &&
	nw_expect_content(c, fd, 0, NW_BS, 0x62);
	close(fd);
}

static void pwritev2_unknown(struct nw_ctx *c)
{
	int fd = overwrite_file(c);
	void *b = nw_buf(NW_BS, 0x63);
	struct nw_snap s;

	if (fd < 0 || !nw_snap_take(c, F, &s))
		return;
	nw_expect_res(c, "pwritev2", -EOPNOTSUPP,
		      nw_pwritev2(fd, b, NW_BS, 0, NW_UNKNOWN_RWF)) &&
	nw_expect_unchanged(c, F, &s);
	close(fd);
}

/*
 * Buffered NOWAIT write: EOPNOTSUPP from ->write_iter on 4.14 ext4/XFS/btrfs.
 * Later kernels: ext4 still EOPNOTSUPP (6.1 ext4_buffered_write_iter); XFS
 * gained async buffered writes in 6.0 ("xfs: Add async buffered write
 * support") and btrfs in 6.1 ("btrfs: add support for async buffered
 * writes"): there the write may succeed, or refuse with EAGAIN untouched.
 */
static void pwritev2_buffered(struct nw_ctx *c)
{
	int fd;
	void *b = nw_buf(NW_BS, 0x64);
	struct nw_snap s;
	long r;

	fd = nw_make_file(c, F, 65536, 65536, c->fs == NW_BTRFS ? -0x11 : 0x11);
	if (fd < 0)
		return;
	/*
	 * The same flag on a direct write is taken: the buffered refusal is
	 * the filesystem's rule, not a kernel that rejects the flag outright.
	 */
	r = nw_pwritev2(fd, b, NW_BS, 65536 - NW_BS, RWF_NOWAIT);
	if (r != -EAGAIN && !nw_expect_res(c, "direct pwritev2 (precondition)",
					   NW_BS, r))
		return;
	close(fd);
	fd = nw_open(c, F, O_RDWR);
	if (fd < 0 || !nw_snap_take(c, F, &s))
		return;
	r = nw_pwritev2(fd, b, NW_BS, 0, RWF_NOWAIT);
	if (c->fs != NW_EXT4 && nw_kver_ge(c, KV(6, 0, 0))) {
		if (r == NW_BS) {
			nw_expect_content(c, fd, 0, NW_BS, 0x64);
		} else {
			nw_expect_res(c, "pwritev2 (async buffered write)",
				      -EAGAIN, r) &&
			nw_expect_unchanged(c, F, &s);
		}
	} else {
		nw_expect_res(c, "pwritev2", -EOPNOTSUPP, r) &&
		nw_expect_unchanged(c, F, &s);
	}
	close(fd);
}

/*
 * An empty buffered NOWAIT write through io_submit: 4.14's
 * xfs_file_write_iter() returns 0 for an empty write before its NOWAIT
 * test, ext4_file_write_iter() and btrfs_file_write_iter() refuse first
 * (EOPNOTSUPP).  6.1: the same (ext4_buffered_write_iter() refuses first,
 * XFS and btrfs take async buffered writes and write nothing).  Nothing is
 * written either way.
 */
static void aio_buffered_empty(struct nw_ctx *c)
{
	long want = c->fs == NW_XFS ? 0 : -EOPNOTSUPP;

	/* 6.1: "btrfs: add support for async buffered writes" */
	if (c->fs == NW_BTRFS && nw_kver_ge(c, KV(6, 1, 0)))
		want = 0;
	aio_buffered_expect(c, 0, want);
}

/* No FMODE_NOWAIT (tmpfs, 9p): EOPNOTSUPP at submission, on both paths */
static void unsupported_fs(struct nw_ctx *c, const char *dir, const char *name)
{
	char p[512];
	int fd;
	void *b = nw_buf(NW_BS, 0x71);
	struct nw_aio_res r;

	if (!dir) {
		nw_skip(c, "%s is not mounted in this run", name);
		return;
	}
	snprintf(p, sizeof(p), "%s/nwconf-unsupported.dat", dir);
	unlink(p);
	fd = open(p, O_RDWR | O_CREAT, 0644);
	if (fd < 0 || pwrite(fd, b, NW_BS, 0) != NW_BS) {
		nw_fail(c, "setup on %s: ok vs errno %d", name, errno);
		return;
	}
	nw_expect_rwf(c, "pwritev2", -EOPNOTSUPP,
		      nw_pwritev2(fd, b, NW_BS, 0, RWF_NOWAIT)) &&
	nw_expect_rwf(c, "preadv2", -EOPNOTSUPP,
		      nw_preadv2(fd, b, NW_BS, 0, RWF_NOWAIT));
	if (c->failed)
		goto out;
	r = nw_aio_rw(fd, IO_CMD_PWRITE, b, NW_BS, 0, RWF_NOWAIT);
	nw_expect_res(c, "io_submit", -EOPNOTSUPP, r.submit);
out:
	close(fd);
	unlink(p);
}

static void unsupported_tmpfs(struct nw_ctx *c)
{
	unsupported_fs(c, c->env->tmpfs, "tmpfs");
}

static void unsupported_9p(struct nw_ctx *c)
{
	unsupported_fs(c, c->env->p9, "9p");
}

/*
 * The module on a kernel before 4.9 does not offer NOWAIT on btrfs: its
 * fiemap cannot see extents shared since the last commit, so a COW write
 * would pass for an in-place one.  A NOWAIT request there is refused at
 * submission as on a filesystem without FMODE_NOWAIT, and writes nothing.
 */
static void unsupported_btrfs_old(struct nw_ctx *c)
{
	char p[512];
	void *b = nw_buf(NW_BS, 0x72);
	struct nw_aio_res r;
	struct nw_snap s;
	int fd;

	if (c->env->mode != NW_MODULE || c->env->kver >= KV(4, 9, 0)) {
		nw_skip(c, "applies to the module on kernels before 4.9 only");
		return;
	}
	if (!c->env->btrfs_off) {
		nw_skip(c, "btrfs is offered here: the module found btrfs's can_nocow_extent");
		return;
	}
	if (!c->env->mnt[NW_BTRFS]) {
		nw_fail(c, "btrfs: mounted vs not mounted");
		return;
	}
	snprintf(p, sizeof(p), "%s/nwconf-old.dat", c->env->mnt[NW_BTRFS]);
	unlink(p);
	fd = open(p, O_RDWR | O_CREAT | O_DIRECT, 0644);
	if (fd < 0 || pwrite(fd, b, NW_BS, 0) != NW_BS) {
		nw_fail(c, "setup on btrfs: ok vs errno %d", errno);
		return;
	}
	fsync(fd);
	c->dir = c->env->mnt[NW_BTRFS];
	if (!nw_snap_take(c, "nwconf-old.dat", &s))
		goto out;
	memset(b, 0x73, NW_BS);
	r = nw_aio_rw(fd, IO_CMD_PWRITE, b, NW_BS, 0, RWF_NOWAIT);
	nw_expect_res(c, "io_submit", -EOPNOTSUPP, r.submit) &&
	nw_expect_unchanged(c, "nwconf-old.dat", &s);
out:
	close(fd);
	unlink(p);
}

/*
 * RWF_NOWAIT promises that the call does not wait.  The module's hooks below
 * the entry points come out after hook_idle_ms without a flagged request;
 * the first flagged request after that must not wait while ftrace puts them
 * back (10 ms under TCG): it is answered at once, with EAGAIN (nothing
 * written) while they go in from a workqueue, and the next one finds them
 * in.  Native has no such hooks: the same request is simply accepted.  The
 * rule checked on both: the first NOWAIT overwrite after an idle spell
 * returns within twice the median of NOWAIT overwrites made with the hooks
 * in after the same pause (a request after a pause costs several times one
 * in a run, natively too: 150-460 us against 56 us on 4.14.67 under TCG),
 * and writes nothing if refused.
 */
#define WARM_SAMPLES 5
#define WARM_PAUSE_US (300 * 1000)

static long warm_counter(void)
{
	char v[32];

	return nw_sysfs_rw("eagain_warmup", v, sizeof(v), 0) ? -1 : atol(v);
}

static double now_us(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return t.tv_sec * 1e6 + t.tv_nsec / 1e3;
}

/* One NOWAIT overwrite of block 0: io_submit's answer (or pwritev2's). */
static long warm_write(int fd, io_context_t ctx, int rwf, void *b,
		       double *us)
{
	struct iocb cb, *cbs[1] = { &cb };
	struct io_event ev;
	double t0 = now_us();
	long r;

	if (rwf) {
		r = nw_pwritev2(fd, b, NW_BS, 0, RWF_NOWAIT);
		*us = now_us() - t0;
		return r;
	}
	io_prep_pwrite(&cb, fd, b, NW_BS, 0);
	cb.aio_rw_flags = RWF_NOWAIT;
	r = io_submit(ctx, 1, cbs);
	*us = now_us() - t0;
	if (r == 1 && io_getevents(ctx, 1, 1, &ev, NULL) == 1)
		r = (long)ev.res == NW_BS ? 1 : (long)ev.res;
	return r;
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

/* One cold request and its verdict; 1 when it answered in time. */
static int warm_round(struct nw_ctx *c, int fd, io_context_t ctx, int rwf,
		      double warm_p50, int *bad)
{
	void *b = nw_buf(NW_BS, 0x3c);
	long w0 = warm_counter(), r;
	struct nw_snap s;
	double us;

	if (!nw_hooks_idle(c) || !nw_snap_take(c, F, &s))
		return *bad = 1;
	r = warm_write(fd, ctx, rwf, b, &us);
	printf("# %s: %s first NOWAIT write after idle: %s in %.0f us (hooks in, after a pause: median %.0f us)\n",
	       c->id, rwf ? "pwritev2" : "io_submit",
	       r == 1 || r == NW_BS ? "accepted" : strerror((int)-r), us,
	       warm_p50);
	if (c->env->mode == NW_MODULE) {
		if (!nw_expect_res(c, "first after idle", -EAGAIN, r) ||
		    !nw_expect_unchanged(c, F, &s) ||
		    !nw_expect_true(c, "eagain_warmup counted",
				    warm_counter() == w0 + 1))
			return *bad = 1;
	} else if (!nw_expect_res(c, "first after idle", rwf ? NW_BS : 1, r)) {
		return *bad = 1;
	}
	return us <= 2 * warm_p50;
}

static void warmup_case(struct nw_ctx *c, int rwf)
{
	int fd = overwrite_file(c), i, bad = 0, ok = 0;
	double us[WARM_SAMPLES];
	io_context_t ctx = 0;
	char idle0[32] = "";
	void *b = nw_buf(NW_BS, 0x3d);
	long r;

	if (fd < 0)
		return;
	if (c->env->mode == NW_MODULE &&
	    nw_sysfs_rw("hook_idle_ms", idle0, sizeof(idle0), 0)) {
		nw_fail(c, "read hook_idle_ms: ok vs failed");
		goto out;
	}
	if (io_setup(4, &ctx)) {
		nw_fail(c, "io_setup: ok vs failed");
		goto out;
	}
	/* the reference: the hooks in (hook_idle_ms=0 installs them) */
	if (c->env->mode == NW_MODULE)
		nw_sysfs_rw("hook_idle_ms", "0", 0, 1);
	for (i = 0; i < WARM_SAMPLES; i++) {
		usleep(WARM_PAUSE_US);
		r = warm_write(fd, ctx, rwf, b, &us[i]);
		if (!nw_expect_rwf(c, "warm NOWAIT write", rwf ? NW_BS : 1, r))
			goto out_ctx;
		if (rwf && r == -ENOSYS)
			goto out_ctx;	/* before 4.6: noted by nw_expect_rwf */
	}
	qsort(us, WARM_SAMPLES, sizeof(us[0]), cmp_double);
	/* a late tick can slow one call: three tries, one must be in time */
	for (i = 0; i < 3 && !ok && !bad; i++)
		ok = warm_round(c, fd, ctx, rwf, us[WARM_SAMPLES / 2], &bad);
	if (!bad)
		nw_expect_true(c, "first NOWAIT write after idle within 2x the reference median",
			       ok);
	/* and the next flagged request finds the hooks in */
	if (!bad && c->env->mode == NW_MODULE) {
		r = warm_write(fd, ctx, rwf, b, &us[0]);
		for (i = 0; i < 50 && r == -EAGAIN; i++) {
			usleep(20 * 1000);
			r = warm_write(fd, ctx, rwf, b, &us[0]);
		}
		nw_expect_res(c, "a NOWAIT write after the install",
			      rwf ? NW_BS : 1, r);
	}
out_ctx:
	io_destroy(ctx);
out:
	if (c->env->mode == NW_MODULE && idle0[0])
		nw_sysfs_rw("hook_idle_ms", idle0, 0, 1);
	close(fd);
}

/*
 * A request with RWF_DSYNC, RWF_SYNC or RWF_HIPRI but not RWF_NOWAIT after
 * a quiet spell (the module's per-request hooks out): it may wait, so it
 * is never refused with EAGAIN (4.14: io_submit 1, the event its bytes).
 */
static void aio_flags_after_idle(struct nw_ctx *c)
{
	static const unsigned int flags[] = { RWF_DSYNC, RWF_HIPRI, RWF_SYNC };
	char idle0[32] = "", what[64];
	int fd = overwrite_file(c);
	void *b = nw_buf(NW_BS, 0x27);
	struct nw_aio_res r;
	size_t i;

	if (fd < 0)
		return;
	if (c->env->mode == NW_MODULE)
		nw_sysfs_rw("hook_idle_ms", idle0, sizeof(idle0), 0);
	for (i = 0; i < 3; i++) {
		if (!nw_hooks_idle(c))
			break;
		r = nw_aio_rw(fd, IO_CMD_PWRITE, b, NW_BS, NW_BS, flags[i]);
		snprintf(what, sizeof(what), "flags %#x after idle: io_submit",
			 flags[i]);
		if (!nw_expect_res(c, what, 1, r.submit))
			break;
		snprintf(what, sizeof(what), "flags %#x after idle: event res",
			 flags[i]);
		if (!nw_expect_res(c, what, NW_BS, r.res))
			break;
	}
	if (idle0[0])
		nw_sysfs_rw("hook_idle_ms", idle0, 0, 1);
	close(fd);
}

/*
 * The first NOWAIT request after a quiet spell, one that 4.14 refuses
 * (an allocating write): io_submit counts it and its event says EAGAIN,
 * as 4.14 delivers a filesystem's refusal (aio_ret()); never EAGAIN from
 * io_submit itself, which a caller reads as "no request slot".
 */
static void aio_warmup_channel(struct nw_ctx *c)
{
	char idle0[32] = "";
	int fd = nw_make_file(c, F, 0, 65536, 0x11);
	void *b = nw_buf(NW_BS, 0x28);
	struct nw_aio_res r;

	if (fd < 0)
		return;
	if (c->env->mode == NW_MODULE)
		nw_sysfs_rw("hook_idle_ms", idle0, sizeof(idle0), 0);
	if (nw_hooks_idle(c)) {
		r = nw_aio_rw(fd, IO_CMD_PWRITE, b, NW_BS, 0, RWF_NOWAIT);
		nw_expect_res(c, "io_submit", 1, r.submit) &&
		nw_expect_res(c, "event res", -EAGAIN, r.res);
	}
	if (idle0[0])
		nw_sysfs_rw("hook_idle_ms", idle0, 0, 1);
	close(fd);
}

static void aio_warmup(struct nw_ctx *c)
{
	warmup_case(c, 0);
}

static void pwritev2_warmup(struct nw_ctx *c)
{
	warmup_case(c, 1);
}

/*
 * The cover letter's probe: "send an async direct write; any error besides
 * -EAGAIN would mean it is not supported".  It must say "supported" on a
 * NOWAIT filesystem.
 */
static void probe_cover_letter(struct nw_ctx *c)
{
	int fd = overwrite_file(c);
	void *b = nw_buf(NW_BS, 0x11);
	struct nw_aio_res r;
	int supported;

	if (fd < 0)
		return;
	r = nw_aio_rw(fd, IO_CMD_PWRITE, b, NW_BS, 0, RWF_NOWAIT);
	supported = r.submit == 1 && (r.res == NW_BS || r.res == -EAGAIN);
	nw_expect_true(c, "probe says supported", supported);
	close(fd);
}

/* tracefs, where the guest mounts it */
#define TRACING "/sys/kernel/debug/tracing"

/* write(2), not stdio: "a" mode seeks to the end, which tracefs refuses */
static int tracefs_write(const char *file, const char *text, int append)
{
	char path[256];
	ssize_t n;
	int fd;

	snprintf(path, sizeof(path), TRACING "/%s", file);
	fd = open(path, O_WRONLY | (append ? O_APPEND : O_TRUNC));
	if (fd < 0)
		return -1;
	n = write(fd, text, strlen(text));
	close(fd);
	return n == (ssize_t)strlen(text) ? 0 : -1;
}

/*
 * The vfs_fsync_range() calls the probe saw: does one cover exactly
 * [@start, @end], and does any start before @start (or below 0)?
 */
static void fsync_ranges(long long start, long long end, int *exact,
			 int *before)
{
	char line[512];
	long long a, b;
	FILE *f = fopen(TRACING "/trace", "r");
	char *p;

	*exact = *before = 0;
	while (f && fgets(line, sizeof(line), f)) {
		p = strstr(line, "nwfsync:");
		if (!p || sscanf(strstr(p, "start=") ? strstr(p, "start=") : "",
				 "start=%lld end=%lld", &a, &b) != 2)
			continue;
		if (a == start && b == end)
			*exact = 1;
		if (a == start - NW_BS && b == start - 1)
			*before = 1;
	}
	if (f)
		fclose(f);
}

/*
 * RWF_DSYNC on an asynchronous direct write: the bytes synced are the
 * bytes written.  4.14's dio_complete() calls generic_write_sync(), which
 * syncs [ki_pos - res, ki_pos - 1] after the completion moved ki_pos; so
 * does the module, which before 4.7 (async completions do not move
 * ki_pos there) syncs [ki_pos, ki_pos + res - 1].  A kprobe on
 * vfs_fsync_range() (x86-64: start in %si, end in %dx) sees the range: it
 * must hold [off, off + len - 1], and no range may start a block early,
 * as one at off - len (at offset 0: -4096) would on 4.4 had the module
 * taken 4.7's arithmetic there.  btrfs syncs by that range (its log);
 * ext4 and XFS flush the device anyway, so only btrfs would lose data.
 */
static void aio_dsync_range(struct nw_ctx *c)
{
	int fd = nw_make_file(c, F, 65536, 65536, c->fs == NW_BTRFS ? -0x11 :
							       0x11);
	void *b = nw_buf(NW_BS, 0x26);
	struct nw_aio_res r = { 0 };
	int exact = 0, before = 0, i;

	if (fd < 0)
		return;
	tracefs_write("kprobe_events", "-:nwfsync\n", 1);
	if (tracefs_write("kprobe_events",
			  "p:nwfsync vfs_fsync_range start=%si:s64 end=%dx:s64\n",
			  1) ||
	    tracefs_write("events/kprobes/nwfsync/enable", "1\n", 0)) {
		nw_skip(c, "no kprobe on vfs_fsync_range (kprobe_events: errno %d)",
			errno);
		close(fd);
		return;
	}
	tracefs_write("trace", "", 0);
	/* at 0 and at 8192; a few times, so that one completes async */
	for (i = 0; i < 4; i++) {
		r = nw_aio_rw(fd, IO_CMD_PWRITE, b, NW_BS, i & 1 ? 8192 : 0,
			      RWF_DSYNC);
		if (r.submit != 1 || r.res != NW_BS)
			break;
	}
	tracefs_write("events/kprobes/nwfsync/enable", "0\n", 0);
	if (nw_expect_res(c, "io_submit", 1, r.submit) &&
	    nw_expect_res(c, "event res", NW_BS, r.res)) {
		fsync_ranges(0, NW_BS - 1, &exact, &before);
		nw_expect_true(c, "vfs_fsync_range(0, 4095) seen", exact);
		nw_expect_true(c, "no vfs_fsync_range(-4096, -1)", !before);
		fsync_ranges(8192, 8192 + NW_BS - 1, &exact, &before);
		nw_expect_true(c, "vfs_fsync_range(8192, 12287) seen", exact);
		nw_expect_true(c, "no vfs_fsync_range(4096, 8191)", !before);
	}
	tracefs_write("kprobe_events", "-:nwfsync\n", 1);
	free(b);
	close(fd);
}

const struct nw_case nw_interface_cases[] = {
	{ "interface.aio.nowait-accepted",
	  "RWF_NOWAIT in aio_rw_flags is accepted; a direct overwrite completes", 0,
	  aio_nowait_accepted },
	{ "interface.aio.nowait-read",
	  "RWF_NOWAIT in aio_rw_flags on a direct read completes", 0,
	  aio_nowait_read },
	{ "interface.aio.unknown-flag",
	  "an unknown aio_rw_flags bit: io_submit returns EOPNOTSUPP", 0,
	  aio_unknown_flag },
	{ "interface.aio.reserved2",
	  "aio_reserved2 set: io_submit returns EINVAL (guard: all kernels)", 0, aio_reserved2 },
	{ "interface.aio.nowait-buffered",
	  "NOWAIT without O_DIRECT: iocb accepted, event res EOPNOTSUPP", 0,
	  aio_nowait_buffered },
	{ "interface.aio.dsync", "RWF_DSYNC in aio_rw_flags works", 0, aio_dsync },
	{ "interface.aio.sync", "RWF_SYNC in aio_rw_flags works", 0, aio_sync },
	{ "interface.aio.hipri", "RWF_HIPRI in aio_rw_flags works", 0, aio_hipri },
	{ "interface.aio.dsync-extend",
	  "RWF_DSYNC on an extending direct write (completes at once) works", 0,
	  aio_dsync_extend },
	{ "interface.aio.nowait-dsync",
	  "RWF_NOWAIT|RWF_DSYNC overwrite completes", 0, aio_nowait_dsync },
	{ "interface.aio.dsync-range-%s",
	  "RWF_DSYNC on an async direct write syncs the bytes written: vfs_fsync_range(off, off + len - 1)",
	  FS_ALL, aio_dsync_range },
	{ "interface.aio.batch",
	  "flags are per iocb in a batch; all complete", 0, aio_batch },
	{ "interface.aio.batch-bad-second",
	  "a bad second iocb: io_submit returns 1, the rest is not submitted", 0,
	  aio_batch_bad_second },
	{ "interface.aio.batch-bad-first",
	  "a bad first iocb: io_submit returns its error", 0,
	  aio_batch_bad_first },
	{ "interface.aio.efault",
	  "a faulting iocb pointer: io_submit returns EFAULT (guard: all kernels)", 0, aio_efault },
	{ "interface.aio.bad-ctx-first",
	  "an invalid context is io_submit's answer before a flagged iocb's own errors, and aio_key is not stored (guard: all kernels)", 0,
	  aio_bad_ctx_first },
	{ "interface.aio.key-readonly",
	  "a flagged overwrite whose aio_key cannot be stored: EFAULT, nothing written", 0,
	  aio_key_readonly },
	{ "interface.aio.bad-opcode",
	  "a flagged iocb with an unknown opcode: EINVAL, after aio_key is stored", 0,
	  aio_bad_opcode },
	{ "interface.aio.dsync-readonly",
	  "a write with RWF_DSYNC to a file not open for writing: EBADF, as without the flag", 0,
	  aio_dsync_readonly },
	{ "interface.aio.iocb-untouched",
	  "io_submit leaves the caller's iocb (but aio_key) unchanged", 0,
	  aio_iocb_untouched },
	{ "interface.pwritev2.nowait",
	  "pwritev2 accepts RWF_NOWAIT; a direct overwrite completes", 0,
	  pwritev2_nowait },
	{ "interface.preadv2.nowait",
	  "preadv2 accepts RWF_NOWAIT on a direct read", 0, preadv2_nowait },
	{ "interface.pwritev2.nowait-dsync",
	  "pwritev2 RWF_NOWAIT|RWF_DSYNC completes", 0, pwritev2_dsync },
	{ "interface.pwritev2.unknown-flag",
	  "an unknown pwritev2 flag: EOPNOTSUPP (guard: all kernels)", 0, pwritev2_unknown },
	{ "interface.aio.buffered-empty-%s",
	  "an empty buffered NOWAIT write: XFS 0 (its empty-write answer comes first), ext4/btrfs EOPNOTSUPP; nothing written",
	  FS_ALL, aio_buffered_empty },
	{ "interface.pwritev2.buffered-%s",
	  "buffered pwritev2 with RWF_NOWAIT gets upstream's errno", FS_ALL,
	  pwritev2_buffered },
	{ "interface.unsupported.tmpfs",
	  "tmpfs (no FMODE_NOWAIT) refuses RWF_NOWAIT with EOPNOTSUPP", 0,
	  unsupported_tmpfs },
	{ "interface.unsupported.btrfs-old",
	  "module before 4.9 without btrfs's can_nocow_extent: NOWAIT on btrfs is EOPNOTSUPP, nothing written",
	  0, unsupported_btrfs_old },
	{ "interface.aio.flags-after-idle",
	  "RWF_DSYNC, RWF_HIPRI or RWF_SYNC without RWF_NOWAIT after a quiet spell: never EAGAIN",
	  0, aio_flags_after_idle },
	{ "interface.aio.warmup-channel",
	  "the first NOWAIT request after a quiet spell that 4.14 refuses: io_submit 1, EAGAIN in its event",
	  0, aio_warmup_channel },
	{ "interface.aio.warmup",
	  "the first io_submit NOWAIT overwrite after an idle spell does not wait (within 2x one with the hooks in); the module's EAGAIN writes nothing",
	  0, aio_warmup },
	{ "interface.pwritev2.warmup",
	  "the first pwritev2 NOWAIT overwrite after an idle spell does not wait (within 2x one with the hooks in); the module's EAGAIN writes nothing",
	  0, pwritev2_warmup },
	{ "interface.unsupported.9p",
	  "9p (no FMODE_NOWAIT) refuses RWF_NOWAIT with EOPNOTSUPP", 0,
	  unsupported_9p },
	{ "interface.probe.cover-letter",
	  "the cover letter's probe (async direct write) says supported", 0,
	  probe_cover_letter },
	{ NULL }
};
