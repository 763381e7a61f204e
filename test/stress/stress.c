// SPDX-License-Identifier: GPL-2.0
/*
 * nwstress - the guest side of `make stress`.
 *
 *   nwstress run SECS [plain]
 *                          mixed I/O for SECS seconds, then fsync, check
 *                          every file against its shadow, save the shadows;
 *                          plain: the same requests without RWF_NOWAIT (the
 *                          baseline without the module)
 *   nwstress verify        after a power cut and remount: check again
 *
 * Per filesystem (ext4, XFS, btrfs) WORKERS threads each own one file and a
 * userspace shadow of its bytes and size.  Each runs a random mix of NOWAIT
 * and plain, direct and buffered writes and reads (io_submit and
 * pwritev2/preadv2), fallocate (allocate, keep size, punch hole), truncate,
 * fsync, and reflink (FICLONERANGE, XFS and btrfs) from a private source.
 * A successful write goes into the shadow; a refused one (EAGAIN, or the
 * module's absence: EINVAL/EOPNOTSUPP) must have written nothing, which the
 * checks prove.  Reads are compared with the shadow as they return.  One
 * more thread per filesystem takes the inode locks of the workers' files
 * (fallocate past EOF, which changes no byte) so that NOWAIT requests meet
 * held locks.  Meanwhile the harness unloads and reloads the module and
 * flips its switches (test/stress/guest.sh).
 *
 * Prints "stress: <ops> ops, <eagain> eagain, ... <bytes> bytes checked,
 * <m> mismatches" (the harness adds the cycles and fsck verdicts).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <linux/aio_abi.h>
#include <linux/fs.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/uio.h>
#include <sys/utsname.h>
#include <time.h>
#include <unistd.h>

#include "nowait_aio.h"

#define WORKERS		2
#define MAXSIZE		(2 << 20)	/* a file never grows past this */
#define BS		4096
#define NFS		3

#define HIST		4096	/* operations remembered per worker */

static const char *const fs_names[NFS] = { "ext4", "xfs", "btrfs" };

/*
 * One operation, remembered so that a mismatch can be traced to the ones
 * that last touched its byte.  kind: 'A' aio direct write, 'W' pwritev2
 * direct write, 'B' buffered write, 'a' aio direct read, 'r' preadv2
 * direct read, 'b' buffered read, 'F' fallocate, 'K' fallocate keep size,
 * 'P' punch hole, 'T' truncate (off is the new size; listed when it cut
 * the byte off), 'C' clone.
 */
struct op_rec {
	unsigned long n;
	off_t off;
	long len, r;
	char kind, nowait;
};

struct worker {
	int fs, id;
	char path[128], src_path[128];
	int dfd, bfd, src;		/* direct, buffered, clone source */
	unsigned char *shadow;		/* MAXSIZE bytes */
	unsigned char *srcdata;		/* the clone source's bytes */
	off_t size;
	uint64_t rng;
	unsigned long ops, eagain, refused, other, mismatches, checked;
	unsigned long short_reads;
	aio_context_t ctx;
	char first_bad[200];
	off_t bad_off;			/* the first mismatching byte, or -1 */
	unsigned long bad_op;		/* the operation that saw it */
	struct op_rec hist[HIST];
};

static volatile int stop;
static int plain_only;	/* "run SECS plain": the same requests, none NOWAIT */
static struct worker W[NFS][WORKERS];
static int mounted[NFS];

static uint64_t rnd(struct worker *w)
{
	w->rng ^= w->rng >> 12;
	w->rng ^= w->rng << 25;
	w->rng ^= w->rng >> 27;
	return w->rng * 2685821657736338717ULL;
}

static void bad(struct worker *w, const char *fmt, long a, long b)
{
	w->mismatches++;
	if (!w->first_bad[0])
		snprintf(w->first_bad, sizeof(w->first_bad), fmt, a, b);
}

