/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * A periodic 10 ms timer left alone for 105 ms is reported as ONE
 * record whose data counts all expirations (about 10): overruns are counted,
 * not queued as separate events and not lost.  The count is checked against
 * the periods measured on CLOCK_MONOTONIC: never more than elapsed (no early
 * expiry), at least those elapsed 25 ms before the retrieval.
 * libkqueue "overrun_count"; FreeBSD filt_timerexpire catch-up.
 */
#include "t.h"

#define MS 1000000LL

int main(void)
{
	int kq = t_kqueue();
	struct kevent ev[16];
	int ud;

	int64_t a0 = t_now_ns();
	t_change(kq, 7, EVFILT_TIMER, EV_ADD, 0, 10, &ud);
	int64_t a1 = t_now_ns();
	t_sleep_ms(105);
	int64_t r0 = t_now_ns();
	int n = t_get(kq, ev, 16);
	int64_t r1 = t_now_ns();
	T_EQ(n, 1);
	T_KEVENT(&ev[0], 7, EVFILT_TIMER, EV_CLEAR, 0, ev[0].data, &ud);

	int64_t hi = (r1 - a0) / (10 * MS);
	int64_t lo = (r0 - a1 - 25 * MS) / (10 * MS);
	fprintf(stderr, "data %lld (allowed %lld..%lld)\n",
		(long long)ev[0].data, (long long)lo, (long long)hi);
	if (ev[0].data > hi)
		T_FAIL("data %lld > %lld elapsed periods", (long long)ev[0].data,
		       (long long)hi);
	if (ev[0].data < lo || ev[0].data < 2)
		T_FAIL("data %lld: overruns lost (%lld periods elapsed)",
		       (long long)ev[0].data, (long long)lo);

	t_change(kq, 7, EVFILT_TIMER, EV_DELETE, 0, 0, NULL);
	T_NO_EVENTS(kq);
	close(kq);
	return 0;
}
