/* SPDX-License-Identifier: GPL-2.0 */
/*
 * queue.h - the block layer's rules (queue.c): may a NOWAIT write's bios
 * get a request or tag on this queue without waiting?
 */
#ifndef NW_QUEUE_H
#define NW_QUEUE_H

#include <linux/types.h>
#include <linux/uio.h>

#include "task.h"

struct request_queue;
struct blk_mq_tags;
extern struct nw_marks nw_blk_marks;	/* inside a NOWAIT blkdev write */
bool nw_queue_is_stacked(struct request_queue *q);
bool nw_queue_has_room(struct request_queue *q);
bool nw_blkdev_single_bio(struct request_queue *q, struct iov_iter *from,
			  loff_t pos);
bool nw_perbio_nowait(struct request_queue *q);
void nw_queue_setup(bool perbio_mq, bool perbio_legacy,
		    bool (*has_free_tags)(struct blk_mq_tags *tags));

#endif /* NW_QUEUE_H */
