// SPDX-License-Identifier: GPL-2.0
/*
 * nowait-aio-stat [-i SECONDS] [-1] [--json] [COUNT] - what vmstat is to
 * memory, for the nowait_aio module.
 *
 * Every interval it reads /sys/kernel/nowait_aio/ and prints one line:
 * the state (enabled or not; the per-request hooks live or on standby)
 * and the rates since the previous line of NOWAIT requests accepted,
 * refused with EAGAIN (in all and per reason) and refused as unsupported
 * or invalid.  The header is repeated every 20 lines.  -1 prints the
 * absolute counters once; --json prints them with the switches and the
 * features lines as one JSON object.
 *
 * Exit status: 0; 1 on a usage error or a file it cannot read; 2 when the
 * module is not loaded (or is unloaded while it runs); 3 when the kernel
 * has RWF_NOWAIT natively (4.13+), where the module is neither needed nor
 * loaded.  NOWAIT_AIO_SYSFS overrides the sysfs directory and
 * NOWAIT_AIO_RELEASE the kernel release (both for tests).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/utsname.h>
#include <time.h>
#include <unistd.h>

#include "nowait_aio.h"

#define PROG		"nowait-aio-stat"
#define HEADER_EVERY	20
#define EXIT_USAGE	1
#define EXIT_ABSENT	2
#define EXIT_NATIVE	3

/* the counters, in the order of the columns; "eagain" is their EAGAIN sum */
enum {
	C_ACCEPTED, C_LOCK, C_PAGECACHE, C_ALLOC, C_CONGESTION, C_INJECTED,
	C_WARMUP, C_EOPNOTSUPP, C_EINVAL, NR_COUNTERS
};
static const char *const counter_file[NR_COUNTERS] = {
	"accepted", "eagain_lock", "eagain_pagecache", "eagain_alloc",
	"eagain_congestion", "eagain_injected", "eagain_warmup",
	"refused_eopnotsupp", "refused_einval",
};

/* the switches, as their files name them */
enum { S_ENABLED, S_LOCK, S_PAGECACHE, S_ALLOC, S_CONGESTION, S_FAULT_INJECT,
       S_HOOK_IDLE_MS, NR_SWITCHES };
static const char *const switch_file[NR_SWITCHES] = {
	"enabled", "lock", "pagecache", "alloc", "congestion", "fault_inject",
	"hook_idle_ms",
};

struct sample {
	unsigned long cnt[NR_COUNTERS];
	unsigned long sw[NR_SWITCHES];
	int have_demand;		/* the features file had a demand line */
	char demand[16];		/* "live" or "standby" */
	unsigned long installs, last_install_us;
	char features[8192];		/* the features file as read */
	struct timespec t;		/* CLOCK_MONOTONIC when read */
};

static const char *sysfs_dir = NOWAIT_AIO_SYSFS;

static const char *kernel_release(void)
{
	static struct utsname u;
	const char *r = getenv("NOWAIT_AIO_RELEASE");

	if (r && *r)
		return r;
	if (uname(&u))
		return "unknown";
	return u.release;
}

/* 4.13 and later have RWF_NOWAIT natively (as nowait-aio-probe decides) */
static int native_kernel(const char *release)
{
	unsigned int a = 0, b = 0;

	if (sscanf(release, "%u.%u", &a, &b) < 1)
		return 0;
	return a > 4 || (a == 4 && b >= 13);
}

/* Reads a whole sysfs file into buf (NUL-terminated); 0 or -errno. */
static int read_file(const char *name, char *buf, size_t size)
{
	char path[PATH_MAX];
	size_t off = 0;
	ssize_t n;
	int fd;

	if (snprintf(path, sizeof(path), "%s/%s", sysfs_dir, name) >= (int)sizeof(path))
		return -ENAMETOOLONG;
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	while (off + 1 < size) {
		n = read(fd, buf + off, size - 1 - off);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0) {
			n = -errno;
			close(fd);
			return (int)n;
		}
		if (n == 0)
			break;
		off += (size_t)n;
	}
	buf[off] = '\0';
	close(fd);
	return 0;
}

