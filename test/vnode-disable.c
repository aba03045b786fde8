/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * A VNODE knote (NOTE_ATTRIB, no EV_CLEAR) that is disabled reports
 * nothing when the file is touched; enabled again and touched, it reports
 * {fd, VNODE, 0, NOTE_ATTRIB, 0, udata} (FreeBSD
 * tests/sys/kqueue/libkqueue/vnode.c disable_and_enable).  The EV_DISABLE and
 * EV_ENABLE changes carry the mask again, as FreeBSD's test does: every
 * change that reaches a knote replaces its watch mask with the change's
 * fflags.  Also, a disabled knote keeps accumulating: an EV_CLEAR knote
 * asking for NOTE_ATTRIB|NOTE_WRITE in a second kqueue, disabled while the
 * file is chmod-ed and overwritten in place, reports
 * {fd, VNODE, EV_CLEAR, NOTE_ATTRIB|NOTE_WRITE, 0, udata} as soon as it is
 * enabled, with no further change to the file, and then nothing.
 */
#include "t_vnode.h"

int main(void)
{
	int kq = t_kqueue(), kq2 = t_kqueue();
	char path[128];
	void *ud = (void *)0x123, *ud2 = (void *)0x1232;
	int fd = vt_file(path, sizeof path);

	t_write(fd, "0123456789", 10);

	/* Disable, touch, enable, touch. */
	t_change(kq, fd, EVFILT_VNODE, EV_ADD, NOTE_ATTRIB, 0, ud);
	t_change(kq, fd, EVFILT_VNODE, EV_DISABLE, NOTE_ATTRIB, 0, ud);
	vt_touch(fd, 1000000000);
	T_NO_EVENTS(kq);
	t_change(kq, fd, EVFILT_VNODE, EV_ENABLE, NOTE_ATTRIB, 0, ud);
	vt_touch(fd, 1000000100);
	WANT1(kq, fd, 0, NOTE_ATTRIB, ud);

	/* Accumulation while disabled. */
	t_change(kq2, fd, EVFILT_VNODE, EV_ADD | EV_CLEAR,
		 NOTE_ATTRIB | NOTE_WRITE, 0, ud2);
	T_NO_EVENTS(kq2);
	t_change(kq2, fd, EVFILT_VNODE, EV_DISABLE,
		 NOTE_ATTRIB | NOTE_WRITE, 0, ud2);
	T_ASSERT(fchmod(fd, 0640) == 0);
	T_EQ(pwrite(fd, "ab", 2, 0), 2);
	T_NO_EVENTS(kq2);
	t_change(kq2, fd, EVFILT_VNODE, EV_ENABLE,
		 NOTE_ATTRIB | NOTE_WRITE, 0, ud2);
	WANT1(kq2, fd, EV_CLEAR, NOTE_ATTRIB | NOTE_WRITE, ud2);
	T_NO_EVENTS(kq2);
	return 0;
}
