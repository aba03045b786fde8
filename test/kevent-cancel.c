/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * kevent() with nevents > 0 is a cancellation point (FreeBSD kevent(2)
 * CANCELLATION BEHAVIOUR): a thread blocked in it (NULL timeout, and a 5 s
 * timeout) is cancelled by pthread_cancel, pthread_join returns
 * PTHREAD_CANCELED, and the kqueue remains fully usable afterwards (no lock
 * left held by the cancelled thread).
 */
#include "t_cancel.h"

static int kq;
static volatile int returned;

static void *blocker(void *arg)
{
	const struct timespec *ts = arg;
	struct kevent ev[4];
	kevent(kq, NULL, 0, ev, 4, ts);
	returned = 1;
	return NULL;
}

static void run(const struct timespec *ts, const char *what)
{
	pthread_t th;
	T_ASSERT(pthread_create(&th, NULL, blocker, (void *)ts) == 0);
	t_sleep_ms(100);   /* let it block; a pending cancel acts anyway */
	T_ASSERT(pthread_cancel(th) == 0);
	void *rv = NULL;
	/* A thread that is never cancelled hangs here until the alarm. */
	T_EQ(pthread_join(th, &rv), 0);
	if (rv != PTHREAD_CANCELED)
		T_FAIL("%s: thread was not cancelled (returned %d)", what,
		       returned);
}

int main(void)
{
	T_CANCEL_SKIP_ASAN();
	alarm(20);   /* watchdog: a missed cancel or deadlock kills the test */
	kq = t_kqueue();
	int p[2];
	t_pipe(p);
	t_change(kq, p[0], EVFILT_READ, EV_ADD, 0, 0, NULL);

	run(NULL, "NULL timeout");
	struct timespec five = { 5, 0 };
	run(&five, "5 s timeout");

	/* The queue still works from this thread and from a new waiter. */
	t_cancel_kq_works(kq);
	t_write(p[1], "x", 1);
	T_WAIT1(kq, 2000, p[0], EVFILT_READ, 0, 0, 1, NULL);
	return 0;
}
