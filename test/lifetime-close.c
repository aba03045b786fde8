/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * close() of a watched descriptor removes its knote at once
 * (FreeBSD knote_fdclose): nothing is reported for it afterwards,
 * whether its event was pending but never collected (level knote),
 * already reported and so still queued (level knote) or activated but
 * not yet collected (EV_CLEAR knote, its file kept open by a dup and
 * written to again after the close).  An EV_DELETE, EV_ENABLE or EV_DISABLE
 * naming the closed number then fails with EBADF (the descriptor is looked
 * up before the knote).  A live knote of the same kqueue is unaffected.
 */
#include "t.h"

int main(void)
{
	int kq = t_kqueue();
	int a[2], b[2], c[2], d[2];
	void *ua = (void *)0x101, *ub = (void *)0x102, *uc = (void *)0x103,
	     *ud = (void *)0x104;

	t_socketpair(a);
	t_socketpair(b);
	t_pipe(c);
	t_pipe(d);

	/* b: level knote, reported once, stays queued. */
	t_change(kq, b[0], EVFILT_READ, EV_ADD, 0, 0, ub);
	t_write(b[1], "yy", 2);
	T_GET1(kq, b[0], EVFILT_READ, 0, 0, 2, ub);

	/* a: level knote with data, never collected. */
	t_change(kq, a[0], EVFILT_READ, EV_ADD, 0, 0, ua);
	t_write(a[1], "x", 1);
	/* c: EV_CLEAR knote activated, not collected. */
	t_change(kq, c[0], EVFILT_READ, EV_ADD | EV_CLEAR, 0, 0, uc);
	t_write(c[1], "zzz", 3);
	/* d: stays open. */
	t_change(kq, d[0], EVFILT_READ, EV_ADD, 0, 0, ud);

	/* c's file stays open through a dup. */
	int cd = dup(c[0]);
	T_ASSERT(cd >= 0);
	T_EQ(close(a[0]), 0);
	T_EQ(close(b[0]), 0);
	T_EQ(close(c[0]), 0);
	T_NO_EVENTS(kq);

	/* More data for the still open pipe changes nothing. */
	t_write(c[1], "w", 1);
	T_NO_EVENTS(kq);

	/* The numbers are not open: EBADF, not ENOENT. */
	t_change_fails(kq, a[0], EVFILT_READ, EV_DELETE, NULL, EBADF);
	t_change_fails(kq, b[0], EVFILT_READ, EV_DELETE, NULL, EBADF);
	t_change_fails(kq, c[0], EVFILT_READ, EV_DELETE, NULL, EBADF);
	t_change_fails(kq, b[0], EVFILT_READ, EV_ENABLE, NULL, EBADF);
	t_change_fails(kq, c[0], EVFILT_READ, EV_DISABLE, NULL, EBADF);

	/* The other knote works as before. */
	t_write(d[1], "dddd", 4);
	T_GET1(kq, d[0], EVFILT_READ, 0, 0, 4, ud);
	return 0;
}
