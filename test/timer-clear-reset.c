/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * After a periodic timer's record has been retrieved, an immediate get
 * returns nothing: EV_CLEAR (forced for relative timers) resets the state
 * and the count.  The case uses 10 ms; a 250 ms period is used so that "the
 * next period has not yet elapsed" holds on a loaded machine too.  Over
 * three rounds the running total of data is checked never to exceed the
 * periods elapsed (a record reported again, level-style, would exceed it).
 * FreeBSD kqueue_scan EV_CLEAR handling.
 */
#include "t.h"

#define MS 1000000LL
#define PERIOD 250

int main(void)
{
	int kq = t_kqueue();
	struct kevent ev[8];
	int ud;
	int64_t total = 0;

	int64_t a0 = t_now_ns();
	t_change(kq, 8, EVFILT_TIMER, EV_ADD, 0, PERIOD, &ud);
	for (int round = 0; round < 3; round++) {
		T_EQ(t_wait(kq, ev, 8, 2000), 1);
		T_KEVENT(&ev[0], 8, EVFILT_TIMER, EV_CLEAR, 0, ev[0].data, &ud);
		T_ASSERT(ev[0].data >= 1);
		total += ev[0].data;
		int n = t_get(kq, ev, 8);
		int64_t r1 = t_now_ns();
		int64_t hi = (r1 - a0) / (PERIOD * MS);
		for (int i = 0; i < n; i++) {
			T_KEVENT(&ev[i], 8, EVFILT_TIMER, EV_CLEAR, 0,
				 ev[i].data, &ud);
			total += ev[i].data;
		}
		if (total > hi)
			T_FAIL("record reported again right after retrieval "
			       "(total %lld, %lld periods elapsed)",
			       (long long)total, (long long)hi);
		if (n != 0)
			fprintf(stderr, "note: machine stalled a period; "
				"second get legitimately returned data\n");
	}
	t_change(kq, 8, EVFILT_TIMER, EV_DELETE, 0, 0, NULL);
	close(kq);
	return 0;
}
