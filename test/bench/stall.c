// SPDX-License-Identifier: GPL-2.0
/*
 * Guest side of `make bench`: the event-loop stall and the refusal cost.
 *
 *   stall --stall DIR FS [--dump DUMPDIR]
 *   stall --refusal DIR FS
 *   stall --submit DIR FS [nowait]
 *   stall --scale DIR FS
 *
 * --stall: one loop thread submits 4 KiB O_DIRECT writes to stall_files
 * files in DIR (stall0.dat, stall1.dat, ...), a mix of overwrites of
 * written blocks (never need to allocate) and allocating appends at EOF,
 * files picked at random, at most QD requests in flight (QD / files per
 * file; a pick whose file is full takes the next file), stall_think_us
 * of sleep after each submit (the loop's other work, waiting for events).
 * Meanwhile two holder threads rewrite a region of stall0.dat, the SAME
 * file the loop writes, with back-to-back buffered pwrite()s of 16 and
 * 8 MiB (the second followed by fdatasync()), so the inode lock (i_rwsem)
 * the loop's writes to it need is held exclusively for long stretches,
 * and a third thread dirties DIR/dirty.dat 1 MiB at a time and pushes it
 * out with sync_file_range()/fdatasync() (writeback pressure).  The loop
 * times each submit call with CLOCK_MONOTONIC, in three modes:
 *
 *   plain       io_submit() without flags
 *   nowait      libnowait's nowait_submit(): RWF_NOWAIT inline, a refused
 *               request resubmitted without the flag by a worker thread
 *   threadpool  every request handed to worker threads doing pwrite();
 *               the loop's submit is the enqueue
 *
 * Per mode and round it prints
 *   stall fs=F mode=M round=R n=N p50=.. p99=.. p999=.. max=.. tput=.. ...
 * (submit durations in microseconds of guest time, tput in completed
 * requests per second; slept= counts the submits during which the loop
 * thread slept: its voluntary context switches, getrusage(RUSAGE_THREAD),
 * read just outside the timed call), and after the last round per mode
 *   sleeps fs=F mode=M calls=N slept=N
 * summed over the rounds.  Every mode draws its requests from the same
 * generator (same seed) on the same file layout, reset between runs.  With
 * --dump, each round's per-submit durations go to DUMPDIR/stall-F-M-rR.txt.
 *
 * The loop and its worker threads run SCHED_FIFO (stall_sched=fifo,
 * the default), the holders and the dirtier SCHED_OTHER: with one vCPU
 * this stands for "the event loop has a core of its own", so a submit's
 * duration is the time it waits in the kernel, not the time the
 * antagonists spend on the CPU.  stall_sched=other runs all alike.
 *
 * --refusal: NOWAIT direct writes into a hole of a sparse file (refused
 * with EAGAIN, in the event or by io_submit) alternated with NOWAIT
 * overwrites of written blocks, one at a time, no other load; prints
 *   refusal fs=F eagain_submit_us=.. overwrite_submit_us=.. ratio=.. ...
 * (means of the io_submit durations, then medians and counts).
 *
 * Environment (the bench and scale profiles' parameters, test/bench/guest.sh
 * passes them: test/vm/profiles/bench.env): rounds (3), stall_ms (guest ms per mode and
 * round, 2000), stall_files (4), stall_qd (16), stall_workers (8),
 * stall_append_pct (12), stall_think_us (100), stall_seed,
 * stall_sched (fifo|other), refusal_reps (2000), spin (1: a
 * SCHED_IDLE thread keeps the vCPU from idling, see spinner()).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <libaio.h>
#include <linux/fs.h>
#include <math.h>
#include <pthread.h>
#include <sched.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "libnowait.h"
#include "nowait_aio.h"

#define BS		4096
#define MIB		(1024L * 1024)
#define OVER_MB		16	/* the loop's overwrites: [0, 16 MiB) of each file */
#define HOLD_A_MB	16	/* stall0.dat: holder A, [16, 32 MiB), buffered */
#define HOLD_B_MB	8	/* holder B, [32, 40 MiB), buffered + fdatasync */
#define BASE0_MB	(OVER_MB + HOLD_A_MB + HOLD_B_MB)
#define DIRTY_MB	32	/* the dirtier's own file */
#define MAX_APPENDS	16384	/* 64 MiB past EOF at most per run */
#define MAX_LAT		(1 << 20)
#define MAX_QD		256
#define MAX_FILES	16

enum mode { M_PLAIN, M_NOWAIT, M_POOL, M_COUNT };
static const char *const mode_name[M_COUNT] = { "plain", "nowait",
						 "threadpool" };

struct cfg {
	const char *dir, *fs, *dump;
	int rounds, ms, files, qd, workers, append_pct, think_us, fifo, reps;
	uint64_t seed;
};

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + ts.tv_nsec;
}

static void sleep_ms(int ms)
{
	struct timespec ts = { ms / 1000, (ms % 1000) * 1000000L };

	while (nanosleep(&ts, &ts) && errno == EINTR)
		;
}

static int env_int(const char *name, int def)
{
	const char *v = getenv(name);

	return v && *v ? atoi(v) : def;
}

static uint64_t rng_next(uint64_t *s)
{
	/* xorshift64* */
	*s ^= *s >> 12;
	*s ^= *s << 25;
	*s ^= *s >> 27;
	return *s * 2685821657736338717ull;
}

static void *xalloc(size_t len, int fill)
{
	void *p;

	if (posix_memalign(&p, BS, len)) {
		fprintf(stderr, "stall: out of memory\n");
		exit(1);
	}
	memset(p, fill, len);
	return p;
}

static int set_nocow(int fd)
{
	int fl = 0;

	if (ioctl(fd, FS_IOC_GETFLAGS, &fl))
		return -1;
	fl |= FS_NOCOW_FL;
	return ioctl(fd, FS_IOC_SETFLAGS, &fl);
}

