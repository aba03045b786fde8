/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * Three EV_ADD|EV_RECEIPT changes (READ knotes on three pipes) with
 * nevents 3 return 3 receipts in change order, each with flags exactly
 * EV_ERROR (no EV_CLEAR/EV_RECEIPT echoed) and data 0, udata echoed; no event
 * is collected although one pipe has data; all three knotes exist afterwards
 * and keep EV_RECEIPT (and EV_CLEAR) in their stored flags.
 * Checked with READ knotes (user-receipt does it with USER knotes).
 */
#include "t.h"

int main(void)
{
	int kq = t_kqueue();
	int p[3][2];
	int ud[3];
	struct kevent ch[3], ev[8];
	struct timespec z = { 0, 0 };
	static const unsigned short fl[3] = {
		EV_ADD | EV_RECEIPT,
		EV_ADD | EV_RECEIPT | EV_CLEAR,
		EV_ADD | EV_RECEIPT,
	};

	for (int i = 0; i < 3; i++) {
		t_pipe(p[i]);
		EV_SET(&ch[i], p[i][0], EVFILT_READ, fl[i], 0, 0, &ud[i]);
	}
	t_write(p[1][1], "x", 1);

	memset(ev, 0xa5, sizeof ev);
	T_EQ(kevent(kq, ch, 3, ev, 3, &z), 3);
	for (int i = 0; i < 3; i++)
		T_KEVENT(&ev[i], p[i][0], EVFILT_READ, EV_ERROR, 0, 0, &ud[i]);

	for (int i = 0; i < 3; i++)
		if (i != 1)
			t_write(p[i][1], "x", 1);
	T_EQ(t_get(kq, ev, 8), 3);
	int seen = 0;
	for (int j = 0; j < 3; j++) {
		int i;
		for (i = 0; i < 3; i++)
			if (ev[j].ident == (uintptr_t)p[i][0])
				break;
		if (i == 3)
			T_FAIL("record for unknown ident %" PRIuPTR,
			       ev[j].ident);
		T_KEVENT(&ev[j], p[i][0], EVFILT_READ,
			 fl[i] & ~EV_ADD, 0, 1, &ud[i]);
		seen |= 1 << i;
	}
	T_EQ(seen, 7);
	return 0;
}
