// SPDX-License-Identifier: GPL-2.0
/*
 * block.*: the block layer's part of no-wait AIO.
 *
 * Upstream rule (4.13 patch "fs: return on congested block device"): a
 * NOWAIT request must not sleep for a free request or tag; it fails with
 * EAGAIN instead, and the refusal reaches the application as EAGAIN, not EIO.
 * Raw block-device direct I/O only set REQ_NOWAIT from 5.10 on (f8b78caf21d5
 * "block: don't ignore REQ_NOWAIT for direct IO"); native 4.14 waits there.
 * The module ships that fixed behaviour.
 *
 * The queue is null_blk with timer completions (irqmode=2) of 1 s.  blk-mq:
 * hardware queue depth 2 and no I/O scheduler, so two plain writes take
 * every tag.  Legacy: nr_requests 4, of which the filling task may take
 * 3/2 as a "batcher", so six plain writes exhaust it.  Then a NOWAIT write
 * must come back with EAGAIN at once.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <linux/dm-ioctl.h>
#include <linux/fs.h>
#include <linux/major.h>
#include <linux/raid/md_u.h>
#include <linux/raid/md_p.h>
#include <pthread.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include "nwconf.h"

/*
 * null_blk completes each request this long after it was queued, so a
 * queue filled at t0 stays full until t0 + the window.  A slow kernel (a
 * debug build under emulation) may take longer than that to get from the
 * filling writes to the NOWAIT one; the case then runs again with a window
 * four times as long, so that the queue is known to be full.  Before the
 * filling writes, one NOWAIT write to the idle device puts the module's
 * per-request hooks in (its first flagged request waits for them: seconds
 * on a debug kernel), as an application that uses NOWAIT has them.
 */
#define COMPLETION_NSEC 1000000000L
#define COMPLETION_NSEC_MAX 16000000000L

static int load_nullblk(struct nw_ctx *c, int queue_mode, long nsec)
{
	char cmd[256];
	int fd;

	if (system("modprobe -r null_blk >/dev/null 2>&1; true"))
		return -1;
	snprintf(cmd, sizeof(cmd),
		 "modprobe null_blk queue_mode=%d irqmode=2 completion_nsec=%ld "
		 "hw_queue_depth=2 nr_devices=1 gb=1 >/dev/null 2>&1",
		 queue_mode, nsec);
	if (system(cmd)) {
		nw_skip(c, "null_blk cannot be loaded with queue_mode=%d here",
			queue_mode);
		return -1;
	}
	if (system("echo none > /sys/block/nullb0/queue/scheduler 2>/dev/null; true"))
		return -1;
	fd = open("/dev/nullb0", O_RDWR | O_DIRECT);
	if (fd < 0)
		nw_fail(c, "open /dev/nullb0: ok vs errno %d", errno);
	return fd;
}

static double now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

#define MAX_FILL 6

