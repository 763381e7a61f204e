// SPDX-License-Identifier: GPL-2.0
/*
 * io_submit: RWF_* flags in iocb->aio_rw_flags (the old aio_reserved1).
 *
 * A pre-4.13 kernel refuses an iocb whose aio_reserved1 is set with EINVAL,
 * in io_submit_one(), which is inlined into do_io_submit().  The kernel's
 * own do_io_submit() submits the runs of iocbs without flags.  The module
 * takes each iocb that carries flags: it checks it as 4.14's
 * io_submit_one() would (same errors, same order, same channel), then
 * hands the kernel a kernel-space copy with the flags cleared and
 * remembers the flags for this task.  The kernel's aio_read()/aio_write()
 * (hooked) then store aio_key, put the flags on the kiocb and point the
 * request back at the caller's iocb, so the completion event's obj is the
 * caller's pointer.  The caller's iocb is never written except for
 * aio_key, as the kernel always does.  One kernel pass per flagged iocb:
 * while the hooks are in, the module looks at the iocb in front before the
 * kernel does; while they are out, the kernel goes first and the module
 * looks where it stopped.
 *
 * Cost for iocbs without flags: the do_io_submit trampoline, two reads of
 * user memory (the first iocb's pointer and flags word) while the hooks
 * are in, then the kernel's path unchanged.  The aio_read()/aio_write()
 * hooks are live only while flagged requests are about (demand.c); then
 * they cost plain requests one read of their task's bucket of marks
 * (task.c).
 */
#include <linux/aio_abi.h>
#include <linux/aio.h>
#include <linux/eventfd.h>
#include <linux/file.h>
#include <linux/sched.h>

#include "nowait_aio.h"

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

/* One substituted iocb being submitted by one task. */
struct nw_subst {
	struct nw_mark mark;	/* first: found by the task's mark */
	unsigned int flags;
	struct iocb *kcopy;
	struct iocb __user *uptr;
	nw_addr_limit_t user_limit;
	struct nw_req_rec rec;	/* its flags, where the kiocb has none */
};

static struct nw_marks nw_subst_marks = NW_MARKS_INIT(nw_subst_marks);

/*
 * The request's pointer to the user's iocb (struct aio_kiocb's ki_user_iocb,
 * private to fs/aio.c) holds the address of our kernel copy.  Find it by
 * that unique value, rather than trusting a layout, and point it at the
 * caller's iocb (nw_aio_user_iocb_slot(), compat/nowait.h).
 */
static int nw_fix_user_iocb(struct kiocb *req, struct nw_subst *s)
{
	void **slot = nw_aio_user_iocb_slot(req, s->kcopy);

	if (!slot)
		return -EINVAL;
	*slot = (void __force *)s->uptr;
	return 0;
}

/*
 * 4.14's kiocb_set_rw_flags(): an unknown bit, or NOWAIT on a file without
 * FMODE_NOWAIT, is EOPNOTSUPP (counted).
 */
static int nw_check_flags(struct file *file, unsigned int flags)
{
	if ((flags & ~NW_RWF_SUPPORTED) ||
	    ((flags & RWF_NOWAIT) && !nw_file_nowait_capable(file))) {
		nw_count(NW_CNT_EOPNOTSUPP);
		return -EOPNOTSUPP;
	}
	return 0;
}

/*
 * Will the kernel's write function go as far as the write?  It answers
 * EBADF for a file not open for writing and EINVAL for one without
 * write_iter first (4.14's aio_write(), and aio_run_iocb() before 4.9):
 * the module's own refusal of the sync flags must not come before those.
 */
static bool nw_kernel_would_write(struct file *file)
{
	return (file->f_mode & FMODE_WRITE) && NW_FOP_WRITE(file->f_op);
}

/*
 * Before the kernel's per-request function runs for the substituted iocb:
 * the event's obj, then the flags onto the kiocb.  0, or the errno the
 * request fails with.
 */
