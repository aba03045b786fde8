/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * A condition that already holds when the knote is added is reported
 * at once: a socket with 3 bytes buffered gives a record with data 3, also in
 * the very call that adds the knote (changes first, then collection).
 */
#include "t.h"

int main(void)
{
	int kq = t_kqueue();
	int sp[2];
	int ud;
	struct kevent ch, ev[4];

	t_socketpair(sp);
	t_write(sp[1], "abc", 3);
	t_change(kq, sp[0], EVFILT_READ, EV_ADD, 0, 0, &ud);
	T_EQ(t_get(kq, ev, 4), 1);
	T_KEVENT(&ev[0], sp[0], EVFILT_READ, 0, 0, 3, &ud);

	/* Same in one call with a fresh kqueue. */
	int kq2 = t_kqueue();
	EV_SET(&ch, sp[0], EVFILT_READ, EV_ADD | EV_CLEAR, 0, 0, &ud);
	T_EQ(t_kevent1(kq2, &ch, ev, 4), 1);
	T_KEVENT(&ev[0], sp[0], EVFILT_READ, EV_CLEAR, 0, 3, &ud);
	T_NO_EVENTS(kq2);
	return 0;
}
