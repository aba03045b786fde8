/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * EV_DISPATCH periodic 200 ms timer.  First record
 * {id, TIMER, EV_CLEAR|EV_DISPATCH, 0, 1, udata}; the knote is then disabled
 * (nothing for 0.5 s although the timer keeps running); a re-ADD with
 * EV_ENABLE|EV_DISPATCH restarts the timer and throws away what accumulated
 * while disabled (nothing pending right after it); 1.1 s later one record
 * carries data 5.  The count is checked against the periods measured on
 * CLOCK_MONOTONIC since the re-ADD (never more; at least those elapsed 50 ms
 * before the retrieval), which on an idle machine is exactly 5; then the
 * knote is disabled again.  FreeBSD timer.c test_dispatch.
 */
#include "t.h"

#define MS 1000000LL

int main(void)
{
	int kq = t_kqueue();
	struct kevent ev[8];
	int ud;

	int64_t a0 = t_now_ns();
	t_change(kq, 27, EVFILT_TIMER, EV_ADD | EV_DISPATCH, 0, 200, &ud);
	T_EQ(t_wait(kq, ev, 8, 1000), 1);
	T_KEVENT(&ev[0], 27, EVFILT_TIMER, EV_CLEAR | EV_DISPATCH, 0,
		 ev[0].data, &ud);
	if (ev[0].data < 1 || ev[0].data > (t_now_ns() - a0) / (200 * MS))
		T_FAIL("first record data %lld", (long long)ev[0].data);

	t_sleep_ms(500);
	T_NO_EVENTS(kq);

	int64_t b0 = t_now_ns();
	t_change(kq, 27, EVFILT_TIMER, EV_ADD | EV_ENABLE | EV_DISPATCH, 0, 200,
		 &ud);
	int64_t b1 = t_now_ns();
	T_NO_EVENTS(kq);

	t_sleep_ms(1100);
	int64_t r0 = t_now_ns();
	T_EQ(t_get(kq, ev, 8), 1);
	int64_t r1 = t_now_ns();
	T_KEVENT(&ev[0], 27, EVFILT_TIMER, EV_CLEAR | EV_DISPATCH, 0,
		 ev[0].data, &ud);
	int64_t hi = (r1 - b0) / (200 * MS);
	int64_t lo = (r0 - b1 - 50 * MS) / (200 * MS);
	fprintf(stderr, "data %lld (allowed %lld..%lld)\n",
		(long long)ev[0].data, (long long)lo, (long long)hi);
	if (ev[0].data > hi || ev[0].data < lo)
		T_FAIL("data %lld, expected %lld..%lld (5 when idle)",
		       (long long)ev[0].data, (long long)lo, (long long)hi);
	T_NO_EVENTS(kq);
	t_change(kq, 27, EVFILT_TIMER, EV_DELETE, 0, 0, NULL);
	close(kq);
	return 0;
}
