/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * With SIGUSR1 blocked, kill(getpid(), SIGUSR1) makes the knote report
 * {SIGUSR1, SIGNAL, EV_CLEAR, 0, 1, udata}: EV_CLEAR is forced (FreeBSD
 * filt_sigattach) and data counts the one send.  The record is visible to a
 * zero-timeout kevent() right after kill() (delivery to self is synchronous
 * on FreeBSD, and programs written for it must work), and to a waiting
 * one.
 * After the record nothing more is reported (EV_CLEAR).
 * FreeBSD libkqueue/signal.c test_kevent_signal_get.
 */
#include "t_signal.h"

int main(void)
{
	t_fail_after(3, "signal-blocked hung");
	sigset_t s;
	ts_block(&s, SIGUSR1);

	int kq = t_kqueue();
	struct kevent ev[4];
	struct timespec z = { 0, 0 };
	int ud;

	t_change(kq, SIGUSR1, EVFILT_SIGNAL, EV_ADD, 0, 0, &ud);
	T_NO_EVENTS(kq);

	/* Waiting get. */
	T_EQ(kill(getpid(), SIGUSR1), 0);
	T_WAIT1(kq, 2000, SIGUSR1, EVFILT_SIGNAL, EV_CLEAR, 0, 1, &ud);
	T_NO_EVENTS(kq);
	T_EQ(sigtimedwait(&s, NULL, &z), SIGUSR1);

	/* Zero-timeout get immediately after kill(). */
	for (int i = 0; i < 10; i++) {
		T_EQ(kill(getpid(), SIGUSR1), 0);
		int n = t_get(kq, ev, 4);
		if (n != 1)
			T_FAIL("round %d: zero-timeout get right after kill "
			       "returned %d records, expected 1", i, n);
		T_KEVENT(&ev[0], SIGUSR1, EVFILT_SIGNAL, EV_CLEAR, 0, 1, &ud);
		T_NO_EVENTS(kq);
		T_EQ(sigtimedwait(&s, NULL, &z), SIGUSR1);
	}
	T_EQ(close(kq), 0);
	alarm(0);
	return 0;
}
