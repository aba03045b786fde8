/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * kevent() with nevents = 0 is not a cancellation point (FreeBSD
 * kevent(2) CANCELLATION BEHAVIOUR): with a cancellation request pending
 * (deferred type), a call with one change and nevents = 0 applies the change
 * and returns 0 normally; the request is then acted upon at
 * pthread_testcancel().
 */
#include "t.h"

#include <pthread.h>

static int kq;
static int p[2];
static volatile int result = -100, result_errno;

static void *worker(void *arg)
{
	(void)arg;
	int old;
	T_ASSERT(pthread_setcanceltype(PTHREAD_CANCEL_DEFERRED, &old) == 0);
	T_ASSERT(pthread_setcancelstate(PTHREAD_CANCEL_DISABLE, &old) == 0);
	T_ASSERT(pthread_cancel(pthread_self()) == 0);
	/* Now pending; re-enabling does not act on it (not a cancel point). */
	T_ASSERT(pthread_setcancelstate(PTHREAD_CANCEL_ENABLE, &old) == 0);

	struct kevent ch;
	EV_SET(&ch, p[0], EVFILT_READ, EV_ADD, 0, 0, &kq);
	errno = 0;
	int r = kevent(kq, &ch, 1, NULL, 0, NULL);
	result_errno = errno;
	result = r;

	pthread_testcancel();
	return (void *)1;   /* not reached */
}

int main(void)
{
#ifdef __SANITIZE_ADDRESS__
	/* gcc 12's ASan reports a false stack-buffer-overflow for every thread
	 * that is cancelled, shown with a program that only cancels a thread
	 * blocked in epoll_wait() and never calls libkq. */
	T_SKIP("thread cancellation is not supported under gcc's AddressSanitizer");
#endif
	alarm(20);   /* watchdog */
	kq = t_kqueue();
	t_pipe(p);

	pthread_t th;
	T_ASSERT(pthread_create(&th, NULL, worker, NULL) == 0);
	void *rv = NULL;
	T_ASSERT(pthread_join(th, &rv) == 0);
	if (result == -100)
		T_FAIL("kevent(nevents = 0) acted on the pending cancellation");
	if (result != 0)
		T_FAIL("kevent returned %d (%s), expected 0", result,
		       strerror(result_errno));
	if (rv != PTHREAD_CANCELED)
		T_FAIL("pending cancellation was lost (pthread_testcancel "
		       "returned)");

	/* The change was applied. */
	T_NO_EVENTS(kq);
	t_write(p[1], "x", 1);
	struct kevent ev[2];
	T_EQ(t_get(kq, ev, 2), 1);
	T_KEVENT(&ev[0], p[0], EVFILT_READ, 0, 0, 1, &kq);
	return 0;
}
