/* SPDX-License-Identifier: GPL-2.0 WITH Linux-syscall-note */
/*
 * nowait_aio.h - userspace definitions for no-wait AIO (RWF_NOWAIT)
 *
 * Programs built against pre-4.13 kernel headers lack RWF_NOWAIT and the
 * aio_rw_flags name of struct iocb's second word.  This header supplies the
 * upstream values, so that the same source builds on old and new systems.
 * The values are upstream's ABI (include/uapi/linux/fs.h) and never change.
 * The name it cannot supply (a struct's field): where the headers lack it
 * (RHEL/CentOS 7), build with -Daio_rw_flags=aio_reserved1 for
 * <linux/aio_abi.h>, or -Daio_rw_flags=__pad2 for <libaio.h> before libaio
 * 0.3.111: the same word, as the RPM spec does (rpm/nowait-aio.spec).
 */
#ifndef NOWAIT_AIO_UAPI_H
#define NOWAIT_AIO_UAPI_H

#ifndef RWF_HIPRI
#define RWF_HIPRI	0x00000001	/* high priority request, poll if possible */
#endif
#ifndef RWF_DSYNC
#define RWF_DSYNC	0x00000002	/* per-IO O_DSYNC */
#endif
#ifndef RWF_SYNC
#define RWF_SYNC	0x00000004	/* per-IO O_SYNC */
#endif
#ifndef RWF_NOWAIT
#define RWF_NOWAIT	0x00000008	/* per-IO, return -EAGAIN if operation would block */
#endif

/* The flags a 4.13/4.14 kernel (and nowait_aio) accepts. */
#define NOWAIT_AIO_RWF_SUPPORTED \
	(RWF_HIPRI | RWF_DSYNC | RWF_SYNC | RWF_NOWAIT)

/* System call numbers of preadv2/pwritev2 (Linux 4.6+). */
#if defined(__x86_64__) && !defined(__ILP32__)
#ifndef __NR_preadv2
#define __NR_preadv2	327
#endif
#ifndef __NR_pwritev2
#define __NR_pwritev2	328
#endif
#elif defined(__i386__)
#ifndef __NR_preadv2
#define __NR_preadv2	378
#endif
#ifndef __NR_pwritev2
#define __NR_pwritev2	379
#endif
#endif

/* sysfs directory of the backport module, present while it is loaded. */
#define NOWAIT_AIO_SYSFS	"/sys/kernel/nowait_aio"

#endif /* NOWAIT_AIO_UAPI_H */