static ssize_t nw_aio_begin(struct kiocb *req, struct nw_subst *s, bool write,
			    bool *deferred)
{
	unsigned int flags = s->flags;

	*deferred = false;
	/*
	 * 4.14 checks the flags against the file the kernel has just got,
	 * then stores aio_key, before the opcode's work; here the kernel has
	 * proved the context, the request slot, the fd and the eventfd.
	 */
	if (nw_check_flags(req->ki_filp, flags))
		return -EOPNOTSUPP;
	if (put_user(KIOCB_KEY, &s->uptr->aio_key))
		return -EFAULT;
	if (nw_fix_user_iocb(req, s)) {
		pr_warn_once("aio request layout not recognised; refusing aio_rw_flags\n");
		return -EINVAL;
	}
	if (write && (flags & (RWF_DSYNC | RWF_SYNC)) &&
	    nw_kernel_would_write(req->ki_filp) && nw_sync_by_module(req)) {
		/*
		 * The kernel cannot sync this write itself (or would do it
		 * from interrupt context): the module syncs it where it
		 * hooks the file's write_iter, and refuses the flag
		 * elsewhere.
		 */
		if (!nw_can_defer_sync(req)) {
			nw_count(NW_CNT_EOPNOTSUPP);
			return -EOPNOTSUPP;
		}
		if (!nw_defer_sync(req, !(flags & RWF_SYNC),
				   flags & RWF_NOWAIT))
			return (flags & RWF_NOWAIT) ? -EAGAIN : -ENOMEM;
		*deferred = true;
		flags &= ~(RWF_DSYNC | RWF_SYNC);
	}
	nw_apply_rw_flags(req, flags);
	return 0;
}

/*
 * After it: a negative return other than -EIOCBQUEUED means the request
 * was never queued (or its write_iter already finished the deferred sync),
 * and the request is still ours to look at.  A zero or positive return
 * may mean it is queued and already completed: never touch it then.
 */
static void nw_aio_end(struct kiocb *req, bool deferred, ssize_t ret)
{
	if (deferred && ret < 0 && ret != -EIOCBQUEUED)
		nw_defer_sync_cancel(req);
}

/* One run of the kernel's function for the substituted request. */
struct nw_run {
	struct nw_subst *s;
	nw_addr_limit_t kernel_limit;
	bool deferred;
};

/* Before it: 0 to call it, or the errno the request fails with. */
static ssize_t nw_run_begin(struct nw_run *run, struct kiocb *req, bool write)
{
	struct nw_subst *s = run->s;

	/* back to the caller's address limit: aio_key and its buffers */
	run->kernel_limit = get_fs();
	nw_addr_limit_restore(s->user_limit);
	nw_req_begin(&s->rec, req);
	return nw_aio_begin(req, s, write, &run->deferred);
}

/* After it (@called: it ran and returned @ret), or after a refusal. */
static void nw_run_end(struct nw_run *run, struct kiocb *req, bool called,
		       ssize_t ret)
{
	if (called)
		nw_aio_end(req, run->deferred, ret);
	nw_req_end(&run->s->rec);
	nw_addr_limit_restore(run->kernel_limit);
}