/* Compare [off, off + n) of @buf with the shadow. */
static void check_bytes(struct worker *w, const unsigned char *buf, off_t off,
			long n)
{
	long i;

	w->checked += n;
	for (i = 0; i < n; i++) {
		unsigned char want = off + i < w->size ? w->shadow[off + i] : 0;

		if (buf[i] != want) {
			if (!w->first_bad[0]) {
				w->bad_off = off + i;
				w->bad_op = w->ops;
			}
			bad(w, "byte at %ld differs from the shadow (got %ld)",
			    (long)(off + i), buf[i]);
			return;
		}
	}
}

static long aio_fd(struct worker *w, int fd, int op, void *buf, size_t len,
		   off_t off, unsigned int flags)
{
	struct iocb cb, *cbs[1] = { &cb };
	struct io_event ev;
	struct timespec ts = { .tv_sec = 120 };
	long r;

	memset(&cb, 0, sizeof(cb));
	cb.aio_fildes = fd;
	cb.aio_lio_opcode = op;
	cb.aio_buf = (unsigned long)buf;
	cb.aio_nbytes = len;
	cb.aio_offset = off;
	cb.aio_rw_flags = flags;
	r = syscall(__NR_io_submit, w->ctx, 1, cbs);
	if (r < 0)
		return -errno;
	if (r != 1)
		return -EIO;
	if (syscall(__NR_io_getevents, w->ctx, 1, 1, &ev, &ts) != 1)
		return -ETIMEDOUT;
	return (long)ev.res;
}

static long aio_one(struct worker *w, int op, void *buf, size_t len, off_t off,
		    unsigned int flags)
{
	return aio_fd(w, w->dfd, op, buf, len, off, flags);
}

static int have_rwv2;	/* preadv2/pwritev2 exist (4.6+) */

/*
 * preadv2/pwritev2; before 4.6 the same request through io_submit on the
 * same descriptor (NOWAIT requests exist there only that way), or
 * pread/pwrite for a plain one.
 */
static long rw2(struct worker *w, int nr, int fd, void *buf, size_t len,
		off_t off, int flags)
{
	struct iovec iov = { .iov_base = buf, .iov_len = len };
	int write = nr == __NR_pwritev2;
	long r;

	if (have_rwv2)
		r = syscall(nr, fd, &iov, 1, (unsigned long)off, 0UL, flags);
	else if (flags)
		return aio_fd(w, fd, write ? IOCB_CMD_PWRITE : IOCB_CMD_PREAD,
			      buf, len, off, flags);
	else
		r = write ? pwrite(fd, buf, len, off) : pread(fd, buf, len, off);
	return r < 0 ? -errno : r;
}

static void apply_write(struct worker *w, const unsigned char *buf, off_t off,
			long n)
{
	memcpy(w->shadow + off, buf, n);
	if (off + n > w->size)
		w->size = off + n;
}

/* a write's outcome: bytes go into the shadow, a refusal writes nothing */
static void wrote(struct worker *w, long r, const unsigned char *buf,
		  off_t off, size_t len, int nowait)
{
	if (r > 0) {
		apply_write(w, buf, off, r);
		if (r != (long)len && nowait)
			bad(w, "NOWAIT write returned %ld of %ld", r, len);
	} else if (r == -EAGAIN) {
		w->eagain++;
		if (!nowait)
			bad(w, "a plain write got EAGAIN (len %ld)%ld", len, 0);
	} else if (nowait && (r == -EINVAL || r == -EOPNOTSUPP)) {
		w->refused++;	/* module unloaded or disabled */
	} else if (r < 0) {
		w->other++;
		bad(w, "write failed: %ld (len %ld)", r, len);
	}
}

