/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * A pipe's EOF on WRITE, across calls: a WRITE|EV_CLEAR knote left queued by
 * one kevent() call whose pipe loses its reader before the next call is
 * reported once, with the state at delivery: EV_EOF and data 0, not the free
 * space its earlier epoll report saw followed by a second EV_EOF record.
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
		t_change(kq, p[i][1], EVFILT_WRITE, EV_ADD | EV_CLEAR, 0, 0,
			 (void *)(uintptr_t)(0x600 + i));
	}
	T_EQ(t_get(kq, ev, 1), 1);
	int first = (int)((uintptr_t)ev[0].udata - 0x600);
	int gone = first == 1 ? 2 : 1;
	close(p[gone][0]);

	int seen[N] = { 0 }, total = 1;
	seen[first] = 1;
	while (t_get(kq, ev, 1) == 1) {
		int i = (int)((uintptr_t)ev[0].udata - 0x600);
		T_ASSERT(i >= 0 && i < N);
		if (i == gone)
			T_KEVENT(&ev[0], p[i][1], EVFILT_WRITE, EV_CLEAR | EV_EOF,
				 0, 0, ev[0].udata);
		else
			T_ASSERT(ev[0].flags == EV_CLEAR && ev[0].data > 0);
		seen[i]++;
		T_ASSERT(++total <= N);
	}
	for (int i = 0; i < N; i++)
		if (seen[i] != 1)
			T_FAIL("knote %d reported %d times (want once)", i, seen[i]);
	return 0;
}
