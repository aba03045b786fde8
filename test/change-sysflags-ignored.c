/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * Input bits in EV_SYSFLAGS (0xF000: EV_EOF, EV_ERROR, EV_DROP,
 * EV_FLAG1) are stripped before a change is processed: EV_ADD with them set
 * creates a normal knote, produces no record, and the knote's records carry
 * none of those bits.
 */
#include "t.h"

int main(void)
{
	int kq = t_kqueue();
	int p[2];
	int ud;
	struct kevent ch, ev[4];

	t_pipe(p);
	EV_SET(&ch, p[0], EVFILT_READ, EV_ADD | EV_SYSFLAGS, 0, 0, &ud);
	T_EQ(t_kevent1(kq, &ch, ev, 4), 0);

	t_write(p[1], "x", 1);
	T_GET1(kq, p[0], EVFILT_READ, 0, 0, 1, &ud);
	/* Level-triggered (EV_DROP ignored): reported again. */
	T_EQ(t_get(kq, ev, 4), 1);
	T_KEVENT(&ev[0], p[0], EVFILT_READ, 0, 0, 1, &ud);

	/* A modify with the bits set is an ordinary modify. */
	EV_SET(&ch, p[0], EVFILT_READ, EV_DISABLE | EV_EOF | EV_ERROR, 0, 0,
	       &ud);
	T_EQ(t_kevent1(kq, &ch, ev, 4), 0);
	EV_SET(&ch, p[0], EVFILT_READ, EV_ENABLE | EV_SYSFLAGS, 0, 0, &ud);
	T_EQ(kevent(kq, &ch, 1, NULL, 0, NULL), 0);
	T_GET1(kq, p[0], EVFILT_READ, 0, 0, 1, &ud);

	/* EV_DELETE with the bits set deletes. */
	EV_SET(&ch, p[0], EVFILT_READ, EV_DELETE | EV_ERROR, 0, 0, NULL);
	T_EQ(kevent(kq, &ch, 1, NULL, 0, NULL), 0);
	T_NO_EVENTS(kq);
	return 0;
}