static void read_and_check(struct worker *w, long r, const unsigned char *buf,
			   off_t off, size_t len, int nowait)
{
	long want = off >= w->size ? 0 :
		    (long)len < w->size - off ? (long)len : w->size - off;

	if (r >= 0) {
		/*
		 * A plain read may legally come back short; its bytes are
		 * checked, and short ones are counted (and reported) apart.
		 */
		if (!nowait && r < want && r > 0)
			w->short_reads++;
		else if (!nowait && r != want)
			bad(w, "read returned %ld, shadow says %ld", r, want);
		if (r > want)
			bad(w, "read returned %ld, more than %ld", r, want);
		check_bytes(w, buf, off, r < want ? r : want);
	} else if (r == -EAGAIN) {
		w->eagain++;
		if (!nowait)
			bad(w, "a plain read got EAGAIN (len %ld)%ld", len, 0);
	} else if (nowait && (r == -EINVAL || r == -EOPNOTSUPP)) {
		w->refused++;
	} else {
		w->other++;
		bad(w, "read failed: %ld (len %ld)", r, len);
	}
}

static void remember(struct worker *w, char kind, int nowait, off_t off,
		     long len, long r)
{
	struct op_rec *h = &w->hist[w->ops % HIST];

	if (w->bad_off >= 0)
		return;		/* kept as it was at the first mismatch */
	h->n = w->ops;
	h->kind = kind;
	h->nowait = nowait;
	h->off = off;
	h->len = len;
	h->r = r;
}

/* the byte that operation @h wrote at @pos */
static int written_byte(const struct op_rec *h, off_t pos)
{
	if (h->kind == 'A' || h->kind == 'W')
		return (unsigned char)(h->n + (pos - h->off) * 7);
	if (h->kind == 'B')
		return (unsigned char)(h->n * 3 + (pos - h->off));
	return -1;
}

/* the remembered operations that touched the first mismatching byte */
static void print_history(struct worker *w)
{
	unsigned long i, end = w->bad_op;
	unsigned long from = end > HIST ? end - HIST + 1 : 1;
	off_t pos = w->bad_off;

	if (pos < 0)
		return;
	printf("# %s/%d: byte %ld, seen by op %lu; the operations over it",
	       fs_names[w->fs], w->id, (long)pos, w->bad_op);
	printf(" since op %lu:\n", from);
	for (i = from; i <= end; i++) {
		const struct op_rec *h = &w->hist[i % HIST];
		int over = pos >= h->off && pos < h->off + h->len;

		if (h->n != i || !(over || (h->kind == 'T' && h->off <= pos)))
			continue;
		printf("#   op %lu %c%s off %ld len %ld -> %ld",
		       h->n, h->kind, h->nowait ? " NOWAIT" : "",
		       (long)h->off, h->len, h->r);
		if (written_byte(h, pos) >= 0)
			printf(" (byte %d)", written_byte(h, pos));
		printf("\n");
	}
}

