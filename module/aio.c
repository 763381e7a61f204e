// SPDX-License-Identifier: GPL-2.0
/*
 * io_submit: RWF_* flags in iocb->aio_rw_flags (the old aio_reserved1).
 *
 * A pre-4.13 kernel refuses an iocb whose aio_reserved1 is set with EINVAL,
 * in io_submit_one(), which is inlined into do_io_submit().  The kernel's
 * own do_io_submit() submits the runs of iocbs without flags.  The module
 * takes each iocb that carries flags: it checks what 4.14's io_submit_one()
 * checks before the kernel would (same errors, same order, same channel),
 * clears the flags word in the caller's own iocb and has the kernel submit
 * that one iocb, from the caller's own array, with the caller's address
 * limit: the module never changes the address limit, so every pointer and
 * id reaches the kernel as the caller's.  The kernel's aio_read()/
 * aio_write() (hooked from load to unload) then put the flags back into
 * the caller's iocb before the file sees the request (so before it can
 * complete and the caller reuse the iocb), check them against the file and
 * put them on the kiocb.  Meanwhile another thread of the caller reading
 * that iocb sees its flags word 0.  One kernel pass per flagged iocb:
 * while the hooks below are in, the module looks at the iocb in front
 * before the kernel does; while they are out, the kernel goes first and
 * the module looks where it stopped.
 *
 * Cost for iocbs without flags: the do_io_submit trampoline, two reads of
 * user memory (the first iocb's pointer and flags word) while the hooks
 * below are in, then the kernel's path, with the aio_read()/aio_write()
 * trampolines, each one read of the task's bucket of marks (task.c).
 */
#include <linux/aio_abi.h>
#include <linux/aio.h>
#include <linux/eventfd.h>
#include <linux/file.h>
#include <linux/sched.h>

#include "rules.h"
#include "hook.h"
#include "demand.h"
#include "sync.h"
#include "parts.h"

static long (*nw_orig_do_io_submit)(aio_context_t, long,
				    struct iocb __user *__user *, bool);
static ssize_t (*nw_orig_aio_read)(struct kiocb *, struct iocb *, bool, bool);
static ssize_t (*nw_orig_aio_write)(struct kiocb *, struct iocb *, bool,
				    bool);
#if NW_AIO_RUN_IOCB_REQ_ONLY
static ssize_t (*nw_orig_aio_run_iocb)(struct kiocb *, bool);
#else
static ssize_t (*nw_orig_aio_run_iocb)(struct kiocb *, unsigned int,
				       char __user *, size_t, bool);
#endif

/*
 * One flagged iocb being submitted by one task.  The kernel reads the
 * caller's own iocb, with the caller's address limit, while its flags word
 * is cleared; the module puts the flags back before the request can
 * complete (nw_subst_restore()).
 */
struct nw_subst {
	struct nw_mark mark;	/* first: found by the task's mark */
	unsigned int flags;
	struct iocb __user *uptr;
	u32 key;		/* the caller's aio_key, before the kernel's */
	bool restored;		/* the caller's flags are back */
	bool warmup;		/* NOWAIT, the per-request hooks out: refuse */
	struct nw_req_rec rec;	/* its flags, where the kiocb has none */
};

static struct nw_marks nw_subst_marks = NW_MARKS_INIT(nw_subst_marks);

/*
 * Put the caller's flags back, once: from the request's hook, before the
 * file can complete it (after that the caller may reuse the iocb), or
 * after the kernel's submission when the hook never ran.  It fails only
 * for a caller that unmapped its own iocb meanwhile.
 */
static void nw_subst_restore(struct nw_subst *s)
{
	if (s->restored)
		return;
	s->restored = true;
	(void)put_user(s->flags, &NW_IOCB_RW_FLAGS(s->uptr));
}

/*
 * Will the kernel's function go as far as the file's read or write?  It
 * answers EBADF for a file not open that way and EINVAL for one without
 * the operation first (4.14's aio_read()/aio_write(), and aio_run_iocb()
 * before 4.9): the module's own answers must not come before those.
 */
static bool nw_kernel_would_rw(struct file *file, bool write)
{
	if (write)
		return (file->f_mode & FMODE_WRITE) && NW_FOP_WRITE(file->f_op);
	return (file->f_mode & FMODE_READ) && NW_FOP_READ(file->f_op);
}

