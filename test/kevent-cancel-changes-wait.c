/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * kevent() is a cancellation point whenever it may return records (nevents
 * not 0), with changes or without, as FreeBSD's libthr makes it:
 *   - a thread asleep in kevent(kq, change, 1, ev, 1, timeout) (the shape of
 *     libevent's kqueue backend) and cancelled 100 ms in is cancelled there,
 *     within a second, with no timeout and with a 10 s one; the change it
 *     made before sleeping stays made (its knote can be deleted);
 *   - a request already pending when such a call starts acts on entry,
 *     before any change: the knote does not exist afterwards (ENOENT).
 * The kqueue works for the other threads afterwards.
 */
#include "t_cancelpt.h"

static int kq, rfd;
static const struct timespec *wait_ts;
static volatile int returned;

static void *waiter(void *arg)
{
	(void)arg;
	struct kevent ch, ev;
	EV_SET(&ch, rfd, EVFILT_READ, EV_ADD, 0, 0, NULL);
	kevent(kq, &ch, 1, &ev, 1, wait_ts);
	returned = 1;
	return (void *)1;
}

static void asleep(const struct timespec *ts, const char *what)
{
	pthread_t th;
	wait_ts = ts;
	returned = 0;
	T_ASSERT(pthread_create(&th, NULL, waiter, NULL) == 0);
	t_sleep_ms(100);   /* let it change and sleep */
	int64_t t0 = t_now_ns();
	T_ASSERT(pthread_cancel(th) == 0);
	void *rv = NULL;
	T_EQ(pthread_join(th, &rv), 0);
	int64_t ms = (t_now_ns() - t0) / 1000000;
	if (rv != PTHREAD_CANCELED || returned)
		T_FAIL("%s: kevent() returned instead of being cancelled", what);
	if (ms > 1000)
		T_FAIL("%s: cancelled %lld ms after the request", what, (long long)ms);
	/* the change was made before the sleep */
	T_EQ(t_change_err(kq, rfd, EVFILT_READ, EV_DELETE, 0, 0, NULL), 0);
}

static void add_and_wait(void *arg)
{
	(void)arg;
	struct kevent ch, ev;
	struct timespec ts = { 5, 0 };
	EV_SET(&ch, rfd, EVFILT_READ, EV_ADD, 0, 0, NULL);
	kevent(kq, &ch, 1, &ev, 1, &ts);
}

int main(void)
{
	T_CANCEL_SKIP_ASAN();
	alarm(20);   /* watchdog */
	kq = t_kqueue();
	int p[2];
	t_pipe(p);
	rfd = p[0];
	struct timespec ten = { 10, 0 };
	asleep(NULL, "no timeout");
	asleep(&ten, "10 s timeout");

	t_cancelpt_pending("kevent() with a change and a 5 s wait", add_and_wait, NULL);
	/* it acted before the change */
	T_EQ(t_change_err(kq, rfd, EVFILT_READ, EV_DELETE, 0, 0, NULL), ENOENT);

	t_cancel_kq_works(kq);
	return 0;
}
