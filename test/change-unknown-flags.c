/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * Flag bits FreeBSD does not define (0x0400, 0x0800) are not an error:
 * kqueue_register stores the change's flags minus the action bits and hands
 * them back in every record, so they are accepted and echoed.  EV_SYSFLAGS
 * bits are stripped on input (change-sysflags-ignored covers those).
 */
#include "t.h"

int main(void)
{
	int kq = t_kqueue(), p[2];
	void *ud = (void *)0x40c;

	t_pipe(p);
	t_change(kq, p[0], EVFILT_READ, EV_ADD | 0x0400 | 0x0800, 0, 0, ud);
	t_write(p[1], "ab", 2);
	T_GET1(kq, p[0], EVFILT_READ, 0x0400 | 0x0800, 0, 2, ud);
	T_EQ(t_change_err(kq, p[0], EVFILT_READ, EV_DELETE | 0x0400, 0, 0, NULL), 0);
	T_NO_EVENTS(kq);
	return 0;
}
