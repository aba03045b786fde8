/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * A thread that adds one READ knote with a cancellation request already
 * pending (deferred type), for the tests of kevent() calls that carry
 * changes and so must not act on it.  Run t_cancel_add_main() as a thread;
 * after the join, `result` is kevent()'s value (-100 if the call never
 * returned, i.e. it acted on the request), `err` its errno, and the thread's
 * value is PTHREAD_CANCELED if the request was then acted on by
 * pthread_testcancel(), as it must be.
 */
#ifndef T_CANCEL_H
#define T_CANCEL_H

#include "t.h"

#include <pthread.h>

struct t_cancel_add {
	int kq, fd;
	void *udata;
	volatile int result, err;
};

static inline void *t_cancel_add_main(void *arg)
{
	struct t_cancel_add *a = arg;
	int old;
	a->result = -100;
	T_ASSERT(pthread_setcanceltype(PTHREAD_CANCEL_DEFERRED, &old) == 0);
	T_ASSERT(pthread_setcancelstate(PTHREAD_CANCEL_DISABLE, &old) == 0);
	T_ASSERT(pthread_cancel(pthread_self()) == 0);
	/* Now pending; re-enabling does not act on it (not a cancel point). */
	T_ASSERT(pthread_setcancelstate(PTHREAD_CANCEL_ENABLE, &old) == 0);

	struct kevent ch;
	EV_SET(&ch, a->fd, EVFILT_READ, EV_ADD, 0, 0, a->udata);
	errno = 0;
	int r = kevent(a->kq, &ch, 1, NULL, 0, NULL);
	a->err = errno;
	a->result = r;

	pthread_testcancel();
	return (void *)1;   /* not reached */
}

/* Joins th and checks what t_cancel_add_main() did. */
static inline void t_cancel_add_check(pthread_t th, struct t_cancel_add *a)
{
	void *rv = NULL;
	T_ASSERT(pthread_join(th, &rv) == 0);
	if (a->result == -100)
		T_FAIL("kevent() with changes acted on the pending cancellation");
	if (a->result != 0)
		T_FAIL("kevent returned %d (%s), expected 0", a->result,
		       strerror(a->err));
	if (rv != PTHREAD_CANCELED)
		T_FAIL("pending cancellation was lost (pthread_testcancel "
		       "returned)");
}

/* Checks that kq still works after a thread was cancelled in a call on it
 * (no lock left held by that thread): a new pipe's READ knote reports the
 * two bytes written, and is deleted again. */
static inline void t_cancel_kq_works(int kq)
{
	int q[2];
	struct kevent ev[4];

	t_pipe(q);
	t_change(kq, q[0], EVFILT_READ, EV_ADD, 0, 0, q);
	t_write(q[1], "ab", 2);
	T_EQ(t_wait(kq, ev, 4, 2000), 1);
	T_KEVENT(&ev[0], q[0], EVFILT_READ, 0, 0, 2, q);
	t_change(kq, q[0], EVFILT_READ, EV_DELETE, 0, 0, NULL);
	T_EQ(close(q[0]), 0);
	T_EQ(close(q[1]), 0);
}

/* gcc 12's ASan reports a false stack-buffer-overflow for every thread that
 * is cancelled, shown with a program that only cancels a thread blocked in
 * epoll_wait() and never calls libkq. */
#ifdef __SANITIZE_ADDRESS__
#define T_CANCEL_SKIP_ASAN() \
	T_SKIP("thread cancellation is not supported under gcc's AddressSanitizer")
#else
#define T_CANCEL_SKIP_ASAN() do { } while (0)
#endif

#endif
