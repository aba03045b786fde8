/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * HAProxy's kqueue poller applies its changes in a call of their own with
 * EV_RECEIPT on the first change (kevent(kq, ch, n, out, n, &zero)), so
 * that no scan follows.  When a connect completes it turns the socket
 * from writing to reading: [EV_ADD|EV_RECEIPT READ, EV_DELETE WRITE].
 * The pair costs one epoll_ctl(), as it does without the receipt and as
 * the epoll poller's one MOD does, and every record is FreeBSD's: the
 * receipts in changelist order (EV_ERROR, data 0, a create's fflags 0),
 * nothing scanned, and with no room for a receipt the call returns 0 with
 * both changes made.  Counted by a seccomp trap that lets each call
 * through (t_epoll_ctl.h).
 */
#include "t.h"
#include "t_epoll_ctl.h"

static void check_ctls(const char *what, int want)
{
	if (t_epoll_ctl_count() != want)
		T_FAIL("%s: %d epoll_ctl calls (ADD %d, MOD %d, DEL %d), expected %d", what,
		       t_epoll_ctl_count(), (int)t_epoll_ctls[EPOLL_CTL_ADD],
		       (int)t_epoll_ctls[EPOLL_CTL_MOD], (int)t_epoll_ctls[EPOLL_CTL_DEL], want);
	t_epoll_ctl_zero();
}

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
	t_epoll_ctl_trap();

	/* the receipt on the add */
	EV_SET(&ch[0], sp[0], EVFILT_READ, EV_ADD | EV_RECEIPT, 0, 0, ur);
	EV_SET(&ch[1], sp[0], EVFILT_WRITE, EV_DELETE, 0, 0, NULL);
	T_EQ(kevent(kq, ch, 2, ev, 2, &z), 1);
	T_KEVENT(&ev[0], sp[0], EVFILT_READ, EV_ERROR, 0, 0, ur);
	check_ctls("[ADD|RECEIPT READ, DELETE WRITE]", 1);
	T_NO_EVENTS(kq);
	t_write(sp[1], "abc", 3);
	T_GET1(kq, sp[0], EVFILT_READ, EV_RECEIPT, 0, 3, ur);
	t_change_fails(kq, sp[0], EVFILT_WRITE, EV_DELETE, NULL, ENOENT);
	t_epoll_ctl_zero();

	/* back to writing, a receipt on each */
	EV_SET(&ch[0], sp[0], EVFILT_WRITE, EV_ADD | EV_RECEIPT, 0, 0, uw);
	EV_SET(&ch[1], sp[0], EVFILT_READ, EV_DELETE | EV_RECEIPT, 0, 0, NULL);
	T_EQ(kevent(kq, ch, 2, ev, 4, &z), 2);
	T_KEVENT(&ev[0], sp[0], EVFILT_WRITE, EV_ERROR, 0, 0, uw);
	T_KEVENT(&ev[1], sp[0], EVFILT_READ, EV_ERROR, 0, 0, NULL);
	check_ctls("[ADD|RECEIPT WRITE, DELETE|RECEIPT READ]", 1);
	T_EQ(t_get(kq, ev, 4), 1);
	T_KEVENT(&ev[0], sp[0], EVFILT_WRITE, EV_RECEIPT, 0, ev[0].data, uw);
	T_ASSERT(ev[0].data > 0);
	t_change_fails(kq, sp[0], EVFILT_READ, EV_DELETE, NULL, ENOENT);
	t_epoll_ctl_zero();

	/* room for one record of two: the first is written, both changes
	 * are made, and the call returns 0 (FreeBSD's kqueue_kevent returns
	 * the missing record's error, 0 for a receipt) */
	EV_SET(&ch[0], sp[0], EVFILT_READ, EV_ADD | EV_RECEIPT, 0, 0, ur);
	EV_SET(&ch[1], sp[0], EVFILT_WRITE, EV_DELETE | EV_RECEIPT, 0, 0, NULL);
	memset(ev, 0, sizeof ev);
	T_EQ(kevent(kq, ch, 2, ev, 1, &z), 0);
	T_KEVENT(&ev[0], sp[0], EVFILT_READ, EV_ERROR, 0, 0, ur);
	T_EQ(ev[1].filter, 0);
	check_ctls("[ADD|RECEIPT READ, DELETE|RECEIPT WRITE], room for one record", 1);
	t_change_fails(kq, sp[0], EVFILT_WRITE, EV_DELETE, NULL, ENOENT);
	T_GET1(kq, sp[0], EVFILT_READ, EV_RECEIPT, 0, 3, ur);

	/* a number closed behind libkq's back: both fail, in order */
	int x = sp[0];
	t_change(kq, x, EVFILT_WRITE, EV_ADD, 0, 0, uw);
	t_raw_close(x);
	EV_SET(&ch[0], x, EVFILT_READ, EV_ADD | EV_RECEIPT, 0, 0, ur);
	EV_SET(&ch[1], x, EVFILT_WRITE, EV_DELETE, 0, 0, NULL);
	T_EQ(kevent(kq, ch, 2, ev, 4, &z), 2);
	T_KEVENT(&ev[0], x, EVFILT_READ, EV_ERROR, 0, EBADF, ur);
	T_KEVENT(&ev[1], x, EVFILT_WRITE, EV_ERROR, 0, EBADF, NULL);
	T_NO_EVENTS(kq);
	return 0;
}
