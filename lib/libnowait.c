// SPDX-License-Identifier: GPL-2.0
/*
 * libnowait - see include/libnowait.h.
 *
 * The loop thread calls nowait_submit()/nowait_getevents(); worker threads
 * take the deferred iocbs and submit them without RWF_NOWAIT on the same
 * io context, so their completions come back through io_getevents() like
 * the others.  An iocb that cannot be submitted at all completes with a
 * synthesised event carrying io_submit's error.  The library owns
 * RWF_NOWAIT in aio_rw_flags: it sets it inline and clears it to defer, so
 * a request is deferred at most once and can never loop.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <sys/utsname.h>
#include <unistd.h>

#include "libnowait.h"
#include "nowait_aio.h"

struct node {
	struct node *next;
	struct iocb *iocb;	/* deferred request */
	struct io_event ev;	/* or a synthesised completion */
};

struct queue {
	struct node *head, *tail;
};

#define MAX_UNSUPPORTED 64

struct nowait_loop {
	io_context_t ctx;
	pthread_mutex_t lock;
	pthread_cond_t work;
	struct queue deferred;	/* for the workers */
	struct queue synth;	/* completions made here */
	long busy;		/* deferred requests not yet submitted */
	int stop;
	int nworkers;
	pthread_t *workers;
	int unsupported[MAX_UNSUPPORTED];
	int nunsupported;
	struct nowait_stats st;
};

static void q_push(struct queue *q, struct node *n)
{
	n->next = NULL;
	if (q->tail)
		q->tail->next = n;
	else
		q->head = n;
	q->tail = n;
}

static struct node *q_pop(struct queue *q)
{
	struct node *n = q->head;

	if (n) {
		q->head = n->next;
		if (!q->head)
			q->tail = NULL;
	}
	return n;
}

static int read_ulong(const char *path, unsigned long *v)
{
	FILE *f = fopen(path, "r");
	int ok;

	if (!f)
		return 0;
	ok = fscanf(f, "%lu", v) == 1;
	fclose(f);
	return ok;
}

enum nowait_support nowait_probe(int fd, int *why)
{
	io_context_t ctx = 0;
	struct iocb cb, *cbs[1] = { &cb };
	struct io_event ev;
	struct timespec ts = { .tv_sec = 5 };
	static char buf[4096] __attribute__((aligned(4096)));
	struct utsname u;
	unsigned int a = 0, b = 0;
	unsigned long en = 0;
	long r;

	if (why)
		*why = 0;
	if (io_setup(1, &ctx)) {
		if (why)
			*why = ENOSYS;
		return NOWAIT_NONE;
	}
	io_prep_pwrite(&cb, fd, buf, 0, 0);
	cb.aio_rw_flags = RWF_NOWAIT;
	r = io_submit(ctx, 1, cbs);
	if (r == 1 && io_getevents(ctx, 1, 1, &ev, &ts) == 1 &&
	    (long)ev.res < 0 && (long)ev.res != -EAGAIN)
		r = (long)ev.res;
	io_destroy(ctx);
	if (r != 1) {
		if (why)
			*why = r < 0 ? (int)-r : EIO;
		return NOWAIT_NONE;
	}
	uname(&u);
	sscanf(u.release, "%u.%u", &a, &b);
	if (a > 4 || (a == 4 && b >= 13))
		return NOWAIT_NATIVE;
	return read_ulong(NOWAIT_AIO_SYSFS "/enabled", &en) && en ?
	       NOWAIT_MODULE : NOWAIT_NATIVE;
}

static int fd_unsupported(struct nowait_loop *l, int fd)
{
	int i;

	for (i = 0; i < l->nunsupported; i++)
		if (l->unsupported[i] == fd)
			return 1;
	return 0;
}

/* Hand @iocb to a worker (without RWF_NOWAIT); called with l->lock held. */
static void defer_locked(struct nowait_loop *l, struct iocb *iocb)
{
	struct node *n = calloc(1, sizeof(*n));

	iocb->aio_rw_flags &= ~RWF_NOWAIT;
	if (!n) {
		/* no memory to queue it: submit it here, blocking */
		pthread_mutex_unlock(&l->lock);
		if (io_submit(l->ctx, 1, &iocb) != 1)
			abort();
		pthread_mutex_lock(&l->lock);
		return;
	}
	n->iocb = iocb;
	q_push(&l->deferred, n);
	l->busy++;
	pthread_cond_signal(&l->work);
}

