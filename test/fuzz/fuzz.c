// SPDX-License-Identifier: GPL-2.0
/*
 * nwfuzz SEED OPS - the guest side of the differential fuzzer.
 *
 * A seeded generator of io_submit batches and preadv2/pwritev2 calls: every
 * opcode (valid and not), flag combinations including unknown bits,
 * descriptors (O_DIRECT or not, read-only, pipe, closed, -1, /dev/null,
 * tmpfs), offsets (aligned, unaligned, past EOF, huge, negative), lengths,
 * buffers (aligned, unaligned, unmapped, read-only, NULL), batch sizes,
 * aio_reserved2 and bad eventfds.  The files it aims at are made afresh
 * every epoch with one layout on ext4, XFS and btrfs: written blocks, a
 * hole, unwritten (fallocated) blocks, preallocation past EOF, reflinked
 * blocks (XFS, btrfs) and a NODATACOW twin (btrfs).
 *
 * It prints one line per operation, "op N FS ENTRY {request} L=<layout> =>
 * <result>", and the size and a hash of every file at the end of each
 * epoch.  The same SEED gives the same operations on every kernel, so the
 * host compares a module run with a native one line by line
 * (test/fuzz/compare.sh).  The layout letters, taken before the operation
 * (FIEMAP, mincore), let the comparison name the upstream rule behind a
 * difference: h hole, w written, u unwritten, s shared, d delalloc,
 * c cached pages, n the page just past a page-aligned range cached (4.14
 * tests it for direct writes), e range past EOF, g starts past EOF.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <linux/aio_abi.h>
#include <linux/fiemap.h>
#include <linux/fs.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/uio.h>
#include <time.h>
#include <unistd.h>

#include "nowait_aio.h"

#define KB		1024L
#define EPOCH		50
#define POOL		(1 << 20)
#define NFILES		3
#define MAXBATCH	4

static const char *const fs_names[] = { "ext4", "xfs", "btrfs" };
#define NFS 3

struct fz_file {
	char path[320];
	int fd[3];		/* direct rw, buffered rw, direct read-only */
};

static struct fz_file files[NFS][NFILES];
static int mounted[NFS];
static int pipe_fd[2], closed_fd = -1, null_fd = -1, tmpfs_fd = -1;
static unsigned char *pool, *ro_map, *unmapped;
static aio_context_t ctx;
static uint64_t rng;

static uint64_t rnd(void)
{
	rng ^= rng >> 12;
	rng ^= rng << 25;
	rng ^= rng >> 27;
	return rng * 2685821657736338717ULL;
}

static unsigned int pick(unsigned int n)
{
	return (unsigned int)(rnd() % n);
}

/* an entry of a weighted table: value, weight */
struct wv {
	long long v;
	unsigned int w;
};

static long long wpick(const struct wv *t, size_t n)
{
	unsigned int total = 0, r;
	size_t i;

	for (i = 0; i < n; i++)
		total += t[i].w;
	r = pick(total);
	for (i = 0; i < n; i++) {
		if (r < t[i].w)
			return t[i].v;
		r -= t[i].w;
	}
	return t[0].v;
}

#define WPICK(t) wpick(t, sizeof(t) / sizeof(t[0]))

static const char *const file_names[NFILES] = { "a", "b", "c" };
static const char *const fd_names[3] = { "direct", "buffered", "ro" };

static void die(const char *what)
{
	printf("fuzz-error %s: %s\n", what, strerror(errno));
	fflush(stdout);
	exit(2);
}

/* a: [0,128K) written, [128K,192K) hole, [192K,256K) unwritten, size 256K,
 * [256K,320K) preallocated past EOF.  c: the same, NODATACOW on btrfs.
 * b: on XFS and btrfs a clone of a's written part (shared blocks);
 * on ext4, and on XFS with "noclone" (a kernel without XFS reflink, before
 * 4.9: both runs of a comparison take it), 64K of written blocks.
 */
static int noclone;

