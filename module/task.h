/* SPDX-License-Identifier: GPL-2.0 */
/*
 * task.h - per-task marks (task.c): a task notes that it is inside one of
 * the module's steps (a NOWAIT blkdev write, a request's flag record), and
 * code below finds the note by the current task.
 */
#ifndef NW_TASK_H
#define NW_TASK_H

#include <linux/cache.h>
#include <linux/hash.h>
#include <linux/sched.h>
#include <linux/spinlock.h>

struct nw_mark {
	struct task_struct *task;
	struct nw_mark *next;
};

/* A set of marks, hashed by task: a task writes only its own bucket. */
#define NW_MARK_BITS 6
#define NW_MARK_BUCKETS (1 << NW_MARK_BITS)
struct nw_mark_bucket {
	spinlock_t lock;
	struct nw_mark *head;
} ____cacheline_aligned_in_smp;

struct nw_marks {
	struct nw_mark_bucket b[NW_MARK_BUCKETS];
};

#define NW_MARKS_INIT(name) {						\
	.b = { [0 ... NW_MARK_BUCKETS - 1] = {				\
		.lock = __SPIN_LOCK_UNLOCKED(name.b.lock) } } }

void nw_mark_push(struct nw_marks *m, struct nw_mark *mark);
/* Might the current task have a mark in @m?  One load: its bucket's head. */
static inline bool nw_mark_maybe(struct nw_marks *m)
{
	return READ_ONCE(m->b[hash_ptr(current, NW_MARK_BITS)].head);
}
void nw_mark_pop(struct nw_marks *m, struct nw_mark *mark);
struct nw_mark *nw_mark_find(struct nw_marks *m);

#endif /* NW_TASK_H */
