// SPDX-License-Identifier: GPL-2.0
/*
 * nowait-aio-probe PATH... - does RWF_NOWAIT work for this file or device?
 *
 * For each PATH it answers one line:
 *   PATH: native    (the kernel has RWF_NOWAIT, 4.13+)
 *   PATH: module    (RWF_NOWAIT through the nowait_aio module)
 *   PATH: none: <reason>
 * and, per entry point, whether io_submit and preadv2/pwritev2 take it.
 * It writes nothing: the probes are a zero-length direct write through
 * io_submit (the flags are checked before the length; a one-block read on
 * a device node, or on a file the caller may only read) and a one-block
 * direct read through preadv2, which kernels before 4.6 do not have.
 * Exit status: 0 if every PATH supports NOWAIT, 1 if one does not, 2 on a
 * usage or open error.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <linux/aio_abi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/uio.h>
#include <sys/utsname.h>
#include <unistd.h>

#include "nowait_aio.h"

#ifndef NW_VERSION
#define NW_VERSION "unknown"
#endif

static int native_kernel(void)
{
	struct utsname u;
	unsigned int a = 0, b = 0;

	uname(&u);
	sscanf(u.release, "%u.%u", &a, &b);
	return a > 4 || (a == 4 && b >= 13);
}

static int module_state(void)	/* -1 absent, 0 disabled, 1 enabled */
{
	FILE *f = fopen(NOWAIT_AIO_SYSFS "/enabled", "r");
	int v = 0;

	if (!f)
		return -1;
	if (fscanf(f, "%d", &v) != 1)
		v = 0;
	fclose(f);
	return v ? 1 : 0;
}

/*
 * io_submit of a zero-length NOWAIT direct write, or of a one-block read
 * when the descriptor is read-only; returns 0 or -errno
 */
static long probe_aio(int fd, int rd)
{
	aio_context_t ctx = 0;
	struct iocb cb, *cbs[1] = { &cb };
	struct io_event ev;
	struct timespec ts = { .tv_sec = 5 };
	static char buf[4096] __attribute__((aligned(4096)));
	long r;

	if (syscall(__NR_io_setup, 1, &ctx))
		return -errno;
	memset(&cb, 0, sizeof(cb));
	cb.aio_fildes = fd;
	cb.aio_lio_opcode = rd ? IOCB_CMD_PREAD : IOCB_CMD_PWRITE;
	cb.aio_buf = (unsigned long)buf;
	cb.aio_nbytes = rd ? sizeof(buf) : 0;
	cb.aio_rw_flags = RWF_NOWAIT;
	r = syscall(__NR_io_submit, ctx, 1, cbs);
	if (r < 0) {
		r = -errno;
	} else if (syscall(__NR_io_getevents, ctx, 1, 1, &ev, &ts) == 1) {
		/* EAGAIN is "supported, would block now" (cover letter) */
		r = (long)ev.res == -EAGAIN ? 0 : (long)ev.res < 0 ? ev.res : 0;
	} else {
		r = -ETIMEDOUT;
	}
	syscall(__NR_io_destroy, ctx);
	return r;
}

static long probe_preadv2(int fd)
{
	static char buf[4096] __attribute__((aligned(4096)));
	struct iovec iov = { .iov_base = buf, .iov_len = sizeof(buf) };
	long r = syscall(__NR_preadv2, fd, &iov, 1, 0UL, 0UL, RWF_NOWAIT);

	if (r >= 0 || errno == EAGAIN)
		return 0;
	return -errno;
}

static const char *why(long err, int mod)
{
	switch (-err) {
	case EINVAL:
		return mod < 0 ? "this kernel predates RWF_NOWAIT (4.13) and the nowait_aio module is not loaded" :
		       mod == 0 ? "the nowait_aio module is loaded but disabled (/sys/kernel/nowait_aio/enabled is 0)" :
		       "the kernel rejected the request (EINVAL)";
	case EOPNOTSUPP:
		return "this filesystem or device does not support RWF_NOWAIT (EOPNOTSUPP)";
	case ENOSYS:
		return "this kernel has no preadv2/pwritev2 (they arrived in 4.6): use io_submit";
	default:
		return strerror((int)-err);
	}
}

/*
 * Read-write for a file (the write path is the one NOWAIT users care
 * about), read-only for a device node, or for a file the caller may only
 * read; *rd says which
 */
static int open_direct(const char *path, int blk, int *rd)
{
	int fd = -1;

	*rd = blk;
	if (!blk)
		fd = open(path, O_RDWR | O_DIRECT);
	if (!blk && fd < 0 && errno != EACCES && errno != EROFS &&
	    errno != EPERM && errno != ETXTBSY)
		return fd;
	if (fd < 0) {
		*rd = 1;
		fd = open(path, O_RDONLY | O_DIRECT);
	}
	return fd;
}

static int probe(const char *path)
{
	int native = native_kernel(), mod = module_state(), fd, rd;
	struct stat st;
	long a, p;

	if (stat(path, &st)) {
		fprintf(stderr, "nowait-aio-probe: %s: %s\n", path, strerror(errno));
		return 2;
	}
	if (!S_ISREG(st.st_mode) && !S_ISBLK(st.st_mode)) {
		printf("%s: none: not a regular file or block device, and RWF_NOWAIT covers direct I/O to those only\n",
		       path);
		return 1;
	}
	fd = open_direct(path, S_ISBLK(st.st_mode), &rd);
	if (fd < 0 && errno == EINVAL) {
		printf("%s: none: the filesystem has no O_DIRECT, and RWF_NOWAIT covers direct I/O only\n",
		       path);
		return 1;
	}
	if (fd < 0) {
		fprintf(stderr, "nowait-aio-probe: %s: %s\n", path, strerror(errno));
		return 2;
	}
	a = probe_aio(fd, rd);
	p = probe_preadv2(fd);
	close(fd);
	if (a && (p || p == -ENOSYS)) {
		printf("%s: none: %s\n", path, why(a, mod));
		return 1;
	}
	printf("%s: %s (io_submit: %s; preadv2/pwritev2: %s%s)\n", path,
	       native ? "native" : "module", a ? why(a, mod) : "yes",
	       p ? why(p, mod) : "yes",
	       rd && !S_ISBLK(st.st_mode) ? "; read-only: writes not probed" : "");
	return a ? 1 : 0;
}

static int usage(FILE *f, int rc)
{
	fprintf(f, "usage: nowait-aio-probe [--] PATH...\n"
		"       nowait-aio-probe --help | --version\n"
		"Tells whether RWF_NOWAIT works for each file or block device:\n"
		"natively, through the nowait_aio module, or not at all (and why).\n");
	return rc;
}

int main(int argc, char **argv)
{
	int i = 1, rc = 0, r;

	/* results and errors in order when both go to one file */
	setvbuf(stdout, NULL, _IOLBF, 0);
	if (argc == 2 && (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h")))
		return usage(stdout, 0);
	if (argc == 2 && !strcmp(argv[1], "--version")) {
		printf("nowait-aio-probe %s\n", NW_VERSION);
		return 0;
	}
	if (argc > 1 && !strcmp(argv[1], "--"))
		i++;
	else if (argc > 1 && argv[1][0] == '-' && argv[1][1]) {
		fprintf(stderr, "nowait-aio-probe: unknown option '%s' (a path that starts with '-' goes after '--')\n",
			argv[1]);
		return usage(stderr, 2);
	}
	if (i >= argc)
		return usage(stderr, 2);
	for (; i < argc; i++) {
		r = probe(argv[i]);
		if (r > rc)
			rc = r;
	}
	return rc;
}
