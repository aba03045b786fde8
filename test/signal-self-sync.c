/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * kill(getpid(), sig) followed at once by a kevent()
 * with a zero timeout sees the signal (on BSD the signal is posted to the
 * knote before kill() returns); programs rely on it, e.g. to test their
 * signal handling.  100 times each: a signal with a program handler, one
 * the program ignores (SIG_IGN), one ignored by default (SIGURG, SIG_DFL)
 * and one the program blocks.  Each kill is followed by exactly one record
 * {sig, SIGNAL, EV_CLEAR, 0, 1, udata} and nothing more.
 */
#include "t_signal.h"

static volatile sig_atomic_t hits;

static void on_usr1(int sig)
{
	(void)sig;
	hits++;
}

static void series(int kq, int sig, void *ud)
{
	struct kevent ev[4];

	t_change(kq, sig, EVFILT_SIGNAL, EV_ADD, 0, 0, ud);
	T_NO_EVENTS(kq);
	for (int i = 0; i < 100; i++) {
		T_EQ(kill(getpid(), sig), 0);
		int n = t_get(kq, ev, 4);
		if (n != 1)
			T_FAIL("signal %d, send %d: zero-timeout kevent after "
			       "kill() returned %d records", sig, i, n);
		T_KEVENT(&ev[0], sig, EVFILT_SIGNAL, EV_CLEAR, 0, 1, ud);
		T_NO_EVENTS(kq);
	}
	t_change(kq, sig, EVFILT_SIGNAL, EV_DELETE, 0, 0, NULL);
}

int main(void)
{
	int kq = t_kqueue();
	sigset_t s;

	t_fail_after(5, "signal-self-sync: still running after 5 s");

	t_on_signal(SIGUSR1, on_usr1, 0);
	series(kq, SIGUSR1, (void *)0xc01);
	T_EQ(hits, 100);

	t_on_signal(SIGUSR2, SIG_IGN, 0);
	series(kq, SIGUSR2, (void *)0xc02);

	series(kq, SIGURG, (void *)0xc03);

	ts_block(&s, SIGHUP);
	t_change(kq, SIGHUP, EVFILT_SIGNAL, EV_ADD, 0, 0, (void *)0xc04);
	for (int i = 0; i < 100; i++) {
		struct kevent ev[4];
		struct timespec z = { 0, 0 };
		T_EQ(kill(getpid(), SIGHUP), 0);
		int n = t_get(kq, ev, 4);
		if (n != 1)
			T_FAIL("blocked SIGHUP, send %d: zero-timeout kevent "
			       "after kill() returned %d records", i, n);
		T_KEVENT(&ev[0], SIGHUP, EVFILT_SIGNAL, EV_CLEAR, 0, 1,
			 (void *)0xc04);
		T_EQ(sigtimedwait(&s, NULL, &z), SIGHUP);
		T_NO_EVENTS(kq);
	}
	alarm(0);
	return 0;
}
