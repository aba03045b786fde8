/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * A READ knote deleted after its EV_EOF record leaves the descriptor's
 * epoll entry in the set (parked, so that a knote added again costs a MOD).
 * A level entry at end of file reports at every epoll_wait(), so the next
 * kevent() that waits must not find it there: that wait makes one
 * epoll_wait() and sleeps, where it used to return at once for the entry,
 * remove it and wait a second time.  A server whose thread removes a
 * finished connection and waits again (APR's pollset under Apache's event
 * MPM) paid that round once per connection.
 *
 * Both orders a server uses are checked, counting the epoll waits and the
 * EPOLL_CTL_DELs the process makes (t_epoll_waits.h):
 *   delete, then wait, then close: one epoll wait, one DEL;
 *   delete, then close, then wait: one epoll wait, no DEL (the close of
 *   a private socket frees its file and the kernel drops the entry).
 */
#include "t_epoll_waits.h"

/* A private connection at end of file, its READ knote's EV_EOF record
 * taken and the knote deleted; its peer is closed. */
static int finished(int kq)
{
	int sp[2];
	T_ASSERT(socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sp) == 0);
	t_change(kq, sp[0], EVFILT_READ, EV_ADD, 0, 0, (void *)0x5151);
	T_ASSERT(close(sp[1]) == 0);
	T_WAIT1(kq, 1000, sp[0], EVFILT_READ, EV_EOF, 0, 0, (void *)0x5151);
	t_change(kq, sp[0], EVFILT_READ, EV_DELETE, 0, 0, NULL);
	return sp[0];
}

int main(void)
{
	int kq = t_kqueue();
	t_epoll_waits_trap();

	int fd = finished(kq);
	t_epoll_waits_dels = 0;
	t_epoll_waits_quiet(kq, 50, 1, "delete, wait, close");
	T_ASSERT(close(fd) == 0);
	if (t_epoll_waits_dels != 1)
		T_FAIL("delete, wait, close: %d EPOLL_CTL_DELs, expected 1",
		       (int)t_epoll_waits_dels);

	fd = finished(kq);
	t_epoll_waits_dels = 0;
	T_ASSERT(close(fd) == 0);
	t_epoll_waits_quiet(kq, 50, 1, "delete, close, wait");
	if (t_epoll_waits_dels != 0)
		T_FAIL("delete, close, wait: %d EPOLL_CTL_DELs, expected none",
		       (int)t_epoll_waits_dels);
	T_NO_EVENTS(kq);
	return 0;
}
