/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * A ONESHOT 1 ms timer re-ADDed with the same parameters 600 us later
 * restarts: its only record comes no earlier than 1 ms after the re-ADD
 * (not from the first ADD), with data 1, and nothing follows.  Repeated 20
 * times.  FreeBSD timer.c test_update_equal.
 */
#include "t_timer.h"

int main(void)
{
	int kq = t_kqueue();
	struct kevent ev[8];

	for (int i = 0; i < 20; i++) {
		t_change(kq, 22, EVFILT_TIMER, EV_ADD | EV_ONESHOT,
			 NOTE_USECONDS, 1000, NULL);
		tt_sleep_us(600);
		int64_t b0 = t_now_ns();
		t_change(kq, 22, EVFILT_TIMER, EV_ADD | EV_ONESHOT,
			 NOTE_USECONDS, 1000, NULL);
		T_EQ(t_wait(kq, ev, 8, 1000), 1);
		int64_t r1 = t_now_ns();
		T_KEVENT(&ev[0], 22, EVFILT_TIMER, EV_CLEAR | EV_ONESHOT, 0, 1,
			 NULL);
		if (r1 - b0 < 1 * MS)
			T_FAIL("iteration %d: fired %lld us after the re-ADD",
			       i, (long long)((r1 - b0) / 1000));
		t_sleep_ms(2);
		T_NO_EVENTS(kq);
	}
	close(kq);
	return 0;
}
