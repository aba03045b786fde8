/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * After a close that no interposition sees, kevent() neither reports the
 * closed file under its old number nor spins: a wait with nothing to report
 * sleeps.  Both when the file died with the close and when it lives on
 * elsewhere (a dup, a child's copy), where epoll keeps its entry, keyed by
 * a number the process no longer uses for it.
 */
#include "../t.h"
#include "foreign.h"

static void check(int keep_dup, unsigned short extra)
{
	int kq = t_kqueue(), s[2];

	t_socketpair(s);
	int fd = s[0];
	t_change(kq, fd, EVFILT_READ, EV_ADD | extra, 0, 0, (void *)1);
	t_write(s[1], "x", 1);
	int d = keep_dup ? dup(fd) : -1;
	T_ASSERT(foreign_raw_close(fd) == 0);

	t_wait_nothing_asleep(kq, 300);
	close(kq);
	close(s[1]);
	if (d >= 0)
		close(d);
}

int main(void)
{
	check(0, 0);
	check(0, EV_CLEAR);
	check(1, 0);
	check(1, EV_CLEAR);
	return 0;
}
