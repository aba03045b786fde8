/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * Coalescing across calls: an EV_CLEAR READ knote left queued by one kevent()
 * call (more were ready than it had room for) and written to again before the
 * next call is one activation: one record whose data counts both writes, never
 * a second record of the same state.  Found by the fuzzer: the newer epoll
 * report used to be harvested after delivery.
 */
#include "t.h"

#define N 8

int main(void)
{
	int kq = t_kqueue();
	int p[N][2];
	struct kevent ev[1];

	for (int i = 0; i < N; i++) {
		t_pipe(p[i]);
		t_change(kq, p[i][0], EVFILT_READ, EV_ADD | EV_CLEAR, 0, 0,
			 (void *)(uintptr_t)(0x500 + i));
		t_write(p[i][1], "x", 1);
	}
	/* one record out; the others stay queued, some of them harvested */
	T_EQ(t_get(kq, ev, 1), 1);
	int first = (int)((uintptr_t)ev[0].udata - 0x500);
	int other = first == 1 ? 2 : 1;
	t_write(p[other][1], "y", 1);

	int seen[N] = { 0 }, total = 1;
	seen[first] = 1;
	while (t_get(kq, ev, 1) == 1) {
		int i = (int)((uintptr_t)ev[0].udata - 0x500);
		T_ASSERT(i >= 0 && i < N);
		T_KEVENT(&ev[0], p[i][0], EVFILT_READ, EV_CLEAR, 0,
			 i == other ? 2 : 1, ev[0].udata);
		seen[i]++;
		T_ASSERT(++total <= N);
	}
	for (int i = 0; i < N; i++)
		if (seen[i] != 1)
			T_FAIL("knote %d reported %d times (want once)", i, seen[i]);
	return 0;
}
