// SPDX-License-Identifier: GPL-2.0
/*
 * Per-task marks: "this task is inside X" for the duration of one call,
 * for hooks further down the same call chain.  A mark lives on the
 * caller's stack; the registry is a short list under a spinlock (taken
 * with interrupts off: the block-layer hooks run under queue locks), and
 * an atomic count lets every hook skip the lookup when no mark exists.
 */
#include <linux/sched.h>

#include "nowait_aio.h"

void nw_mark_push(struct nw_marks *m, struct nw_mark *mark)
{
	unsigned long flags;

	mark->task = current;
	spin_lock_irqsave(&m->lock, flags);
	mark->next = m->head;
	m->head = mark;
	spin_unlock_irqrestore(&m->lock, flags);
	atomic_inc(&m->active);
}

void nw_mark_pop(struct nw_marks *m, struct nw_mark *mark)
{
	struct nw_mark **p;
	unsigned long flags;

	spin_lock_irqsave(&m->lock, flags);
	for (p = &m->head; *p; p = &(*p)->next) {
		if (*p == mark) {
			*p = mark->next;
			break;
		}
	}
	spin_unlock_irqrestore(&m->lock, flags);
	atomic_dec(&m->active);
}

/* The current task's mark, or NULL. */
struct nw_mark *nw_mark_find(struct nw_marks *m)
{
	struct nw_mark *mark;
	unsigned long flags;

	if (likely(!atomic_read(&m->active)))
		return NULL;
	spin_lock_irqsave(&m->lock, flags);
	for (mark = m->head; mark; mark = mark->next)
		if (mark->task == current)
			break;
	spin_unlock_irqrestore(&m->lock, flags);
	return mark;
}
