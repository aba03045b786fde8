/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * A ONESHOT 1 s timer (NOTE_USECONDS, udata 1) re-ADDed with 1 ms
 * (udata 2) fires no earlier than 1 ms after the re-ADD and well before the
 * original 1 s, exactly once, with the new udata: re-adding replaces the
 * timer.  The original deadline never produces a record (checked until
 * 1.2 s after the first ADD).  FreeBSD timer.c test_update.
 */
#include "t.h"

#define MS 1000000LL

int main(void)
{
	int kq = t_kqueue();
	struct kevent ev[8];
	void *u1 = (void *)(uintptr_t)1, *u2 = (void *)(uintptr_t)2;

	int64_t a0 = t_now_ns();
	t_change(kq, 21, EVFILT_TIMER, EV_ADD | EV_ONESHOT, NOTE_USECONDS,
		 1000000, u1);
	int64_t b0 = t_now_ns();
	t_change(kq, 21, EVFILT_TIMER, EV_ADD | EV_ONESHOT, NOTE_USECONDS,
		 1000, u2);
	T_EQ(t_wait(kq, ev, 8, 1500), 1);
	int64_t r1 = t_now_ns();
	T_KEVENT(&ev[0], 21, EVFILT_TIMER, EV_CLEAR | EV_ONESHOT, 0, 1, u2);
	fprintf(stderr, "fired %lld us after the re-ADD\n",
		(long long)((r1 - b0) / 1000));
	if (r1 - b0 < 1 * MS)
		T_FAIL("fired %lld us after the 1 ms re-ADD",
		       (long long)((r1 - b0) / 1000));
	if (r1 - a0 >= 1000 * MS)
		T_FAIL("fired only after %lld ms: the original 1 s was used",
		       (long long)((r1 - a0) / MS));

	/* Nothing more, also not at the original 1 s deadline. */
	int64_t left = (a0 + 1200 * MS - t_now_ns()) / MS;
	if (left > 0)
		T_EQ(t_wait(kq, ev, 8, left), 0);
	T_NO_EVENTS(kq);
	T_EQ(t_change_err(kq, 21, EVFILT_TIMER, EV_DELETE, 0, 0, NULL), ENOENT);
	close(kq);
	return 0;
}
