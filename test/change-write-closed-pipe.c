/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * EV_ADD of EVFILT_WRITE on a pipe's write end whose read end is already
 * closed fails with EPIPE and creates no knote.  Taken from FreeBSD's
 * source: pipe_kqfilter (NetBSD returns EBADF).
 */
#include "t.h"

int main(void)
{
	int kq = t_kqueue();
	int p[2];
	int ud;

	t_pipe(p);
	close(p[0]);

	t_change_fails(kq, p[1], EVFILT_WRITE, EV_ADD, &ud, EPIPE);

	T_NO_EVENTS(kq);
	T_EQ(t_change_err(kq, p[1], EVFILT_WRITE, EV_DELETE, 0, 0, NULL),
	     ENOENT);
	return 0;
}
