/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * With 5 ready knotes, a collection with nevents = 3 returns exactly 3
 * records, each for a different ready knote (FreeBSD kevent(2): at most
 * nevents records).
 */
#include "t.h"

int main(void)
{
	int kq = t_kqueue();
	int p[5][2];
	for (int i = 0; i < 5; i++) {
		t_pipe(p[i]);
		t_write(p[i][1], "x", 1);
		t_change(kq, p[i][0], EVFILT_READ, EV_ADD, 0, 0,
			 (void *)(intptr_t)(i + 1));
	}

	struct kevent ev[8];
	memset(ev, 0x5a, sizeof ev);
	struct kevent pattern[8];
	memset(pattern, 0x5a, sizeof pattern);
	T_EQ(t_get(kq, ev, 3), 3);
	if (memcmp(&ev[3], &pattern[3], 5 * sizeof ev[0]) != 0)
		T_FAIL("records written beyond nevents");

	int seen = 0;
	for (int j = 0; j < 3; j++) {
		int i = (int)(intptr_t)ev[j].udata - 1;
		if (i < 0 || i >= 5 || (seen & (1 << i)))
			T_FAIL("record %d is unknown or a duplicate", j);
		seen |= 1 << i;
		T_KEVENT(&ev[j], p[i][0], EVFILT_READ, 0, 0, 1,
			 (void *)(intptr_t)(i + 1));
	}

	/* Level-triggered: all 5 are still ready. */
	T_EQ(t_get(kq, ev, 8), 5);
	return 0;
}
