/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * Shared helpers for the libkq benchmarks (header only).
 *
 * Method: the machines are shared and
 * noisy, so every result is a ratio of two contenders measured side by side in
 * one process.  A run is a sequence of blocks; each block times a fixed amount
 * of work for contender A and for contender B, and the one that goes first
 * alternates from block to block.  A contender's figure is the median of its
 * per-block figures; the ratio is libkq's median over the baseline's median.
 * Blocks are timed in process CPU time by default (see bench_clockid).
 *
 * Output is machine readable: one line per result, "<bench> key=value ...".
 * Lines starting with '#' are comments (the header, notes).
 */
#ifndef LIBKQ_BENCH_H
#define LIBKQ_BENCH_H

#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <pthread.h>
#include <sched.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/utsname.h>
#include <time.h>
#include <unistd.h>

struct bench_opts {
	int quick;        /* --quick: a smoke run for the test suite */
	int wall;         /* --clock=wall: time blocks by the monotonic clock */
	long blocks;      /* --blocks=N: 0 = the program's default */
	long per_block;   /* --per-block=N: work items per block, 0 = default */
};

/* Monotonic clock in nanoseconds (vDSO, ~20 ns: read per block, not per op). */
static inline int64_t bench_now_ns(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

/* The clock blocks are timed with.  By default the process's CPU time
 * (user + system, all threads): on a shared machine a block during which the
 * process sat preempted would otherwise count someone else's work, and with
 * 2 CPUs and a load above 2 that is a good part of the blocks.  Both
 * contenders run in this thread and do all their work in their own calls,
 * so CPU time is the cost of the calls.  --clock=wall selects
 * CLOCK_MONOTONIC (also what bench_now_ns() reads). */
static clockid_t bench_clockid = CLOCK_PROCESS_CPUTIME_ID;

static inline int64_t bench_clock_ns(void)
{
	struct timespec ts;
	clock_gettime(bench_clockid, &ts);
	return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

/* A correctness assertion failed: the run is worthless, exit status 1. */
__attribute__((noreturn, format(printf, 1, 2), cold))
static inline void bench_fail(const char *fmt, ...)
{
	va_list ap;
	fflush(stdout);
	fputs("FAIL: ", stderr);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	exit(1);
}

/* A system call needed for the setup failed (not a libkq result): exit 1. */
__attribute__((noreturn, cold))
static inline void bench_die(const char *what)
{
	bench_fail("%s: %s", what, strerror(errno));
}

/* Keeps thread th on one CPU. */
static inline void bench_pin_thread(pthread_t th, int cpu)
{
	cpu_set_t set;
	CPU_ZERO(&set);
	CPU_SET(cpu, &set);
	int e = pthread_setaffinity_np(th, sizeof set, &set);
	if (e != 0) {
		errno = e;
		bench_die("pthread_setaffinity_np");
	}
}

/* The first two CPUs this process may use, into cpus[] (-1 where there is
 * none); returns how many there are (0 to 2). */
static inline int bench_two_cpus(int cpus[2])
{
	cpu_set_t allowed;
	if (sched_getaffinity(0, sizeof allowed, &allowed) != 0)
		bench_die("sched_getaffinity");
	int n = 0;
	cpus[0] = cpus[1] = -1;
	for (int c = 0; c < CPU_SETSIZE && n < 2; c++)
		if (CPU_ISSET(c, &allowed))
			cpus[n++] = c;
	return n;
}

/* Where two threads that wake each other run (--cpu=): on two CPUs, on
 * one, or both measured in turn. */
enum { BENCH_CPU_CROSS = 1, BENCH_CPU_SAME = 2 };

/* --cpu=cross|same|both as parsed by bench_parse_place(), an `extra` for
 * bench_parse_args(); 0 when not given (both). */
static int bench_place;

static inline int bench_parse_place(const char *arg)
{
	if (strcmp(arg, "--cpu=cross") == 0)
		bench_place = BENCH_CPU_CROSS;
	else if (strcmp(arg, "--cpu=same") == 0)
		bench_place = BENCH_CPU_SAME;
	else if (strcmp(arg, "--cpu=both") == 0)
		bench_place = BENCH_CPU_CROSS | BENCH_CPU_SAME;
	else
		return 0;
	return 1;
}

/* Runs measure() for each placement asked for (bench_place) of the calling
 * thread and the thread `other` it plays against: cross (the first two
 * usable CPUs), then same (both on the first).  headline is 1 for the
 * placement a summary should quote: cross, or same when cross is not run
 * (or cannot be: one usable CPU, which is then said in a comment line). */
static inline void bench_placements(pthread_t other,
				    void (*measure)(const char *placement, int headline, void *ctx),
				    void *ctx)
{
	int place = bench_place ? bench_place : BENCH_CPU_CROSS | BENCH_CPU_SAME;
	int cpus[2];
	int n = bench_two_cpus(cpus);
	if (place & BENCH_CPU_CROSS) {
		if (n < 2) {
			printf("# only one CPU is usable: no cross-CPU measurement\n");
		} else {
			bench_pin_thread(pthread_self(), cpus[0]);
			bench_pin_thread(other, cpus[1]);
			measure("cross", 1, ctx);
		}
	}
	if (place & BENCH_CPU_SAME) {
		bench_pin_thread(pthread_self(), cpus[0]);
		bench_pin_thread(other, cpus[0]);
		measure("same", !(place & BENCH_CPU_CROSS) || n < 2, ctx);
	}
}

/* Keeps the calling process on one CPU (cpu < 0: anywhere). */
static inline void bench_pin_to(int cpu)
{
	if (cpu < 0)
		return;
	cpu_set_t set;
	CPU_ZERO(&set);
	CPU_SET(cpu, &set);
	if (sched_setaffinity(0, sizeof set, &set) != 0)
		bench_die("sched_setaffinity");
}

static inline void bench_nodelay(int fd)
{
	int one = 1;
	if (setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one) != 0)
		bench_die("setsockopt(TCP_NODELAY)");
}

/* One whole message of len bytes from a control socket (SOCK_SEQPACKET or
 * a socketpair used one message at a time), or the benchmark fails. */
static inline void bench_recv_exact(int ctl, void *buf, size_t len)
{
	ssize_t r;
	do
		r = recv(ctl, buf, len, 0);
	while (r < 0 && errno == EINTR);
	if (r != (ssize_t)len)
		bench_fail("control socket: got %zd bytes (%s)", r, r < 0 ? strerror(errno) : "");
}

static inline int bench_cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return (x > y) - (x < y);
}

