/* SPDX-License-Identifier: GPL-2.0 */
/*
 * sync.h - a request's RWF_DSYNC/RWF_SYNC (sync.c): where the kernel has
 * no IOCB_DSYNC, the module syncs the written range itself, after the
 * write and before the request completes.
 */
#ifndef NW_SYNC_H
#define NW_SYNC_H

#include <linux/fs.h>
#include <linux/types.h>

bool nw_sync_by_module(struct kiocb *req);
bool nw_can_defer_sync(struct kiocb *req);
bool nw_defer_sync(struct kiocb *req, bool datasync, bool nowait);
void nw_defer_sync_cancel(struct kiocb *req);
ssize_t nw_deferred_sync_finish(struct kiocb *req, ssize_t ret);
int nw_sync_init(void);
void nw_sync_exit(void);

/* its hooks (aio_complete() where completions are called by name) */
struct nw_part;
extern const struct nw_part nw_sync_part;

#endif /* NW_SYNC_H */
