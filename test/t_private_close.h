/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * Closes of watched sockets that libkq judges private (no copy, no child
 * can hold one: no EPOLL_CTL_DEL) or not, counted with t_epoll_ctl.h, for
 * the tests that check that judgment in different programs.
 */
#ifndef T_PRIVATE_CLOSE_H
#define T_PRIVATE_CLOSE_H

#include "t.h"
#include "t_epoll_ctl.h"

/* An accepted, inheritable connection with a READ knote whose record was
 * taken; *peer is its other end. */
static int t_watched_connection(int kq, int l, const struct sockaddr_in *sin, int *peer)
{
	struct kevent ev;
	*peer = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
	T_ASSERT(*peer >= 0);
	T_ASSERT(connect(*peer, (const struct sockaddr *)sin, sizeof *sin) == 0);
	int a = accept(l, NULL, NULL);
	T_ASSERT(a >= 0);
	T_EQ(fcntl(a, F_GETFD) & FD_CLOEXEC, 0);
	t_change(kq, a, EVFILT_READ, EV_ADD, 0, 0, (void *)0x1111);
	t_write(*peer, "xy", 2);
	T_EQ(t_wait(kq, &ev, 1, 1000), 1);
	T_KEVENT(&ev, a, EVFILT_READ, 0, 0, 2, (void *)0x1111);
	char buf[2];
	T_EQ(read(a, buf, 2), 2);
	return a;
}

/* Two watched connections accepted on a new listener, *b with a dup()ed
 * copy; *p1 and *p2 their peers. */
static int t_two_watched(int *a, int *b, int *p1, int *p2)
{
	struct sockaddr_in sin;
	int kq = t_kqueue();
	int l = t_inet_socket(SOCK_STREAM | SOCK_CLOEXEC, 8, &sin);
	*a = t_watched_connection(kq, l, &sin, p1);
	*b = t_watched_connection(kq, l, &sin, p2);
	T_ASSERT(dup(*b) >= 0);
	return kq;
}

/* close(a) of a socket no child can hold: no DEL (the trap installed). */
static void t_close_private(int a)
{
	T_ASSERT(close(a) == 0);
	if (t_epoll_ctls[EPOLL_CTL_DEL] != 0)
		T_FAIL("close() of an accepted socket no child can hold made %d "
		       "EPOLL_CTL_DEL%s, expected none", (int)t_epoll_ctls[EPOLL_CTL_DEL],
		       t_epoll_ctls[EPOLL_CTL_DEL] == 1 ? "" : "s");
}

/* close(b) of a socket with a dup()ed copy: one DEL, which also shows
 * that the trap counts. */
static void t_close_copied(int b)
{
	T_ASSERT(close(b) == 0);
	if (t_epoll_ctls[EPOLL_CTL_DEL] != 1)
		T_FAIL("close() of a dup()ed socket made %d EPOLL_CTL_DELs, expected 1",
		       (int)t_epoll_ctls[EPOLL_CTL_DEL]);
}

#endif