/* The q-quantile (0 <= q <= 1) of v[0..n), linear interpolation between the
 * two nearest ranks; v is left untouched.  q = 0.5 is the median. */
static inline double bench_quantile(const double *v, size_t n, double q)
{
	if (n == 0)
		return 0.0;
	double *s = malloc(n * sizeof *s);
	if (!s)
		bench_die("malloc");
	memcpy(s, v, n * sizeof *s);
	qsort(s, n, sizeof *s, bench_cmp_double);
	double pos = q * (double)(n - 1);
	size_t lo = (size_t)pos;
	size_t hi = lo + 1 < n ? lo + 1 : lo;
	double r = s[lo] + (s[hi] - s[lo]) * (pos - (double)lo);
	free(s);
	return r;
}

static inline double bench_median(const double *v, size_t n)
{
	return bench_quantile(v, n, 0.5);
}

/* Interquartile range as a percentage of the median: how noisy a series was. */
static inline double bench_iqr_pct(const double *v, size_t n)
{
	double m = bench_median(v, n);
	if (m <= 0.0)
		return 0.0;
	return 100.0 * (bench_quantile(v, n, 0.75) - bench_quantile(v, n, 0.25)) / m;
}

static inline long bench_parse_long(const char *arg, const char *val)
{
	char *end;
	errno = 0;
	long v = strtol(val, &end, 10);
	if (errno || end == val || *end || v <= 0) {
		fprintf(stderr, "bad value for %s: '%s'\n", arg, val);
		exit(2);
	}
	return v;
}

/* Parses a comma-separated list of integers >= min ("1,100,1000") into
 * out[0..max); returns how many.  Exits 2 on a malformed list. */
