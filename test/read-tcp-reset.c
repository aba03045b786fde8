/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * The peer of a TCP connection on 127.0.0.1 closes with
 * SO_LINGER {1, 0}, which sends a RST.  READ on our end fires with EV_EOF
 * and fflags = ECONNRESET (FreeBSD filt_soread copies so_error into fflags
 * and keeps doing so on every collection until the program reads the error).
 *
 * Linux can only learn the error by getsockopt(SO_ERROR), which clears it.
 * The library's documented decision: it hands the consumed error back, so the
 * program's own getsockopt(SO_ERROR) afterwards still returns ECONNRESET,
 * exactly once, as on FreeBSD.  After that the knote reports EV_EOF with
 * fflags 0, again as on FreeBSD (so_error is then 0).
 */
#include "t.h"

static int so_error(int fd)
{
	int err = -1;
	socklen_t len = sizeof err;

	T_ASSERT(getsockopt(fd, SOL_SOCKET, SO_ERROR, &err, &len) == 0);
	T_EQ(len, sizeof err);
	return err;
}

int main(void)
{
	int kq = t_kqueue(), c, s;
	struct linger lg = { 1, 0 };
	void *ud = (void *)0x4e5e7;

	t_tcp_pair(&c, &s);
	t_change(kq, c, EVFILT_READ, EV_ADD, 0, 0, ud);
	T_NO_EVENTS(kq);

	T_ASSERT(setsockopt(s, SOL_SOCKET, SO_LINGER, &lg, sizeof lg) == 0);
	T_ASSERT(close(s) == 0);

	T_WAIT1(kq, 2000, c, EVFILT_READ, EV_EOF, ECONNRESET, 0, ud);

	/* Level-triggered: reported again, still carrying the error. */
	T_GET1(kq, c, EVFILT_READ, EV_EOF, ECONNRESET, 0, ud);

	/* The program's own getsockopt still sees the error, once. */
	T_EQ(so_error(c), ECONNRESET);
	T_EQ(so_error(c), 0);

	/* The error has been consumed by the program: EOF without error. */
	T_GET1(kq, c, EVFILT_READ, EV_EOF, 0, 0, ud);
	return 0;
}
