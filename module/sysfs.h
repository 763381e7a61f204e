/* SPDX-License-Identifier: GPL-2.0 */
/* sysfs.h - /sys/kernel/nowait_aio/ (sysfs.c) */
#ifndef NW_SYSFS_H
#define NW_SYSFS_H

int nw_sysfs_init(void);
void nw_sysfs_exit(void);

#endif /* NW_SYSFS_H */