/*
 * A fresh file of @written_mb MiB of written blocks and @size_mb MiB of
 * size (a hole after the written part), NODATACOW first on btrfs so that
 * direct overwrites stay in place.  Returns an O_DIRECT fd.
 */
static int make_file(const struct cfg *c, const char *name, int written_mb,
		     int size_mb)
{
	char path[600];
	void *b;
	int fd, i;

	snprintf(path, sizeof(path), "%s/%s", c->dir, name);
	unlink(path);
	fd = open(path, O_RDWR | O_CREAT | O_TRUNC | O_DIRECT, 0644);
	if (fd < 0) {
		fprintf(stderr, "stall: %s: %s\n", path, strerror(errno));
		exit(1);
	}
	if (!strcmp(c->fs, "btrfs") && set_nocow(fd))
		fprintf(stderr, "stall: %s: cannot set NODATACOW\n", path);
	b = xalloc(MIB, 0x5a);
	for (i = 0; i < written_mb; i++)
		if (pwrite(fd, b, MIB, (off_t)i * MIB) != MIB) {
			fprintf(stderr, "stall: writing %s: %s\n", path,
				strerror(errno));
			exit(1);
		}
	free(b);
	if (ftruncate(fd, (off_t)size_mb * MIB) || fsync(fd)) {
		fprintf(stderr, "stall: %s: %s\n", path, strerror(errno));
		exit(1);
	}
	return fd;
}

static int open_again(const struct cfg *c, const char *name, int flags)
{
	char path[600];
	int fd;

	snprintf(path, sizeof(path), "%s/%s", c->dir, name);
	fd = open(path, O_RDWR | flags);
	if (fd < 0) {
		fprintf(stderr, "stall: %s: %s\n", path, strerror(errno));
		exit(1);
	}
	return fd;
}

static void rm_file(const struct cfg *c, const char *name)
{
	char path[600];

	snprintf(path, sizeof(path), "%s/%s", c->dir, name);
	unlink(path);
}

/* one of the module's refusal counters (0 without the module) */
static unsigned long module_counter(const char *name)
{
	char path[128];
	unsigned long v = 0;
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", NOWAIT_AIO_SYSFS, name);
	f = fopen(path, "r");
	if (!f)
		return 0;
	if (fscanf(f, "%lu", &v) != 1)
		v = 0;
	fclose(f);
	return v;
}

static int set_fifo(int on)
{
	struct sched_param sp = { .sched_priority = on ? 10 : 0 };

	return sched_setscheduler(0, on ? SCHED_FIFO : SCHED_OTHER, &sp);
}

/*
 * What a mode costs: the process's CPU time and context switches
 * (getrusage(RUSAGE_SELF): every thread, live or exited) over a run, less
 * those of the threads that are not the mode's (the antagonists, which
 * count their own, and the SCHED_IDLE spinner, read from outside).
 */
struct usage {
	double cpu_us;
	long csw;
};

static pid_t spin_tid;			/* the spinner, 0 if none */
static pthread_t spin_th;

static void usage_self(struct usage *u)
{
	struct rusage ru;

	getrusage(RUSAGE_SELF, &ru);
	u->cpu_us = ru.ru_utime.tv_sec * 1e6 + ru.ru_utime.tv_usec +
		    ru.ru_stime.tv_sec * 1e6 + ru.ru_stime.tv_usec;
	u->csw = ru.ru_nvcsw + ru.ru_nivcsw;
}

static void usage_thread(struct usage *u)
{
	struct rusage ru;
	struct timespec ts;

	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
	getrusage(RUSAGE_THREAD, &ru);
	u->cpu_us = ts.tv_sec * 1e6 + ts.tv_nsec / 1e3;
	u->csw = ru.ru_nvcsw + ru.ru_nivcsw;
}

static void usage_spinner(struct usage *u)
{
	char path[64], line[128];
	struct timespec ts;
	clockid_t cid;
	FILE *f;

	memset(u, 0, sizeof(*u));
	if (!spin_tid)
		return;
	if (!pthread_getcpuclockid(spin_th, &cid) &&
	    !clock_gettime(cid, &ts))
		u->cpu_us = ts.tv_sec * 1e6 + ts.tv_nsec / 1e3;
	snprintf(path, sizeof(path), "/proc/self/task/%d/status", (int)spin_tid);
	f = fopen(path, "r");
	if (!f)
		return;
	while (fgets(line, sizeof(line), f)) {
		long v;

		if (sscanf(line, "voluntary_ctxt_switches: %ld", &v) == 1 ||
		    sscanf(line, "nonvoluntary_ctxt_switches: %ld", &v) == 1)
			u->csw += v;
	}
	fclose(f);
}

/* ---- the antagonists ---- */

struct presser {
	pthread_t th;
	int fd;			/* buffered */
	off_t off;
	size_t len;
	int kind;		/* 0 holder, 1 holder + fdatasync, 2 dirtier */
	volatile int *stop;
	char *buf;
	long writes;
	uint64_t write_ns;	/* holders: time inside pwrite() */
	struct usage used;	/* its own CPU time and switches, at exit */
};

static void pwrite_all(int fd, const char *b, size_t len, off_t off)
{
	while (len) {
		ssize_t r = pwrite(fd, b, len, off);

		if (r <= 0)
			return;
		b += r;
		len -= r;
		off += r;
	}
}

