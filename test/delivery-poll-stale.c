/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * poll() on a kqueue whose only queued knote has become stale (data read
 * by the application).  FreeBSD's kqueue_poll only looks at the queue, so it
 * may say readable; any answer is allowed, but poll must not fail or report
 * POLLNVAL, and the following get returns 0.  Checked for a knote
 * never retrieved and for a level knote just reported.
 */
#include "t.h"
#include <poll.h>

static void poll_then_get(int kq, const char *what)
{
	struct pollfd pfd = { .fd = kq, .events = POLLIN };
	int r = poll(&pfd, 1, 0);
	if (r < 0)
		T_FAIL("%s: poll failed: %s", what, strerror(errno));
	if (pfd.revents & POLLNVAL)
		T_FAIL("%s: poll reports POLLNVAL", what);
	T_NO_EVENTS(kq);
	pfd.revents = 0;
	T_ASSERT(poll(&pfd, 1, 0) >= 0);
	T_ASSERT(!(pfd.revents & POLLNVAL));
	T_NO_EVENTS(kq);
}

int main(void)
{
	int kq = t_kqueue();
	int p[2];
	char c;
	void *ud = (void *)(uintptr_t)0x309;

	t_pipe(p);
	t_change(kq, p[0], EVFILT_READ, EV_ADD, 0, 0, ud);

	t_write(p[1], "x", 1);
	T_EQ(read(p[0], &c, 1), 1);
	poll_then_get(kq, "never retrieved");

	t_write(p[1], "x", 1);
	T_GET1(kq, p[0], EVFILT_READ, 0, 0, 1, ud);
	T_EQ(read(p[0], &c, 1), 1);
	poll_then_get(kq, "after a level delivery");

	/* The knote still works. */
	t_write(p[1], "y", 1);
	T_GET1(kq, p[0], EVFILT_READ, 0, 0, 1, ud);
	return 0;
}