static void make_layout(int fs, int i)
{
	struct fz_file *f = &files[fs][i];
	int fd, k, fl = 0;

	for (k = 0; k < 3; k++)
		if (f->fd[k] >= 0)
			close(f->fd[k]);
	unlink(f->path);
	fd = open(f->path, O_RDWR | O_CREAT | O_DIRECT, 0644);
	if (fd < 0)
		die(f->path);
	if (i == 2 && fs == 2 && (ioctl(fd, FS_IOC_GETFLAGS, &fl) == 0)) {
		fl |= FS_NOCOW_FL;
		ioctl(fd, FS_IOC_SETFLAGS, &fl);
	}
	memset(pool, 0x40 + i, 128 * KB);
	if (i == 1) {
		if (fs == 0 || (fs == 1 && noclone)) {
			if (pwrite(fd, pool, 64 * KB, 0) != 64 * KB)
				die("write b");
		} else {
			struct file_clone_range r = {
				.src_fd = files[fs][0].fd[0],
				.src_offset = 0, .src_length = 128 * KB,
				.dest_offset = 0,
			};
			if (ioctl(fd, FICLONERANGE, &r))
				die("FICLONERANGE");
		}
	} else {
		if (pwrite(fd, pool, 128 * KB, 0) != 128 * KB)
			die("write a");
		if (fallocate(fd, 0, 192 * KB, 64 * KB))
			die("fallocate");
		if (fallocate(fd, FALLOC_FL_KEEP_SIZE, 256 * KB, 64 * KB))
			die("fallocate past EOF");
	}
	fsync(fd);
	posix_fadvise(fd, 0, 0, POSIX_FADV_DONTNEED);
	f->fd[0] = fd;
	f->fd[1] = open(f->path, O_RDWR);
	f->fd[2] = open(f->path, O_RDONLY | O_DIRECT);
	if (f->fd[1] < 0 || f->fd[2] < 0)
		die("open");
}

static void new_epoch(void)
{
	int fs, i;

	for (fs = 0; fs < NFS; fs++)
		for (i = 0; mounted[fs] && i < NFILES; i++)
			make_layout(fs, i);
}

static uint64_t file_hash(const char *path, off_t *size)
{
	uint64_t h = 1469598103934665603ULL;
	struct stat st;
	ssize_t n, j;
	off_t off = 0;
	int fd = open(path, O_RDONLY);

	*size = -1;
	if (fd < 0 || fstat(fd, &st))
		return 0;
	*size = st.st_size;
	while (off < st.st_size && off < 4 * POOL) {
		n = pread(fd, pool, POOL, off);
		if (n <= 0)
			break;
		for (j = 0; j < n; j++)
			h = (h ^ pool[j]) * 1099511628211ULL;
		off += n;
	}
	close(fd);
	return h;
}

static void epoch_report(int epoch)
{
	int fs, i;

	for (fs = 0; fs < NFS; fs++) {
		for (i = 0; mounted[fs] && i < NFILES; i++) {
			off_t size;
			uint64_t h = file_hash(files[fs][i].path, &size);

			printf("epoch %d %s %s size=%lld hash=%016llx\n", epoch,
			       fs_names[fs], file_names[i], (long long)size,
			       (unsigned long long)h);
		}
	}
}

