/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * A failing change with no room for a record (nevents 0) makes
 * kevent() return -1 with errno = the change's error (ENOENT), with or
 * without an event list pointer, and an event list given with nevents 0 is
 * not written.
 */
#include "t.h"

int main(void)
{
	int kq = t_kqueue();
	int p[2];
	int ud;
	struct kevent ch, ev[1];
	struct timespec z = { 0, 0 };

	t_pipe(p);
	EV_SET(&ch, p[0], EVFILT_READ, EV_DELETE, 0, 0, &ud);
	T_ERRNO(kevent(kq, &ch, 1, NULL, 0, NULL), ENOENT);
	T_ERRNO(kevent(kq, &ch, 1, NULL, 0, &z), ENOENT);
	memset(ev, 0xa5, sizeof ev);
	T_ERRNO(kevent(kq, &ch, 1, ev, 0, NULL), ENOENT);
	T_ASSERT(t_untouched(&ev[0]));
	return 0;
}
