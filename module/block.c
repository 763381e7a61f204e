// SPDX-License-Identifier: GPL-2.0
/*
 * The block layer's part: a NOWAIT write must not sleep for a free request
 * or tag.
 *
 * Design (documented in the README, "Block layer"):
 *  - Raw block-device direct writes (blkdev.c) fit one bio that the queue
 *    will not split, and that bio allocates its request without sleeping:
 *    on a legacy queue get_request() is called without
 *    __GFP_DIRECT_RECLAIM and its failure becomes EAGAIN; on blk-mq
 *    blk_mq_sched_get_request() gets BLK_MQ_REQ_NOWAIT and a bio it cannot
 *    serve is ended with EAGAIN (4.12's blk_mq_make_request() would drop it
 *    unended).  The block device's DIO completion passes the bio's error
 *    through, so the application sees EAGAIN, never EIO, and nothing of the
 *    request was written.
 *  - Filesystem direct writes (fs/direct-io.c turns any bio error into EIO,
 *    iomap too) are decided before issuing (write.c, queue.c): if the
 *    device's queue has no free request or tag right now, EAGAIN;
 *    otherwise the bios are issued as plain ones.  A request that needs
 *    more requests than are free when its later bios are built waits for
 *    them, as upstream's kernels may (liburing#1184); it never fails
 *    half-way.
 *  - Stacked devices (no request_fn, no mq_ops: dm, md): EOPNOTSUPP for
 *    NOWAIT, as the 4.13 series did.
 *  Only bios of the NOWAIT request itself are touched: writes submitted by
 *  the task while it is inside that request's block-device write, ending in
 *  the block device's own DIO completion.  Metadata I/O never is.
 */
#include <linux/bio.h>
#include <linux/blk-mq.h>
#include <linux/blkdev.h>
#include <linux/sched.h>

#include "rules.h"
#include "hook.h"
#include "queue.h"
#include "parts.h"

static struct request *(*nw_orig_get_request)(struct request_queue *,
					      unsigned int, struct bio *,
					      gfp_t);
static struct request *(*nw_orig_blk_mq_sched_get_request)(
	struct request_queue *, struct bio *, unsigned int, void *);
static void *nw_blkdev_bio_end_io;
static void *nw_blkdev_bio_end_io_simple;
static bool (*nw_blk_mq_has_free_tags)(struct blk_mq_tags *tags);

/* Is @bio a data write of the current task's NOWAIT block-device write? */
static bool nw_bio_is_nowait(struct bio *bio)
{
	return nw_mark_maybe(&nw_blk_marks) && bio &&
	       nw_bio_is_data_write(bio) &&
	       (bio->bi_end_io == nw_blkdev_bio_end_io ||
		bio->bi_end_io == nw_blkdev_bio_end_io_simple) &&
	       nw_mark_find(&nw_blk_marks);
}

/* (hooked from 4.10: NW_GET_REQUEST_WRAPPER) */
static __maybe_unused struct request *
nw_get_request(struct request_queue *q, unsigned int op, struct bio *bio,
	       gfp_t gfp_mask)
{
	struct request *rq;

	nw_enter();
	if (!nw_check_on[NW_CHECK_CONGESTION] ||
	    likely(!nw_bio_is_nowait(bio))) {
		rq = nw_orig_get_request(q, op, bio, gfp_mask);
	} else {
		rq = nw_orig_get_request(q, op, bio,
					 gfp_mask & ~NW_GFP_DIRECT_RECLAIM);
		if (IS_ERR(rq)) {
			nw_count(NW_CNT_EAGAIN_CONGESTION);
			rq = ERR_PTR(-EAGAIN);
		}
	}
	nw_exit();
	return rq;
}

/*
 * After a failed BLK_MQ_REQ_NOWAIT allocation: on the kernels whose
 * failure keeps the software queue (compat/block.h), put it back and end
 * the bio, which the caller drops.
 */
static void nw_blk_mq_alloc_failed(struct bio *bio, int mark)
{
	if (!NW_BLK_MQ_FAILED_ALLOC_KEEPS_CTX)
		return;
	if (preempt_count() > mark)
		preempt_enable();
	nw_bio_end_eagain(bio);
}