static void *presser_main(void *arg)
{
	struct presser *p = arg;
	struct usage u0;
	uint64_t t;
	off_t o;

	usage_thread(&u0);
	while (!*p->stop) {
		if (p->kind == 2) {
			/* dirty the other file 1 MiB at a time, push it out */
			for (o = 0; o < (off_t)p->len && !*p->stop; o += MIB) {
				pwrite_all(p->fd, p->buf, MIB, p->off + o);
				if ((o / MIB) % 4 == 3)
					sync_file_range(p->fd, o - 3 * MIB,
							4 * MIB,
							SYNC_FILE_RANGE_WRITE);
			}
			fdatasync(p->fd);
			p->writes++;
			continue;
		}
		t = now_ns();
		pwrite_all(p->fd, p->buf, p->len, p->off);
		p->write_ns += now_ns() - t;
		p->writes++;
		if (p->kind == 1)
			fdatasync(p->fd);
	}
	usage_thread(&p->used);
	p->used.cpu_us -= u0.cpu_us;
	p->used.csw -= u0.csw;
	return NULL;
}

/* ---- the worker thread pool of the threadpool mode ---- */

struct slot {
	struct iocb cb;
	struct slot *next;	/* pool queues */
	char *buf;
	int fd, file;
	off_t off;
	long res;
	int append;
	uint64_t t_sub;		/* when it was submitted */
};

/* the loop's files: [0] is the one the holders write to */
struct files {
	int fd[MAX_FILES];
	off_t base[MAX_FILES], eof[MAX_FILES];
	int inflight[MAX_FILES];
	int bfd;		/* stall0.dat, buffered, for the holders */
	int dfd;		/* dirty.dat, buffered, for the dirtier */
};

struct pool {
	pthread_mutex_t lock;
	pthread_cond_t work;
	struct slot *head, *tail, *done;
	int stop, n;
	pthread_t th[64];
};

static void *pool_worker(void *arg)
{
	struct pool *p = arg;
	struct slot *s;

	pthread_mutex_lock(&p->lock);
	for (;;) {
		while (!p->head && !p->stop)
			pthread_cond_wait(&p->work, &p->lock);
		s = p->head;
		if (!s)
			break;
		p->head = s->next;
		if (!p->head)
			p->tail = NULL;
		pthread_mutex_unlock(&p->lock);
		s->res = pwrite(s->fd, s->buf, BS, s->off);
		if (s->res < 0)
			s->res = -errno;
		pthread_mutex_lock(&p->lock);
		s->next = p->done;
		p->done = s;
	}
	pthread_mutex_unlock(&p->lock);
	return NULL;
}

static int pool_open(struct pool *p, int n)
{
	memset(p, 0, sizeof(*p));
	pthread_mutex_init(&p->lock, NULL);
	pthread_cond_init(&p->work, NULL);
	for (p->n = 0; p->n < n && p->n < 64; p->n++)
		if (pthread_create(&p->th[p->n], NULL, pool_worker, p))
			break;
	return p->n ? 0 : -1;
}

static int pool_submit(struct pool *p, struct slot *s)
{
	pthread_mutex_lock(&p->lock);
	s->next = NULL;
	if (p->tail)
		p->tail->next = s;
	else
		p->head = s;
	p->tail = s;
	pthread_mutex_unlock(&p->lock);
	pthread_cond_signal(&p->work);
	return 1;
}

static int pool_reap(struct pool *p, struct slot **out)
{
	struct slot *s;
	int n = 0;

	pthread_mutex_lock(&p->lock);
	s = p->done;
	p->done = NULL;
	pthread_mutex_unlock(&p->lock);
	for (; s; s = s->next)
		out[n++] = s;
	return n;
}

static void pool_close(struct pool *p)
{
	int i;

	pthread_mutex_lock(&p->lock);
	p->stop = 1;
	pthread_cond_broadcast(&p->work);
	pthread_mutex_unlock(&p->lock);
	for (i = 0; i < p->n; i++)
		pthread_join(p->th[i], NULL);
}

/* ---- the loop ---- */

struct result {
	uint64_t *lat;		/* ns per submit */
	char *kind;		/* o/a overwrite/append; O/A to stall0.dat */
	long n, done, errors, appends, contended;
	double secs;
	long holds;
	double hold_ms;
	int fifo;		/* the loop ran SCHED_FIFO */
	long slept;		/* submits during which the loop slept */
	struct nowait_stats st;
	uint64_t *done_lat;	/* ns from submit to completion seen */
	long ndone_lat, done_all;
	double cpu_us;		/* the mode's threads, the whole run */
	long csw;
};

/* the calling thread's voluntary context switches (it slept) */
static long nvcsw(void)
{
	struct rusage ru;

	return getrusage(RUSAGE_THREAD, &ru) ? 0 : ru.ru_nvcsw;
}

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

/* nearest-rank percentile of sorted @v, in microseconds */
static double pct_us(const uint64_t *v, long n, double q)
{
	long i = (long)ceil(q * n) - 1;

	if (n <= 0)
		return 0;
	if (i < 0)
		i = 0;
	if (i >= n)
		i = n - 1;
	return v[i] / 1000.0;
}

/* Reset the layout: drop the appends and every cached page. */
static void reset_files(const struct cfg *c, struct files *f)
{
	int i;

	for (i = 0; i < c->files; i++) {
		if (ftruncate(f->fd[i], f->base[i]))
			perror("stall: ftruncate");
		fsync(f->fd[i]);
		posix_fadvise(f->fd[i], 0, 0, POSIX_FADV_DONTNEED);
		f->eof[i] = f->base[i];
		f->inflight[i] = 0;
	}
	fsync(f->dfd);
	posix_fadvise(f->dfd, 0, 0, POSIX_FADV_DONTNEED);
}

/*
 * Collect what has completed, without waiting: the loop naps between polls
 * in every mode alike (libnowait's nowait_getevents() with min >= 1 polls
 * io_getevents() with min_nr 0, which returns at once: under SCHED_FIFO
 * on one CPU that spin would keep its own workers off the CPU).
 */