static void one_op(struct worker *w, unsigned char *buf)
{
	unsigned int k = rnd(w) % 100;
	size_t len = BS * (1 + rnd(w) % 16);
	off_t off = BS * (rnd(w) % (MAXSIZE / BS - 17));
	int nowait = rnd(w) % 3 != 0 && !plain_only;
	unsigned int fl = nowait ? RWF_NOWAIT : 0;
	long r;
	size_t i;

	w->ops++;
	if (k < 40) {				/* direct write */
		for (i = 0; i < len; i++)
			buf[i] = (unsigned char)(w->ops + i * 7);
		if (k < 25)
			r = aio_one(w, IOCB_CMD_PWRITE, buf, len, off, fl);
		else
			r = rw2(w, __NR_pwritev2, w->dfd, buf, len, off, fl);
		remember(w, k < 25 ? 'A' : 'W', nowait, off, len, r);
		wrote(w, r, buf, off, len, nowait);
	} else if (k < 50) {			/* buffered write */
		for (i = 0; i < len; i++)
			buf[i] = (unsigned char)(w->ops * 3 + i);
		off += rnd(w) % BS;
		r = rw2(w, __NR_pwritev2, w->bfd, buf, len, off, fl);
		remember(w, 'B', nowait, off, len, r);
		if (nowait && r != -EOPNOTSUPP && r > 0)
			bad(w, "NOWAIT buffered write: EOPNOTSUPP vs %ld (len %ld)",
			    r, len);
		wrote(w, r == -EOPNOTSUPP && nowait ? -EINVAL : r, buf, off,
		      len, nowait);
	} else if (k < 70) {			/* direct read */
		if (k < 60)
			r = aio_one(w, IOCB_CMD_PREAD, buf, len, off, fl);
		else
			r = rw2(w, __NR_preadv2, w->dfd, buf, len, off, fl);
		remember(w, k < 60 ? 'a' : 'r', nowait, off, len, r);
		read_and_check(w, r, buf, off, len, nowait);
	} else if (k < 80) {			/* buffered read */
		off += rnd(w) % BS;
		r = rw2(w, __NR_preadv2, w->bfd, buf, len, off, fl);
		remember(w, 'b', nowait, off, len, r);
		read_and_check(w, r, buf, off, len, nowait);
	} else if (k < 86) {			/* fallocate */
		int mode = rnd(w) % 3;

		if (mode == 2) {
			r = fallocate(w->dfd, FALLOC_FL_PUNCH_HOLE |
				      FALLOC_FL_KEEP_SIZE, off, len);
			if (!r && off < w->size)
				memset(w->shadow + off, 0,
				       off + (off_t)len > w->size ?
				       w->size - off : (off_t)len);
		} else {
			r = fallocate(w->dfd, mode ? FALLOC_FL_KEEP_SIZE : 0,
				      off, len);
			if (!r && !mode && off + (off_t)len > w->size) {
				memset(w->shadow + w->size, 0,
				       off + len - w->size);
				w->size = off + len;
			}
		}
		remember(w, "FKP"[mode], 0, off, len, r ? -errno : 0);
		if (r)
			bad(w, "fallocate: %ld (mode %ld)", -errno, mode);
	} else if (k < 90) {			/* truncate */
		off_t ns = (rnd(w) % (MAXSIZE / BS)) * BS / 2 +
			   (rnd(w) % 2 ? rnd(w) % BS : 0);

		r = ftruncate(w->dfd, ns) ? -errno : 0;
		remember(w, 'T', 0, ns, 0, r);
		if (r)
			bad(w, "ftruncate: %ld (to %ld)", r, ns);
		else if (ns > w->size)
			memset(w->shadow + w->size, 0, ns - w->size);
		else
			memset(w->shadow + ns, 0, w->size - ns);
		w->size = ns;
	} else if (k < 95) {			/* fsync */
		if (rnd(w) % 2 ? fsync(w->dfd) : fdatasync(w->bfd))
			bad(w, "fsync: %ld%ld", -errno, 0);
	} else if (w->src >= 0) {		/* reflink from the source */
		struct file_clone_range cr = {
			.src_fd = w->src, .src_offset = 0, .src_length = len,
			.dest_offset = off,
		};

		if (off > w->size)	/* a clone may not leave a gap */
			cr.dest_offset = w->size & ~(off_t)(BS - 1);
		if (cr.dest_offset + (off_t)len > MAXSIZE)
			return;
		r = ioctl(w->dfd, FICLONERANGE, &cr) ? -errno : 0;
		remember(w, 'C', 0, cr.dest_offset, len, r);
		if (r == 0) {
			if ((off_t)cr.dest_offset > w->size)
				memset(w->shadow + w->size, 0,
				       cr.dest_offset - w->size);
			apply_write(w, w->srcdata, cr.dest_offset, len);
		} else if (errno != EINVAL && errno != ENOTTY &&
			   errno != EOPNOTSUPP) {
			/*
			 * EINVAL: an unaligned EOF; ENOTTY, EOPNOTSUPP: no
			 * reflink here (before 4.5; XFS without it before
			 * 4.9); nothing is cloned
			 */
			bad(w, "FICLONERANGE: %ld at %ld", -errno,
			    cr.dest_offset);
		}
	}
}

