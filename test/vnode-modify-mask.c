/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * Every change that reaches an existing VNODE knote
 * replaces its watch mask (and udata) with the change's fflags.  A knote
 * created with EV_CLEAR and NOTE_WRITE, re-added with NOTE_ATTRIB, no
 * longer reports a write; it reports an fchmod as {fd, VNODE, EV_CLEAR,
 * NOTE_ATTRIB, 0, new udata} (EV_CLEAR from the creation stays).  An
 * EV_DISABLE and an EV_ENABLE carrying fflags 0 leave a mask of 0: neither
 * a write nor an fchmod is reported.  Re-adding with NOTE_WRITE makes
 * writes visible again.
 */
#include "t_vnode.h"

int main(void)
{
	int kq = t_kqueue();
	char path[128];
	void *ud1 = (void *)0x1251, *ud2 = (void *)0x1252;
	int fd = vt_file(path, sizeof path);

	t_write(fd, "0123456789", 10);
	t_change(kq, fd, EVFILT_VNODE, EV_ADD | EV_CLEAR, NOTE_WRITE, 0, ud1);
	t_change(kq, fd, EVFILT_VNODE, EV_ADD, NOTE_ATTRIB, 0, ud2);
	T_NO_EVENTS(kq);

	T_EQ(pwrite(fd, "ab", 2, 0), 2);
	T_NO_EVENTS(kq);
	T_ASSERT(fchmod(fd, 0640) == 0);
	WANT1(kq, fd, EV_CLEAR, NOTE_ATTRIB, ud2);
	T_NO_EVENTS(kq);

	t_change(kq, fd, EVFILT_VNODE, EV_DISABLE, 0, 0, ud2);
	t_change(kq, fd, EVFILT_VNODE, EV_ENABLE, 0, 0, ud2);
	T_EQ(pwrite(fd, "cd", 2, 0), 2);
	T_ASSERT(fchmod(fd, 0600) == 0);
	T_NO_EVENTS(kq);

	t_change(kq, fd, EVFILT_VNODE, EV_ADD, NOTE_WRITE, 0, ud1);
	T_EQ(pwrite(fd, "ef", 2, 0), 2);
	WANT1(kq, fd, EV_CLEAR, NOTE_WRITE, ud1);
	T_NO_EVENTS(kq);
	return 0;
}
