/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * A periodic 500 ms timer re-ADDed with 1500 ms right after its first
 * record: the next record comes no earlier than 1500 ms after the re-ADD
 * (neither the old period nor the old phase survives) and within a generous
 * 500 ms more, with data 1.  The case uses 1 s / 2 s; 500 ms / 1500 ms
 * checks the same in less time.  FreeBSD timer.c test_update_periodic (which
 * only asserts >= 2 ms).
 */
#include "t_timer.h"

int main(void)
{
	int kq = t_kqueue();
	struct kevent ev[8];
	int ud;

	t_change(kq, 25, EVFILT_TIMER, EV_ADD, 0, 500, &ud);
	T_WAIT1(kq, 1500, 25, EVFILT_TIMER, EV_CLEAR, 0, 1, &ud);

	int64_t b0 = t_now_ns();
	t_change(kq, 25, EVFILT_TIMER, EV_ADD, 0, 1500, &ud);
	T_EQ(t_wait(kq, ev, 8, 2500), 1);
	int64_t el = t_now_ns() - b0;
	T_KEVENT(&ev[0], 25, EVFILT_TIMER, EV_CLEAR, 0, 1, &ud);
	tt_fired_in("1500 ms timer re-added", el, 1500 * MS, 2000 * MS);
	t_change(kq, 25, EVFILT_TIMER, EV_DELETE, 0, 0, NULL);
	T_NO_EVENTS(kq);
	close(kq);
	return 0;
}
