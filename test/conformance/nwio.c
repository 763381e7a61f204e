// SPDX-License-Identifier: GPL-2.0
/*
 * nwconf I/O helpers: files with known layouts, raw pwritev2/preadv2,
 * libaio submission with the result channel kept apart (io_submit's return
 * value vs the completion event's res), snapshots, and userfaultfd-based
 * holders that keep an inode lock or a direct write busy deterministically.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <linux/fiemap.h>
#include <linux/fs.h>
#include <linux/userfaultfd.h>
#include <poll.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/uio.h>
#include <unistd.h>

#include "nwconf.h"

void *nw_buf(size_t len, int pattern)
{
	void *p = NULL;

	if (posix_memalign(&p, NW_BS, len ? len : NW_BS))
		return NULL;
	memset(p, pattern, len);
	return p;
}

static void path_of(struct nw_ctx *c, const char *name, char *buf, size_t len)
{
	snprintf(buf, len, "%s/%s", c->dir, name);
}

int nw_open(struct nw_ctx *c, const char *name, int flags)
{
	char p[512];
	int fd;

	path_of(c, name, p, sizeof(p));
	fd = open(p, flags, 0644);
	if (fd < 0) {
		nw_fail(c, "open %s: ok vs errno %d", p, errno);
		return -1;
	}
	return fd;
}

void nw_drop_cache(int fd)
{
	fdatasync(fd);
	posix_fadvise(fd, 0, 0, POSIX_FADV_DONTNEED);
}

/*
 * Create @name afresh: @written_len bytes of @pattern written with O_DIRECT
 * and synced (so they are allocated, written blocks and no page cache
 * remains), then the size set to @size.  A negative @pattern asks for a
 * NODATACOW file (btrfs chattr +C, set while the file is empty).
 * Returns an O_RDWR|O_DIRECT descriptor.
 */
int nw_make_file(struct nw_ctx *c, const char *name, off_t written_len,
		 off_t size, int pattern)
{
	char p[512];
	int fd, nocow = pattern < 0;
	void *buf;

	if (nocow)
		pattern = -pattern;
	path_of(c, name, p, sizeof(p));
	unlink(p);
	fd = open(p, O_RDWR | O_CREAT | O_DIRECT, 0644);
	if (fd < 0) {
		nw_fail(c, "create %s: ok vs errno %d", p, errno);
		return -1;
	}
	if (nocow) {
		int fl = 0;

		if (ioctl(fd, FS_IOC_GETFLAGS, &fl) == 0) {
			fl |= FS_NOCOW_FL;
			if (ioctl(fd, FS_IOC_SETFLAGS, &fl)) {
				nw_fail(c, "chattr +C: ok vs errno %d", errno);
				close(fd);
				return -1;
			}
		}
	}
	if (written_len) {
		buf = nw_buf(written_len, pattern);
		if (pwrite(fd, buf, written_len, 0) != written_len) {
			nw_fail(c, "setup write: ok vs errno %d", errno);
			free(buf);
			close(fd);
			return -1;
		}
		free(buf);
	}
	if (size != written_len && ftruncate(fd, size)) {
		nw_fail(c, "setup truncate: ok vs errno %d", errno);
		close(fd);
		return -1;
	}
	fsync(fd);
	nw_drop_cache(fd);
	return fd;
}

/* set when a case called preadv2/pwritev2 and the kernel has neither */
int nw_rwf_enosys;

long nw_pwritev2(int fd, const void *buf, size_t len, off_t off, int flags)
{
	struct iovec iov = { .iov_base = (void *)buf, .iov_len = len };
	long r = syscall(__NR_pwritev2, fd, &iov, 1, (unsigned long)off, 0UL,
			 flags);

	if (r < 0 && errno == ENOSYS)
		nw_rwf_enosys = 1;
	return r < 0 ? -errno : r;
}

long nw_preadv2(int fd, void *buf, size_t len, off_t off, int flags)
{
	struct iovec iov = { .iov_base = buf, .iov_len = len };
	long r = syscall(__NR_preadv2, fd, &iov, 1, (unsigned long)off, 0UL,
			 flags);

	if (r < 0 && errno == ENOSYS)
		nw_rwf_enosys = 1;
	return r < 0 ? -errno : r;
}

/* Does this kernel have preadv2/pwritev2 (4.6+)?  Asked without a file. */
int nw_have_rwf_syscalls(void)
{
	struct iovec iov = { 0 };

	return !(syscall(__NR_preadv2, -1, &iov, 1, 0UL, 0UL, 0) < 0 &&
		 errno == ENOSYS);
}

