/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * A FIFO opened O_RDWR; after writing "foo" READ on it reports data 3.
 */
#include "t.h"

int main(void)
{
	int kq = t_kqueue(), fd;
	const char *path;
	void *ud = (void *)0x15;

	path = t_tmp_fifo();

	fd = open(path, O_RDWR | O_NONBLOCK);
	T_ASSERT(fd >= 0);
	t_change(kq, fd, EVFILT_READ, EV_ADD, 0, 0, ud);
	T_NO_EVENTS(kq);

	t_write(fd, "foo", 3);
	T_WAIT1(kq, 2000, fd, EVFILT_READ, 0, 0, 3, ud);
	return 0;
}
