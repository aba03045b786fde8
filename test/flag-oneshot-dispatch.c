/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * Checked with READ knotes (user-oneshot-dispatch does it with a USER knote):
 * EV_ONESHOT|EV_DISPATCH: one record with
 * both flags, and one-shot wins over dispatch: the knote is deleted at
 * retrieval, not merely disabled, so EV_DELETE and EV_ENABLE fail ENOENT
 * (FreeBSD kqueue_scan tests EV_ONESHOT before the EV_DISPATCH handling).
 */
#include "t.h"

int main(void)
{
	int kq = t_kqueue();
	int p[2];
	void *ud = (void *)(uintptr_t)0xe16;
	const unsigned short fl = EV_ONESHOT | EV_DISPATCH;

	t_pipe(p);
	t_change(kq, p[0], EVFILT_READ, EV_ADD | fl, 0, 0, ud);
	t_write(p[1], "x", 1);
	T_GET1(kq, p[0], EVFILT_READ, fl, 0, 1, ud);
	T_NO_EVENTS(kq);

	T_EQ(t_change_err(kq, p[0], EVFILT_READ, EV_DELETE, 0, 0, NULL), ENOENT);
	T_EQ(t_change_err(kq, p[0], EVFILT_READ, EV_ENABLE, 0, 0, ud), ENOENT);
	T_NO_EVENTS(kq);
	return 0;
}
