/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * dup2() and dup3() made by a shared library that does not link libkq onto
 * a watched number close the file that was there, and with it its knotes
 * (FreeBSD): the file now at the number is not watched until EV_ADD.
 */
#include "../t.h"
#include "foreign.h"

static void check(int use_dup3)
{
	int kq = t_kqueue(), a[2], b[2];
	struct kevent ev[2];

	t_pipe(a);
	t_pipe(b);
	int fd = a[0];
	t_change(kq, fd, EVFILT_READ, EV_ADD, 0, 0, (void *)1);
	T_EQ(use_dup3 ? foreign_dup3(b[0], fd, O_CLOEXEC) : foreign_dup2(b[0], fd), fd);

	t_write(b[1], "abc", 3);   /* the new file at fd is readable */
	T_NO_EVENTS(kq);
	T_EQ(t_change_err(kq, fd, EVFILT_READ, EV_DELETE, 0, 0, NULL), ENOENT);

	t_change(kq, fd, EVFILT_READ, EV_ADD, 0, 0, (void *)2);
	T_EQ(t_wait(kq, ev, 2, 1000), 1);
	T_KEVENT(&ev[0], fd, EVFILT_READ, 0, 0, 3, (void *)2);
	close(kq);
	close(fd);
	close(a[1]);
	close(b[0]);
	close(b[1]);
}

int main(void)
{
	check(0);
	check(1);
	return 0;
}
