/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * A program built for strict standards (-std=c99, no _DEFAULT_SOURCE)
 * calls __sysv_signal() for signal(): System V semantics, the handler is
 * reset to the default when it runs.  On a watched signal that still
 * holds: the handler runs once, the program's disposition is then SIG_DFL,
 * and the knote counts the send.
 */
#include "t.h"

sighandler_t __sysv_signal(int, sighandler_t);

static volatile sig_atomic_t ran;

static void h(int sig) { (void)sig; ran++; }

int main(void)
{
	int kq = t_kqueue();

	t_change(kq, SIGUSR1, EVFILT_SIGNAL, EV_ADD, 0, 0, NULL);
	T_ASSERT(__sysv_signal(SIGUSR1, h) == SIG_DFL);
	struct sigaction sa;
	T_ASSERT(sigaction(SIGUSR1, NULL, &sa) == 0);
	T_ASSERT(sa.sa_handler == h);
	T_ASSERT((sa.sa_flags & (SA_RESETHAND | SA_NODEFER)) == (SA_RESETHAND | SA_NODEFER));
	T_ASSERT(!(sa.sa_flags & SA_RESTART));

	T_ASSERT(raise(SIGUSR1) == 0);
	T_EQ(ran, 1);
	T_ASSERT(sigaction(SIGUSR1, NULL, &sa) == 0);
	T_ASSERT(sa.sa_handler == SIG_DFL);
	T_WAIT1(kq, 2000, SIGUSR1, EVFILT_SIGNAL, EV_CLEAR, 0, 1, NULL);
	return 0;
}
