/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * A periodic NOTE_NSECONDS 1 timer works: it fires repeatedly, each
 * record's data counts the many expirations since the last retrieval
 * (> 1 after a 10 ms pause), the running total never exceeds the
 * nanoseconds elapsed (no expiry before its time), and kevent() keeps
 * returning promptly (no busy failure).  FreeBSD kqueue_fork.c uses such a
 * 1 ns timer.
 */
#include "t.h"

#define MS 1000000LL

int main(void)
{
	int kq = t_kqueue();
	struct kevent ev[8];
	int ud;
	int64_t total = 0, prev = 0;

	int64_t a0 = t_now_ns();
	t_change(kq, 14, EVFILT_TIMER, EV_ADD, NOTE_NSECONDS, 1, &ud);
	for (int round = 0; round < 5; round++) {
		t_sleep_ms(10);
		int64_t r0 = t_now_ns();
		int n = t_wait(kq, ev, 8, 1000);
		int64_t r1 = t_now_ns();
		T_EQ(n, 1);
		T_KEVENT(&ev[0], 14, EVFILT_TIMER, EV_CLEAR, 0, ev[0].data, &ud);
		fprintf(stderr, "round %d: data %lld\n", round,
			(long long)ev[0].data);
		if (ev[0].data < 2)
			T_FAIL("data %lld after 10 ms of a 1 ns timer",
			       (long long)ev[0].data);
		total += ev[0].data;
		if (total > r1 - a0)
			T_FAIL("%lld expirations in %lld ns", (long long)total,
			       (long long)(r1 - a0));
		T_ASSERT(total > prev);
		prev = total;
		if (r1 - r0 > 500 * MS)
			T_FAIL("kevent took %lld ms", (long long)((r1 - r0) / MS));
	}
	t_change(kq, 14, EVFILT_TIMER, EV_DELETE, 0, 0, NULL);
	T_NO_EVENTS(kq);
	close(kq);
	return 0;
}
