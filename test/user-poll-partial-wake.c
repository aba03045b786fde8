/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * poll() on a kqueue whose waiter was woken by another thread's triggers
 * and took fewer records than were queued: the kqueue stays readable while
 * knotes remain queued, and is not readable once they are all taken
 * (FreeBSD kqueue_poll: readable iff kq_count > 0).  The wake-up the
 * waiter took from epoll must not take the kqueue's readability with it.
 */
#include "t.h"

#include <poll.h>
#include <pthread.h>

static int kq, ud1, ud2;

static short poll_kq(void)
{
	struct pollfd pfd = { .fd = kq, .events = POLLIN };
	int r = poll(&pfd, 1, 0);
	if (r < 0)
		T_FAIL("poll: %s", strerror(errno));
	return r ? pfd.revents : 0;
}

static void *trigger_two(void *arg)
{
	(void)arg;
	t_sleep_ms(100);   /* let the main thread sleep in kevent() */
	struct kevent ch[2];
	/* a modify replaces udata: give the same */
	EV_SET(&ch[0], 1, EVFILT_USER, 0, NOTE_TRIGGER, 0, &ud1);
	EV_SET(&ch[1], 2, EVFILT_USER, 0, NOTE_TRIGGER, 0, &ud2);
	if (kevent(kq, ch, 2, NULL, 0, NULL) != 0)
		T_FAIL("trigger: %s", strerror(errno));
	return NULL;
}

int main(void)
{
	kq = t_kqueue();
	t_change(kq, 1, EVFILT_USER, EV_ADD | EV_CLEAR, 0, 0, &ud1);
	t_change(kq, 2, EVFILT_USER, EV_ADD | EV_CLEAR, 0, 0, &ud2);
	T_EQ(poll_kq(), 0);

	for (int round = 0; round < 3; round++) {
		pthread_t th;
		T_ASSERT(pthread_create(&th, NULL, trigger_two, NULL) == 0);
		struct kevent ev;
		struct timespec ts = { 5, 0 };
		int n = kevent(kq, NULL, 0, &ev, 1, &ts);
		T_ASSERT(pthread_join(th, NULL) == 0);
		if (n != 1)
			T_FAIL("round %d: the woken waiter got %d records, expected 1", round, n);
		uintptr_t other = ev.ident == 1 ? 2 : 1;
		/* one knote is still queued: readable */
		if (!(poll_kq() & POLLIN))
			T_FAIL("round %d: a knote is queued, but the kqueue is not readable", round);
		T_GET1(kq, other, EVFILT_USER, EV_CLEAR, 0, 0, other == 1 ? &ud1 : &ud2);
		/* nothing queued: not readable, and nothing to collect */
		T_EQ(poll_kq(), 0);
		T_NO_EVENTS(kq);
	}
	return 0;
}
