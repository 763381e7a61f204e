/* SPDX-License-Identifier: GPL-2.0 */
/*
 * compat/block.h - the block layer: bios, legacy request allocation and
 * blk-mq's tags.
 */
#ifndef NOWAIT_AIO_COMPAT_BLOCK_H
#define NOWAIT_AIO_COMPAT_BLOCK_H

#include <linux/bio.h>
#include <linux/blk-mq.h>
#include <linux/blkdev.h>
#include <linux/preempt.h>
#include <linux/version.h>

/*
 * Before 4.10 a raw block device's direct I/O goes through fs/direct-io.c
 * too (blkdev_direct_IO() -> __blockdev_direct_IO()), whose async
 * completion runs generic_write_sync() in interrupt context for a
 * per-request IOCB_DSYNC (fixed in 4.14, d9c10e5b8863).
 */
#define NW_BLKDEV_DIO_GENERIC \
	(LINUX_VERSION_CODE < KERNEL_VERSION(4, 10, 0))

/*
 * blk-mq's request allocation data is private to block/blk-mq.h; its first
 * two members have been (queue, flags) from 4.10 to 4.14.
 */
struct nw_blk_mq_alloc_data_head {
	struct request_queue *q;
	unsigned int flags;
};

static inline void nw_blk_mq_alloc_data_set_nowait(void *data)
{
#if LINUX_VERSION_CODE >= KERNEL_VERSION(4, 6, 0)
	((struct nw_blk_mq_alloc_data_head *)data)->flags |= BLK_MQ_REQ_NOWAIT;
#else
	/* unreachable: blk_mq_sched_get_request() (hooked) is 4.11+ */
	WARN_ON_ONCE(1);
#endif
}

/*
 * get_request(q, op, bio, gfp) since 4.10 (ef295ecf090d merged op and
 * op_flags); before, (q, op, op_flags, bio, gfp), which nw_get_request()
 * does not match.  No hook there then, and nothing needs one: per-bio
 * no-wait allocation wants the 4.10+ block-device DIO completion too.
 */
#if LINUX_VERSION_CODE >= KERNEL_VERSION(4, 10, 0)
#define NW_GET_REQUEST_WRAPPER nw_get_request
#else
#define NW_GET_REQUEST_WRAPPER NULL
#endif

/*
 * The sectors a bio at @sector may hold before the queue splits it at a
 * chunk boundary (blk_max_size_offset(), 4.3+; chunk_sectors from 3.19).
 */
static inline unsigned int nw_queue_max_sectors_at(struct request_queue *q,
						   sector_t sector)
{
#if LINUX_VERSION_CODE >= KERNEL_VERSION(4, 3, 0)
	return blk_max_size_offset(q, sector);
#else
	return queue_max_sectors(q);
#endif
}

/* __GFP_WAIT was renamed __GFP_DIRECT_RECLAIM in 4.4 */
#ifdef __GFP_DIRECT_RECLAIM
#define NW_GFP_DIRECT_RECLAIM __GFP_DIRECT_RECLAIM
#else
#define NW_GFP_DIRECT_RECLAIM __GFP_WAIT
#endif

/*
 * blk_mq_sched_get_request(q, bio, op, data) from 4.11.  RHEL 7 has a
 * backport of its own, where the module has no per-bio use for it either
 * (its raw block devices' DIO goes through fs/direct-io.c).
 */
#if LINUX_VERSION_CODE >= KERNEL_VERSION(4, 11, 0)
#define NW_MQ_SCHED_GET_REQUEST_WRAPPER nw_blk_mq_sched_get_request
#else
#define NW_MQ_SCHED_GET_REQUEST_WRAPPER NULL
#endif

/* blk-mq scheduler tags (4.11+), where requests come from with an elevator */
static inline struct blk_mq_tags *nw_hctx_sched_tags(struct request_queue *q,
						     struct blk_mq_hw_ctx *hctx)
{
#if LINUX_VERSION_CODE >= KERNEL_VERSION(4, 11, 0)
	return q->elevator ? hctx->sched_tags : NULL;
#else
	return NULL;
#endif
}

/* A data write (not a discard, flush or write-same)?  bio_op() is 4.8+. */
static inline bool nw_bio_is_data_write(struct bio *bio)
{
#if LINUX_VERSION_CODE >= KERNEL_VERSION(4, 8, 0)
	return bio_op(bio) == REQ_OP_WRITE;
#else
	return (bio->bi_rw & (REQ_WRITE | REQ_DISCARD | REQ_WRITE_SAME)) ==
	       REQ_WRITE;
#endif
}

/*
 * A bio's error: an argument of bio_endio() before 4.3, bi_error until
 * 4.12, bi_status from 4.13.
 */
static inline void nw_bio_end_eagain(struct bio *bio)
{
#if LINUX_VERSION_CODE >= KERNEL_VERSION(4, 13, 0)
	bio->bi_status = BLK_STS_AGAIN;
	bio_endio(bio);
#elif LINUX_VERSION_CODE >= KERNEL_VERSION(4, 3, 0)
	bio->bi_error = -EAGAIN;
	bio_endio(bio);
#else
	bio_endio(bio, -EAGAIN);
#endif
}

/*
 * A failed BLK_MQ_REQ_NOWAIT allocation in blk_mq_sched_get_request()
 * returns with the software queue still held before 4.13:
 * blk_mq_get_ctx() is get_cpu(), and nothing puts it before 4.13's
 * put_ctx_on_error (no caller of 4.11/4.12 failed there with a bio).  The
 * caller then drops the bio without ending it.  The hook takes a mark of
 * the preemption count before the call, and after a failure puts the
 * context (or the task goes back to user space with preemption off:
 * "scheduling while atomic") and ends the bio.
 * Without CONFIG_PREEMPT_COUNT the count does not move.
 */
#define NW_BLK_MQ_FAILED_ALLOC_KEEPS_CTX \
	(LINUX_VERSION_CODE < KERNEL_VERSION(4, 13, 0))

static inline int nw_blk_mq_alloc_mark(void)
{
	return preempt_count();
}

#endif /* NOWAIT_AIO_COMPAT_BLOCK_H */
