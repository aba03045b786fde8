/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * A kevent() call that only makes changes is not a cancellation point, even
 * when it has to wait for another thread: here a second thread sleeps in
 * kevent() on the same kqueue while the first, with a cancellation request
 * pending (deferred type), adds a knote.  The add must be applied and return
 * 0, the request acted upon only at the next pthread_testcancel(), and the
 * kqueue must stay usable by every other thread afterwards (a thread leaving
 * through cancellation inside the library would take its lock with it).
 */
#include "t_cancel.h"

static int kq;
static volatile int sleeper_got = -100;

static void *sleeper(void *arg)
{
	(void)arg;
	struct kevent ev;
	struct timespec ts = { 10, 0 };
	sleeper_got = kevent(kq, NULL, 0, &ev, 1, &ts);
	return NULL;
}

int main(void)
{
	T_CANCEL_SKIP_ASAN();
	alarm(30);   /* watchdog: a lock lost with the cancelled thread hangs */
	/* The window (the sleeper still holding reports when the add comes)
	 * is not certain to be hit on a loaded machine; a few rounds make a
	 * miss unlikely. */
	for (int round = 0; round < 8; round++) {
		int p[2], q[2];
		kq = t_kqueue();
		t_pipe(p);
		t_pipe(q);
		/* a descriptor knote: the sleeper waits in epoll on the set */
		t_change(kq, q[0], EVFILT_READ, EV_ADD, 0, 0, NULL);

		pthread_t sl, th;
		sleeper_got = -100;
		T_ASSERT(pthread_create(&sl, NULL, sleeper, NULL) == 0);
		t_sleep_ms(30);   /* let it fall asleep in kevent() */
		struct t_cancel_add a = { .kq = kq, .fd = p[0], .udata = &kq };
		T_ASSERT(pthread_create(&th, NULL, t_cancel_add_main, &a) == 0);
		t_cancel_add_check(th, &a);

		/* The change was applied, and the sleeper is woken by it. */
		t_write(p[1], "x", 1);
		T_ASSERT(pthread_join(sl, NULL) == 0);
		T_EQ(sleeper_got, 1);
		T_GET1(kq, p[0], EVFILT_READ, 0, 0, 1, &kq);
		close(kq);
		close(p[0]);
		close(p[1]);
		close(q[0]);
		close(q[1]);
	}
	return 0;
}
