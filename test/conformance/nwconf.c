// SPDX-License-Identifier: GPL-2.0
/*
 * nwconf - conformance suite runner.
 *
 *   nwconf --list            list case ids
 *   nwconf [GLOB...]         run matching cases (default: all)
 *
 * Output: "ok <id> - <what>", "not ok <id> - <what>: <expected> vs <got>",
 * "skip <id> - <reason>", then "N passed, N failed, N skipped".
 * Each case runs in its own process with a time limit, so a hang or a crash
 * fails that case and the run goes on.
 *
 * Environment: NW_EXT4, NW_XFS, NW_BTRFS (mount points, default /mnt/<fs>),
 * NW_TMPFS, NW_9P, NW_SCRATCH, NW_CASE_TIMEOUT (seconds, default 60).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <fnmatch.h>
#include <limits.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <linux/fs.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <sys/utsname.h>
#include <sys/wait.h>
#include <unistd.h>

#include "nwconf.h"

static const char *const fs_names[] = { "ext4", "xfs", "btrfs" };

const char *nw_fs_name(enum nw_fs fs)
{
	return fs < NW_NFS ? fs_names[fs] : "?";
}

static const char *errname(int e)
{
	switch (e) {
	case EAGAIN: return "EAGAIN";
	case EINVAL: return "EINVAL";
	case EOPNOTSUPP: return "EOPNOTSUPP";
	case EFAULT: return "EFAULT";
	case EBADF: return "EBADF";
	case EIO: return "EIO";
	case ENOSYS: return "ENOSYS";
	case EINTR: return "EINTR";
	case ENOSPC: return "ENOSPC";
	case EPERM: return "EPERM";
	case ENOENT: return "ENOENT";
	case EREMCHG: return "EREMCHG";
	case ETIMEDOUT: return "ETIMEDOUT";
	case ENOTBLK: return "ENOTBLK";
	default: return NULL;
	}
}

const char *nw_res_str(long res, char *buf, size_t len)
{
	const char *n;

	if (res == NW_NO_EVENT) {
		snprintf(buf, len, "no-event");
	} else if (res < 0 && (n = errname((int)-res))) {
		snprintf(buf, len, "%s", n);
	} else if (res < 0) {
		snprintf(buf, len, "errno%ld", -res);
	} else {
		snprintf(buf, len, "%ld", res);
	}
	return buf;
}

void nw_fail(struct nw_ctx *c, const char *fmt, ...)
{
	va_list ap;

	if (c->failed || c->skipped)
		return;
	c->failed = 1;
	va_start(ap, fmt);
	vsnprintf(c->msg, sizeof(c->msg), fmt, ap);
	va_end(ap);
}

void nw_skip(struct nw_ctx *c, const char *fmt, ...)
{
	va_list ap;

	if (c->failed || c->skipped)
		return;
	c->skipped = 1;
	va_start(ap, fmt);
	vsnprintf(c->msg, sizeof(c->msg), fmt, ap);
	va_end(ap);
}

int nw_expect_res(struct nw_ctx *c, const char *what, long want, long got)
{
	char a[32], b[32];

	if (want == got)
		return 1;
	nw_fail(c, "%s: %s vs %s", what, nw_res_str(want, a, sizeof(a)),
		nw_res_str(got, b, sizeof(b)));
	return 0;
}

int nw_expect_true(struct nw_ctx *c, const char *what, int cond)
{
	if (!cond)
		nw_fail(c, "%s: true vs false", what);
	return cond;
}

void nw_fixed_in(struct nw_ctx *c, unsigned int kver, const char *commit)
{
	c->fixed_in = kver;
	c->fixed_commit = commit;
}

int nw_native(const struct nw_ctx *c)
{
	return c->env->mode == NW_NATIVE;
}

/*
 * Version tests for per-kernel expectations.  With the module, the contract
 * is native 4.14's (plus the later fixes the case names), so a module run
 * compares as 4.14.
 */