/*
 * Submit @nr iocbs in one io_submit and collect up to @nev events.  Returns
 * the number of events reaped; *submit gets io_submit's return value.
 */
int nw_aio_submit_raw(struct iocb **iocbs, long nr, long *submit,
		      struct io_event *ev, long nev)
{
	io_context_t ctx = 0;
	struct timespec ts = { .tv_sec = 20 };
	int r, got = 0;

	r = io_setup(64, &ctx);
	if (r < 0) {
		*submit = r;
		return 0;
	}
	*submit = io_submit(ctx, nr, iocbs);
	if (*submit > 0 && nev > 0) {
		long want = *submit < nev ? *submit : nev;

		while (got < want) {
			r = io_getevents(ctx, 1, want - got, ev + got, &ts);
			if (r <= 0)
				break;
			got += r;
		}
	}
	io_destroy(ctx);
	return got;
}

struct nw_aio_res nw_aio_rw(int fd, int opcode, void *buf, size_t len,
			    off_t off, unsigned int rw_flags)
{
	struct nw_aio_res out = { .submit = 0, .res = NW_NO_EVENT };
	struct iocb cb, *cbs[1] = { &cb };
	struct io_event ev;

	if (opcode == IO_CMD_PWRITE)
		io_prep_pwrite(&cb, fd, buf, len, off);
	else
		io_prep_pread(&cb, fd, buf, len, off);
	cb.aio_rw_flags = rw_flags;
	if (nw_aio_submit_raw(cbs, 1, &out.submit, &ev, 1) == 1)
		out.res = (long)ev.res;
	return out;
}

/*
 * The preadv2/pwritev2 leg of a case that also checks io_submit: on a
 * kernel without them (before 4.6) that leg is noted and passed over, and
 * the case stands on its io_submit legs.
 */
int nw_expect_rwf(struct nw_ctx *c, const char *what, long want, long got)
{
	if (got == -ENOSYS && !nw_have_rwf_syscalls()) {
		nw_rwf_enosys = 0;
		printf("# %s: %s leg not run (no preadv2/pwritev2 before 4.6)\n",
		       c->id, what);
		fflush(stdout);
		return 1;
	}
	return nw_expect_res(c, what, want, got);
}

/*
 * A NOWAIT read through every entry point the kernel has: preadv2 (4.6+)
 * and io_submit (aio_rw_flags), which must agree: the rule is the read
 * path's, not the entry's.  Returns bytes or -errno (io_submit's own error,
 * else the event's res); a disagreement fails the case.
 */
long nw_read_nowait(struct nw_ctx *c, int fd, void *buf, size_t len, off_t off)
{
	struct nw_aio_res r;
	long sync = 0, got;
	int have = nw_have_rwf_syscalls();
	char a[32], b[32];

	if (have)
		sync = nw_preadv2(fd, buf, len, off, RWF_NOWAIT);
	r = nw_aio_rw(fd, IO_CMD_PREAD, buf, len, off, RWF_NOWAIT);
	got = r.submit < 0 ? r.submit : r.submit == 0 ? -EIO : r.res;
	if (have && got != sync)
		nw_fail(c, "preadv2 and io_submit disagree: %s vs %s",
			nw_res_str(sync, a, sizeof(a)),
			nw_res_str(got, b, sizeof(b)));
	return got;
}

int nw_snap_take(struct nw_ctx *c, const char *name, struct nw_snap *s)
{
	struct stat st;
	int fd = nw_open(c, name, O_RDONLY | O_DIRECT);
	ssize_t n;

	if (fd < 0)
		return 0;
	fstat(fd, &st);
	s->size = st.st_size;
	s->blocks = st.st_blocks;
	s->len = (st.st_size + NW_BS - 1) / NW_BS * NW_BS;
	if (s->len > (1 << 20))
		s->len = 1 << 20;
	s->data = nw_buf(s->len, 0);
	n = s->len ? pread(fd, s->data, s->len, 0) : 0;
	close(fd);
	if (n < 0) {
		nw_fail(c, "snapshot read: ok vs errno %d", errno);
		return 0;
	}
	return 1;
}

