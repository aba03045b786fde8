/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * EV_ADD together with EV_KEEPUDATA fails with EINVAL: on an absent
 * knote nothing is created, on an existing one nothing changes (udata kept).
 * The check comes before the ident check, so a closed fd number also gives
 * EINVAL rather than EBADF (EV_KEEPUDATA is a FreeBSD >= 12 flag).
 */
#include "t.h"

int main(void)
{
	int kq = t_kqueue();
	int a[2], b[2], c[2];
	int ua, other;

	t_pipe(a);
	t_pipe(b);
	t_pipe(c);
	t_write(a[1], "x", 1);
	t_write(b[1], "x", 1);

	/* Absent knote: not created. */
	t_change_fails(kq, b[0], EVFILT_READ, EV_ADD | EV_KEEPUDATA, &other,
		       EINVAL);
	T_NO_EVENTS(kq);
	T_EQ(t_change_err(kq, b[0], EVFILT_READ, EV_DELETE, 0, 0, NULL),
	     ENOENT);

	/* Existing knote: udata unchanged. */
	t_change(kq, a[0], EVFILT_READ, EV_ADD, 0, 0, &ua);
	t_change_fails(kq, a[0], EVFILT_READ, EV_ADD | EV_KEEPUDATA, &other,
		       EINVAL);
	T_GET1(kq, a[0], EVFILT_READ, 0, 0, 1, &ua);

	/* Checked before the fd: closed number -> EINVAL, not EBADF. */
	int closed = c[0];
	close(c[0]);
	close(c[1]);
	t_change_fails(kq, closed, EVFILT_READ, EV_ADD | EV_KEEPUDATA,
		       &other, EINVAL);
	return 0;
}
