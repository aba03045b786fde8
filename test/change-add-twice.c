/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * Adding <sp0, EVFILT_READ> twice in one kqueue leaves a single knote:
 * one record when data arrives, and one DELETE removes it (a second DELETE
 * fails with ENOENT): a kqueue holds at most one knote per <ident, filter>.
 */
#include "t.h"

int main(void)
{
	int kq = t_kqueue();
	int sp[2];
	int ud;

	t_socketpair(sp);
	t_change(kq, sp[0], EVFILT_READ, EV_ADD, 0, 0, &ud);
	t_change(kq, sp[0], EVFILT_READ, EV_ADD, 0, 0, &ud);
	T_NO_EVENTS(kq);

	t_write(sp[1], "x", 1);
	T_GET1(kq, sp[0], EVFILT_READ, 0, 0, 1, &ud);

	/* Both ADDs named the same knote: one DELETE removes it. */
	t_change(kq, sp[0], EVFILT_READ, EV_DELETE, 0, 0, NULL);
	T_NO_EVENTS(kq);
	T_EQ(t_change_err(kq, sp[0], EVFILT_READ, EV_DELETE, 0, 0, NULL),
	     ENOENT);
	return 0;
}
