// SPDX-License-Identifier: GPL-2.0
/*
 * nowait-aio-stat [-i SECONDS] [-1] [--json] [--prometheus] [COUNT] -
 * what vmstat is to memory, for the nowait_aio module.
 *
 * Every interval it reads /sys/kernel/nowait_aio/ and prints one line:
 * the state (enabled or not; the per-request hooks live or on standby)
 * and the rates since the previous line of NOWAIT requests accepted,
 * refused with EAGAIN (in all and per reason) and refused as unsupported
 * or invalid.  The header is repeated every 20 lines.  -1 prints the
 * absolute counters once; --json prints them with the switches and the
 * features lines as one JSON object; --prometheus prints them in the
 * Prometheus text exposition format (0.0.4), for node_exporter's textfile
 * collector.
 *
 * Exit status: 0; 1 on a usage error or a file it cannot read; 2 when the
 * module is not loaded (or is unloaded while it runs); 3 when the kernel
 * has RWF_NOWAIT natively (4.13+), where the module is neither needed nor
 * loaded.  --json prints an object in those two cases too (with the same
 * status); --prometheus exits 0 there, the state being in its metrics
 * (nowait_aio_module_loaded, nowait_aio_native).  NOWAIT_AIO_SYSFS
 * overrides the sysfs directory and NOWAIT_AIO_RELEASE the kernel release
 * (both for tests).
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <limits.h>
#include <math.h>
#include <stdarg.h>
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
#define NAME_LEN	64	/* a counter file's name, with its NUL */
#define MAX_LABELS	32	/* label values of one metric family */

/* what to print: rates, totals once (-1), JSON, Prometheus */
enum { M_RATES, M_ONCE, M_JSON, M_PROM };
static int mode = M_RATES;

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

static void print_json_absent(const char *msg);

/*
 * The module is not there: say why, as nowait-aio-probe would, and return
 * the exit status.  --json says it on stdout as well, with the same
 * status; for --prometheus, main() says it in the metrics instead.
 */
