/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * poll() on a kqueue, with a USER knote: a kqueue holding one triggered USER
 * knote is readable for poll() (POLLIN) and never writable (POLLOUT not set).
 * It is not readable before the trigger, nor after the knote left the queue:
 * an EV_CLEAR knote once retrieved, or a triggered level knote once deleted
 * (FreeBSD kqueue_poll: readable iff kq_count > 0).
 */
#include "t.h"

#include <poll.h>

static short poll_kq(int kq, short events)
{
	struct pollfd pfd = { .fd = kq, .events = events };
	int r = poll(&pfd, 1, 0);
	if (r < 0)
		T_FAIL("poll: %s", strerror(errno));
	return r ? pfd.revents : 0;
}

int main(void)
{
	int kq = t_kqueue();
	int ud;
	struct kevent ev[8];

	t_change(kq, 1, EVFILT_USER, EV_ADD | EV_CLEAR, 0, 0, &ud);
	T_EQ(poll_kq(kq, POLLIN | POLLOUT), 0);

	/* Triggered: POLLIN. */
	t_change(kq, 1, EVFILT_USER, 0, NOTE_TRIGGER, 0, &ud);
	short re = poll_kq(kq, POLLIN);
	if (!(re & POLLIN))
		T_FAIL("POLLIN not set after the trigger: revents 0x%x", re);
	/* Never POLLOUT. */
	re = poll_kq(kq, POLLIN | POLLOUT);
	if (re & POLLOUT)
		T_FAIL("POLLOUT set on a kqueue: revents 0x%x", re);
	if (!(re & POLLIN))
		T_FAIL("POLLIN not set: revents 0x%x", re);
	T_EQ(poll_kq(kq, POLLOUT), 0);

	/* poll() did not consume the event. */
	T_GET1(kq, 1, EVFILT_USER, EV_CLEAR, 0, 0, &ud);
	/* Retrieved EV_CLEAR knote: nothing queued any more. */
	T_EQ(poll_kq(kq, POLLIN), 0);

	/* Level knote: readable until it is deleted. */
	t_change(kq, 2, EVFILT_USER, EV_ADD, 0, 0, &ud);
	t_change(kq, 2, EVFILT_USER, 0, NOTE_TRIGGER, 0, &ud);
	T_ASSERT(poll_kq(kq, POLLIN) & POLLIN);
	T_EQ(t_get(kq, ev, 8), 1);
	T_ASSERT(poll_kq(kq, POLLIN) & POLLIN);
	t_change(kq, 2, EVFILT_USER, EV_DELETE, 0, 0, NULL);
	T_EQ(poll_kq(kq, POLLIN), 0);
	T_NO_EVENTS(kq);
	return 0;
}
