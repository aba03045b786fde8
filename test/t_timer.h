/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * Shared helpers for the EVFILT_TIMER tests (test/timer-*.c).  Timers are
 * checked against the clock read around the calls, never against a fixed
 * expectation: a loaded machine may run late, but a timer must never count
 * more periods than elapsed nor (beyond a slack) fewer.
 */
#ifndef KQ_TEST_T_TIMER_H
#define KQ_TEST_T_TIMER_H

#include "t.h"

#define MS 1000000LL

/* Checks total, the expirations reported for a periodic timer added
 * between a0 and a1 (t_now_ns()) and last collected between r0 and r1:
 * at most the periods elapsed by r1, at least those elapsed by r0 less
 * slack. */
static inline void tt_check_total(const char *what, int64_t total, int64_t a0,
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

/* Checks that a timer (what) fired el ns after it was set: not before lo,
 * not after hi. */
static inline void tt_fired_in(const char *what, int64_t el, int64_t lo,
			       int64_t hi)
{
	fprintf(stderr, "%s fired after %lld us\n", what,
		(long long)(el / 1000));
	if (el < lo)
		T_FAIL("%s fired early: after %lld us", what,
		       (long long)(el / 1000));
	if (el > hi)
		T_FAIL("%s fired late: after %lld us", what,
		       (long long)(el / 1000));
}

static inline void tt_sleep_us(long us)
{
	struct timespec ts = { us / 1000000, (us % 1000000) * 1000L };

	while (nanosleep(&ts, &ts) != 0 && errno == EINTR)
		;
}

/* CLOCK_REALTIME in microseconds, the clock of NOTE_ABSTIME deadlines. */
static inline int64_t tt_realtime_us(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_REALTIME, &ts);
	return (int64_t)ts.tv_sec * 1000000 + ts.tv_nsec / 1000;
}

#endif /* KQ_TEST_T_TIMER_H */
