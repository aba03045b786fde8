/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * A ONESHOT timer disabled right after the ADD and enabled again still
 * fires at its deadline with {id, TIMER, EV_CLEAR|EV_ONESHOT, 0, 1, udata}
 * (not before 1 s, within a generous 1.5 s; the case uses 2 s).  Also: a
 * ONESHOT timer that expires while disabled produces nothing until
 * EV_ENABLE, which then makes its record available at once.
 * FreeBSD timer.c disable_and_enable (a disabled timer keeps running).
 */
#include "t.h"

#define MS 1000000LL

int main(void)
{
	int kq = t_kqueue();
	struct kevent ev[8];
	int ud1, ud2;

	int64_t a0 = t_now_ns();
	t_change(kq, 26, EVFILT_TIMER, EV_ADD | EV_ONESHOT, 0, 1000, &ud1);
	t_change(kq, 26, EVFILT_TIMER, EV_DISABLE, 0, 0, &ud1);
	T_NO_EVENTS(kq);
	t_change(kq, 26, EVFILT_TIMER, EV_ENABLE, 0, 0, &ud1);
	T_EQ(t_wait(kq, ev, 8, 2000), 1);
	int64_t el = t_now_ns() - a0;
	T_KEVENT(&ev[0], 26, EVFILT_TIMER, EV_CLEAR | EV_ONESHOT, 0, 1, &ud1);
	if (el < 1000 * MS)
		T_FAIL("fired after %lld us", (long long)(el / 1000));
	if (el > 1500 * MS)
		T_FAIL("fired late: %lld ms", (long long)(el / MS));
	T_NO_EVENTS(kq);

	/* Expiry while disabled. */
	t_change(kq, 27, EVFILT_TIMER, EV_ADD | EV_ONESHOT, 0, 50, &ud2);
	t_change(kq, 27, EVFILT_TIMER, EV_DISABLE, 0, 0, &ud2);
	t_sleep_ms(200);
	T_NO_EVENTS(kq);
	t_change(kq, 27, EVFILT_TIMER, EV_ENABLE, 0, 0, &ud2);
	T_GET1(kq, 27, EVFILT_TIMER, EV_CLEAR | EV_ONESHOT, 0, 1, &ud2);
	T_NO_EVENTS(kq);
	T_EQ(t_change_err(kq, 27, EVFILT_TIMER, EV_DELETE, 0, 0, NULL), ENOENT);
	close(kq);
	return 0;
}
