/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * A socket accept() made without SOCK_CLOEXEC, which HAProxy's sockets
 * are, is still its file's only descriptor: every child that could copy it
 * is one libkq sees made (fork, vfork, posix_spawn, system, popen), and
 * none was.  So its close() frees the file, the kernel drops its epoll
 * entry, and libkq makes no EPOLL_CTL_DEL: closing a watched connection
 * costs what it costs on raw epoll.  Counted by a seccomp trap on
 * EPOLL_CTL_DEL (t_epoll_ctl.h); a dup()ed socket's close, which must make
 * its DEL, shows that the trap counts.  Also checked: no entry is left for
 * the number, and nothing is reported.
 */
#include "t.h"
#include "t_epoll_ctl.h"

/* An accepted, inheritable connection with a READ knote whose record was
 * taken; *peer is its other end. */
static int watched_connection(int kq, int l, const struct sockaddr_in *sin, int *peer)
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

int main(void)
{
	struct sockaddr_in sin;
	int kq = t_kqueue();
	int l = t_inet_socket(SOCK_STREAM | SOCK_CLOEXEC, 8, &sin);
	int p1, p2;
	int a = watched_connection(kq, l, &sin, &p1);
	int b = watched_connection(kq, l, &sin, &p2);
	int copy = dup(b);
	T_ASSERT(copy >= 0);

	t_epoll_ctl_trap();
	T_ASSERT(close(a) == 0);
	if (t_epoll_ctls[EPOLL_CTL_DEL] != 0)
		T_FAIL("close() of an accepted socket no child can hold made %d "
		       "EPOLL_CTL_DEL%s, expected none", (int)t_epoll_ctls[EPOLL_CTL_DEL],
		       t_epoll_ctls[EPOLL_CTL_DEL] == 1 ? "" : "s");
	t_write(p1, "z", 1);
	t_wait_nothing_asleep(kq, 100);
	T_EQ(t_change_err(kq, a, EVFILT_READ, EV_DELETE, 0, 0, NULL), EBADF);

	T_ASSERT(close(b) == 0);
	if (t_epoll_ctls[EPOLL_CTL_DEL] != 1)
		T_FAIL("close() of a dup()ed socket made %d EPOLL_CTL_DELs, expected 1",
		       (int)t_epoll_ctls[EPOLL_CTL_DEL]);
	t_write(p2, "z", 1);
	t_wait_nothing_asleep(kq, 100);
	T_NO_EVENTS(kq);
	return 0;
}
