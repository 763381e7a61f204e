/* SPDX-License-Identifier: GPL-2.0 */
/*
 * nwconf - conformance suite for no-wait AIO (RWF_NOWAIT).
 *
 * Every case checks one upstream rule (4.13/4.14 "No wait AIO" series and the
 * later upstream fixes named in the case).  Expected results come from those
 * rules, never from a recorded run.  A case calls the nw_expect_*() helpers;
 * the first mismatch fails it.
 */
#ifndef NWCONF_H
#define NWCONF_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>
#include <libaio.h>
#include "nowait_aio.h"

#define KV(a, b, c)	(((a) << 16) | ((b) << 8) | ((c) > 255 ? 255 : (c)))
#define NW_BS		4096		/* I/O unit used by the cases */
#define NW_UNKNOWN_RWF	0x40000000	/* an RWF_* bit no kernel defines */

enum nw_mode {
	NW_NATIVE,	/* kernel >= 4.13: RWF_NOWAIT is native */
	NW_MODULE,	/* kernel < 4.13 with nowait_aio loaded */
	NW_STOCK,	/* kernel < 4.13 without the module: cases must fail */
};

enum nw_fs { NW_EXT4, NW_XFS, NW_BTRFS, NW_NFS };

struct nw_env {
	unsigned int kver;
	enum nw_mode mode;
	const char *mnt[NW_NFS];	/* mount points of ext4, xfs, btrfs */
	const char *tmpfs;		/* a tmpfs mount */
	const char *p9;			/* a 9p mount (virtio), or NULL */
	const char *scratch;		/* writable dir for misc files */
	int btrfs_off;			/* the module says "fs btrfs off" */
};

struct nw_ctx {
	const struct nw_env *env;
	const char *id;
	enum nw_fs fs;		/* for fs/read cases */
	const char *dir;	/* directory on that filesystem */
	unsigned int fixed_in;	/* upstream fix version, 0 if none */
	const char *fixed_commit;
	int failed;
	int skipped;
	char msg[512];
};

struct nw_case {
	const char *id;		/* "<group>.<area>.<name>"; %s = fs name */
	const char *what;	/* one line: the upstream rule checked */
	unsigned int fsmask;	/* 0: runs once; else bitmask of enum nw_fs */
	void (*fn)(struct nw_ctx *c);
};

#define FS_ALL	((1u << NW_EXT4) | (1u << NW_XFS) | (1u << NW_BTRFS))
#define FS_BIT(f)	(1u << (f))

extern const struct nw_case nw_interface_cases[];
extern const struct nw_case nw_fs_cases[];
extern const struct nw_case nw_read_cases[];
extern const struct nw_case nw_block_cases[];
extern const struct nw_case nw_hostile_cases[];

/* --- result checking --- */
void nw_fail(struct nw_ctx *c, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
void nw_skip(struct nw_ctx *c, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
/* results are byte counts (>= 0) or -errno */
int nw_expect_res(struct nw_ctx *c, const char *what, long want, long got);
int nw_expect_true(struct nw_ctx *c, const char *what, int cond);
void nw_fixed_in(struct nw_ctx *c, unsigned int kver, const char *commit);
const char *nw_res_str(long res, char *buf, size_t len);
const char *nw_fs_name(enum nw_fs fs);
int nw_native(const struct nw_ctx *c);
int nw_kver_ge(const struct nw_ctx *c, unsigned int kv);

/* --- I/O helpers (all return bytes or -errno) --- */
void *nw_buf(size_t len, int pattern);
int nw_open(struct nw_ctx *c, const char *name, int flags);
int nw_make_file(struct nw_ctx *c, const char *name, off_t written_len,
		 off_t size, int pattern);
long nw_pwritev2(int fd, const void *buf, size_t len, off_t off, int flags);
long nw_preadv2(int fd, void *buf, size_t len, off_t off, int flags);
extern int nw_rwf_enosys;	/* a case met a kernel without them (< 4.6) */
int nw_have_rwf_syscalls(void);
int nw_expect_rwf(struct nw_ctx *c, const char *what, long want, long got);
long nw_read_nowait(struct nw_ctx *c, int fd, void *buf, size_t len,
		    off_t off);

struct nw_aio_res {
	long submit;	/* io_submit's return value (count or -errno) */
	long res;	/* completion event's res, or LONG_MIN if no event */
};
#define NW_NO_EVENT	(-999999L)
struct nw_aio_res nw_aio_rw(int fd, int opcode, void *buf, size_t len,
			    off_t off, unsigned int rw_flags);
int nw_aio_submit_raw(struct iocb **iocbs, long nr, long *submit,
		      struct io_event *ev, long nev);

/* snapshot of [0, len) and the size, compared after a refusal */
struct nw_snap {
	off_t size;
	blkcnt_t blocks;
	size_t len;
	unsigned char *data;
};
int nw_snap_take(struct nw_ctx *c, const char *name, struct nw_snap *s);
int nw_expect_unchanged(struct nw_ctx *c, const char *name, struct nw_snap *s);
int nw_expect_content(struct nw_ctx *c, int fd, off_t off, size_t len,
		      int pattern);
void nw_drop_cache(int fd);

/* hold the inode lock of a file: a buffered write blocked on userfaultfd */
struct nw_lockholder;
struct nw_lockholder *nw_hold_inode_lock(struct nw_ctx *c, int buffered_fd,
					 off_t off);
/* hold a direct write in flight (its source buffer faults on userfaultfd) */
struct nw_lockholder *nw_hold_dio(struct nw_ctx *c, int direct_fd, off_t off);
/* hold a FIEMAP whose extent buffer faults (XFS 4.8+: IOLOCK shared) */
struct nw_lockholder *nw_hold_fiemap(struct nw_ctx *c, int fd);
/*
 * Let the holder go by itself after NW_HOLD_WATCHDOG_MS, so that a case
 * whose call waits for it ends (and fails) instead of hanging: 0 or -1.
 */
#define NW_HOLD_WATCHDOG_MS 3000
int nw_release_later(struct nw_lockholder *h);
void nw_release(struct nw_lockholder *h);

/* the module's switches (NW_MODULE), and its per-request hooks out */
int nw_sysfs_rw(const char *name, char *val, size_t len, int write);
int nw_hooks_idle(struct nw_ctx *c);

#endif /* NWCONF_H */
