/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * Closing a kqueue releases all of its knotes.  A kqueue with knotes
 * on 1000 descriptors (READ on the read ends and WRITE on the write ends of
 * 500 pipes, all of them active) is created and closed 2000 times; the
 * process's descriptor count must not change and its resident memory must
 * not grow beyond a generous bound between iteration 100 and the end
 * (FreeBSD kqueue_close -> kqueue_drain; libkqueue test
 * "close_cleans_up_active_knotes").
 */
#include "t.h"

#include <sys/resource.h>

#define NPIPES 500
#define ITER 2000
#define RSS_SLACK (16L << 20)

#ifdef __SANITIZE_ADDRESS__
/* ASan parks freed memory in a 256 MiB quarantine before reusing it, which
 * would look like growth; keep it small so the bound below stays meaningful. */
const char *__asan_default_options(void);
const char *__asan_default_options(void)
{
	return "quarantine_size_mb=8";
}
#endif

static long rss_bytes(void)
{
	FILE *f = fopen("/proc/self/statm", "r");
	if (f == NULL)
		T_FAIL("fopen(/proc/self/statm): %s", strerror(errno));
	long size, res;
	if (fscanf(f, "%ld %ld", &size, &res) != 2)
		T_FAIL("cannot parse /proc/self/statm");
	fclose(f);
	return res * sysconf(_SC_PAGESIZE);
}

static struct kevent ch[2 * NPIPES];
static struct kevent ev[2 * NPIPES];

int main(void)
{
	struct rlimit rl;
	T_ASSERT(getrlimit(RLIMIT_NOFILE, &rl) == 0);
	if (rl.rlim_cur < 2 * NPIPES + 100) {
		if (rl.rlim_max != RLIM_INFINITY &&
		    rl.rlim_max < 2 * NPIPES + 100)
			T_SKIP("RLIMIT_NOFILE hard limit %llu < %d",
			       (unsigned long long)rl.rlim_max,
			       2 * NPIPES + 100);
		rl.rlim_cur = 2 * NPIPES + 100;
		T_ASSERT(setrlimit(RLIMIT_NOFILE, &rl) == 0);
	}

	static int p[NPIPES][2];
	for (int i = 0; i < NPIPES; i++) {
		if (pipe(p[i]) != 0)
			T_FAIL("pipe #%d: %s", i, strerror(errno));
		t_write(p[i][1], "x", 1);
		EV_SET(&ch[2 * i], p[i][0], EVFILT_READ, EV_ADD, 0, 0,
		       (void *)(intptr_t)i);
		EV_SET(&ch[2 * i + 1], p[i][1], EVFILT_WRITE, EV_ADD, 0, 0,
		       (void *)(intptr_t)i);
	}

	int fds0 = t_count_fds(), fds1 = -1;
	long rss100 = 0;
	int64_t t0 = t_now_ns();
	for (int it = 0; it < ITER; it++) {
		int kq = kqueue();
		if (kq < 0)
			T_FAIL("iteration %d: kqueue(): %s", it,
			       strerror(errno));
		int r = kevent(kq, ch, 2 * NPIPES, NULL, 0, NULL);
		if (r != 0)
			T_FAIL("iteration %d: registering %d knotes: %d (%s)",
			       it, 2 * NPIPES, r, strerror(errno));
		if (it % 4 == 0) {
			/* Deliver some, so both delivered and still-queued
			 * knotes are torn down by close(). */
			int n = t_get(kq, ev, 64);
			if (n != 64)
				T_FAIL("iteration %d: got %d records, "
				       "expected 64", it, n);
		}
		if (close(kq) != 0)
			T_FAIL("iteration %d: close(kq): %s", it,
			       strerror(errno));
		if (it == 0)
			fds1 = t_count_fds();
		if (it == 99)
			rss100 = rss_bytes();
	}
	int64_t elapsed_ms = (t_now_ns() - t0) / 1000000;
	int fds_end = t_count_fds();
	long rss_end = rss_bytes();
	fprintf(stderr, "%d iterations in %" PRId64 " ms; fds %d/%d/%d; "
		"rss %ld KiB at 100, %ld KiB at end\n", ITER, elapsed_ms,
		fds0, fds1, fds_end, rss100 >> 10, rss_end >> 10);

	/* Library-wide helpers created by the first kqueue may stay, a few. */
	if (fds1 > fds0 + 4)
		T_FAIL("first closed kqueue left %d descriptors", fds1 - fds0);
	if (fds_end != fds1)
		T_FAIL("descriptor count grew from %d to %d over %d "
		       "iterations", fds1, fds_end, ITER);
	if (rss_end - rss100 > RSS_SLACK)
		T_FAIL("resident memory grew by %ld KiB between iteration 100 "
		       "and %d", (rss_end - rss100) >> 10, ITER);

	/* The pipes were not harmed: a fresh kqueue sees them. */
	int kq = t_kqueue();
	t_change(kq, p[7][0], EVFILT_READ, EV_ADD, 0, 0, NULL);
	T_GET1(kq, p[7][0], EVFILT_READ, 0, 0, 1, NULL);
	return 0;
}