/* Returns 1 when the window was too short to know the queue was full. */
static int queue_full_window(struct nw_ctx *c, int queue_mode, long window)
{
	io_context_t ctx = 0;
	struct iocb cb[MAX_FILL + 1], *cbs[MAX_FILL + 1];
	struct io_event ev[MAX_FILL + 1];
	int fill = queue_mode == 1 ? 6 : 2;
	struct timespec ts = { .tv_sec = 10 + window / 1000000000L };
	void *b = nw_buf(NW_BS, 0x33);
	long submit, got = 0;
	double tf, t0, t1;
	int fd, n, i, again = 0;

	fd = load_nullblk(c, queue_mode, window);
	if (fd < 0)
		return 0;
	if (io_setup(8, &ctx)) {
		nw_fail(c, "io_setup: ok vs failed");
		goto out;
	}
	if (queue_mode == 1 &&
	    system("echo 4 > /sys/block/nullb0/queue/nr_requests"))
		nw_fail(c, "set nr_requests: ok vs failed");
	/* far apart, so that no two merge into one request */
	for (i = 0; i <= fill; i++) {
		cbs[i] = &cb[i];
		io_prep_pwrite(&cb[i], fd, b, NW_BS, (off_t)i << 20);
		cb[i].data = (void *)(long)(i + 1);
	}
	cb[fill].aio_rw_flags = RWF_NOWAIT;
	/* warm-up, result ignored (a stock kernel refuses the flag) */
	if (io_submit(ctx, 1, &cbs[fill]) == 1)
		io_getevents(ctx, 1, 1, ev, &ts);
	tf = now_ms();
	submit = io_submit(ctx, fill, cbs);
	if (!nw_expect_res(c, "io_submit of the filling writes", fill, submit))
		goto out_ctx;
	t0 = now_ms();
	submit = io_submit(ctx, 1, &cbs[fill]);
	t1 = now_ms();
	/*
	 * Was the queue still full when the NOWAIT write went in?  (A margin
	 * of a fifth for the timer and the clock.  The NOWAIT call's own
	 * time does not count: a kernel that waits for a tag there is what
	 * the case detects.)
	 */
	if (t0 - tf > window / 1000000 * 0.8 && window < COMPLETION_NSEC_MAX) {
		printf("# %s: %.0f ms from the filling writes to the NOWAIT one, of a %ld ms window: again with %ld ms\n",
		       c->id, t0 - tf, window / 1000000, window / 250000);
		again = 1;
		/* collect every event before the context goes */
		while (submit == 1 && got < fill + 1 &&
		       (n = io_getevents(ctx, 1, fill + 1, ev, &ts)) > 0)
			got += n;
		while (submit != 1 && got < fill &&
		       (n = io_getevents(ctx, 1, fill, ev, &ts)) > 0)
			got += n;
		goto out_ctx;
	}
	{
		char cnt[32] = "-";
		FILE *f = fopen(NOWAIT_AIO_SYSFS "/eagain_congestion", "r");

		if (f) {
			if (!fgets(cnt, sizeof(cnt), f))
				snprintf(cnt, sizeof(cnt), "?");
			cnt[strcspn(cnt, "\n")] = 0;
			fclose(f);
		}
		printf("# %s: NOWAIT io_submit on a full queue took %.1f ms (completion_nsec %ld ms); module eagain_congestion %s\n",
		       c->id, t1 - t0, window / 1000000, cnt);
	}
	fflush(stdout);
	/* the refusal is a completion, like every ->write_iter error */
	if (!nw_expect_res(c, "io_submit", 1, submit))
		goto out_ctx;
	while (got < fill + 1) {
		n = io_getevents(ctx, 1, fill + 1, ev, &ts);
		if (n <= 0)
			break;
		for (i = 0; i < n; i++) {
			if (ev[i].data == (void *)(long)(fill + 1))
				nw_expect_res(c, "NOWAIT event res", -EAGAIN,
					      (long)ev[i].res);
			else
				nw_expect_res(c, "plain write res", NW_BS,
					      (long)ev[i].res);
		}
		got += n;
	}
	if (c->failed)
		goto out_ctx;
	/* the queue has drained: the same NOWAIT write now goes through */
	submit = io_submit(ctx, 1, &cbs[fill]);
	if (nw_expect_res(c, "io_submit after drain", 1, submit) &&
	    io_getevents(ctx, 1, 1, ev, &ts) == 1)
		nw_expect_res(c, "event res after drain", NW_BS, (long)ev[0].res);
out_ctx:
	io_destroy(ctx);
out:
	close(fd);
	if (system("modprobe -r null_blk >/dev/null 2>&1; true"))
		return again;
	return again;
}

static void queue_full(struct nw_ctx *c, int queue_mode)
{
	long window = COMPLETION_NSEC;

	nw_fixed_in(c, KV(5, 10, 0),
		    "f8b78caf21d5 block: don't ignore REQ_NOWAIT for direct IO");
	while (queue_full_window(c, queue_mode, window) && !c->failed)
		window *= 4;
}

static void queue_full_mq(struct nw_ctx *c)
{
	queue_full(c, 2);
}

static void queue_full_legacy(struct nw_ctx *c)
{
	if (nw_native(c) && nw_kver_ge(c, KV(5, 0, 0))) {
		nw_skip(c, "the legacy request path was removed in 5.0");
		return;
	}
	if (c->env->kver < KV(4, 4, 0)) {
		/* seen with and without the module (issue #14) */
		nw_skip(c, "RHEL 7.9's null_blk strands a legacy queue's timer-completed requests (io_destroy hangs, also without the module)");
		return;
	}
	queue_full(c, 1);
}

