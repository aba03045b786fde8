/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * A private socket (accept4 or socketpair with SOCK_CLOEXEC) copied with
 * fcntl(F_DUPFD_CLOEXEC) is no longer its file's only descriptor (the copy
 * being close-on-exec too changes nothing): close() of the original does
 * not free the file, so the kernel keeps its epoll entry, and libkq must
 * make the EPOLL_CTL_DEL it skips for private sockets.  Checked: no entry
 * for the closed number in the kqueue's epoll set, no record and no
 * spinning when the peer writes, and a new socket at the number watched
 * afresh.
 */
#include "births.h"

static int copy(struct birth *b)
{
	int c = fcntl(b->fd, F_DUPFD_CLOEXEC, 0);
	if (c < 0)
		T_FAIL("fcntl(F_DUPFD_CLOEXEC): %s", strerror(errno));
	T_EQ(fcntl(c, F_GETFD), FD_CLOEXEC);
	return c;
}

int main(void)
{
	birth_copied_then_closed(BIRTH_ACCEPT4, BIRTH_PROGRAM, copy, "fcntl(F_DUPFD_CLOEXEC)");
	birth_copied_then_closed(BIRTH_SOCKETPAIR, BIRTH_PROGRAM, copy, "fcntl(F_DUPFD_CLOEXEC)");
	birth_copied_then_closed(BIRTH_SOCKETPAIR | BIRTH_PARKED, BIRTH_PROGRAM, copy,
				 "fcntl(F_DUPFD_CLOEXEC)");
	return 0;
}
