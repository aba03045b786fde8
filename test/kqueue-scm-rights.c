/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * FreeBSD refuses to pass a kqueue descriptor over a UNIX socket
 * (SCM_RIGHTS -> EOPNOTSUPP).
 * Deviation from FreeBSD: the library's kqueue is an epoll fd, which Linux
 * lets through SCM_RIGHTS, and the library cannot intercept sendmsg for
 * it.  The documented behaviour checked here: sendmsg succeeds, the
 * received descriptor is not a kqueue for kevent() (-1/EBADF), and the
 * original kqueue keeps working, also after the received copy is closed.
 */
#include "t.h"

#include <sys/uio.h>

static void send_fd(int sock, int fd)
{
	char byte = 'k';
	struct iovec iov = { &byte, 1 };
	union t_rights ctl;
	struct msghdr msg;
	t_rights_msg(&msg, &iov, &ctl, fd);
	if (sendmsg(sock, &msg, 0) != 1)
		T_FAIL("sendmsg(SCM_RIGHTS kq): %s (library documents that "
		       "passing succeeds)", strerror(errno));
}

static int recv_fd(int sock)
{
	char byte;
	struct iovec iov = { &byte, 1 };
	union t_rights ctl;
	struct msghdr msg;
	t_rights_msg(&msg, &iov, &ctl, -1);
	if (recvmsg(sock, &msg, MSG_CMSG_CLOEXEC) != 1)
		T_FAIL("recvmsg: %s", strerror(errno));
	int fd = t_rights_fd(&msg);
	if (fd < 0)
		T_FAIL("no descriptor received");
	return fd;
}

int main(void)
{
	int kq = t_kqueue();
	int p[2], sp[2];
	t_pipe(p);
	t_socketpair(sp);
	t_change(kq, p[0], EVFILT_READ, EV_ADD, 0, 0, NULL);

	send_fd(sp[0], kq);
	int got = recv_fd(sp[1]);
	T_ASSERT(got >= 0 && got != kq);

	struct kevent ev[2], ch;
	struct timespec z = { 0, 0 };
	T_ERRNO(kevent(got, NULL, 0, ev, 2, &z), EBADF);
	EV_SET(&ch, p[0], EVFILT_READ, EV_DELETE, 0, 0, NULL);
	T_ERRNO(kevent(got, &ch, 1, NULL, 0, NULL), EBADF);

	/* The original queue is intact (the DELETE above did not reach it). */
	t_write(p[1], "x", 1);
	T_GET1(kq, p[0], EVFILT_READ, 0, 0, 1, NULL);

	/* Closing the received copy does not close the library's queue. */
	T_EQ(close(got), 0);
	T_GET1(kq, p[0], EVFILT_READ, 0, 0, 1, NULL);
	t_change(kq, p[0], EVFILT_READ, EV_DELETE, 0, 0, NULL);
	T_NO_EVENTS(kq);
	return 0;
}