/* layout letters of [off, off + len) of the file behind @fd */
static void layout(int fd, long long off, long long len, char *out)
{
	struct {
		struct fiemap fm;
		struct fiemap_extent ext[32];
	} q;
	struct stat st;
	unsigned char vec[64];
	long long cur = off, end = off + len;
	unsigned int i;
	void *m;
	char *o = out;

	*o = 0;
	if (off < 0 || len <= 0 || end < off || fstat(fd, &st) ||
	    !S_ISREG(st.st_mode))
		return;
	/*
	 * extents only within the pool; the page cache everywhere, so that a
	 * NOWAIT answer far past it can be told by the cache it met
	 */
	if (end > 4 * POOL)
		goto eof;
	memset(&q, 0, sizeof(q));
	q.fm.fm_start = off;
	q.fm.fm_length = len;
	q.fm.fm_extent_count = 32;
	if (ioctl(fd, FS_IOC_FIEMAP, &q) == 0) {
		int h = 0, w = 0, u = 0, s = 0, d = 0;

		for (i = 0; i < q.fm.fm_mapped_extents; i++) {
			struct fiemap_extent *e = &q.fm.fm_extents[i];

			if ((long long)e->fe_logical > cur &&
			    cur < st.st_size)
				h = 1;
			if (e->fe_flags & FIEMAP_EXTENT_UNWRITTEN)
				u = 1;
			else if (e->fe_flags & FIEMAP_EXTENT_DELALLOC)
				d = 1;
			else
				w = 1;
			if (e->fe_flags & FIEMAP_EXTENT_SHARED)
				s = 1;
			cur = e->fe_logical + e->fe_length;
		}
		if (cur < end && cur < st.st_size)
			h = 1;
		o += sprintf(o, "%s%s%s%s%s", h ? "h" : "", w ? "w" : "",
			     u ? "u" : "", s ? "s" : "", d ? "d" : "");
	}
eof:
	if (off > st.st_size)
		*o++ = 'g';
	if (end > st.st_size)
		*o++ = 'e';
	*o = 0;
	/* page-cache residency of the range */
	if (off < st.st_size) {
		long long a = off & ~4095LL;
		long long l = (end - a + 4095) & ~4095LL;

		if (l > 64 * 4096)
			l = 64 * 4096;
		m = mmap(NULL, l, PROT_READ, MAP_SHARED, fd, a);
		if (m != MAP_FAILED) {
			if (mincore(m, l, vec) == 0)
				for (i = 0; i < l / 4096; i++)
					if (vec[i] & 1) {
						*o++ = 'c';
						*o = 0;
						break;
					}
			munmap(m, l);
		}
	}
	/* the page holding byte @end, when the range ends on a page edge */
	if (!(end & 4095) && end < st.st_size) {
		m = mmap(NULL, 4096, PROT_READ, MAP_SHARED, fd, end);
		if (m != MAP_FAILED) {
			if (mincore(m, 4096, vec) == 0 && (vec[0] & 1)) {
				*o++ = 'n';
				*o = 0;
			}
			munmap(m, 4096);
		}
	}
}

struct fz_req {
	int opcode;		/* IOCB_CMD_*, or -1 read / -2 write (rwv2) */
	int fs, file, fdk;	/* fdk 0..2 a file descriptor, else special */
	int fd;
	long long off;
	long long len;
	int bufk, nseg;
	unsigned int flags;
	int res2, resfd;
	struct iovec iov[3];
	char desc[200];
};

enum { FD_PIPE_W = 3, FD_PIPE_R, FD_CLOSED, FD_MINUS1, FD_NULL, FD_TMPFS };
static const char *const special_names[] = {
	"pipe-w", "pipe-r", "closed", "-1", "devnull", "tmpfs",
};

static const struct wv w_opcode[] = {
	{ IOCB_CMD_PREAD, 25 }, { IOCB_CMD_PWRITE, 35 },
	{ IOCB_CMD_PREADV, 10 }, { IOCB_CMD_PWRITEV, 15 },
	{ IOCB_CMD_FSYNC, 3 }, { IOCB_CMD_FDSYNC, 3 }, { IOCB_CMD_NOOP, 2 },
	{ 42, 2 },
};
static const struct wv w_flags[] = {
	{ RWF_NOWAIT, 50 }, { 0, 10 }, { RWF_NOWAIT | RWF_DSYNC, 6 },
	{ RWF_NOWAIT | RWF_SYNC, 4 }, { RWF_DSYNC, 4 }, { RWF_SYNC, 2 },
	{ RWF_NOWAIT | RWF_HIPRI, 4 }, { RWF_HIPRI, 2 },
	{ RWF_NOWAIT | 0x10, 3 }, { 0x40000000, 3 }, { 0xffffffffLL, 2 },
	{ -1 /* random bits */, 2 },
};
static const struct wv w_len[] = {
	{ 0, 3 }, { 1, 3 }, { 512, 6 }, { 4096, 35 }, { 8192, 15 },
	{ 16384, 10 }, { 65536, 10 }, { 4096 + 512, 5 }, { 131072, 5 },
};
static const struct wv w_fdk[] = {
	{ 0, 55 }, { 1, 20 }, { 2, 10 }, { FD_PIPE_W, 3 }, { FD_PIPE_R, 2 },
	{ FD_CLOSED, 3 }, { FD_MINUS1, 2 }, { FD_NULL, 2 }, { FD_TMPFS, 3 },
};
static const struct wv w_buf[] = {
	{ 0, 85 }, { 1, 4 }, { 2, 3 }, { 3, 3 }, { 4, 3 }, { 5, 2 },
};
static const char *const buf_names[] = {
	"al", "+512", "+1", "unmapped", "ro", "null",
};