static ssize_t nw_aio_rw(struct kiocb *req, struct iocb *iocb, bool vectored,
			 bool compat, bool write,
			 ssize_t (*orig)(struct kiocb *, struct iocb *, bool,
					 bool))
{
	struct nw_run run;
	bool called;
	ssize_t ret;

	nw_enter();
	run.s = (struct nw_subst *)nw_mark_find(&nw_subst_marks);
	if (likely(!run.s)) {
		ret = orig(req, iocb, vectored, compat);
		goto out;
	}
	ret = nw_run_begin(&run, req, write);
	called = !ret;
	if (called)
		ret = orig(req, iocb, vectored, compat);
	nw_run_end(&run, req, called, ret);
out:
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
	struct nw_run run;
	bool called;
	ssize_t ret;

	nw_enter();
	run.s = (struct nw_subst *)nw_mark_find(&nw_subst_marks);
	if (likely(!run.s)) {
		ret = NW_AIO_RUN_CALL;
		goto out;
	}
	ret = nw_run_begin(&run, req, nw_opcode_writes(NW_AIO_RUN_OPCODE));
	called = !ret;
	if (called)
		ret = NW_AIO_RUN_CALL;
	nw_run_end(&run, req, called, ret);
out:
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
	ret = nw_check_flags(file, NW_IOCB_RW_FLAGS(iocb));
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

/*
 * The answers that come before the kernel's submission.  4.14 looks the
 * context up before it reads an iocb, so an invalid context is the answer
 * whenever there is another one: the kernel is asked about the context
 * (nr = 0 submits nothing) only on those paths.  On the usual one (a valid
 * read or write, hooks in) the submission itself proves the context, the
 * slot, the fd and the eventfd, and the aio_read/aio_write hook checks the
 * flags and stores aio_key.  The warm-up refusal is counted by
 * nw_demand_get(); a context that goes invalid just after the hint said
 * "hooks in" can then get EAGAIN where 4.14 says EINVAL.
 */
static long nw_flagged_first_answer(aio_context_t ctx_id,
				    struct iocb __user *uptr,
				    const struct iocb *copy, bool compat)
{
	bool rw = nw_rw_opcode(copy->aio_lio_opcode);
	bool hot = rw && nw_demand_hot();
	long ret = nw_check_fields(copy);

	if (!ret && !hot)
		ret = nw_check_files(copy);
	if (ret || !hot) {
		long ctx_err = nw_orig_do_io_submit(ctx_id, 0, NULL, compat);

		if (ctx_err)
			return ctx_err;
	}
	/* the kernel answers EINVAL for the opcode, after the store */
	if (!ret && !rw && put_user(KIOCB_KEY, &uptr->aio_key))
		ret = -EFAULT;
	return ret ? ret : nw_demand_get();
}

/*
 * Submit the one iocb at @uptr that carries flags, from the module's copy
 * (its flags cleared on the way).  Returns 1 or -errno.
 */
static long nw_submit_flagged(aio_context_t ctx_id,
			      struct iocb __user *uptr, struct iocb *copy,
			      bool compat)
{
	struct iocb __user *ptrs[1];
	struct nw_subst s = {
		.flags = NW_IOCB_RW_FLAGS(copy),
		.kcopy = copy,
		.uptr = uptr,
	};
	long ret;

	ret = nw_flagged_first_answer(ctx_id, uptr, copy, compat);
	if (ret)
		return ret;
	NW_IOCB_RW_FLAGS(copy) = 0;
	ptrs[0] = (struct iocb __user *)copy;
	nw_mark_push(&nw_subst_marks, &s.mark);
	s.user_limit = nw_kernel_ds_enter();
	ret = nw_orig_do_io_submit(ctx_id, 1,
				   (struct iocb __user *__user *)ptrs, compat);
	nw_addr_limit_restore(s.user_limit);
	nw_mark_pop(&nw_subst_marks, &s.mark);
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
	return nw_submit_flagged(ctx_id, uptr, &copy, compat);
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

	nw_enter();
	if (nr <= 0 || !READ_ONCE(nw_enabled)) {
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
	nw_exit();
	return ret;
}

static struct nw_hook nw_aio_hooks[] = {
	NW_HOOK("aio_read", nw_aio_read, nw_orig_aio_read, NW_REQUIRED,
		"io_submit: flags onto read requests", .has_standin = true),
	NW_HOOK("aio_write", nw_aio_write, nw_orig_aio_write, NW_REQUIRED,
		"io_submit: flags onto write requests", .has_standin = true),
	NW_HOOK("do_io_submit", nw_do_io_submit, nw_orig_do_io_submit,
		NW_REQUIRED, "io_submit: aio_rw_flags", .entry = true),
};

/* before 4.9: one function runs every opcode */
static struct nw_hook nw_aio_standins[] = {
	NW_HOOK("aio_run_iocb", nw_aio_run_iocb,
		nw_orig_aio_run_iocb, NW_REQUIRED,
		"io_submit: flags onto requests"),
};

const struct nw_part nw_aio_part = {
	.name = "io_submit",
	NW_PART_HOOKS(nw_aio_hooks),
	NW_PART_STANDINS(nw_aio_standins),
};
