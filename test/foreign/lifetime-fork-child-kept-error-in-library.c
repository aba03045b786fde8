/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * A fork child forgets the socket errors libkq keeps for its parent, at a
 * high number (9000, in a later page of libkq's table) as at a low one,
 * also when the child's getsockopt(SO_ERROR) is made by a library built
 * without -lkq and once the child keeps an error of its own.  The parent
 * still gets its error after, from the library too.
 */
#include "../t.h"
#include "../t_reset_error.h"
#include "foreign.h"

#include <sys/wait.h>

static int so_error(int fd)
{
	int err = -1;
	T_ASSERT(foreign_so_error(fd, &err) == 0);
	return err;
}

static void check(int at)
{
	int c = t_reset_after_eof_at(at);
	pid_t pid = fork();
	T_ASSERT(pid >= 0);
	if (pid == 0) {
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
