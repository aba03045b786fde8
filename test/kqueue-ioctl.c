/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * ioctl(kq, FIONREAD) fails.  FreeBSD (kqueue_ioctl) returns ENOTTY.
 * Deviation from FreeBSD: the library's kqueue is an epoll fd and the
 * library does not interpose ioctl(), so the kernel answers: ENOTTY on Linux
 * < 6.9, EINVAL on Linux >= 6.9 (epoll gained an ioctl handler for
 * EPIOCSPARAMS that rejects other requests with EINVAL).  Both are accepted.
 */
#include "t.h"

#include <sys/ioctl.h>

int main(void)
{
	int kq = t_kqueue();
	int p[2];
	t_pipe(p);
	t_change(kq, p[0], EVFILT_READ, EV_ADD, 0, 0, NULL);
	t_write(p[1], "abc", 3);

	int n = -12345;
	errno = 0;
	int r = ioctl(kq, FIONREAD, &n);
	if (r != -1)
		T_FAIL("ioctl(kq, FIONREAD) returned %d (n = %d)", r, n);
	if (errno != ENOTTY && errno != EINVAL)
		T_FAIL("ioctl(kq, FIONREAD): unexpected errno %d (%s)", errno,
		       strerror(errno));
	fprintf(stderr, "ioctl(kq, FIONREAD): %s\n",
		errno == ENOTTY ? "ENOTTY" : "EINVAL");

	T_GET1(kq, p[0], EVFILT_READ, 0, 0, 3, NULL);
	return 0;
}