static int absent(int was_running)
{
	const char *rel = kernel_release();
	int native = native_kernel(rel);
	char msg[PATH_MAX + 256];

	if (was_running) {
		fprintf(stderr, PROG ": the nowait_aio module was unloaded (%s is gone)\n",
			sysfs_dir);
		return EXIT_ABSENT;
	}
	if (mode == M_PROM)
		return native ? EXIT_NATIVE : EXIT_ABSENT;
	if (native)
		snprintf(msg, sizeof(msg), "kernel %s has RWF_NOWAIT natively (4.13+); "
			 "the nowait_aio module is not needed there and has no counters",
			 rel);
	else
		snprintf(msg, sizeof(msg), "the nowait_aio module is not loaded (no %s) "
			 "on kernel %s; load it with: modprobe nowait_aio",
			 sysfs_dir, rel);
	if (mode == M_JSON)
		print_json_absent(msg);
	fprintf(stderr, PROG ": %s%s\n", native ? "native: " : "", msg);
	return native ? EXIT_NATIVE : EXIT_ABSENT;
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

/*
 * What every object begins with: the kernel, the directory, whether the
 * module is loaded, whether the kernel has RWF_NOWAIT natively, and why
 * there are no counters (null when there are).
 */
static void json_head(int loaded, const char *msg)
{
	const char *rel = kernel_release();

	printf("{\"kernel\": ");
	json_string(rel, strlen(rel));
	printf(", \"sysfs\": ");
	json_string(sysfs_dir, strlen(sysfs_dir));
	printf(", \"module\": \"%s\", \"native_nowait\": %s, \"message\": ",
	       loaded ? "loaded" : "not-loaded",
	       native_kernel(rel) ? "true" : "false");
	if (msg)
		json_string(msg, strlen(msg));
	else
		printf("null");
}

/*
 * The module is not loaded (native_nowait says whether it is needed): the
 * object has the keys of a loaded module's, null.
 */
static void print_json_absent(const char *msg)
{
	int i;

	json_head(0, msg);
	for (i = 0; i < NR_SWITCHES; i++)
		printf(", \"%s\": null", switch_file[i]);
	printf(", \"demand\": null, \"demand_installs\": null, \"last_install_us\": null");
	for (i = 0; i < NR_COUNTERS; i++)
		printf(", \"%s\": null", counter_file[i]);
	printf(", \"eagain\": null, \"features\": null}\n");
	fflush(stdout);
}

static void print_json(const struct sample *s)
{
	const char *p, *nl;
	int i, first = 1;

	json_head(1, NULL);
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

/*
 * Prometheus text exposition format 0.0.4, for node_exporter's textfile
 * collector: each family with its HELP and TYPE lines, counters named
 * *_total.  HELP texts hold no backslash and no newline.
 */
static void prom_family(FILE *f, const char *name, const char *type,
			const char *help)
{
	fprintf(f, "# HELP %s %s\n# TYPE %s %s\n", name, help, name, type);
}

/* a label value, escaped: backslash, double quote, newline */
static void prom_label_value(FILE *f, const char *v)
{
	for (; *v; v++) {
		if (*v == '\\' || *v == '"')
			fprintf(f, "\\%c", *v);
		else if (*v == '\n')
			fputs("\\n", f);
		else
			fputc(*v, f);
	}
}

/* what every exposition begins with: loaded or not, native or not */
static void prom_state(FILE *f, int loaded)
{
	const char *rel = kernel_release();

	prom_family(f, "nowait_aio_module_loaded", "gauge",
		    "1 when the nowait_aio module is loaded, 0 when it is not "
		    "(then no other nowait_aio metric but these three).");
	fprintf(f, "nowait_aio_module_loaded %d\n", loaded);
	prom_family(f, "nowait_aio_native", "gauge",
		    "1 when the running kernel has RWF_NOWAIT natively (4.13 and "
		    "later) and needs no module, 0 when it needs the module.");
	fprintf(f, "nowait_aio_native %d\n", native_kernel(rel));
	prom_family(f, "nowait_aio_kernel_info", "gauge",
		    "The running kernel's release, in the label release; always 1.");
	fputs("nowait_aio_kernel_info{release=\"", f);
	prom_label_value(f, rel);
	fputs("\"} 1\n", f);
}

/*
 * Write out what was built in memory (@f, open_memstream() on *@buf and
 * *@len) all at once: 0 or EXIT_USAGE.
 */
static int prom_write(FILE *f, char **buf, size_t *len)
{
	int err = 0;

	if (fclose(f))
		err = errno;
	else if (fwrite(*buf, 1, *len, stdout) != *len || fflush(stdout))
		err = errno ? errno : EIO;
	free(*buf);
	if (err) {
		fprintf(stderr, PROG ": cannot write the metrics: %s\n", strerror(err));
		return EXIT_USAGE;
	}
	return 0;
}

/* The module is not loaded: that, and whether the kernel needs it. */
static int print_prom_absent(void)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	if (!f) {
		fprintf(stderr, PROG ": %s\n", strerror(errno));
		return EXIT_USAGE;
	}
	prom_state(f, 0);
	return prom_write(f, &buf, &len);
}

/* index of a file in counter_file[], or NR_COUNTERS */
static int counter_index(const char *name)
{
	int i;

	for (i = 0; i < NR_COUNTERS; i++)
		if (!strcmp(name, counter_file[i]))
			break;
	return i;
}

/* the known counters in the order of the columns, then the others by name */
static int cmp_counter(const void *a, const void *b)
{
	int ia = counter_index(a), ib = counter_index(b);

	if (ia != ib)
		return ia < ib ? -1 : 1;
	return strcmp(a, b);
}

/*
 * The counter files named <prefix><label>, the label of lower-case
 * letters, digits and '_': the label values of one family, whatever
 * files the module has.  The number found, or -errno.
 */
static int scan_family(const char *prefix, char (*names)[NAME_LEN])
{
	static const char label_chars[] = "abcdefghijklmnopqrstuvwxyz0123456789_";
	size_t plen = strlen(prefix), len;
	struct dirent *e;
	int n = 0;
	DIR *d = opendir(sysfs_dir);

	if (!d)
		return -errno;
	while ((e = readdir(d)) && n < MAX_LABELS) {
		len = strlen(e->d_name);
		if (len <= plen || len >= NAME_LEN ||
		    strncmp(e->d_name, prefix, plen) ||
		    strspn(e->d_name + plen, label_chars) != len - plen)
			continue;
		memcpy(names[n++], e->d_name, len + 1);
	}
	closedir(d);
	qsort(names, (size_t)n, NAME_LEN, cmp_counter);
	return n;
}

/*
 * One family of counters, one label value per <prefix><label> file
 * (upper-cased when @upper): 0; -1 when the module is gone; or the exit
 * status to leave with.
 */
static int prom_counters(FILE *f, const struct sample *s, const char *name,
			 const char *label, const char *prefix, int upper,
			 const char *help)
{
	static char names[MAX_LABELS][NAME_LEN];
	unsigned long v;
	const char *p;
	int i, n, k, err;

	n = scan_family(prefix, names);
	if (n < 0 && !module_present())
		return -1;
	if (n < 0) {
		fprintf(stderr, PROG ": cannot read %s: %s\n", sysfs_dir, strerror(-n));
		return EXIT_USAGE;
	}
	prom_family(f, name, "counter", help);
	for (i = 0; i < n; i++) {
		k = counter_index(names[i]);
		if (k < NR_COUNTERS) {
			v = s->cnt[k];
		} else {
			err = read_ulong(names[i], &v);
			if (err && !module_present())
				return -1;
			if (err) {
				fail_read(names[i], err);
				return EXIT_USAGE;
			}
		}
		fprintf(f, "%s{%s=\"", name, label);
		for (p = names[i] + strlen(prefix); *p; p++)
			fputc(upper && *p >= 'a' && *p <= 'z' ? *p - 'a' + 'A' : *p, f);
		fprintf(f, "\"} %lu\n", v);
	}
	return 0;
}

/* The module's state, switches and counters: 0 or the exit status. */
static int print_prom(const struct sample *s)
{
	static const int checks[] = { S_LOCK, S_PAGECACHE, S_ALLOC, S_CONGESTION };
	const unsigned long *sw = s->sw;
	char *buf = NULL;
	size_t len = 0, i;
	FILE *f = open_memstream(&buf, &len);
	int rc;

	if (!f) {
		fprintf(stderr, PROG ": %s\n", strerror(errno));
		return EXIT_USAGE;
	}
	prom_state(f, 1);
	prom_family(f, "nowait_aio_enabled", "gauge",
		    "1 when the module accepts RWF_NOWAIT, 0 when it passes requests "
		    "through as a stock kernel would (the file enabled).");
	fprintf(f, "nowait_aio_enabled %d\n", sw[S_ENABLED] ? 1 : 0);
	prom_family(f, "nowait_aio_check_enabled", "gauge",
		    "1 when the module refuses a NOWAIT request that would wait for "
		    "this reason, 0 when that check is off (the files lock, pagecache, "
		    "alloc, congestion).");
	for (i = 0; i < sizeof(checks) / sizeof(checks[0]); i++)
		fprintf(f, "nowait_aio_check_enabled{check=\"%s\"} %d\n",
			switch_file[checks[i]], sw[checks[i]] ? 1 : 0);
	prom_family(f, "nowait_aio_fault_inject", "gauge",
		    "N: one NOWAIT request in N is refused with EAGAIN, for testing; "
		    "0: off (the file fault_inject).");
	fprintf(f, "nowait_aio_fault_inject %lu\n", sw[S_FAULT_INJECT]);
	prom_family(f, "nowait_aio_hook_idle_seconds", "gauge",
		    "Seconds without a flagged request after which the per-request "
		    "hooks come out; 0: never (the file hook_idle_ms).");
	fprintf(f, "nowait_aio_hook_idle_seconds %lu.%03lu\n",
		sw[S_HOOK_IDLE_MS] / 1000, sw[S_HOOK_IDLE_MS] % 1000);
	if (s->have_demand) {
		prom_family(f, "nowait_aio_hooks_live", "gauge",
			    "1 when the per-request hooks are in (live), 0 when they "
			    "are out (standby).");
		fprintf(f, "nowait_aio_hooks_live %d\n", !strcmp(s->demand, "live"));
		prom_family(f, "nowait_aio_hook_installs_total", "counter",
			    "Times the per-request hooks went in since the module "
			    "was loaded.");
		fprintf(f, "nowait_aio_hook_installs_total %lu\n", s->installs);
		prom_family(f, "nowait_aio_hook_last_install_seconds", "gauge",
			    "How long the last install of the per-request hooks took.");
		fprintf(f, "nowait_aio_hook_last_install_seconds %lu.%06lu\n",
			s->last_install_us / 1000000, s->last_install_us % 1000000);
	}
	prom_family(f, "nowait_aio_requests_total", "counter",
		    "RWF_NOWAIT requests the module let in (result accepted: the file "
		    "accepted); refusals are in nowait_aio_eagain_total and "
		    "nowait_aio_refused_total.");
	fprintf(f, "nowait_aio_requests_total{result=\"accepted\"} %lu\n",
		s->cnt[C_ACCEPTED]);
	rc = prom_counters(f, s, "nowait_aio_eagain_total", "reason", "eagain_", 0,
			   "NOWAIT requests refused with EAGAIN, per reason (the "
			   "files eagain_<reason>).");
	if (!rc)
		rc = prom_counters(f, s, "nowait_aio_refused_total", "errno",
				   "refused_", 1,
				   "Requests with RWF_NOWAIT refused as unsupported "
				   "or invalid, per errno (the files refused_<errno>).");
	if (rc) {
		fclose(f);
		free(buf);
		return rc < 0 ? absent(0) : rc;	/* unloaded: say so instead */
	}
	return prom_write(f, &buf, &len);
}

#define SYNOPSIS \
	"usage: " PROG " [-i SECONDS] [COUNT]\n" \
	"       " PROG " -1 | --json | --prometheus\n"

static void usage(FILE *f)
{
	fprintf(f, SYNOPSIS
		"The nowait_aio module's counters, like vmstat: one line per interval\n"
		"(default 1 second) with the state and the rates per second of NOWAIT\n"
		"requests accepted, refused with EAGAIN (in all and per reason) and\n"
		"refused as unsupported or invalid; COUNT lines, or until interrupted.\n"
		"  -i, --interval SECONDS  seconds between lines (fractions allowed)\n"
		"  -1, --once              print the absolute counters once and exit\n"
		"      --json              print counters, switches and features as JSON\n"
		"      --prometheus        print them in the Prometheus text format, for\n"
		"                          node_exporter's textfile collector\n"
		"Exit status: 0; 1 usage or read error; 2 module not loaded; 3 native kernel\n"
		"(4.13+), no module needed.  --prometheus exits 0 in the last two cases:\n"
		"its metrics nowait_aio_module_loaded and nowait_aio_native say them.\n");
}

/* A usage error: what is wrong, the synopsis, and the status to exit with. */
static int usage_error(const char *fmt, ...)
	__attribute__((format(printf, 1, 2)));
static int usage_error(const char *fmt, ...)
{
	va_list ap;

	if (fmt) {
		fputs(PROG ": ", stderr);
		va_start(ap, fmt);
		vfprintf(stderr, fmt, ap);
		va_end(ap);
		fputc('\n', stderr);
	}
	fputs(SYNOPSIS, stderr);
	return EXIT_USAGE;
}

/* after -1 or --json: 0, or EXIT_USAGE when stdout could not be written */
static int flush_stdout(void)
{
	errno = 0;
	if (fflush(stdout) || ferror(stdout)) {
		fprintf(stderr, PROG ": cannot write the output: %s\n",
			strerror(errno ? errno : EIO));
		return EXIT_USAGE;
	}
	return 0;
}

static void sleep_until(const struct timespec *t)
{
	while (clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, t, NULL) == EINTR)
		;
}

