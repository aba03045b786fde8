/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * Many knotes ready at once (Figure 11's "all active"): 4000 pipes, every
 * one readable, each with a READ knote whose udata names it.
 *   - kevent() with room for all (nevents 5000), zero timeout and then
 *     blocking: exactly 4000 records, each pipe once, data = its bytes;
 *   - nevents 100 (less than ready): 100 distinct records per call, and 40
 *     calls return every pipe exactly once (level knotes go to the back of
 *     the queue after delivery, FreeBSD's fairness);
 *   - nevents 30000 (more than libkq reads from epoll at once): still
 *     every pipe once.
 * libkq sizes its epoll buffer to nevents, within bounds, so these cover a
 * harvest that fits in one epoll_wait() and one that needs several.
 */
#include "t.h"

#define WANT 4000

static long n;
static int (*p)[2];
static int *seen;

static void check_all(int kq, struct kevent *ev, int nevents, const struct timespec *ts)
{
	memset(seen, 0, (size_t)n * sizeof *seen);
	int got = kevent(kq, NULL, 0, ev, nevents, ts);
	T_EQ(got, (int)n);
	for (int i = 0; i < got; i++) {
		long k = (long)(uintptr_t)ev[i].udata - 1;
		T_ASSERT(k >= 0 && k < n);
		T_KEVENT(&ev[i], p[k][0], EVFILT_READ, 0, 0, 1 + k % 7, ev[i].udata);
		T_EQ(seen[k], 0);
		seen[k] = 1;
	}
}

int main(void)
{
	n = t_pipes_fit(WANT, 100, 500);

	int kq = t_kqueue();
	p = calloc((size_t)n, sizeof *p);
	seen = calloc((size_t)n, sizeof *seen);
	struct kevent *ev = calloc(30000, sizeof *ev);
	T_ASSERT(p && seen && ev);
	for (long k = 0; k < n; k++) {
		t_pipe(p[k]);
		t_write(p[k][1], "abcdefg", (size_t)(1 + k % 7));
		t_change(kq, p[k][0], EVFILT_READ, EV_ADD, 0, 0, (void *)(uintptr_t)(k + 1));
	}

	struct timespec zero = { 0, 0 };
	check_all(kq, ev, (int)n + 1000, &zero);
	check_all(kq, ev, (int)n + 1000, NULL);
	check_all(kq, ev, 30000, &zero);

	memset(seen, 0, (size_t)n * sizeof *seen);
	long total = 0;
	while (total < n) {
		int got = t_get(kq, ev, 100);
		T_EQ(got, n - total < 100 ? (int)(n - total) : 100);
		for (int i = 0; i < got; i++) {
			long k = (long)(uintptr_t)ev[i].udata - 1;
			T_ASSERT(k >= 0 && k < n);
			if (seen[k])
				T_FAIL("pipe %ld returned twice before all %ld were returned once", k, n);
			seen[k] = 1;
		}
		total += got;
	}
	check_all(kq, ev, (int)n + 1000, &zero);
	T_ASSERT(close(kq) == 0);
	free(ev);
	return 0;
}
