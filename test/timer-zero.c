/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * Timers with data 0.  A one-shot timer with data 0 fires at once (within a
 * generous 500 ms), exactly once, and is then gone.  A periodic timer with
 * data 0 is treated as 1 unit (1 ms by default): it keeps firing, and over
 * ~50 ms its count is no more than the milliseconds elapsed (it is not a
 * 0 or 1 ns period) and no fewer than those elapsed 25 ms before the
 * retrieval.  FreeBSD filt_timervalidate.
 */
#include "t.h"

#define MS 1000000LL

int main(void)
{
	struct kevent ev[8];
	int ud1, ud2;

	/* One-shot, data 0: fires at once, exactly once, then gone. */
	int kq = t_kqueue();
	int64_t a0 = t_now_ns();
	t_change(kq, 2, EVFILT_TIMER, EV_ADD | EV_ONESHOT, 0, 0, &ud2);
	T_EQ(t_wait(kq, ev, 8, 1000), 1);
	int64_t el = t_now_ns() - a0;
	T_KEVENT(&ev[0], 2, EVFILT_TIMER, EV_CLEAR | EV_ONESHOT, 0, 1, &ud2);
	if (el > 500 * MS)
		T_FAIL("one-shot data 0 fired after %lld ms",
		       (long long)(el / MS));
	t_sleep_ms(20);
	T_NO_EVENTS(kq);
	T_EQ(t_change_err(kq, 2, EVFILT_TIMER, EV_DELETE, 0, 0, NULL), ENOENT);
	close(kq);

	/* Periodic, data 0: a 1-unit period. */
	kq = t_kqueue();
	a0 = t_now_ns();
	t_change(kq, 1, EVFILT_TIMER, EV_ADD, 0, 0, &ud1);
	int64_t a1 = t_now_ns();
	T_EQ(t_wait(kq, ev, 8, 1000), 1);
	T_KEVENT(&ev[0], 1, EVFILT_TIMER, EV_CLEAR, 0, ev[0].data, &ud1);
	T_ASSERT(ev[0].data >= 1);
	int64_t total = ev[0].data;
	t_sleep_ms(50);
	int64_t r0 = t_now_ns();
	T_EQ(t_get(kq, ev, 8), 1);
	int64_t r1 = t_now_ns();
	T_KEVENT(&ev[0], 1, EVFILT_TIMER, EV_CLEAR, 0, ev[0].data, &ud1);
	total += ev[0].data;
	int64_t hi = (r1 - a0) / MS;
	int64_t lo = (r0 - a1 - 25 * MS) / MS;
	fprintf(stderr, "periodic data 0: total %lld (allowed %lld..%lld)\n",
		(long long)total, (long long)lo, (long long)hi);
	if (total > hi)
		T_FAIL("periodic data 0: %lld expirations in %lld ms (not a "
		       "1 ms period)", (long long)total, (long long)hi);
	if (total < lo)
		T_FAIL("periodic data 0: %lld expirations, %lld ms elapsed",
		       (long long)total, (long long)lo);
	t_change(kq, 1, EVFILT_TIMER, EV_DELETE, 0, 0, NULL);
	close(kq);
	return 0;
}
