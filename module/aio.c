// SPDX-License-Identifier: GPL-2.0
/*
 * io_submit: RWF_* flags in iocb->aio_rw_flags (the old aio_reserved1).
 *
 * A pre-4.13 kernel refuses an iocb whose aio_reserved1 is set with EINVAL,
 * in io_submit_one(), which is inlined into do_io_submit().  The module lets
 * the kernel's own do_io_submit() run first.  Only when it stops at an iocb
 * that carries flags does the module take that one iocb: it checks it as
 * 4.14's io_submit_one() would (same errors, same order, same channel),
 * then hands the kernel a kernel-space copy with the flags cleared and
 * remembers the flags for this task.  The kernel's aio_read()/aio_write()
 * (hooked) then put the flags on the kiocb and point the request back at
 * the caller's iocb, so the completion event's obj is the caller's pointer.
 * The rest of the batch goes on through the kernel.  The caller's iocb is
 * never written except for aio_key, as the kernel always does.
 *
 * Cost for iocbs without flags: the do_io_submit trampoline, then the
 * kernel's path unchanged.  The aio_read()/aio_write() hooks are live only
 * while flagged requests are about (demand.c); then they cost plain
 * requests one read of their task's bucket of marks (task.c).
 */
#include <linux/aio_abi.h>
#include <linux/aio.h>
#include <linux/eventfd.h>
#include <linux/file.h>
#include <linux/sched.h>

#include "nowait_aio.h"

long (*nw_orig_do_io_submit)(aio_context_t, long, struct iocb __user *__user *,
			     bool);
ssize_t (*nw_orig_aio_read)(struct kiocb *, struct iocb *, bool, bool);
ssize_t (*nw_orig_aio_write)(struct kiocb *, struct iocb *, bool, bool);
ssize_t (*nw_orig_aio_run_iocb)(struct kiocb *, unsigned int, char __user *,
				size_t, bool);

/* One substituted iocb being submitted by one task. */
struct nw_subst {
	struct nw_mark mark;	/* first: found by the task's mark */
	unsigned int flags;
	struct iocb *kcopy;
	struct iocb __user *uptr;
	nw_addr_limit_t user_limit;
};

static struct nw_marks nw_subst_marks = NW_MARKS_INIT(nw_subst_marks);

void nw_apply_rw_flags(struct kiocb *iocb, unsigned int flags)
{
	if (flags & RWF_HIPRI)
		iocb->ki_flags |= NW_IOCB_HIPRI;
	if (flags & RWF_DSYNC)
		iocb->ki_flags |= NW_IOCB_DSYNC;
	if (flags & RWF_SYNC)
		iocb->ki_flags |= NW_IOCB_DSYNC | NW_IOCB_SYNC;
	if (flags & RWF_NOWAIT) {
		iocb->ki_flags |= NW_IOCB_NOWAIT;
		nw_count(NW_CNT_ACCEPTED);
	}
}

/*
 * The request's pointer to the user's iocb (struct aio_kiocb's ki_user_iocb,
 * private to fs/aio.c) holds the address of our kernel copy.  Find it by
 * that unique value in the words after the embedded kiocb, rather than
 * trusting a layout, and point it at the caller's iocb.  The scan stays
 * inside the object: from 4.4 to 4.12 struct aio_kiocb has seven words
 * after the kiocb (ki_user_iocb is the third); the debug kernel's KASAN
 * caught an eight-word scan reading past its 96 bytes.
 */
#define NW_AIO_KIOCB_SCAN 4

