/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * A disabled signal knote reports nothing but keeps counting; after
 * EV_ENABLE the next send gives data 2 (the disabled-time send plus the new
 * one), as FreeBSD libkqueue/signal.c disable/enable expect.  Also: a send
 * made while disabled is reported at EV_ENABLE without a new send (data 1;
 * FreeBSD queues an active knote on enable).
 * Part 1: program's handler installed, signal not blocked (each send is
 * delivered; the handler count checks that).  Part 2: signal blocked; the
 * pending instance is taken with sigtimedwait() after the disabled-time get
 * so the second send is a new signal and not a coalesced one (coalescing
 * is checked in signal-blocked-coalesce).
 */
#include "t_signal.h"

static volatile sig_atomic_t hits;

static void on_usr1(int sig)
{
	(void)sig;
	hits++;
}

int main(void)
{
	t_fail_after(3, "signal-disable-enable hung");
	t_on_signal(SIGUSR1, on_usr1, 0);
	int kq = t_kqueue();
	struct timespec z = { 0, 0 };
	int ud;

	/* Part 1: delivered signals. */
	t_change(kq, SIGUSR1, EVFILT_SIGNAL, EV_ADD, 0, 0, &ud);
	t_change(kq, SIGUSR1, EVFILT_SIGNAL, EV_DISABLE, 0, 0, &ud);
	T_EQ(kill(getpid(), SIGUSR1), 0);
	T_EQ(hits, 1);
	T_NO_EVENTS(kq);
	t_change(kq, SIGUSR1, EVFILT_SIGNAL, EV_ENABLE, 0, 0, &ud);
	T_EQ(kill(getpid(), SIGUSR1), 0);
	T_EQ(hits, 2);
	T_WAIT1(kq, 2000, SIGUSR1, EVFILT_SIGNAL, EV_CLEAR, 0, 2, &ud);
	T_NO_EVENTS(kq);

	/* Sent while disabled, reported at enable. */
	t_change(kq, SIGUSR1, EVFILT_SIGNAL, EV_DISABLE, 0, 0, &ud);
	T_EQ(kill(getpid(), SIGUSR1), 0);
	T_NO_EVENTS(kq);
	t_change(kq, SIGUSR1, EVFILT_SIGNAL, EV_ENABLE, 0, 0, &ud);
	T_WAIT1(kq, 2000, SIGUSR1, EVFILT_SIGNAL, EV_CLEAR, 0, 1, &ud);
	T_NO_EVENTS(kq);
	T_EQ(hits, 3);

	/* Part 2: blocked signal. */
	sigset_t s;
	ts_block(&s, SIGUSR1);
	t_change(kq, SIGUSR1, EVFILT_SIGNAL, EV_DISABLE, 0, 0, &ud);
	T_EQ(kill(getpid(), SIGUSR1), 0);
	T_NO_EVENTS(kq);
	T_EQ(sigtimedwait(&s, NULL, &z), SIGUSR1);
	t_change(kq, SIGUSR1, EVFILT_SIGNAL, EV_ENABLE, 0, 0, &ud);
	T_EQ(kill(getpid(), SIGUSR1), 0);
	T_WAIT1(kq, 2000, SIGUSR1, EVFILT_SIGNAL, EV_CLEAR, 0, 2, &ud);
	T_NO_EVENTS(kq);
	T_EQ(sigtimedwait(&s, NULL, &z), SIGUSR1);
	T_EQ(hits, 3);
	T_EQ(close(kq), 0);
	alarm(0);
	return 0;
}
