/* SPDX-License-Identifier: GPL-2.0 */
/*
 * compat.h - every kernel-version difference nowait_aio cares about, and
 * every copy of a structure private to the kernel, under module/compat/,
 * one header per topic.  The logic files include this and never test
 * LINUX_VERSION_CODE.  Where a feature can be probed by a macro it
 * defines, it is probed that way (distro kernels backport features);
 * otherwise by version.
 *
 * Version tests compare with x.y.0 boundaries only, so a SUBLEVEL above 255
 * (4.9.337: kbuild clamps it to 255 in LINUX_VERSION_CODE, older trees let
 * it carry into the minor number) cannot move a comparison across a
 * boundary the module cares about.
 *
 *   nowait.h   the no-wait ABI: RWF_* and IOCB_* flags, supported kernels
 *   kiocb.h    the file operations a request goes through, its flags
 *   ftrace.h   ftrace callbacks, kallsyms, waiting out trampolines
 *   module.h   the state of the filesystems' kernel modules
 *   uaccess.h  the address limit, around fiemap and ioctl calls on the
 *              module's own buffers
 *   fs.h       inode locks, the page cache, ext4's and btrfs's private parts
 *   xfs.h      XFS's own IOLOCK before 4.10, its whole-file flush before 4.9
 *   block.h    bios, request allocation, blk-mq tags
 */
#ifndef NOWAIT_AIO_COMPAT_H
#define NOWAIT_AIO_COMPAT_H

#include "nowait.h"
#include "kiocb.h"
#include "ftrace.h"
#include "module.h"
#include "uaccess.h"
#include "fs.h"
#include "block.h"
#include "xfs.h"

#endif /* NOWAIT_AIO_COMPAT_H */