/* null_blk with default completions, @n devices */
static int load_plain_nullblk(struct nw_ctx *c, int n)
{
	char cmd[200];

	if (system("modprobe -r null_blk >/dev/null 2>&1; true"))
		return -1;
	snprintf(cmd, sizeof(cmd),
		 "modprobe null_blk nr_devices=%d gb=1 >/dev/null 2>&1", n);
	if (system(cmd)) {
		nw_skip(c, "null_blk cannot be loaded here");
		return -1;
	}
	return 0;
}

static int dm_ioctl_cmd(int ctl, unsigned long cmd, struct dm_ioctl *io,
			size_t size, const char *name)
{
	io->version[0] = DM_VERSION_MAJOR;
	io->version[1] = 0;
	io->version[2] = 0;
	io->data_size = size;
	io->data_start = sizeof(*io);
	snprintf(io->name, sizeof(io->name), "%s", name);
	return ioctl(ctl, cmd, io);
}

/* dm-linear "nwlinear" over @dev (whole device, @sectors long) */
static int dm_linear_create(struct nw_ctx *c, const char *dev,
			    unsigned long long sectors, char *node, size_t len)
{
	char buf[sizeof(struct dm_ioctl) + sizeof(struct dm_target_spec) + 64];
	struct dm_ioctl *io = (struct dm_ioctl *)buf;
	struct dm_target_spec *t = (struct dm_target_spec *)(io + 1);
	struct stat st;
	int ctl;

	if (stat(dev, &st))
		return -1;
	if (system("modprobe dm_mod >/dev/null 2>&1; true"))
		return -1;
	ctl = open("/dev/mapper/control", O_RDWR);
	if (ctl < 0) {
		nw_skip(c, "no device-mapper control device");
		return -1;
	}
	memset(buf, 0, sizeof(buf));
	if (dm_ioctl_cmd(ctl, DM_DEV_CREATE, io, sizeof(*io), "nwlinear")) {
		nw_fail(c, "DM_DEV_CREATE: ok vs errno %d", errno);
		goto err;
	}
	memset(buf, 0, sizeof(buf));
	io->target_count = 1;
	t->sector_start = 0;
	t->length = sectors;
	snprintf(t->target_type, sizeof(t->target_type), "linear");
	snprintf((char *)(t + 1), 64, "%u:%u 0", major(st.st_rdev),
		 minor(st.st_rdev));
	if (dm_ioctl_cmd(ctl, DM_TABLE_LOAD, io, sizeof(buf), "nwlinear")) {
		nw_fail(c, "DM_TABLE_LOAD: ok vs errno %d", errno);
		goto err_remove;
	}
	memset(buf, 0, sizeof(buf));
	if (dm_ioctl_cmd(ctl, DM_DEV_SUSPEND, io, sizeof(*io), "nwlinear")) {
		nw_fail(c, "DM resume: ok vs errno %d", errno);
		goto err_remove;
	}
	snprintf(node, len, "/dev/dm-%u", minor(io->dev));
	close(ctl);
	return 0;
err_remove:
	memset(buf, 0, sizeof(buf));
	dm_ioctl_cmd(ctl, DM_DEV_REMOVE, io, sizeof(*io), "nwlinear");
err:
	close(ctl);
	return -1;
}

static void dm_linear_remove(void)
{
	struct dm_ioctl io;
	int ctl = open("/dev/mapper/control", O_RDWR);

	if (ctl < 0)
		return;
	memset(&io, 0, sizeof(io));
	dm_ioctl_cmd(ctl, DM_DEV_REMOVE, &io, sizeof(io), "nwlinear");
	close(ctl);
}