/* After a refusal: same size and same bytes (EAGAIN means nothing written) */
int nw_expect_unchanged(struct nw_ctx *c, const char *name, struct nw_snap *s)
{
	struct nw_snap now;
	int ok = 1;

	if (!nw_snap_take(c, name, &now))
		return 0;
	if (now.size != s->size) {
		nw_fail(c, "file size after refusal: %lld vs %lld",
			(long long)s->size, (long long)now.size);
		ok = 0;
	} else if (memcmp(now.data, s->data, s->len)) {
		size_t i = 0;

		while (i < s->len && now.data[i] == s->data[i])
			i++;
		nw_fail(c, "file bytes after refusal: unchanged vs changed at offset %zu",
			i);
		ok = 0;
	}
	free(now.data);
	free(s->data);
	s->data = NULL;
	return ok;
}

int nw_expect_content(struct nw_ctx *c, int fd, off_t off, size_t len,
		      int pattern)
{
	unsigned char *b = nw_buf(len, 0);
	ssize_t n;
	size_t i;
	int ok = 1;

	n = pread(fd, b, len, off);
	if (n != (ssize_t)len) {
		nw_fail(c, "read back: %zu vs %zd", len, n);
		ok = 0;
	} else {
		for (i = 0; i < len; i++)
			if (b[i] != (unsigned char)pattern)
				break;
		if (i < len) {
			nw_fail(c, "bytes at %lld: 0x%02x vs 0x%02x",
				(long long)(off + i), pattern, b[i]);
			ok = 0;
		}
	}
	free(b);
	return ok;
}

struct nw_lockholder {
	int uffd;
	void *map;		/* [plain page][page on the userfaultfd] */
	void *region;		/* the second page */
	pthread_t th;
	int fd;
	off_t off;
	int fiemap;		/* FIEMAP instead of a one-block pwrite */
	long ret;
	unsigned long fault_addr;
	pthread_t watchdog;
	int stop[2];		/* a pipe: a byte ends the watchdog's wait */
};

static void *holder_thread(void *p)
{
	struct nw_lockholder *h = p;
	/* the header on the plain page, its extents on the faulting one */
	struct fiemap *fm = (struct fiemap *)((char *)h->region -
					      sizeof(struct fiemap));

	if (h->fiemap) {
		memset(fm, 0, sizeof(*fm));
		fm->fm_length = FIEMAP_MAX_OFFSET;
		fm->fm_extent_count = NW_BS / sizeof(struct fiemap_extent);
		h->ret = ioctl(h->fd, FS_IOC_FIEMAP, fm);
	} else {
		h->ret = pwrite(h->fd, h->region, NW_BS, h->off);
	}
	if (h->ret < 0)
		h->ret = -errno;
	return NULL;
}

/*
 * Start a write of one block (or a FIEMAP) into or from a buffer that
 * faults on a userfaultfd region nobody serves yet, and return once the
 * fault is pending.  A buffered write then sleeps inside ->write_iter with
 * the inode lock held; a direct write sleeps with the DIO counted in flight
 * (and, on XFS, the IOLOCK held shared); XFS's fiemap from 4.8 sleeps with
 * its IOLOCK held shared, not the VFS inode lock.  nw_release() serves the
 * fault and joins.
 */