static int reap(enum mode m, io_context_t ctx, struct nowait_loop *l,
		struct pool *pool, int max, struct slot **out)
{
	struct io_event ev[MAX_QD];
	struct timespec zero = { 0, 0 };
	int r, i;

	switch (m) {
	case M_PLAIN:
		r = io_getevents(ctx, 0, max, ev, &zero);
		break;
	case M_NOWAIT:
		r = nowait_getevents(l, 0, max, ev, &zero);
		break;
	default:
		return pool_reap(pool, out);
	}
	if (r < 0)
		return r == -EINTR ? 0 : r;
	for (i = 0; i < r; i++) {
		out[i] = ev[i].data;
		out[i]->res = (long)ev[i].res;
	}
	return r;
}

static void nap(int us)
{
	struct timespec ts = { 0, (us > 0 ? us : 100) * 1000L };

	nanosleep(&ts, NULL);
}

static void run_mode(const struct cfg *c, enum mode m, struct files *f,
		     struct result *res)
{
	struct slot slots[MAX_QD], *free_list = NULL, *got[MAX_QD];
	struct presser pr[3];
	struct nowait_loop *l = NULL;
	struct pool pool;
	io_context_t ctx = 0;
	volatile int stop = 0;
	uint64_t rng = c->seed, t0, t1, end, start;
	long sw;
	int cap = c->qd / c->files, inflight = 0, i, r, fifo = 0;
	unsigned long lock0 = module_counter("eagain_lock");
	unsigned long alloc0 = module_counter("eagain_alloc");
	unsigned long pc0 = module_counter("eagain_pagecache");
	struct usage p0, p1, s0, s1;

	usage_self(&p0);
	usage_spinner(&s0);
	memset(res->kind, 0, MAX_LAT);
	res->ndone_lat = res->done_all = 0;
	res->n = res->done = res->errors = res->appends = res->contended = 0;
	res->slept = 0;
	memset(&res->st, 0, sizeof(res->st));
	for (i = 0; i < c->qd; i++) {
		slots[i].buf = xalloc(BS, 0xa5);
		slots[i].next = free_list;
		free_list = &slots[i];
	}

	/* the antagonists, SCHED_OTHER */
	memset(pr, 0, sizeof(pr));
	pr[0].fd = f->bfd;
	pr[0].off = OVER_MB * MIB;
	pr[0].len = HOLD_A_MB * MIB;
	pr[0].kind = 0;
	pr[1].fd = f->bfd;
	pr[1].off = (OVER_MB + HOLD_A_MB) * MIB;
	pr[1].len = HOLD_B_MB * MIB;
	pr[1].kind = 1;
	pr[2].fd = f->dfd;
	pr[2].off = 0;
	pr[2].len = DIRTY_MB * MIB;
	pr[2].kind = 2;
	for (i = 0; i < 3; i++) {
		pr[i].stop = &stop;
		pr[i].buf = xalloc(pr[i].kind == 2 ? MIB : pr[i].len, 0x11 + i);
		pthread_create(&pr[i].th, NULL, presser_main, &pr[i]);
	}

	/* the loop (this thread) and its workers, SCHED_FIFO */
	if (c->fifo)
		fifo = !set_fifo(1);
	if (m == M_PLAIN || m == M_NOWAIT) {
		if (io_setup(MAX_QD, &ctx)) {
			fprintf(stderr, "stall: io_setup failed\n");
			exit(1);
		}
	}
	if (m == M_NOWAIT) {
		l = nowait_open(ctx, c->workers);
		if (!l) {
			fprintf(stderr, "stall: nowait_open failed\n");
			exit(1);
		}
	}
	if (m == M_POOL && pool_open(&pool, c->workers)) {
		fprintf(stderr, "stall: no worker threads\n");
		exit(1);
	}
	/* let the antagonists get going */
	sleep_ms(50);

	start = now_ns();
	end = start + (uint64_t)c->ms * 1000000ull;
	while (now_ns() < end && res->n < MAX_LAT) {
		struct slot *s = free_list;
		struct iocb *cbp;

		if (s && inflight < c->qd) {
			int file = rng_next(&rng) % c->files;
			int app = (int)(rng_next(&rng) % 100) < c->append_pct;
			uint64_t blk = rng_next(&rng) % (OVER_MB * MIB / BS);

			/* its file has its share in flight: the next one */
			while (f->inflight[file] >= cap)
				file = (file + 1) % c->files;
			free_list = s->next;
			s->file = file;
			s->fd = f->fd[file];
			s->append = app && res->appends < MAX_APPENDS;
			if (s->append) {
				s->off = f->eof[file];
				f->eof[file] += BS;
				res->appends++;
			} else {
				s->off = (off_t)blk * BS;
			}
			io_prep_pwrite(&s->cb, s->fd, s->buf, BS, s->off);
			s->cb.data = s;
			cbp = &s->cb;
			res->kind[res->n] = s->append ? 'a' : 'o';
			if (!file) {
				res->kind[res->n] += 'A' - 'a';
				res->contended++;
			}
			sw = nvcsw();
			t0 = now_ns();
			s->t_sub = t0;
			if (m == M_PLAIN)
				r = io_submit(ctx, 1, &cbp);
			else if (m == M_NOWAIT)
				r = nowait_submit(l, &cbp, 1);
			else
				r = pool_submit(&pool, s);
			t1 = now_ns();
			res->slept += nvcsw() != sw;
			res->lat[res->n++] = t1 - t0;
			if (r == 1) {
				inflight++;
				f->inflight[file]++;
			} else {
				res->errors++;
				s->next = free_list;
				free_list = s;
			}
			if (c->think_us)
				nap(c->think_us);
		} else if (c->think_us) {
			/* all in flight: wait for a completion */
			nap(c->think_us);
		} else {
			/* busy: let the mode's own threads run */
			sched_yield();
		}
		r = reap(m, ctx, l, &pool, c->qd, got);
		t1 = now_ns();
		for (i = 0; i < r; i++) {
			if (got[i]->res != BS)
				res->errors++;
			if (res->ndone_lat < MAX_LAT)
				res->done_lat[res->ndone_lat++] =
					t1 - got[i]->t_sub;
			got[i]->next = free_list;
			free_list = got[i];
			f->inflight[got[i]->file]--;
			inflight--;
			res->done++;
		}
	}
	res->secs = (now_ns() - start) / 1e9;

