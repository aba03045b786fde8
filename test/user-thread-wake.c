/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * A thread blocked in kevent() on a
 * kqueue is woken at once when another thread triggers a USER knote of that
 * kqueue, and returns that knote's record.  "At once" is measured: from the
 * trigger to the waiter's return < 100 ms (a missed wake-up would leave it
 * asleep until its timeout).  The waiter is known to be blocked (its state
 * in /proc is 'S') before the trigger, and must not return before it.
 * Covered: NULL timeout with an EV_CLEAR knote, a 10 s timeout with a level
 * knote, and a waiter asking for 8 records.
 */
#include "t_thread.h"

#define ROUNDS 10
#define MAX_LATENCY_NS (100 * 1000000LL)

struct waiter {
	int kq;
	int nevents;
	const struct timespec *ts;
	atomic_int tid;
	atomic_int done;
	int n, err;
	struct kevent ev[8];
	int64_t t_ret;
};

static void *waiter_main(void *arg)
{
	struct waiter *w = arg;
	atomic_store(&w->tid, t_gettid());
	w->n = kevent(w->kq, NULL, 0, w->ev, w->nevents, w->ts);
	w->err = errno;
	w->t_ret = t_now_ns();
	atomic_store(&w->done, 1);
	return NULL;
}

/* Starts a waiter and returns once it sleeps inside kevent(). */
static void start(struct waiter *w, pthread_t *th)
{
	if (!t_start_waiter(th, waiter_main, w, &w->tid, &w->done, "waiter"))
		T_FAIL("waiter returned %d (errno %d) before the trigger",
		       w->n, w->err);
	t_sleep_ms(20);
	if (atomic_load(&w->done))
		T_FAIL("waiter returned %d (errno %d) before the trigger",
		       w->n, w->err);
}

static void join(struct waiter *w, pthread_t th, int64_t t_trigger)
{
	struct timespec dl;
	clock_gettime(CLOCK_REALTIME, &dl);
	dl.tv_sec += 3;
	if (pthread_timedjoin_np(th, NULL, &dl) != 0)
		T_FAIL("waiter still blocked 3 s after the trigger");
	if (w->n < 0)
		T_FAIL("waiter's kevent failed: %s", strerror(w->err));
	int64_t lat = w->t_ret - t_trigger;
	if (lat > MAX_LATENCY_NS)
		T_FAIL("waiter woke %.1f ms after the trigger",
		       (double)lat / 1e6);
}

int main(void)
{
	int kq = t_kqueue();
	int ud;
	struct timespec ten = { 10, 0 };
	pthread_t th;

	t_fail_after(30, "user-thread-wake: still running after 30 s (hang?)");

	t_change(kq, 1, EVFILT_USER, EV_ADD | EV_CLEAR, 0, 0, &ud);
	for (int r = 0; r < ROUNDS; r++) {
		struct waiter w = { .kq = kq, .nevents = 1, .ts = NULL };
		start(&w, &th);
		int64_t t0 = t_now_ns();
		t_change(kq, 1, EVFILT_USER, 0, NOTE_TRIGGER, r, &ud);
		join(&w, th, t0);
		T_EQ(w.n, 1);
		T_KEVENT(&w.ev[0], 1, EVFILT_USER, EV_CLEAR, 0, r, &ud);
		T_NO_EVENTS(kq);
	}

	for (int r = 0; r < ROUNDS; r++) {
		struct waiter w = { .kq = kq, .nevents = 8, .ts = &ten };
		t_change(kq, 2, EVFILT_USER, EV_ADD, 0, 0, &ud);
		start(&w, &th);
		int64_t t0 = t_now_ns();
		t_change(kq, 2, EVFILT_USER, 0, NOTE_TRIGGER | NOTE_FFCOPY | 5,
			 0, &ud);
		join(&w, th, t0);
		T_EQ(w.n, 1);
		T_KEVENT(&w.ev[0], 2, EVFILT_USER, 0, 5, 0, &ud);
		t_change(kq, 2, EVFILT_USER, EV_DELETE, 0, 0, NULL);
		T_NO_EVENTS(kq);
	}
	return 0;
}
