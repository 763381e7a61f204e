/* SPDX-License-Identifier: GPL-2.0 */
/*
 * nowait_aio - internal interfaces shared by the module's files.
 */
#ifndef NOWAIT_AIO_H
#define NOWAIT_AIO_H

#include <linux/aio_abi.h>
#include <linux/atomic.h>
#include <linux/fs.h>
#include <linux/mutex.h>
#include <linux/percpu.h>
#include <linux/spinlock.h>
#include <linux/types.h>
#include <linux/uio.h>
#include <linux/hash.h>
#include <linux/sched.h>

#include "compat.h"
#include "rules.h"

/* --- the hook engine (hook.c) --- */
enum nw_need {
	NW_REQUIRED,	/* missing: the module does not load */
	NW_OPTIONAL,	/* a refinement: missing turns off only that */
	NW_FS,		/* a filesystem's: missing turns off that filesystem */
};

/*
 * What a hooked function's arguments must look like, register by register
 * (trust.c): given where the module took the prototype from no header it
 * was built against.  Only what the kernel chooses is ever checked.
 */
enum nw_arg {
	NW_ARG_ANY,		/* not checked (a user's value, or anything) */
	NW_ARG_KPTR,		/* a kernel address */
	NW_ARG_KPTR_NULL,	/* a kernel address or NULL */
	NW_ARG_RW,		/* READ or WRITE (an int) */
	NW_ARG_BOOL,		/* a bool */
	NW_ARG_U16,		/* a 16-bit value (an iocb's opcode) */
};

#define NW_MAX_ARGS 6
#define NW_ARGS(...) .args = { __VA_ARGS__ }

struct nw_hook {
	const char *name;	/* kernel symbol */
	void *wrapper;		/* NULL: resolve only, do not hook */
	void **orig;		/* receives the callable original */
	enum nw_need need;
	const char *why;	/* what the hook is for, for dmesg/features */
	bool entry;		/* an entry point: live from load to unload */
	bool gate;		/* where flagged requests come in (unload) */
	bool has_standin;	/* its part's stand-ins replace it if absent */
	u8 args[NW_MAX_ARGS];	/* enum nw_arg: its arguments (NW_ARGS) */
	/* filled in by the engine */
	bool filtered;		/* in the shared ops' filter */
	unsigned int nsyms;	/* kernel symbols of its name (nw_syms_count) */
	unsigned long addr;
	bool live;
	const char *off_reason;
	/* trust.c: an argument that did not fit (1 + its index), or 0 */
	int bad_arg;
	bool bad_said;		/* dmesg has said so */
	bool test_distrust;	/* distrust_test= names it */
	u8 nr_checked;		/* args[] up to its last checked one */
	struct ftrace_ops ops;
};

/*
 * A part of the module and the kernel functions it hooks or calls.  The
 * engine resolves, installs and removes every part; a part whose symbols
 * live in a kernel module (@owner: a filesystem built as one) is attached
 * when that module comes and detached before it goes, alone.
 */
struct nw_part {
	const char *name;
	const char *owner;	/* "ext4", "xfs", "btrfs"; NULL: vmlinux */
	struct nw_hook *hooks;
	size_t nr_hooks;
	/*
	 * An older kernel's hook points for the hooks marked has_standin:
	 * used only where none of those resolves.
	 */
	struct nw_hook *standins;
	size_t nr_standins;
	/* after its hooks resolve, attach or detach; under nw_hooks_mutex */
	void (*setup)(void);
	/* a filesystem part with its hooks in that offers no NOWAIT: why */
	const char *(*off_why)(void);
};

/*
 * A hook table's entries: a function hooked (any further fields, such as
 * .entry or .has_standin, after the reason), or a symbol only resolved
 */
#define NW_HOOK(_name, _wrapper, _orig, _need, _why, ...)		\
	{ .name = (_name), .wrapper = (_wrapper), .orig = (void **)&(_orig), \
	  .need = (_need), .why = (_why), __VA_ARGS__ }
#define NW_SYMBOL(_name, _orig, _need, _why)				\
	{ .name = (_name), .orig = (void **)&(_orig), .need = (_need),	\
	  .why = (_why) }

#define NW_PART_HOOKS(h) .hooks = (h), .nr_hooks = ARRAY_SIZE(h)
#define NW_PART_STANDINS(h) .standins = (h), .nr_standins = ARRAY_SIZE(h)

extern const struct nw_part nw_block_part, nw_read_part, nw_ext4_part,
	nw_xfs_part, nw_btrfs_part, nw_blkdev_part, nw_aio_part, nw_rwf_part,
	nw_sync_part;

