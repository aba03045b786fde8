/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * EV_DISPATCH periodic 200 ms timer.  First record
 * {id, TIMER, EV_CLEAR|EV_DISPATCH, 0, 1, udata}; the knote is then disabled
 * (nothing for 0.5 s although the timer keeps running); a re-ADD with
 * EV_ENABLE|EV_DISPATCH restarts the timer and throws away what accumulated
 * while disabled (nothing pending right after it); 1.1 s later one record
 * carries data 5.  The count is checked against the periods measured on
 * CLOCK_MONOTONIC since the re-ADD (never more; at least those elapsed 50 ms
 * before the retrieval), which on an idle machine is exactly 5; then the
 * knote is disabled again.  FreeBSD timer.c test_dispatch.
 */
#include "t_timer.h"

int main(void)
{
	int kq = t_kqueue();
	struct kevent ev[8];
	int ud;

	int64_t a0 = t_now_ns();
	t_change(kq, 27, EVFILT_TIMER, EV_ADD | EV_DISPATCH, 0, 200, &ud);
	T_EQ(t_wait(kq, ev, 8, 1000), 1);
	T_KEVENT(&ev[0], 27, EVFILT_TIMER, EV_CLEAR | EV_DISPATCH, 0,
		 ev[0].data, &ud);
	if (ev[0].data < 1 || ev[0].data > (t_now_ns() - a0) / (200 * MS))
		T_FAIL("first record data %lld", (long long)ev[0].data);

	t_sleep_ms(500);
	T_NO_EVENTS(kq);

	int64_t b0 = t_now_ns();
	t_change(kq, 27, EVFILT_TIMER, EV_ADD | EV_ENABLE | EV_DISPATCH, 0, 200,
		 &ud);
	int64_t b1 = t_now_ns();
	T_NO_EVENTS(kq);

	t_sleep_ms(1100);
	int64_t r0 = t_now_ns();
	T_EQ(t_get(kq, ev, 8), 1);
	int64_t r1 = t_now_ns();
	T_KEVENT(&ev[0], 27, EVFILT_TIMER, EV_CLEAR | EV_DISPATCH, 0,
		 ev[0].data, &ud);
	/* 5 when idle */
	tt_check_total("after re-enabling", ev[0].data, b0, b1, r0, r1,
		       200 * MS, 50 * MS);
	T_NO_EVENTS(kq);
	t_change(kq, 27, EVFILT_TIMER, EV_DELETE, 0, 0, NULL);
	close(kq);
	return 0;
}
