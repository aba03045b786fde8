/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * EV_ADD|EV_RECEIPT with a large event list and a NULL timeout returns
 * only the receipt: pending events (of another knote, and of the knote just
 * added, whose pipe already has data) are not collected and the call does
 * not wait.  They are all reported by the next call (EV_RECEIPT is for bulk
 * registration "without draining pending events").
 */
#include "t.h"

int main(void)
{
	int kq = t_kqueue();
	int a[2], b[2];
	int ua, ub;
	struct kevent ch, ev[8];

	t_fail_after(4, "kevent() waited after a receipt");

	t_pipe(a);
	t_pipe(b);
	t_write(a[1], "x", 1);
	t_write(b[1], "xy", 2);
	t_change(kq, a[0], EVFILT_READ, EV_ADD, 0, 0, &ua);

	EV_SET(&ch, b[0], EVFILT_READ, EV_ADD | EV_RECEIPT, 0, 0, &ub);
	memset(ev, 0xa5, sizeof ev);
	T_EQ(kevent(kq, &ch, 1, ev, 8, NULL), 1);
	T_KEVENT(&ev[0], b[0], EVFILT_READ, EV_ERROR, 0, 0, &ub);
	for (int i = 1; i < 8; i++)
		T_ASSERT(t_untouched(&ev[i]));
	alarm(0);

	T_EQ(t_get(kq, ev, 8), 2);
	for (int i = 0; i < 2; i++) {
		if (ev[i].ident == (uintptr_t)a[0])
			T_KEVENT(&ev[i], a[0], EVFILT_READ, 0, 0, 1, &ua);
		else
			T_KEVENT(&ev[i], b[0], EVFILT_READ, EV_RECEIPT, 0, 2,
				 &ub);
	}
	T_ASSERT(ev[0].ident != ev[1].ident);
	return 0;
}