/* which hooks nw_hooks_install()/nw_hooks_remove() act on */
enum nw_hook_set {
	NW_HOOKS_GATES,		/* the entry points flagged requests come by */
	NW_HOOKS_ENTRY,		/* the entry points */
	NW_HOOKS_DEMAND,	/* the hooks below them (demand.c) */
	NW_HOOKS_ALL,
};

/* installs, removals, attaching and detaching owners' parts */
extern struct mutex nw_hooks_mutex;
int nw_parts_resolve(const struct nw_part *const parts[], size_t n);
void nw_parts_setup(void);
bool nw_hook_ready(const struct nw_hook *h);
int nw_hooks_install(enum nw_hook_set set);
void nw_hooks_remove(enum nw_hook_set set);
void nw_hooks_release(void);
void nw_hooks_wait_idle(void);
void nw_hooks_drain_gates(void);
size_t nw_hooks_show(char *buf, size_t len);
int nw_owners_init(void);
void nw_owners_start(void);
void nw_owners_exit(void);
size_t nw_owners_show(char *buf, size_t len);
extern bool nw_unload_pinned;
void nw_hooks_for_each(void (*fn)(const struct nw_part *p,
				  struct nw_hook *h));

/*
 * Trust in the kernel's functions (trust.c): the ftrace callbacks send a
 * call to the wrapper only when nw_hook_trusts() says its arguments fit.
 */
extern bool nw_distrusted;	/* a required hook did not fit: NOWAIT off */
extern char *nw_distrust_test;
bool nw_hook_trusts(struct nw_hook *h, const struct pt_regs *regs);
void nw_hook_trust_init(struct nw_hook *h);
size_t nw_distrust_why(const struct nw_hook *h, char *buf, size_t len);
void nw_trust_exit(void);

/* RWF_NOWAIT on: the switch, and no required hook found wanting */
static inline bool nw_on(void)
{
	return READ_ONCE(nw_enabled) && !READ_ONCE(nw_distrusted);
}

/*
 * The hooks below the entry points, on demand (demand.c): an entry point
 * takes them with nw_demand_get() before it sends a flagged request down
 * and drops them with nw_demand_put() when the submission returns.
 */
extern unsigned int nw_hook_idle_ms;
#define NW_HOOK_IDLE_MS_MAX	3600000	/* an hour */
int nw_demand_get(void);
int nw_demand_get_wait(void);
/*
 * Are the hooks in right now?  A hint for choosing a path, one load on
 * every io_submit (a request that sees true may still be refused by
 * nw_demand_get() a moment later).
 */
extern bool nw_demand_on;
static inline bool nw_demand_hot(void)
{
	return READ_ONCE(nw_demand_on);
}
void nw_demand_hold(void);
void nw_demand_put(void);
void nw_demand_init(void);
void nw_demand_exit(void);
void nw_demand_release(void);
int nw_demand_set_idle(unsigned int ms);
size_t nw_demand_show(char *buf, size_t len);

/*
 * Every wrapper brackets its body with nw_enter()/nw_exit(), so unload can
 * wait until no task runs module code.  Two per-cpu ops, no shared line.
 */
DECLARE_PER_CPU(long, nw_active);
static inline void nw_enter(void)
{
	this_cpu_inc(nw_active);
}

static inline void nw_exit(void)
{
	this_cpu_dec(nw_active);
}

/*
 * The wrappers of the gates (.gate: io_submit's and preadv2/pwritev2's)
 * count themselves in a second time, so that unload can take the gates
 * out, wait until no flagged request is left between a gate and the
 * per-request hooks below it, and only then take those out.
 */
DECLARE_PER_CPU(long, nw_gate_active);
static inline void nw_gate_enter(void)
{
	nw_enter();
	this_cpu_inc(nw_gate_active);
}

static inline void nw_gate_exit(void)
{
	this_cpu_dec(nw_gate_active);
	nw_exit();
}

/* --- per-request sync (sync.c) --- */
bool nw_sync_by_module(struct kiocb *req);
bool nw_can_defer_sync(struct kiocb *req);
bool nw_defer_sync(struct kiocb *req, bool datasync, bool nowait);
void nw_defer_sync_cancel(struct kiocb *req);
ssize_t nw_deferred_sync_finish(struct kiocb *req, ssize_t ret);
int nw_sync_init(void);
void nw_sync_exit(void);

/* --- per-task marks (task.c) --- */
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

/*
 * --- a request's IOCB_* flags (rules.c) ---
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

/* --- the block layer's rules (queue.c) --- */
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

int nw_sysfs_init(void);
void nw_sysfs_exit(void);

typedef ssize_t (*nw_iter_fn)(struct kiocb *, struct iov_iter *);

#endif /* NOWAIT_AIO_H */
