// SPDX-License-Identifier: GPL-2.0
/*
 * ioload: plain block I/O, no RWF_NOWAIT, for the I/O soak (test/iosoak).
 *
 *   ioload SECS DIR [DIR...]
 *
 * In each DIR, for SECS seconds: two O_DIRECT writers and one O_DIRECT
 * reader on a 16 MiB file (random 4-64 KiB, fdatasync now and then), and
 * one buffered writer that fsyncs every 16 writes (journal commits, cache
 * flushes).  The same load runs on any kernel, with or without the module,
 * so that a stall it finds can be placed: kernel, device or module.
 * Prints "ioload: N ops, N errors" and exits 1 on an I/O error.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#define FILE_SIZE (16 << 20)
#define MAX_IO (64 << 10)

enum kind { DIRECT_WRITE, DIRECT_READ, BUFFERED_WRITE };

struct worker {
	pthread_t thread;
	const char *dir;
	enum kind kind;
	unsigned int seed;
	long ops, errors;
};

static time_t deadline;

static int open_file(const char *dir, enum kind kind)
{
	char path[4096];
	int flags = O_RDWR | O_CREAT;
	int fd;

	snprintf(path, sizeof(path), "%s/ioload.%s", dir,
		 kind == BUFFERED_WRITE ? "buffered" : "direct");
	if (kind != BUFFERED_WRITE)
		flags |= O_DIRECT;
	fd = open(path, flags, 0644);
	if (fd >= 0 && kind != DIRECT_READ &&
	    posix_fallocate(fd, 0, FILE_SIZE) != 0) {
		close(fd);
		return -1;
	}
	return fd;
}

static void *work(void *arg)
{
	struct worker *w = arg;
	void *buf;
	int fd = open_file(w->dir, w->kind);

	if (fd < 0 || posix_memalign(&buf, 4096, MAX_IO)) {
		fprintf(stderr, "ioload: %s: %s\n", w->dir, strerror(errno));
		w->errors++;
		return NULL;
	}
	memset(buf, 0x5a, MAX_IO);
	while (time(NULL) < deadline) {
		size_t len = 4096 * (1 + rand_r(&w->seed) % (MAX_IO / 4096));
		off_t off = 4096 * (off_t)(rand_r(&w->seed) %
					   ((FILE_SIZE - MAX_IO) / 4096));
		ssize_t n;

		if (w->kind == DIRECT_READ)
			n = pread(fd, buf, len, off);
		else
			n = pwrite(fd, buf, len, off);
		if (n < 0) {
			fprintf(stderr, "ioload: %s: %s\n", w->dir, strerror(errno));
			w->errors++;
			break;
		}
		w->ops++;
		if (w->kind == BUFFERED_WRITE && w->ops % 16 == 0)
			fsync(fd);
		else if (w->kind == DIRECT_WRITE && w->ops % 64 == 0)
			fdatasync(fd);
	}
	close(fd);
	free(buf);
	return NULL;
}

int main(int argc, char **argv)
{
	static const enum kind kinds[] = {
		DIRECT_WRITE, DIRECT_WRITE, DIRECT_READ, BUFFERED_WRITE
	};
	const int per_dir = sizeof(kinds) / sizeof(kinds[0]);
	struct worker *w;
	long ops = 0, errors = 0;
	int n, i;

	if (argc < 3) {
		fprintf(stderr, "usage: ioload SECS DIR [DIR...]\n");
		return 2;
	}
	deadline = time(NULL) + atoi(argv[1]);
	n = (argc - 2) * per_dir;
	w = calloc(n, sizeof(*w));
	if (!w)
		return 2;
	for (i = 0; i < n; i++) {
		w[i].dir = argv[2 + i / per_dir];
		w[i].kind = kinds[i % per_dir];
		w[i].seed = i + 1;
		/* the direct file exists before its reader opens it */
		if (w[i].kind == DIRECT_READ)
			usleep(100000);
		if (pthread_create(&w[i].thread, NULL, work, &w[i]))
			return 2;
	}
	for (i = 0; i < n; i++) {
		pthread_join(w[i].thread, NULL);
		ops += w[i].ops;
		errors += w[i].errors;
	}
	printf("ioload: %ld ops, %ld errors\n", ops, errors);
	return errors ? 1 : 0;
}
