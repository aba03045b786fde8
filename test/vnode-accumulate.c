/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * Without EV_CLEAR, notes OR together and stay: an in-place write
 * (NOTE_WRITE) and an fchmod (NOTE_ATTRIB) before the first collection give
 * one record {fd, VNODE, 0, NOTE_WRITE|NOTE_ATTRIB, 0, udata}; the knote
 * is level-triggered and its fflags are never reset, so the next
 * collection returns the same record again (FreeBSD filt_vfsvnode answers
 * "fflags != 0"); an append then adds NOTE_EXTEND to the same fflags.
 */
#include "t_vnode.h"

int main(void)
{
	int kq = t_kqueue();
	char path[128];
	void *ud = (void *)0x118;
	int fd = vt_file(path, sizeof path);

	T_EQ(pwrite(fd, "0123456789", 10, 0), 10);
	t_change(kq, fd, EVFILT_VNODE, EV_ADD,
		 NOTE_WRITE | NOTE_EXTEND | NOTE_ATTRIB, 0, ud);
	T_NO_EVENTS(kq);

	T_EQ(pwrite(fd, "abc", 3, 0), 3);
	T_EQ(pwrite(fd, "def", 3, 5), 3);
	T_ASSERT(fchmod(fd, 0640) == 0);
	WANT1(kq, fd, 0, NOTE_WRITE | NOTE_ATTRIB, ud);
	WANT1(kq, fd, 0, NOTE_WRITE | NOTE_ATTRIB, ud);

	T_EQ(pwrite(fd, "xyz", 3, 10), 3);
	WANT1(kq, fd, 0, NOTE_WRITE | NOTE_ATTRIB | NOTE_EXTEND, ud);
	WANT1(kq, fd, 0, NOTE_WRITE | NOTE_ATTRIB | NOTE_EXTEND, ud);
	return 0;
}