int nw_kver_ge(const struct nw_ctx *c, unsigned int kv)
{
	unsigned int k = c->env->kver;

	if (c->env->mode != NW_NATIVE)
		k = KV(4, 14, 0);
	return k >= kv;
}

static unsigned int parse_kver(const char *r)
{
	unsigned int a = 0, b = 0, d = 0;

	sscanf(r, "%u.%u.%u", &a, &b, &d);
	return KV(a, b, d);
}

static const char *envdef(const char *name, const char *def)
{
	const char *v = getenv(name);

	return v && *v ? v : def;
}

static int is_mounted_dir(const char *path)
{
	struct stat a, b;
	char parent[PATH_MAX];

	if (!path || stat(path, &a) || !S_ISDIR(a.st_mode))
		return 0;
	snprintf(parent, sizeof(parent), "%s/..", path);
	if (stat(parent, &b))
		return 0;
	return a.st_dev != b.st_dev;
}

/* Does the module's features file have this line start? */
static int features_has(const char *what)
{
	char buf[8192];
	FILE *f = fopen("/sys/kernel/nowait_aio/features", "r");
	int found = 0;

	if (!f)
		return 0;
	while (!found && fgets(buf, sizeof(buf), f))
		found = !strncmp(buf, what, strlen(what));
	fclose(f);
	return found;
}

static void setup_env(struct nw_env *env)
{
	struct utsname u;
	struct stat st;
	int i;
	static const char *const vars[] = { "NW_EXT4", "NW_XFS", "NW_BTRFS" };
	static const char *const defs[] = { "/mnt/ext4", "/mnt/xfs", "/mnt/btrfs" };

	uname(&u);
	env->kver = parse_kver(u.release);
	if (env->kver >= KV(4, 13, 0))
		env->mode = NW_NATIVE;
	else if (stat("/sys/module/nowait_aio", &st) == 0)
		env->mode = NW_MODULE;
	else
		env->mode = NW_STOCK;
	env->btrfs_off = env->mode == NW_MODULE && features_has("fs btrfs off");
	for (i = 0; i < NW_NFS; i++) {
		const char *m = envdef(vars[i], defs[i]);

		env->mnt[i] = is_mounted_dir(m) ? m : NULL;
	}
	env->tmpfs = envdef("NW_TMPFS", "/mnt/tmpfs");
	if (!is_mounted_dir(env->tmpfs))
		env->tmpfs = NULL;
	env->p9 = envdef("NW_9P", "/mnt/9p");
	if (!is_mounted_dir(env->p9))
		env->p9 = NULL;
	env->scratch = envdef("NW_SCRATCH", "/tmp");
}

static const struct nw_case *const groups[] = {
	nw_interface_cases, nw_fs_cases, nw_read_cases, nw_block_cases,
	nw_hostile_cases,
};

struct result {
	int failed, skipped;
	char msg[512];
};

static void run_child(const struct nw_case *k, struct nw_ctx *c, int wfd)
{
	struct result r;
	ssize_t n;

	alarm(atoi(envdef("NW_CASE_TIMEOUT", "60")));
	k->fn(c);
	if (nw_rwf_enosys) {
		/* the case's entry point is not there: it cannot apply */
		c->failed = 0;
		c->skipped = 1;
		snprintf(c->msg, sizeof(c->msg),
			 "preadv2/pwritev2 arrived in 4.6; this kernel has neither (NOWAIT is io_submit only here)");
	}
	if (c->failed && c->fixed_in && c->env->mode == NW_NATIVE &&
	    c->env->kver < c->fixed_in) {
		c->failed = 0;
		c->skipped = 1;
		snprintf(c->msg, sizeof(c->msg),
			 "fixed upstream in %u.%u (%s); this native kernel lacks it",
			 c->fixed_in >> 16, (c->fixed_in >> 8) & 255,
			 c->fixed_commit);
	}
	memset(&r, 0, sizeof(r));
	r.failed = c->failed;
	r.skipped = c->skipped;
	memcpy(r.msg, c->msg, sizeof(r.msg));
	n = write(wfd, &r, sizeof(r));
	_exit(n == sizeof(r) ? 0 : 1);
}

