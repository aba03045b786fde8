/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * [DELETE absent a (ENOENT), ADD on a closed fd (EBADF), ADD c] with
 * nevents 1: the first error fills ev[0]; the second finds no room, so
 * kevent() returns -1/EBADF, ev[0] still holds the ENOENT record, and the
 * third change is not processed.
 */
#include "t.h"

int main(void)
{
	int kq = t_kqueue();
	int a[2], dead[2], c[2];
	int ua, ub, uc;
	struct kevent ch[3], ev[1];
	struct timespec z = { 0, 0 };

	t_pipe(a);
	t_pipe(dead);
	t_pipe(c);
	int closed = dead[0];
	close(dead[0]);
	close(dead[1]);

	EV_SET(&ch[0], a[0], EVFILT_READ, EV_DELETE, 0, 0, &ua);
	EV_SET(&ch[1], closed, EVFILT_READ, EV_ADD, 0, 0, &ub);
	EV_SET(&ch[2], c[0], EVFILT_READ, EV_ADD, 0, 0, &uc);
	memset(ev, 0xa5, sizeof ev);
	T_ERRNO(kevent(kq, ch, 3, ev, 1, &z), EBADF);
	T_KEVENT(&ev[0], a[0], EVFILT_READ, EV_ERROR, 0, ENOENT, &ua);

	t_write(c[1], "x", 1);
	T_NO_EVENTS(kq);
	T_EQ(t_change_err(kq, c[0], EVFILT_READ, EV_DELETE, 0, 0, NULL),
	     ENOENT);
	return 0;
}
