// SPDX-License-Identifier: GPL-2.0
/*
 * module.hostile.*: values a caller chooses to hurt the kernel.
 *
 * Upstream rule (4.14's io_submit: lookup_ioctx(), copy_from_user() of the
 * iocb pointers and iocbs, aio_setup_rw()'s import of the buffer, all with
 * the caller's address limit): a context id, an iocb pointer or a buffer
 * that is not the caller's memory is refused (EINVAL for the context,
 * EFAULT for the rest) and nothing of the kernel is read into a file or
 * written from one.  With the module the same holds with the per-request
 * hooks in and out, and while ftrace is switched off and on under flagged
 * requests (the module never changes the address limit around the
 * kernel's io_submit).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "nwconf.h"

#define F "hostile.dat"

static long sys_io_submit(unsigned long ctx, long nr, void *iocbpp)
{
	long r = syscall(SYS_io_submit, ctx, nr, iocbpp);

	return r < 0 ? -errno : r;
}

/* A kernel address from kallsyms (root sees them), else the usual base. */
static unsigned long kernel_addr(const char *sym)
{
	char line[256], name[128], type;
	unsigned long a, found = 0;
	FILE *f = fopen("/proc/kallsyms", "r");

	while (f && !found && fgets(line, sizeof(line), f))
		if (sscanf(line, "%lx %c %127s", &a, &type, name) == 3 &&
		    !strcmp(name, sym))
			found = a;
	if (f)
		fclose(f);
	return found ? found : 0xffffffff81000000UL;
}

static int hostile_file(struct nw_ctx *c)
{
	return nw_make_file(c, F, 65536, 65536, 0x11);
}

/* Does the file hold a piece of the kernel's banner? */
static int file_has_banner(int fd)
{
	char b[65536 + 1];
	ssize_t n = pread(fd, b, sizeof(b) - 1, 0);

	if (n <= 0)
		return 0;
	b[n] = 0;
	return memmem(b, (size_t)n, "Linux version", 13) != NULL;
}

/* The same answer with the per-request hooks in, then out (module). */
typedef void (*hostile_round)(struct nw_ctx *c, int fd, const char *when);

static void in_and_out(struct nw_ctx *c, hostile_round round)
{
	char idle0[32] = "";
	int fd = hostile_file(c);

	if (fd < 0)
		return;
	if (c->env->mode == NW_MODULE)
		nw_sysfs_rw("hook_idle_ms", idle0, sizeof(idle0), 0);
	round(c, fd, "hooks in");
	if (!c->failed && nw_hooks_idle(c))
		round(c, fd, "hooks out");
	if (idle0[0])
		nw_sysfs_rw("hook_idle_ms", idle0, 0, 1);
	close(fd);
}

static void ctx_round(struct nw_ctx *c, int fd, const char *when)
{
	void *b = nw_buf(NW_BS, 0x21);
	struct iocb cb, plain, *cbs[2] = { &plain, &cb };
	io_context_t dead = 0;
	unsigned long bad[6];
	char what[160];
	size_t i;

	io_setup(4, &dead);
	io_destroy(dead);
	bad[0] = kernel_addr("_text");
	bad[1] = kernel_addr("linux_banner");
	bad[2] = 0x1000;			/* unmapped, user half */
	bad[3] = 0x8000000000000000UL;	/* not canonical */
	bad[4] = ~0UL & ~4095UL;
	bad[5] = (unsigned long)dead;		/* a freed context */
	io_prep_pwrite(&cb, fd, b, NW_BS, 0);
	cb.aio_rw_flags = RWF_NOWAIT;
	io_prep_pwrite(&plain, fd, b, NW_BS, NW_BS);
	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		snprintf(what, sizeof(what), "%s: ctx_id %#lx, one NOWAIT iocb",
			 when, bad[i]);
		if (!nw_expect_res(c, what, -EINVAL,
				   sys_io_submit(bad[i], 1, &cbs[1])))
			return;
		snprintf(what, sizeof(what),
			 "%s: ctx_id %#lx, a plain iocb then a NOWAIT one",
			 when, bad[i]);
		if (!nw_expect_res(c, what, -EINVAL,
				   sys_io_submit(bad[i], 2, cbs)))
			return;
	}
}

