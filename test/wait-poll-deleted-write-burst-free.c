/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * A proxy's pattern: many backend connections made in one round of its
 * loop, each with an EV_ONESHOT WRITE knote for the connect's completion,
 * and in the next call's changelist a READ knote on each for the reply.
 * Each fired WRITE knote's entry parks (the socket stays writable), and
 * one that would report at once is noted for removal before the next
 * sleep; the READ knote added in the next call then finds the entry in
 * place (a MOD).  Notes are bounded: more knotes than fit, in one round,
 * must still park as they did before notes existed, not each pay an
 * EPOLL_CTL_DEL at once (and its READ knote an ADD): the proxy benchmark
 * made 0.58 epoll_ctl per request more that way.  Counted with
 * t_epoll_waits.h: no DEL at all.
 */
#include "t_epoll_waits.h"

#define BURST 100   /* more than libkq notes */

int main(void)
{
	int kq = t_kqueue();
	int fds[BURST], peers[BURST];
	for (int i = 0; i < BURST; i++) {
		int sp[2];
		T_ASSERT(socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sp) == 0);
		fds[i] = sp[0];
		peers[i] = sp[1];
	}
	t_epoll_waits_trap();
	struct kevent ch[BURST], ev[BURST];
	for (int i = 0; i < BURST; i++)
		EV_SET(&ch[i], fds[i], EVFILT_WRITE, EV_ADD | EV_ONESHOT, 0, 0, (void *)0x77);
	T_EQ(kevent(kq, ch, BURST, NULL, 0, NULL), 0);
	struct timespec zero = { 0, 0 };
	T_EQ(kevent(kq, NULL, 0, ev, BURST, &zero), BURST);
	for (int i = 0; i < BURST; i++) {
		T_EQ(ev[i].filter, EVFILT_WRITE);
		T_EQ(ev[i].flags, EV_ONESHOT);
		T_ASSERT(ev[i].data > 0);
		T_ASSERT(ev[i].udata == (void *)0x77);
	}
	for (int i = 0; i < BURST; i++)
		EV_SET(&ch[i], fds[i], EVFILT_READ, EV_ADD, 0, 0, (void *)0x78);
	T_EQ(kevent(kq, ch, BURST, ev, BURST, &zero), 0);
	if (t_epoll_waits_dels != 0)
		T_FAIL("%d fired EV_ONESHOT WRITE knotes, then READ knotes: %d EPOLL_CTL_DELs, "
		       "expected none", BURST, (int)t_epoll_waits_dels);
	/* the READ knotes work */
	T_ASSERT(write(peers[BURST - 1], "x", 1) == 1);
	T_GET1(kq, fds[BURST - 1], EVFILT_READ, 0, 0, 1, (void *)0x78);
	for (int i = 0; i < BURST; i++) {
		T_ASSERT(close(fds[i]) == 0);
		T_ASSERT(close(peers[i]) == 0);
	}
	T_NO_EVENTS(kq);
	return 0;
}
