/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * [DELETE <p0, READ>, ADD <p0, READ>] in one call with room for records:
 * the DELETE fails (EV_ERROR record, data ENOENT), processing continues, the
 * ADD creates the knote; because a record was written no events are
 * collected in that call even though the pipe has data.
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

	EV_SET(&ch[0], p[0], EVFILT_READ, EV_DELETE, 0, 0, &ud);
	EV_SET(&ch[1], p[0], EVFILT_READ, EV_ADD, 0, 0, &ud);
	memset(ev, 0xa5, sizeof ev);
	T_EQ(kevent(kq, ch, 2, ev, 4, &z), 1);
	T_KEVENT(&ev[0], p[0], EVFILT_READ, EV_ERROR, 0, ENOENT, &ud);
	T_ASSERT(t_untouched(&ev[1]));

	/* The ADD took effect. */
	T_GET1(kq, p[0], EVFILT_READ, 0, 0, 1, &ud);
	t_change(kq, p[0], EVFILT_READ, EV_DELETE, 0, 0, NULL);
	T_NO_EVENTS(kq);
	return 0;
}