/* One unsigned decimal value per file, as the module writes it. */
static int read_ulong(const char *name, unsigned long *v)
{
	char buf[64], *end;
	int err = read_file(name, buf, sizeof(buf));

	if (err)
		return err;
	errno = 0;
	*v = strtoul(buf, &end, 10);
	if (end == buf || errno || (*end && strcmp(end, "\n")) || buf[0] == '-')
		return -EINVAL;
	return 0;
}

/* "demand live|standby installs <n> last_install_us <t>" */
static void parse_demand(struct sample *s)
{
	const char *p = s->features;

	s->have_demand = 0;
	while (p && *p) {
		if (!strncmp(p, "demand ", 7) &&
		    sscanf(p, "demand %15s installs %lu last_install_us %lu",
			   s->demand, &s->installs, &s->last_install_us) == 3) {
			s->have_demand = 1;
			return;
		}
		p = strchr(p, '\n');
		if (p)
			p++;
	}
}

static void fail_read(const char *name, int err)
{
	fprintf(stderr, PROG ": cannot read %s/%s: %s\n", sysfs_dir, name,
		err == -EINVAL ? "not a number" : strerror(-err));
}

static int module_present(void)
{
	struct stat st;

	return stat(sysfs_dir, &st) == 0 && S_ISDIR(st.st_mode);
}

/*
 * The module is not there: say why, as nowait-aio-probe would, and return
 * the exit status.
 */
static int absent(int was_running)
{
	const char *rel = kernel_release();

	if (was_running) {
		fprintf(stderr, PROG ": the nowait_aio module was unloaded (%s is gone)\n",
			sysfs_dir);
		return EXIT_ABSENT;
	}
	if (native_kernel(rel)) {
		fprintf(stderr, PROG ": native: kernel %s has RWF_NOWAIT natively (4.13+); "
			"the nowait_aio module is not needed there and has no counters\n", rel);
		return EXIT_NATIVE;
	}
	fprintf(stderr, PROG ": the nowait_aio module is not loaded (no %s) on kernel %s; "
		"load it with: modprobe nowait_aio\n", sysfs_dir, rel);
	return EXIT_ABSENT;
}

/* Read @n files into @v: 0, or the exit status to leave with. */
static int read_files(const char *const *names, int n, unsigned long *v,
		      int was_running)
{
	int i, err;

	for (i = 0; i < n; i++) {
		err = read_ulong(names[i], &v[i]);
		if (err && !module_present())
			return absent(was_running);
		if (err) {
			fail_read(names[i], err);
			return EXIT_USAGE;
		}
	}
	return 0;
}

/* 0, or the exit status to leave with (the message is printed) */
static int take_sample(struct sample *s, int was_running)
{
	int err;

	if (!module_present())
		return absent(was_running);
	err = read_files(counter_file, NR_COUNTERS, s->cnt, was_running);
	if (!err)
		err = read_files(switch_file, NR_SWITCHES, s->sw, was_running);
	if (err)
		return err;
	err = read_file("features", s->features, sizeof(s->features));
	if (err && !module_present())
		return absent(was_running);
	if (err) {
		fail_read("features", err);
		return EXIT_USAGE;
	}
	parse_demand(s);
	clock_gettime(CLOCK_MONOTONIC, &s->t);
	return 0;
}

static unsigned long eagain_sum(const unsigned long *c)
{
	return c[C_LOCK] + c[C_PAGECACHE] + c[C_ALLOC] + c[C_CONGESTION] +
	       c[C_INJECTED] + c[C_WARMUP];
}

static void print_header(const char *what)
{
	printf("-state---- %s\n", what);
	printf("%-2s %-7s %8s %8s %8s %8s %8s %8s %8s %8s %8s %8s\n", "en",
	       "hooks", "accepted", "eagain", "lock", "pcache", "alloc",
	       "congest", "inject", "warmup", "notsup", "inval");
}

