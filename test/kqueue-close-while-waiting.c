/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * Thread T waits in kevent() on kq; another thread close()s kq.
 * FreeBSD: T keeps its file reference and returns only at the next
 * event/timeout/signal.  Library decision (a permitted extension):
 * the waiter returns promptly with -1/EBADF.  Checked: no crash, T returns
 * -1/EBADF well before its 3 s timeout, and a new kqueue (which typically
 * reuses the descriptor number) works normally afterwards.
 */
#include "t.h"

#include <pthread.h>

static int kq;
static int res, res_errno;
static int64_t returned_ns;

static void *waiter(void *arg)
{
	(void)arg;
	struct kevent ev[1];
	struct timespec ts = { 3, 0 };
	errno = 0;
	res = kevent(kq, NULL, 0, ev, 1, &ts);
	res_errno = errno;
	returned_ns = t_now_ns();
	return NULL;
}

int main(void)
{
	alarm(20);   /* watchdog: a hang kills the test */
	int p[2];
	t_pipe(p);
	kq = t_kqueue();
	t_change(kq, p[0], EVFILT_READ, EV_ADD, 0, 0, NULL);

	pthread_t th;
	T_ASSERT(pthread_create(&th, NULL, waiter, NULL) == 0);
	t_sleep_ms(100);   /* let T block; if it has not yet, EBADF anyway */
	int64_t closed_ns = t_now_ns();
	T_EQ(close(kq), 0);
	T_ASSERT(pthread_join(th, NULL) == 0);

	int64_t lag_ms = (returned_ns - closed_ns) / 1000000;
	if (res != -1 || res_errno != EBADF)
		T_FAIL("waiter returned %d/errno %d (%s), expected -1/EBADF",
		       res, res_errno, strerror(res_errno));
	if (lag_ms > 1000)
		T_FAIL("waiter returned %" PRId64 " ms after close", lag_ms);

	/* A new queue, probably on the same number, is unaffected. */
	int kq2 = t_kqueue();
	T_NO_EVENTS(kq2);
	t_change(kq2, p[0], EVFILT_READ, EV_ADD, 0, 0, &kq2);
	t_write(p[1], "x", 1);
	T_WAIT1(kq2, 2000, p[0], EVFILT_READ, 0, 0, 1, &kq2);
	return 0;
}
