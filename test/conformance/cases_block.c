// SPDX-License-Identifier: GPL-2.0
/*
 * block.*: the block layer's part of no-wait AIO.
 *
 * Upstream rule (4.13 patch "fs: return on congested block device"): a
 * NOWAIT request must not sleep for a free request or tag; it fails with
 * EAGAIN instead, and the refusal reaches the application as EAGAIN, not EIO.
 * Raw block-device direct I/O only set REQ_NOWAIT from 5.10 on (f8b78caf21d5
 * "block: don't ignore REQ_NOWAIT for direct IO"); native 4.14 waits there.
 * The module ships that fixed behaviour.
 *
 * The queue is null_blk with timer completions (irqmode=2) of 1 s.  blk-mq:
 * hardware queue depth 2 and no I/O scheduler, so two plain writes take
 * every tag.  Legacy: nr_requests 4, of which the filling task may take
 * 3/2 as a "batcher", so six plain writes exhaust it.  Then a NOWAIT write
 * must come back with EAGAIN at once.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "nwconf.h"

#define COMPLETION_NSEC 1000000000L

static int load_nullblk(struct nw_ctx *c, int queue_mode)
{
	char cmd[256];
	int fd;

	if (system("modprobe -r null_blk >/dev/null 2>&1; true"))
		return -1;
	snprintf(cmd, sizeof(cmd),
		 "modprobe null_blk queue_mode=%d irqmode=2 completion_nsec=%ld "
		 "hw_queue_depth=2 nr_devices=1 gb=1 >/dev/null 2>&1",
		 queue_mode, COMPLETION_NSEC);
	if (system(cmd)) {
		nw_skip(c, "null_blk cannot be loaded with queue_mode=%d here",
			queue_mode);
		return -1;
	}
	if (system("echo none > /sys/block/nullb0/queue/scheduler 2>/dev/null; true"))
		return -1;
	fd = open("/dev/nullb0", O_RDWR | O_DIRECT);
	if (fd < 0)
		nw_fail(c, "open /dev/nullb0: ok vs errno %d", errno);
	return fd;
}

static double now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

#define MAX_FILL 6

static void queue_full(struct nw_ctx *c, int queue_mode)
{
	io_context_t ctx = 0;
	struct iocb cb[MAX_FILL + 1], *cbs[MAX_FILL + 1];
	struct io_event ev[MAX_FILL + 1];
	int fill = queue_mode == 1 ? 6 : 2;
	struct timespec ts = { .tv_sec = 10 };
	void *b = nw_buf(NW_BS, 0x33);
	long submit, got = 0;
	double t0, t1;
	int fd, n, i;

	nw_fixed_in(c, KV(5, 10, 0),
		    "f8b78caf21d5 block: don't ignore REQ_NOWAIT for direct IO");
	fd = load_nullblk(c, queue_mode);
	if (fd < 0)
		return;
	if (io_setup(8, &ctx)) {
		nw_fail(c, "io_setup: ok vs failed");
		goto out;
	}
	if (queue_mode == 1 &&
	    system("echo 4 > /sys/block/nullb0/queue/nr_requests"))
		nw_fail(c, "set nr_requests: ok vs failed");
	/* far apart, so that no two merge into one request */
	for (i = 0; i <= fill; i++) {
		cbs[i] = &cb[i];
		io_prep_pwrite(&cb[i], fd, b, NW_BS, (off_t)i << 20);
		cb[i].data = (void *)(long)(i + 1);
	}
	cb[fill].aio_rw_flags = RWF_NOWAIT;
	submit = io_submit(ctx, fill, cbs);
	if (!nw_expect_res(c, "io_submit of the filling writes", fill, submit))
		goto out_ctx;
	t0 = now_ms();
	submit = io_submit(ctx, 1, &cbs[fill]);
	t1 = now_ms();
	printf("# %s: NOWAIT io_submit on a full queue took %.1f ms (completion_nsec %ld ms)\n",
	       c->id, t1 - t0, COMPLETION_NSEC / 1000000);
	fflush(stdout);
	/* the refusal is a completion, like every ->write_iter error */
	if (!nw_expect_res(c, "io_submit", 1, submit))
		goto out_ctx;
	while (got < fill + 1) {
		n = io_getevents(ctx, 1, fill + 1, ev, &ts);
		if (n <= 0)
			break;
		for (i = 0; i < n; i++) {
			if (ev[i].data == (void *)(long)(fill + 1))
				nw_expect_res(c, "NOWAIT event res", -EAGAIN,
					      (long)ev[i].res);
			else
				nw_expect_res(c, "plain write res", NW_BS,
					      (long)ev[i].res);
		}
		got += n;
	}
	if (c->failed)
		goto out_ctx;
	/* the queue has drained: the same NOWAIT write now goes through */
	submit = io_submit(ctx, 1, &cbs[fill]);
	if (nw_expect_res(c, "io_submit after drain", 1, submit) &&
	    io_getevents(ctx, 1, 1, ev, &ts) == 1)
		nw_expect_res(c, "event res after drain", NW_BS, (long)ev[0].res);
out_ctx:
	io_destroy(ctx);
out:
	close(fd);
	if (system("modprobe -r null_blk >/dev/null 2>&1; true"))
		return;
}

static void queue_full_mq(struct nw_ctx *c)
{
	queue_full(c, 2);
}

static void queue_full_legacy(struct nw_ctx *c)
{
	if (nw_native(c) && nw_kver_ge(c, KV(5, 0, 0))) {
		nw_skip(c, "the legacy request path was removed in 5.0");
		return;
	}
	queue_full(c, 1);
}

const struct nw_case nw_block_cases[] = {
	{ "block.nullblk.queue-full-mq",
	  "blk-mq: a NOWAIT write to a device with no free tag gets EAGAIN", 0,
	  queue_full_mq },
	{ "block.nullblk.queue-full-legacy",
	  "legacy queue: a NOWAIT write with no free request gets EAGAIN", 0,
	  queue_full_legacy },
	{ NULL }
};
