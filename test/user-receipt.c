/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * Receipts for USER knotes: one kevent() call with 3 x EV_ADD|EV_RECEIPT and
 * nevents 3 returns 3 records, each {ident, USER, EV_ERROR, 0, 0, udata}, and
 * the 3 knotes exist afterwards.  With a triggered knote pending and room
 * for more records (nevents 8), a call producing receipts returns only the
 * receipts (no collection when records were produced).  The stored
 * flags keep EV_RECEIPT, so the knotes' own records carry it.
 */
#include "t.h"

int main(void)
{
	int kq = t_kqueue();
	struct kevent ch[3], ev[8];
	struct timespec z = { 0, 0 };
	int ud[4];

	for (int i = 0; i < 3; i++)
		EV_SET(&ch[i], i + 1, EVFILT_USER, EV_ADD | EV_RECEIPT, 0, 0,
		       &ud[i]);
	memset(ev, 0xa5, sizeof ev);
	T_EQ(kevent(kq, ch, 3, ev, 3, &z), 3);
	for (int i = 0; i < 3; i++)
		T_KEVENT(&ev[i], i + 1, EVFILT_USER, EV_ERROR, 0, 0, &ud[i]);
	T_NO_EVENTS(kq);

	/* A pending event is not collected by a call that wrote receipts. */
	t_change(kq, 1, EVFILT_USER, 0, NOTE_TRIGGER, 0, &ud[0]);
	EV_SET(&ch[0], 4, EVFILT_USER, EV_ADD | EV_RECEIPT, 0, 0, &ud[3]);
	memset(ev, 0xa5, sizeof ev);
	T_EQ(kevent(kq, ch, 1, ev, 8, NULL), 1);
	T_KEVENT(&ev[0], 4, EVFILT_USER, EV_ERROR, 0, 0, &ud[3]);

	T_GET1(kq, 1, EVFILT_USER, EV_RECEIPT, 0, 0, &ud[0]);
	for (uintptr_t i = 1; i <= 4; i++)
		t_change(kq, i, EVFILT_USER, EV_DELETE, 0, 0, NULL);
	T_NO_EVENTS(kq);
	return 0;
}
