/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * A fork child forgets what libkq kept for its parent's descriptors at
 * every number, high ones included: an error libkq took from a reset
 * socket for its EV_EOF record (and keeps for the parent's next read or
 * getsockopt(SO_ERROR)) is the parent's, and the child's getsockopt() gets
 * the socket's own state, 0, at number 9000 (in a later page of libkq's
 * table) as at a low number, also once the child has an error of its own
 * kept.  The parent still gets the error after.
 */
#include "t.h"
#include "t_reset_error.h"

#include <sys/wait.h>

static int so_error(int fd)
{
	int err = -1;
	socklen_t len = sizeof err;
	T_ASSERT(getsockopt(fd, SOL_SOCKET, SO_ERROR, &err, &len) == 0);
	return err;
}

static void check(int at)
{
	int c = t_reset_after_eof_at(at);
	pid_t pid = fork();
	T_ASSERT(pid >= 0);
	if (pid == 0) {
		/* an error kept in the child too, so that the child's
		 * getsockopt() looks at what libkq keeps at all */
		int other = t_reset_after_eof();
		_exit(so_error(c) == 0 && so_error(other) == ECONNRESET ? 0 : 1);
	}
	int st;
	T_EQ(waitpid(pid, &st, 0), pid);
	if (!WIFEXITED(st) || WEXITSTATUS(st) != 0)
		T_FAIL("fd %d: the child got its parent's kept error", c);
	T_EQ(so_error(c), ECONNRESET);
	T_EQ(so_error(c), 0);
	T_EQ(close(c), 0);
}

int main(void)
{
	alarm(20);
	check(-1);
	check(9000);
	return 0;
}