static struct nw_lockholder *hold(struct nw_ctx *c, int fd, off_t off,
				  int fiemap)
{
	struct nw_lockholder *h = calloc(1, sizeof(*h));
	struct uffdio_api api = { .api = UFFD_API };
	struct uffdio_register reg;
	struct uffd_msg msg;
	struct pollfd pfd;

	h->fd = fd;
	h->off = off;
	h->fiemap = fiemap;
	h->stop[0] = h->stop[1] = -1;
	h->uffd = syscall(__NR_userfaultfd, O_CLOEXEC);
	if (h->uffd < 0) {
		nw_skip(c, "userfaultfd unavailable (errno %d)", errno);
		free(h);
		return NULL;
	}
	if (ioctl(h->uffd, UFFDIO_API, &api)) {
		nw_skip(c, "UFFDIO_API failed (errno %d)", errno);
		goto err;
	}
	h->map = mmap(NULL, 2 * NW_BS, PROT_READ | PROT_WRITE,
		      MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	h->region = (char *)h->map + NW_BS;
	reg.range.start = (unsigned long)h->region;
	reg.range.len = NW_BS;
	reg.mode = UFFDIO_REGISTER_MODE_MISSING;
	if (ioctl(h->uffd, UFFDIO_REGISTER, &reg)) {
		nw_skip(c, "UFFDIO_REGISTER failed (errno %d)", errno);
		goto err;
	}
	pthread_create(&h->th, NULL, holder_thread, h);
	pfd.fd = h->uffd;
	pfd.events = POLLIN;
	if (poll(&pfd, 1, 10000) != 1 || read(h->uffd, &msg, sizeof(msg)) !=
	    sizeof(msg) || msg.event != UFFD_EVENT_PAGEFAULT) {
		nw_fail(c, "holder: fault pending vs none within 10s");
		h->fault_addr = (unsigned long)h->region;
		nw_release(h);
		return NULL;
	}
	h->fault_addr = msg.arg.pagefault.address & ~(unsigned long)(NW_BS - 1);
	return h;
err:
	close(h->uffd);
	free(h);
	return NULL;
}

struct nw_lockholder *nw_hold_inode_lock(struct nw_ctx *c, int buffered_fd,
					 off_t off)
{
	return hold(c, buffered_fd, off, 0);
}

struct nw_lockholder *nw_hold_dio(struct nw_ctx *c, int direct_fd, off_t off)
{
	return hold(c, direct_fd, off, 0);
}

struct nw_lockholder *nw_hold_fiemap(struct nw_ctx *c, int fd)
{
	return hold(c, fd, 0, 1);
}

/* Serve the holder's fault: it goes on (a second time: EEXIST, no harm) */
static void serve_fault(struct nw_lockholder *h)
{
	unsigned char *src = nw_buf(NW_BS, 0x77);
	struct uffdio_copy cp = {
		.dst = h->fault_addr, .src = (unsigned long)src, .len = NW_BS,
	};

	ioctl(h->uffd, UFFDIO_COPY, &cp);
	free(src);
}

static void *watchdog_thread(void *p)
{
	struct nw_lockholder *h = p;
	struct pollfd pfd = { .fd = h->stop[0], .events = POLLIN };

	if (poll(&pfd, 1, NW_HOLD_WATCHDOG_MS) == 0)
		serve_fault(h);
	return NULL;
}

int nw_release_later(struct nw_lockholder *h)
{
	if (pipe(h->stop))
		return -1;
	if (pthread_create(&h->watchdog, NULL, watchdog_thread, h)) {
		close(h->stop[0]);
		close(h->stop[1]);
		h->stop[0] = h->stop[1] = -1;
		return -1;
	}
	return 0;
}

void nw_release(struct nw_lockholder *h)
{
	if (!h)
		return;
	if (h->stop[1] >= 0) {
		if (write(h->stop[1], "", 1) != 1)
			perror("nw_release: pipe");
		pthread_join(h->watchdog, NULL);
		close(h->stop[0]);
		close(h->stop[1]);
	}
	serve_fault(h);
	pthread_join(h->th, NULL);
	munmap(h->map, 2 * NW_BS);
	close(h->uffd);
	free(h);
}

/* Read or write a file of /sys/kernel/nowait_aio: 0 or -errno. */
int nw_sysfs_rw(const char *name, char *val, size_t len, int write)
{
	char p[256];
	int fd, n;

	snprintf(p, sizeof(p), "%s/%s", NOWAIT_AIO_SYSFS, name);
	fd = open(p, write ? O_WRONLY : O_RDONLY);
	if (fd < 0)
		return -errno;
	n = write ? (int)pwrite(fd, val, strlen(val), 0) :
		    (int)pread(fd, val, len - 1, 0);
	close(fd);
	if (n < 0)
		return -errno;
	if (!write)
		val[n] = 0;
	return 0;
}

/*
 * The module's per-request hooks out (hook_idle_ms=50 and a pause), as
 * after a quiet spell; elsewhere just the pause.  1 when they went out.
 * The caller puts hook_idle_ms back.
 */
int nw_hooks_idle(struct nw_ctx *c)
{
	char f[8192];
	int i;

	if (c->env->mode != NW_MODULE) {
		usleep(300 * 1000);
		return 1;
	}
	nw_sysfs_rw("hook_idle_ms", "50", 0, 1);
	for (i = 0; i < 40; i++) {
		usleep(100 * 1000);
		if (!nw_sysfs_rw("features", f, sizeof(f), 0) &&
		    strstr(f, "demand standby"))
			return 1;
	}
	nw_fail(c, "per-request hooks: standby after hook_idle_ms=50 vs %s",
		strstr(f, "demand ") ? strstr(f, "demand ") : "no demand line");
	return 0;
}