static int nw_fix_user_iocb(struct kiocb *req, struct nw_subst *s)
{
	void **w = (void **)(req + 1);
	int i, found = -1;

	for (i = 0; i < NW_AIO_KIOCB_SCAN; i++) {
		if (w[i] == (void *)s->kcopy) {
			if (found >= 0)
				return -EINVAL;
			found = i;
		}
	}
	if (found < 0)
		return -EINVAL;
	w[found] = (void __force *)s->uptr;
	return 0;
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
	if (nw_fix_user_iocb(req, s)) {
		pr_warn_once("aio request layout not recognised; refusing aio_rw_flags\n");
		return -EINVAL;
	}
	if (write && (flags & (RWF_DSYNC | RWF_SYNC)) &&
	    nw_sync_by_module(req)) {
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

static ssize_t nw_aio_rw(struct kiocb *req, struct iocb *iocb, bool vectored,
			 bool compat, bool write,
			 ssize_t (*orig)(struct kiocb *, struct iocb *, bool,
					 bool))
{
	struct nw_subst *s = (struct nw_subst *)nw_mark_find(&nw_subst_marks);
	nw_addr_limit_t kernel_limit;
	bool deferred;
	ssize_t ret;

	if (likely(!s))
		return orig(req, iocb, vectored, compat);
	ret = nw_aio_begin(req, s, write, &deferred);
	if (ret)
		return ret;
	/* back to the caller's address limit for its buffers */
	kernel_limit = get_fs();
	nw_addr_limit_restore(s->user_limit);
	ret = orig(req, iocb, vectored, compat);
	nw_addr_limit_restore(kernel_limit);
	nw_aio_end(req, deferred, ret);
	return ret;
}

ssize_t nw_aio_read(struct kiocb *req, struct iocb *iocb, bool vectored,
		    bool compat)
{
	ssize_t ret;

	nw_enter();
	ret = nw_aio_rw(req, iocb, vectored, compat, false, nw_orig_aio_read);
	nw_exit();
	return ret;
}

ssize_t nw_aio_write(struct kiocb *req, struct iocb *iocb, bool vectored,
		     bool compat)
{
	ssize_t ret;

	nw_enter();
	ret = nw_aio_rw(req, iocb, vectored, compat, true, nw_orig_aio_write);
	nw_exit();
	return ret;
}

/*
 * Before 4.9 one function, aio_run_iocb(), sets up and runs every opcode;
 * it completes a request that did not queue itself and returns 0, or
 * returns an error for a request it never started.
 */
static ssize_t nw_aio_run_subst(struct kiocb *req, unsigned int opcode,
				char __user *buf, size_t len, bool compat)
{
	struct nw_subst *s = (struct nw_subst *)nw_mark_find(&nw_subst_marks);
	bool write = opcode == IOCB_CMD_PWRITE || opcode == IOCB_CMD_PWRITEV;
	nw_addr_limit_t kernel_limit;
	bool deferred;
	ssize_t ret;

	if (likely(!s))
		return nw_orig_aio_run_iocb(req, opcode, buf, len, compat);
	ret = nw_aio_begin(req, s, write, &deferred);
	if (ret)
		return ret;
	kernel_limit = get_fs();
	nw_addr_limit_restore(s->user_limit);
	ret = nw_orig_aio_run_iocb(req, opcode, buf, len, compat);
	nw_addr_limit_restore(kernel_limit);
	nw_aio_end(req, deferred, ret);
	return ret;
}

ssize_t nw_aio_run_iocb(struct kiocb *req, unsigned int opcode,
			char __user *buf, size_t len, bool compat)
{
	ssize_t ret;

	nw_enter();
	ret = nw_aio_run_subst(req, opcode, buf, len, compat);
	nw_exit();
	return ret;
}

/*
 * 4.14's io_submit_one() checks, in this order, for an iocb with flags:
 * aio_reserved2, overflow, (request slot), fd, eventfd, kiocb_set_rw_flags()
 * (unknown bit, or NOWAIT on a file without FMODE_NOWAIT: EOPNOTSUPP), the
 * aio_key store (EFAULT), the opcode.  Returns 0 when the iocb may go on.
 */
static int nw_check_iocb(struct iocb *iocb, struct iocb __user *uptr)
{
	unsigned int flags = NW_IOCB_RW_FLAGS(iocb);
	struct file *file;
	int ret = 0;

	if (iocb->aio_reserved2)
		return -EINVAL;
	if (iocb->aio_buf != (unsigned long)iocb->aio_buf ||
	    iocb->aio_nbytes != (size_t)iocb->aio_nbytes ||
	    (ssize_t)iocb->aio_nbytes < 0)
		return -EINVAL;
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
	if (flags & ~NW_RWF_SUPPORTED) {
		nw_count(NW_CNT_EOPNOTSUPP);
		ret = -EOPNOTSUPP;
		goto out;
	}
	if ((flags & RWF_NOWAIT) && !nw_file_nowait_capable(file)) {
		nw_count(NW_CNT_EOPNOTSUPP);
		ret = -EOPNOTSUPP;
		goto out;
	}
	if (put_user(KIOCB_KEY, &uptr->aio_key))
		ret = -EFAULT;
out:
	fput(file);
	return ret;
}

/* Submit the one iocb at @uptr that carries flags.  Returns 1 or -errno. */
static long nw_submit_flagged(aio_context_t ctx_id,
			      struct iocb __user *uptr, struct iocb *copy,
			      bool compat)
{
	struct iocb kcopy = *copy;
	struct iocb __user *ptrs[1];
	struct nw_subst s = {
		.flags = NW_IOCB_RW_FLAGS(copy),
		.kcopy = &kcopy,
		.uptr = uptr,
	};
	long ret;

	/* an invalid context is reported before anything about the iocb */
	ret = nw_orig_do_io_submit(ctx_id, 0, NULL, compat);
	if (ret)
		return ret;
	ret = nw_check_iocb(copy, uptr);
	if (ret == -EINVAL)
		nw_count(NW_CNT_EINVAL);
	if (ret)
		return ret;

	ret = nw_demand_get();
	if (ret)
		return ret;
	NW_IOCB_RW_FLAGS(&kcopy) = 0;
	ptrs[0] = (struct iocb __user *)&kcopy;
	nw_mark_push(&nw_subst_marks, &s.mark);
	s.user_limit = nw_kernel_ds_enter();
	ret = nw_orig_do_io_submit(ctx_id, 1,
				   (struct iocb __user *__user *)ptrs, compat);
	nw_addr_limit_restore(s.user_limit);
	nw_mark_pop(&nw_subst_marks, &s.mark);
	nw_demand_put();
	return ret;
}

long nw_do_io_submit(aio_context_t ctx_id, long nr,
		     struct iocb __user *__user *iocbpp, bool compat)
{
	long done = 0, ret;

	nw_enter();
	ret = nw_orig_do_io_submit(ctx_id, nr, iocbpp, compat);
	if (likely(ret == nr) || nr <= 0 || !READ_ONCE(nw_enabled))
		goto out;

	for (;;) {
		struct iocb __user *uptr;
		struct iocb copy;
		long idx = done + (ret > 0 ? ret : 0);

		/* the kernel stopped at iocb idx: is it one with flags? */
		if (get_user(uptr, iocbpp + idx) ||
		    copy_from_user(&copy, uptr, sizeof(copy)) ||
		    !NW_IOCB_RW_FLAGS(&copy)) {
			ret = idx ? idx : ret;
			break;
		}
		ret = nw_submit_flagged(ctx_id, uptr, &copy, compat);
		if (ret != 1) {
			ret = idx ? idx : ret;
			break;
		}
		done = idx + 1;
		if (done >= nr) {
			ret = nr;
			break;
		}
		ret = nw_orig_do_io_submit(ctx_id, nr - done, iocbpp + done,
					   compat);
		if (ret == nr - done) {
			ret = nr;
			break;
		}
	}
out:
	nw_exit();
	return ret;
}
