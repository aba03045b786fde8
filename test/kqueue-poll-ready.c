/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * A kqueue with a triggered knote (a pipe READ knote with data) is
 * readable for poll() (POLLIN) but never writable (POLLOUT not set)
 * (FreeBSD kqueue_poll).  The library's kqueue is an epoll fd, so select()
 * and a foreign epoll instance see the same readiness.
 */
#include "t.h"

#include <poll.h>
#include <sys/epoll.h>
#include <sys/select.h>

int main(void)
{
	int kq = t_kqueue();
	int p[2];
	t_pipe(p);
	t_change(kq, p[0], EVFILT_READ, EV_ADD, 0, 0, NULL);
	t_write(p[1], "abc", 3);

	/* poll() for POLLIN reports it. */
	struct pollfd pfd = { .fd = kq, .events = POLLIN };
	T_EQ(poll(&pfd, 1, 0), 1);
	if (!(pfd.revents & POLLIN))
		T_FAIL("POLLIN not set: revents 0x%x", pfd.revents);

	/* POLLIN|POLLOUT: only POLLIN. */
	pfd.events = POLLIN | POLLOUT;
	pfd.revents = 0;
	T_EQ(poll(&pfd, 1, 0), 1);
	if (pfd.revents & POLLOUT)
		T_FAIL("POLLOUT set on a kqueue: revents 0x%x", pfd.revents);
	if (!(pfd.revents & POLLIN))
		T_FAIL("POLLIN not set: revents 0x%x", pfd.revents);
	pfd.events = POLLOUT;
	pfd.revents = 0;
	T_EQ(poll(&pfd, 1, 0), 0);

	/* select() */
	fd_set rd, wr;
	FD_ZERO(&rd);
	FD_ZERO(&wr);
	FD_SET(kq, &rd);
	FD_SET(kq, &wr);
	struct timeval tv = { 0, 0 };
	T_EQ(select(kq + 1, &rd, &wr, NULL, &tv), 1);
	T_ASSERT(FD_ISSET(kq, &rd));
	T_ASSERT(!FD_ISSET(kq, &wr));

	/* A foreign epoll instance watching the kqueue. */
	int ep = epoll_create1(EPOLL_CLOEXEC);
	T_ASSERT(ep >= 0);
	struct epoll_event ee = { .events = EPOLLIN | EPOLLOUT };
	T_ASSERT(epoll_ctl(ep, EPOLL_CTL_ADD, kq, &ee) == 0);
	struct epoll_event got;
	T_EQ(epoll_wait(ep, &got, 1, 0), 1);
	T_ASSERT(got.events & EPOLLIN);
	T_ASSERT(!(got.events & EPOLLOUT));
	close(ep);

	/* The records are still there for kevent(). */
	T_GET1(kq, p[0], EVFILT_READ, 0, 0, 3, NULL);
	return 0;
}
