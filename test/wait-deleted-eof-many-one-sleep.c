/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * Many READ knotes deleted at once after their EV_EOF records (a server
 * whose wait returned many finished connections), as many as libkq notes
 * for removal before the next sleep allow: the next kevent() that waits
 * still makes one epoll wait and sleeps, and each entry costs one
 * EPOLL_CTL_DEL in all, made before that sleep (counted as in
 * wait-deleted-eof-one-sleep, t_epoll_waits.h).  The closes afterwards
 * make no DEL (private sockets).
 */
#include "t_epoll_waits.h"

#define CONNS 40

int main(void)
{
	int kq = t_kqueue();
	int sp[CONNS][2];
	struct kevent ch[CONNS];
	for (int i = 0; i < CONNS; i++) {
		T_ASSERT(socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sp[i]) == 0);
		t_change(kq, sp[i][0], EVFILT_READ, EV_ADD, 0, 0, (void *)(intptr_t)(i + 1));
		T_ASSERT(close(sp[i][1]) == 0);
	}
	bool seen[CONNS] = { false };
	int got = 0;
	int64_t end = t_now_ns() + 5000000000LL;
	while (got < CONNS && t_now_ns() < end) {
		struct kevent ev[CONNS];
		int n = t_wait(kq, ev, CONNS, 1000);
		for (int k = 0; k < n; k++) {
			int i = (int)(intptr_t)ev[k].udata - 1;
			T_ASSERT(i >= 0 && i < CONNS && !seen[i]);
			T_KEVENT(&ev[k], sp[i][0], EVFILT_READ, EV_EOF, 0, 0, ev[k].udata);
			seen[i] = true;
			got++;
		}
	}
	T_EQ(got, CONNS);
	for (int i = 0; i < CONNS; i++)
		EV_SET(&ch[i], sp[i][0], EVFILT_READ, EV_DELETE, 0, 0, NULL);

	t_epoll_waits_trap();
	T_EQ(kevent(kq, ch, CONNS, NULL, 0, NULL), 0);
	t_epoll_waits_quiet(kq, 50, 1, "after the deletes");
	if (t_epoll_waits_dels != CONNS)
		T_FAIL("%d EPOLL_CTL_DELs for %d deleted knotes, expected one each",
		       (int)t_epoll_waits_dels, CONNS);
	for (int i = 0; i < CONNS; i++)
		T_ASSERT(close(sp[i][0]) == 0);
	if (t_epoll_waits_dels != CONNS)
		T_FAIL("the closes made %d EPOLL_CTL_DELs, expected none",
		       (int)t_epoll_waits_dels - CONNS);
	T_NO_EVENTS(kq);
	return 0;
}
