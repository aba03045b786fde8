/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * Knotes die with their descriptor also when it is closed by
 * close_range() or closefrom(): no record for them afterwards, and
 * EV_DELETE of the number says EBADF (the number is no longer open), as
 * after a plain close().  close_range(CLOSE_RANGE_CLOEXEC) closes nothing,
 * so it leaves the knotes alone.
 */
#include "t.h"

#include <linux/close_range.h>

/* Moves fd to a number >= floor so the range below can be closed safely. */
static int high_fd(int fd, int floor)
{
	int h = fcntl(fd, F_DUPFD, floor);
	T_ASSERT(h >= floor);
	T_ASSERT(close(fd) == 0);
	return h;
}

static void watch(int kq, int fd[2])
{
	t_change(kq, fd[0], EVFILT_READ, EV_ADD, 0, 0, NULL);
	t_write(fd[1], "x", 1);
}

int main(void)
{
	int kq = t_kqueue(), a[2], b[2], c[2];
	struct kevent ev[8];

	t_pipe(a);
	t_pipe(b);
	t_pipe(c);
	a[0] = high_fd(a[0], 900);
	b[0] = high_fd(b[0], 1000);
	c[0] = high_fd(c[0], 1100);
	watch(kq, a);
	watch(kq, b);
	watch(kq, c);
	T_EQ(t_get(kq, ev, 8), 3);

	/* CLOEXEC only marks: nothing closed, nothing removed. */
	T_EQ(close_range(1000, 1000, CLOSE_RANGE_CLOEXEC), 0);
	T_EQ(t_get(kq, ev, 8), 3);

	T_EQ(close_range(1000, 1099, 0), 0);
	T_EQ(t_get(kq, ev, 8), 2);
	for (int i = 0; i < 2; i++)
		T_ASSERT(ev[i].ident != (uintptr_t)b[0]);
	T_EQ(t_change_err(kq, b[0], EVFILT_READ, EV_DELETE, 0, 0, NULL), EBADF);

	closefrom(1100);
	T_GET1(kq, a[0], EVFILT_READ, 0, 0, 1, NULL);
	T_EQ(t_change_err(kq, c[0], EVFILT_READ, EV_DELETE, 0, 0, NULL), EBADF);

	/* A new file on a reused number starts without knotes. */
	int p[2];
	t_pipe(p);
	int n = fcntl(p[0], F_DUPFD, 1000);
	T_EQ(n, b[0]);
	t_write(p[1], "yy", 2);
	T_GET1(kq, a[0], EVFILT_READ, 0, 0, 1, NULL);
	T_EQ(t_change_err(kq, n, EVFILT_READ, EV_DELETE, 0, 0, NULL), ENOENT);
	return 0;
}
