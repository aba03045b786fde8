/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * EV_WAKEONE, a libkq extension.  Library decision (docs/differences.md):
 * EV_WAKEONE cannot be used on a READ knote watching another kqueue
 * descriptor, because epoll refuses an exclusive entry for another epoll set:
 * EV_ADD fails with EINVAL (error record, or -1/EINVAL without an event list)
 * and creates no knote (EV_DELETE -> ENOENT); the same knote without the flag
 * works.
 */
#include "t.h"

int main(void)
{
	int kq1 = t_kqueue(), kq2 = t_kqueue();
	void *u = (void *)0x1701;

	t_change(kq2, 1, EVFILT_USER, EV_ADD, 0, 0, NULL);
	t_change(kq2, 1, EVFILT_USER, 0, NOTE_TRIGGER, 0, NULL);
	t_change_fails(kq1, kq2, EVFILT_READ, EV_ADD | EV_WAKEONE, u, EINVAL);
	T_EQ(t_change_err(kq1, kq2, EVFILT_READ, EV_DELETE, 0, 0, NULL),
	     ENOENT);
	T_NO_EVENTS(kq1);

	t_change(kq1, kq2, EVFILT_READ, EV_ADD, 0, 0, u);
	T_GET1(kq1, kq2, EVFILT_READ, 0, 0, 1, u);
	return 0;
}
