// SPDX-License-Identifier: GPL-2.0
/*
 * preadv2/pwritev2 with RWF_NOWAIT (4.6+).
 *
 * A pre-4.13 kernel rejects RWF_NOWAIT in do_iter_readv_writev() (inlined).
 * For a call that carries RWF_NOWAIT the module runs its own copy of the
 * kernel's __do_readv_writev() (shared by the native and 32-bit compat
 * system calls), with 4.14's kiocb_set_rw_flags() rules; every other call
 * runs the kernel's code after one test of the flags.
 */
#include <linux/fs.h>
#include <linux/fsnotify.h>
#include <linux/uio.h>

#include "rules.h"
#include "hook.h"
#include "demand.h"
#include "parts.h"

/* (4.6+: on older kernels main.c lists no such part, and this is empty) */
#if NW_HAVE_RWF_SYSCALLS

typedef ssize_t (*nw_iter_fn)(struct kiocb *, struct iov_iter *);

static ssize_t (*nw_orig_do_readv_writev)(int, struct file *,
					  struct iov_iter *, loff_t *, int);
static ssize_t (*nw_orig_do_iter_readv_writev)(struct file *,
					       struct iov_iter *, loff_t *,
					       nw_iter_fn, int);
/* int, as the kernel declares it: its errors live in the low 32 bits only */
static int (*nw_rw_verify_area)(int, struct file *, const loff_t *, size_t);

/* 4.14's do_iter_readv_writev() with kiocb_set_rw_flags() */
static ssize_t nw_nowait_iter(struct file *file, struct iov_iter *iter,
			      loff_t *pos, int type, int flags)
{
	struct kiocb kiocb;
	ssize_t ret;

	ret = nw_check_rw_flags(file, flags);
	if (ret)
		return ret;
	init_sync_kiocb(&kiocb, file);
	nw_apply_rw_flags(&kiocb, flags);
	kiocb.ki_pos = *pos;
	if (type == READ)
		ret = file->f_op->read_iter(&kiocb, iter);
	else
		ret = file->f_op->write_iter(&kiocb, iter);
	*pos = kiocb.ki_pos;
	return ret;
}

/* 4.14's __do_readv_writev() for calls that carry RWF_NOWAIT */
static ssize_t nw_readv_writev_nowait(int type, struct file *file,
				      struct iov_iter *iter, loff_t *pos,
				      int flags)
{
	size_t tot_len = iov_iter_count(iter);
	ssize_t ret = 0;

	if (!tot_len)
		goto out;
	ret = nw_rw_verify_area(type, file, pos, tot_len);
	if (ret < 0)
		goto out;
	if (type != READ)
		file_start_write(file);
	if ((type == READ && file->f_op->read_iter) ||
	    (type == WRITE && file->f_op->write_iter)) {
		ret = nw_demand_get();
		if (!ret) {
			ret = nw_nowait_iter(file, iter, pos, type, flags);
			nw_demand_put();
		}
	} else {
		/* do_loop_readv_writev() takes no flag but RWF_HIPRI */
		ret = nw_unsupported();
	}
	if (type != READ)
		file_end_write(file);
out:
	if ((ret + (type == READ)) > 0) {
		if (type == READ)
			fsnotify_access(file);
		else
			fsnotify_modify(file);
	}
	return ret;
}

static ssize_t nw_do_readv_writev(int type, struct file *file,
				  struct iov_iter *iter, loff_t *pos, int flags)
{
	ssize_t ret;

	nw_gate_enter();
	if (likely(!(flags & RWF_NOWAIT)) || !nw_on())
		ret = nw_orig_do_readv_writev(type, file, iter, pos, flags);
	else
		ret = nw_readv_writev_nowait(type, file, iter, pos, flags);
	nw_gate_exit();
	return ret;
}

/*
 * Before 4.10 the kernel's do_iter_readv_writev(), shared by the native and
 * compat entries, builds the kiocb from the flags and calls the file's
 * read_iter/write_iter (@fn): 4.14's kiocb_set_rw_flags() rules go here.
 */
static ssize_t nw_do_iter_readv_writev(struct file *file,
				       struct iov_iter *iter, loff_t *pos,
				       nw_iter_fn fn, int flags)
{
	struct kiocb kiocb;
	ssize_t ret;

	nw_gate_enter();
	if (likely(!(flags & RWF_NOWAIT)) || !nw_on()) {
		ret = nw_orig_do_iter_readv_writev(file, iter, pos, fn, flags);
		goto out;
	}
	ret = nw_check_rw_flags(file, flags);
	if (ret)
		goto out;
	ret = nw_demand_get();
	if (ret)
		goto out;
	init_sync_kiocb(&kiocb, file);
	nw_apply_rw_flags(&kiocb, flags);
	kiocb.ki_pos = *pos;
	ret = fn(&kiocb, iter);
	*pos = kiocb.ki_pos;
	nw_demand_put();
out:
	nw_gate_exit();
	return ret;
}

static struct nw_hook nw_rwf_hooks[] = {
	NW_SYMBOL("rw_verify_area", nw_rw_verify_area,
		  NW_REQUIRED, "preadv2/pwritev2 checks"),
	NW_HOOK("__do_readv_writev", nw_do_readv_writev,
		nw_orig_do_readv_writev, NW_REQUIRED,
		"preadv2/pwritev2: RWF_NOWAIT", .entry = true,
		.gate = true, .has_standin = true,
		/* (type, file, iter, pos, flags: the user's) */
		NW_ARGS(NW_ARG_RW, NW_ARG_KPTR, NW_ARG_KPTR, NW_ARG_KPTR)),
};

/* before 4.10: the per-call kiocb setup is its own function */
static struct nw_hook nw_rwf_standins[] = {
	NW_HOOK("do_iter_readv_writev", nw_do_iter_readv_writev,
		nw_orig_do_iter_readv_writev, NW_REQUIRED,
		"preadv2/pwritev2: RWF_NOWAIT", .entry = true,
		.gate = true,
		/* (file, iter, pos, fn, flags: the user's) */
		NW_ARGS(NW_ARG_KPTR, NW_ARG_KPTR, NW_ARG_KPTR, NW_ARG_KPTR)),
};

const struct nw_part nw_rwf_part = {
	NW_PART_HOOKS(nw_rwf_hooks),
	NW_PART_STANDINS(nw_rwf_standins),
};
#endif /* NW_HAVE_RWF_SYSCALLS */
