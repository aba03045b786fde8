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
#include "t_private_close.h"

int main(void)
{
	int a, b, p1, p2;
	int kq = t_two_watched(&a, &b, &p1, &p2);

	t_epoll_ctl_trap();
	t_close_private(a);
	t_write(p1, "z", 1);
	t_wait_nothing_asleep(kq, 100);
	T_EQ(t_change_err(kq, a, EVFILT_READ, EV_DELETE, 0, 0, NULL), EBADF);

	t_close_copied(b);
	t_write(p2, "z", 1);
	t_wait_nothing_asleep(kq, 100);
	T_NO_EVENTS(kq);
	return 0;
}
