/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * kq1 registered in kq2, then kq2 in kq1.  FreeBSD accepts the second
 * EV_ADD (kqueue_register only rejects self-registration).
 * Deviation from FreeBSD: the library's kqueues are epoll fds and Linux
 * rejects epoll loops, so the closing EV_ADD fails with ELOOP (an accepted
 * deviation); checked for a 2-cycle and a 3-cycle, as -1/errno and as an
 * EV_ERROR record.  The non-cyclic registrations keep working.
 */
#include "t.h"

int main(void)
{
	int a = t_kqueue(), b = t_kqueue(), c = t_kqueue();
	struct kevent ch;

	/* 2-cycle: a in b, then b in a. */
	t_change(b, a, EVFILT_READ, EV_ADD, 0, 0, NULL);
	EV_SET(&ch, b, EVFILT_READ, EV_ADD, 0, 0, NULL);
	T_ERRNO(kevent(a, &ch, 1, NULL, 0, NULL), ELOOP);
	T_EQ(t_change_err(a, b, EVFILT_READ, EV_ADD, 0, 0, NULL), ELOOP);

	/* 3-cycle: a in b (already), b in c, then c in a. */
	t_change(c, b, EVFILT_READ, EV_ADD, 0, 0, NULL);
	EV_SET(&ch, c, EVFILT_READ, EV_ADD, 0, 0, NULL);
	T_ERRNO(kevent(a, &ch, 1, NULL, 0, NULL), ELOOP);
	T_EQ(t_change_err(a, c, EVFILT_READ, EV_ADD, 0, 0, NULL), ELOOP);

	/* The accepted chain a -> b -> c propagates readiness. */
	int p[2];
	t_pipe(p);
	t_change(a, p[0], EVFILT_READ, EV_ADD, 0, 0, NULL);
	t_write(p[1], "x", 1);
	T_WAIT1(b, 2000, a, EVFILT_READ, 0, 0, 1, NULL);
	T_WAIT1(c, 2000, b, EVFILT_READ, 0, 0, 1, NULL);
	T_GET1(a, p[0], EVFILT_READ, 0, 0, 1, NULL);
	return 0;
}
