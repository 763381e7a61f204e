/* SPDX-License-Identifier: GPL-2.0 */
/*
 * rules.h - the floor below every part: what a NOWAIT request is checked
 * against, whichever hook sees it.  The switches and counters of
 * /sys/kernel/nowait_aio/, fault injection, RWF_* flags onto a kiocb, the
 * page-cache probe, and which filesystem a file belongs to.  Nothing here
 * calls into a part.
 */
#ifndef NOWAIT_AIO_RULES_H
#define NOWAIT_AIO_RULES_H

#include <linux/fs.h>
#include <linux/gfp.h>
#include <linux/percpu.h>
#include <linux/types.h>

#include "compat.h"
#include "task.h"

/* --- checks that can be switched off one by one --- */
enum nw_check {
	NW_CHECK_LOCK,		/* inode lock only tried */
	NW_CHECK_PAGECACHE,	/* page-cache pages in a direct range */
	NW_CHECK_ALLOC,		/* block allocation, COW */
	NW_CHECK_CONGESTION,	/* no free request or tag */
	NW_NR_CHECKS,
};

extern const char *const nw_check_names[NW_NR_CHECKS];

/* --- counters under /sys/kernel/nowait_aio/ --- */
enum nw_counter {
	NW_CNT_ACCEPTED,	/* NOWAIT requests let in */
	NW_CNT_EAGAIN_LOCK,
	NW_CNT_EAGAIN_PAGECACHE,
	NW_CNT_EAGAIN_ALLOC,
	NW_CNT_EAGAIN_CONGESTION,
	NW_CNT_EAGAIN_INJECTED,
	NW_CNT_EAGAIN_WARMUP,	/* per-request hooks were out (demand.c) */
	NW_CNT_EOPNOTSUPP,	/* refused: unsupported file or flag */
	NW_CNT_EINVAL,		/* refused: invalid request */
	NW_NR_COUNTERS,
};

extern bool nw_enabled;
extern bool nw_distrusted;	/* a required hook did not fit (trust.c) */
extern bool nw_check_on[NW_NR_CHECKS];
extern unsigned int nw_fault_inject;	/* EAGAIN on 1 NOWAIT request in N */
DECLARE_PER_CPU(unsigned long, nw_counters[NW_NR_COUNTERS]);

/* RWF_NOWAIT on: the switch, and no required hook found wanting */
static inline bool nw_on(void)
{
	return READ_ONCE(nw_enabled) && !READ_ONCE(nw_distrusted);
}

static inline void nw_count(enum nw_counter c)
{
	this_cpu_inc(nw_counters[c]);
}

/* A refusal with EAGAIN, counted under its reason. */
static inline int nw_eagain(enum nw_counter why)
{
	nw_count(why);
	return -EAGAIN;
}

/* A flagged request this kernel or file cannot take: EOPNOTSUPP, counted. */
static inline int nw_unsupported(void)
{
	nw_count(NW_CNT_EOPNOTSUPP);
	return -EOPNOTSUPP;
}

unsigned long nw_counter_sum(enum nw_counter c);
bool nw_inject_eagain(void);
extern unsigned int nw_fault_step;	/* the step that fails, for testing */
int nw_fault_at(const char *what);

/* memory on a NOWAIT request's path: no reclaim, no warning; none: EAGAIN */
#define NW_GFP_NOWAIT	(GFP_NOWAIT | __GFP_NOWARN)

/* 4.14's kiocb_set_rw_flags(), for flags already known to be valid */
void nw_apply_rw_flags(struct kiocb *iocb, unsigned int flags);

/* Does the page cache hold any page of [start, end] (bytes, inclusive)? */
bool nw_range_has_page(struct address_space *mapping, loff_t start,
		       loff_t end);
/* 4.14's page-cache rule for a NOWAIT direct request of [start, end] */
bool nw_direct_would_wait(struct address_space *mapping, loff_t start,
			  loff_t end);

/*
 * Which filesystem a file belongs to, by its f_op->write_iter against the
 * address each filesystem part recorded when its hooks attached (never by
 * name: a filesystem module that went and came back has a new address).
 */
enum nw_fs {
	NW_FS_NONE,
	NW_FS_EXT4,
	NW_FS_XFS,
	NW_FS_BTRFS,
	NW_FS_BLKDEV,
	NW_NR_FS,
};

/* A part's record: its write_iter (0: not hooked), and NOWAIT offered? */
void nw_fs_set(enum nw_fs fs, unsigned long write_iter, bool offered);
enum nw_fs nw_fs_of(struct inode *inode);
/* Does a hook of the module run this file's write_iter? */
static inline bool nw_fs_write_hooked(struct inode *inode)
{
	return nw_fs_of(inode) != NW_FS_NONE;
}

/* 4.14's FMODE_NOWAIT: may a NOWAIT request reach this file? */
bool nw_file_nowait_capable(struct file *file);
/* the same as an answer: 0, -EOPNOTSUPP, or -EAGAIN while it attaches */
int nw_file_nowait_check(struct file *file);
/* 4.14's kiocb_set_rw_flags() tests: 0, -EOPNOTSUPP or -EAGAIN */
int nw_check_rw_flags(struct file *file, unsigned int flags);
/* a filesystem's module has come and its part is being attached (owners.c) */
void nw_fs_attaching(const char *name, bool on);

/*
 * --- a request's IOCB_* flags ---
 * In its ki_flags (4.1+), or, on a kernel whose kiocb has none
 * (compat/kiocb.h), in a record its submitting task keeps from
 * nw_req_begin() to nw_req_end(), around the kernel's run of the request.
 */
#if NW_KIOCB_FLAGS
struct nw_req_rec { };

static inline void nw_req_begin(struct nw_req_rec *rec, struct kiocb *req)
{
}

static inline void nw_req_end(struct nw_req_rec *rec)
{
}

static inline int nw_req_flags(struct kiocb *req)
{
	return req->ki_flags;
}

static inline void nw_req_flags_set(struct kiocb *req, int flags)
{
	req->ki_flags |= flags;
}

static inline void nw_req_flags_clear(struct kiocb *req, int flags)
{
	req->ki_flags &= ~flags;
}
#else
struct nw_req_rec {
	struct nw_mark mark;	/* first: found by the task's mark */
	struct kiocb *req;
	int flags;
};

void nw_req_begin(struct nw_req_rec *rec, struct kiocb *req);
void nw_req_end(struct nw_req_rec *rec);
int nw_req_flags(struct kiocb *req);
void nw_req_flags_set(struct kiocb *req, int flags);
void nw_req_flags_clear(struct kiocb *req, int flags);
#endif

#endif /* NOWAIT_AIO_RULES_H */
