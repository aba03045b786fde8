/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * sigset() on a signal a knote watches changes the program's disposition,
 * as sigaction() would: it returns the previous handler (not libkq's), a
 * query then shows the new one, the new handler runs, and the knote keeps
 * counting.  SIG_HOLD blocks the signal and reports the disposition.
 */
#include "t.h"

/* the calls under test are obsolescent, and glibc says so */
#pragma GCC diagnostic ignored "-Wdeprecated-declarations"

static volatile sig_atomic_t ran1, ran2;

static void h1(int sig) { (void)sig; ran1++; }
static void h2(int sig) { (void)sig; ran2++; }

int main(void)
{
#ifdef __SANITIZE_THREAD__
	/* ThreadSanitizer replaces signal() and sigaction() with its own,
	 * which install its wrapper in place of h1; sigset() is not its, so
	 * the two disagree on what the disposition is. */
	T_SKIP("signal() is ThreadSanitizer's own here");
#endif
	int kq = t_kqueue();

	T_ASSERT(signal(SIGUSR1, h1) != SIG_ERR);
	t_change(kq, SIGUSR1, EVFILT_SIGNAL, EV_ADD, 0, 0, NULL);
	T_ASSERT(sigset(SIGUSR1, h2) == h1);
	struct sigaction sa;
	T_ASSERT(sigaction(SIGUSR1, NULL, &sa) == 0);
	T_ASSERT(sa.sa_handler == h2);

	T_ASSERT(raise(SIGUSR1) == 0);
	T_EQ(ran1, 0);
	T_EQ(ran2, 1);
	T_WAIT1(kq, 2000, SIGUSR1, EVFILT_SIGNAL, EV_CLEAR, 0, 1, NULL);

	T_ASSERT(sigset(SIGUSR1, SIG_HOLD) == h2);
	sigset_t cur;
	T_ASSERT(sigprocmask(SIG_BLOCK, NULL, &cur) == 0);
	T_ASSERT(sigismember(&cur, SIGUSR1));
	T_ASSERT(sigset(SIGUSR1, h1) == SIG_HOLD);
	T_ASSERT(sigprocmask(SIG_BLOCK, NULL, &cur) == 0);
	T_ASSERT(!sigismember(&cur, SIGUSR1));

	/* the last EV_DELETE puts the program's disposition back */
	t_change(kq, SIGUSR1, EVFILT_SIGNAL, EV_DELETE, 0, 0, NULL);
	T_ASSERT(sigaction(SIGUSR1, NULL, &sa) == 0);
	T_ASSERT(sa.sa_handler == h1);
	return 0;
}
