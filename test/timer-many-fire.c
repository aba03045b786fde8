/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * 10,000 one-shot timers with deadlines spread over 50 ms (ident i fires
 * 5*i us after its ADD) all fire: exactly 10,000 records, each ident once,
 * each {i, TIMER, EV_CLEAR|EV_ONESHOT, 0, 1, udata i}, none retrieved before
 * its own deadline, all within a generous 2 s, and nothing afterwards.
 * Library design (one timerfd multiplexes all timers of a kqueue).
 */
#include "t.h"

#define N 10000
#define MS 1000000LL

int main(void)
{
	int kq = t_kqueue();
	static int64_t added[N];
	static unsigned char seen[N];
	struct kevent ev[512];

	for (int i = 0; i < N; i++) {
		added[i] = t_now_ns();
		t_change(kq, i, EVFILT_TIMER, EV_ADD | EV_ONESHOT, NOTE_USECONDS,
			 5 * i, (void *)(uintptr_t)(i + 1));
	}
	int64_t done_adding = t_now_ns();
	int got = 0;
	while (got < N) {
		int n = t_wait(kq, ev, 512, 1000);
		int64_t now = t_now_ns();
		if (n == 0)
			T_FAIL("only %d of %d timers fired", got, N);
		for (int k = 0; k < n; k++) {
			uintptr_t id = ev[k].ident;
			if (id >= N)
				T_FAIL("unexpected ident %ju", (uintmax_t)id);
			T_KEVENT(&ev[k], id, EVFILT_TIMER,
				 EV_CLEAR | EV_ONESHOT, 0, 1,
				 (void *)(id + 1));
			if (seen[id]++)
				T_FAIL("timer %ju reported twice", (uintmax_t)id);
			if (now - added[id] < 5000LL * (int64_t)id)
				T_FAIL("timer %ju (%ju us) retrieved after %lld us",
				       (uintmax_t)id, (uintmax_t)(5 * id),
				       (long long)((now - added[id]) / 1000));
		}
		got += n;
	}
	int64_t el = t_now_ns() - done_adding;
	fprintf(stderr, "all %d fired %lld ms after the last ADD\n", N,
		(long long)(el / MS));
	if (el > 2000 * MS)
		T_FAIL("collecting took %lld ms", (long long)(el / MS));
	t_sleep_ms(20);
	T_NO_EVENTS(kq);
	close(kq);
	return 0;
}
