/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * 5000 relative timers in one kqueue all succeed (each ADD|RECEIPT
 * gives a record with flags EV_ERROR and data 0), none fires early, and all
 * can be deleted.
 * Deviation from FreeBSD: FreeBSD counts timers system-wide against
 * kern.kq_calloutmax (4096) and fails further ADDs with ENOMEM; the library
 * has no timer limit other than memory, because all timers of a kqueue
 * share one timerfd (no kernel resource per timer).
 */
#include "t.h"

#define N 5000

int main(void)
{
	int kq = t_kqueue();
	static struct kevent ch[N], ev[N];
	struct timespec z = { 0, 0 };

	for (int i = 0; i < N; i++)
		EV_SET(&ch[i], i + 1, EVFILT_TIMER, EV_ADD | EV_RECEIPT, 0,
		       60000 + i, (void *)(uintptr_t)i);
	int n = kevent(kq, ch, N, ev, N, &z);
	if (n < 0)
		T_FAIL("kevent(%d timers): %s", N, strerror(errno));
	T_EQ(n, N);
	for (int i = 0; i < N; i++)
		T_KEVENT(&ev[i], i + 1, EVFILT_TIMER, EV_ERROR, 0, 0,
			 (void *)(uintptr_t)i);
	T_NO_EVENTS(kq);

	/* 5000 more, added one call each, also succeed. */
	for (int i = 0; i < N; i++)
		t_change(kq, N + 1 + i, EVFILT_TIMER, EV_ADD, NOTE_SECONDS,
			 100, NULL);
	T_NO_EVENTS(kq);
	for (int i = 0; i < 2 * N; i++)
		t_change(kq, i + 1, EVFILT_TIMER, EV_DELETE, 0, 0, NULL);
	T_NO_EVENTS(kq);
	close(kq);
	return 0;
}
