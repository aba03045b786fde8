/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * SA_RESETHAND resets the disposition when the handler is entered, not
 * when it returns: inside the handler sigaction() already shows SIG_DFL,
 * and a second instance raised there (SA_NODEFER) takes the default
 * action.  The same while a knote watches the signal, which is then
 * counted as well.
 */
#include "t.h"

#include <sys/wait.h>

static volatile sig_atomic_t runs, saw_dfl;

static void h(int sig)
{
	struct sigaction cur;
	runs++;
	if (sigaction(sig, NULL, &cur) == 0 && cur.sa_handler == SIG_DFL)
		saw_dfl = 1;
	if (runs == 1)
		raise(sig);   /* the default action: terminates */
}

int main(void)
{
	pid_t pid = fork();
	T_ASSERT(pid >= 0);
	if (pid == 0) {
		int kq = t_kqueue();
		t_change(kq, SIGUSR1, EVFILT_SIGNAL, EV_ADD, 0, 0, NULL);
		struct sigaction sa;
		memset(&sa, 0, sizeof sa);
		sa.sa_handler = h;
		sa.sa_flags = SA_RESETHAND | SA_NODEFER;
		if (sigaction(SIGUSR1, &sa, NULL) != 0)
			_exit(3);
		raise(SIGUSR1);
		/* still alive: the second raise ran the handler again */
		_exit(saw_dfl ? 2 : 1);
	}
	int st;
	T_EQ(waitpid(pid, &st, 0), pid);
	if (WIFEXITED(st))
		T_FAIL("the child survived (exit %d): SA_RESETHAND took effect late",
		       WEXITSTATUS(st));
	T_ASSERT(WIFSIGNALED(st) && WTERMSIG(st) == SIGUSR1);
	return 0;
}
