/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * Changes are applied in array order, so [ADD <p0, READ>, DELETE
 * <p0, READ>] in one call leaves no knote: the call returns 0 (no record,
 * and no event although the pipe already has data) and a later DELETE fails
 * with ENOENT.
 */
#include "t.h"

int main(void)
{
	int kq = t_kqueue();
	int p[2];
	int ud;
	struct kevent ch[2], ev[4];
	struct timespec z = { 0, 0 };

	t_pipe(p);
	t_write(p[1], "x", 1);

	EV_SET(&ch[0], p[0], EVFILT_READ, EV_ADD, 0, 0, &ud);
	EV_SET(&ch[1], p[0], EVFILT_READ, EV_DELETE, 0, 0, &ud);
	T_EQ(kevent(kq, ch, 2, ev, 4, &z), 0);
	T_NO_EVENTS(kq);
	T_EQ(t_change_err(kq, p[0], EVFILT_READ, EV_DELETE, 0, 0, NULL),
	     ENOENT);

	/* Same with no event list at all. */
	T_EQ(kevent(kq, ch, 2, NULL, 0, NULL), 0);
	T_NO_EVENTS(kq);
	T_EQ(t_change_err(kq, p[0], EVFILT_READ, EV_DELETE, 0, 0, NULL),
	     ENOENT);
	return 0;
}
