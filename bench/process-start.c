/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * process-start: what linking libkq adds to the start of a program, from
 * its exec to its exit.
 *
 * Three pairs of small programs, built beside this one from bench/start/:
 *   empty   process-start-libkq (linked with libkq.so, main() calls
 *           nothing of it) against process-start-plain (not linked with
 *           libkq): the loader's search, mapping and relocating of one more
 *           library, and whatever libkq does before main();
 *   floor   process-start-lib (linked with libprocess-start-lib.so, a
 *           library with one empty function, linked with the toolchain's
 *           defaults) against process-start-plain: what one more library
 *           costs whatever it holds, the part of "empty" libkq cannot
 *           remove;
 *   kqueue  process-start-kqueue (kqueue() and close()) against
 *           process-start-epoll (epoll_create1() and close(), no libkq):
 *           that and the first kqueue's creation.
 * The two programs of a pair are started in turn (posix_spawn, then
 * wait4()), the one going first alternating, so that a machine growing
 * busier weighs on both alike.  A start's figure is the child's CPU time
 * (user + system, from wait4()'s rusage: the kernel's exec, the loader,
 * the program and its exit), or with --clock=wall the time from spawning
 * to reaping.  Each program's figure is its median start; the ratio is
 * the first program's over the second's, and low_ratio the same of the
 * 10th percentiles (the starts least disturbed by other work).  Each
 * program runs blocks * per_block times.
 *
 * In a build tree the libkq programs find libkq.so, and process-start-lib
 * its library, through their RUNPATH (a directory of the build): the
 * loader looks there first for every library they need, so libc.so.6
 * costs one failed open more than with the library in the system's
 * directory (which measured no different here).  --dir=DIR runs the
 * programs found in DIR instead (built against an installed libkq).
 *
 * Output:
 *   process-start pair=<empty|floor|kqueue> us=<us> base_us=<us>
 *       ratio=<us/base_us> low_ratio=<10th percentiles> iqr_pct=<%>
 *       base_iqr_pct=<%> starts=<per program> [target=1.05, pair=empty]
 * Exit: 0 done, 1 a program failed to start or exited with a failure,
 * 2 bad usage.
 */
#include "bench.h"

#include <limits.h>
#include <spawn.h>
#include <sys/wait.h>

extern char **environ;

static const char *opt_dir;

static int parse_extra(const char *a)
{
	if (strncmp(a, "--dir=", 6) != 0)
		return 0;
	opt_dir = a + 6;
	return 1;
}

/* Starts path once and waits for it: its CPU time (or, with --clock=wall,
 * spawn to reap) in ns. */
static double start_once(const char *path)
{
	char *argv[] = { (char *)path, NULL };
	int64_t t0 = bench_now_ns();
	pid_t pid;
	int err = posix_spawn(&pid, path, NULL, NULL, argv, environ);
	if (err) {
		errno = err;
		bench_die(path);
	}
	int st;
	struct rusage ru;
	pid_t r;
	do
		r = wait4(pid, &st, 0, &ru);
	while (r < 0 && errno == EINTR);
	int64_t t1 = bench_now_ns();
	if (r != pid)
		bench_die("wait4");
	if (!WIFEXITED(st) || WEXITSTATUS(st) != 0)
		bench_fail("%s ended with status %#x", path, st);
	if (bench_clockid == CLOCK_MONOTONIC)
		return (double)(t1 - t0);
	return (double)(ru.ru_utime.tv_sec + ru.ru_stime.tv_sec) * 1e9 +
	       (double)(ru.ru_utime.tv_usec + ru.ru_stime.tv_usec) * 1e3;
}

static void run_pair(const char *pair, const char *prog_a, const char *prog_b,
		     long blocks, long per_block)
{
	const char *prog[2] = { prog_a, prog_b };
	size_t n = (size_t)(blocks * per_block);
	double *fig[2] = { bench_alloc(n, sizeof(double)), bench_alloc(n, sizeof(double)) };
	/* the page cache and the loader's cache warm for both */
	for (int c = 0; c < 2; c++)
		for (int i = 0; i < 5; i++)
			start_once(prog[c]);
	for (size_t i = 0; i < n; i++)
		for (int pos = 0; pos < 2; pos++) {
			int c = bench_turn((long)i, pos, 2);
			fig[c][i] = start_once(prog[c]);
		}
	double mk = bench_median(fig[0], n), mb = bench_median(fig[1], n);
	double lk = bench_quantile(fig[0], n, 0.1), lb = bench_quantile(fig[1], n, 0.1);
	printf("process-start pair=%s us=%.1f base_us=%.1f ratio=%.3f low_ratio=%.3f "
	       "iqr_pct=%.0f base_iqr_pct=%.0f starts=%zu%s\n",
	       pair, mk / 1e3, mb / 1e3, mb > 0 ? mk / mb : 0.0, lb > 0 ? lk / lb : 0.0,
	       bench_iqr_pct(fig[0], n), bench_iqr_pct(fig[1], n), n,
	       strcmp(pair, "empty") == 0 ? " target=1.05" : "");
	fflush(stdout);
	free(fig[0]);
	free(fig[1]);
}

int main(int argc, char **argv)
{
	struct bench_opts o;
	bench_parse_args(argc, argv, &o, parse_extra, "[--dir=DIR]");
	long blocks = o.blocks ? o.blocks : o.quick ? 1 : 30;
	long per_block = o.per_block ? o.per_block : o.quick ? 10 : 50;

	char dir[PATH_MAX];
	if (opt_dir) {
		snprintf(dir, sizeof dir, "%s", opt_dir);
	} else {
		ssize_t n = readlink("/proc/self/exe", dir, sizeof dir - 1);
		if (n <= 0)
			bench_die("readlink(/proc/self/exe)");
		dir[n] = 0;
		char *slash = strrchr(dir, '/');
		if (slash)
			*slash = 0;
	}
	/* the pairs, each program by the end of its name */
	static const char *const pairs[][3] = {
		{ "empty", "libkq", "plain" },
		{ "floor", "lib", "plain" },
		{ "kqueue", "kqueue", "epoll" },
	};
	char path[2][PATH_MAX + 32];
	bench_header("process-start", &o);
	for (size_t p = 0; p < sizeof pairs / sizeof pairs[0]; p++) {
		for (int i = 0; i < 2; i++) {
			snprintf(path[i], sizeof path[i], "%s/process-start-%s", dir, pairs[p][1 + i]);
			if (access(path[i], X_OK) != 0)
				bench_die(path[i]);
		}
		run_pair(pairs[p][0], path[0], path[1], blocks, per_block);
	}
	return 0;
}
