/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * A program (here: a library without -lkq) that learns why a non-blocking
 * connect failed by calling connect() again gets the error itself, as on
 * FreeBSD (ECONNREFUSED), also after libkq reported it in EV_EOF's fflags;
 * the error is given once, then the socket's state speaks.
 */
#include "../t.h"
#include "foreign.h"

int main(void)
{
	struct sockaddr_in sin;
	int l = t_inet_socket(SOCK_STREAM, 0, &sin);   /* bound, not listening */
	int s = t_refused_connect(&sin);
	int kq = t_kqueue();
	struct kevent ev[2];
	t_change(kq, s, EVFILT_WRITE, EV_ADD, 0, 0, NULL);
	T_EQ(t_wait(kq, ev, 2, 2000), 1);
	T_ASSERT(ev[0].flags & EV_EOF);
	T_EQ(ev[0].fflags, ECONNREFUSED);

	errno = 0;
	T_EQ(foreign_connect(s, &sin, sizeof sin), -1);
	T_EQ(errno, ECONNREFUSED);
	/* once: the error is consumed, as a kernel read of it would */
	int err;
	T_ASSERT(foreign_so_error(s, &err) == 0);
	T_EQ(err, 0);
	close(l);
	return 0;
}
