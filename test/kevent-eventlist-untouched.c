/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * With 2 ready knotes, a collection with nevents = 8 returns 2 and does
 * not write ev[2..7] (FreeBSD kqueue_scan copies out only the records it
 * returns).
 */
#include "t.h"

int main(void)
{
	int kq = t_kqueue();
	int p[2], q[2];
	t_pipe(p);
	t_pipe(q);
	t_write(p[1], "x", 1);
	t_write(q[1], "yy", 2);
	t_change(kq, p[0], EVFILT_READ, EV_ADD, 0, 0, p);
	t_change(kq, q[0], EVFILT_READ, EV_ADD, 0, 0, q);

	struct kevent ev[8], pattern[8];
	memset(ev, 0xa5, sizeof ev);
	memset(pattern, 0xa5, sizeof pattern);
	T_EQ(t_get(kq, ev, 8), 2);
	if (memcmp(&ev[2], &pattern[2], 6 * sizeof ev[0]) != 0)
		T_FAIL("ev[2..7] were written");

	struct kevent *ep = ev[0].ident == (uintptr_t)p[0] ? &ev[0] : &ev[1];
	struct kevent *eq = ep == &ev[0] ? &ev[1] : &ev[0];
	T_KEVENT(ep, p[0], EVFILT_READ, 0, 0, 1, p);
	T_KEVENT(eq, q[0], EVFILT_READ, 0, 0, 2, q);
	return 0;
}
