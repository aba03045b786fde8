/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * [ADD a, DELETE absent b, ADD c] with nevents 0: kevent() returns
 * -1/ENOENT; the ADD before the failing change stays applied, the ADD after
 * it is not processed (FreeBSD kqueue_kevent returns at the first
 * error when no record slot is left).
 */
#include "t.h"

int main(void)
{
	int kq = t_kqueue();
	int a[2], b[2], c[2];
	int ua, ub, uc;
	struct kevent ch[3];

	t_pipe(a);
	t_pipe(b);
	t_pipe(c);
	EV_SET(&ch[0], a[0], EVFILT_READ, EV_ADD, 0, 0, &ua);
	EV_SET(&ch[1], b[0], EVFILT_READ, EV_DELETE, 0, 0, &ub);
	EV_SET(&ch[2], c[0], EVFILT_READ, EV_ADD, 0, 0, &uc);
	T_ERRNO(kevent(kq, ch, 3, NULL, 0, NULL), ENOENT);

	t_write(a[1], "x", 1);
	t_write(c[1], "x", 1);
	T_GET1(kq, a[0], EVFILT_READ, 0, 0, 1, &ua);
	T_EQ(t_change_err(kq, c[0], EVFILT_READ, EV_DELETE, 0, 0, NULL),
	     ENOENT);
	t_change(kq, a[0], EVFILT_READ, EV_DELETE, 0, 0, NULL);
	return 0;
}