static inline int bench_parse_list(const char *arg, const char *val, long min, long *out,
				   int max)
{
	int n = 0;
	const char *p = val;
	while (*p) {
		char *end;
		errno = 0;
		long v = strtol(p, &end, 10);
		if (errno || end == p || v < min || n == max || (*end && *end != ',')) {
			fprintf(stderr, "bad list for %s: '%s' (at most %d numbers >= %ld, "
				"comma-separated)\n", arg, val, max, min);
			exit(2);
		}
		out[n++] = v;
		p = *end ? end + 1 : end;
	}
	if (n == 0) {
		fprintf(stderr, "empty list for %s\n", arg);
		exit(2);
	}
	return n;
}

/* Parses the options common to every benchmark.  `extra` (may be NULL) gets
 * first look at each argument and returns 1 when it consumed it.  Exits 2 on
 * an unknown argument, 0 after --help. */
static inline void bench_parse_args(int argc, char **argv, struct bench_opts *o,
				    int (*extra)(const char *arg), const char *usage_extra)
{
	memset(o, 0, sizeof *o);
	for (int i = 1; i < argc; i++) {
		const char *a = argv[i];
		if (extra && extra(a))
			continue;
		if (strcmp(a, "--quick") == 0)
			o->quick = 1;
		else if (strcmp(a, "--clock=wall") == 0)
			o->wall = 1;
		else if (strcmp(a, "--clock=cpu") == 0)
			o->wall = 0;
		else if (strncmp(a, "--blocks=", 9) == 0)
			o->blocks = bench_parse_long("--blocks", a + 9);
		else if (strncmp(a, "--per-block=", 12) == 0)
			o->per_block = bench_parse_long("--per-block", a + 12);
		else {
			int help = strcmp(a, "--help") == 0 || strcmp(a, "-h") == 0;
			fprintf(help ? stdout : stderr,
				"usage: %s [--quick] [--clock=cpu|wall] [--blocks=N] [--per-block=N]%s%s\n",
				argv[0], usage_extra ? " " : "", usage_extra ? usage_extra : "");
			exit(help ? 0 : 2);
		}
	}
	bench_clockid = o->wall ? CLOCK_MONOTONIC : CLOCK_PROCESS_CPUTIME_ID;
}


/* calloc(n, size) or exit 1. */
static inline void *bench_alloc(size_t n, size_t size)
{
	void *p = calloc(n ? n : 1, size ? size : 1);
	if (!p)
		bench_die("calloc");
	return p;
}

/* The contender that takes turn `pos` (0 = first) in block `b` when `n`
 * contenders share every block.  Block b starts with contender b % n and goes
 * round; every other cycle of n blocks runs the order backwards.  Over any n
 * consecutive blocks each contender takes each place once, so no contender
 * always follows the same other one (for n = 2: A B, B A, B A, A B, ...). */
static inline int bench_turn(long b, int pos, int n)
{
	int first = (int)(b % n);
	int k = (b / n) % 2 ? n - 1 - pos : pos;
	return (first + k) % n;
}

/* Closes with the raw system call.  The programs are linked with libkq,
 * whose close() first looks the number up in its tables; a baseline's
 * descriptors (epoll sets, timerfds, a poll() server's sockets) should not
 * be charged for that.  Never use it on a descriptor a kqueue has knotes on. */
static inline void bench_raw_close(int fd)
{
	if (syscall(SYS_close, fd) != 0)
		bench_die("close");
}

/* Moves `fd` to the lowest free number >= `min` (fcntl F_DUPFD_CLOEXEC) and
 * returns the new number; the old one is closed.  Used to keep the numbers
 * select() watches below FD_SETSIZE. */
static inline int bench_fd_move_above(int fd, int min)
{
	int n = fcntl(fd, F_DUPFD_CLOEXEC, min);
	if (n < 0)
		bench_die("fcntl(F_DUPFD_CLOEXEC)");
	bench_raw_close(fd);
	return n;
}

/* The calling thread's timer slack in ns (what the kernel may add to a
 * sleep's expiry so wake-ups coalesce; 50 us by default), or
 * -1 if it cannot be read. */
