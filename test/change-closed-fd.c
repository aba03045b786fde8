/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * A change naming an fd number that is not open fails with EBADF, for
 * EV_ADD on READ and WRITE as well as for EV_DELETE, EV_ENABLE and a bare
 * modify (the fd is looked up before the knote).
 */
#include "t.h"

int main(void)
{
	int kq = t_kqueue();
	int p[2];
	int ud;

	t_pipe(p);
	int fd = p[0];
	close(p[0]);
	close(p[1]);

	t_change_fails(kq, fd, EVFILT_READ, EV_ADD, &ud, EBADF);
	t_change_fails(kq, fd, EVFILT_WRITE, EV_ADD, &ud, EBADF);
	t_change_fails(kq, fd, EVFILT_READ, EV_DELETE, &ud, EBADF);
	t_change_fails(kq, fd, EVFILT_READ, EV_ENABLE, &ud, EBADF);
	t_change_fails(kq, fd, EVFILT_WRITE, 0, &ud, EBADF);
	T_NO_EVENTS(kq);
	return 0;
}
