/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * The same array may serve as changelist and eventlist (FreeBSD
 * kevent(2)); an ADD of an immediately ready knote with nevents = 1 returns
 * 1 and the record overwrites the change slot.  Also with three changes and
 * three records in one array.
 */
#include "t.h"

int main(void)
{
	int kq = t_kqueue();
	int p[3][2];
	for (int i = 0; i < 3; i++) {
		t_pipe(p[i]);
		t_write(p[i][1], "abcd", (size_t)i + 1);
	}

	struct kevent a[3];
	struct timespec z = { 0, 0 };
	EV_SET(&a[0], p[0][0], EVFILT_READ, EV_ADD, 0, 0, &a);
	T_EQ(kevent(kq, a, 1, a, 1, &z), 1);
	T_KEVENT(&a[0], p[0][0], EVFILT_READ, 0, 0, 1, &a);
	t_change(kq, p[0][0], EVFILT_READ, EV_DELETE, 0, 0, NULL);

	for (int i = 0; i < 3; i++)
		EV_SET(&a[i], p[i][0], EVFILT_READ, EV_ADD, 0, 0,
		       (void *)(intptr_t)(i + 1));
	T_EQ(kevent(kq, a, 3, a, 3, &z), 3);
	int seen = 0;
	for (int j = 0; j < 3; j++) {
		int i = (int)(intptr_t)a[j].udata - 1;
		if (i < 0 || i >= 3 || (seen & (1 << i)))
			T_FAIL("record %d is unknown or a duplicate", j);
		seen |= 1 << i;
		T_KEVENT(&a[j], p[i][0], EVFILT_READ, 0, 0, i + 1,
			 (void *)(intptr_t)(i + 1));
	}
	return 0;
}