static inline long bench_timer_slack(void)
{
	int r = prctl(PR_GET_TIMERSLACK, 0, 0, 0, 0);
	return r < 0 ? -1 : (long)r;
}

/* The CPU model named by /proc/cpuinfo ("model name", or on some
 * architectures "Model"/"cpu model"/"Processor"), or "unknown".  On x86
 * the family and model numbers follow: a virtual machine often names
 * only the vendor's line ("AMD EPYC"), which spans processors whose
 * system calls cost twice as much as each other's. */
static inline void bench_cpu_model(char *buf, size_t len)
{
	static const char *const keys[] = { "model name", "Model", "cpu model", "Processor" };
	snprintf(buf, len, "unknown");
	FILE *f = fopen("/proc/cpuinfo", "r");
	if (!f)
		return;
	char line[512];
	int found = 0, family = -1, model = -1;
	while (fgets(line, sizeof line, f) && line[0] != '\n') {
		if (sscanf(line, "cpu family : %d", &family) == 1 ||
		    sscanf(line, "model : %d", &model) == 1 || found)
			continue;
		for (size_t k = 0; k < sizeof keys / sizeof keys[0]; k++) {
			size_t kl = strlen(keys[k]);
			if (strncmp(line, keys[k], kl) != 0)
				continue;
			const char *p = line + kl;
			while (*p == ' ' || *p == '\t')
				p++;
			if (*p != ':')
				continue;
			p++;
			while (*p == ' ' || *p == '\t')
				p++;
			snprintf(buf, len, "%s", p);
			found = 1;
			break;
		}
	}
	fclose(f);
	if (found && family >= 0 && model >= 0) {
		size_t n = strcspn(buf, "\n");
		snprintf(buf + n, len - n, " (family %d, model %d)", family, model);
	}
	/* Strip the newline; a '"' would break the quoted header field. */
	for (char *c = buf; *c; c++) {
		if (*c == '\n') {
			*c = '\0';
			break;
		}
		if (*c == '"')
			*c = '\'';
	}
}

/* Raises the soft descriptor limit to the hard one; returns the soft limit
 * now in force (the machines here have a hard limit of 20,000). */
static inline long bench_raise_nofile(void)
{
	struct rlimit rl;
	if (getrlimit(RLIMIT_NOFILE, &rl) != 0)
		return 1024;
	if (rl.rlim_cur < rl.rlim_max) {
		struct rlimit want = { rl.rlim_max, rl.rlim_max };
		if (setrlimit(RLIMIT_NOFILE, &want) == 0)
			rl.rlim_cur = rl.rlim_max;
	}
	if (rl.rlim_cur == RLIM_INFINITY || rl.rlim_cur > (rlim_t)1 << 30)
		return 1L << 30;
	return (long)rl.rlim_cur;
}

/* The header comment: what ran where.  Example:
 *   # wait-one-ready kernel=6.18.44 arch=x86_64 cpu="..." cpus=2 loadavg=0.10 mode=full clock=cpu */
static inline void bench_header(const char *name, const struct bench_opts *o)
{
	struct utsname u;
	char cpu[256];
	if (uname(&u) != 0) {
		snprintf(u.release, sizeof u.release, "unknown");
		snprintf(u.machine, sizeof u.machine, "unknown");
	}
	bench_cpu_model(cpu, sizeof cpu);
	/* The 1-minute load average: other work on a shared machine shows up
	 * as block-to-block spread (the *_iqr_pct fields), so say how busy it was. */
	double load = -1.0;
	FILE *f = fopen("/proc/loadavg", "r");
	if (f) {
		if (fscanf(f, "%lf", &load) != 1)
			load = -1.0;
		fclose(f);
	}
	printf("# %s kernel=%s arch=%s cpu=\"%s\" cpus=%ld loadavg=%.2f mode=%s clock=%s\n",
	       name, u.release, u.machine, cpu, sysconf(_SC_NPROCESSORS_ONLN), load,
	       o->quick ? "quick" : "full", o->wall ? "wall" : "cpu");
	fflush(stdout);
}

#endif /* LIBKQ_BENCH_H */
