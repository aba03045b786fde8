/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * READ on a FIFO's read end.  When the last writer closes, the
 * knote fires with EV_EOF (data 0).  When a new writer opens, FreeBSD clears
 * the EOF again (FreeBSD kqueue(2), 2020 text): with no data nothing is
 * reported, and data written by the new writer is reported without EV_EOF.
 */
#include "t.h"

int main(void)
{
	int kq = t_kqueue(), r, w;
	const char *path;
	void *ud = (void *)0x16;

	path = t_tmp_fifo();

	r = open(path, O_RDONLY | O_NONBLOCK);
	T_ASSERT(r >= 0);
	w = open(path, O_WRONLY | O_NONBLOCK);
	T_ASSERT(w >= 0);

	t_change(kq, r, EVFILT_READ, EV_ADD, 0, 0, ud);
	T_NO_EVENTS(kq);

	/* The last writer leaves. */
	T_ASSERT(close(w) == 0);
	T_WAIT1(kq, 2000, r, EVFILT_READ, EV_EOF, 0, 0, ud);

	/* A new writer connects: EOF is cleared, nothing to report. */
	w = open(path, O_WRONLY | O_NONBLOCK);
	T_ASSERT(w >= 0);
	T_NO_EVENTS(kq);

	/* Data from the new writer is reported without EV_EOF. */
	t_write(w, "ab", 2);
	T_WAIT1(kq, 2000, r, EVFILT_READ, 0, 0, 2, ud);
	return 0;
}