/* md raid0 /dev/md9 (no superblock, like mdadm --build) over @a and @b */
static int md_raid0_create(struct nw_ctx *c, const char *a, const char *b)
{
	mdu_array_info_t array;
	mdu_disk_info_t disk;
	const char *devs[2] = { a, b };
	struct stat st;
	int fd, i;

	if (system("modprobe raid0 >/dev/null 2>&1; true"))
		return -1;
	unlink("/dev/md9");
	if (mknod("/dev/md9", S_IFBLK | 0600, makedev(MD_MAJOR, 9)))
		return -1;
	fd = open("/dev/md9", O_RDWR);
	if (fd < 0) {
		nw_skip(c, "no md driver here (errno %d)", errno);
		return -1;
	}
	memset(&array, 0, sizeof(array));
	array.level = 0;
	array.nr_disks = 2;
	array.raid_disks = 2;
	array.md_minor = 9;
	array.not_persistent = 1;
	array.chunk_size = 65536;
	if (ioctl(fd, SET_ARRAY_INFO, &array)) {
		nw_fail(c, "SET_ARRAY_INFO: ok vs errno %d", errno);
		goto err;
	}
	for (i = 0; i < 2; i++) {
		if (stat(devs[i], &st))
			goto err;
		memset(&disk, 0, sizeof(disk));
		disk.number = i;
		disk.raid_disk = i;
		disk.state = (1 << MD_DISK_SYNC) | (1 << MD_DISK_ACTIVE);
		disk.major = major(st.st_rdev);
		disk.minor = minor(st.st_rdev);
		if (ioctl(fd, ADD_NEW_DISK, &disk)) {
			nw_fail(c, "ADD_NEW_DISK: ok vs errno %d", errno);
			goto err_stop;
		}
	}
	if (ioctl(fd, RUN_ARRAY, 0UL)) {
		nw_fail(c, "RUN_ARRAY: ok vs errno %d", errno);
		goto err_stop;
	}
	close(fd);
	return 0;
err_stop:
	ioctl(fd, STOP_ARRAY, 0UL);
err:
	close(fd);
	return -1;
}

static void md_stop(void)
{
	int fd = open("/dev/md9", O_RDWR);

	if (fd >= 0) {
		ioctl(fd, STOP_ARRAY, 0UL);
		close(fd);
	}
}

/*
 * A NOWAIT direct write to a stacked device: EOPNOTSUPP (the 4.13 series:
 * only request-based queues take REQ_NOWAIT), and plain I/O through it is
 * unaffected.  Native kernels before 5.10 set no REQ_NOWAIT on raw
 * block-device DIO, so there the NOWAIT write simply completes; from 5.10
 * on dm-linear (DM_TARGET_NOWAIT) and md over NOWAIT members (5.12) take
 * it and complete too.  The module keeps the series' rule.
 */
static void stacked_write(struct nw_ctx *c, const char *node)
{
	void *b = nw_buf(NW_BS, 0x66);
	long want;
	int fd = open(node, O_RDWR | O_DIRECT);

	if (fd < 0) {
		nw_fail(c, "open %s: ok vs errno %d", node, errno);
		return;
	}
	/*
	 * The partition scan that ran when the device appeared left pages
	 * in its page cache; drop them, or a native kernel refuses for that.
	 */
	if (ioctl(fd, BLKFLSBUF, 0))
		nw_fail(c, "BLKFLSBUF: ok vs errno %d", errno);
	want = nw_native(c) ? NW_BS : -EOPNOTSUPP;
	nw_expect_res(c, "plain pwrite", NW_BS, pwrite(fd, b, NW_BS, 0) < 0 ?
		      -errno : NW_BS) &&
	nw_expect_rwf(c, "NOWAIT pwritev2", want,
		      nw_pwritev2(fd, b, NW_BS, NW_BS, RWF_NOWAIT)) &&
	nw_expect_res(c, "plain pwrite after", NW_BS,
		      pwrite(fd, b, NW_BS, 2 * NW_BS) < 0 ? -errno : NW_BS);
	if (!c->failed) {
		struct nw_aio_res r = nw_aio_rw(fd, IO_CMD_PWRITE, b, NW_BS,
						 3 * NW_BS, RWF_NOWAIT);

		nw_expect_res(c, "io_submit", 1, r.submit) &&
		nw_expect_res(c, "NOWAIT event res", want, r.res);
	}
	close(fd);
	free(b);
}

static void stacked_dm_linear(struct nw_ctx *c)
{
	char node[64];

	if (load_plain_nullblk(c, 1))
		return;
	if (dm_linear_create(c, "/dev/nullb0", 1ULL << 21, node, sizeof(node)))
		goto out;
	stacked_write(c, node);
	dm_linear_remove();
out:
	if (system("modprobe -r null_blk >/dev/null 2>&1; true"))
		return;
}

