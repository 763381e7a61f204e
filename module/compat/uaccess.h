/* SPDX-License-Identifier: GPL-2.0 */
/*
 * compat/uaccess.h - reading a kernel copy through copy_from_user.
 */
#ifndef NOWAIT_AIO_COMPAT_UACCESS_H
#define NOWAIT_AIO_COMPAT_UACCESS_H

#include <linux/uaccess.h>

/*
 * Before set_fs() was removed (5.10), the address limit lets copy_from_user
 * read a kernel copy of an iocb.  Used only around the one substituted iocb.
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