/* (hooked from 4.11: NW_MQ_SCHED_GET_REQUEST_WRAPPER) */
static __maybe_unused struct request *
nw_blk_mq_sched_get_request(struct request_queue *q, struct bio *bio,
			    unsigned int op, void *data)
{
	struct request *rq;
	bool nowait;
	int mark = 0;

	nw_enter();
	nowait = nw_check_on[NW_CHECK_CONGESTION] &&
		 unlikely(nw_bio_is_nowait(bio));
	if (nowait) {
		nw_blk_mq_alloc_data_set_nowait(data);
		mark = nw_blk_mq_alloc_mark();
	}
	rq = nw_orig_blk_mq_sched_get_request(q, bio, op, data);
	if (!rq && nowait) {
		nw_count(NW_CNT_EAGAIN_CONGESTION);
		nw_blk_mq_alloc_failed(bio, mark);
	}
	nw_exit();
	return rq;
}

enum {
	NW_BLOCK_BIO_END_IO, NW_BLOCK_BIO_END_IO_SIMPLE, NW_BLOCK_HAS_FREE_TAGS,
	NW_BLOCK_GET_REQUEST, NW_BLOCK_MQ_SCHED_GET_REQUEST,
};

static struct nw_hook nw_block_hooks[] = {
	[NW_BLOCK_BIO_END_IO] =
	NW_SYMBOL("blkdev_bio_end_io",
		  nw_blkdev_bio_end_io, NW_OPTIONAL,
		  "block-device DIO bios (4.10+): no-wait allocation"),
	[NW_BLOCK_BIO_END_IO_SIMPLE] =
	NW_SYMBOL("blkdev_bio_end_io_simple",
		  nw_blkdev_bio_end_io_simple, NW_OPTIONAL,
		  "block-device DIO bios (4.10+): no-wait allocation"),
	[NW_BLOCK_HAS_FREE_TAGS] =
	NW_SYMBOL("blk_mq_has_free_tags", nw_blk_mq_has_free_tags,
		  NW_OPTIONAL, "free scheduler tags"),
	/* (q, op, bio or NULL, gfp) */
	[NW_BLOCK_GET_REQUEST] =
	NW_HOOK("get_request", NW_GET_REQUEST_WRAPPER,
		nw_orig_get_request, NW_OPTIONAL,
		"legacy queues (4.10+): request without waiting",
		NW_ARGS(NW_ARG_KPTR, NW_ARG_ANY, NW_ARG_KPTR_NULL)),
	/* (q, bio or NULL, op, data) */
	[NW_BLOCK_MQ_SCHED_GET_REQUEST] =
	NW_HOOK("blk_mq_sched_get_request", NW_MQ_SCHED_GET_REQUEST_WRAPPER,
		nw_orig_blk_mq_sched_get_request, NW_OPTIONAL,
		"blk-mq (4.11+): tag without waiting",
		NW_ARGS(NW_ARG_KPTR, NW_ARG_KPTR_NULL, NW_ARG_ANY,
			NW_ARG_KPTR)),
};

/*
 * Per-bio no-wait allocation needs the block device's own DIO completion
 * (4.10+, which passes a bio's error through) and the allocation hook for
 * the queue's kind; otherwise raw devices are decided before issuing too.
 */
static void nw_block_setup(void)
{
	struct nw_hook *mq = &nw_block_hooks[NW_BLOCK_MQ_SCHED_GET_REQUEST];
	struct nw_hook *legacy = &nw_block_hooks[NW_BLOCK_GET_REQUEST];
	bool bios = nw_blkdev_bio_end_io && nw_blkdev_bio_end_io_simple;

	nw_queue_setup(bios && nw_hook_ready(mq),
		       bios && nw_hook_ready(legacy),
		       nw_blk_mq_has_free_tags);
}

const struct nw_part nw_block_part = {
	NW_PART_HOOKS(nw_block_hooks),
	.setup = nw_block_setup,
};
