/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * A periodic 10 ms timer left alone for 105 ms is reported as ONE
 * record whose data counts all expirations (about 10): overruns are counted,
 * not queued as separate events and not lost.  The count is checked against
 * the periods measured on CLOCK_MONOTONIC: never more than elapsed (no early
 * expiry), at least those elapsed 25 ms before the retrieval.
 * libkqueue "overrun_count"; FreeBSD filt_timerexpire catch-up.
 */
#include "t_timer.h"

int main(void)
{
	int kq = t_kqueue();
	struct kevent ev[16];
	int ud;

	int64_t a0 = t_now_ns();
	t_change(kq, 7, EVFILT_TIMER, EV_ADD, 0, 10, &ud);
	int64_t a1 = t_now_ns();
	t_sleep_ms(105);
	int64_t r0 = t_now_ns();
	int n = t_get(kq, ev, 16);
	int64_t r1 = t_now_ns();
	T_EQ(n, 1);
	T_KEVENT(&ev[0], 7, EVFILT_TIMER, EV_CLEAR, 0, ev[0].data, &ud);

	tt_check_total("overruns", ev[0].data, a0, a1, r0, r1, 10 * MS,
		       25 * MS);
	if (ev[0].data < 2)
		T_FAIL("data %lld: overruns lost", (long long)ev[0].data);

	t_change(kq, 7, EVFILT_TIMER, EV_DELETE, 0, 0, NULL);
	T_NO_EVENTS(kq);
	close(kq);
	return 0;
}
