/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * A refused non-blocking connect: EV_EOF's fflags carry the error, and the
 * error is still there for getsockopt(SO_ERROR) made by a shared library
 * that does not link libkq (FreeBSD's filter copies it without clearing
 * it); the read takes it, as on FreeBSD.
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

	int err;
	T_ASSERT(foreign_so_error(s, &err) == 0);
	T_EQ(err, ECONNREFUSED);
	T_ASSERT(foreign_so_error(s, &err) == 0);
	T_EQ(err, 0);
	close(l);
	return 0;
}
