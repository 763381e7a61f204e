// SPDX-License-Identifier: GPL-2.0
/*
 * Per-task marks: "this task is inside X" for the duration of one call,
 * for hooks further down the same call chain.  A mark lives on the
 * caller's stack.  A set of marks is a table of short lists hashed by
 * task, each under its own spinlock (taken with interrupts off: the
 * block-layer hooks run under queue locks) on its own cache line, so that
 * tasks on different CPUs do not share a line, and a hook whose task has
 * no mark reads one line and writes nothing.
 *
 * The lookup may read a bucket's head without the lock: a task's own push
 * comes before its own lookups, so while it has a mark the head it reads
 * is not NULL; a NULL head can only hide other tasks' marks.
 */
#include <linux/hash.h>
#include <linux/sched.h>

#include "task.h"

static struct nw_mark_bucket *nw_mark_bucket(struct nw_marks *m)
{
	return &m->b[hash_ptr(current, NW_MARK_BITS)];
}

/**
 * nw_mark_push() - note in @m that the current task is inside a step.
 * @m: the set of marks
 * @mark: the mark, on the caller's stack
 *
 * Until nw_mark_pop(), nw_mark_find() in the same task finds @mark (or a
 * mark the task pushed later).  A caller can embed @mark at the start of a
 * record of its own and get the record back from nw_mark_find().  Takes
 * the task's bucket lock with interrupts off; does not sleep.
 */
void nw_mark_push(struct nw_marks *m, struct nw_mark *mark)
{
	struct nw_mark_bucket *b = nw_mark_bucket(m);
	unsigned long flags;

	mark->task = current;
	spin_lock_irqsave(&b->lock, flags);
	mark->next = b->head;
	WRITE_ONCE(b->head, mark);
	spin_unlock_irqrestore(&b->lock, flags);
}

/**
 * nw_mark_pop() - take the current task's @mark out of @m.
 * @m: the set of marks
 * @mark: a mark the current task pushed into @m
 *
 * Called by the task that pushed it, before the mark's stack frame is
 * left.  Does not sleep.
 */
void nw_mark_pop(struct nw_marks *m, struct nw_mark *mark)
{
	struct nw_mark_bucket *b = nw_mark_bucket(m);
	struct nw_mark **p;
	unsigned long flags;

	spin_lock_irqsave(&b->lock, flags);
	for (p = &b->head; *p; p = &(*p)->next) {
		if (*p == mark) {
			WRITE_ONCE(*p, mark->next);
			break;
		}
	}
	spin_unlock_irqrestore(&b->lock, flags);
}

/**
 * nw_mark_find() - the current task's mark in @m.
 * @m: the set of marks
 *
 * A task without a mark in a bucket that holds none reads one line and
 * takes no lock; otherwise the bucket is searched under its lock, with
 * interrupts off.  Does not sleep.
 *
 * Return: the mark the current task pushed last, or NULL when it has none
 * in @m.
 */
struct nw_mark *nw_mark_find(struct nw_marks *m)
{
	struct nw_mark_bucket *b = nw_mark_bucket(m);
	struct nw_mark *mark;
	unsigned long flags;

	if (likely(!READ_ONCE(b->head)))
		return NULL;
	spin_lock_irqsave(&b->lock, flags);
	for (mark = b->head; mark; mark = mark->next)
		if (mark->task == current)
			break;
	spin_unlock_irqrestore(&b->lock, flags);
	return mark;
}