static int run_one(const struct nw_env *env, const struct nw_case *k,
		   const char *id, int fs, int *np, int *nf, int *ns)
{
	struct nw_ctx c;
	struct result r;
	char dir[PATH_MAX];
	const char *base;
	int pfd[2], status;
	pid_t pid;
	ssize_t n;

	memset(&c, 0, sizeof(c));
	c.env = env;
	c.id = id;
	c.fs = fs < 0 ? NW_EXT4 : (enum nw_fs)fs;
	if (fs >= 0) {
		if (!env->mnt[fs]) {
			printf("skip %s - %s is not mounted\n", id, fs_names[fs]);
			(*ns)++;
			return 0;
		}
		if (fs == NW_BTRFS && env->btrfs_off) {
			/* proven by interface.unsupported.btrfs-old */
			printf("skip %s - the module does not offer btrfs NOWAIT here (features: fs btrfs off): EOPNOTSUPP\n",
			       id);
			(*ns)++;
			return 0;
		}
		base = env->mnt[fs];
	} else if (env->mnt[NW_EXT4]) {
		base = env->mnt[NW_EXT4];
	} else {
		base = env->scratch;
	}
	/* NW_SUBDIR: a directory of its own, for runs side by side */
	snprintf(dir, sizeof(dir), "%s/nwconf%s", base, envdef("NW_SUBDIR", ""));
	mkdir(dir, 0755);
	c.dir = dir;

	fflush(stdout);
	if (pipe(pfd))
		return -1;
	pid = fork();
	if (pid == 0) {
		close(pfd[0]);
		run_child(k, &c, pfd[1]);
	}
	close(pfd[1]);
	memset(&r, 0, sizeof(r));
	n = read(pfd[0], &r, sizeof(r));
	close(pfd[0]);
	waitpid(pid, &status, 0);
	if (n != sizeof(r)) {
		r.failed = 1;
		r.skipped = 0;
		if (WIFSIGNALED(status) && WTERMSIG(status) == SIGALRM)
			snprintf(r.msg, sizeof(r.msg),
				 "completes: in time vs timed out (blocked?)");
		else if (WIFSIGNALED(status))
			snprintf(r.msg, sizeof(r.msg), "exit: clean vs signal %d",
				 WTERMSIG(status));
		else
			snprintf(r.msg, sizeof(r.msg), "exit: clean vs status %d",
				 WEXITSTATUS(status));
	}
	if (r.failed) {
		printf("not ok %s - %s: %s\n", id, k->what, r.msg);
		(*nf)++;
	} else if (r.skipped) {
		printf("skip %s - %s\n", id, r.msg);
		(*ns)++;
	} else {
		printf("ok %s - %s\n", id, k->what);
		(*np)++;
	}
	fflush(stdout);
	return 0;
}

static int matches(const char *id, int argc, char **argv)
{
	int i;

	if (argc == 0)
		return 1;
	for (i = 0; i < argc; i++) {
		char pat[256];

		if (!fnmatch(argv[i], id, 0))
			return 1;
		/* a bare group or prefix selects everything below it */
		snprintf(pat, sizeof(pat), "%s.*", argv[i]);
		if (!fnmatch(pat, id, 0))
			return 1;
	}
	return 0;
}

static void for_each_case(int list, const struct nw_env *env, int argc,
			  char **argv, int *np, int *nf, int *ns)
{
	size_t g;

	for (g = 0; g < sizeof(groups) / sizeof(groups[0]); g++) {
		const struct nw_case *k;

		for (k = groups[g]; k->id; k++) {
			char id[128];
			int fs;

			for (fs = k->fsmask ? 0 : -1; fs < NW_NFS; fs++) {
				if (fs >= 0 && !(k->fsmask & FS_BIT(fs)))
					continue;
				if (fs >= 0)
					snprintf(id, sizeof(id), k->id, fs_names[fs]);
				else
					snprintf(id, sizeof(id), "%s", k->id);
				if (!matches(id, argc, argv))
					goto next;
				if (list)
					printf("%s\t%s\n", id, k->what);
				else
					run_one(env, k, id, fs, np, nf, ns);
next:
				if (fs < 0)
					break;
			}
		}
	}
}

