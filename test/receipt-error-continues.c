/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * [ADD a, DELETE absent b, ADD c] with nevents 4: the failure becomes an
 * EV_ERROR record, processing continues, both ADDs are applied, kevent()
 * returns 1 and collects no events (even though a and c already have data).
 */
#include "t.h"

int main(void)
{
	int kq = t_kqueue();
	int a[2], b[2], c[2];
	int ua, ub, uc;
	struct kevent ch[3], ev[4];
	struct timespec z = { 0, 0 };

	t_pipe(a);
	t_pipe(b);
	t_pipe(c);
	t_write(a[1], "x", 1);
	t_write(c[1], "xy", 2);
	EV_SET(&ch[0], a[0], EVFILT_READ, EV_ADD, 0, 0, &ua);
	EV_SET(&ch[1], b[0], EVFILT_READ, EV_DELETE, 0, 0, &ub);
	EV_SET(&ch[2], c[0], EVFILT_READ, EV_ADD, 0, 0, &uc);
	memset(ev, 0xa5, sizeof ev);
	T_EQ(kevent(kq, ch, 3, ev, 4, &z), 1);
	T_KEVENT(&ev[0], b[0], EVFILT_READ, EV_ERROR, 0, ENOENT, &ub);
	for (int i = 1; i < 4; i++)
		T_ASSERT(t_untouched(&ev[i]));

	/* Both ADDs are in effect. */
	T_EQ(t_get(kq, ev, 4), 2);
	for (int i = 0; i < 2; i++) {
		if (ev[i].ident == (uintptr_t)a[0])
			T_KEVENT(&ev[i], a[0], EVFILT_READ, 0, 0, 1, &ua);
		else
			T_KEVENT(&ev[i], c[0], EVFILT_READ, 0, 0, 2, &uc);
	}
	T_ASSERT(ev[0].ident != ev[1].ident);
	return 0;
}
