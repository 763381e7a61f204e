/* SPDX-License-Identifier: GPL-2.0 */
/*
 * compat/nowait.h - the no-wait ABI: which kernels have it, the RWF_* and
 * IOCB_* flags, and where io_submit carries them.
 */
#ifndef NOWAIT_AIO_COMPAT_NOWAIT_H
#define NOWAIT_AIO_COMPAT_NOWAIT_H

#include <linux/aio.h>
#include <linux/aio_abi.h>
#include <linux/fs.h>
#include <linux/version.h>

/*
 * Native no-wait AIO (4.13+) defines IOCB_NOWAIT; such a kernel needs no
 * backport and the module refuses to load there.
 */
#ifdef IOCB_NOWAIT
#define NW_NATIVE_NOWAIT 1
#define NW_IOCB_NOWAIT IOCB_NOWAIT
#else
#define NW_NATIVE_NOWAIT 0
/* upstream's bit; unused by these kernels' ki_flags (IOCB_WRITE is 1 << 6) */
#define NW_IOCB_NOWAIT (1 << 7)
#endif

/*
 * preadv2/pwritev2 and their RWF_* flags arrived in 4.6; before that the
 * kernel's read/write helpers take no flags argument at all, so the
 * module's preadv2 hooks must not be used there.
 */
#ifdef RWF_HIPRI
#define NW_HAVE_RWF_SYSCALLS 1
#else
#define NW_HAVE_RWF_SYSCALLS 0
#endif

/*
 * 4.4 is the oldest upstream kernel the module knows (aio_run_iocb()'s
 * signature, the iov_iter and kiocb flag plumbing), and RHEL/CentOS 7.9's
 * 3.10, whose backports (ftrace's IPMODIFY, blk-mq, the block layer's
 * request allocation) the module relies on there.
 */
#if defined(RHEL_MAJOR) && RHEL_MAJOR == 7
#define NW_RHEL7 1
#define NW_KERNEL_SUPPORTED (RHEL_MINOR >= 9)
#else
#define NW_RHEL7 0
#define NW_KERNEL_SUPPORTED (LINUX_VERSION_CODE >= KERNEL_VERSION(4, 4, 0))
#endif

/* iocb->aio_rw_flags was aio_reserved1 before 4.13 */
#if NW_NATIVE_NOWAIT
#define NW_IOCB_RW_FLAGS(cb) ((cb)->aio_rw_flags)
#else
#define NW_IOCB_RW_FLAGS(cb) ((cb)->aio_reserved1)
#endif

/*
 * A request whose RWF_DSYNC/RWF_SYNC the module carries itself (sync.c);
 * the next ki_flags bit no kernel in range uses.
 */
#define NW_IOCB_DSYNC_DEFERRED (1 << 8)

#ifndef RWF_HIPRI
#define RWF_HIPRI 0x00000001
#endif
#ifndef RWF_DSYNC
#define RWF_DSYNC 0x00000002
#endif
#ifndef RWF_SYNC
#define RWF_SYNC 0x00000004
#endif
#ifndef RWF_NOWAIT
#define RWF_NOWAIT 0x00000008
#endif
#define NW_RWF_SUPPORTED (RWF_HIPRI | RWF_DSYNC | RWF_SYNC | RWF_NOWAIT)

/* Polled I/O (IOCB_HIPRI) arrived in 4.6; before, RWF_HIPRI is a no-op hint. */
#ifdef IOCB_HIPRI
#define NW_IOCB_HIPRI IOCB_HIPRI
#else
#define NW_IOCB_HIPRI 0
#endif

/*
 * Per-request O_DSYNC/O_SYNC (IOCB_DSYNC, IOCB_SYNC) arrived in 4.7; before,
 * only the file's flags make a write synchronous, and the module carries
 * RWF_DSYNC/RWF_SYNC itself for every write (sync.c).
 */
#ifdef IOCB_DSYNC
#define NW_HAVE_IOCB_DSYNC 1
#define NW_IOCB_DSYNC IOCB_DSYNC
#define NW_IOCB_SYNC IOCB_SYNC
#else
#define NW_HAVE_IOCB_DSYNC 0
#define NW_IOCB_DSYNC 0
#define NW_IOCB_SYNC 0
#endif

/*
 * aio_run_iocb(): before 3.11 (RHEL/CentOS 7's 3.10) it takes the request
 * alone, its opcode and buffer on the kiocb; from 3.11 to 4.8 it takes
 * them as arguments (req, opcode, buf, len, compat on 4.4); from 4.9 it is
 * gone (aio_read()/aio_write()).
 */
#define NW_AIO_RUN_IOCB_REQ_ONLY \
	(LINUX_VERSION_CODE < KERNEL_VERSION(3, 11, 0))

/* its arguments, as trust.c checks them (buf and len are the user's) */
#if NW_AIO_RUN_IOCB_REQ_ONLY
#define NW_AIO_RUN_IOCB_ARGS NW_ARGS(NW_ARG_KPTR, NW_ARG_BOOL)
#else
#define NW_AIO_RUN_IOCB_ARGS \
	NW_ARGS(NW_ARG_KPTR, NW_ARG_U16, NW_ARG_ANY, NW_ARG_ANY, NW_ARG_BOOL)
#endif

#endif /* NOWAIT_AIO_COMPAT_NOWAIT_H */
