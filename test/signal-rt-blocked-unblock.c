/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * A real-time signal the program blocks, sent three times with sigqueue():
 * Linux queues one instance per send, and unblocking runs the program's
 * handler three times.  FreeBSD counts every send (data 3).  libkq cannot
 * see how many instances wait without taking them from the program (Linux
 * shows a pending signal only as a bit in a mask), so while they wait the
 * knote reports the one it can see, and each further instance is counted
 * when it is delivered: the records must add up to exactly 3.
 */
#include "t_signal.h"

static volatile sig_atomic_t hits;

static void on_rt(int sig)
{
	(void)sig;
	hits++;
}

int main(void)
{
#ifdef __SANITIZE_THREAD__
	/* ThreadSanitizer runs handlers late, at its own safe points, and
	 * this test counts handler runs */
	T_SKIP("handler timing is ThreadSanitizer's own here");
#endif
	t_fail_after(10, "signal-rt-blocked-unblock hung");
	int sig = SIGRTMIN + 1;
	t_on_signal(sig, on_rt, 0);
	sigset_t s;
	ts_block(&s, sig);

	int kq = t_kqueue();
	t_change(kq, sig, EVFILT_SIGNAL, EV_ADD, 0, 0, (void *)7);
	union sigval v = { .sival_int = 0 };
	for (int i = 0; i < 3; i++) {
		v.sival_int = i;
		T_EQ(sigqueue(getpid(), sig, v), 0);
	}
	/* seen while pending: at least one, never more than were sent */
	int64_t before = ts_collect(kq, sig, 2000, (void *)7);
	T_ASSERT(before >= 1 && before <= 3);
	T_EQ(hits, 0);

	T_EQ(sigprocmask(SIG_UNBLOCK, &s, NULL), 0);
	T_EQ(hits, 3);
	int64_t total = before + ts_collect(kq, sig, before == 3 ? 0 : 2000,
					    (void *)7);
	T_EQ(total, 3);
	T_NO_EVENTS(kq);

	/* Once more without looking while they are pending. */
	T_EQ(sigprocmask(SIG_BLOCK, &s, NULL), 0);
	for (int i = 0; i < 3; i++)
		T_EQ(sigqueue(getpid(), sig, v), 0);
	T_EQ(sigprocmask(SIG_UNBLOCK, &s, NULL), 0);
	T_EQ(hits, 6);
	T_EQ(ts_collect(kq, sig, 2000, (void *)7), 3);
	T_NO_EVENTS(kq);
	alarm(0);
	return 0;
}
