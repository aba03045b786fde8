/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * With EV_CLEAR a write is reported once: {fd, VNODE, EV_CLEAR,
 * NOTE_WRITE|NOTE_EXTEND, 0, udata}, then nothing.  The fflags were reset
 * at retrieval: a later in-place write is reported as NOTE_WRITE alone
 * (no NOTE_EXTEND left over), and two writes before one collection give
 * one record.
 */
#include "t_vnode.h"

int main(void)
{
	int kq = t_kqueue();
	char path[128];
	void *ud = (void *)0x119;
	int fd = vt_file(path, sizeof path);

	t_change(kq, fd, EVFILT_VNODE, EV_ADD | EV_CLEAR,
		 NOTE_WRITE | NOTE_EXTEND, 0, ud);
	T_NO_EVENTS(kq);

	t_write(fd, "hello", 5);
	WANT1(kq, fd, EV_CLEAR, NOTE_WRITE | NOTE_EXTEND, ud);
	T_NO_EVENTS(kq);

	T_EQ(pwrite(fd, "J", 1, 0), 1);
	WANT1(kq, fd, EV_CLEAR, NOTE_WRITE, ud);
	T_NO_EVENTS(kq);

	T_EQ(pwrite(fd, "E", 1, 1), 1);
	T_EQ(pwrite(fd, "L", 1, 2), 1);
	WANT1(kq, fd, EV_CLEAR, NOTE_WRITE, ud);
	T_NO_EVENTS(kq);
	return 0;
}
