/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * ADD|ONESHOT 500 ms; wait: one record {id, TIMER, EV_CLEAR|EV_ONESHOT,
 * 0, 1, udata} no earlier than 500 ms; afterwards nothing more (the case
 * sleeps 3 s; 1 s is more than the period and checks the same) and the
 * knote is gone: DELETE -> ENOENT.  FreeBSD timer.c test_oneshot.
 */
#include "t_timer.h"

int main(void)
{
	int kq = t_kqueue();
	struct kevent ev[8];
	int ud;

	int64_t a0 = t_now_ns();
	t_change(kq, 4, EVFILT_TIMER, EV_ADD | EV_ONESHOT, 0, 500, &ud);
	int n = t_wait(kq, ev, 8, 1500);
	int64_t r1 = t_now_ns();
	T_EQ(n, 1);
	T_KEVENT(&ev[0], 4, EVFILT_TIMER, EV_CLEAR | EV_ONESHOT, 0, 1, &ud);
	tt_fired_in("500 ms one-shot", r1 - a0, 500 * MS, 1000 * MS);

	t_sleep_ms(1000);
	T_NO_EVENTS(kq);
	T_EQ(t_change_err(kq, 4, EVFILT_TIMER, EV_DELETE, 0, 0, NULL), ENOENT);
	close(kq);
	return 0;
}
