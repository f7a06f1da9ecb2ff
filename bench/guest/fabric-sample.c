// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * mroce-fabric-sample: read counters every few milliseconds and print one
 * TSV line per tick, for the guest's fabric benchmark (scripts/fabric.sh
 * sample, bench/guest/fabric-bench.sh). A shell loop is too slow for 100 ms
 * ticks in a busy TCG guest; this costs a few reads per tick.
 *
 *	mroce-fabric-sample [-i MS] [-d SECS] SPEC...
 *
 *	-i MS     tick (default 100); ticks are absolute (no drift)
 *	-d SECS   stop after SECS (default: run until SIGTERM/SIGINT)
 *	SPEC      NAME=PATH            the integer at the start of PATH
 *	          NAME=PATH:IFACE:COL  a /proc/net/dev style file (e.g.
 *	                               /proc/PID/net/dev, PID in another netns):
 *	                               field COL (0 = rx_bytes, 8 = tx_bytes)
 *	                               of IFACE's line
 *
 * Output: a header "t NAME...", then per tick the CLOCK_REALTIME time in
 * seconds (6 decimals, comparable with bash's $EPOCHREALTIME) and the
 * values ("-" when unreadable). stdout is flushed every line.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

struct spec {
	char *name;
	char *path;
	char *iface;	/* NULL: plain counter file */
	int col;
};

static volatile sig_atomic_t stop;

static void on_signal(int sig)
{
	(void)sig;
	stop = 1;
}

static int read_file(const char *path, char *buf, size_t size)
{
	int fd = open(path, O_RDONLY);
	ssize_t n, got = 0;

	if (fd < 0)
		return -1;
	while ((size_t)got < size - 1) {
		n = read(fd, buf + got, size - 1 - got);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			break;
		got += n;
	}
	close(fd);
	buf[got] = 0;
	return got > 0 ? 0 : -1;
}

/* the value of one spec into out (a number or "-") */
static void sample(const struct spec *s, char *out, size_t outlen)
{
	static char buf[65536];
	char *line, *save, *p, *tok;
	int i;

	snprintf(out, outlen, "-");
	if (read_file(s->path, buf, sizeof(buf)))
		return;
	if (!s->iface) {
		unsigned long long v;

		if (sscanf(buf, "%llu", &v) == 1)
			snprintf(out, outlen, "%llu", v);
		return;
	}
	for (line = strtok_r(buf, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		p = strchr(line, ':');
		if (!p)
			continue;
		*p = 0;
		while (*line == ' ')
			line++;
		if (strcmp(line, s->iface))
			continue;
		tok = strtok(p + 1, " \t");
		for (i = 0; tok && i < s->col; i++)
			tok = strtok(NULL, " \t");
		if (tok)
			snprintf(out, outlen, "%s", tok);
		return;
	}
}

static void usage(void)
{
	fprintf(stderr, "usage: mroce-fabric-sample [-i MS] [-d SECS] NAME=PATH[:IFACE:COL]...\n");
	exit(2);
}

int main(int argc, char **argv)
{
	struct spec *specs;
	struct timespec next, now, rt;
	long ms = 100;
	double secs = 0, t0;
	int n, i, opt;
	char val[64];

	while ((opt = getopt(argc, argv, "i:d:h")) != -1) {
		switch (opt) {
		case 'i': ms = atol(optarg); break;
		case 'd': secs = atof(optarg); break;
		default: usage();
		}
	}
	n = argc - optind;
	if (n < 1 || ms < 1)
		usage();
	specs = calloc(n, sizeof(*specs));
	if (!specs)
		return 1;
	for (i = 0; i < n; i++) {
		char *a = argv[optind + i], *eq = strchr(a, '='), *c1, *c2;

		if (!eq)
			usage();
		*eq = 0;
		specs[i].name = a;
		specs[i].path = eq + 1;
		c1 = strchr(eq + 1, ':');
		if (c1) {
			c2 = strchr(c1 + 1, ':');
			if (!c2)
				usage();
			*c1 = 0;
			*c2 = 0;
			specs[i].iface = c1 + 1;
			specs[i].col = atoi(c2 + 1);
		}
	}
	signal(SIGTERM, on_signal);
	signal(SIGINT, on_signal);
	setvbuf(stdout, NULL, _IOLBF, 0);
	printf("t");
	for (i = 0; i < n; i++)
		printf("\t%s", specs[i].name);
	printf("\n");
	clock_gettime(CLOCK_MONOTONIC, &next);
	t0 = next.tv_sec + next.tv_nsec / 1e9;
	while (!stop) {
		clock_gettime(CLOCK_REALTIME, &rt);
		printf("%ld.%06ld", (long)rt.tv_sec, rt.tv_nsec / 1000);
		for (i = 0; i < n; i++) {
			sample(&specs[i], val, sizeof(val));
			printf("\t%s", val);
		}
		printf("\n");
		clock_gettime(CLOCK_MONOTONIC, &now);
		if (secs > 0 && now.tv_sec + now.tv_nsec / 1e9 - t0 >= secs)
			break;
		/* the next tick after now (skipping ticks that were missed) */
		do {
			next.tv_nsec += ms * 1000000L;
			while (next.tv_nsec >= 1000000000L) {
				next.tv_nsec -= 1000000000L;
				next.tv_sec++;
			}
		} while (next.tv_sec < now.tv_sec ||
			 (next.tv_sec == now.tv_sec && next.tv_nsec <= now.tv_nsec));
		while (!stop && clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &next, NULL) == EINTR)
			;
	}
	return 0;
}
