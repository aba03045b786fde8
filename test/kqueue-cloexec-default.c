/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * FreeBSD's plain kqueue() descriptor does not have FD_CLOEXEC set.
 * Deviation from FreeBSD: the library creates every kqueue close-on-exec,
 * also from kqueue(), kqueuex(0) and kqueue1(0), because its user-space
 * state cannot survive execve (an inherited descriptor would be an empty,
 * unusable epoll fd).  This test checks the
 * library's documented behaviour.
 */
#include "t.h"

static void check(int kq, const char *what)
{
	if (kq < 0)
		T_FAIL("%s: %s", what, strerror(errno));
	int fl = fcntl(kq, F_GETFD);
	T_ASSERT(fl != -1);
	if (!(fl & FD_CLOEXEC))
		T_FAIL("%s: FD_CLOEXEC not set (library always sets it)", what);
	T_EQ(close(kq), 0);
}

int main(void)
{
	check(kqueue(), "kqueue()");
	check(kqueuex(0), "kqueuex(0)");
	check(kqueue1(0), "kqueue1(0)");
	return 0;
}