static void stacked_md_raid0(struct nw_ctx *c)
{
	if (load_plain_nullblk(c, 2))
		return;
	if (md_raid0_create(c, "/dev/nullb0", "/dev/nullb1"))
		goto out;
	stacked_write(c, "/dev/md9");
	md_stop();
out:
	if (system("modprobe -r null_blk >/dev/null 2>&1; true"))
		return;
}

/*
 * A real I/O error stays EIO: every bio to the device fails
 * (fail_make_request), and the NOWAIT write reports EIO, never EAGAIN.
 */
static void real_error_eio(struct nw_ctx *c)
{
	void *b = nw_buf(NW_BS, 0x77);
	struct nw_aio_res r;
	int fd;

	if (access("/sys/kernel/debug/fail_make_request/probability", W_OK)) {
		nw_skip(c, "this kernel has no fail_make_request fault injection");
		return;
	}
	if (load_plain_nullblk(c, 1))
		return;
	fd = open("/dev/nullb0", O_RDWR | O_DIRECT);
	if (fd < 0) {
		nw_fail(c, "open /dev/nullb0: ok vs errno %d", errno);
		goto out;
	}
	{
		static const char *const steps[] = {
			"echo 100 > /sys/kernel/debug/fail_make_request/probability",
			"echo 100000 > /sys/kernel/debug/fail_make_request/times",
			"echo 0 > /sys/kernel/debug/fail_make_request/verbose",
			"echo 1 > /sys/block/nullb0/make-it-fail",
		};
		unsigned int i;

		for (i = 0; i < sizeof(steps) / sizeof(steps[0]); i++) {
			if (system(steps[i])) {
				nw_fail(c, "fault injection setup (%s): ok vs failed",
					steps[i]);
				goto out;
			}
		}
	}
	r = nw_aio_rw(fd, IO_CMD_PWRITE, b, NW_BS, 0, RWF_NOWAIT);
	nw_expect_res(c, "io_submit", 1, r.submit) &&
	nw_expect_res(c, "NOWAIT event res", -EIO, r.res) &&
	nw_expect_rwf(c, "NOWAIT pwritev2", -EIO,
		      nw_pwritev2(fd, b, NW_BS, 0, RWF_NOWAIT));
	if (system("echo 0 > /sys/block/nullb0/make-it-fail; "
		   "echo 0 > /sys/kernel/debug/fail_make_request/probability"))
		nw_fail(c, "fault injection teardown: ok vs failed");
out:
	if (fd >= 0)
		close(fd);
	if (system("modprobe -r null_blk >/dev/null 2>&1; true"))
		return;
}

/*
 * A filesystem on a busy device: the queue is cut to 4 requests and four
 * threads keep it full with plain 1 MiB direct writes, while NOWAIT direct
 * overwrites of 64 KiB go on.  Each must either complete (all new bytes)
 * or get EAGAIN (all old bytes): never EIO, never a partial write.
 */
struct busy {
	int fd;
	volatile int stop;
};

static void *busy_writer(void *p)
{
	struct busy *bz = p;
	void *b = nw_buf(1 << 20, 0x44);
	off_t off = 0;

	while (!bz->stop) {
		if (pwrite(bz->fd, b, 1 << 20, off) < 0)
			break;
		off = (off + (1 << 20)) % (8 << 20);
	}
	free(b);
	return NULL;
}

