/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * A waiting kevent() woken by something that comes to no record sleeps
 * again for what is left of its timeout, and the whole call never ends
 * before the timeout: FreeBSD's kqueue_scan() goes back to sleep until its
 * deadline.  The wake-up here is another thread's change on the kqueue: a
 * READ knote added on an empty pipe, which touches the epoll set and so
 * wakes the sleeping call to hand over (and it has nothing to report).
 * Timeouts of 400 ms and 1.2 s; the call must not end late by more than
 * 5 % of the timeout plus a scheduling allowance either.
 */
#include "t.h"

#include <pthread.h>

static int kq, q[2];

static void *add_later(void *arg)
{
	(void)arg;
	struct timespec d = { 0, 50000000 };   /* 50 ms: the call sleeps by then */
	nanosleep(&d, NULL);
	t_change(kq, q[0], EVFILT_READ, EV_ADD, 0, 0, NULL);
	return NULL;
}

static void check(long ms)
{
	int p[2];
	t_pipe(p);
	t_pipe(q);
	t_change(kq, p[0], EVFILT_READ, EV_ADD, 0, 0, NULL);
	pthread_t th;
	T_ASSERT(pthread_create(&th, NULL, add_later, NULL) == 0);
	struct kevent ev[8];
	int64_t t0 = t_now_ns();
	int n = t_wait(kq, ev, 8, ms);
	int64_t el = t_now_ns() - t0;
	T_ASSERT(pthread_join(th, NULL) == 0);
	if (n != 0) {
		for (int i = 0; i < n; i++)
			t_print_kevent("  unexpected", &ev[i]);
		T_FAIL("%ld ms: %d records, none expected", ms, n);
	}
	if (el < ms * 1000000)
		T_FAIL("%ld ms: returned after %.3f ms, before its timeout", ms, el / 1e6);
	if (el > ms * 1000000 + ms * 50000 + 500000000)
		T_FAIL("%ld ms: returned only after %.3f ms", ms, el / 1e6);
	t_change(kq, p[0], EVFILT_READ, EV_DELETE, 0, 0, NULL);
	t_change(kq, q[0], EVFILT_READ, EV_DELETE, 0, 0, NULL);
	close(p[0]);
	close(p[1]);
	close(q[0]);
	close(q[1]);
}

int main(void)
{
	kq = t_kqueue();
	check(400);
	check(1200);
	return 0;
}