static long long gen_off(void)
{
	unsigned int k = pick(100);

	if (k < 75)
		return 4096LL * pick(112);		/* [0, 448K) */
	if (k < 85)
		return 4096LL * pick(112) + (pick(2) ? 512 : 1);
	if (k < 90)
		return -1;
	if (k < 94)
		return -4096;
	if (k < 97)
		return 1LL << 62;
	return LLONG_MAX - 4095;
}

/*
 * Each request of a batch has its own quarter of the pool, filled with
 * the operation's number first: a misaligned buffer too, or a write from
 * it would carry what earlier reads or the epoch's file hashes left there,
 * which differs between the kernels wherever an explained divergence
 * wrote or read on one side only (seed 73002: an ext4 write at op 168
 * carried XFS's file bytes from op 107 of the epoch before).
 */
static unsigned char *gen_buf(int k, long long len, int opno, int slot)
{
	unsigned char *b = pool + (size_t)slot * (POOL / MAXBATCH);

	if (k <= 2 && len >= 0)
		memset(b, opno & 0xff, len > POOL / MAXBATCH - 512 ?
		       POOL / MAXBATCH : len + 512);
	switch (k) {
	case 0:
		return b;
	case 1:
		return b + 512;
	case 2:
		return b + 1;
	case 3:
		return unmapped;
	case 4:
		return ro_map;
	default:
		return NULL;
	}
}

/* the files of the current io_submit batch that have direct I/O in it */
static int batch_dio[NFILES];

static void gen_req(struct fz_req *r, int fs, int opno, int rwv2, int slot)
{
	long long per;
	char lay[16] = "";
	int i;

	memset(r, 0, sizeof(*r));
	r->fs = fs;
	r->opcode = rwv2 ? (pick(5) < 3 ? -2 : -1) : (int)WPICK(w_opcode);
	r->file = pick(NFILES);
	r->fdk = (int)WPICK(w_fdk);
	switch (r->fdk) {
	case 0: case 1: case 2:
		r->fd = files[fs][r->file].fd[r->fdk];
		break;
	case FD_PIPE_W:
		r->fd = pipe_fd[1];
		break;
	case FD_PIPE_R:
		r->fd = pipe_fd[0];
		break;
	case FD_CLOSED:
		r->fd = closed_fd;
		break;
	case FD_MINUS1:
		r->fd = -1;
		break;
	case FD_NULL:
		r->fd = null_fd;
		break;
	default:
		r->fd = tmpfs_fd;
	}
	r->off = gen_off();
	r->len = WPICK(w_len);
	r->flags = (unsigned int)WPICK(w_flags);
	if (r->flags == (unsigned int)-1)
		r->flags = (unsigned int)rnd();
	r->bufk = (int)WPICK(w_buf);
	/*
	 * 4.14.67 returns EAGAIN with XFS's IOLOCK still held when an
	 * unaligned NOWAIT direct write meets direct I/O in flight
	 * (xfs_file_dio_aio_write's i_dio_count test): the file's next user
	 * hangs.  Within a batch that already has direct I/O on this XFS
	 * file such a write goes without NOWAIT, and aligned: 4.14.67 WARNs
	 * in iomap_dio_complete()
	 * (invalidate_inode_pages2_range() -EBUSY, from
	 * iomap_dio_complete_work) when an unaligned direct write overlaps a
	 * DSYNC one still in flight on the reflinked file (seed 71010, op
	 * 1100).
	 */
	if (fs == 1 && batch_dio[r->file] && r->fdk == 0 &&
	    (r->opcode == IOCB_CMD_PWRITE || r->opcode == IOCB_CMD_PWRITEV) &&
	    ((r->off | r->len) & 4095)) {
		r->flags &= ~(unsigned int)RWF_NOWAIT;
		if (r->off >= 0) {
			r->off &= ~4095LL;
			r->len = (r->len + 4095) & ~4095LL;
		}
	}
	/*
	 * No unmapped or NULL buffers on XFS: 4.14.67 oopses (NULL
	 * dereference in __xfs_bunmapi, from xfs_bmap_punch_delalloc_range)
	 * on a buffered write from one; and the iomap direct read of 4.12 and
	 * 4.14.67 ignores the fault when it zeroes a hole into one, counts
	 * the bytes as read and walks on to EOF 8 KiB at a time (seed 7008:
	 * a file made 2^62 bytes long by a plain write never got there; seed
	 * 7011: a read into the read-only buffer walked into delayed
	 * allocation and both kernels WARNed in iomap_dio_actor()).
	 */
	if (fs == 1 && (r->bufk == 3 || r->bufk == 5 ||
			(r->bufk == 4 && (r->opcode == IOCB_CMD_PREAD ||
					  r->opcode == IOCB_CMD_PREADV ||
					  r->opcode == -1))))
		r->bufk = 0;
	r->nseg = 1;
	if (r->opcode == IOCB_CMD_PREADV || r->opcode == IOCB_CMD_PWRITEV ||
	    rwv2)
		r->nseg = 1 + pick(3);
	r->res2 = pick(40) == 0;
	r->resfd = pick(50) == 0;
	per = r->len / r->nseg;
	for (i = 0; i < r->nseg; i++) {
		r->iov[i].iov_base = gen_buf(r->bufk, r->len, opno, slot) +
				     i * per;
		if (r->bufk >= 3)
			r->iov[i].iov_base = gen_buf(r->bufk, 0, opno, slot);
		r->iov[i].iov_len = i == r->nseg - 1 ? r->len - i * per : per;
	}
	/* preadv2/pwritev2 at offset -1 go at the file's position */
	if (r->fdk <= 2)
		layout(r->fd, r->off == -1 && r->opcode < 0 ?
			      lseek(r->fd, 0, SEEK_CUR) : r->off,
		       r->len, lay);
	snprintf(r->desc, sizeof(r->desc),
		 "{op=%d %s%s%s off=%lld len=%lld seg=%d buf=%s fl=0x%x%s%s L=%s}",
		 r->opcode, r->fdk <= 2 ? file_names[r->file] : "",
		 r->fdk <= 2 ? "/" : "",
		 r->fdk <= 2 ? fd_names[r->fdk] : special_names[r->fdk - 3],
		 r->off, r->len, r->nseg, buf_names[r->bufk], r->flags,
		 r->res2 ? " res2" : "", r->resfd ? " badresfd" : "", lay);
}