	stop = 1;
	while (inflight > 0) {
		r = reap(m, ctx, l, &pool, c->qd, got);
		if (r < 0)
			break;
		if (!r)
			nap(1000);
		for (i = 0; i < r; i++) {
			got[i]->next = free_list;
			free_list = got[i];
			f->inflight[got[i]->file]--;
			inflight--;
			res->done_all++;
		}
	}
	res->done_all += res->done;
	if (m == M_NOWAIT) {
		/* the module's counters count since it was loaded */
		nowait_get_stats(l, &res->st);
		res->st.module_eagain_lock -= lock0;
		res->st.module_eagain_alloc -= alloc0;
		res->st.module_eagain_pagecache -= pc0;
		nowait_close(l);
	} else if (m == M_PLAIN) {
		io_destroy(ctx);
	} else {
		pool_close(&pool);
	}
	res->fifo = fifo;
	if (fifo)
		set_fifo(0);
	for (i = 0; i < 3; i++) {
		pthread_join(pr[i].th, NULL);
		free(pr[i].buf);
	}
	res->holds = pr[0].writes;
	res->hold_ms = pr[0].writes ? pr[0].write_ns / 1e6 / pr[0].writes : 0;
	usage_self(&p1);
	usage_spinner(&s1);
	res->cpu_us = p1.cpu_us - p0.cpu_us - (s1.cpu_us - s0.cpu_us);
	res->csw = p1.csw - p0.csw - (s1.csw - s0.csw);
	for (i = 0; i < 3; i++) {
		res->cpu_us -= pr[i].used.cpu_us;
		res->csw -= pr[i].used.csw;
	}
	for (i = 0; i < c->qd; i++)
		free(slots[i].buf);
	reset_files(c, f);
}

static void dump(const struct cfg *c, enum mode m, int round,
		 const struct result *res)
{
	char path[600];
	FILE *f;
	long i;

	snprintf(path, sizeof(path), "%s/stall-%s-%s-r%d.txt", c->dump, c->fs,
		 mode_name[m], round);
	f = fopen(path, "w");
	if (!f) {
		fprintf(stderr, "stall: %s: %s\n", path, strerror(errno));
		return;
	}
	fprintf(f, "# submit_us kind(o/a: overwrite/append, O/A: to the held file) fs=%s mode=%s\n",
		c->fs, mode_name[m]);
	for (i = 0; i < res->n; i++)
		fprintf(f, "%.3f %c\n", res->lat[i] / 1000.0, res->kind[i]);
	fclose(f);
}

/*
 * cost fs= mode= loop=nap|busy round= cpu_us_per_req= csw_per_req=
 * done_p50_us= done_p99_us= tput=: the CPU time and context switches of
 * the mode's threads (the loop and its workers) per completed request,
 * and the time from a submit to the loop seeing its completion.
 */
static void print_cost(const struct cfg *c, enum mode m, int round,
		       struct result *res)
{
	long n = res->done_all > 0 ? res->done_all : 1;

	qsort(res->done_lat, res->ndone_lat, sizeof(*res->done_lat), cmp_u64);
	printf("cost fs=%s mode=%s loop=%s round=%d cpu_us_per_req=%.2f csw_per_req=%.3f done_p50_us=%.1f done_p99_us=%.1f tput=%.0f\n",
	       c->fs, mode_name[m], c->think_us ? "nap" : "busy", round,
	       res->cpu_us / n, (double)res->csw / n,
	       pct_us(res->done_lat, res->ndone_lat, 0.5),
	       pct_us(res->done_lat, res->ndone_lat, 0.99),
	       res->secs > 0 ? res->done / res->secs : 0);
}

static int stall(const struct cfg *c)
{
	struct result res;
	struct files f;
	uint64_t *sorted;
	long calls[M_COUNT] = { 0 }, slept[M_COUNT] = { 0 };
	char name[32];
	int round, m, i;

	res.lat = malloc(MAX_LAT * sizeof(*res.lat));
	res.kind = malloc(MAX_LAT);
	res.done_lat = malloc(MAX_LAT * sizeof(*res.done_lat));
	sorted = malloc(MAX_LAT * sizeof(*sorted));
	if (!res.lat || !res.kind || !res.done_lat || !sorted)
		return 1;
	memset(&f, 0, sizeof(f));
	for (i = 0; i < c->files; i++) {
		int mb = i ? OVER_MB : BASE0_MB;

		snprintf(name, sizeof(name), "stall%d.dat", i);
		f.fd[i] = make_file(c, name, mb, mb);
		f.base[i] = (off_t)mb * MIB;
	}
	f.bfd = open_again(c, "stall0.dat", 0);
	close(make_file(c, "dirty.dat", DIRTY_MB, DIRTY_MB));
	f.dfd = open_again(c, "dirty.dat", 0);
	reset_files(c, &f);
	for (round = 1; round <= c->rounds; round++) {
		for (m = 0; m < M_COUNT; m++) {
			run_mode(c, m, &f, &res);
			memcpy(sorted, res.lat, res.n * sizeof(*sorted));
			qsort(sorted, res.n, sizeof(*sorted), cmp_u64);
			calls[m] += res.n;
			slept[m] += res.slept;
			printf("stall fs=%s mode=%s round=%d n=%ld p50=%.1f p99=%.1f p999=%.1f max=%.1f tput=%.0f contended=%ld appends=%ld errors=%ld holds=%ld hold_ms=%.2f sched=%s slept=%ld",
			       c->fs, mode_name[m], round, res.n,
			       pct_us(sorted, res.n, 0.50),
			       pct_us(sorted, res.n, 0.99),
			       pct_us(sorted, res.n, 0.999),
			       pct_us(sorted, res.n, 1.0),
			       res.secs > 0 ? res.done / res.secs : 0,
			       res.contended, res.appends, res.errors,
			       res.holds, res.hold_ms,
			       res.fifo ? "fifo" : "other", res.slept);
			if (m == M_NOWAIT)
				printf(" inline=%lu deferred=%lu eagain_lock=%lu eagain_alloc=%lu eagain_pagecache=%lu",
				       res.st.inline_done,
				       res.st.deferred_submit +
				       res.st.deferred_event,
				       res.st.module_eagain_lock,
				       res.st.module_eagain_alloc,
				       res.st.module_eagain_pagecache);
			printf("\n");
			print_cost(c, m, round, &res);
			fflush(stdout);
			if (c->dump)
				dump(c, m, round, &res);
		}
	}
	for (m = 0; m < M_COUNT; m++)
		printf("sleeps fs=%s mode=%s calls=%ld slept=%ld\n", c->fs,
		       mode_name[m], calls[m], slept[m]);
	for (i = 0; i < c->files; i++) {
		close(f.fd[i]);
		snprintf(name, sizeof(name), "stall%d.dat", i);
		rm_file(c, name);
	}
	close(f.bfd);
	close(f.dfd);
	rm_file(c, "dirty.dat");
	return 0;
}