int main(int argc, char **argv)
{
	struct nw_env env;
	int np = 0, nf = 0, ns = 0;
	static const char *const modes[] = { "native", "module", "stock" };

	setvbuf(stdout, NULL, _IOLBF, 0);
	/* helper for the harness: write VALUE to PATH as uid/gid 65534 */
	if (argc == 4 && !strcmp(argv[1], "--write-as-nobody")) {
		int fd;

		if (setgid(65534) || setuid(65534)) {
			printf("setuid failed: %s\n", strerror(errno));
			return 2;
		}
		fd = open(argv[2], O_WRONLY);
		if (fd < 0 || write(fd, argv[3], strlen(argv[3])) < 0) {
			printf("%s\n", strerror(errno));
			return 1;
		}
		printf("written\n");
		return 0;
	}
	/*
	 * helper for the benchmark: a file of SIZE MiB of written blocks
	 * (O_DIRECT, synced), NODATACOW first when asked (btrfs)
	 */
	if (argc >= 4 && !strcmp(argv[1], "--mkfile")) {
		int fd = open(argv[2], O_RDWR | O_CREAT | O_TRUNC | O_DIRECT,
			      0644), fl = 0, i;
		void *b;

		if (fd < 0 || posix_memalign(&b, 4096, 1 << 20))
			return 1;
		if (argc > 4 && !strcmp(argv[4], "nocow") &&
		    (ioctl(fd, FS_IOC_GETFLAGS, &fl) ||
		     (fl |= FS_NOCOW_FL, ioctl(fd, FS_IOC_SETFLAGS, &fl))))
			return 1;
		memset(b, 0x5a, 1 << 20);
		for (i = 0; i < atoi(argv[3]); i++)
			if (pwrite(fd, b, 1 << 20, (off_t)i << 20) != 1 << 20)
				return 1;
		return fsync(fd) ? 1 : 0;
	}
	/*
	 * helper for the harness: one NOWAIT direct write of 4 KiB at 0 to
	 * PATH (created), through io_submit; prints "ok", or the errno's
	 * name of io_submit or of its event
	 */
	if (argc == 3 && !strcmp(argv[1], "--nowait-write")) {
		int fd = open(argv[2], O_RDWR | O_CREAT | O_DIRECT, 0644);
		struct nw_aio_res r;
		char rb[64];

		if (fd < 0) {
			printf("open: %s\n", strerror(errno));
			return 2;
		}
		r = nw_aio_rw(fd, IO_CMD_PWRITE, nw_buf(NW_BS, 0x42), NW_BS, 0,
			      RWF_NOWAIT);
		if (r.submit < 0 || r.res < 0)
			printf("%s\n", nw_res_str(r.submit < 0 ? r.submit :
						   r.res, rb, sizeof(rb)));
		else
			printf("ok\n");
		return 0;
	}
	if (argc > 1 && !strcmp(argv[1], "--list")) {
		memset(&env, 0, sizeof(env));
		for_each_case(1, &env, argc - 2, argv + 2, &np, &nf, &ns);
		return 0;
	}
	setup_env(&env);
	printf("# nwconf: kernel %u.%u.%u, mode %s\n", env.kver >> 16,
	       (env.kver >> 8) & 255, env.kver & 255, modes[env.mode]);
	for_each_case(0, &env, argc - 1, argv + 1, &np, &nf, &ns);
	printf("%d passed, %d failed, %d skipped\n", np, nf, ns);
	return nf ? 1 : 0;
}
