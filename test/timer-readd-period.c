/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * A periodic 1000 ms timer, re-ADDed with period 500 ms right after its
 * first record, reports data 2 one second later: the new period is in
 * effect.  The case sleeps 1 s, which would put the retrieval exactly on the
 * second 500 ms expiry; sleeping 1.25 s (mid-period) checks the same without
 * racing the boundary.  The count is checked against the periods measured
 * on CLOCK_MONOTONIC since the re-ADD (never more; at least those elapsed
 * 200 ms before retrieval): exactly 2 on an idle machine.  FreeBSD timer.c.
 */
#include "t.h"

#define MS 1000000LL

static void check_total(const char *what, int64_t total, int64_t a0,
	int64_t a1, int64_t r0, int64_t r1, int64_t period, int64_t slack)
{
	int64_t hi = (r1 - a0) / period;
	int64_t lo = r0 - a1 - slack > 0 ? (r0 - a1 - slack) / period : 0;
	fprintf(stderr, "%s: total %lld (allowed %lld..%lld)\n", what,
		(long long)total, (long long)lo, (long long)hi);
	if (total > hi)
		T_FAIL("%s: %lld expirations reported, only %lld periods "
		       "elapsed", what, (long long)total, (long long)hi);
	if (total < lo)
		T_FAIL("%s: %lld expirations reported, %lld periods elapsed",
		       what, (long long)total, (long long)lo);
}

int main(void)
{
	int kq = t_kqueue();
	struct kevent ev[8];
	int ud;

	t_change(kq, 6, EVFILT_TIMER, EV_ADD, 0, 1000, &ud);
	T_EQ(t_wait(kq, ev, 8, 2000), 1);
	T_KEVENT(&ev[0], 6, EVFILT_TIMER, EV_CLEAR, 0, 1, &ud);

	int64_t a0 = t_now_ns();
	t_change(kq, 6, EVFILT_TIMER, EV_ADD, 0, 500, &ud);
	int64_t a1 = t_now_ns();
	t_sleep_ms(1250);
	int64_t r0 = t_now_ns();
	T_EQ(t_get(kq, ev, 8), 1);
	int64_t r1 = t_now_ns();
	T_KEVENT(&ev[0], 6, EVFILT_TIMER, EV_CLEAR, 0, ev[0].data, &ud);
	check_total("after re-ADD with 500 ms", ev[0].data, a0, a1, r0, r1,
		    500 * MS, 200 * MS);

	t_change(kq, 6, EVFILT_TIMER, EV_DELETE, 0, 0, NULL);
	close(kq);
	return 0;
}