static void drain_pipe(void)
{
	char b[4096];

	while (read(pipe_fd[0], b, sizeof(b)) > 0)
		;
}

static void run_aio(int fs, int opno)
{
	struct fz_req r[MAXBATCH];
	struct iocb cb[MAXBATCH], *cbs[MAXBATCH];
	struct io_event ev[MAXBATCH];
	long res[MAXBATCH];
	int n = pick(10) < 7 ? 1 : 2 + pick(MAXBATCH - 1), i, got = 0;
	struct timespec ts = { .tv_sec = 30 };
	long sub;

	printf("op %d %s aio[%d] ", opno, fs_names[fs], n);
	memset(batch_dio, 0, sizeof(batch_dio));
	for (i = 0; i < n; i++) {
		gen_req(&r[i], fs, opno, 0, i);
		if (r[i].fdk == 0 || r[i].fdk == 2)
			batch_dio[r[i].file] = 1;
		memset(&cb[i], 0, sizeof(cb[i]));
		cb[i].aio_data = i;
		cb[i].aio_lio_opcode = r[i].opcode;
		cb[i].aio_fildes = r[i].fd;
		if (r[i].opcode == IOCB_CMD_PREADV ||
		    r[i].opcode == IOCB_CMD_PWRITEV) {
			cb[i].aio_buf = (unsigned long)r[i].iov;
			cb[i].aio_nbytes = r[i].nseg;
		} else {
			cb[i].aio_buf = (unsigned long)r[i].iov[0].iov_base;
			cb[i].aio_nbytes = r[i].len;
		}
		cb[i].aio_offset = r[i].off;
		cb[i].aio_rw_flags = r[i].flags;
		cb[i].aio_reserved2 = r[i].res2;
		if (r[i].resfd) {
			cb[i].aio_flags = IOCB_FLAG_RESFD;
			cb[i].aio_resfd = closed_fd;
		}
		cbs[i] = &cb[i];
		res[i] = LONG_MIN;
		printf("%s", r[i].desc);
	}
	fflush(stdout);
	sub = syscall(__NR_io_submit, ctx, n, cbs);
	if (sub < 0)
		sub = -errno;
	while (sub > 0 && got < sub) {
		int k = syscall(__NR_io_getevents, ctx, 1, sub - got, ev, &ts);

		if (k <= 0)
			break;
		for (i = 0; i < k; i++)
			if (ev[i].data < (unsigned int)n)
				res[ev[i].data] = (long)ev[i].res;
		got += k;
	}
	printf(" => submit=%ld res=", sub);
	for (i = 0; i < (sub > 0 ? sub : 0); i++)
		printf(res[i] == LONG_MIN ? "%snoevent" : "%s%ld",
		       i ? "," : "", res[i]);
	printf("\n");
	fflush(stdout);
	drain_pipe();
}

