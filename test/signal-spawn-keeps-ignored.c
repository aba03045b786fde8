/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * The kqueue paper's idiom: the program ignores SIGINT and watches it with
 * EVFILT_SIGNAL.  A child started with posix_spawn() or posix_spawnp()
 * keeps SIGINT ignored across its exec, as on FreeBSD (and as after
 * fork()+exec()), although libkq's handler is what the kernel holds for
 * the parent: a child shell that sends itself SIGINT survives.  The parent
 * still counts its own SIGINTs afterwards.
 */
#include "t.h"

#include <spawn.h>
#include <stdbool.h>
#include <sys/wait.h>

extern char **environ;

static void run(bool search)
{
	char *argv[] = { "sh", "-c", "kill -INT $$; exit 7", NULL };
	pid_t pid;
	int r = search ? posix_spawnp(&pid, "sh", NULL, NULL, argv, environ)
		       : posix_spawn(&pid, "/bin/sh", NULL, NULL, argv, environ);
	T_EQ(r, 0);
	int st;
	T_EQ(waitpid(pid, &st, 0), pid);
	if (WIFSIGNALED(st))
		T_FAIL("%s child died of signal %d", search ? "posix_spawnp" : "posix_spawn",
		       WTERMSIG(st));
	T_ASSERT(WIFEXITED(st) && WEXITSTATUS(st) == 7);
}

int main(void)
{
	int kq = t_kqueue();

	T_ASSERT(signal(SIGINT, SIG_IGN) != SIG_ERR);
	t_change(kq, SIGINT, EVFILT_SIGNAL, EV_ADD, 0, 0, NULL);
	run(false);
	run(true);

	/* the parent's own count is intact, and the disposition it sees */
	T_ASSERT(raise(SIGINT) == 0);
	T_WAIT1(kq, 2000, SIGINT, EVFILT_SIGNAL, EV_CLEAR, 0, 1, NULL);
	struct sigaction sa;
	T_ASSERT(sigaction(SIGINT, NULL, &sa) == 0);
	T_ASSERT(sa.sa_handler == SIG_IGN);
	return 0;
}
