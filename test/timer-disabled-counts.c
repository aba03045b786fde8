/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * A disabled periodic timer keeps expiring: periodic 100 ms, DISABLE at
 * once, 350 ms later nothing has been reported, and after EV_ENABLE one
 * record is available at once whose data is the accumulated count (3 on an
 * idle machine).  A second disabled stretch (250 ms) accumulates again,
 * counted from the previous retrieval.  Counts are checked as a running
 * total against the periods measured on CLOCK_MONOTONIC since the ADD:
 * never more (no early expiry), at least those elapsed 50 ms before the
 * retrieval (nothing lost).  FreeBSD filt_timerexpire (counts while
 * KN_DISABLED), kqueue_register EV_ENABLE.
 */
#include "t_timer.h"

int main(void)
{
	int kq = t_kqueue();
	struct kevent ev[8];
	int ud;
	int64_t total = 0;

	int64_t a0 = t_now_ns();
	t_change(kq, 28, EVFILT_TIMER, EV_ADD, 0, 100, &ud);
	int64_t a1 = t_now_ns();
	t_change(kq, 28, EVFILT_TIMER, EV_DISABLE, 0, 0, &ud);
	t_sleep_ms(350);
	T_NO_EVENTS(kq);
	int64_t r0 = t_now_ns();
	t_change(kq, 28, EVFILT_TIMER, EV_ENABLE, 0, 0, &ud);
	T_EQ(t_get(kq, ev, 8), 1);
	int64_t r1 = t_now_ns();
	T_KEVENT(&ev[0], 28, EVFILT_TIMER, EV_CLEAR, 0, ev[0].data, &ud);
	total += ev[0].data;
	tt_check_total("first enable", total, a0, a1, r0, r1, 100 * MS,
		       50 * MS);

	t_change(kq, 28, EVFILT_TIMER, EV_DISABLE, 0, 0, &ud);
	t_sleep_ms(250);
	T_NO_EVENTS(kq);
	r0 = t_now_ns();
	t_change(kq, 28, EVFILT_TIMER, EV_ENABLE, 0, 0, &ud);
	T_EQ(t_get(kq, ev, 8), 1);
	r1 = t_now_ns();
	T_KEVENT(&ev[0], 28, EVFILT_TIMER, EV_CLEAR, 0, ev[0].data, &ud);
	T_ASSERT(ev[0].data >= 2);
	total += ev[0].data;
	tt_check_total("second enable", total, a0, a1, r0, r1, 100 * MS,
		       50 * MS);

	t_change(kq, 28, EVFILT_TIMER, EV_DELETE, 0, 0, NULL);
	close(kq);
	return 0;
}