static void run_rwv2(int fs, int opno)
{
	struct fz_req r;
	long ret;

	gen_req(&r, fs, opno, 1, 0);
	printf("op %d %s %s %s", opno, fs_names[fs],
	       r.opcode == -2 ? "pwritev2" : "preadv2", r.desc);
	fflush(stdout);
	ret = syscall(r.opcode == -2 ? __NR_pwritev2 : __NR_preadv2, r.fd,
		      r.iov, r.nseg, (unsigned long)r.off,
		      (unsigned long)((unsigned long long)r.off >> 32),
		      r.flags);
	printf(" => %ld\n", ret < 0 ? -errno : ret);
	fflush(stdout);
	drain_pipe();
}

int main(int argc, char **argv)
{
	int ops, fs, i, epoch = 0, have_rwv2;
	struct iovec iov = { 0 };
	char p[300];

	if (argc < 3) {
		fprintf(stderr, "usage: nwfuzz SEED OPS [noclone]\n");
		return 2;
	}
	noclone = argc > 3 && !strcmp(argv[3], "noclone");
	rng = strtoull(argv[1], NULL, 0) * 0x9E3779B97F4A7C15ULL + 1;
	ops = atoi(argv[2]);
	setvbuf(stdout, NULL, _IOLBF, 0);
	if (posix_memalign((void **)&pool, 4096, POOL + 8192))
		die("memalign");
	ro_map = mmap(NULL, POOL, PROT_READ, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	unmapped = mmap(NULL, POOL, PROT_READ, MAP_PRIVATE | MAP_ANONYMOUS,
			-1, 0);
	if (ro_map == MAP_FAILED || unmapped == MAP_FAILED)
		die("mmap");
	munmap(unmapped, POOL);
	if (pipe2(pipe_fd, O_NONBLOCK))
		die("pipe");
	closed_fd = open("/dev/null", O_RDONLY);
	close(closed_fd);
	null_fd = open("/dev/null", O_RDWR);
	tmpfs_fd = open("/tmp/fuzz-tmpfs.dat", O_RDWR | O_CREAT | O_TRUNC, 0644);
	if (null_fd < 0 || tmpfs_fd < 0 || pwrite(tmpfs_fd, pool, 65536, 0) < 0)
		die("special fds");
	if (syscall(__NR_io_setup, 128, &ctx))
		die("io_setup");
	for (fs = 0; fs < NFS; fs++) {
		struct stat a, b;

		snprintf(p, sizeof(p), "/mnt/%s", fs_names[fs]);
		mounted[fs] = !stat(p, &a) && !stat("/mnt", &b) &&
			      a.st_dev != b.st_dev;
		snprintf(p, sizeof(p), "/mnt/%s/fuzz", fs_names[fs]);
		mkdir(p, 0755);
		for (i = 0; i < NFILES; i++) {
			snprintf(files[fs][i].path, sizeof(files[fs][i].path),
				 "%s/%s", p, file_names[i]);
			files[fs][i].fd[0] = files[fs][i].fd[1] = -1;
			files[fs][i].fd[2] = -1;
		}
	}
	have_rwv2 = !(syscall(__NR_preadv2, -1, &iov, 1, 0UL, 0UL, 0) < 0 &&
		      errno == ENOSYS);
	printf("# nwfuzz seed %s, %d ops, preadv2/pwritev2 %s%s\n", argv[1], ops,
	       have_rwv2 ? "present" : "absent",
	       noclone ? ", no XFS clone" : "");
	for (i = 0; i < ops; i++) {
		if (i % EPOCH == 0) {
			if (i)
				epoch_report(epoch++);
			new_epoch();
		}
		do
			fs = pick(NFS);
		while (!mounted[fs]);
		if (pick(10) < 4)
			run_rwv2(fs, i);
		else
			run_aio(fs, i);
	}
	epoch_report(epoch);
	printf("nwfuzz-done %d ops\n", ops);
	return 0;
}
