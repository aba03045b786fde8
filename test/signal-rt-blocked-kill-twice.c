/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * SIGRTMIN+1 blocked, a knote on it, kill(getpid()) twice, then kevent().
 * FreeBSD: one record with data 2 (every send counted; libkqueue's own
 * suite expects that).  libkq pins a documented limit here: Linux shows a
 * library only that a real-time signal is pending, not how many instances
 * wait, and the only ways to count them take them from the program (see
 * filter/signal.c for why taking and queueing them back is not safe).  So:
 *  - the first record has data 1;
 *  - both instances stay queued for the program, in order, with the
 *    siginfo kill() gave them (nothing was taken or sent again);
 *  - the program taking them counts the second one: the total is 2;
 *  - instances the program discards instead (SIG_IGN while pending) are
 *    never counted beyond the one seen pending.
 */
#include "t_signal.h"

int main(void)
{
	t_fail_after(10, "signal-rt-blocked-kill-twice hung");
	int sig = SIGRTMIN + 1;
	sigset_t s, pend;
	ts_block(&s, sig);
	int kq = t_kqueue();
	int ud;
	t_change(kq, sig, EVFILT_SIGNAL, EV_ADD, 0, 0, &ud);

	T_EQ(kill(getpid(), sig), 0);
	T_EQ(kill(getpid(), sig), 0);
	struct kevent ev[4];
	T_EQ(t_wait(kq, ev, 4, 2000), 1);
	/* Limit (FreeBSD: data 2): one instance seen while they wait. */
	T_KEVENT(&ev[0], sig, EVFILT_SIGNAL, EV_CLEAR, 0, 1, &ud);
	T_NO_EVENTS(kq);

	/* Both still queued, untouched, in the order sent. */
	T_EQ(sigpending(&pend), 0);
	T_ASSERT(sigismember(&pend, sig));
	struct timespec z = { 0, 0 };
	for (int i = 0; i < 2; i++)
		ts_take_kill(&s, sig);
	errno = 0;
	T_EQ(sigtimedwait(&s, NULL, &z), -1);
	T_EQ(errno, EAGAIN);
	/* the second take counted the instance no kqueue could see */
	T_EQ(ts_collect(kq, sig, 2000, &ud), 1);
	T_NO_EVENTS(kq);

	/* Discarded unseen: three queued, then SIG_IGN discards them all
	 * (POSIX); one was seen pending, the other two are never counted
	 * (FreeBSD: 3). */
	for (int i = 0; i < 3; i++)
		T_EQ(kill(getpid(), sig), 0);
	T_EQ(signal(sig, SIG_IGN), SIG_DFL);
	T_EQ(sigpending(&pend), 0);
	T_ASSERT(!sigismember(&pend, sig));
	T_EQ(ts_collect(kq, sig, 2000, &ud), 1);
	T_NO_EVENTS(kq);
	T_EQ(close(kq), 0);
	alarm(0);
	return 0;
}
