/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * Three triggers of an EV_CLEAR USER knote before retrieval give one
 * record (a knote is queued at most once: multiple triggers before
 * retrieval give one record), and nothing afterwards.  Also
 * with the three triggers in one changelist.
 */
#include "t.h"

int main(void)
{
	int kq = t_kqueue();
	int ud;
	struct kevent ch[3];

	t_change(kq, 1, EVFILT_USER, EV_ADD | EV_CLEAR, 0, 0, &ud);
	for (int i = 0; i < 3; i++)
		t_change(kq, 1, EVFILT_USER, 0, NOTE_TRIGGER, 0, &ud);
	T_GET1(kq, 1, EVFILT_USER, EV_CLEAR, 0, 0, &ud);
	T_NO_EVENTS(kq);

	for (int i = 0; i < 3; i++)
		EV_SET(&ch[i], 1, EVFILT_USER, 0, NOTE_TRIGGER, 0, &ud);
	T_EQ(kevent(kq, ch, 3, NULL, 0, NULL), 0);
	T_GET1(kq, 1, EVFILT_USER, EV_CLEAR, 0, 0, &ud);
	T_NO_EVENTS(kq);
	return 0;
}
