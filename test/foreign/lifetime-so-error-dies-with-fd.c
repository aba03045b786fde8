/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * A socket error libkq read for an EV_EOF record belongs to that socket: when
 * the socket is closed behind libkq's back (a raw close) and the number goes
 * to a new socket, neither getsockopt(SO_ERROR) nor connect() on the new one
 * sees the old error.
 */
#include "../t.h"
#include "foreign.h"

static int refused_socket(int kq, struct sockaddr_in *sin)
{
	int s = t_refused_connect(sin);
	struct kevent ev[2];
	t_change(kq, s, EVFILT_WRITE, EV_ADD | EV_ONESHOT, 0, 0, NULL);
	T_EQ(t_wait(kq, ev, 2, 2000), 1);
	T_EQ(ev[0].fflags, ECONNREFUSED);
	return s;
}

int main(void)
{
	struct sockaddr_in dead, live;
	int l = t_inet_socket(SOCK_STREAM, 0, &dead);     /* bound, not listening */
	int srv = t_inet_socket(SOCK_STREAM, 8, &live);   /* listening */
	int kq = t_kqueue(), err;

	int s = refused_socket(kq, &dead);
	T_ASSERT(foreign_raw_close(s) == 0);
	int s2 = socket(AF_INET, SOCK_STREAM, 0);
	T_EQ(s2, s);
	T_ASSERT(foreign_so_error(s2, &err) == 0);
	T_EQ(err, 0);

	s = refused_socket(kq, &dead);
	T_ASSERT(foreign_raw_close(s) == 0);
	int s3 = socket(AF_INET, SOCK_STREAM, 0);
	T_EQ(s3, s);
	T_ASSERT(foreign_connect(s3, &live, sizeof live) == 0);
	close(l);
	close(srv);
	return 0;
}
