/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * A periodic 1 ms timer neither drifts nor loses expirations: collected
 * with blocking kevent() calls for 2 s, the sum of the records' data is
 * within 1% of the periods elapsed on CLOCK_MONOTONIC between the ADD and
 * the last retrieval, and never more than those periods (no early expiry).
 * A timer re-armed relative to the moment its expiry was processed would
 * fall behind; one that drops overruns would under-count.
 * The data is the number of expirations since the last retrieval, caught up.
 */
#include "t.h"

#define MS 1000000LL

int main(void)
{
	int kq = t_kqueue();
	struct kevent ev[8];
	int ud;
	int64_t total = 0, records = 0, last;

	int64_t a0 = t_now_ns();
	t_change(kq, 1, EVFILT_TIMER, EV_ADD, 0, 1, &ud);
	int64_t a1 = t_now_ns();
	do {
		int n = t_wait(kq, ev, 8, 1000);
		last = t_now_ns();
		T_EQ(n, 1);
		T_KEVENT(&ev[0], 1, EVFILT_TIMER, EV_CLEAR, 0, ev[0].data, &ud);
		T_ASSERT(ev[0].data >= 1);
		total += ev[0].data;
		records++;
	} while (last - a1 < 2000 * MS);

	int64_t hi = (last - a0) / MS;
	int64_t periods = (last - a1) / MS;
	fprintf(stderr, "%lld records, total %lld, %lld periods elapsed\n",
		(long long)records, (long long)total, (long long)periods);
	if (total > hi)
		T_FAIL("%lld expirations reported, only %lld periods elapsed",
		       (long long)total, (long long)hi);
	if (total * 100 < periods * 99)
		T_FAIL("%lld expirations for %lld periods: more than 1%% lost "
		       "or drifted", (long long)total, (long long)periods);
	t_change(kq, 1, EVFILT_TIMER, EV_DELETE, 0, 0, NULL);
	close(kq);
	return 0;
}
