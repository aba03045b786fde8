/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * ONESHOT|NOTE_ABSTIME|NOTE_USECONDS with a deadline 1 s ahead on the
 * real-time clock (the case uses 3 s; 1 s checks the same): the record
 * {id, TIMER, EV_ONESHOT, 0, 1, udata} arrives not before the deadline
 * (CLOCK_REALTIME read after the wait is >= the deadline, to the
 * microsecond) and within a generous 500 ms after it; EV_CLEAR is not forced
 * for absolute timers and the unit is not echoed.  Then the knote is gone.
 * FreeBSD timer.c test_abstime.
 */
#include "t_timer.h"

int main(void)
{
	int kq = t_kqueue();
	struct kevent ev[8];
	int ud;

	int64_t end = tt_realtime_us() + 1000000;
	t_change(kq, 17, EVFILT_TIMER, EV_ADD | EV_ONESHOT,
		 NOTE_ABSTIME | NOTE_USECONDS, end, &ud);
	T_NO_EVENTS(kq);
	T_EQ(t_wait(kq, ev, 8, 2000), 1);
	int64_t stop = tt_realtime_us();
	T_KEVENT(&ev[0], 17, EVFILT_TIMER, EV_ONESHOT, 0, 1, &ud);
	fprintf(stderr, "fired %lld us after the deadline\n",
		(long long)(stop - end));
	if (stop < end)
		T_FAIL("absolute timer fired %lld us before its deadline",
		       (long long)(end - stop));
	if (stop > end + 500000)
		T_FAIL("absolute timer fired %lld us late",
		       (long long)(stop - end));

	t_sleep_ms(200);
	T_NO_EVENTS(kq);
	T_EQ(t_change_err(kq, 17, EVFILT_TIMER, EV_DELETE, 0, 0, NULL), ENOENT);
	close(kq);
	return 0;
}
