/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * A periodic 1000 ms timer: wait -> data 1; sleep 1 s; wait -> data 1
 * again (one expiration per period, counted since the last retrieval, with
 * EV_CLEAR forced).  The retrieval is a blocking wait, as in FreeBSD's
 * timer.c test_periodic, so a retrieval exactly at a period boundary does
 * not race.  The data is checked against the periods measured on
 * CLOCK_MONOTONIC: never more than have elapsed (no early expiry), never
 * fewer than have elapsed 500 ms before the retrieval (generous); on an idle
 * machine this is exactly 1 per retrieval.
 */
#include "t_timer.h"

int main(void)
{
	int kq = t_kqueue();
	struct kevent ev[8];
	int ud;
	int64_t total = 0;

	int64_t a0 = t_now_ns();
	t_change(kq, 5, EVFILT_TIMER, EV_ADD, 0, 1000, &ud);
	int64_t a1 = t_now_ns();

	for (int round = 0; round < 2; round++) {
		if (round > 0)
			t_sleep_ms(1000);
		int64_t r0 = t_now_ns();
		T_EQ(t_wait(kq, ev, 8, 2000), 1);
		int64_t r1 = t_now_ns();
		T_KEVENT(&ev[0], 5, EVFILT_TIMER, EV_CLEAR, 0, ev[0].data, &ud);
		T_ASSERT(ev[0].data >= 1);
		total += ev[0].data;
		tt_check_total(round ? "second" : "first", total, a0, a1, r0,
			       r1, 1000 * MS, 500 * MS);
	}

	t_change(kq, 5, EVFILT_TIMER, EV_DELETE, 0, 0, NULL);
	T_NO_EVENTS(kq);
	close(kq);
	return 0;
}
