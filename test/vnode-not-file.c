/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * EVFILT_VNODE is for file-system objects only.  EV_ADD on
 * either end of a UNIX socketpair, a TCP socket, a UDP socket, either end
 * of a pipe and a kqueue descriptor fails with EINVAL (FreeBSD
 * soo_kqfilter, pipe_kqfilter and kqueue_kqfilter accept only their own
 * filters): one echoing EV_ERROR record with data EINVAL, or -1/EINVAL
 * without an event list.  No knote is left behind: EV_DELETE then fails
 * with ENOENT.
 */
#include "t.h"

static void check(int kq, int fd, const char *what)
{
	void *ud = (void *)0x122;

	fprintf(stderr, "%s (fd %d)\n", what, fd);
	t_change_fails(kq, fd, EVFILT_VNODE, EV_ADD, ud, EINVAL);
	t_change_fails(kq, fd, EVFILT_VNODE, EV_ADD | EV_CLEAR, ud, EINVAL);
	T_EQ(t_change_err(kq, fd, EVFILT_VNODE, EV_DELETE, 0, 0, NULL),
	     ENOENT);
}

int main(void)
{
	int kq = t_kqueue(), other = t_kqueue();
	int sp[2], p[2];
	struct sockaddr_in sin;

	t_socketpair(sp);
	t_pipe(p);
	int tcp = socket(AF_INET, SOCK_STREAM, 0);
	T_ASSERT(tcp >= 0);
	int udp = t_inet_socket(SOCK_DGRAM, 0, &sin);

	check(kq, sp[0], "socketpair end 0");
	check(kq, sp[1], "socketpair end 1");
	check(kq, tcp, "TCP socket");
	check(kq, udp, "UDP socket");
	check(kq, p[0], "pipe read end");
	check(kq, p[1], "pipe write end");
	check(kq, other, "kqueue");
	T_NO_EVENTS(kq);
	return 0;
}
