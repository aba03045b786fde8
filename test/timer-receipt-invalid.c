/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * ADD|EV_RECEIPT of an invalid timer (data -1) yields one record with
 * flags exactly EV_ERROR and data EINVAL, ident/filter/udata echoed, and no
 * knote.  An invalid-fflags timer's error record echoes fflags 0: FreeBSD's
 * kqueue_register clears the change's fflags and data on the create path
 * before f_attach validates them, so a failed create echoes 0 just like a
 * successful one (the documented behaviour names only the successful case;
 * FreeBSD's code decides the rest).  In a changelist
 * mixing a valid and an invalid ADD|RECEIPT, each gets its record (data 0 /
 * EINVAL) and the valid one is created.  FreeBSD kern_kevent_fp,
 * filt_timervalidate.
 */
#include "t.h"

int main(void)
{
	int kq = t_kqueue();
	struct kevent ch[2], ev[4];
	struct timespec z = { 0, 0 };
	int ud, ud2;

	EV_SET(&ch[0], 3, EVFILT_TIMER, EV_ADD | EV_RECEIPT, 0, -1, &ud);
	memset(ev, 0xa5, sizeof ev);
	T_EQ(kevent(kq, ch, 1, ev, 4, &z), 1);
	T_KEVENT(&ev[0], 3, EVFILT_TIMER, EV_ERROR, 0, EINVAL, &ud);
	T_EQ(t_change_err(kq, 3, EVFILT_TIMER, EV_DELETE, 0, 0, NULL), ENOENT);

	EV_SET(&ch[0], 4, EVFILT_TIMER, EV_ADD | EV_RECEIPT,
	       NOTE_SECONDS | NOTE_MSECONDS, 5, &ud);
	memset(ev, 0xa5, sizeof ev);
	T_EQ(kevent(kq, ch, 1, ev, 4, &z), 1);
	T_KEVENT(&ev[0], 4, EVFILT_TIMER, EV_ERROR, 0, EINVAL, &ud);
	T_EQ(t_change_err(kq, 4, EVFILT_TIMER, EV_DELETE, 0, 0, NULL), ENOENT);

	EV_SET(&ch[0], 5, EVFILT_TIMER, EV_ADD | EV_RECEIPT, 0, 60000, &ud);
	EV_SET(&ch[1], 6, EVFILT_TIMER, EV_ADD | EV_RECEIPT, 0, -1, &ud2);
	memset(ev, 0xa5, sizeof ev);
	T_EQ(kevent(kq, ch, 2, ev, 4, &z), 2);
	T_KEVENT(&ev[0], 5, EVFILT_TIMER, EV_ERROR, 0, 0, &ud);
	T_KEVENT(&ev[1], 6, EVFILT_TIMER, EV_ERROR, 0, EINVAL, &ud2);
	T_NO_EVENTS(kq);
	t_change(kq, 5, EVFILT_TIMER, EV_DELETE, 0, 0, NULL);
	T_EQ(t_change_err(kq, 6, EVFILT_TIMER, EV_DELETE, 0, 0, NULL), ENOENT);
	close(kq);
	return 0;
}
