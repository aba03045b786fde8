/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * A knote asking NOTE_WRITE | NOTE_EXTEND | NOTE_ATTRIB tells a truncation
 * from a write, as FreeBSD does: the truncation posts NOTE_ATTRIB (the
 * setattr hook), plus NOTE_EXTEND when the file grows, and no NOTE_WRITE;
 * a write() posts NOTE_WRITE, plus NOTE_EXTEND when it grows the file.
 *   ftruncate() shorter        {fd, VNODE, EV_CLEAR, NOTE_ATTRIB}
 *   ftruncate() to 1 MiB       ... NOTE_ATTRIB | NOTE_EXTEND
 *   pwrite() inside the file   ... NOTE_WRITE
 *   write() at the end         ... NOTE_WRITE | NOTE_EXTEND
 * (The growth is far past the allocated blocks: how libkq tells it from a
 * write is in docs/differences.md.)
 */
#include "t_vnode.h"

int main(void)
{
	int kq = t_kqueue();
	const char *dir = vt_mkdir();
	char path[128];
	void *ud = (void *)0x5321;
	int fd = vt_create(path, sizeof path, dir, "file");

	t_write(fd, "0123456789", 10);
	t_change(kq, fd, EVFILT_VNODE, EV_ADD | EV_CLEAR,
		 NOTE_WRITE | NOTE_EXTEND | NOTE_ATTRIB, 0, ud);
	T_NO_EVENTS(kq);

	T_ASSERT(ftruncate(fd, 4) == 0);
	WANT1_ONLY(kq, fd, NOTE_ATTRIB, ud);

	T_ASSERT(ftruncate(fd, 1 << 20) == 0);
	WANT1_ONLY(kq, fd, NOTE_ATTRIB | NOTE_EXTEND, ud);

	T_ASSERT(pwrite(fd, "ab", 2, 100) == 2);
	WANT1_ONLY(kq, fd, NOTE_WRITE, ud);

	T_ASSERT(lseek(fd, 0, SEEK_END) == 1 << 20);
	t_write(fd, "cd", 2);
	WANT1_ONLY(kq, fd, NOTE_WRITE | NOTE_EXTEND, ud);
	return 0;
}
