/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * A private socket (accept4 or socketpair with SOCK_CLOEXEC) made
 * inheritable with fcntl(F_SETFD, 0) has a copy in every child a spawn
 * makes; posix_spawn() runs no fork handlers, so only the F_SETFD can tell
 * libkq.  With /bin/sleep holding the copy, close() of the original does
 * not free the file, so the kernel keeps its epoll entry, and libkq must
 * make the EPOLL_CTL_DEL it skips for private sockets.  Checked: no entry
 * for the closed number in the kqueue's epoll set, no record and no
 * spinning when the peer writes, and a new socket at the number watched
 * afresh.
 */
#include "births.h"

#include <spawn.h>

extern char **environ;

static int copy(struct birth *b)
{
	char *argv[] = { "sleep", "10", NULL };
	char mine[64], its[64], a[256], c[256];
	ssize_t n, m;
	pid_t child;
	int err;

	T_EQ(fcntl(b->fd, F_SETFD, 0), 0);
	if ((err = posix_spawn(&child, "/bin/sleep", NULL, NULL, argv, environ)) != 0)
		T_SKIP("posix_spawn(/bin/sleep): %s", strerror(err));
	birth_child_set(child);
	/* the child holds the same socket at the same number */
	snprintf(mine, sizeof mine, "/proc/self/fd/%d", b->fd);
	snprintf(its, sizeof its, "/proc/%d/fd/%d", (int)child, b->fd);
	n = readlink(mine, a, sizeof a - 1);
	m = readlink(its, c, sizeof c - 1);
	T_ASSERT(n > 0);
	if (m < 0)
		T_SKIP("readlink(%s): %s", its, strerror(errno));
	a[n] = c[m] = 0;
	if (strcmp(a, c) != 0)
		T_FAIL("the spawned child's descriptor %d is %s, not %s", b->fd, c, a);
	return -1;
}

int main(void)
{
	if (access("/bin/sleep", X_OK) != 0)
		T_SKIP("no /bin/sleep: %s", strerror(errno));
	birth_copied_then_closed(BIRTH_ACCEPT4, BIRTH_PROGRAM, copy,
				 "fcntl(F_SETFD, 0) and posix_spawn()");
	birth_child_kill();
	birth_copied_then_closed(BIRTH_SOCKETPAIR, BIRTH_PROGRAM, copy,
				 "fcntl(F_SETFD, 0) and posix_spawn()");
	birth_child_kill();
	birth_copied_then_closed(BIRTH_SOCKETPAIR | BIRTH_PARKED, BIRTH_PROGRAM, copy,
				 "fcntl(F_SETFD, 0) and posix_spawn()");
	birth_child_kill();
	return 0;
}
