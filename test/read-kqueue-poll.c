/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * poll()/select() on a kqueue descriptor report it readable
 * (POLLIN|POLLRDNORM) iff a knote is pending, and never writable (FreeBSD
 * kqueue_poll).  Empty kqueue: not readable; a READ knote on a pipe holding
 * a byte: readable; after the byte is read and kevent() has scanned the
 * queue: not readable again.
 */
#include "t.h"

#include <poll.h>
#include <sys/select.h>

static int sel(int kq, int *rd, int *wr, long ms)
{
	fd_set r, w;
	struct timeval tv = { ms / 1000, (ms % 1000) * 1000 };
	int n;

	FD_ZERO(&r);
	FD_ZERO(&w);
	FD_SET(kq, &r);
	FD_SET(kq, &w);
	n = select(kq + 1, &r, &w, NULL, &tv);
	T_ASSERT(n >= 0);
	*rd = FD_ISSET(kq, &r) != 0;
	*wr = FD_ISSET(kq, &w) != 0;
	return n;
}

int main(void)
{
	int kq = t_kqueue(), p[2], rd, wr;
	struct pollfd pfd;
	struct kevent ev[8];
	char c;
	const short ask = POLLIN | POLLRDNORM | POLLOUT | POLLWRNORM;

	t_pipe(p);
	t_change(kq, p[0], EVFILT_READ, EV_ADD, 0, 0, NULL);

	pfd.fd = kq;
	pfd.events = ask;
	pfd.revents = 0;
	T_EQ(poll(&pfd, 1, 0), 0);
	T_EQ(sel(kq, &rd, &wr, 0), 0);

	t_write(p[1], "x", 1);
	pfd.revents = 0;
	T_EQ(poll(&pfd, 1, 2000), 1);
	T_EQ(pfd.revents, POLLIN | POLLRDNORM);
	T_EQ(sel(kq, &rd, &wr, 2000), 1);
	T_EQ(rd, 1);
	T_EQ(wr, 0);

	/* poll/select do not consume: kevent still returns the event. */
	T_GET1(kq, p[0], EVFILT_READ, 0, 0, 1, NULL);

	T_EQ(read(p[0], &c, 1), 1);
	T_EQ(t_get(kq, ev, 8), 0);
	pfd.revents = 0;
	T_EQ(poll(&pfd, 1, 0), 0);
	T_EQ(sel(kq, &rd, &wr, 0), 0);
	return 0;
}
