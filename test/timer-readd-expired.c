/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * Re-ADDing a timer whose expiry has happened but was not retrieved
 * discards that expiry: a ONESHOT 1 ms timer left 2 ms, then re-ADDed,
 * reports exactly one record (data 1) no earlier than 1 ms after the
 * re-ADD, and nothing afterwards.  Same for a periodic 1 ms timer with
 * several undelivered expirations re-ADDed with 100 ms: nothing is pending
 * right after the re-ADD, and the next record (data 1) comes >= 100 ms after
 * it.  FreeBSD timer.c test_update_expired, filt_timertouch.
 */
#include "t.h"

#define MS 1000000LL

int main(void)
{
	int kq = t_kqueue();
	struct kevent ev[8];
	int ud;

	t_change(kq, 23, EVFILT_TIMER, EV_ADD | EV_ONESHOT, NOTE_USECONDS, 1000,
		 &ud);
	t_sleep_ms(2);
	int64_t b0 = t_now_ns();
	t_change(kq, 23, EVFILT_TIMER, EV_ADD | EV_ONESHOT, NOTE_USECONDS, 1000,
		 &ud);
	T_EQ(t_wait(kq, ev, 8, 1000), 1);
	int64_t r1 = t_now_ns();
	T_KEVENT(&ev[0], 23, EVFILT_TIMER, EV_CLEAR | EV_ONESHOT, 0, 1, &ud);
	if (r1 - b0 < 1 * MS)
		T_FAIL("one-shot: record %lld us after the re-ADD (the old "
		       "expiry was kept)", (long long)((r1 - b0) / 1000));
	t_sleep_ms(2);
	T_NO_EVENTS(kq);

	/* Periodic, several expirations pending. */
	t_change(kq, 24, EVFILT_TIMER, EV_ADD, 0, 1, &ud);
	t_sleep_ms(5);
	b0 = t_now_ns();
	t_change(kq, 24, EVFILT_TIMER, EV_ADD, 0, 100, &ud);
	int n = t_get(kq, ev, 8);
	if (n != 0 && t_now_ns() - b0 < 100 * MS)
		T_FAIL("undelivered expirations survived the re-ADD (data %lld)",
		       (long long)ev[0].data);
	T_EQ(t_wait(kq, ev, 8, 1000), 1);
	r1 = t_now_ns();
	T_KEVENT(&ev[0], 24, EVFILT_TIMER, EV_CLEAR, 0, 1, &ud);
	if (r1 - b0 < 100 * MS)
		T_FAIL("periodic: record %lld us after the 100 ms re-ADD",
		       (long long)((r1 - b0) / 1000));
	t_change(kq, 24, EVFILT_TIMER, EV_DELETE, 0, 0, NULL);
	close(kq);
	return 0;
}
