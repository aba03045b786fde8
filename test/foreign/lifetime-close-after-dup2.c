/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * A private socket (accept4 or socketpair with SOCK_CLOEXEC) copied with
 * dup2() to a free number is no longer its file's only descriptor: close()
 * of the original does not free the file, so the kernel keeps its epoll
 * entry, and libkq must make the EPOLL_CTL_DEL it skips for private
 * sockets.  Checked: no entry for the closed number in the kqueue's epoll
 * set, no record and no spinning when the peer writes, and a new socket at
 * the number watched afresh.
 */
#include "births.h"

static int copy(struct birth *b)
{
	int to = b->fd + 40;
	T_ERRNO(fcntl(to, F_GETFD), EBADF);   /* a free number */
	T_EQ(dup2(b->fd, to), to);
	return to;
}

int main(void)
{
	birth_copied_then_closed(BIRTH_ACCEPT4, BIRTH_PROGRAM, copy, "dup2() to a free number");
	birth_copied_then_closed(BIRTH_SOCKETPAIR, BIRTH_PROGRAM, copy, "dup2() to a free number");
	birth_copied_then_closed(BIRTH_SOCKETPAIR | BIRTH_PARKED, BIRTH_PROGRAM, copy,
				 "dup2() to a free number");
	return 0;
}
