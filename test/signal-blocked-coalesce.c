/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * SIGUSR1 blocked, kill(self) x3 before the get.
 * FreeBSD counts every send: one record with data 3.  Deviation from
 * FreeBSD: one record with data 1, because Linux keeps a single pending
 * instance of a standard signal and discards the further sends while it is
 * pending, so no user-space library can see them (library decision: "a
 * blocked signal is counted once when it becomes pending").
 * Also checked: that pending signal, delivered to the program's handler
 * when it is unblocked, is not counted a second time (it is one signal,
 * already reported); a later unblocked send counts 1 again.
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
	t_fail_after(3, "signal-blocked-coalesce hung");
	t_on_signal(SIGUSR1, on_usr1, 0);
	sigset_t s;
	ts_block(&s, SIGUSR1);

	int kq = t_kqueue();
	struct kevent ev[4];
	int ud;
	t_change(kq, SIGUSR1, EVFILT_SIGNAL, EV_ADD, 0, 0, &ud);

	for (int i = 0; i < 3; i++)
		T_EQ(kill(getpid(), SIGUSR1), 0);
	T_EQ(t_wait(kq, ev, 4, 2000), 1);
	/* Deviation from FreeBSD (data 3): Linux coalesced the sends. */
	T_KEVENT(&ev[0], SIGUSR1, EVFILT_SIGNAL, EV_CLEAR, 0, 1, &ud);
	T_NO_EVENTS(kq);
	T_EQ(hits, 0);

	/* Unblocking delivers the one pending signal: no second count. */
	T_EQ(sigprocmask(SIG_UNBLOCK, &s, NULL), 0);
	T_EQ(hits, 1);
	T_NO_EVENTS(kq);

	/* An ordinary send afterwards counts again. */
	T_EQ(kill(getpid(), SIGUSR1), 0);
	T_EQ(hits, 2);
	T_WAIT1(kq, 2000, SIGUSR1, EVFILT_SIGNAL, EV_CLEAR, 0, 1, &ud);
	T_NO_EVENTS(kq);
	T_EQ(close(kq), 0);
	alarm(0);
	return 0;
}
