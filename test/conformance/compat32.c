// SPDX-License-Identifier: GPL-2.0
/*
 * nwconf32 - the 32-bit compat entry points (built with -m32, run on the
 * 64-bit kernel): compat io_submit and compat preadv2/pwritev2 must carry
 * the RWF_* flags exactly like the native ones.  Upstream had to fix a
 * compat path that dropped them ("fs: pass on flags in compat_writev");
 * a dropped RWF_NOWAIT shows up as a hole write that blocks and succeeds
 * instead of EAGAIN.
 *
 *   nwconf32 DIR     (DIR on ext4; prints nwconf-style lines)
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <linux/aio_abi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <sys/uio.h>
#include <unistd.h>

#include "nowait_aio.h"

#define BS 4096
static int np, nf, ns;
static char dir[256];

static void report(const char *id, const char *what, long want, long got)
{
	if (got == -ENOSYS && want != -ENOSYS) {
		/* preadv2/pwritev2 arrived in 4.6 */
		printf("skip %s - preadv2/pwritev2 arrived in 4.6; this kernel has neither (NOWAIT is io_submit only here)\n",
		       id);
		ns++;
	} else if (want == got) {
		printf("ok %s - %s\n", id, what);
		np++;
	} else {
		printf("not ok %s - %s: %ld vs %ld\n", id, what, want, got);
		nf++;
	}
}

static void report2(const char *id, const char *what, long want_sub,
		    long want_res, long sub, long res)
{
	if (want_sub == sub && want_res == res) {
		printf("ok %s - %s\n", id, what);
		np++;
	} else {
		printf("not ok %s - %s: io_submit %ld res %ld vs io_submit %ld res %ld\n",
		       id, what, want_sub, want_res, sub, res);
		nf++;
	}
}

static int mkfile(const char *name, int written, off_t size)
{
	char p[512];
	void *b;
	int fd;

	snprintf(p, sizeof(p), "%s/%s", dir, name);
	unlink(p);
	fd = open(p, O_RDWR | O_CREAT | O_DIRECT, 0644);
	if (fd < 0 || posix_memalign(&b, BS, 65536))
		return -1;
	memset(b, 0x11, 65536);
	if (written && pwrite(fd, b, written, 0) != written)
		return -1;
	if (ftruncate(fd, size))
		return -1;
	fsync(fd);
	free(b);
	return fd;
}

/* one iocb through the compat io_submit: returns submit, *res the event */
static long aio1(int fd, int op, void *buf, off_t off, unsigned int flags,
		 long *res)
{
	aio_context_t ctx = 0;
	struct iocb cb, *cbs[1] = { &cb };
	struct io_event ev;
	struct timespec ts = { .tv_sec = 10 };
	long r;

	*res = -99999;
	if (syscall(SYS_io_setup, 8, &ctx))
		return -errno;
	memset(&cb, 0, sizeof(cb));
	cb.aio_fildes = fd;
	cb.aio_lio_opcode = op;
	cb.aio_buf = (unsigned long)buf;
	cb.aio_nbytes = BS;
	cb.aio_offset = off;
	cb.aio_rw_flags = flags;
	r = syscall(SYS_io_submit, ctx, 1, cbs);
	if (r < 0)
		r = -errno;
	else if (syscall(SYS_io_getevents, ctx, 1, 1, &ev, &ts) == 1)
		*res = (long)ev.res;
	syscall(SYS_io_destroy, ctx);
	return r;
}

static long rw2(int nr, int fd, void *buf, off_t off, int flags)
{
	struct iovec iov = { .iov_base = buf, .iov_len = BS };
	long r = syscall(nr, fd, &iov, 1, (unsigned long)off,
			 (unsigned long)((unsigned long long)off >> 32), flags);

	return r < 0 ? -errno : r;
}

int main(int argc, char **argv)
{
	void *b;
	long sub, res;
	int fd;

	if (argc != 2)
		return 2;
	snprintf(dir, sizeof(dir), "%s", argv[1]);
	if (posix_memalign(&b, BS, BS))
		return 2;
	memset(b, 0x5a, BS);

	fd = mkfile("c32-over.dat", 65536, 65536);
	sub = aio1(fd, IOCB_CMD_PWRITE, b, 0, RWF_NOWAIT, &res);
	report2("interface.compat32.aio-nowait",
		"compat io_submit takes RWF_NOWAIT; an overwrite completes",
		1, BS, sub, res);
	sub = aio1(fd, IOCB_CMD_PWRITE, b, 0, 0x40000000, &res);
	report("interface.compat32.aio-unknown-flag", "compat io_submit: an unknown flag is EOPNOTSUPP",
	       -EOPNOTSUPP, sub);
	report("interface.compat32.pwritev2-nowait", "compat pwritev2 takes RWF_NOWAIT; an overwrite completes",
	       BS, rw2(SYS_pwritev2, fd, b, BS, RWF_NOWAIT));
	report("interface.compat32.preadv2-nowait", "compat preadv2 takes RWF_NOWAIT on a direct read",
	       BS, rw2(SYS_preadv2, fd, b, 0, RWF_NOWAIT));
	close(fd);

	/* the flag must take effect, not just be accepted */
	fd = mkfile("c32-hole.dat", 0, 1 << 20);
	report("interface.compat32.pwritev2-hole", "compat pwritev2 RWF_NOWAIT into a hole: EAGAIN (flag not dropped)",
	       -EAGAIN, rw2(SYS_pwritev2, fd, b, 65536, RWF_NOWAIT));
	sub = aio1(fd, IOCB_CMD_PWRITE, b, 65536, RWF_NOWAIT, &res);
	report2("interface.compat32.aio-hole",
		"compat io_submit RWF_NOWAIT into a hole: event res EAGAIN",
		1, -EAGAIN, sub, res);
	close(fd);
	printf("%d passed, %d failed, %d skipped\n", np, nf, ns);
	return nf ? 1 : 0;
}
