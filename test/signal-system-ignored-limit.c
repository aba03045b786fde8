/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * A documented limit: system() and popen() start their child inside the C
 * library, which sets every signal that has a handler to the default before
 * the exec, and libkq's handler is what the kernel holds for a watched
 * signal the program ignores.  So, unlike FreeBSD, such a child does not
 * inherit SIG_IGN for a watched signal.  This pins that behaviour (for a
 * signal system() does not handle itself: SIGUSR1); a change that lifts
 * the limit must update docs/differences.md and kevent(2), and this test.
 * Without the knote the child keeps SIG_IGN, as it should.
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
	/* the shell reports its child's death by a signal as 128 + signal,
	 * or dies itself */
	T_ASSERT((WIFSIGNALED(st) && WTERMSIG(st) == SIGUSR1) ||
		 (WIFEXITED(st) && WEXITSTATUS(st) == 128 + SIGUSR1));
	return 0;
}
