/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * A ONESHOT knote asking only NOTE_WRITE, on a file to which another
 * descriptor appends "hello\n", reports {fd, VNODE, EV_ONESHOT,
 * NOTE_WRITE|NOTE_EXTEND, 0, udata}: FreeBSD posts a write that grows the
 * file as the single hint NOTE_WRITE|NOTE_EXTEND (sys/vnode.h
 * VOP_WRITE_POST) and ORs the whole hint in once a requested bit is in it
 * (FreeBSD tests/sys/kqueue/libkqueue/vnode.c: "BSD kqueue adds NOTE_EXTEND
 * even though it was not requested").  EV_ADD is not returned.  The one-shot
 * knote is gone after its record: a second append is not reported, EV_DELETE
 * fails with ENOENT.
 */
#include "t_vnode.h"

int main(void)
{
	int kq = t_kqueue();
	char path[128];
	void *ud = (void *)0x102;
	int fd = vt_file(path, sizeof path);
	int w = open(path, O_WRONLY | O_APPEND);

	T_ASSERT(w >= 0);
	t_change(kq, fd, EVFILT_VNODE, EV_ADD | EV_ONESHOT, NOTE_WRITE, 0, ud);
	T_NO_EVENTS(kq);

	t_write(w, "hello\n", 6);
	WANT1(kq, fd, EV_ONESHOT, NOTE_WRITE | NOTE_EXTEND, ud);
	T_NO_EVENTS(kq);

	t_write(w, "hello\n", 6);
	T_NO_EVENTS(kq);
	T_EQ(t_change_err(kq, fd, EVFILT_VNODE, EV_DELETE, 0, 0, NULL),
	     ENOENT);
	return 0;
}
