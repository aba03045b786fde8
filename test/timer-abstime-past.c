/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * ONESHOT|NOTE_ABSTIME deadlines in the past fire at once (within a
 * generous 500 ms) instead of being rejected: 1 s ago, and before the
 * system booted.  Each reports {id, TIMER, EV_ONESHOT, 0, 1, udata} once,
 * then the knote is gone.  FreeBSD timer.c abstime_postboot/preboot.
 */
#include "t_timer.h"

int main(void)
{
	int kq = t_kqueue();
	struct kevent ev[8];
	int ud1, ud2;
	struct timespec bt;
	T_ASSERT(clock_gettime(CLOCK_BOOTTIME, &bt) == 0);

	int64_t a0 = t_now_ns();
	int64_t now = tt_realtime_us();
	t_change(kq, 1, EVFILT_TIMER, EV_ADD | EV_ONESHOT,
		 NOTE_ABSTIME | NOTE_USECONDS, now - 1000000, &ud1);
	int64_t preboot = now - ((int64_t)bt.tv_sec + 1) * 1000000;
	T_ASSERT(preboot > 0);
	t_change(kq, 2, EVFILT_TIMER, EV_ADD | EV_ONESHOT,
		 NOTE_ABSTIME | NOTE_USECONDS, preboot, &ud2);

	int seen1 = 0, seen2 = 0;
	while (seen1 + seen2 < 2) {
		int n = t_wait(kq, ev, 8, 1000);
		if (n == 0)
			T_FAIL("past deadline not reported (1 s ago: %d, before "
			       "boot: %d)", seen1, seen2);
		for (int i = 0; i < n; i++) {
			if (ev[i].ident == 1) {
				T_KEVENT(&ev[i], 1, EVFILT_TIMER, EV_ONESHOT, 0,
					 1, &ud1);
				T_ASSERT(seen1++ == 0);
			} else {
				T_KEVENT(&ev[i], 2, EVFILT_TIMER, EV_ONESHOT, 0,
					 1, &ud2);
				T_ASSERT(seen2++ == 0);
			}
		}
	}
	if (t_now_ns() - a0 > 500 * MS)
		T_FAIL("past deadlines took %lld ms to fire",
		       (long long)((t_now_ns() - a0) / MS));
	t_sleep_ms(100);
	T_NO_EVENTS(kq);
	T_EQ(t_change_err(kq, 1, EVFILT_TIMER, EV_DELETE, 0, 0, NULL), ENOENT);
	T_EQ(t_change_err(kq, 2, EVFILT_TIMER, EV_DELETE, 0, 0, NULL), ENOENT);
	close(kq);
	return 0;
}
