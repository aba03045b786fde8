/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * Where a sandbox refuses timerfd_create() (EPERM, EACCES) or the kernel
 * has no timerfds (ENOSYS), EVFILT_TIMER must still work, its records
 * exact.  In a child under a seccomp filter the test installs (one per
 * answer):
 *  - EV_ADD|EV_ONESHOT 100 ms, then a wait: {4, EVFILT_TIMER,
 *    EV_CLEAR|EV_ONESHOT, 0, 1, udata} no earlier than 100 ms and within
 *    600 ms, and the knote is gone (EV_DELETE: ENOENT);
 *  - a 20 ms periodic timer left alone for 110 ms: one record with data
 *    the periods elapsed (at least 5: expirations are counted), then in
 *    a wait the next, no earlier than its deadline;
 *  - a thread asleep in kevent() with no timeout when another thread adds
 *    a 100 ms one-shot timer is woken by it with its record, no earlier
 *    than 100 ms;
 *  - a 1 ms periodic timer waited for until its records' data add up to
 *    10: the total matches the periods elapsed (tt_check_total), which
 *    took no less than 10 ms (and under 500);
 *  - an EVFILT_USER knote on the same kqueue reports its trigger.
 * Skipped where seccomp filters cannot be installed.
 */
#include "t_seccomp.h"
#include "t_thread.h"
#include "t_timer.h"

#include <sys/timerfd.h>

struct waiter {
	int kq;
	atomic_int tid, done;
	int r;
	struct kevent ev;
	int64_t at;
};

static void *wait_main(void *arg)
{
	struct waiter *w = arg;
	atomic_store(&w->tid, t_gettid());
	w->r = kevent(w->kq, NULL, 0, &w->ev, 1, NULL);
	w->at = t_now_ns();
	atomic_store(&w->done, 1);
	return NULL;
}

static int child(int err)
{
	if (t_seccomp_refuse(SYS_timerfd_create, err) != 0)
		return 77;
	if (timerfd_create(CLOCK_MONOTONIC, TFD_CLOEXEC) != -1 || errno != err)
		return 77;
	int kq = t_kqueue(), ud;
	struct kevent ev[8];

	int64_t a0 = t_now_ns();
	t_change(kq, 4, EVFILT_TIMER, EV_ADD | EV_ONESHOT, 0, 100, &ud);
	T_EQ(t_wait(kq, ev, 8, 1500), 1);
	T_KEVENT(&ev[0], 4, EVFILT_TIMER, EV_CLEAR | EV_ONESHOT, 0, 1, &ud);
	tt_fired_in("100 ms one-shot", t_now_ns() - a0, 100 * MS, 600 * MS);
	T_EQ(t_change_err(kq, 4, EVFILT_TIMER, EV_DELETE, 0, 0, NULL), ENOENT);

	a0 = t_now_ns();
	t_change(kq, 5, EVFILT_TIMER, EV_ADD, 0, 20, &ud);
	int64_t a1 = t_now_ns();
	t_sleep_ms(110);
	int64_t r0 = t_now_ns();
	T_EQ(t_get(kq, ev, 8), 1);
	int64_t r1 = t_now_ns();
	T_KEVENT_MIN(&ev[0], 5, EVFILT_TIMER, EV_CLEAR, 0, 5, &ud);
	tt_check_total("20 ms periods", ev[0].data, a0, a1, r0, r1, 20 * MS, 0);
	int64_t next = (ev[0].data + 1) * 20 * MS;
	T_EQ(t_wait(kq, ev, 8, 1000), 1);
	T_KEVENT_MIN(&ev[0], 5, EVFILT_TIMER, EV_CLEAR, 0, 1, &ud);
	T_ASSERT(t_now_ns() - a0 >= next);
	t_change(kq, 5, EVFILT_TIMER, EV_DELETE, 0, 0, NULL);
	T_NO_EVENTS(kq);

	pthread_t th;
	struct waiter w = { .kq = kq };
	if (!t_start_waiter(&th, wait_main, &w, &w.tid, &w.done, "the waiter"))
		T_FAIL("the waiter returned early: %d", w.r);
	t_sleep_ms(20);
	a0 = t_now_ns();
	t_change(kq, 6, EVFILT_TIMER, EV_ADD | EV_ONESHOT, 0, 100, &ud);
	T_EQ(pthread_join(th, NULL), 0);
	T_EQ(w.r, 1);
	T_KEVENT(&w.ev, 6, EVFILT_TIMER, EV_CLEAR | EV_ONESHOT, 0, 1, &ud);
	tt_fired_in("a sleeper's 100 ms one-shot", w.at - a0, 100 * MS, 600 * MS);
	T_NO_EVENTS(kq);

	a0 = t_now_ns();
	t_change(kq, 7, EVFILT_TIMER, EV_ADD, 0, 1, &ud);
	a1 = t_now_ns();
	int64_t total = 0;
	while (total < 10) {
		T_EQ(t_wait(kq, ev, 8, 1000), 1);
		r0 = t_now_ns();
		T_KEVENT_MIN(&ev[0], 7, EVFILT_TIMER, EV_CLEAR, 0, 1, &ud);
		total += ev[0].data;
	}
	tt_check_total("1 ms periods", total, a0, a1, r0, t_now_ns(), MS, 2 * MS);
	tt_fired_in("ten 1 ms periods", r0 - a0, 10 * MS, 500 * MS);
	t_change(kq, 7, EVFILT_TIMER, EV_DELETE, 0, 0, NULL);

	t_seccomp_user_works(kq, &ud);
	close(kq);
	return 0;
}

int main(void)
{
	t_seccomp_run(child, "timerfd_create()");
	return 0;
}
