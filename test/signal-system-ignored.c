/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * A signal the program ignores stays ignored in the child of system(), as
 * on FreeBSD, while an EVFILT_SIGNAL knote watches it: libkq's handler is
 * what the kernel holds for the signal then, and the C library's own
 * system() would set it to the default in the child (it resets every
 * handled signal), so the shell died of the signal it sent itself.
 * SIGUSR1: a signal system() does not handle itself.  The knote counts
 * nothing (the child's signal is the child's).
 */
#include "t.h"

#include <sys/wait.h>

int main(void)
{
	int kq = t_kqueue();

	T_ASSERT(signal(SIGUSR1, SIG_IGN) != SIG_ERR);
	int st = system("kill -USR1 $$; exit 7");
	T_ASSERT(WIFEXITED(st) && WEXITSTATUS(st) == 7);

	t_change(kq, SIGUSR1, EVFILT_SIGNAL, EV_ADD, 0, 0, NULL);
	st = system("kill -USR1 $$; exit 7");
	if (!WIFEXITED(st) || WEXITSTATUS(st) != 7)
		T_FAIL("system() with SIGUSR1 ignored and watched: status %#x, "
		       "expected exit 7 (the shell must ignore SIGUSR1)", st);
	T_NO_EVENTS(kq);
	/* still ignored in the caller, and still watched */
	struct sigaction sa;
	T_EQ(sigaction(SIGUSR1, NULL, &sa), 0);
	T_ASSERT(sa.sa_handler == SIG_IGN);
	return 0;
}