static void print_state(const struct sample *s)
{
	printf("%2lu %-7s", s->sw[S_ENABLED] ? 1UL : 0UL,
	       s->have_demand ? s->demand : "-");
}

/* one line of absolute counters (-1) */
static void print_totals(const struct sample *s)
{
	const unsigned long *c = s->cnt;

	print_state(s);
	printf(" %8lu %8lu %8lu %8lu %8lu %8lu %8lu %8lu %8lu %8lu\n",
	       c[C_ACCEPTED], eagain_sum(c), c[C_LOCK], c[C_PAGECACHE],
	       c[C_ALLOC], c[C_CONGESTION], c[C_INJECTED], c[C_WARMUP],
	       c[C_EOPNOTSUPP], c[C_EINVAL]);
}

/*
 * A counter that went down was reset by a reload of the module in
 * between: what it counts now was counted since then.
 */
static unsigned long delta(unsigned long cur, unsigned long prev)
{
	return cur >= prev ? cur - prev : cur;
}

/* one line of rates per second between two samples */
static void print_rates(const struct sample *prev, const struct sample *cur)
{
	double secs = (double)(cur->t.tv_sec - prev->t.tv_sec) +
		      (double)(cur->t.tv_nsec - prev->t.tv_nsec) / 1e9;
	double r[NR_COUNTERS], eagain = 0;
	int i;

	if (secs <= 0)
		secs = 1e-9;
	for (i = 0; i < NR_COUNTERS; i++) {
		r[i] = (double)delta(cur->cnt[i], prev->cnt[i]) / secs;
		if (i >= C_LOCK && i <= C_WARMUP)
			eagain += r[i];
	}
	print_state(cur);
	printf(" %8.0f %8.0f %8.0f %8.0f %8.0f %8.0f %8.0f %8.0f %8.0f %8.0f\n",
	       r[C_ACCEPTED], eagain, r[C_LOCK], r[C_PAGECACHE], r[C_ALLOC],
	       r[C_CONGESTION], r[C_INJECTED], r[C_WARMUP], r[C_EOPNOTSUPP],
	       r[C_EINVAL]);
}

static void json_string(const char *s, size_t n)
{
	size_t i;

	putchar('"');
	for (i = 0; i < n; i++) {
		unsigned char c = (unsigned char)s[i];

		if (c == '"' || c == '\\')
			printf("\\%c", c);
		else if (c == '\n')
			fputs("\\n", stdout);
		else if (c == '\t')
			fputs("\\t", stdout);
		else if (c < 0x20)
			printf("\\u%04x", c);
		else
			putchar(c);
	}
	putchar('"');
}

static void print_json(const struct sample *s)
{
	const char *p, *nl;
	int i, first = 1;

	printf("{\"kernel\": ");
	json_string(kernel_release(), strlen(kernel_release()));
	printf(", \"sysfs\": ");
	json_string(sysfs_dir, strlen(sysfs_dir));
	for (i = 0; i < NR_SWITCHES; i++)
		printf(", \"%s\": %lu", switch_file[i], s->sw[i]);
	if (s->have_demand) {
		printf(", \"demand\": ");
		json_string(s->demand, strlen(s->demand));
		printf(", \"demand_installs\": %lu, \"last_install_us\": %lu",
		       s->installs, s->last_install_us);
	} else
		printf(", \"demand\": null, \"demand_installs\": null, \"last_install_us\": null");
	for (i = 0; i < NR_COUNTERS; i++)
		printf(", \"%s\": %lu", counter_file[i], s->cnt[i]);
	printf(", \"eagain\": %lu", eagain_sum(s->cnt));
	printf(", \"features\": [");
	for (p = s->features; *p; p = nl ? nl + 1 : p + strlen(p)) {
		nl = strchr(p, '\n');
		if (nl == p)
			continue;
		printf("%s", first ? "" : ", ");
		json_string(p, nl ? (size_t)(nl - p) : strlen(p));
		first = 0;
	}
	printf("]}\n");
}

