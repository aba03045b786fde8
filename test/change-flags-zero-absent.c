/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * A change without EV_ADD on an absent knote of an open fd fails with
 * ENOENT: flags 0, EV_ENABLE, EV_DISABLE and EV_KEEPUDATA alone; nothing is
 * created.  Checked as an EV_ERROR record and as -1/errno.
 */
#include "t.h"

int main(void)
{
	int kq = t_kqueue();
	int p[2];
	int ud;

	t_pipe(p);
	t_write(p[1], "x", 1);
	t_change_fails(kq, p[0], EVFILT_READ, 0, &ud, ENOENT);
	t_change_fails(kq, p[0], EVFILT_READ, EV_ENABLE, &ud, ENOENT);
	t_change_fails(kq, p[0], EVFILT_READ, EV_DISABLE, &ud, ENOENT);
	t_change_fails(kq, p[0], EVFILT_READ, EV_KEEPUDATA, &ud, ENOENT);
	t_change_fails(kq, p[1], EVFILT_WRITE, 0, &ud, ENOENT);
	T_NO_EVENTS(kq);
	return 0;
}
