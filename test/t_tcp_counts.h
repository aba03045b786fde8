/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * Shared by the tests of batched socket counts: many TCP pairs, a WRITE
 * knote on each client (every send buffer a different fixed size, so a
 * count given to the wrong knote shows) and a READ knote on each server
 * socket, all in one kqueue, over three rounds.  Each WRITE record must
 * carry its own socket's send space (SO_SNDBUF less the bytes still
 * queued, SIOCOUTQ) and each READ record its own byte count.
 */
#ifndef T_TCP_COUNTS_H
#define T_TCP_COUNTS_H

#include "t.h"

#include <linux/sockios.h>
#include <stdbool.h>
#include <sys/ioctl.h>
#include <time.h>

enum { TC_N = 100 };

static int64_t tc_space_now(int fd)
{
	int buf = 0, queued = 0;
	socklen_t len = sizeof buf;
	T_EQ(getsockopt(fd, SOL_SOCKET, SO_SNDBUF, &buf, &len), 0);
	T_EQ(ioctl(fd, SIOCOUTQ, &queued), 0);
	return buf > queued ? buf - queued : 0;
}

/* Until the peer's kernel has acknowledged everything sent (loopback: at
 * once, but not synchronously), so the space stays put while checked. */
static void tc_settle(int fd)
{
	for (int i = 0; i < 5000; i++) {
		int queued = -1;
		T_EQ(ioctl(fd, SIOCOUTQ, &queued), 0);
		if (queued == 0)
			return;
		nanosleep(&(struct timespec){ 0, 1000000 }, NULL);
	}
	T_FAIL("fd %d: bytes still unacknowledged after 5 s", fd);
}

/* `oneshot`: the knotes are EV_ONESHOT, added afresh every round (else
 * added once, level-triggered). */
static void tc_run(bool oneshot)
{
	int kq = t_kqueue(), cli[TC_N], srv[TC_N];
	static struct kevent ev[4 * TC_N];
	unsigned short fl = oneshot ? EV_ONESHOT : 0;
	char buf[1024];
	memset(buf, 'y', sizeof buf);

	for (int i = 0; i < TC_N; i++) {
		t_tcp_pair(&cli[i], &srv[i]);
		int size = 8192 + 256 * i;   /* fixed, so no autotuning moves it */
		T_EQ(setsockopt(cli[i], SOL_SOCKET, SO_SNDBUF, &size, sizeof size), 0);
	}
	for (int round = 1; round <= 3; round++) {
		/* srv[i] holds round * (i + 1) * 5 bytes */
		for (int i = 0; i < TC_N; i++) {
			t_write(cli[i], buf, (size_t)(i + 1) * 5);
			tc_settle(cli[i]);
			if (round > 1 && !oneshot)
				continue;
			t_change(kq, cli[i], EVFILT_WRITE, EV_ADD | fl, 0, 0,
				 (void *)(intptr_t)(i + 1));
			t_change(kq, srv[i], EVFILT_READ, EV_ADD | fl, 0, 0,
				 (void *)(intptr_t)-(i + 1));
		}
		int seen[2][TC_N];
		memset(seen, 0, sizeof seen);
		int n = t_get(kq, ev, 4 * TC_N);
		T_EQ(n, 2 * TC_N);
		for (int k = 0; k < n; k++) {
			intptr_t u = (intptr_t)ev[k].udata;
			int wr = u > 0, i = (int)(wr ? u : -u) - 1;
			T_ASSERT(i >= 0 && i < TC_N && !seen[wr][i]);
			seen[wr][i] = 1;
			if (wr)
				T_KEVENT(&ev[k], (uintptr_t)cli[i], EVFILT_WRITE, fl, 0,
					 tc_space_now(cli[i]), ev[k].udata);
			else
				T_KEVENT(&ev[k], (uintptr_t)srv[i], EVFILT_READ, fl, 0,
					 (int64_t)round * (i + 1) * 5, ev[k].udata);
		}
		if (oneshot)   /* nothing is left */
			T_EQ(kevent(kq, NULL, 0, ev, 4 * TC_N, &(struct timespec){ 0, 0 }), 0);
	}
	for (int i = 0; i < TC_N; i++) {
		close(cli[i]);
		close(srv[i]);
	}
	close(kq);
}

#endif