/* One run of the kernel's function for the flagged request. */
struct nw_run {
	struct nw_subst *s;
	bool deferred;		/* the module syncs it (sync.c) */
	bool complete;		/* refused: complete it with the answer */
};

/*
 * The deferred sync: the kernel cannot sync this write itself (or would do
 * it from interrupt context), so the module syncs it where it hooks the
 * file's write_iter, and refuses the flag elsewhere.  0, or the errno.
 */
static ssize_t nw_aio_sync_begin(struct kiocb *req, struct nw_run *run,
				 unsigned int *flags)
{
	if (!nw_can_defer_sync(req))
		return nw_unsupported();
	if (!nw_defer_sync(req, !(*flags & RWF_SYNC), *flags & RWF_NOWAIT))
		return (*flags & RWF_NOWAIT) ? -EAGAIN : -ENOMEM;
	run->deferred = true;
	*flags &= ~(RWF_DSYNC | RWF_SYNC);
	return 0;
}

/*
 * Before the kernel's per-request function runs for the flagged request:
 * the caller's flags back, checked against the file the kernel has just
 * got, then onto the kiocb.  0, or the errno the request fails with
 * (run->complete: through its completion event, as 4.14 delivers a
 * filesystem's EAGAIN).
 */
static ssize_t nw_run_begin(struct nw_run *run, struct kiocb *req, bool write)
{
	struct nw_subst *s = run->s;
	unsigned int flags = s->flags;
	ssize_t ret;

	run->deferred = false;
	run->complete = false;
	nw_subst_restore(s);
	nw_req_begin(&s->rec, req);
	/* 4.14 checks the flags before it stores aio_key; this kernel did */
	ret = nw_check_rw_flags(req->ki_filp, flags);
	if (ret == -EAGAIN) {
		/* its filesystem attaching: refused, after the kernel's own */
		run->complete = nw_kernel_would_rw(req->ki_filp, write);
		return run->complete ? ret : 0;
	}
	if (ret) {
		(void)put_user(s->key, &s->uptr->aio_key);
		return ret;
	}
	if (!nw_kernel_would_rw(req->ki_filp, write))
		return 0;	/* the kernel's own EBADF or EINVAL */
	if (s->warmup) {
		run->complete = true;
		return -EAGAIN;
	}
	if (write && (flags & (RWF_DSYNC | RWF_SYNC)) &&
	    nw_sync_by_module(req)) {
		ret = nw_aio_sync_begin(req, run, &flags);
		if (ret)
			return ret;
	}
	nw_apply_rw_flags(req, flags);
	return 0;
}

/*
 * After it (@called: it ran and returned @ret), or after a refusal.  A
 * negative return other than -EIOCBQUEUED means the request was never
 * queued (or its write_iter already finished the deferred sync), and it is
 * still ours to look at.  A zero or positive return may mean it is queued
 * and already completed: never touch it then.
 */
static void nw_run_end(struct nw_run *run, struct kiocb *req, bool called,
		       ssize_t ret)
{
	if (called && run->deferred && ret < 0 && ret != -EIOCBQUEUED)
		nw_defer_sync_cancel(req);
	nw_req_end(&run->s->rec);
}

/*
 * The kernel's function for a request of this task, @call(@req, @args):
 * with the flags when it is the flagged one.  A refusal through the event
 * completes the request here and reports it submitted, as the kernel's
 * function does for a request that did not queue itself.
 */
#define NW_RUN_FLAGGED(req, write, call)				\
({									\
	struct nw_run __run;						\
	bool __called;							\
	ssize_t __ret;							\
									\
	__run.s = (struct nw_subst *)nw_mark_find(&nw_subst_marks);	\
	if (likely(!__run.s)) {						\
		__ret = (call);						\
	} else {							\
		__ret = nw_run_begin(&__run, (req), (write));		\
		__called = !__ret;					\
		if (__called)						\
			__ret = (call);					\
		nw_run_end(&__run, (req), __called, __ret);		\
		if (__run.complete) {					\
			nw_aio_complete_req((req), __ret);		\
			__ret = 0;					\
		}							\
	}								\
	__ret;								\
})

