/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * A private socket (accept4 or socketpair with SOCK_CLOEXEC) has a copy in
 * a child made by fork(), close-on-exec or not.  With the child alive and
 * holding it, close() in the parent does not free the file, so the kernel
 * keeps its epoll entry, and libkq must make the EPOLL_CTL_DEL it skips
 * for private sockets.  Checked: no entry for the closed number in the
 * kqueue's epoll set, no record and no spinning when the peer writes, and
 * a new socket at the number watched afresh.
 */
#include "births.h"

static int copy(struct birth *b)
{
	(void)b;
	pid_t child = fork();
	if (child < 0)
		T_FAIL("fork: %s", strerror(errno));
	if (child == 0) {
		for (;;)
			pause();   /* holds every descriptor until killed */
	}
	birth_child_set(child);
	return -1;
}

int main(void)
{
	birth_copied_then_closed(BIRTH_ACCEPT4, BIRTH_PROGRAM, copy, "fork()");
	birth_child_kill();
	birth_copied_then_closed(BIRTH_SOCKETPAIR, BIRTH_PROGRAM, copy, "fork()");
	birth_child_kill();
	birth_copied_then_closed(BIRTH_SOCKETPAIR | BIRTH_PARKED, BIRTH_PROGRAM, copy, "fork()");
	birth_child_kill();
	return 0;
}
