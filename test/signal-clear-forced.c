/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * A signal knote always behaves as EV_CLEAR and returned
 * flags include EV_CLEAR though it was not requested (FreeBSD
 * filt_sigattach sets it): plain EV_ADD -> EV_CLEAR, EV_ADD|EV_CLEAR ->
 * EV_CLEAR, EV_ONESHOT -> EV_CLEAR|EV_ONESHOT, EV_DISPATCH ->
 * EV_CLEAR|EV_DISPATCH.  The record is not repeated by a second get (not
 * level-triggered).  The program's handler catches the signals.
 * FreeBSD libkqueue/signal.c (flags gain EV_CLEAR).
 */
#include "t.h"

static volatile sig_atomic_t hits;

static void on_usr1(int sig)
{
	(void)sig;
	hits++;
}

static void one(unsigned short add, unsigned short want)
{
	int kq = t_kqueue();
	int ud;

	t_change(kq, SIGUSR1, EVFILT_SIGNAL, EV_ADD | add, 0, 0, &ud);
	T_NO_EVENTS(kq);
	T_EQ(kill(getpid(), SIGUSR1), 0);
	T_WAIT1(kq, 2000, SIGUSR1, EVFILT_SIGNAL, want, 0, 1, &ud);
	T_NO_EVENTS(kq);
	if (add & EV_DISPATCH) {
		/* Disabled now; counted meanwhile, reported at enable. */
		T_EQ(kill(getpid(), SIGUSR1), 0);
		T_NO_EVENTS(kq);
		t_change(kq, SIGUSR1, EVFILT_SIGNAL, EV_ENABLE, 0, 0, &ud);
		T_WAIT1(kq, 2000, SIGUSR1, EVFILT_SIGNAL, want, 0, 1, &ud);
		T_NO_EVENTS(kq);
	}
	T_EQ(close(kq), 0);
}

int main(void)
{
	t_fail_after(3, "signal-clear-forced hung");
	t_on_signal(SIGUSR1, on_usr1, 0);
	one(0, EV_CLEAR);
	one(EV_CLEAR, EV_CLEAR);
	one(EV_ONESHOT, EV_CLEAR | EV_ONESHOT);
	one(EV_DISPATCH, EV_CLEAR | EV_DISPATCH);
	T_EQ(hits, 5);
	alarm(0);
	return 0;
}