static void busy_device(struct nw_ctx *c)
{
	char q[320], old[32] = "", line[512], dev[256] = "";
	struct busy bz = { .fd = -1 };
	pthread_t th[4];
	unsigned char *rb = nw_buf(65536, 0);
	int fd, i, n_ok = 0, n_again = 0;
	double t0;
	int slot_pat[8] = { 0x11, 0x11, 0x11, 0x11, 0x11, 0x11, 0x11, 0x11 };
	FILE *f;

	/*
	 * btrfs's own DIO completion turned a REQ_NOWAIT bio's EAGAIN into
	 * EIO until btrfs moved to iomap DIO, which sets no REQ_NOWAIT.
	 */
	if (c->fs == NW_BTRFS)
		nw_fixed_in(c, KV(5, 9, 0),
			    "f85781fb505e btrfs: switch to iomap for direct IO");
	fd = nw_make_file(c, "busy-target.dat", 1 << 20, 1 << 20,
			  c->fs == NW_BTRFS ? -0x11 : 0x11);
	if (fd < 0)
		return;
	/* the disk under the mount (btrfs reports an anonymous st_dev) */
	f = fopen("/proc/mounts", "r");
	while (f && fgets(line, sizeof(line), f)) {
		char src[256], mnt[256];

		if (sscanf(line, "%255s %255s", src, mnt) == 2 &&
		    !strcmp(mnt, c->env->mnt[c->fs]) && !strncmp(src, "/dev/", 5))
			snprintf(dev, sizeof(dev), "%s", src + 5);
	}
	if (f)
		fclose(f);
	bz.fd = nw_make_file(c, "busy-load.dat", 8 << 20, 8 << 20, 0x22);
	if (bz.fd < 0)
		return;
	snprintf(q, sizeof(q), "/sys/block/%s/queue/nr_requests", dev);
	f = fopen(q, "r");
	if (!f || !fgets(old, sizeof(old), f)) {
		nw_skip(c, "no %s", q);
		return;
	}
	fclose(f);
	f = fopen(q, "w");
	if (f) {
		/*
		 * 4.9 and 4.10's sbitmap lacks 4.11's 6c0ca7ae292a ("sbitmap:
		 * fix wakeup hang after sbq resize"; 4.9.337 still does): a
		 * smaller tag depth shrinks the wake batch but not the wait
		 * counts already armed, and tasks waiting for a tag can then
		 * wait for ever with nothing in flight (seen on 4.9.337 at
		 * -smp 4: btrfs's bio submitter in bt_get(), the disk idle).
		 * 64 tags keep the batch of 8 that 256 had.  4.4's own tag
		 * code has the same flaw: bt_update_count() shrinks wake_cnt
		 * and leaves the armed wait_cnt alone (seen on 4.4.220 once
		 * btrfs was offered there: btrfs's submit worker in bt_get(),
		 * every disk with nothing in flight).
		 */
		fputs(c->env->kver < KV(4, 11, 0) ? "64" : "4", f);
		fclose(f);
	}
	for (i = 0; i < 4; i++)
		pthread_create(&th[i], NULL, busy_writer, &bz);
	/*
	 * 150 writes, or as many as 20 s allow (at least 10) on a slow
	 * kernel, to stay well inside the case's time limit
	 */
	t0 = now_ms();
	for (i = 0; i < 150 && !c->failed &&
	     (i < 10 || now_ms() - t0 < 20000); i++) {
		int slot = i % 8, next = slot_pat[slot] ^ 0x03, j;
		void *wb = nw_buf(65536, next);
		struct nw_aio_res r = nw_aio_rw(fd, IO_CMD_PWRITE, wb, 65536,
						 slot * 65536, RWF_NOWAIT);

		free(wb);
		if (r.submit != 1) {
			nw_expect_res(c, "io_submit", 1, r.submit);
			break;
		}
		if (r.res != 65536 && r.res != -EAGAIN) {
			nw_fail(c, "event res: 65536 or EAGAIN vs %ld", r.res);
			break;
		}
		if (r.res == 65536) {
			slot_pat[slot] = next;
			n_ok++;
		} else {
			n_again++;
		}
		if (pread(fd, rb, 65536, slot * 65536) != 65536) {
			nw_fail(c, "read back: ok vs errno %d", errno);
			break;
		}
		for (j = 0; j < 65536 && rb[j] == slot_pat[slot]; j++)
			;
		if (j < 65536)
			nw_fail(c, "bytes after %s: 0x%02x vs 0x%02x at %d",
				r.res == 65536 ? "completion" : "EAGAIN",
				slot_pat[slot], rb[j], j);
	}
	bz.stop = 1;
	for (i = 0; i < 4; i++)
		pthread_join(th[i], NULL);
	f = fopen(q, "w");
	if (f) {
		fputs(old, f);
		fclose(f);
	}
	printf("# %s: %d NOWAIT writes completed, %d got EAGAIN\n", c->id,
	       n_ok, n_again);
	close(bz.fd);
	close(fd);
}

/*
 * RWF_DSYNC and RWF_SYNC in aio_rw_flags on an asynchronous direct write
 * to a raw block device (4.14's kiocb_set_rw_flags() takes them on any
 * file; 4.4 has no per-request sync flag, so the module carries them in
 * its block-device write hook).  With and without RWF_NOWAIT, on an idle
 * null_blk device.
 */
