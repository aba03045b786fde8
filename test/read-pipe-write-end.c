/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * A READ knote on the write end of a pipe is accepted and does not fire for
 * data written into the pipe: that data is for the read end.  (When the
 * read end is closed it reports EV_EOF: read-pipe-write-end-eof.)
 */
#include "t.h"

int main(void)
{
	int kq = t_kqueue(), p[2];
	void *ud = (void *)0x24;

	t_pipe(p);
	t_change(kq, p[1], EVFILT_READ, EV_ADD, 0, 0, ud);
	T_NO_EVENTS(kq);

	t_write(p[1], "abc", 3);
	T_NO_EVENTS(kq);
	return 0;
}
