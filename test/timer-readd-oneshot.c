/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * A periodic timer re-ADDed with EV_ONESHOT stays periodic: a
 * re-ADD does not change the knote's stored flags (FreeBSD kqueue_register
 * modify path; the timer is restarted by filt_timertouch from the stored
 * flags).  Records keep flags EV_CLEAR (no EV_ONESHOT), keep coming, and the
 * knote still exists afterwards (DELETE succeeds).  FreeBSD timer.c
 * (WITH_NATIVE_KQUEUE_BUGS case).
 */
#include "t.h"

#define MS 1000000LL

int main(void)
{
	int kq = t_kqueue();
	struct kevent ev[8];
	int ud;
	int64_t total = 0;

	t_change(kq, 20, EVFILT_TIMER, EV_ADD, 0, 100, &ud);
	int64_t a0 = t_now_ns();
	t_change(kq, 20, EVFILT_TIMER, EV_ADD | EV_ONESHOT, 0, 100, &ud);
	for (int i = 0; i < 3; i++) {
		T_EQ(t_wait(kq, ev, 8, 1000), 1);
		T_KEVENT(&ev[0], 20, EVFILT_TIMER, EV_CLEAR, 0, ev[0].data, &ud);
		T_ASSERT(ev[0].data >= 1);
		total += ev[0].data;
		int64_t hi = (t_now_ns() - a0) / (100 * MS);
		if (total > hi)
			T_FAIL("%lld expirations in %lld periods",
			       (long long)total, (long long)hi);
	}
	t_change(kq, 20, EVFILT_TIMER, EV_DELETE, 0, 0, NULL);
	T_EQ(t_change_err(kq, 20, EVFILT_TIMER, EV_DELETE, 0, 0, NULL), ENOENT);
	close(kq);
	return 0;
}