/* ---- the refusal cost ---- */

static int refusal(const struct cfg *c)
{
	const int warm = 50;
	int n = c->reps, hole, over, i, k;
	uint64_t *th, *to, rng = c->seed, t0;
	long ev_eagain = 0, sub_eagain = 0, hole_written = 0, over_refused = 0;
	double sh = 0, so = 0;
	io_context_t ctx = 0;
	struct io_event ev;
	char *buf = xalloc(BS, 0x77);

	th = calloc(n, sizeof(*th));
	to = calloc(n, sizeof(*to));
	if (!th || !to || io_setup(8, &ctx))
		return 1;
	/* a sparse file (NODATACOW on btrfs) and one of written blocks */
	hole = make_file(c, "hole.dat", 0, 64);
	over = make_file(c, "over.dat", 16, 16);
	for (i = -warm; i < n; i++) {
		for (k = 0; k < 2; k++) {
			struct iocb cb, *cbp = &cb;
			int f = k ? over : hole;
			uint64_t blks = (k ? 16 : 64) * MIB / BS;
			long r;
			int at_submit;

			io_prep_pwrite(&cb, f, buf, BS,
				       (off_t)(rng_next(&rng) % blks) * BS);
			cb.aio_rw_flags = RWF_NOWAIT;
			t0 = now_ns();
			r = io_submit(ctx, 1, &cbp);
			t0 = now_ns() - t0;
			at_submit = r != 1;
			if (r == 1)
				r = io_getevents(ctx, 1, 1, &ev, NULL) == 1 ?
				    (long)ev.res : -EIO;
			if (i < 0)
				continue;
			if (k) {
				to[i] = t0;
				if (r != BS)
					over_refused++;
			} else {
				th[i] = t0;
				if (r == -EAGAIN && at_submit)
					sub_eagain++;
				else if (r == -EAGAIN)
					ev_eagain++;
				else if (r == BS)
					hole_written++;
			}
		}
	}
	io_destroy(ctx);
	for (i = 0; i < n; i++) {
		sh += th[i];
		so += to[i];
	}
	sh /= n;
	so /= n;
	qsort(th, n, sizeof(*th), cmp_u64);
	qsort(to, n, sizeof(*to), cmp_u64);
	printf("refusal fs=%s eagain_submit_us=%.2f overwrite_submit_us=%.2f ratio=%.4f n=%d eagain_median_us=%.2f overwrite_median_us=%.2f median_ratio=%.4f eagain_p99_us=%.2f overwrite_p99_us=%.2f eagain_max_us=%.2f overwrite_max_us=%.2f refused_in_event=%ld refused_by_submit=%ld hole_written=%ld overwrite_refused=%ld\n",
	       c->fs, sh / 1000, so / 1000, so > 0 ? sh / so : 0, n,
	       pct_us(th, n, 0.5), pct_us(to, n, 0.5),
	       pct_us(to, n, 0.5) > 0 ?
	       pct_us(th, n, 0.5) / pct_us(to, n, 0.5) : 0,
	       pct_us(th, n, 0.99), pct_us(to, n, 0.99),
	       pct_us(th, n, 1.0), pct_us(to, n, 1.0),
	       ev_eagain, sub_eagain, hole_written, over_refused);
	close(hole);
	close(over);
	rm_file(c, "hole.dat");
	rm_file(c, "over.dat");
	free(th);
	free(to);
	free(buf);
	return 0;
}

/* ---- the submit path: one kind of request, many times ---- */

/*
 * --submit: refusal_reps direct 4 KiB overwrites of written blocks, one
 * at a time, without flags (or with RWF_NOWAIT given "nowait"); prints the
 * median, the minimum, the 10th percentile and the mean of the io_submit
 * durations.  Under -icount the fastest calls run the same instructions
 * every time, so the minimum is the path's own cost: it leaves out the
 * interrupts and background work that move a mean by several per cent
 * from run to run, and the step of 2-3 us that splits the durations into
 * two groups whose sizes change from round to round (with and without the
 * module), which can move a median or a 10th percentile across it.
 */
