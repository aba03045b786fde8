/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * A FIFO opened for writing (a reader holds it open, so the open does not
 * block) is watched for NOTE_DELETE; unlink() of the FIFO's name is reported
 * as {wfd, VNODE, 0, NOTE_DELETE, 0, udata} (FreeBSD
 * tests/sys/kqueue/libkqueue/vnode.c note_delete_fifo).  The FIFO itself
 * keeps working for its open ends.
 */
#include "t_vnode.h"

int main(void)
{
	int kq = t_kqueue();
	const char *dir = vt_mkdir();
	char path[128], c;
	void *ud = (void *)0x109;

	snprintf(path, sizeof path, "%s/fifo", dir);
	T_ASSERT(mkfifo(path, 0600) == 0);
	int rfd = open(path, O_RDONLY | O_NONBLOCK);
	T_ASSERT(rfd >= 0);
	int wfd = open(path, O_WRONLY);
	T_ASSERT(wfd >= 0);

	t_change(kq, wfd, EVFILT_VNODE, EV_ADD, NOTE_DELETE, 0, ud);
	T_NO_EVENTS(kq);

	T_ASSERT(unlink(path) == 0);
	WANT1(kq, wfd, 0, NOTE_DELETE, ud);

	t_write(wfd, "z", 1);
	T_EQ(read(rfd, &c, 1), 1);
	T_EQ(c, 'z');
	return 0;
}
