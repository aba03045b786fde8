/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * poll(kq, POLLIN, 0) on a kqueue without knotes, or whose knotes are
 * not ready, reports nothing (FreeBSD kqueue_poll: readable iff a knote is
 * queued).
 */
#include "t.h"

#include <poll.h>

int main(void)
{
	int kq = t_kqueue();
	struct pollfd pfd = { .fd = kq, .events = POLLIN | POLLOUT };
	T_EQ(poll(&pfd, 1, 0), 0);
	T_EQ(pfd.revents, 0);

	/* A knote that is not ready does not make it readable either. */
	int p[2];
	t_pipe(p);
	t_change(kq, p[0], EVFILT_READ, EV_ADD, 0, 0, NULL);
	pfd.revents = 0;
	T_EQ(poll(&pfd, 1, 0), 0);
	T_EQ(pfd.revents, 0);
	return 0;
}
