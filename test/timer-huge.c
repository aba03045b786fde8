/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * A huge period is accepted and saturated, not overflowed into a
 * short or negative one: NOTE_NSECONDS 2^62 (periodic and ONESHOT), and the
 * same principle for INT64_MAX in seconds, milliseconds and microseconds
 * (whose conversion to nanoseconds overflows 64 bits).  None fires early:
 * nothing within 200 ms; all can be deleted.  libkqueue "huge_interval".
 */
#include "t.h"

int main(void)
{
	int kq = t_kqueue();
	struct kevent ev[8];

	t_change(kq, 1, EVFILT_TIMER, EV_ADD, NOTE_NSECONDS, INT64_C(1) << 62,
		 NULL);
	t_change(kq, 2, EVFILT_TIMER, EV_ADD | EV_ONESHOT, NOTE_NSECONDS,
		 INT64_C(1) << 62, NULL);
	t_change(kq, 3, EVFILT_TIMER, EV_ADD, NOTE_SECONDS, INT64_MAX, NULL);
	t_change(kq, 4, EVFILT_TIMER, EV_ADD, NOTE_MSECONDS, INT64_MAX, NULL);
	t_change(kq, 5, EVFILT_TIMER, EV_ADD, NOTE_USECONDS, INT64_MAX, NULL);
	t_change(kq, 6, EVFILT_TIMER, EV_ADD, 0, INT64_MAX, NULL);
	t_change(kq, 7, EVFILT_TIMER, EV_ADD, NOTE_NSECONDS, INT64_MAX, NULL);
	T_NO_EVENTS(kq);
	int n = t_wait(kq, ev, 8, 200);
	for (int i = 0; i < n; i++)
		t_print_kevent("  early", &ev[i]);
	T_EQ(n, 0);
	for (uintptr_t id = 1; id <= 7; id++)
		t_change(kq, id, EVFILT_TIMER, EV_DELETE, 0, 0, NULL);
	T_NO_EVENTS(kq);
	close(kq);
	return 0;
}