static void usage(FILE *f)
{
	fprintf(f,
		"usage: " PROG " [-i SECONDS] [COUNT]\n"
		"       " PROG " -1 | --json\n"
		"The nowait_aio module's counters, like vmstat: one line per interval\n"
		"(default 1 second) with the state and the rates per second of NOWAIT\n"
		"requests accepted, refused with EAGAIN (in all and per reason) and\n"
		"refused as unsupported or invalid; COUNT lines, or until interrupted.\n"
		"  -i, --interval SECONDS  seconds between lines (fractions allowed)\n"
		"  -1, --once              print the absolute counters once and exit\n"
		"      --json              print counters, switches and features as JSON\n"
		"Exit status: 0; 1 usage or read error; 2 module not loaded; 3 native kernel\n"
		"(4.13+), no module needed.\n");
}

static void sleep_until(const struct timespec *t)
{
	while (clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, t, NULL) == EINTR)
		;
}

int main(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "interval", required_argument, NULL, 'i' },
		{ "once", no_argument, NULL, '1' },
		{ "json", no_argument, NULL, 'j' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	static struct sample a, b;
	struct sample *prev = &a, *cur = &b, *tmp;
	double interval = 1.0;
	unsigned long count = 0, lines = 0;
	int c, once = 0, json = 0, iset = 0, rc;
	struct timespec next;
	long long step_ns;
	char *end;
	const char *env = getenv("NOWAIT_AIO_SYSFS");

	if (env && *env)
		sysfs_dir = env;
	while ((c = getopt_long(argc, argv, "i:1h", opts, NULL)) != -1) {
		switch (c) {
		case 'i':
			errno = 0;
			interval = strtod(optarg, &end);
			if (end == optarg || *end || errno || !isfinite(interval) ||
			    interval < 0.01 || interval > 86400) {
				fprintf(stderr, PROG ": -i: not a number of seconds from 0.01 to 86400: %s\n",
					optarg);
				return EXIT_USAGE;
			}
			iset = 1;
			break;
		case '1':
			once = 1;
			break;
		case 'j':
			json = 1;
			break;
		case 'h':
			usage(stdout);
			return 0;
		default:
			usage(stderr);
			return EXIT_USAGE;
		}
	}
	if ((once || json) && iset) {
		usage(stderr);
		return EXIT_USAGE;
	}
	if (optind < argc) {
		errno = 0;
		count = strtoul(argv[optind], &end, 10);
		if (end == argv[optind] || *end || errno || count == 0 ||
		    argv[optind][0] == '-' || optind + 1 < argc || once || json) {
			usage(stderr);
			return EXIT_USAGE;
		}
	}

	rc = take_sample(prev, 0);
	if (rc)
		return rc;
	if (json) {
		print_json(prev);
		return fflush(stdout) ? EXIT_USAGE : 0;
	}
	if (once) {
		print_header("--------------------------- totals since load ---------------------------");
		print_totals(prev);
		return fflush(stdout) ? EXIT_USAGE : 0;
	}

	step_ns = (long long)(interval * 1e9 + 0.5);
	next = prev->t;
	for (;;) {
		if (lines % HEADER_EVERY == 0) {
			print_header("------------------------------ per second ------------------------------");
			fflush(stdout);
		}
		next.tv_sec += (time_t)(step_ns / 1000000000LL);
		next.tv_nsec += (long)(step_ns % 1000000000LL);
		if (next.tv_nsec >= 1000000000L) {
			next.tv_sec++;
			next.tv_nsec -= 1000000000L;
		}
		sleep_until(&next);
		rc = take_sample(cur, 1);
		if (rc)
			return rc;
		print_rates(prev, cur);
		if (fflush(stdout))
			return EXIT_USAGE;
		tmp = prev;
		prev = cur;
		cur = tmp;
		if (++lines == count)
			break;
	}
	return 0;
}
