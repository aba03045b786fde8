/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * F24: a READ knote on the write end of a pipe (no read permission) is
 * accepted but never fires (FreeBSD pipe_nfiltops): not when data is written
 * into the pipe, and not when the read end is closed either.
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

	T_ASSERT(close(p[0]) == 0);
	T_NO_EVENTS(kq);
	return 0;
}
