/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * A level READ knote becomes ready, then the application reads the data
 * before calling kevent(): the queued knote is re-validated at retrieval,
 * found false and dropped, and the call keeps sleeping until its original
 * deadline: kevent() with a 100 ms timeout returns 0 after >= 100 ms, not
 * early (FreeBSD kqueue_scan "retry").  Checked (a) for a knote never
 * retrieved and (b) for one that was just reported (queued again as level).
 */
#include "t.h"

static void check_stale_wait(int kq, const char *what)
{
	struct kevent ev[8];
	int64_t t0 = t_now_ns();
	int n = t_wait(kq, ev, 8, 100);
	int64_t el = t_now_ns() - t0;
	if (n != 0) {
		for (int i = 0; i < n; i++)
			t_print_kevent("  unexpected", &ev[i]);
		T_FAIL("%s: stale knote reported (%d records)", what, n);
	}
	if (el < 100000000)
		T_FAIL("%s: returned after %.3f ms, before the 100 ms timeout",
		       what, el / 1e6);
	if (el > 5000000000LL)
		T_FAIL("%s: returned only after %.3f ms", what, el / 1e6);
}

int main(void)
{
	int kq = t_kqueue();
	int p[2];
	char c;
	void *ud = (void *)(uintptr_t)0x304;

	t_pipe(p);
	t_change(kq, p[0], EVFILT_READ, EV_ADD, 0, 0, ud);

	/* (a) */
	t_write(p[1], "x", 1);
	T_EQ(read(p[0], &c, 1), 1);
	check_stale_wait(kq, "never retrieved");

	/* (b) */
	t_write(p[1], "x", 1);
	T_GET1(kq, p[0], EVFILT_READ, 0, 0, 1, ud);
	T_EQ(read(p[0], &c, 1), 1);
	check_stale_wait(kq, "after a level delivery");
	return 0;
}
