/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * A poller turning a socket from writing to reading passes [EV_ADD READ,
 * EV_DELETE WRITE] for it in one changelist (libkq makes the pair one
 * epoll_ctl): the WRITE knote is gone, no record comes for it, the READ knote
 * reports data when it arrives with its udata.  With the number closed
 * behind libkq's back, both changes fail with EBADF, records in changelist
 * order; with no room for records, kevent() fails with the add's EBADF.
 */
#include "t.h"

int main(void)
{
	int kq = t_kqueue();
	int sp[2];
	void *uw = (void *)0x77, *ur = (void *)0x72;
	struct kevent ch[2], ev[4];
	struct timespec z = { 0, 0 };

	t_socketpair(sp);
	t_change(kq, sp[0], EVFILT_WRITE, EV_ADD, 0, 0, uw);
	T_EQ(t_get(kq, ev, 4), 1);
	T_KEVENT(&ev[0], sp[0], EVFILT_WRITE, 0, 0, ev[0].data, uw);

	EV_SET(&ch[0], sp[0], EVFILT_READ, EV_ADD, 0, 0, ur);
	EV_SET(&ch[1], sp[0], EVFILT_WRITE, EV_DELETE, 0, 0, NULL);
	T_EQ(kevent(kq, ch, 2, ev, 4, &z), 0);
	T_NO_EVENTS(kq);
	t_write(sp[1], "abc", 3);
	T_GET1(kq, sp[0], EVFILT_READ, 0, 0, 3, ur);
	t_change_fails(kq, sp[0], EVFILT_WRITE, EV_DELETE, NULL, ENOENT);

	/* And back, in the other order of the pair's kinds. */
	EV_SET(&ch[0], sp[0], EVFILT_WRITE, EV_ADD, 0, 0, uw);
	EV_SET(&ch[1], sp[0], EVFILT_READ, EV_DELETE, 0, 0, NULL);
	T_EQ(kevent(kq, ch, 2, ev, 4, &z), 1);
	T_KEVENT(&ev[0], sp[0], EVFILT_WRITE, 0, 0, ev[0].data, uw);
	T_ASSERT(ev[0].data > 0);
	t_change_fails(kq, sp[0], EVFILT_READ, EV_DELETE, NULL, ENOENT);

	/* A number closed where libkq did not see it: both fail. */
	int x = sp[0];
	t_change(kq, x, EVFILT_READ, EV_ADD, 0, 0, ur);
	t_raw_close(x);
	EV_SET(&ch[0], x, EVFILT_READ, EV_ADD, 0, 0, ur);
	EV_SET(&ch[1], x, EVFILT_WRITE, EV_DELETE, 0, 0, NULL);
	int n = kevent(kq, ch, 2, ev, 4, &z);
	T_EQ(n, 2);
	T_KEVENT(&ev[0], x, EVFILT_READ, EV_ERROR, 0, EBADF, ur);
	T_KEVENT(&ev[1], x, EVFILT_WRITE, EV_ERROR, 0, EBADF, NULL);
	errno = 0;
	T_EQ(kevent(kq, ch, 2, NULL, 0, &z), -1);
	T_EQ(errno, EBADF);
	return 0;
}
