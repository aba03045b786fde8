/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * The unit bits scale data: NOTE_SECONDS 1 fires after >= 1 s,
 * NOTE_MSECONDS 300 after >= 300 ms, no unit (milliseconds) 200 after
 * >= 200 ms, NOTE_USECONDS 1000 after >= 1 ms, NOTE_NSECONDS 2000000 after
 * >= 2 ms; each within a generous 500 ms of its deadline (which a wrong unit
 * would miss by far).  Records carry fflags 0 (units are not echoed) and
 * data 1.  libkqueue "note_seconds"; FreeBSD timer.c (NOTE_USECONDS).
 */
#include "t.h"

#define MS 1000000LL
#define N 5

int main(void)
{
	int kq = t_kqueue();
	static const unsigned units[N] = { NOTE_SECONDS, NOTE_MSECONDS, 0,
		NOTE_USECONDS, NOTE_NSECONDS };
	static const int64_t data[N] = { 1, 300, 200, 1000, 2000000 };
	static const int64_t dur[N] = { 1000 * MS, 300 * MS, 200 * MS, 1 * MS,
		2 * MS };
	int64_t added[N];
	int seen[N] = { 0 };
	struct kevent ev[8];

	for (int i = 0; i < N; i++) {
		added[i] = t_now_ns();
		t_change(kq, i + 1, EVFILT_TIMER, EV_ADD | EV_ONESHOT, units[i],
			 data[i], (void *)(uintptr_t)(i + 100));
	}
	int got = 0;
	int64_t start = t_now_ns();
	while (got < N && t_now_ns() - start < 2500 * MS) {
		int n = t_wait(kq, ev, 8, 100);
		int64_t now = t_now_ns();
		for (int k = 0; k < n; k++) {
			uintptr_t id = ev[k].ident;
			if (id < 1 || id > N)
				T_FAIL("unexpected ident %ju", (uintmax_t)id);
			int i = (int)id - 1;
			T_KEVENT(&ev[k], id, EVFILT_TIMER,
				 EV_CLEAR | EV_ONESHOT, 0, 1,
				 (void *)(uintptr_t)(i + 100));
			if (seen[i]++)
				T_FAIL("timer %d reported twice", i + 1);
			got++;
			int64_t el = now - added[i];
			fprintf(stderr, "unit 0x%x data %lld: %lld us\n",
				units[i], (long long)data[i],
				(long long)(el / 1000));
			if (el < dur[i])
				T_FAIL("unit 0x%x data %lld fired after %lld us",
				       units[i], (long long)data[i],
				       (long long)(el / 1000));
			if (el > dur[i] + 500 * MS)
				T_FAIL("unit 0x%x data %lld fired late: %lld us",
				       units[i], (long long)data[i],
				       (long long)(el / 1000));
		}
	}
	for (int i = 0; i < N; i++)
		if (!seen[i])
			T_FAIL("timer unit 0x%x data %lld never fired",
			       units[i], (long long)data[i]);
	T_NO_EVENTS(kq);
	close(kq);
	return 0;
}