static void hostile_ctx(struct nw_ctx *c)
{
	in_and_out(c, ctx_round);
}

static void iocbpp_round(struct nw_ctx *c, int fd, const char *when)
{
	unsigned long kaddr = kernel_addr("linux_banner");
	struct iocb *cbs[1] = { (struct iocb *)kaddr };
	io_context_t ctx = 0;
	char what[160];

	if (io_setup(4, &ctx)) {
		nw_fail(c, "io_setup: ok vs failed");
		return;
	}
	snprintf(what, sizeof(what), "%s: the iocb array at a kernel address",
		 when);
	if (nw_expect_res(c, what, -EFAULT,
			  sys_io_submit((unsigned long)ctx, 1, (void *)kaddr))) {
		snprintf(what, sizeof(what), "%s: an iocb at a kernel address",
			 when);
		if (nw_expect_res(c, what, -EFAULT,
				  sys_io_submit((unsigned long)ctx, 1, cbs))) {
			cbs[0] = (struct iocb *)0x1000;
			snprintf(what, sizeof(what),
				 "%s: an iocb at an unmapped address", when);
			nw_expect_res(c, what, -EFAULT,
				      sys_io_submit((unsigned long)ctx, 1,
						    cbs));
		}
	}
	io_destroy(ctx);
}

static void hostile_iocbpp(struct nw_ctx *c)
{
	in_and_out(c, iocbpp_round);
}

/*
 * A NOWAIT write from, and a read into, a kernel address: EFAULT from
 * io_submit (aio_setup_rw()), nothing of the kernel in the file.  With the
 * hooks in: while they are out a NOWAIT request is refused with EAGAIN
 * before the buffer is looked at (README: How it works).
 */
static void hostile_buf(struct nw_ctx *c)
{
	unsigned long kaddr = kernel_addr("linux_banner");
	struct iocb cb, *cbs[1] = { &cb };
	struct iovec iov = { .iov_base = (void *)kaddr, .iov_len = NW_BS };
	struct io_event ev;
	long submit;
	int fd = hostile_file(c);

	if (fd < 0)
		return;
	io_prep_pwrite(&cb, fd, (void *)kaddr, NW_BS, 0);
	cb.aio_rw_flags = RWF_NOWAIT;
	nw_aio_submit_raw(cbs, 1, &submit, &ev, 1);
	if (!nw_expect_res(c, "NOWAIT write from a kernel address", -EFAULT,
			   submit))
		goto out;
	io_prep_pread(&cb, fd, (void *)kaddr, NW_BS, 0);
	cb.aio_rw_flags = RWF_NOWAIT;
	nw_aio_submit_raw(cbs, 1, &submit, &ev, 1);
	if (!nw_expect_res(c, "NOWAIT read into a kernel address", -EFAULT,
			   submit))
		goto out;
	io_prep_pwritev(&cb, fd, &iov, 1, 0);
	cb.aio_rw_flags = RWF_NOWAIT;
	nw_aio_submit_raw(cbs, 1, &submit, &ev, 1);
	if (!nw_expect_res(c, "NOWAIT writev of a kernel iovec", -EFAULT,
			   submit))
		goto out;
	cb.u.v.vec = (struct iovec *)kaddr;	/* the array in the kernel */
	nw_aio_submit_raw(cbs, 1, &submit, &ev, 1);
	if (nw_expect_res(c, "NOWAIT writev, its iovec array in the kernel",
			  -EFAULT, submit))
		nw_expect_true(c, "no kernel bytes in the file",
			       !file_has_banner(fd));
out:
	close(fd);
}

/* A NOWAIT iocb's eventfd that is not one: EBADF, EINVAL. */
static void hostile_resfd(struct nw_ctx *c)
{
	void *b = nw_buf(NW_BS, 0x22);
	struct iocb cb, *cbs[1] = { &cb };
	struct io_event ev;
	long submit;
	int fd = hostile_file(c);

	if (fd < 0)
		return;
	io_prep_pwrite(&cb, fd, b, NW_BS, 0);
	cb.aio_rw_flags = RWF_NOWAIT;
	io_set_eventfd(&cb, 1000000);
	nw_aio_submit_raw(cbs, 1, &submit, &ev, 1);
	if (nw_expect_res(c, "aio_resfd not open", -EBADF, submit)) {
		io_set_eventfd(&cb, fd);
		nw_aio_submit_raw(cbs, 1, &submit, &ev, 1);
		nw_expect_res(c, "aio_resfd a regular file", -EINVAL, submit);
	}
	close(fd);
}

