/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * ADD a 1000 ms timer without EV_CLEAR
 * and wait: after no less than 1 s (and within a generous 1.5 s) the record
 * {1, TIMER, EV_CLEAR, 0, 1, udata} arrives.  FreeBSD forces EV_CLEAR on
 * relative timers (filt_timerattach), so it shows in the returned flags
 * though it was not requested; fflags are not echoed.  FreeBSD timer.c.
 */
#include "t_timer.h"

int main(void)
{
	int kq = t_kqueue();
	struct kevent ev[8];
	int ud;

	int64_t a0 = t_now_ns();
	t_change(kq, 1, EVFILT_TIMER, EV_ADD, 0, 1000, &ud);
	T_NO_EVENTS(kq);
	int n = t_wait(kq, ev, 8, 2000);
	int64_t r1 = t_now_ns();
	T_EQ(n, 1);
	T_KEVENT(&ev[0], 1, EVFILT_TIMER, EV_CLEAR, 0, 1, &ud);
	tt_fired_in("1000 ms timer", r1 - a0, 1000 * MS, 1500 * MS);

	t_change(kq, 1, EVFILT_TIMER, EV_DELETE, 0, 0, NULL);
	T_NO_EVENTS(kq);
	close(kq);
	return 0;
}
