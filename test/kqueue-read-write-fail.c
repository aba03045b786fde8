/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * read() and write() on a kqueue descriptor fail (FreeBSD
 * invfo_rdwr: EOPNOTSUPP).  The library's kqueue is an epoll fd, for which
 * Linux returns EINVAL; the test asserts failure, accepts either errno, and
 * checks the queue is unaffected.
 */
#include "t.h"

int main(void)
{
	int kq = t_kqueue();
	int p[2];
	t_pipe(p);
	t_change(kq, p[0], EVFILT_READ, EV_ADD, 0, 0, NULL);
	t_write(p[1], "x", 1);

	char buf[64];
	errno = 0;
	ssize_t r = read(kq, buf, 1);
	if (r != -1)
		T_FAIL("read(kq) returned %zd", r);
	if (errno != EINVAL && errno != EOPNOTSUPP)
		T_FAIL("read(kq): unexpected errno %d (%s)", errno,
		       strerror(errno));
	fprintf(stderr, "read(kq): %s\n", strerror(errno));

	errno = 0;
	r = write(kq, "x", 1);
	if (r != -1)
		T_FAIL("write(kq) returned %zd", r);
	if (errno != EINVAL && errno != EOPNOTSUPP)
		T_FAIL("write(kq): unexpected errno %d (%s)", errno,
		       strerror(errno));

	T_GET1(kq, p[0], EVFILT_READ, 0, 0, 1, NULL);
	return 0;
}