static ssize_t nw_aio_rw(struct kiocb *req, struct iocb *iocb, bool vectored,
			 bool compat, bool write,
			 ssize_t (*orig)(struct kiocb *, struct iocb *, bool,
					 bool))
{
	ssize_t ret;

	nw_enter();
	ret = NW_RUN_FLAGGED(req, write, orig(req, iocb, vectored, compat));
	nw_exit();
	return ret;
}

static ssize_t nw_aio_read(struct kiocb *req, struct iocb *iocb,
			  bool vectored, bool compat)
{
	return nw_aio_rw(req, iocb, vectored, compat, false, nw_orig_aio_read);
}

static ssize_t nw_aio_write(struct kiocb *req, struct iocb *iocb,
			   bool vectored, bool compat)
{
	return nw_aio_rw(req, iocb, vectored, compat, true, nw_orig_aio_write);
}

/*
 * Before 4.9 one function, aio_run_iocb(), sets up and runs every opcode;
 * it completes a request that did not queue itself and returns 0, or
 * returns an error for a request it never started.  Its arguments differ
 * (NW_AIO_RUN_IOCB_REQ_ONLY): NW_AIO_RUN_ARGS are the hook's, and
 * NW_AIO_RUN_CALL the original's call.
 */
static bool nw_opcode_writes(unsigned int opcode)
{
	return opcode == IOCB_CMD_PWRITE || opcode == IOCB_CMD_PWRITEV;
}

#if NW_AIO_RUN_IOCB_REQ_ONLY
#define NW_AIO_RUN_ARGS struct kiocb *req, bool compat
#define NW_AIO_RUN_CALL nw_orig_aio_run_iocb(req, compat)
#define NW_AIO_RUN_OPCODE req->ki_opcode
#else
#define NW_AIO_RUN_ARGS struct kiocb *req, unsigned int opcode, \
			char __user *buf, size_t len, bool compat
#define NW_AIO_RUN_CALL nw_orig_aio_run_iocb(req, opcode, buf, len, compat)
#define NW_AIO_RUN_OPCODE opcode
#endif

static ssize_t nw_aio_run_iocb(NW_AIO_RUN_ARGS)
{
	ssize_t ret;

	nw_enter();
	ret = NW_RUN_FLAGGED(req, nw_opcode_writes(NW_AIO_RUN_OPCODE),
			     NW_AIO_RUN_CALL);
	nw_exit();
	return ret;
}

/*
 * 4.14's io_submit_one() checks, in this order, for an iocb with flags:
 * aio_reserved2, overflow, (request slot), fd, eventfd, the flags, the
 * aio_key store (EFAULT), the opcode.  The first two, on the module's
 * copy: EINVAL (counted), or 0.
 */
static int nw_check_fields(const struct iocb *iocb)
{
	if (iocb->aio_reserved2 ||
	    iocb->aio_buf != (unsigned long)iocb->aio_buf ||
	    iocb->aio_nbytes != (size_t)iocb->aio_nbytes ||
	    (ssize_t)iocb->aio_nbytes < 0) {
		nw_count(NW_CNT_EINVAL);
		return -EINVAL;
	}
	return 0;
}

/*
 * The fd, the eventfd and the flags, where the module answers before the
 * kernel has looked at the iocb (an opcode the hooks do not see, or the
 * hooks out).  They change nothing.
 */
static int nw_check_files(const struct iocb *iocb)
{
	struct file *file;
	int ret = 0;

	file = fget(iocb->aio_fildes);
	if (!file)
		return -EBADF;
	if (iocb->aio_flags & IOCB_FLAG_RESFD) {
		struct eventfd_ctx *ev;

		ev = eventfd_ctx_fdget((int)iocb->aio_resfd);
		if (IS_ERR(ev)) {
			ret = PTR_ERR(ev);
			goto out;
		}
		eventfd_ctx_put(ev);
	}
	ret = nw_check_rw_flags(file, NW_IOCB_RW_FLAGS(iocb));
out:
	fput(file);
	return ret;
}

/* The opcodes whose kernel function the module hooks (aio_read/aio_write) */
static bool nw_rw_opcode(u16 opcode)
{
	return opcode == IOCB_CMD_PREAD || opcode == IOCB_CMD_PWRITE ||
	       opcode == IOCB_CMD_PREADV || opcode == IOCB_CMD_PWRITEV;
}

