/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * FreeBSD queues an EV_ONESHOT knote when its data arrives and
 * reports it without re-validation, even if the application read the data
 * before calling kevent().
 *
 * Deviation from FreeBSD: libkq learns of readiness from epoll, which checks
 * the descriptor again at the moment it reports; an activation undone before
 * kevent() collects events is therefore never seen and nothing is reported
 * (docs/differences.md, "Delivery").  What must still hold: the knote is not
 * lost or half-deleted by this, it stays armed and one-shot: the next real
 * activation is reported exactly once, with exact fields, and the knote is
 * gone afterwards (EV_DELETE -> ENOENT).  Checked on a pipe and a socketpair.
 */
#include "t.h"

static void check(int kq, int rfd, int wfd, void *ud, const char *what)
{
	struct kevent ev[8];
	char c;

	t_change(kq, rfd, EVFILT_READ, EV_ADD | EV_ONESHOT, 0, 0, ud);
	T_NO_EVENTS(kq);
	t_write(wfd, "x", 1);
	T_EQ(read(rfd, &c, 1), 1);

	int n = t_get(kq, ev, 8);
	if (n != 0)
		T_FAIL("%s: expected the documented deviation (no record for "
		       "an activation undone before collection), got %d", what, n);

	t_write(wfd, "yz", 2);
	T_EQ(t_wait(kq, ev, 8, 2000), 1);
	T_KEVENT(&ev[0], rfd, EVFILT_READ, EV_ONESHOT, 0, 2, ud);
	T_NO_EVENTS(kq);
	T_EQ(t_change_err(kq, rfd, EVFILT_READ, EV_DELETE, 0, 0, NULL), ENOENT);
	T_EQ(read(rfd, ev, 2), 2);
}

int main(void)
{
	int kq = t_kqueue();
	int p[2], sp[2];

	t_pipe(p);
	t_socketpair(sp);
	check(kq, p[0], p[1], (void *)(uintptr_t)0x3051, "pipe");
	check(kq, sp[0], sp[1], (void *)(uintptr_t)0x3052, "socketpair");
	return 0;
}
