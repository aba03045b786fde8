/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * A same-parameter re-ADD (as in timer-readd-same), with the delay between
 * the ADD of a ONESHOT 1 ms timer and its
 * identical re-ADD swept from 500 to 1500 us (below and beyond the expiry):
 * every iteration yields exactly one record, data 1, no earlier than 1 ms
 * after the re-ADD, and nothing else.  FreeBSD's test sweeps in 1 us steps
 * (1000 iterations); 2 us steps (500 iterations) keep the test near 2 s and
 * cover the same range.  FreeBSD timer.c test_update_timing.
 */
#include "t_timer.h"

int main(void)
{
	int kq = t_kqueue();
	struct kevent ev[8];

	for (long d = 500; d < 1500; d += 2) {
		t_change(kq, 24, EVFILT_TIMER, EV_ADD | EV_ONESHOT,
			 NOTE_USECONDS, 1000, NULL);
		tt_sleep_us(d);
		int64_t b0 = t_now_ns();
		t_change(kq, 24, EVFILT_TIMER, EV_ADD | EV_ONESHOT,
			 NOTE_USECONDS, 1000, NULL);
		int n = t_wait(kq, ev, 8, 1000);
		int64_t r1 = t_now_ns();
		if (n != 1)
			T_FAIL("delay %ld us: %d records", d, n);
		T_KEVENT(&ev[0], 24, EVFILT_TIMER, EV_CLEAR | EV_ONESHOT, 0, 1,
			 NULL);
		if (r1 - b0 < 1 * MS)
			T_FAIL("delay %ld us: fired %lld us after the re-ADD",
			       d, (long long)((r1 - b0) / 1000));
		t_sleep_ms(2);
		n = t_get(kq, ev, 8);
		if (n != 0) {
			t_print_kevent("  extra", &ev[0]);
			T_FAIL("delay %ld us: %d extra record(s)", d, n);
		}
	}
	close(kq);
	return 0;
}
