/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * READ on a regular file whose offset is at end of file
 * does not fire (unlike poll(), which always reports files readable); when
 * another descriptor appends 4 bytes, the knote fires with data 4
 * (size - offset).  Linux cannot epoll regular files; the library has to
 * notice the growth by other means (inotify), hence the bounded wait.
 */
#include "t.h"

int main(void)
{
	int kq = t_kqueue(), fd, w;
	const char *path;
	void *ud = (void *)0x19;

	fd = t_tmp_file(&path);
	t_write(fd, "0123456789", 10);   /* offset now 10 = size */

	/* At end of file: nothing. */
	t_change(kq, fd, EVFILT_READ, EV_ADD, 0, 0, ud);
	T_NO_EVENTS(kq);

	/* Another descriptor appends 4 bytes: data 4. */
	w = open(path, O_WRONLY | O_APPEND);
	T_ASSERT(w >= 0);
	t_write(w, "abcd", 4);
	T_WAIT1(kq, 2000, fd, EVFILT_READ, 0, 0, 4, ud);
	return 0;
}
