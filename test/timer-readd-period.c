/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * A periodic 1000 ms timer, re-ADDed with period 500 ms right after its
 * first record, reports data 2 one second later: the new period is in
 * effect.  The case sleeps 1 s, which would put the retrieval exactly on the
 * second 500 ms expiry; sleeping 1.25 s (mid-period) checks the same without
 * racing the boundary.  The count is checked against the periods measured
 * on CLOCK_MONOTONIC since the re-ADD (never more; at least those elapsed
 * 200 ms before retrieval): exactly 2 on an idle machine.  FreeBSD timer.c.
 */
#include "t_timer.h"

int main(void)
{
	int kq = t_kqueue();
	struct kevent ev[8];
	int ud;

	t_change(kq, 6, EVFILT_TIMER, EV_ADD, 0, 1000, &ud);
	T_WAIT1(kq, 2000, 6, EVFILT_TIMER, EV_CLEAR, 0, 1, &ud);

	int64_t a0 = t_now_ns();
	t_change(kq, 6, EVFILT_TIMER, EV_ADD, 0, 500, &ud);
	int64_t a1 = t_now_ns();
	t_sleep_ms(1250);
	int64_t r0 = t_now_ns();
	T_EQ(t_get(kq, ev, 8), 1);
	int64_t r1 = t_now_ns();
	T_KEVENT(&ev[0], 6, EVFILT_TIMER, EV_CLEAR, 0, ev[0].data, &ud);
	tt_check_total("after re-ADD with 500 ms", ev[0].data, a0, a1, r0,
		       r1, 500 * MS, 200 * MS);

	t_change(kq, 6, EVFILT_TIMER, EV_DELETE, 0, 0, NULL);
	close(kq);
	return 0;
}
