// SPDX-License-Identifier: GPL-2.0
/*
 * The block layer's rules, below the parts that use them: is a queue
 * stacked, has it a free request or tag, will a raw write fit one bio, and
 * the marks of the tasks inside a NOWAIT raw block-device write, which the
 * block layer's part (block.c) looks for when a request is allocated.
 */
#include <linux/bio.h>
#include <linux/blk-mq.h>
#include <linux/blkdev.h>

#include "rules.h"
#include "queue.h"

struct nw_marks nw_blk_marks = NW_MARKS_INIT(nw_blk_marks);

static bool nw_perbio_mq, nw_perbio_legacy;

static bool (*nw_has_free_tags)(struct blk_mq_tags *tags);

/* Set by the block layer's part (block.c) once its hooks are resolved. */
void nw_queue_setup(bool perbio_mq, bool perbio_legacy,
		    bool (*has_free_tags)(struct blk_mq_tags *tags))
{
	nw_perbio_mq = perbio_mq;
	nw_perbio_legacy = perbio_legacy;
	nw_has_free_tags = has_free_tags;
}

bool nw_perbio_nowait(struct request_queue *q)
{
	return q->mq_ops ? nw_perbio_mq : nw_perbio_legacy;
}

/* A make_request-based (stacked) queue: dm, md, and the like. */
bool nw_queue_is_stacked(struct request_queue *q)
{
	return !q->request_fn && !q->mq_ops;
}

/* Does the queue have a free request or tag for a write right now? */
bool nw_queue_has_room(struct request_queue *q)
{
	if (q->mq_ops) {
		struct blk_mq_hw_ctx *hctx;

		struct blk_mq_tags *sched;

		hctx = q->queue_hw_ctx[q->mq_map[raw_smp_processor_id()]];
		sched = nw_hctx_sched_tags(q, hctx);
		if (sched && nw_has_free_tags)
			return nw_has_free_tags(sched);
		return blk_mq_can_queue(hctx);
	}
	if (q->request_fn)
		return q->root_rl.count[BLK_RW_SYNC] < q->nr_requests;
	return true;
}

/*
 * The segments of @from that hold data.  Before 4.19 (17d51b10d777) the
 * raw block device's DIO fills each bio from one segment only.
 */
static unsigned long nw_iter_data_segs(struct iov_iter *from)
{
	size_t left = iov_iter_count(from), skip = from->iov_offset;
	unsigned long i, n = 0;

	if (!iter_is_iovec(from))
		return from->nr_segs;
	for (i = 0; i < from->nr_segs && left; i++, skip = 0) {
		size_t len = from->iov[i].iov_len - skip;

		if (len) {
			n++;
			left -= min(len, left);
		}
	}
	return n;
}

/*
 * Can this raw block-device write at @pos go as one bio the queue will not
 * split?  One segment with data, within max_segments, BIO_MAX_PAGES and
 * the sectors the queue takes there (max_sectors, a chunk boundary).  A
 * second bio could be refused after the first was written.
 */
bool nw_blkdev_single_bio(struct request_queue *q, struct iov_iter *from,
			  loff_t pos)
{
	size_t count = iov_iter_count(from);
	unsigned long pages = iov_iter_npages(from, BIO_MAX_PAGES + 1);

	return nw_iter_data_segs(from) <= 1 && pages <= BIO_MAX_PAGES &&
	       pages <= queue_max_segments(q) &&
	       (count >> 9) <= nw_queue_max_sectors_at(q, pos >> 9);
}
