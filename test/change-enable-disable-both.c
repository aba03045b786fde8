/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * EV_ENABLE and EV_DISABLE in one change fail with EINVAL, both on an
 * existing knote (which stays as it was, udata included) and together with
 * EV_ADD on an absent one (which is not created).
 */
#include "t.h"

int main(void)
{
	int kq = t_kqueue();
	int a[2], b[2];
	int ua, other;

	t_pipe(a);
	t_pipe(b);
	t_write(a[1], "x", 1);
	t_write(b[1], "x", 1);

	/* Existing, enabled knote: stays enabled with its udata. */
	t_change(kq, a[0], EVFILT_READ, EV_ADD, 0, 0, &ua);
	t_change_fails(kq, a[0], EVFILT_READ, EV_ENABLE | EV_DISABLE, &other,
		       EINVAL);
	T_GET1(kq, a[0], EVFILT_READ, 0, 0, 1, &ua);

	/* Existing, disabled knote: stays disabled. */
	t_change(kq, a[0], EVFILT_READ, EV_DISABLE, 0, 0, &ua);
	t_change_fails(kq, a[0], EVFILT_READ, EV_ENABLE | EV_DISABLE, &other,
		       EINVAL);
	T_NO_EVENTS(kq);
	t_change(kq, a[0], EVFILT_READ, EV_ENABLE, 0, 0, &ua);
	T_GET1(kq, a[0], EVFILT_READ, 0, 0, 1, &ua);
	t_change(kq, a[0], EVFILT_READ, EV_DELETE, 0, 0, NULL);

	/* With EV_ADD on an absent knote: nothing is created. */
	t_change_fails(kq, b[0], EVFILT_READ, EV_ADD | EV_ENABLE | EV_DISABLE,
		       &other, EINVAL);
	T_NO_EVENTS(kq);
	T_EQ(t_change_err(kq, b[0], EVFILT_READ, EV_DELETE, 0, 0, NULL),
	     ENOENT);
	return 0;
}
