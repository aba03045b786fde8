/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * Relative timers report EV_CLEAR in their flags though it was
 * not requested, whatever else was asked: periodic -> EV_CLEAR, EV_ONESHOT
 * -> EV_CLEAR|EV_ONESHOT, EV_DISPATCH -> EV_CLEAR|EV_DISPATCH, and an
 * explicit EV_CLEAR -> EV_CLEAR; in every unit.  FreeBSD filt_timerattach
 * sets EV_CLEAR for non-NOTE_ABSTIME timers; FreeBSD timer.c.
 */
#include "t.h"

#define N 6

int main(void)
{
	int kq = t_kqueue();
	struct kevent ev[16];
	static const unsigned short add[N] = { 0, EV_ONESHOT, EV_DISPATCH,
		EV_CLEAR, 0, EV_ONESHOT };
	static const unsigned short want[N] = { EV_CLEAR, EV_CLEAR | EV_ONESHOT,
		EV_CLEAR | EV_DISPATCH, EV_CLEAR, EV_CLEAR,
		EV_CLEAR | EV_ONESHOT };
	static const unsigned unit[N] = { 0, 0, 0, 0, NOTE_USECONDS,
		NOTE_NSECONDS };
	static const int64_t data[N] = { 20, 20, 20, 20, 20000, 20000000 };
	int seen[N] = { 0 };

	for (int i = 0; i < N; i++)
		t_change(kq, i + 1, EVFILT_TIMER, EV_ADD | add[i], unit[i],
			 data[i], (void *)(uintptr_t)(i + 1));
	int got = 0;
	int64_t start = t_now_ns();
	while (got < N && t_now_ns() - start < 2000000000LL) {
		int n = t_wait(kq, ev, 16, 200);
		for (int k = 0; k < n; k++) {
			uintptr_t id = ev[k].ident;
			T_ASSERT(id >= 1 && id <= N);
			int i = (int)id - 1;
			T_KEVENT(&ev[k], id, EVFILT_TIMER, want[i], 0,
				 ev[k].data, (void *)id);
			T_ASSERT(ev[k].data >= 1);
			if (!seen[i]++)
				got++;
		}
	}
	for (int i = 0; i < N; i++)
		if (!seen[i])
			T_FAIL("timer %d (flags 0x%x) never reported", i + 1,
			       add[i]);
	close(kq);
	return 0;
}
