/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * Cancellation points of the C library functions libkq replaces.  glibc
 * makes close, fcntl(F_SETLKW), accept, accept4, connect, the read and
 * write families and the sigwait family cancellation points: a thread with
 * a cancellation request pending (deferred type) is cancelled when it calls
 * one, and the call does not return.  libkq's versions must keep that.
 *
 * t_cancelpt_pending() runs one call in a new thread that makes a request
 * pending against itself first (cancelling disabled, pthread_cancel of
 * itself, enabled again: enabling is not a cancellation point), and checks
 * that the thread ends cancelled without the call returning.  A call that
 * ignores the request would either return (reported as such) or block; the
 * join waits 3 s for the thread, so a blocked call fails the test too.
 */
#ifndef T_CANCELPT_H
#define T_CANCELPT_H

#include "t_cancel.h"

#include <stdatomic.h>

struct t_cancelpt {
	void (*call)(void *);
	void *arg;
	atomic_int returned;
};

static inline void *t_cancelpt_main(void *p)
{
	struct t_cancelpt *c = p;
	int old;
	T_ASSERT(pthread_setcanceltype(PTHREAD_CANCEL_DEFERRED, &old) == 0);
	T_ASSERT(pthread_setcancelstate(PTHREAD_CANCEL_DISABLE, &old) == 0);
	T_ASSERT(pthread_cancel(pthread_self()) == 0);
	T_ASSERT(pthread_setcancelstate(PTHREAD_CANCEL_ENABLE, &old) == 0);
	c->call(c->arg);
	atomic_store(&c->returned, 1);
	return (void *)1;
}

/* Joins th, waiting at most ms; 0 if it was joined (value in *rv). */
static inline int t_join_within(pthread_t th, long ms, void **rv)
{
	struct timespec ts;
	clock_gettime(CLOCK_REALTIME, &ts);
	ts.tv_sec += ms / 1000;
	ts.tv_nsec += (ms % 1000) * 1000000L;
	if (ts.tv_nsec >= 1000000000L) {
		ts.tv_sec++;
		ts.tv_nsec -= 1000000000L;
	}
	return pthread_timedjoin_np(th, rv, &ts);
}

/* Runs call(arg) with a cancellation request pending; what names the call
 * in messages. */
static inline void t_cancelpt_pending(const char *what, void (*call)(void *), void *arg)
{
	struct t_cancelpt c = { .call = call, .arg = arg };
	pthread_t th;
	void *rv = NULL;

	T_ASSERT(pthread_create(&th, NULL, t_cancelpt_main, &c) == 0);
	int err = t_join_within(th, 3000, &rv);
	if (err == ETIMEDOUT)
		T_FAIL("%s with a cancellation request pending blocked for 3 s "
		       "instead of acting on the request", what);
	if (err != 0)
		T_FAIL("pthread_timedjoin_np: %s", strerror(err));
	if (atomic_load(&c.returned))
		T_FAIL("%s returned with a cancellation request pending: not a "
		       "cancellation point", what);
	if (rv != PTHREAD_CANCELED)
		T_FAIL("the thread calling %s ended without being cancelled", what);
}

/* For the sigwait family: runs call(&set) as above, set holding SIGUSR1,
 * which is blocked first and never sent, so that a call ignoring the
 * request would wait for it (for ever, or its own timeout). */
static inline void t_cancelpt_pending_sigusr1(const char *what, void (*call)(void *))
{
	sigset_t set;

	sigemptyset(&set);
	sigaddset(&set, SIGUSR1);
	T_EQ(sigprocmask(SIG_BLOCK, &set, NULL), 0);
	t_cancelpt_pending(what, call, &set);
}

#endif
