/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * Setting a pending signal's disposition to SIG_IGN discards it (POSIX),
 * also while a knote watches it: sigpending() no longer shows it.  The
 * knote keeps the send it counted, and counts a later one.
 */
#include "t.h"

int main(void)
{
	int kq = t_kqueue();
	sigset_t set, pend;

	t_change(kq, SIGUSR2, EVFILT_SIGNAL, EV_ADD, 0, 0, NULL);
	sigemptyset(&set);
	sigaddset(&set, SIGUSR2);
	T_ASSERT(sigprocmask(SIG_BLOCK, &set, NULL) == 0);
	T_ASSERT(raise(SIGUSR2) == 0);
	T_ASSERT(sigpending(&pend) == 0 && sigismember(&pend, SIGUSR2));

	T_ASSERT(signal(SIGUSR2, SIG_IGN) != SIG_ERR);
	T_ASSERT(sigpending(&pend) == 0);
	T_ASSERT(!sigismember(&pend, SIGUSR2));
	T_WAIT1(kq, 2000, SIGUSR2, EVFILT_SIGNAL, EV_CLEAR, 0, 1, NULL);

	/* blocked and ignored: the kernel keeps it pending, and it counts */
	T_ASSERT(raise(SIGUSR2) == 0);
	T_WAIT1(kq, 2000, SIGUSR2, EVFILT_SIGNAL, EV_CLEAR, 0, 1, NULL);
	return 0;
}
