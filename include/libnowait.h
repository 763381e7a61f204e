/* SPDX-License-Identifier: GPL-2.0 */
/*
 * libnowait - submit AIO inline with RWF_NOWAIT, hand what would block to
 * worker threads, and deliver every completion through one call.
 *
 * The pattern of the no-wait AIO cover letter and of Seastar: an event loop
 * submits with RWF_NOWAIT; a request the kernel refuses with EAGAIN (in the
 * completion event, or from io_submit) is submitted again without the flag
 * from a worker thread, whose sleep does not stall the loop.  A file or
 * kernel without NOWAIT support (EOPNOTSUPP/EINVAL for the flag) is served
 * by the workers from then on.  Every request completes exactly once.
 *
 *	struct nowait_loop *l = nowait_open(ctx, 2);
 *	io_prep_pwrite(&cb, fd, buf, len, off);
 *	nowait_submit(l, cbs, 1);		// never sleeps for the request
 *	n = nowait_getevents(l, 1, 8, ev, NULL);	// ev[i].obj is &cb
 *	nowait_close(l);
 */
#ifndef LIBNOWAIT_H
#define LIBNOWAIT_H

#include <libaio.h>
#include <time.h>

#ifdef __cplusplus
extern "C" {
#endif

enum nowait_support {
	NOWAIT_NONE = 0,	/* no RWF_NOWAIT for this file */
	NOWAIT_NATIVE = 1,	/* the kernel has it (4.13+) */
	NOWAIT_MODULE = 2,	/* through the nowait_aio module */
};

/*
 * Does RWF_NOWAIT work for @fd (opened O_DIRECT) through io_submit?  A
 * zero-length direct write with the flag: it writes nothing.  On NONE,
 * *why (if not NULL) is the errno the kernel gave.
 */
enum nowait_support nowait_probe(int fd, int *why);

struct nowait_loop;

/* @ctx: an io_setup() context the loop owns from now on; @workers >= 1 */
struct nowait_loop *nowait_open(io_context_t ctx, int workers);

/*
 * Submit @nr iocbs: each gets RWF_NOWAIT added to aio_rw_flags (unless its
 * file is known not to support it) and goes to io_submit inline; an iocb
 * io_submit refuses with EAGAIN, EOPNOTSUPP or EINVAL for the flag goes to
 * a worker.  Returns @nr, or -errno if nothing could be queued.
 */
long nowait_submit(struct nowait_loop *l, struct iocb **iocbs, long nr);

/*
 * Like io_getevents(): between @min and @max completions of submitted
 * iocbs, whichever path served them.  A NOWAIT refusal is never delivered:
 * it is resubmitted by a worker.  Returns the count or -errno.
 */
int nowait_getevents(struct nowait_loop *l, long min, long max,
		     struct io_event *events, struct timespec *timeout);

struct nowait_stats {
	unsigned long inline_done;	/* completed on the inline path */
	unsigned long deferred_submit;	/* refused by io_submit, deferred */
	unsigned long deferred_event;	/* refused in the event, deferred */
	/*
	 * to a worker because the file does not support the flag: refused
	 * with EOPNOTSUPP/EINVAL, or sent there at once because an earlier
	 * request to the same file was
	 */
	unsigned long unsupported;
	/* the module's refusal counters, when it is loaded (else 0) */
	unsigned long module_eagain_lock, module_eagain_pagecache;
	unsigned long module_eagain_alloc, module_eagain_congestion;
};

void nowait_get_stats(struct nowait_loop *l, struct nowait_stats *st);

/* Waits for the workers' requests to be submitted; io_destroy()s ctx. */
void nowait_close(struct nowait_loop *l);

#ifdef __cplusplus
}
#endif
#endif /* LIBNOWAIT_H */
