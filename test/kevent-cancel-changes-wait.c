/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * A kevent() call that makes changes and then waits is not cancelled while
 * it waits (FreeBSD acts on a cancellation only during a wait without
 * changes): a thread blocked in kevent(kq, change, 1, ev, 1, 400 ms) and
 * cancelled 100 ms in returns when the time is up (0 records), and the
 * request acts at its next cancellation point.  Then the same with a record
 * that comes after the cancellation: it is returned.
 */
#include "t_cancel.h"

static int kq, rfd;
static volatile int result = -100;
static volatile int64_t waited_ns;

static void *waiter(void *arg)
{
	(void)arg;
	struct kevent ch, ev;
	struct timespec ts = { 0, 400000000 };
	EV_SET(&ch, rfd, EVFILT_READ, EV_ADD, 0, 0, NULL);
	int64_t t0 = t_now_ns();
	result = kevent(kq, &ch, 1, &ev, 1, &ts);
	waited_ns = t_now_ns() - t0;
	pthread_testcancel();
	return (void *)1;   /* not reached */
}

static void run(int p[2], int write_later, const char *what)
{
	pthread_t th;
	result = -100;
	T_ASSERT(pthread_create(&th, NULL, waiter, NULL) == 0);
	t_sleep_ms(100);   /* let it block */
	T_ASSERT(pthread_cancel(th) == 0);
	if (write_later) {
		t_sleep_ms(50);
		t_write(p[1], "x", 1);
	}
	void *rv = NULL;
	T_EQ(pthread_join(th, &rv), 0);
	if (result == -100)
		T_FAIL("%s: the waiting kevent() with changes was cancelled", what);
	if (result != (write_later ? 1 : 0))
		T_FAIL("%s: kevent returned %d, expected %d", what, result, write_later ? 1 : 0);
	if (!write_later && waited_ns < 350000000)
		T_FAIL("%s: returned after %lld ms, before its timeout", what,
		       (long long)(waited_ns / 1000000));
	if (rv != PTHREAD_CANCELED)
		T_FAIL("%s: the pending cancellation was lost", what);
}

int main(void)
{
	T_CANCEL_SKIP_ASAN();
	alarm(20);   /* watchdog */
	kq = t_kqueue();
	int p[2];
	t_pipe(p);
	rfd = p[0];
	run(p, 0, "timeout");
	run(p, 1, "record");
	t_change(kq, p[0], EVFILT_READ, EV_DELETE, 0, 0, NULL);
	t_cancel_kq_works(kq);
	return 0;
}
