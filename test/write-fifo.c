/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * WRITE on a FIFO opened O_RDWR fires: {fd, WRITE, 0, 0,
 * free space >= PIPE_BUF, udata}.
 */
#include "t.h"

#include <limits.h>

int main(void)
{
	int kq = t_kqueue(), fd;
	const char *path;
	struct kevent ev[8];
	void *ud = (void *)0x610;

	path = t_tmp_fifo();

	fd = open(path, O_RDWR | O_NONBLOCK);
	T_ASSERT(fd >= 0);
	t_change(kq, fd, EVFILT_WRITE, EV_ADD, 0, 0, ud);
	T_EQ(t_wait(kq, ev, 8, 2000), 1);
	T_KEVENT_MIN(&ev[0], fd, EVFILT_WRITE, 0, 0, PIPE_BUF, ud);
	return 0;
}
