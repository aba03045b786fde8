/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * close() made by a shared library that does not link libkq removes the
 * knotes on that number, as every close does on FreeBSD: nothing is
 * reported for it any more, EV_DELETE finds no knote, and the next file
 * given the same number is watched afresh by the next EV_ADD.
 */
#include "../t.h"
#include "foreign.h"

int main(void)
{
	int kq = t_kqueue(), p[2], q[2];
	struct kevent ev[2];

	t_pipe(p);
	int fd = p[0];
	t_change(kq, fd, EVFILT_READ, EV_ADD, 0, 0, (void *)1);
	t_write(p[1], "x", 1);
	T_ASSERT(foreign_close(fd) == 0);

	T_NO_EVENTS(kq);
	T_EQ(t_change_err(kq, fd, EVFILT_READ, EV_DELETE, 0, 0, NULL), EBADF);

	t_pipe(q);
	T_EQ(q[0], fd);   /* the lowest free number comes back */
	T_EQ(t_change_err(kq, fd, EVFILT_READ, EV_DELETE, 0, 0, NULL), ENOENT);
	t_change(kq, fd, EVFILT_READ, EV_ADD, 0, 0, (void *)2);
	t_write(q[1], "yy", 2);
	T_EQ(t_wait(kq, ev, 2, 1000), 1);
	T_KEVENT(&ev[0], fd, EVFILT_READ, 0, 0, 2, (void *)2);
	return 0;
}
