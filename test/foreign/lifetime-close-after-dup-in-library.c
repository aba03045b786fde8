/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * The sockets and their copies made by a shared library built without
 * -lkq: accept4(SOCK_CLOEXEC) and socketpair(SOCK_CLOEXEC) called there
 * are libkq's births all the same, and dup() called there must mark the
 * socket copied, or close() of the original -- by the program or by the
 * library -- skips the EPOLL_CTL_DEL while the copy keeps the file and its
 * epoll entry alive.  Checked: no entry for the closed number in the
 * kqueue's epoll set, no record and no spinning when the peer writes, and
 * a new socket at the number watched afresh.
 */
#include "births.h"

static int copy(struct birth *b)
{
	int c = foreign_dup(b->fd);
	if (c < 0)
		T_FAIL("dup in library: %s", strerror(errno));
	return c;
}

static int copy_fcntl(struct birth *b)
{
	int c = foreign_fcntl(b->fd, F_DUPFD_CLOEXEC, 0);
	if (c < 0)
		T_FAIL("fcntl(F_DUPFD_CLOEXEC) in library: %s", strerror(errno));
	return c;
}

int main(void)
{
	/* made and copied in the library, closed by the program */
	birth_copied_then_closed(BIRTH_ACCEPT4, BIRTH_LIB_MAKES, copy, "dup() in library");
	birth_copied_then_closed(BIRTH_SOCKETPAIR, BIRTH_LIB_MAKES, copy, "dup() in library");
	/* ... and closed by the library */
	birth_copied_then_closed(BIRTH_ACCEPT4, BIRTH_LIB_MAKES | BIRTH_LIB_CLOSES, copy,
				 "dup() in library");
	birth_copied_then_closed(BIRTH_SOCKETPAIR, BIRTH_LIB_MAKES | BIRTH_LIB_CLOSES,
				 copy_fcntl, "fcntl(F_DUPFD_CLOEXEC) in library");
	birth_copied_then_closed(BIRTH_ACCEPT4 | BIRTH_PARKED, BIRTH_LIB_MAKES, copy,
				 "dup() in library");
	return 0;
}