/* 4.14 looks the context up before it reads an iocb: 0 or EINVAL. */
static long nw_check_ctx(aio_context_t ctx_id, bool compat)
{
	/* nr = 0 submits nothing; the caller's own address limit */
	return nw_orig_do_io_submit(ctx_id, 0, NULL, compat);
}

/*
 * The answers that come before the kernel's submission.  The aio_read/
 * aio_write hook checks the flags of a read or write against the file the
 * kernel got; the module answers for the other opcodes, whose function it
 * does not hook.  An invalid context is the answer whenever there is
 * another one.
 */
static long nw_flagged_first_answer(aio_context_t ctx_id,
				    const struct iocb *copy, bool rw,
				    bool compat)
{
	long ret = nw_check_fields(copy);

	if (!ret && !rw)
		ret = nw_check_files(copy);
	if (ret) {
		long ctx_err = nw_check_ctx(ctx_id, compat);

		if (ctx_err)
			return ctx_err;
	}
	return ret;
}

/*
 * The per-request hooks, for a read or write: a NOWAIT one that finds them
 * out is refused (s->warmup: through its event, by the aio hook) while
 * they go in; any other waits for them, as a plain request may.
 */
static int nw_subst_demand(struct nw_subst *s)
{
	int err;

	if (!(s->flags & RWF_NOWAIT))
		return nw_demand_get_wait();
	err = nw_demand_get();
	if (err != -EAGAIN)
		return err;
	s->warmup = true;
	return 0;
}

/* The caller's iocb cannot be written: 4.14's answer, its EFAULT last. */
static long nw_unwritable_answer(aio_context_t ctx_id,
				 const struct iocb *copy, bool compat)
{
	long ret = nw_check_ctx(ctx_id, compat);

	if (!ret)
		ret = nw_check_files(copy);
	return ret ? ret : -EFAULT;
}

/*
 * The kernel took a flagged read or write, but its hook never ran: it was
 * found wanting on this very call (trust.c) or ftrace was turned off
 * meanwhile, so the request went down as a plain one.  Said once; a write
 * that asked for RWF_DSYNC or RWF_SYNC is synced here, before io_submit
 * returns, so that what it promised holds.
 */
static void nw_subst_unseen(const struct iocb *copy, unsigned int flags)
{
	struct file *file;

	pr_warn_once("a flagged request went to the kernel without the module's hook: its flags were not applied\n");
	if (!(flags & (RWF_DSYNC | RWF_SYNC)) ||
	    !nw_opcode_writes(copy->aio_lio_opcode))
		return;
	file = fget(copy->aio_fildes);
	if (!file)
		return;
	(void)vfs_fsync(file, !(flags & RWF_SYNC));
	fput(file);
}

/*
 * Submit the one iocb that carries flags (@uptr, found at @at; @copy read
 * from it).  The kernel reads it from the caller's memory while its flags
 * word is 0: no address limit is changed, so every pointer and id in it
 * reaches the kernel as the caller's.  Returns 1 or -errno.
 */
static long nw_submit_flagged(aio_context_t ctx_id,
			      struct iocb __user *__user *at,
			      struct iocb __user *uptr,
			      const struct iocb *copy, bool compat)
{
	struct nw_subst s = {
		.flags = NW_IOCB_RW_FLAGS(copy),
		.uptr = uptr,
		.key = copy->aio_key,
	};
	bool rw = nw_rw_opcode(copy->aio_lio_opcode);
	bool held = false;
	long ret;

	ret = nw_flagged_first_answer(ctx_id, copy, rw, compat);
	if (!ret && rw) {
		ret = nw_subst_demand(&s);
		held = !ret && !s.warmup;
	}
	if (ret)
		return ret;
	if (put_user(0, &NW_IOCB_RW_FLAGS(uptr))) {
		s.restored = true;
		ret = nw_unwritable_answer(ctx_id, copy, compat);
		goto out;
	}
	nw_mark_push(&nw_subst_marks, &s.mark);
	ret = nw_orig_do_io_submit(ctx_id, 1, at, compat);
	nw_mark_pop(&nw_subst_marks, &s.mark);
	if (ret == 1 && rw && !s.restored)
		nw_subst_unseen(copy, s.flags);
	nw_subst_restore(&s);
out:
	if (held)
		nw_demand_put();
	return ret;
}

