/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * kqueuex(KQUEUE_CLOEXEC) returns a working kqueue whose descriptor has
 * FD_CLOEXEC set (FreeBSD >= 14 sys_kqueuex).
 */
#include "t.h"

int main(void)
{
	int kq = kqueuex(KQUEUE_CLOEXEC);
	T_ASSERT(kq >= 0);
	int fl = fcntl(kq, F_GETFD);
	T_ASSERT(fl != -1);
	if (!(fl & FD_CLOEXEC))
		T_FAIL("kqueuex(KQUEUE_CLOEXEC): FD_CLOEXEC not set");

	/* It is a usable kqueue. */
	int p[2];
	t_pipe(p);
	t_change(kq, p[0], EVFILT_READ, EV_ADD, 0, 0, &p);
	t_write(p[1], "x", 1);
	T_GET1(kq, p[0], EVFILT_READ, 0, 0, 1, &p);
	T_EQ(close(kq), 0);
	return 0;
}
