/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * An EV_DISPATCH knote (NOTE_ATTRIB) reports a touch once, {fd, VNODE,
 * EV_DISPATCH, NOTE_ATTRIB, 0, udata}, and is then disabled: a second touch
 * is not reported (FreeBSD tests/sys/kqueue/libkqueue/vnode.c dispatch).
 * EV_ENABLE (with the mask, which every change replaces) re-arms it: the
 * next touch is reported once more, then it is disabled again.  EV_DELETE of
 * the disabled knote succeeds.
 */
#include "t_vnode.h"

int main(void)
{
	int kq = t_kqueue();
	char path[128];
	void *ud = (void *)0x124;
	int fd = vt_file(path, sizeof path);

	t_change(kq, fd, EVFILT_VNODE, EV_ADD | EV_DISPATCH, NOTE_ATTRIB, 0, ud);
	T_NO_EVENTS(kq);

	vt_touch(fd, 1000000000);
	WANT1(kq, fd, EV_DISPATCH, NOTE_ATTRIB, ud);
	T_NO_EVENTS(kq);

	vt_touch(fd, 1000000100);
	T_NO_EVENTS(kq);

	t_change(kq, fd, EVFILT_VNODE, EV_ENABLE | EV_DISPATCH, NOTE_ATTRIB, 0,
		 ud);
	vt_touch(fd, 1000000200);
	WANT1(kq, fd, EV_DISPATCH, NOTE_ATTRIB, ud);
	T_NO_EVENTS(kq);

	vt_touch(fd, 1000000300);
	T_NO_EVENTS(kq);
	t_change(kq, fd, EVFILT_VNODE, EV_DELETE, 0, 0, NULL);
	T_NO_EVENTS(kq);
	return 0;
}
