/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * EV_ADD|EV_DELETE on an absent knote creates it (the lookup fails, so
 * EV_ADD's create path runs); on an existing knote the same change deletes
 * it.  The created knote's stored flags hold neither action bit.  A
 * FreeBSD kqueue_register quirk, taken from its source.  Checked with a
 * READ knote on a pipe (the same holds for a USER knote).
 */
#include "t.h"

int main(void)
{
	int kq = t_kqueue();
	int p[2];
	int ud;

	t_pipe(p);
	t_change(kq, p[0], EVFILT_READ, EV_ADD | EV_DELETE, 0, 0, &ud);
	T_NO_EVENTS(kq);
	t_write(p[1], "x", 1);
	T_GET1(kq, p[0], EVFILT_READ, 0, 0, 1, &ud);

	/* Present now: the same change deletes it. */
	t_change(kq, p[0], EVFILT_READ, EV_ADD | EV_DELETE, 0, 0, &ud);
	T_NO_EVENTS(kq);
	T_EQ(t_change_err(kq, p[0], EVFILT_READ, EV_DELETE, 0, 0, NULL),
	     ENOENT);
	return 0;
}