static void check_file(struct worker *w, unsigned char *buf)
{
	struct stat st;
	off_t off;
	long n;
	int fd = open(w->path, O_RDONLY);

	if (fd < 0 || fstat(fd, &st)) {
		bad(w, "open for the check: %ld%ld", -errno, 0);
		return;
	}
	if (st.st_size != w->size)
		bad(w, "size %ld vs shadow %ld", st.st_size, w->size);
	for (off = 0; off < MAXSIZE; off += n) {
		n = pread(fd, buf, 1 << 20, off);
		if (n <= 0)
			break;
		check_bytes(w, buf, off, n);
	}
	close(fd);
}

static void *worker_main(void *arg)
{
	struct worker *w = arg;
	unsigned char *buf;

	if (posix_memalign((void **)&buf, BS, 1 << 20))
		return NULL;
	while (!stop)
		one_op(w, buf);
	fsync(w->dfd);
	check_file(w, buf);
	free(buf);
	return NULL;
}

/* takes the workers' inode locks without changing a byte or the size */
static void *locker_main(void *arg)
{
	int fs = (int)(long)arg, i = 0;

	while (!stop) {
		struct worker *w = &W[fs][i++ % WORKERS];

		if (fallocate(w->dfd, FALLOC_FL_KEEP_SIZE, MAXSIZE, 1 << 20))
			continue;
		fallocate(w->dfd, FALLOC_FL_PUNCH_HOLE | FALLOC_FL_KEEP_SIZE,
			  MAXSIZE, 1 << 20);
	}
	return NULL;
}

/*
 * XFS reflink before 4.10 (marked EXPERIMENTAL at mount) corrupts files:
 * with this program's own operation sequence, sent without
 * RWF_NOWAIT and without nowait_aio, 4.9.337 returns stale bytes from a
 * direct read after a clone, a truncate below it and a direct write, and
 * once asked vdb for a block far past its end (EIO).  The same sequence
 * without the clones is clean, and 4.12.0 is clean with them.  No clone
 * on XFS there, so that a mismatch stays the module's.
 */
static int xfs_reflink_broken(void)
{
	struct utsname u;
	int maj = 0, min = 0;

	return !uname(&u) && sscanf(u.release, "%d.%d", &maj, &min) == 2 &&
	       (maj < 4 || (maj == 4 && min < 10));
}

static int setup(struct worker *w, int fs, int id, int fresh)
{
	w->fs = fs;
	w->id = id;
	w->rng = 0x1234567ULL * (fs * 16 + id + 1);
	w->bad_off = -1;
	snprintf(w->path, sizeof(w->path), "/mnt/%s/stress-%d", fs_names[fs],
		 id);
	snprintf(w->src_path, sizeof(w->src_path), "/mnt/%s/stress-src-%d",
		 fs_names[fs], id);
	w->shadow = calloc(1, MAXSIZE);
	w->srcdata = malloc(1 << 16);
	if (!w->shadow || !w->srcdata)
		return -1;
	memset(w->srcdata, 0xc0 + id, 1 << 16);
	w->src = -1;
	if (!fresh)
		return 0;
	unlink(w->path);
	w->dfd = open(w->path, O_RDWR | O_CREAT | O_DIRECT, 0644);
	w->bfd = open(w->path, O_RDWR);
	if (w->dfd < 0 || w->bfd < 0)
		return -1;
	if (fs != 0 && !(fs == 1 && xfs_reflink_broken())) {
		w->src = open(w->src_path, O_RDWR | O_CREAT | O_TRUNC, 0644);
		if (w->src < 0 || pwrite(w->src, w->srcdata, 1 << 16, 0) !=
		    1 << 16 || fsync(w->src))
			return -1;
	}
	return syscall(__NR_io_setup, 16, &w->ctx) ? -1 : 0;
}

static void shadow_path(struct worker *w, char *p, size_t n)
{
	snprintf(p, n, "/mnt/9p/shadow-%s-%d", fs_names[w->fs], w->id);
}