static void raw_dsync(struct nw_ctx *c)
{
	static const int flags[] = { RWF_DSYNC, RWF_SYNC,
				     RWF_NOWAIT | RWF_DSYNC };
	void *b = nw_buf(NW_BS, 0x5d);
	struct nw_aio_res r;
	char what[64];
	unsigned int i;
	int fd = load_nullblk(c, 2, 1000000);

	if (fd < 0)
		return;
	/* the first flagged request may find the module's hooks out */
	nw_aio_rw(fd, IO_CMD_PWRITE, b, NW_BS, 0, RWF_NOWAIT);
	for (i = 0; i < sizeof(flags) / sizeof(flags[0]); i++) {
		r = nw_aio_rw(fd, IO_CMD_PWRITE, b, NW_BS, 0, flags[i]);
		snprintf(what, sizeof(what), "flags 0x%x: io_submit", flags[i]);
		if (!nw_expect_res(c, what, 1, r.submit))
			break;
		snprintf(what, sizeof(what), "flags 0x%x: event res", flags[i]);
		if (!nw_expect_res(c, what, NW_BS, r.res))
			break;
	}
	close(fd);
	if (system("modprobe -r null_blk >/dev/null 2>&1; true"))
		return;
}

/* Writes the device has completed (/sys/block/<dev>/stat, field 5). */
static long writes_done(const char *dev)
{
	char p[96];
	long f[5] = { -1, -1, -1, -1, -1 };
	FILE *st;

	snprintf(p, sizeof(p), "/sys/block/%s/stat", dev);
	st = fopen(p, "r");
	if (!st)
		return -1;
	if (fscanf(st, "%ld %ld %ld %ld %ld", &f[0], &f[1], &f[2], &f[3],
		   &f[4]) != 5)
		f[4] = -1;
	fclose(st);
	return f[4];
}

/*
 * "EAGAIN means nothing written" (67d59247d4b5, 5.16: a NOWAIT raw-device
 * write that needs more than one bio is refused before the first one):
 * with one free tag and merging off, a NOWAIT write of two iovec segments
 * (two bios before 4.19, one from 4.19 on) either completes in full, or
 * gets EAGAIN and the device completed no write of it.
 */
static void raw_multi_segment(struct nw_ctx *c)
{
	struct timespec ts = { .tv_sec = 20 };
	char *b = nw_buf(2 * NW_BS, 0x5e);
	struct iovec iov[2] = { { b, NW_BS }, { b + NW_BS, NW_BS } };
	struct iocb fill, cb, *cbs[1];
	struct io_event ev[2];
	io_context_t ctx = 0;
	long w0, w1, res = NW_NO_EVENT, n, got = 0;
	int fd = load_nullblk(c, 2, COMPLETION_NSEC);

	if (fd < 0)
		return;
	if (system("echo 2 > /sys/block/nullb0/queue/nomerges") ||
	    io_setup(4, &ctx)) {
		nw_fail(c, "nomerges=2 and io_setup: ok vs failed");
		goto out;
	}
	/* the module's per-request hooks in: one NOWAIT write, idle device */
	nw_aio_rw(fd, IO_CMD_PWRITE, b, NW_BS, 0, RWF_NOWAIT);
	io_prep_pwrite(&fill, fd, b, NW_BS, 1 << 20);
	cbs[0] = &fill;
	if (!nw_expect_res(c, "the filling write", 1, io_submit(ctx, 1, cbs)))
		goto out_ctx;
	w0 = writes_done("nullb0");
	io_prep_pwritev(&cb, fd, iov, 2, 0);
	cb.aio_rw_flags = RWF_NOWAIT;
	cbs[0] = &cb;
	if (!nw_expect_res(c, "io_submit", 1, io_submit(ctx, 1, cbs)))
		goto out_ctx;
	while (got < 2 && (n = io_getevents(ctx, 1, 2, ev, &ts)) > 0) {
		if (ev[0].obj == &cb)
			res = (long)ev[0].res;
		if (n > 1 && ev[1].obj == &cb)
			res = (long)ev[1].res;
		got += n;
	}
	w1 = writes_done("nullb0");
	printf("# %s: NOWAIT 2-segment write with one free tag: %ld; device writes completed %ld -> %ld\n",
	       c->id, res, w0, w1);
	if (res != 2 * NW_BS &&
	    nw_expect_res(c, "event res (complete, or EAGAIN)", -EAGAIN, res))
		nw_expect_res(c, "writes the device completed besides the filling one",
			      0, w1 - w0 - 1);
out_ctx:
	io_destroy(ctx);
out:
	close(fd);
	if (system("modprobe -r null_blk >/dev/null 2>&1; true"))
		return;
}

