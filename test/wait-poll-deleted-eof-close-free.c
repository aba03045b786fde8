/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * A program that only ever polls (zero timeouts) never sleeps, so the
 * entries libkq notes for removal before a sleep (a deleted knote's parked
 * entry at end of file) are removed by their own reports at its polls
 * instead.  Those notes must not fill up and cost later deletes: after
 * many connections finished that way, a READ knote deleted after its
 * EV_EOF record and its private socket closed at once still make no
 * EPOLL_CTL_DEL (the close frees the file, and the kernel drops the
 * entry), as the first ones did.  Counted with t_epoll_waits.h.
 */
#include "t_epoll_waits.h"

#define ROUNDS 40

/* A private connection at end of file, its READ knote's EV_EOF record
 * taken by a poll and the knote deleted. */
static int finished(int kq)
{
	int sp[2];
	T_ASSERT(socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sp) == 0);
	T_ASSERT(close(sp[1]) == 0);
	t_change(kq, sp[0], EVFILT_READ, EV_ADD, 0, 0, (void *)0x5151);
	T_GET1(kq, sp[0], EVFILT_READ, EV_EOF, 0, 0, (void *)0x5151);
	t_change(kq, sp[0], EVFILT_READ, EV_DELETE, 0, 0, NULL);
	return sp[0];
}

int main(void)
{
	int kq = t_kqueue();
	int kept[ROUNDS];
	for (int i = 0; i < ROUNDS; i++) {
		kept[i] = finished(kq);
		T_NO_EVENTS(kq);
	}
	t_epoll_waits_trap();
	int fd = finished(kq);
	T_ASSERT(close(fd) == 0);
	if (t_epoll_waits_dels != 0)
		T_FAIL("delete and close after %d polled ones: %d EPOLL_CTL_DELs, expected none",
		       ROUNDS, (int)t_epoll_waits_dels);
	T_NO_EVENTS(kq);
	for (int i = 0; i < ROUNDS; i++)
		T_ASSERT(close(kept[i]) == 0);
	T_NO_EVENTS(kq);
	return 0;
}