int main(int argc, char **argv)
{
	pthread_t t[NFS][WORKERS], lk[NFS];
	unsigned long ops = 0, eagain = 0, refused = 0, bytes = 0, mis = 0;
	int verify = argc > 1 && !strcmp(argv[1], "verify");
	int secs = argc > 2 ? atoi(argv[2]) : 30, fs, i;

	plain_only = argc > 3 && !strcmp(argv[3], "plain");
	unsigned char *buf;
	char p[160];

	if (posix_memalign((void **)&buf, BS, 1 << 20))
		return 2;
	if (xfs_reflink_broken())
		printf("# xfs: no reflink (FICLONERANGE) before 4.10: %s\n",
		       "after clones it returns stale data, module or not");
	{
		struct iovec iov = { 0 };

		have_rwv2 = !(syscall(__NR_preadv2, -1, &iov, 1, 0UL, 0UL, 0) < 0 &&
			      errno == ENOSYS);
	}
	for (fs = 0; fs < NFS; fs++) {
		struct stat a, b;

		snprintf(p, sizeof(p), "/mnt/%s", fs_names[fs]);
		mounted[fs] = !stat(p, &a) && !stat("/mnt", &b) &&
			      a.st_dev != b.st_dev;
		for (i = 0; mounted[fs] && i < WORKERS; i++) {
			struct worker *w = &W[fs][i];

			if (setup(w, fs, i, !verify)) {
				printf("stress-error setup %s/%d: %s\n",
				       fs_names[fs], i, strerror(errno));
				return 2;
			}
			if (verify) {
				FILE *f;

				shadow_path(w, p, sizeof(p));
				f = fopen(p, "r");
				if (!f || fread(&w->size, sizeof(w->size), 1, f) != 1 ||
				    fread(w->shadow, 1, MAXSIZE, f) != MAXSIZE) {
					printf("stress-error no shadow %s\n", p);
					return 2;
				}
				fclose(f);
				check_file(w, buf);
			}
		}
	}
	if (!verify) {
		for (fs = 0; fs < NFS; fs++) {
			for (i = 0; mounted[fs] && i < WORKERS; i++)
				pthread_create(&t[fs][i], NULL, worker_main,
					       &W[fs][i]);
			if (mounted[fs])
				pthread_create(&lk[fs], NULL, locker_main,
					       (void *)(long)fs);
		}
		sleep(secs);
		stop = 1;
		for (fs = 0; fs < NFS; fs++) {
			for (i = 0; mounted[fs] && i < WORKERS; i++)
				pthread_join(t[fs][i], NULL);
			if (mounted[fs])
				pthread_join(lk[fs], NULL);
		}
	}
	for (fs = 0; fs < NFS; fs++) {
		for (i = 0; mounted[fs] && i < WORKERS; i++) {
			struct worker *w = &W[fs][i];

			ops += w->ops;
			eagain += w->eagain;
			refused += w->refused;
			bytes += w->checked;
			mis += w->mismatches;
			printf("# %s/%d: %lu ops, %lu eagain, %lu refused, %lu other errors, %lu short plain reads, %lu bytes checked, %lu mismatches%s%s\n",
			       fs_names[fs], i, w->ops, w->eagain, w->refused,
			       w->other, w->short_reads, w->checked,
			       w->mismatches,
			       w->first_bad[0] ? ": first: " : "", w->first_bad);
			print_history(w);
			if (!verify) {
				FILE *f;

				shadow_path(w, p, sizeof(p));
				f = fopen(p, "w");
				if (f) {
					fwrite(&w->size, sizeof(w->size), 1, f);
					fwrite(w->shadow, 1, MAXSIZE, f);
					fclose(f);
				}
			}
		}
	}
	printf("stress-%s: %lu ops, %lu eagain, %lu refused, %lu bytes checked, %lu mismatches\n",
	       verify ? "verify" : "run", ops, eagain, refused, bytes, mis);
	return mis ? 1 : 0;
}
