/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * One of many registered knotes becomes ready (9000 pipes with READ knotes,
 * where user-many-knotes uses 100000 USER knotes, to stay below the process
 * fd limit);
 * get returns exactly that one, quickly (no per-call cost that grows badly
 * with the number of idle knotes).  The pipe count is lowered if
 * RLIMIT_NOFILE cannot hold 9000 pipes (skip below 1000).
 */
#include "t.h"

#define WANT 9000

int main(void)
{
	long n = t_pipes_fit(WANT, 200, 1000);

	int kq = t_kqueue();
	int (*p)[2] = calloc((size_t)n, sizeof *p);
	struct kevent *ch = calloc((size_t)n, sizeof *ch);
	struct kevent ev[8];
	T_ASSERT(p && ch);
	for (long i = 0; i < n; i++) {
		t_pipe(p[i]);
		EV_SET(&ch[i], p[i][0], EVFILT_READ, EV_ADD, 0, 0,
		       (void *)(uintptr_t)(i + 1));
	}
	int64_t t0 = t_now_ns();
	T_EQ(kevent(kq, ch, (int)n, NULL, 0, NULL), 0);
	int64_t treg = t_now_ns() - t0;
	if (treg > 3000000000LL)
		T_FAIL("registering %ld knotes took %.1f ms", n, treg / 1e6);
	T_NO_EVENTS(kq);

	long k = n / 2;
	t_write(p[k][1], "xy", 2);
	t0 = t_now_ns();
	T_EQ(t_get(kq, ev, 8), 1);
	int64_t t1 = t_now_ns() - t0;
	T_KEVENT(&ev[0], p[k][0], EVFILT_READ, 0, 0, 2,
		 (void *)(uintptr_t)(k + 1));
	if (t1 > 200000000)
		T_FAIL("get with %ld idle knotes took %.1f ms", n, t1 / 1e6);

	/* The level knote, 100 more times: each call returns only it. */
	t0 = t_now_ns();
	for (int i = 0; i < 100; i++) {
		T_GET1(kq, p[k][0], EVFILT_READ, 0, 0, 2,
			 (void *)(uintptr_t)(k + 1));
	}
	t1 = t_now_ns() - t0;
	if (t1 > 2000000000LL)
		T_FAIL("100 gets with %ld idle knotes took %.1f ms", n,
		       t1 / 1e6);

	/* A second one, near the start of the table. */
	t_write(p[17][1], "z", 1);
	T_EQ(t_get(kq, ev, 8), 2);
	int a = ev[0].ident == (uintptr_t)p[17][0] ? 0 : 1;
	T_KEVENT(&ev[a], p[17][0], EVFILT_READ, 0, 0, 1, (void *)(uintptr_t)18);
	T_KEVENT(&ev[1 - a], p[k][0], EVFILT_READ, 0, 0, 2,
		 (void *)(uintptr_t)(k + 1));
	free(ch);
	free(p);
	return 0;
}
