/*
 * D11: ADD|EV_RECEIPT of an invalid timer (data -1) yields one record with
 * flags exactly EV_ERROR and data EINVAL, ident/filter/udata echoed, and no
 * knote.  An invalid-fflags timer's error record echoes fflags as given
 * (SPEC 3.4: only a *successful* create zeroes fflags/data in the echo;
 * note that FreeBSD's kqueue_register zeroes kev->fflags before f_attach
 * validates, so FreeBSD itself may return 0 here).  In a changelist
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
	T_KEVENT(&ev[0], 4, EVFILT_TIMER, EV_ERROR,
		 NOTE_SECONDS | NOTE_MSECONDS, EINVAL, &ud);
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
