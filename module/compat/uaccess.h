/* SPDX-License-Identifier: GPL-2.0 */
/*
 * compat/uaccess.h - the address limit, for a filesystem's fiemap or ioctl
 * answering into the module's own buffer.
 */
#ifndef NOWAIT_AIO_COMPAT_UACCESS_H
#define NOWAIT_AIO_COMPAT_UACCESS_H

#include <linux/uaccess.h>

/*
 * Before set_fs() was removed (5.10), the address limit lets a filesystem's
 * fiemap or FS_IOC_GETFLAGS copy_to_user() into a kernel buffer.  Only
 * around those calls, with the module's own buffer: never around a call
 * that takes a pointer or id a caller chose (test/unit: kernel-ds-regions).
 */
typedef mm_segment_t nw_addr_limit_t;
static inline nw_addr_limit_t nw_kernel_ds_enter(void)
{
	nw_addr_limit_t old = get_fs();

	set_fs(KERNEL_DS);
	return old;
}

static inline void nw_addr_limit_restore(nw_addr_limit_t old)
{
	set_fs(old);
}

#endif /* NOWAIT_AIO_COMPAT_UACCESS_H */
