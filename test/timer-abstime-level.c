/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * NOTE_ABSTIME timers do not get EV_CLEAR forced (taken from FreeBSD's
 * source).  NOTE_ABSTIME with data 0 (the epoch) reports at once
 * {id, TIMER, 0, 0, 1, udata} (no EV_CLEAR).  Without DELETE it is
 * reported again on every call (level: the fired state stays), and it does
 * not re-arm (data stays 1).  With a future deadline: the same, once
 * the deadline (>= it on CLOCK_REALTIME) has passed.  Contrast: the same
 * absolute timer with EV_CLEAR requested is reported once.
 * FreeBSD timer.c abstime_epoch, filt_timerattach; NetBSD kqueue(2).
 */
#include "t_timer.h"

int main(void)
{
	int kq = t_kqueue();
	struct kevent ev[8];
	int ud1, ud2, ud3;

	/* The epoch: reported at once, without EV_CLEAR. */
	int64_t a0 = t_now_ns();
	t_change(kq, 1, EVFILT_TIMER, EV_ADD, NOTE_ABSTIME, 0, &ud1);
	T_EQ(t_wait(kq, ev, 8, 1000), 1);
	if (t_now_ns() - a0 > 500 * MS)
		T_FAIL("epoch deadline not reported at once");
	T_KEVENT(&ev[0], 1, EVFILT_TIMER, 0, 0, 1, &ud1);
	/* Level: reported again on every call, data stays 1. */
	for (int i = 0; i < 3; i++) {
		T_GET1(kq, 1, EVFILT_TIMER, 0, 0, 1, &ud1);
	}
	t_sleep_ms(30);
	T_GET1(kq, 1, EVFILT_TIMER, 0, 0, 1, &ud1);
	t_change(kq, 1, EVFILT_TIMER, EV_DELETE, 0, 0, NULL);
	T_NO_EVENTS(kq);

	/* A future deadline, default unit (ms). */
	int64_t end = tt_realtime_us() / 1000 + 100;
	t_change(kq, 2, EVFILT_TIMER, EV_ADD, NOTE_ABSTIME, end, &ud2);
	T_NO_EVENTS(kq);
	T_EQ(t_wait(kq, ev, 8, 1000), 1);
	if (tt_realtime_us() / 1000 < end)
		T_FAIL("absolute timer reported before its deadline");
	T_KEVENT(&ev[0], 2, EVFILT_TIMER, 0, 0, 1, &ud2);
	t_sleep_ms(150);
	for (int i = 0; i < 2; i++) {
		T_GET1(kq, 2, EVFILT_TIMER, 0, 0, 1, &ud2);
	}
	t_change(kq, 2, EVFILT_TIMER, EV_DELETE, 0, 0, NULL);
	T_NO_EVENTS(kq);

	/* EV_CLEAR asked for explicitly: reported once, with EV_CLEAR. */
	t_change(kq, 3, EVFILT_TIMER, EV_ADD | EV_CLEAR, NOTE_ABSTIME, 0, &ud3);
	T_WAIT1(kq, 1000, 3, EVFILT_TIMER, EV_CLEAR, 0, 1, &ud3);
	T_NO_EVENTS(kq);
	t_sleep_ms(30);
	T_NO_EVENTS(kq);
	t_change(kq, 3, EVFILT_TIMER, EV_DELETE, 0, 0, NULL);
	close(kq);
	return 0;
}
