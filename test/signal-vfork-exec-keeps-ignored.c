/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * A vfork() child that execs keeps the signals the program ignores ignored
 * while knotes watch them, as on FreeBSD: a child shell sending itself
 * SIGINT survives.  The child runs in the parent's memory; the parent's
 * knote still counts its own SIGINT afterwards, and nothing the child did
 * is counted.
 */
#include "t.h"

#include <sys/wait.h>

int main(void)
{
	int kq = t_kqueue();

	T_ASSERT(signal(SIGINT, SIG_IGN) != SIG_ERR);
	t_change(kq, SIGINT, EVFILT_SIGNAL, EV_ADD, 0, 0, NULL);

	pid_t pid = vfork();
	if (pid == 0) {
		execl("/bin/sh", "sh", "-c", "kill -INT $$; exit 7", (char *)NULL);
		_exit(127);
	}
	T_ASSERT(pid > 0);
	int st;
	T_EQ(waitpid(pid, &st, 0), pid);
	if (WIFSIGNALED(st))
		T_FAIL("vfork+exec child died of signal %d", WTERMSIG(st));
	T_ASSERT(WIFEXITED(st) && WEXITSTATUS(st) == 7);
	T_NO_EVENTS(kq);

	T_ASSERT(raise(SIGINT) == 0);
	T_WAIT1(kq, 2000, SIGINT, EVFILT_SIGNAL, EV_CLEAR, 0, 1, NULL);
	return 0;
}
