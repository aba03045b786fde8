/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * Thread A sleeps in kevent() (3 s timeout); thread B adds a
 * knote whose condition already holds: A is woken at once (< 100 ms) and
 * returns that knote's record.  Variants: READ level on a pipe with data,
 * READ|EV_CLEAR, READ|EV_ONESHOT, WRITE on a socketpair (always writable),
 * READ on a second kqueue that has a ready knote, and EV_ADD|EV_DISABLE with
 * data (A must stay asleep) followed by EV_ENABLE (A wakes then).
 */
#include "t_thread.h"

#define MAX_LATENCY_NS (100 * 1000000LL)

static int kq;
static atomic_int tid, done;
static int res, err;
static struct kevent got[4];
static int64_t t_ret;

static void *waiter(void *arg)
{
	struct timespec to = { 3, 0 };
	(void)arg;
	atomic_store(&tid, t_gettid());
	res = kevent(kq, NULL, 0, got, 4, &to);
	err = errno;
	t_ret = t_now_ns();
	atomic_store(&done, 1);
	return NULL;
}

static pthread_t start(void)
{
	pthread_t th;
	atomic_store(&tid, 0);
	atomic_store(&done, 0);
	if (!t_start_waiter(&th, waiter, NULL, &tid, &done, "A"))
		T_FAIL("A returned %d before the add", res);
	t_sleep_ms(10);
	if (atomic_load(&done))
		T_FAIL("A returned %d before the add", res);
	return th;
}

static void finish(pthread_t th, int64_t t0, const char *what)
{
	T_ASSERT(pthread_join(th, NULL) == 0);
	if (res != 1)
		T_FAIL("%s: A's kevent returned %d (errno %d), expected 1 "
		       "record", what, res, err);
	if (t_ret - t0 > MAX_LATENCY_NS)
		T_FAIL("%s: A woke %.1f ms after the add", what,
		       (double)(t_ret - t0) / 1e6);
}

int main(void)
{
	int p[2], sp[2];
	void *u = (void *)0x1401;
	static const unsigned short kinds[] = { 0, EV_CLEAR, EV_ONESHOT };
	pthread_t th;
	int64_t t0;
	char buf[8];

	t_fail_after(20, "thread-add-ready: still running after 20 s");
	kq = t_kqueue();
	t_pipe(p);
	t_socketpair(sp);

	for (int r = 0; r < 9; r++) {
		unsigned short k = kinds[r % 3];
		t_write(p[1], "ab", 2);
		th = start();
		t0 = t_now_ns();
		t_change(kq, p[0], EVFILT_READ, EV_ADD | k, 0, 0, u);
		finish(th, t0, "READ");
		T_KEVENT(&got[0], p[0], EVFILT_READ, k, 0, 2, u);
		T_EQ(read(p[0], buf, sizeof buf), 2);
		if (k != EV_ONESHOT)
			t_change(kq, p[0], EVFILT_READ, EV_DELETE, 0, 0, NULL);
		T_NO_EVENTS(kq);
	}

	th = start();
	t0 = t_now_ns();
	t_change(kq, sp[0], EVFILT_WRITE, EV_ADD, 0, 0, u);
	finish(th, t0, "WRITE");
	T_KEVENT_MIN(&got[0], sp[0], EVFILT_WRITE, 0, 0, 1, u);
	t_change(kq, sp[0], EVFILT_WRITE, EV_DELETE, 0, 0, NULL);

	int inner = t_kqueue();
	t_change(inner, 5, EVFILT_USER, EV_ADD, 0, 0, NULL);
	t_change(inner, 5, EVFILT_USER, 0, NOTE_TRIGGER, 0, NULL);
	th = start();
	t0 = t_now_ns();
	t_change(kq, inner, EVFILT_READ, EV_ADD, 0, 0, u);
	finish(th, t0, "nested kqueue");
	T_KEVENT(&got[0], inner, EVFILT_READ, 0, 0, 1, u);
	t_change(kq, inner, EVFILT_READ, EV_DELETE, 0, 0, NULL);

	/* Added disabled: A stays asleep; enabled: A wakes. */
	t_write(p[1], "c", 1);
	th = start();
	t_change(kq, p[0], EVFILT_READ, EV_ADD | EV_DISABLE, 0, 0, u);
	t_sleep_ms(100);
	if (atomic_load(&done))
		T_FAIL("A returned %d for a knote added disabled", res);
	t0 = t_now_ns();
	t_change(kq, p[0], EVFILT_READ, EV_ENABLE, 0, 0, u);
	finish(th, t0, "enable");
	T_KEVENT(&got[0], p[0], EVFILT_READ, 0, 0, 1, u);
	alarm(0);
	return 0;
}
