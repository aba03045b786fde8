/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * vfork() + execve(), as Python's subprocess runs a program: the child sets
 * the signals the parent watches back to SIG_DFL and execs /bin/true.  Only
 * the child's dispositions change; the parent keeps ignoring SIGUSR1 and
 * calling its SIGUSR2 handler, and counts every send of both.
 */
#include "t.h"

#include <sys/wait.h>

extern char **environ;

static volatile sig_atomic_t hits;

static void on_usr2(int sig)
{
	(void)sig;
	hits++;
}

int main(void)
{
	t_fail_after(10, "signal-vfork-child-exec hung");
	if (access("/bin/true", X_OK) != 0)
		T_SKIP("/bin/true is not there to exec");
	int kq = t_kqueue();
	struct kevent ev[4];

	T_ASSERT(signal(SIGUSR1, SIG_IGN) != SIG_ERR);
	t_on_signal(SIGUSR2, on_usr2, 0);
	t_change(kq, SIGUSR1, EVFILT_SIGNAL, EV_ADD, 0, 0, (void *)1);
	t_change(kq, SIGUSR2, EVFILT_SIGNAL, EV_ADD, 0, 0, (void *)2);

	char *argv[] = { "true", NULL };
	struct sigaction dfl;
	memset(&dfl, 0, sizeof dfl);
	dfl.sa_handler = SIG_DFL;
	sigemptyset(&dfl.sa_mask);
	pid_t pid = vfork();
	if (pid == 0) {
		signal(SIGUSR1, SIG_DFL);
		sigaction(SIGUSR2, &dfl, NULL);
		execve("/bin/true", argv, environ);
		_exit(127);
	}
	T_ASSERT(pid > 0);
	int st;
	T_EQ(waitpid(pid, &st, 0), pid);
	T_ASSERT(WIFEXITED(st) && WEXITSTATUS(st) == 0);

	struct sigaction cur;
	T_ASSERT(sigaction(SIGUSR1, NULL, &cur) == 0);
	T_ASSERT(cur.sa_handler == SIG_IGN);
	T_ASSERT(sigaction(SIGUSR2, NULL, &cur) == 0);
	T_ASSERT(cur.sa_handler == on_usr2);

	for (int i = 0; i < 3; i++) {
		T_EQ(raise(SIGUSR1), 0);
		T_EQ(raise(SIGUSR2), 0);
	}
	T_EQ(hits, 3);
	T_EQ(t_wait(kq, ev, 4, 2000), 2);
	if (ev[0].ident != SIGUSR1) {
		struct kevent t = ev[0];
		ev[0] = ev[1];
		ev[1] = t;
	}
	T_KEVENT(&ev[0], SIGUSR1, EVFILT_SIGNAL, EV_CLEAR, 0, 3, (void *)1);
	T_KEVENT(&ev[1], SIGUSR2, EVFILT_SIGNAL, EV_CLEAR, 0, 3, (void *)2);
	T_NO_EVENTS(kq);
	alarm(0);
	return 0;
}