static int submit_path(const struct cfg *c, int nowait)
{
	const int warm = 50;
	int n = c->reps, fd, i;
	uint64_t *t, rng = c->seed, t0;
	long bad = 0;
	double sum = 0;
	io_context_t ctx = 0;
	struct io_event ev;
	char *buf = xalloc(BS, 0x66);

	t = calloc(n, sizeof(*t));
	if (!t || io_setup(8, &ctx))
		return 1;
	fd = make_file(c, "submit.dat", 16, 16);
	for (i = -warm; i < n; i++) {
		struct iocb cb, *cbp = &cb;
		long r;

		io_prep_pwrite(&cb, fd, buf, BS,
			       (off_t)(rng_next(&rng) % (16 * MIB / BS)) * BS);
		if (nowait)
			cb.aio_rw_flags = RWF_NOWAIT;
		t0 = now_ns();
		r = io_submit(ctx, 1, &cbp);
		t0 = now_ns() - t0;
		if (r == 1)
			r = io_getevents(ctx, 1, 1, &ev, NULL) == 1 ?
			    (long)ev.res : -EIO;
		if (i < 0)
			continue;
		t[i] = t0;
		sum += t0;
		if (r != BS)
			bad++;
	}
	io_destroy(ctx);
	qsort(t, n, sizeof(*t), cmp_u64);
	printf("submit fs=%s mode=%s n=%d median_us=%.3f min_us=%.3f p10_us=%.3f mean_us=%.3f not_written=%ld\n",
	       c->fs, nowait ? "nowait" : "plain", n, pct_us(t, n, 0.5),
	       t[0] / 1000.0, pct_us(t, n, 0.1), sum / n / 1000, bad);
	close(fd);
	rm_file(c, "submit.dat");
	free(t);
	free(buf);
	return 0;
}

/*
 * --scale: N event loops, one thread per vCPU (thread i pinned to CPU i mod
 * the CPUs online), each writing 4 KiB RWF_NOWAIT direct overwrites to a
 * file of its own at queue depth 4 (io_submit one iocb at a time, then
 * io_getevents for at least one), for scale_ms of guest time; for N in
 * scale_threads ("1 2 4"), scale_rounds (5) rounds each, N
 * alternating within a round.  Prints per N and round
 *   scale fs=F threads=N round=R submits=S secs=T rate=S/T eagain=E
 * (submits: iocbs io_submit took; eagain: refusals, in the event or by
 * io_submit, which count as submits as any other answer does) and
 * submit_p50_us, the median duration of one io_submit call: the device
 * (one virtio disk, served by QEMU's I/O thread) bounds the rate, while a
 * lock that the loops share shows in the duration of their submits.
 */
#define SCALE_QD	4
#define SCALE_MB	8
#define SCALE_MAX	16
#define SCALE_LAT	(1 << 17)	/* durations kept per loop */

struct scale_arg {
	const struct cfg *c;
	int fd, cpu, ms;
	volatile int *go;
	long submits, eagain, nlat;
	uint64_t *lat;
	double secs;
};

static void *scale_loop(void *p)
{
	struct scale_arg *a = p;
	char *buf = xalloc(BS, 0x77);
	uint64_t rng = a->c->seed + (uint64_t)a->cpu * 7919, t0, t1, end;
	struct io_event ev[SCALE_QD];
	io_context_t ctx = 0;
	cpu_set_t set;
	int inflight = 0, i, n;

	CPU_ZERO(&set);
	CPU_SET(a->cpu, &set);
	sched_setaffinity(0, sizeof(set), &set);
	if (io_setup(SCALE_QD * 2, &ctx))
		return NULL;
	while (!*a->go)
		__asm__ __volatile__("pause");
	t0 = now_ns();
	end = t0 + (uint64_t)a->ms * 1000000ull;
	while (now_ns() < end) {
		while (inflight < SCALE_QD) {
			struct iocb cb, *cbp = &cb;
			long r;

			io_prep_pwrite(&cb, a->fd, buf, BS, (off_t)(rng_next(&rng) %
				       (SCALE_MB * MIB / BS)) * BS);
			cb.aio_rw_flags = RWF_NOWAIT;
			t1 = now_ns();
			r = io_submit(ctx, 1, &cbp);
			t1 = now_ns() - t1;
			if (a->nlat < SCALE_LAT)
				a->lat[a->nlat++] = t1;
			a->submits++;
			if (r == 1)
				inflight++;
			else if (r == -EAGAIN)
				a->eagain++;
			else
				break;
		}
		n = io_getevents(ctx, 1, SCALE_QD, ev, NULL);
		for (i = 0; i < n; i++)
			if ((long)ev[i].res == -EAGAIN)
				a->eagain++;
		inflight -= n > 0 ? n : 0;
	}
	a->secs = (now_ns() - t0) / 1e9;
	while (inflight > 0 && (n = io_getevents(ctx, 1, SCALE_QD, ev,
						 NULL)) > 0)
		inflight -= n;
	io_destroy(ctx);
	free(buf);
	return NULL;
}

static void scale_once(const struct cfg *c, int *fds, int n, int round,
		       int ms)
{
	struct scale_arg a[SCALE_MAX];
	pthread_t th[SCALE_MAX];
	long ncpu = sysconf(_SC_NPROCESSORS_ONLN), sub = 0, eag = 0, nl = 0;
	uint64_t *lat = calloc((size_t)n * SCALE_LAT, sizeof(*lat));
	volatile int go = 0;
	double secs = 0;
	int i;

	if (!lat)
		exit(1);
	for (i = 0; i < n; i++) {
		a[i] = (struct scale_arg){ .c = c, .fd = fds[i], .ms = ms,
					   .cpu = (int)(i % (ncpu > 0 ? ncpu : 1)),
					   .go = &go, .lat = lat + (size_t)i * SCALE_LAT };
		pthread_create(&th[i], NULL, scale_loop, &a[i]);
	}
	sleep_ms(50);
	go = 1;
	for (i = 0; i < n; i++) {
		pthread_join(th[i], NULL);
		sub += a[i].submits;
		eag += a[i].eagain;
		if (a[i].secs > secs)
			secs = a[i].secs;
		memmove(lat + nl, a[i].lat, a[i].nlat * sizeof(*lat));
		nl += a[i].nlat;
	}
	qsort(lat, nl, sizeof(*lat), cmp_u64);
	printf("scale fs=%s threads=%d round=%d submits=%ld secs=%.3f rate=%.0f eagain=%ld cpus=%ld submit_p50_us=%.2f\n",
	       c->fs, n, round, sub, secs, secs > 0 ? sub / secs : 0, eag,
	       ncpu, nl ? pct_us(lat, nl, 0.5) : 0);
	free(lat);
}