/* the option that prints once, for a message */
static const char *mode_option(void)
{
	return mode == M_JSON ? "--json" : mode == M_PROM ? "--prometheus" : "-1";
}

int main(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "interval", required_argument, NULL, 'i' },
		{ "once", no_argument, NULL, '1' },
		{ "json", no_argument, NULL, 'j' },
		{ "prometheus", no_argument, NULL, 'p' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	static struct sample a, b;
	struct sample *prev = &a, *cur = &b, *tmp;
	double interval = 1.0;
	unsigned long count = 0, lines = 0;
	int c, once = 0, json = 0, prom = 0, iset = 0, rc;
	struct timespec next;
	long long step_ns;
	char *end;
	const char *arg, *env = getenv("NOWAIT_AIO_SYSFS");

	if (env && *env)
		sysfs_dir = env;
	while ((c = getopt_long(argc, argv, "i:1h", opts, NULL)) != -1) {
		switch (c) {
		case 'i':
			errno = 0;
			interval = strtod(optarg, &end);
			if (end == optarg || *end || errno || !isfinite(interval) ||
			    interval < 0.01 || interval > 86400)
				return usage_error("invalid interval '%s' (seconds, from 0.01 to 86400)",
						   optarg);
			iset = 1;
			break;
		case '1':
			once = 1;
			break;
		case 'j':
			json = 1;
			break;
		case 'p':
			prom = 1;
			break;
		case 'h':
			usage(stdout);
			return 0;
		default:	/* getopt_long() said what */
			return usage_error(NULL);
		}
	}
	if (json && prom)
		return usage_error("--json and --prometheus cannot be combined");
	mode = prom ? M_PROM : json ? M_JSON : once ? M_ONCE : M_RATES;
	if (mode != M_RATES && iset)
		return usage_error("-i cannot be combined with %s (it prints once)",
				   mode_option());
	if (optind < argc) {
		arg = argv[optind];
		if (mode != M_RATES)
			return usage_error("unexpected argument '%s' (%s prints once, without COUNT)",
					   arg, mode_option());
		errno = 0;
		count = strtoul(arg, &end, 10);
		if (end == arg || *end || errno || count == 0 || arg[0] == '-')
			return usage_error("invalid count '%s' (a number of lines, 1 or more)",
					   arg);
		if (optind + 1 < argc)
			return usage_error("unexpected argument '%s' (COUNT was '%s')",
					   argv[optind + 1], arg);
	}

	rc = take_sample(prev, 0);
	if (mode == M_PROM) {
		if (!rc)
			rc = print_prom(prev);
		/* not loaded, or not needed: metrics that say so, status 0 */
		if (rc == EXIT_ABSENT || rc == EXIT_NATIVE)
			rc = print_prom_absent();
		return rc;
	}
	if (rc)
		return rc;
	if (mode == M_JSON) {
		print_json(prev);
		return flush_stdout();
	}
	if (mode == M_ONCE) {
		print_header("--------------------------- totals since load ---------------------------");
		print_totals(prev);
		return flush_stdout();
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
