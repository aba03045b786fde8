/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * NOTE_OPEN, NOTE_READ, NOTE_CLOSE, NOTE_CLOSE_WRITE (FreeBSD >= 11,
 * vfs_subr.c vop_open_post, vop_read_post, vop_close_post).  With an
 * EV_CLEAR knote asking for all four on a file with content, collected
 * after each step: open(O_RDONLY) -> NOTE_OPEN; read() of 4 bytes ->
 * NOTE_READ; close() of that read-only descriptor -> NOTE_CLOSE;
 * open(O_RDWR) -> NOTE_OPEN; its close() -> NOTE_CLOSE_WRITE (a descriptor
 * with write access, even if nothing was written).  The same two sequences
 * without collections in between give one record each:
 * NOTE_OPEN|NOTE_READ|NOTE_CLOSE, then NOTE_OPEN|NOTE_CLOSE_WRITE.  The
 * watched descriptor itself (opened before the knote) stays open.
 */
#include "t_vnode.h"

#define MASK (NOTE_OPEN | NOTE_READ | NOTE_CLOSE | NOTE_CLOSE_WRITE)

int main(void)
{
	int kq = t_kqueue();
	const char *dir = vt_mkdir();
	char path[128], buf[4];
	void *ud = (void *)0x120;
	int w = vt_create(path, sizeof path, dir, "file");

	t_write(w, "0123456789", 10);
	T_ASSERT(close(w) == 0);
	int fd = open(path, O_RDONLY);
	T_ASSERT(fd >= 0);

	t_change(kq, fd, EVFILT_VNODE, EV_ADD | EV_CLEAR, MASK, 0, ud);
	T_NO_EVENTS(kq);

	/* Step by step. */
	int r = open(path, O_RDONLY);
	T_ASSERT(r >= 0);
	WANT1(kq, fd, EV_CLEAR, NOTE_OPEN, ud);
	T_NO_EVENTS(kq);
	T_EQ(read(r, buf, 4), 4);
	WANT1(kq, fd, EV_CLEAR, NOTE_READ, ud);
	T_NO_EVENTS(kq);
	T_ASSERT(close(r) == 0);
	WANT1(kq, fd, EV_CLEAR, NOTE_CLOSE, ud);
	T_NO_EVENTS(kq);

	int rw = open(path, O_RDWR);
	T_ASSERT(rw >= 0);
	WANT1(kq, fd, EV_CLEAR, NOTE_OPEN, ud);
	T_NO_EVENTS(kq);
	T_ASSERT(close(rw) == 0);
	WANT1(kq, fd, EV_CLEAR, NOTE_CLOSE_WRITE, ud);
	T_NO_EVENTS(kq);

	/* The same, coalesced. */
	r = open(path, O_RDONLY);
	T_ASSERT(r >= 0);
	T_EQ(read(r, buf, 4), 4);
	T_ASSERT(close(r) == 0);
	WANT1(kq, fd, EV_CLEAR, NOTE_OPEN | NOTE_READ | NOTE_CLOSE, ud);
	T_NO_EVENTS(kq);

	rw = open(path, O_RDWR);
	T_ASSERT(rw >= 0);
	T_ASSERT(close(rw) == 0);
	WANT1(kq, fd, EV_CLEAR, NOTE_OPEN | NOTE_CLOSE_WRITE, ud);
	T_NO_EVENTS(kq);
	return 0;
}