struct ftrace_flip {
	volatile int stop;
	int flips;
};

static void *flip_ftrace(void *arg)
{
	struct ftrace_flip *f = arg;
	int fd = open("/proc/sys/kernel/ftrace_enabled", O_WRONLY);

	while (fd >= 0 && !f->stop && f->flips < 40) {
		if (pwrite(fd, "0", 1, 0) != 1)
			break;
		usleep(2000);
		if (pwrite(fd, "1", 1, 0) != 1)
			break;
		f->flips++;
		usleep(3000);
	}
	if (fd >= 0) {
		if (pwrite(fd, "1", 1, 0) != 1)
			f->flips = -1;
		close(fd);
	}
	return NULL;
}

/*
 * ftrace switched off and on under flagged requests (before 5.2 the
 * module's hooks go with it): a NOWAIT write from a kernel address is
 * EFAULT, or EINVAL while the kernel refuses the flags itself; a valid
 * one is written or refused; never a kernel byte in the file.
 */
static void hostile_ftrace_off(struct nw_ctx *c)
{
	unsigned long kaddr = kernel_addr("linux_banner");
	void *b = nw_buf(NW_BS, 0x23);
	struct iocb cb, *cbs[1] = { &cb };
	struct ftrace_flip f = { 0, 0 };
	struct io_event ev;
	pthread_t t;
	long submit;
	int fd = hostile_file(c), i, bad = 0;

	if (fd < 0)
		return;
	if (access("/proc/sys/kernel/ftrace_enabled", W_OK)) {
		nw_skip(c, "no writable kernel.ftrace_enabled");
		close(fd);
		return;
	}
	pthread_create(&t, NULL, flip_ftrace, &f);
	for (i = 0; i < 400 && !bad; i++) {
		int k = i & 1;

		io_prep_pwrite(&cb, fd, k ? (void *)kaddr : b, NW_BS,
			       (i % 16) * NW_BS);
		cb.aio_rw_flags = RWF_NOWAIT;
		ev.res = 0;
		nw_aio_submit_raw(cbs, 1, &submit, &ev, 1);
		if (k && submit != -EFAULT && submit != -EINVAL)
			bad = !nw_expect_res(c, "kernel buffer: EFAULT or EINVAL",
					     -EFAULT, submit);
		if (!k && submit != -EINVAL && !(submit == 1 &&
		    ((long)ev.res == NW_BS || (long)ev.res == -EAGAIN)))
			bad = !nw_expect_res(c, "valid NOWAIT write", 1,
					     submit);
	}
	f.stop = 1;
	pthread_join(t, NULL);
	if (!bad)
		nw_expect_true(c, "ftrace_enabled flipped and left on",
			       f.flips > 0) &&
		nw_expect_true(c, "no kernel bytes in the file",
			       !file_has_banner(fd));
	close(fd);
}

const struct nw_case nw_hostile_cases[] = {
	{ "module.hostile.ctx",
	  "a context id that is a kernel, unmapped, non-canonical or freed address: EINVAL, hooks in and out",
	  0, hostile_ctx },
	{ "module.hostile.iocbpp",
	  "iocb pointers at kernel or unmapped addresses: EFAULT, hooks in and out",
	  0, hostile_iocbpp },
	{ "module.hostile.buf",
	  "a NOWAIT request's buffer or iovec at a kernel address: EFAULT, no kernel byte in the file",
	  0, hostile_buf },
	{ "module.hostile.resfd",
	  "a NOWAIT request's aio_resfd not an eventfd: EBADF, EINVAL",
	  0, hostile_resfd },
	{ "module.hostile.ftrace-off",
	  "ftrace switched off and on under NOWAIT requests: EFAULT or EINVAL for a kernel buffer, never a kernel byte in the file",
	  0, hostile_ftrace_off },
	{ NULL, NULL, 0, NULL },
};
