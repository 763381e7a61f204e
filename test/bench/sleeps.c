// SPDX-License-Identifier: GPL-2.0
/*
 * Guest side of the benchmark's sleep counts: does a NOWAIT call sleep
 * where 4.14 refuses at once?  Four scenarios, each a loop of NOWAIT
 * io_submit calls, one request in flight, reaped before the next:
 *
 *   sleeps --punch DIR FS    4 KiB direct overwrites of the first 8 MiB of
 *                            DIR/sleeps.dat while a thread keeps dirtying
 *                            8 MiB further on with buffered writes and
 *                            punching a hole there (fallocate), which
 *                            holds the IOLOCK while it writes back (XFS
 *                            before 4.10: XFS's own, not the VFS inode's)
 *   sleeps --raw DEV         4 KiB direct writes to block device DEV over
 *                            the range a thread keeps dirtying with
 *                            buffered writes (4.14 refuses: pages cached)
 *   sleeps --compressed DIR  4 KiB direct reads of a btrfs file written
 *                            compressed (chattr +c), its cache dropped
 *                            (4.14 refuses the fallback buffered read)
 *   sleeps --lock DIR FS     4 KiB direct overwrites as --punch while a
 *                            thread keeps writing 4 KiB buffered 16 MiB
 *                            further on, 50 us apart, each write holding
 *                            the inode lock (XFS before 4.10: its IOLOCK):
 *                            a call that finds the lock free and still
 *                            sleeps is one a writer took between the
 *                            module's lock test and the filesystem's own
 *                            taking of it (run with 2 vCPUs or more)
 *
 * It prints, per scenario,
 *   nwsleeps scenario=S fs=F calls=N eagain=N done=N other=N slept=N
 *            slept_eagain=N
 * where slept counts the calls during which the loop thread slept (its
 * voluntary context switches, getrusage(RUSAGE_THREAD), read just
 * outside io_submit), and slept_eagain those of them that were refused.
 * A count, not a time: 4.14 has 0 where it refuses.  sleeps_calls
 * (2000) calls per scenario.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <libaio.h>
#include <linux/falloc.h>
#include <linux/fs.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "nowait_aio.h"

#define BS 4096
#define MIB (1 << 20)
#define LOOP_SPAN (8 * MIB)	/* what the loop writes or reads */
#define PRESS_AT (16 * MIB)	/* where the presser works (punch) */
#define LOCK_GAP_US 50		/* --lock: the lock free between writes */

struct counts {
	long calls, eagain, done, other, slept, slept_eagain;
};

enum press { PRESS_DIRTY, PRESS_PUNCH, PRESS_LOCK };

struct presser {
	int fd;
	off_t at;
	enum press kind;
	volatile int stop;
	pthread_t th;
};

static long nvcsw(void)
{
	struct rusage ru;

	return getrusage(RUSAGE_THREAD, &ru) ? 0 : ru.ru_nvcsw;
}

/* Busy for @us microseconds: off the lock but still on its CPU. */
static void spin_us(long us)
{
	struct timespec t0, t;

	clock_gettime(CLOCK_MONOTONIC, &t0);
	do
		clock_gettime(CLOCK_MONOTONIC, &t);
	while ((t.tv_sec - t0.tv_sec) * 1000000 +
	       (t.tv_nsec - t0.tv_nsec) / 1000 < us);
}

static void *xalloc(size_t len, int fill)
{
	void *p;

	if (posix_memalign(&p, BS, len)) {
		perror("posix_memalign");
		exit(2);
	}
	memset(p, fill, len);
	return p;
}

/* Dirty 8 MiB at p->at with buffered writes; punch it out (p->punch). */
static void *presser_main(void *arg)
{
	struct presser *p = arg;
	char *b = xalloc(MIB, 0x33);
	int i;

	while (!p->stop && p->kind == PRESS_LOCK)
		for (i = 0; i < 8 * MIB / BS && !p->stop; i++) {
			if (pwrite(p->fd, b, BS, p->at + (off_t)i * BS) < 0)
				perror("presser: pwrite");
			spin_us(LOCK_GAP_US);	/* the lock free, on CPU */
		}
	while (!p->stop && p->kind != PRESS_LOCK) {
		for (i = 0; i < 8 && !p->stop; i++)
			if (pwrite(p->fd, b, MIB, p->at + (off_t)i * MIB) < 0)
				perror("presser: pwrite");
		if (p->kind == PRESS_PUNCH &&
		    fallocate(p->fd, FALLOC_FL_PUNCH_HOLE | FALLOC_FL_KEEP_SIZE,
			      p->at, 8 * MIB))
			perror("presser: fallocate");
		if (p->kind == PRESS_DIRTY)
			usleep(1000);
	}
	free(b);
	return NULL;
}

/* One NOWAIT request at @off, reaped; counted. */
static void one(io_context_t ctx, int fd, int opcode, void *buf, off_t off,
		struct counts *n)
{
	struct iocb cb, *cbs[1] = { &cb };
	struct io_event ev;
	long before, slept;
	long res;
	int r;

