/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * kqueue1(O_CLOEXEC) returns a working kqueue with FD_CLOEXEC set
 * (NetBSD kqueue1, declared by FreeBSD >= 14).
 */
#include "t.h"

int main(void)
{
	int kq = kqueue1(O_CLOEXEC);
	T_ASSERT(kq >= 0);
	int fl = fcntl(kq, F_GETFD);
	T_ASSERT(fl != -1);
	if (!(fl & FD_CLOEXEC))
		T_FAIL("kqueue1(O_CLOEXEC): FD_CLOEXEC not set");

	int p[2];
	t_pipe(p);
	t_change(kq, p[0], EVFILT_READ, EV_ADD, 0, 0, NULL);
	T_NO_EVENTS(kq);
	t_write(p[1], "ab", 2);
	T_WAIT1(kq, 2000, p[0], EVFILT_READ, 0, 0, 2, NULL);
	T_EQ(close(kq), 0);
	return 0;
}
