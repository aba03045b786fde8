/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * Library decision (companion of kqueue-scm-rights): a dup() of a kqueue
 * descriptor is not a kqueue for kevent() (-1/EBADF), since the queue's state
 * belongs to the original descriptor; the original keeps working, also after
 * the copy is closed.  Deviation from FreeBSD: there a dup()ed kqueue
 * descriptor refers to the same queue; the library cannot follow duplicated
 * epoll fds.  FreeBSD-identical part: after dup2() puts another file on the
 * kqueue's number, that number is no longer a kqueue (EBADF) (FreeBSD
 * kqueue_acquire).
 */
#include "t.h"

int main(void)
{
	int kq = t_kqueue();
	int p[2];
	t_pipe(p);
	t_change(kq, p[0], EVFILT_READ, EV_ADD, 0, 0, NULL);
	t_write(p[1], "x", 1);

	struct kevent ev[2];
	struct timespec z = { 0, 0 };

	int d1 = dup(kq);
	T_ASSERT(d1 >= 0);
	T_ERRNO(kevent(d1, NULL, 0, ev, 2, &z), EBADF);
	int d2 = fcntl(kq, F_DUPFD_CLOEXEC, 100);
	T_ASSERT(d2 >= 100);
	T_ERRNO(kevent(d2, NULL, 0, ev, 2, &z), EBADF);
	int d3 = dup2(kq, 200);
	T_EQ(d3, 200);
	T_ERRNO(kevent(d3, NULL, 0, ev, 2, &z), EBADF);

	T_GET1(kq, p[0], EVFILT_READ, 0, 0, 1, NULL);

	T_EQ(close(d1), 0);
	T_EQ(close(d2), 0);
	T_EQ(close(d3), 0);
	T_EQ(t_get(kq, ev, 2), 1);
	T_KEVENT(&ev[0], p[0], EVFILT_READ, 0, 0, 1, NULL);

	/* dup2() another file over the kqueue number: no longer a kqueue. */
	int q[2];
	t_pipe(q);
	T_EQ(dup2(q[0], kq), kq);
	T_ERRNO(kevent(kq, NULL, 0, ev, 2, &z), EBADF);

	/* A new kqueue works normally. */
	int kq2 = t_kqueue();
	t_change(kq2, p[0], EVFILT_READ, EV_ADD, 0, 0, &q);
	T_GET1(kq2, p[0], EVFILT_READ, 0, 0, 1, &q);
	return 0;
}