/*
 * The iocb at @at, if it carries flags: submitted by the module (1, or
 * -errno).  0 when it carries none, or cannot be read: the kernel's turn.
 */
static long nw_submit_if_flagged(aio_context_t ctx_id,
				 struct iocb __user *__user *at, bool compat)
{
	struct iocb __user *uptr;
	struct iocb copy;

	if (get_user(uptr, at) ||
	    get_user(NW_IOCB_RW_FLAGS(&copy), &NW_IOCB_RW_FLAGS(uptr)) ||
	    !NW_IOCB_RW_FLAGS(&copy))
		return 0;
	if (copy_from_user(&copy, uptr, sizeof(copy)) ||
	    !NW_IOCB_RW_FLAGS(&copy))
		return 0;
	return nw_submit_flagged(ctx_id, at, uptr, &copy, compat);
}

/*
 * The kernel submits runs of iocbs without flags; the module submits each
 * one with flags, one kernel pass per iocb.  While flagged requests are
 * about (hooks in), the iocb in front is looked at first, so a flagged one
 * skips the kernel's refusal; otherwise the kernel goes first and the
 * module looks where it stopped.
 */
static long nw_do_io_submit(aio_context_t ctx_id, long nr,
			    struct iocb __user *__user *iocbpp, bool compat)
{
	bool peek = nw_demand_hot(), kernel_first = !peek;
	long done = 0, ret = 0, f;

	nw_gate_enter();
	if (nr <= 0 || !nw_on()) {
		ret = nw_orig_do_io_submit(ctx_id, nr, iocbpp, compat);
		goto out;
	}
	for (;;) {
		if (kernel_first) {
			ret = nw_orig_do_io_submit(ctx_id, nr - done,
						   iocbpp + done, compat);
			if (ret > 0)
				done += ret;
			if (done >= nr)
				break;
		}
		/* is the iocb at done (where the kernel stopped) flagged? */
		f = nw_submit_if_flagged(ctx_id, iocbpp + done, compat);
		if (!f && !kernel_first) {
			kernel_first = true;
			continue;
		}
		if (f != 1) {
			ret = f ? f : ret;	/* else the kernel's answer */
			break;
		}
		kernel_first = !peek;
		if (++done >= nr)
			break;
	}
	ret = done ? done : ret;
out:
	nw_gate_exit();
	return ret;
}

/* (req, iocb: the kernel's copy, vectored, compat) */
#define NW_AIO_RW_ARGS \
	NW_ARGS(NW_ARG_KPTR, NW_ARG_KPTR, NW_ARG_BOOL, NW_ARG_BOOL)

static struct nw_hook nw_aio_hooks[] = {
	NW_HOOK("aio_read", nw_aio_read, nw_orig_aio_read, NW_REQUIRED,
		"io_submit: flags onto read requests", .entry = true,
		.has_standin = true, NW_AIO_RW_ARGS),
	NW_HOOK("aio_write", nw_aio_write, nw_orig_aio_write, NW_REQUIRED,
		"io_submit: flags onto write requests", .entry = true,
		.has_standin = true, NW_AIO_RW_ARGS),
	/* ctx_id, nr and iocbpp are the user's: never checked */
	NW_HOOK("do_io_submit", nw_do_io_submit, nw_orig_do_io_submit,
		NW_REQUIRED, "io_submit: aio_rw_flags", .entry = true,
		.gate = true,
		NW_ARGS(NW_ARG_ANY, NW_ARG_ANY, NW_ARG_ANY, NW_ARG_BOOL)),
};

/* before 4.9: one function runs every opcode */
static struct nw_hook nw_aio_standins[] = {
	NW_HOOK("aio_run_iocb", nw_aio_run_iocb,
		nw_orig_aio_run_iocb, NW_REQUIRED,
		"io_submit: flags onto requests", .entry = true,
		NW_AIO_RUN_IOCB_ARGS),
};

const struct nw_part nw_aio_part = {
	NW_PART_HOOKS(nw_aio_hooks),
	NW_PART_STANDINS(nw_aio_standins),
};