	if (opcode == IO_CMD_PWRITE)
		io_prep_pwrite(&cb, fd, buf, BS, off);
	else
		io_prep_pread(&cb, fd, buf, BS, off);
	cb.aio_rw_flags = RWF_NOWAIT;
	before = nvcsw();
	r = io_submit(ctx, 1, cbs);
	slept = nvcsw() != before;
	if (r == 1)
		res = io_getevents(ctx, 1, 1, &ev, NULL) == 1 ? (long)ev.res :
								-EIO;
	else
		res = r < 0 ? r : -EIO;
	n->calls++;
	n->slept += slept;
	if (res == -EAGAIN) {
		n->eagain++;
		n->slept_eagain += slept;
	} else if (res == BS) {
		n->done++;
	} else {
		n->other++;
	}
}

static void loop(int fd, int opcode, const char *scenario, const char *fs)
{
	long calls = getenv("sleeps_calls") ?
		     atol(getenv("sleeps_calls")) : 2000;
	char *buf = xalloc(BS, 0x5a);
	struct counts n = { 0 };
	io_context_t ctx = 0;
	uint64_t rng = 88172645463325252ull;
	long i;

	if (io_setup(4, &ctx)) {
		perror("io_setup");
		exit(2);
	}
	for (i = 0; i < calls; i++) {
		rng ^= rng << 13;
		rng ^= rng >> 7;
		rng ^= rng << 17;
		one(ctx, fd, opcode, buf, (off_t)(rng % (LOOP_SPAN / BS)) * BS,
		    &n);
		usleep(200);
	}
	io_destroy(ctx);
	free(buf);
	printf("nwsleeps scenario=%s fs=%s calls=%ld eagain=%ld done=%ld other=%ld slept=%ld slept_eagain=%ld\n",
	       scenario, fs, n.calls, n.eagain, n.done, n.other, n.slept,
	       n.slept_eagain);
	fflush(stdout);
}

/* A file of @len written bytes (btrfs: NODATACOW, set while empty) */
static int make_file(const char *path, off_t len, int nocow)
{
	int fd = open(path, O_RDWR | O_CREAT | O_TRUNC, 0644), fl = 0;
	char *b = xalloc(MIB, 0x11);
	off_t o;

	if (fd < 0) {
		perror(path);
		exit(2);
	}
	if (nocow && !ioctl(fd, FS_IOC_GETFLAGS, &fl)) {
		fl |= nocow;
		ioctl(fd, FS_IOC_SETFLAGS, &fl);
	}
	for (o = 0; o < len; o += MIB)
		if (pwrite(fd, b, MIB, o) != MIB) {
			perror("make_file: pwrite");
			exit(2);
		}
	fsync(fd);
	/* no cached pages: else every direct write is refused for them */
	posix_fadvise(fd, 0, 0, POSIX_FADV_DONTNEED);
	free(b);
	return fd;
}

static void with_presser(int fd, int dfd, int opcode, off_t at,
			 enum press kind, const char *scenario, const char *fs)
{
	struct presser p = { .fd = fd, .at = at, .kind = kind };

	pthread_create(&p.th, NULL, presser_main, &p);
	usleep(100000);
	loop(dfd, opcode, scenario, fs);
	p.stop = 1;
	pthread_join(p.th, NULL);
}

/* --punch and --lock: overwrites while a thread works 16 MiB further on */
static int overwrites(const char *dir, const char *fs, enum press kind)
{
	char path[512];
	int fd, dfd;

	snprintf(path, sizeof(path), "%s/sleeps.dat", dir);
	fd = make_file(path, PRESS_AT + 8 * MIB,
		       strcmp(fs, "btrfs") ? 0 : FS_NOCOW_FL);
	dfd = open(path, O_RDWR | O_DIRECT);
	if (dfd < 0) {
		perror(path);
		return 2;
	}
	with_presser(fd, dfd, IO_CMD_PWRITE, PRESS_AT, kind,
		     kind == PRESS_PUNCH ? "punch" : "lock", fs);
	close(dfd);
	close(fd);
	unlink(path);
	return 0;
}

static int raw(const char *dev)
{
	int fd = open(dev, O_RDWR), dfd = open(dev, O_RDWR | O_DIRECT);

	if (fd < 0 || dfd < 0) {
		perror(dev);
		return 2;
	}
	/* the presser dirties the loop's own range */
	with_presser(fd, dfd, IO_CMD_PWRITE, 0, PRESS_DIRTY, "raw", "blkdev");
	fsync(fd);
	close(dfd);
	close(fd);
	return 0;
}

static int compressed(const char *dir)
{
	char path[512];
	int fd, dfd;

	snprintf(path, sizeof(path), "%s/sleeps-c.dat", dir);
	fd = make_file(path, LOOP_SPAN, FS_COMPR_FL);
	dfd = open(path, O_RDONLY | O_DIRECT);
	if (dfd < 0) {
		perror(path);
		return 2;
	}
	loop(dfd, IO_CMD_PREAD, "compressed", "btrfs");
	close(dfd);
	close(fd);
	unlink(path);
	return 0;
}

int main(int argc, char **argv)
{
	if (argc == 4 && !strcmp(argv[1], "--punch"))
		return overwrites(argv[2], argv[3], PRESS_PUNCH);
	if (argc == 4 && !strcmp(argv[1], "--lock"))
		return overwrites(argv[2], argv[3], PRESS_LOCK);
	if (argc == 3 && !strcmp(argv[1], "--raw"))
		return raw(argv[2]);
	if (argc == 3 && !strcmp(argv[1], "--compressed"))
		return compressed(argv[2]);
	fprintf(stderr, "usage: sleeps --punch DIR FS | --lock DIR FS | --raw DEV | --compressed DIR\n");
	return 2;
}