/*
 * 4.14's generic_file_direct_write(): a NOWAIT direct write to a raw
 * block device whose range has page-cache pages (here a dirty one) gets
 * EAGAIN, rather than writing the page back and waiting for it.
 */
static void raw_dirty_page(struct nw_ctx *c)
{
	char *b = nw_buf(NW_BS, 0x5f), *d = nw_buf(NW_BS, 0);
	struct nw_aio_res r;
	int bfd = -1, fd = -1;

	if (system("modprobe loop 2>/dev/null; rm -f /tmp/nwraw.img; "
		   "dd if=/dev/zero of=/tmp/nwraw.img bs=1M count=8 2>/dev/null && "
		   "losetup /dev/loop7 /tmp/nwraw.img")) {
		nw_skip(c, "no loop device here");
		return;
	}
	bfd = open("/dev/loop7", O_RDWR);
	fd = open("/dev/loop7", O_RDWR | O_DIRECT);
	if (bfd < 0 || fd < 0) {
		nw_fail(c, "open /dev/loop7: ok vs errno %d", errno);
		goto out;
	}
	/* the hooks in, on a clean device */
	nw_aio_rw(fd, IO_CMD_PWRITE, d, NW_BS, NW_BS, RWF_NOWAIT);
	memset(d, 0x60, NW_BS);
	if (pwrite(bfd, d, NW_BS, 0) != NW_BS) {
		nw_fail(c, "buffered write: ok vs errno %d", errno);
		goto out;
	}
	r = nw_aio_rw(fd, IO_CMD_PWRITE, b, NW_BS, 0, RWF_NOWAIT);
	if (nw_expect_res(c, "io_submit", 1, r.submit) &&
	    nw_expect_res(c, "event res over a dirty cached page", -EAGAIN,
			  r.res) && !fsync(bfd))
		nw_expect_content(c, fd, 0, NW_BS, 0x60);
out:
	if (bfd >= 0)
		close(bfd);
	if (fd >= 0)
		close(fd);
	if (system("losetup -d /dev/loop7; rm -f /tmp/nwraw.img"))
		return;
}

const struct nw_case nw_block_cases[] = {
	{ "block.nullblk.queue-full-mq",
	  "blk-mq: a NOWAIT write to a device with no free tag gets EAGAIN", 0,
	  queue_full_mq },
	{ "block.nullblk.queue-full-legacy",
	  "legacy queue: a NOWAIT write with no free request gets EAGAIN", 0,
	  queue_full_legacy },
	{ "block.stacked.dm-linear",
	  "dm-linear: NOWAIT write EOPNOTSUPP with the module (native: completes), plain I/O works",
	  0, stacked_dm_linear },
	{ "block.stacked.md-raid0",
	  "md raid0: NOWAIT write EOPNOTSUPP with the module (native: completes), plain I/O works",
	  0, stacked_md_raid0 },
	{ "block.busy.%s",
	  "a busy device: NOWAIT writes complete or get EAGAIN, never EIO or partial",
	  FS_ALL, busy_device },
	{ "block.raw.dsync",
	  "RWF_DSYNC/RWF_SYNC (also with RWF_NOWAIT) on an async direct write to a raw block device completes", 0,
	  raw_dsync },
	{ "block.raw.multi-segment",
	  "a NOWAIT raw-device write of two segments with one free tag: complete, or EAGAIN with nothing written",
	  0, raw_multi_segment },
	{ "block.raw.dirty-page",
	  "a NOWAIT direct write over a dirty cached page of a raw device: EAGAIN, the page not written back by it",
	  0, raw_dirty_page },
	{ "block.error.eio",
	  "a real I/O error on a NOWAIT write stays EIO, never EAGAIN", 0,
	  real_error_eio },
	{ NULL }
};