static void synth_locked(struct nowait_loop *l, struct iocb *iocb, long res)
{
	struct node *n = calloc(1, sizeof(*n));

	if (!n)
		abort();
	n->ev.data = iocb->data;
	n->ev.obj = iocb;
	n->ev.res = res;
	q_push(&l->synth, n);
}

static void *worker(void *arg)
{
	struct nowait_loop *l = arg;
	struct node *n;

	pthread_mutex_lock(&l->lock);
	for (;;) {
		while (!l->deferred.head && !l->stop)
			pthread_cond_wait(&l->work, &l->lock);
		n = q_pop(&l->deferred);
		if (!n)
			break;		/* stopping and drained */
		pthread_mutex_unlock(&l->lock);
		{
			long r = io_submit(l->ctx, 1, &n->iocb);

			pthread_mutex_lock(&l->lock);
			if (r != 1)
				synth_locked(l, n->iocb, r < 0 ? r : -EIO);
		}
		l->busy--;
		free(n);
	}
	pthread_mutex_unlock(&l->lock);
	return NULL;
}

struct nowait_loop *nowait_open(io_context_t ctx, int workers)
{
	struct nowait_loop *l = calloc(1, sizeof(*l));
	int i;

	if (!l || workers < 1) {
		free(l);
		errno = EINVAL;
		return NULL;
	}
	l->ctx = ctx;
	pthread_mutex_init(&l->lock, NULL);
	pthread_cond_init(&l->work, NULL);
	l->workers = calloc(workers, sizeof(pthread_t));
	if (!l->workers) {
		free(l);
		return NULL;
	}
	for (i = 0; i < workers; i++) {
		if (pthread_create(&l->workers[i], NULL, worker, l))
			break;
	}
	l->nworkers = i;
	if (!i) {
		free(l->workers);
		free(l);
		errno = EAGAIN;
		return NULL;
	}
	return l;
}

long nowait_submit(struct nowait_loop *l, struct iocb **iocbs, long nr)
{
	long i = 0;

	if (nr < 0)
		return -EINVAL;
	pthread_mutex_lock(&l->lock);
	while (i < nr) {
		long run = 0, r;

		/* iocbs of files without NOWAIT support go to the workers */
		if (fd_unsupported(l, iocbs[i]->aio_fildes)) {
			l->st.unsupported++;
			defer_locked(l, iocbs[i++]);
			continue;
		}
		while (i + run < nr &&
		       !fd_unsupported(l, iocbs[i + run]->aio_fildes))
			iocbs[i + run++]->aio_rw_flags |= RWF_NOWAIT;
		pthread_mutex_unlock(&l->lock);
		r = io_submit(l->ctx, run, iocbs + i);
		pthread_mutex_lock(&l->lock);
		if (r == run) {
			i += run;
			continue;
		}
		i += r > 0 ? r : 0;
		/* io_submit stopped at iocbs[i]: learn why, alone */
		if (r > 0) {
			pthread_mutex_unlock(&l->lock);
			r = io_submit(l->ctx, 1, iocbs + i);
			pthread_mutex_lock(&l->lock);
			if (r == 1) {
				i++;
				continue;
			}
		}
		if (r == -EAGAIN) {
			l->st.deferred_submit++;
			defer_locked(l, iocbs[i++]);
		} else if (r == -EOPNOTSUPP || r == -EINVAL) {
			/* the flag, or the request: a plain retry tells */
			l->st.unsupported++;
			if (l->nunsupported < MAX_UNSUPPORTED)
				l->unsupported[l->nunsupported++] =
					iocbs[i]->aio_fildes;
			defer_locked(l, iocbs[i++]);
		} else {
			iocbs[i]->aio_rw_flags &= ~RWF_NOWAIT;
			synth_locked(l, iocbs[i], r < 0 ? r : -EIO);
			i++;
		}
	}
	pthread_mutex_unlock(&l->lock);
	return nr;
}

