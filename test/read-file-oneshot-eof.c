/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * EV_ONESHOT READ on a regular file whose offset is at end of file: FreeBSD
 * queues a knote only when its filter says it fired (size > offset), so
 * the add reports nothing; an append by another descriptor then gives one
 * record {fd, EVFILT_READ, EV_ONESHOT, 0, 4, udata}, and the knote is gone
 * (nothing after a second append; EV_DELETE: ENOENT).
 */
#include "t.h"

int main(void)
{
	int kq = t_kqueue();
	const char *path;
	void *ud = (void *)0x1e0;
	int fd = t_tmp_file(&path);
	int w = open(path, O_WRONLY | O_APPEND);
	T_ASSERT(w >= 0);
	t_write(fd, "0123456789", 10);

	t_change(kq, fd, EVFILT_READ, EV_ADD | EV_ONESHOT, 0, 0, ud);
	T_NO_EVENTS(kq);
	t_write(w, "abcd", 4);
	T_WAIT1(kq, 2000, fd, EVFILT_READ, EV_ONESHOT, 0, 4, ud);
	t_write(w, "e", 1);
	t_sleep_ms(20);
	T_NO_EVENTS(kq);
	T_EQ(t_change_err(kq, fd, EVFILT_READ, EV_DELETE, 0, 0, NULL), ENOENT);
	return 0;
}
