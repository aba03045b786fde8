/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * The same timer ident in two kqueues names two independent timers:
 * a ONESHOT 100 ms timer 7 in kq1 and a periodic 600 ms timer 7 in kq2 each
 * fire on their own schedule with their own udata; consuming and deleting
 * kq1's knote leaves kq2's running.  libkqueue "multi_kqueue".
 */
#include "t.h"

#define MS 1000000LL

int main(void)
{
	int kq1 = t_kqueue(), kq2 = t_kqueue();
	struct kevent ev[8];
	int u1, u2;

	int64_t a0 = t_now_ns();
	t_change(kq1, 7, EVFILT_TIMER, EV_ADD | EV_ONESHOT, 0, 100, &u1);
	int64_t b0 = t_now_ns();
	t_change(kq2, 7, EVFILT_TIMER, EV_ADD, 0, 600, &u2);

	T_EQ(t_wait(kq1, ev, 8, 1000), 1);
	int64_t el = t_now_ns() - a0;
	T_KEVENT(&ev[0], 7, EVFILT_TIMER, EV_CLEAR | EV_ONESHOT, 0, 1, &u1);
	T_ASSERT(el >= 100 * MS);
	if (t_now_ns() - b0 < 550 * MS)
		T_NO_EVENTS(kq2);
	T_EQ(t_change_err(kq1, 7, EVFILT_TIMER, EV_DELETE, 0, 0, NULL), ENOENT);
	/* Creating and deleting another timer 7 in kq1 leaves kq2's alone. */
	t_change(kq1, 7, EVFILT_TIMER, EV_ADD, 0, 60000, &u1);
	t_change(kq1, 7, EVFILT_TIMER, EV_DELETE, 0, 0, NULL);

	T_EQ(t_wait(kq2, ev, 8, 1500), 1);
	el = t_now_ns() - b0;
	T_KEVENT(&ev[0], 7, EVFILT_TIMER, EV_CLEAR, 0, 1, &u2);
	if (el < 600 * MS)
		T_FAIL("kq2's 600 ms timer fired after %lld us",
		       (long long)(el / 1000));
	T_NO_EVENTS(kq1);
	t_change(kq2, 7, EVFILT_TIMER, EV_DELETE, 0, 0, NULL);
	close(kq1);
	close(kq2);
	return 0;
}