static int scale(const struct cfg *c)
{
	const char *list = getenv("scale_threads");
	int rounds = env_int("scale_rounds", 5);
	int ms = env_int("scale_ms", 2000);
	int ns[8], nn = 0, fds[SCALE_MAX], maxn = 0, i, r;
	char name[32], *dup, *tok, *save;

	dup = strdup(list && *list ? list : "1 2 4");
	for (tok = strtok_r(dup, " ,", &save); tok && nn < 8;
	     tok = strtok_r(NULL, " ,", &save)) {
		ns[nn] = atoi(tok);
		if (ns[nn] < 1 || ns[nn] > SCALE_MAX)
			continue;
		if (ns[nn] > maxn)
			maxn = ns[nn];
		nn++;
	}
	free(dup);
	if (!nn || rounds < 1 || ms < 1)
		return 1;
	for (i = 0; i < maxn; i++) {
		snprintf(name, sizeof(name), "scale%d.dat", i);
		fds[i] = make_file(c, name, SCALE_MB, SCALE_MB);
	}
	for (r = 1; r <= rounds; r++)
		for (i = 0; i < nn; i++)
			scale_once(c, fds, ns[i], r, ms);
	for (i = 0; i < maxn; i++) {
		close(fds[i]);
		snprintf(name, sizeof(name), "scale%d.dat", i);
		rm_file(c, name);
	}
	return 0;
}

/*
 * Under -icount sleep=off an idle vCPU jumps the guest clock to the next
 * timer deadline, so a wait for the host's I/O with nothing else to run
 * would count as anything up to seconds.  A SCHED_IDLE thread that only
 * runs when nothing else can keeps the vCPU busy instead: a wait then
 * counts the instructions executed meanwhile, like any other.
 */
static volatile int spin_stop;

static void *spinner(void *arg)
{
	struct sched_param sp = { .sched_priority = 0 };

	(void)arg;
	__atomic_store_n(&spin_tid, (pid_t)syscall(SYS_gettid),
			 __ATOMIC_RELEASE);
	sched_setscheduler(0, SCHED_IDLE, &sp);
	while (!spin_stop)
		__asm__ __volatile__("pause");
	return NULL;
}

static void usage(void)
{
	fprintf(stderr, "usage: stall --stall DIR FS [--dump DUMPDIR]\n"
			"       stall --refusal DIR FS\n"
			"       stall --submit DIR FS [nowait]\n"
			"       stall --scale DIR FS\n");
	exit(2);
}

int main(int argc, char **argv)
{
	struct cfg c = { 0 };
	const char *s;
	pthread_t spin;
	int r, spinning = 0;

	if (argc < 4)
		usage();
	c.dir = argv[2];
	c.fs = argv[3];
	if (argc >= 6 && !strcmp(argv[4], "--dump"))
		c.dump = argv[5];
	c.rounds = env_int("rounds", 3);
	c.ms = env_int("stall_ms", 2000);
	c.files = env_int("stall_files", 4);
	c.qd = env_int("stall_qd", 16);
	c.workers = env_int("stall_workers", 8);
	c.append_pct = env_int("stall_append_pct", 12);
	c.think_us = env_int("stall_think_us", 100);
	c.reps = env_int("refusal_reps", 2000);
	c.seed = (uint64_t)env_int("stall_seed", 20170704) | 1;
	s = getenv("stall_sched");
	c.fifo = !s || strcmp(s, "other");
	if (c.rounds < 1 || c.ms < 1 || c.reps < 1 || c.workers < 1)
		usage();
	if (c.files < 1 || c.files > MAX_FILES)
		c.files = 4;
	if (c.qd < c.files || c.qd > MAX_QD)
		c.qd = 4 * c.files;
	c.qd -= c.qd % c.files;		/* every file the same share */
	if (c.think_us < 0 || c.think_us > 999999)
		c.think_us = 100;
	if (!c.think_us)
		c.fifo = 0;	/* a busy FIFO loop would starve the rest */
	setvbuf(stdout, NULL, _IOLBF, 0);
	if (strcmp(argv[1], "--stall") && strcmp(argv[1], "--refusal") &&
	    strcmp(argv[1], "--submit") && strcmp(argv[1], "--scale"))
		usage();
	if (!strcmp(argv[1], "--scale"))
		return scale(&c);	/* plain TCG: no spinner, every vCPU busy */
	if (env_int("spin", 1) && pthread_create(&spin, NULL, spinner,
							  NULL) == 0) {
		spinning = 1;
		spin_th = spin;
		while (!__atomic_load_n(&spin_tid, __ATOMIC_ACQUIRE))
			sched_yield();
	}
	if (!strcmp(argv[1], "--stall"))
		r = stall(&c);
	else if (!strcmp(argv[1], "--refusal"))
		r = refusal(&c);
	else
		r = submit_path(&c, argc >= 5 && !strcmp(argv[4], "nowait"));
	if (spinning) {
		spin_stop = 1;
		pthread_join(spin, NULL);
	}
	return r;
}