/* A completion the loop must not deliver: a NOWAIT refusal to retry. */
static int deferrable(struct io_event *ev)
{
	struct iocb *cb = ev->obj;
	long res = (long)ev->res;

	return (cb->aio_rw_flags & RWF_NOWAIT) &&
	       (res == -EAGAIN || res == -EOPNOTSUPP || res == -EINVAL);
}

static long ms_until(const struct timespec *end)
{
	struct timespec now;

	clock_gettime(CLOCK_MONOTONIC, &now);
	return (end->tv_sec - now.tv_sec) * 1000 +
	       (end->tv_nsec - now.tv_nsec) / 1000000;
}

int nowait_getevents(struct nowait_loop *l, long min, long max,
		     struct io_event *events, struct timespec *timeout)
{
	struct timespec end;
	long got = 0;

	if (max <= 0 || min < 0 || min > max)
		return -EINVAL;
	if (timeout) {
		clock_gettime(CLOCK_MONOTONIC, &end);
		end.tv_sec += timeout->tv_sec;
		end.tv_nsec += timeout->tv_nsec;
		if (end.tv_nsec >= 1000000000) {
			end.tv_sec++;
			end.tv_nsec -= 1000000000;
		}
	}
	for (;;) {
		struct io_event ev[64];
		struct timespec wait = { 0, 0 };
		struct node *n;
		long want, i, ms;
		int r, pending;

		pthread_mutex_lock(&l->lock);
		while (got < max && (n = q_pop(&l->synth))) {
			events[got++] = n->ev;
			free(n);
		}
		pending = l->busy > 0;
		pthread_mutex_unlock(&l->lock);
		if (got >= min && got > 0)
			return got;
		/*
		 * Poll when the caller does not want to wait; else block in
		 * the kernel for one event (min_nr 0 would return at once
		 * whatever the timeout: a spin), waking now and then while
		 * workers may add a synthesised completion.
		 */
		if (got < min) {
			ms = pending ? 5 : 1000;
			if (timeout) {
				long left = ms_until(&end);

				ms = left < ms ? (left > 0 ? left : 0) : ms;
			}
			wait.tv_sec = ms / 1000;
			wait.tv_nsec = (ms % 1000) * 1000000;
		}
		want = max - got < 64 ? max - got : 64;
		r = io_getevents(l->ctx, got < min ? 1 : 0, want, ev, &wait);
		if (r < 0 && r != -EINTR)
			return got ? got : r;
		for (i = 0; i < r; i++) {
			struct iocb *cb = ev[i].obj;

			if (deferrable(&ev[i])) {
				pthread_mutex_lock(&l->lock);
				if ((long)ev[i].res == -EAGAIN)
					l->st.deferred_event++;
				else
					l->st.unsupported++;
				defer_locked(l, cb);
				pthread_mutex_unlock(&l->lock);
				continue;
			}
			if (cb->aio_rw_flags & RWF_NOWAIT) {
				cb->aio_rw_flags &= ~RWF_NOWAIT;
				l->st.inline_done++;
			}
			events[got++] = ev[i];
		}
		if (got >= min || (timeout && ms_until(&end) <= 0))
			return got;
	}
}

void nowait_get_stats(struct nowait_loop *l, struct nowait_stats *st)
{
	pthread_mutex_lock(&l->lock);
	*st = l->st;
	pthread_mutex_unlock(&l->lock);
	read_ulong(NOWAIT_AIO_SYSFS "/eagain_lock", &st->module_eagain_lock);
	read_ulong(NOWAIT_AIO_SYSFS "/eagain_pagecache",
		   &st->module_eagain_pagecache);
	read_ulong(NOWAIT_AIO_SYSFS "/eagain_alloc", &st->module_eagain_alloc);
	read_ulong(NOWAIT_AIO_SYSFS "/eagain_congestion",
		   &st->module_eagain_congestion);
}

void nowait_close(struct nowait_loop *l)
{
	int i;

	pthread_mutex_lock(&l->lock);
	l->stop = 1;
	pthread_cond_broadcast(&l->work);
	pthread_mutex_unlock(&l->lock);
	for (i = 0; i < l->nworkers; i++)
		pthread_join(l->workers[i], NULL);
	io_destroy(l->ctx);
	while (l->synth.head)
		free(q_pop(&l->synth));
	free(l->workers);
	free(l);
}
