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

/**
 * nw_queue_setup() - record what the block layer's part could hook.
 * @perbio_mq: a blk-mq queue's NOWAIT bios can get their tag without waiting
 * @perbio_legacy: a legacy queue's NOWAIT bios can get their request without
 *	waiting
 * @has_free_tags: the kernel's blk_mq_has_free_tags(), or NULL where it was
 *	not found
 *
 * Called from the block layer's part's setup (block.c, through
 * nw_parts_setup()) with nw_hooks_mutex held: once its hooks are resolved,
 * and again when a hook is dropped or distrusted.  Each @perbio_* is true
 * only where the block device's own DIO completion and the allocation hook
 * for that kind of queue are both usable.
 */
void nw_queue_setup(bool perbio_mq, bool perbio_legacy,
		    bool (*has_free_tags)(struct blk_mq_tags *tags))
{
	nw_perbio_mq = perbio_mq;
	nw_perbio_legacy = perbio_legacy;
	nw_has_free_tags = has_free_tags;
}

/**
 * nw_perbio_nowait() - does a NOWAIT raw block-device write's bio get its
 * request or tag on @q without waiting?
 * @q: the block device's queue
 *
 * Where it can, the NOWAIT write's one bio allocates its request or tag
 * without waiting (block.c) and a failure reaches the caller as EAGAIN with
 * nothing written; where it cannot, the free request or tag is looked for
 * before the write is issued (nw_queue_has_room()).
 *
 * Return: true when the allocation hook for @q's kind of queue (blk-mq or
 * legacy) is usable, as recorded by nw_queue_setup().
 */
bool nw_perbio_nowait(struct request_queue *q)
{
	return q->mq_ops ? nw_perbio_mq : nw_perbio_legacy;
}

/**
 * nw_queue_is_stacked() - is @q a make_request-based (stacked) queue?
 * @q: a device's queue
 *
 * Such a queue (dm, md and the like) has neither a request_fn nor mq_ops,
 * so there is no request or tag of its own to look at; the write path
 * refuses a NOWAIT write to it with EOPNOTSUPP (write.c), as the 4.13
 * series did.
 *
 * Return: true for a stacked queue.
 */
bool nw_queue_is_stacked(struct request_queue *q)
{
	return !q->request_fn && !q->mq_ops;
}

/**
 * nw_queue_has_room() - has @q a free request or tag for a write right now?
 * @q: a device's queue
 *
 * On blk-mq, the hardware context mapped to the current CPU is asked: its
 * scheduler tags when the queue has an elevator and blk_mq_has_free_tags()
 * was found, its driver tags otherwise.  On a legacy queue, the root
 * request list's count of synchronous requests against nr_requests.  A
 * snapshot, taken without a lock: another request may take the last one a
 * moment later.  Does not sleep.
 *
 * Return: true when one is free, and always for a stacked queue.
 */
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

/**
 * nw_blkdev_single_bio() - will a raw block-device write go as one bio?
 * @q: the block device's queue
 * @from: the data of the write
 * @pos: where it writes, in bytes
 *
 * The write must have one segment with data and fit max_segments,
 * BIO_MAX_PAGES and the sectors the queue takes at @pos (max_sectors, a
 * chunk boundary), so that the queue does not split it.  A NOWAIT write is
 * allowed only one bio: a second one could be refused after the first was
 * written.
 *
 * Return: true when the write fits one bio.
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
