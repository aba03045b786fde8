/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * Several kqueues watching one signal each count every send on their
 * own: three kqueues, one kill -> each reports data 1 with its own udata;
 * two more kills -> each reports data 2 (with the program's handler
 * installed, signal delivered); with the signal blocked, one kill -> each
 * reports data 1.  After EV_DELETE in one kqueue the others still count and
 * the deleted one reports nothing.  mheily/libkqueue "multi_kqueue".
 */
#include "t_signal.h"

#define NKQ 3

static volatile sig_atomic_t hits;

static void on_usr1(int sig)
{
	(void)sig;
	hits++;
}

static int kq[NKQ];
static int ud[NKQ];

static void expect_all(int64_t data, int skip)
{
	struct kevent ev[4];
	for (int i = 0; i < NKQ; i++) {
		if (i == skip) {
			T_NO_EVENTS(kq[i]);
			continue;
		}
		int n = t_wait(kq[i], ev, 4, 2000);
		if (n != 1)
			T_FAIL("kqueue %d: %d records, expected 1", i, n);
		T_KEVENT(&ev[0], SIGUSR1, EVFILT_SIGNAL, EV_CLEAR, 0, data,
			 &ud[i]);
		T_NO_EVENTS(kq[i]);
	}
}

int main(void)
{
	t_fail_after(3, "signal-two-kqueues hung");
	t_on_signal(SIGUSR1, on_usr1, 0);
	for (int i = 0; i < NKQ; i++) {
		kq[i] = t_kqueue();
		t_change(kq[i], SIGUSR1, EVFILT_SIGNAL, EV_ADD, 0, 0, &ud[i]);
	}

	T_EQ(kill(getpid(), SIGUSR1), 0);
	expect_all(1, -1);
	T_EQ(kill(getpid(), SIGUSR1), 0);
	T_EQ(kill(getpid(), SIGUSR1), 0);
	expect_all(2, -1);
	T_EQ(hits, 3);

	sigset_t s;
	struct timespec z = { 0, 0 };
	ts_block(&s, SIGUSR1);
	T_EQ(kill(getpid(), SIGUSR1), 0);
	expect_all(1, -1);
	T_EQ(sigtimedwait(&s, NULL, &z), SIGUSR1);
	T_EQ(sigprocmask(SIG_UNBLOCK, &s, NULL), 0);

	t_change(kq[1], SIGUSR1, EVFILT_SIGNAL, EV_DELETE, 0, 0, NULL);
	T_EQ(kill(getpid(), SIGUSR1), 0);
	expect_all(1, 1);
	T_EQ(hits, 4);
	for (int i = 0; i < NKQ; i++)
		T_EQ(close(kq[i]), 0);
	alarm(0);
	return 0;
}
