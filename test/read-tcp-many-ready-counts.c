/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * Many TCP sockets ready at once: each READ record carries its own socket's
 * exact byte count.  When a harvest finds several TCP READ knotes ready,
 * libkq may ask all their counts in io_uring submissions instead of one
 * FIONREAD each (150 sockets: more than one submission holds, and a
 * remainder); the counts must be the same either way, for every socket
 * of the batch, round after round, and a peer's close still gives EV_EOF
 * with the bytes left.  (Also run with LIBKQ_NO_IO_URING=1: the ioctl
 * path.)
 */
#include "t.h"

#include <poll.h>

enum { N = 150 };

/* Waits until fd is readable, so that the next kevent() finds all. */
static void readable(int fd)
{
	struct pollfd p = { .fd = fd, .events = POLLIN };
	T_EQ(poll(&p, 1, 5000), 1);
}

int main(void)
{
	int kq = t_kqueue(), cli[N], srv[N];
	struct kevent ev[2 * N];
	char buf[4096];
	memset(buf, 'x', sizeof buf);

	for (int i = 0; i < N; i++)
		t_tcp_pair(&cli[i], &srv[i]);
	for (int round = 0; round < 3; round++) {
		/* socket i holds (round + 1) * (i + 1) * 7 bytes */
		for (int i = 0; i < N; i++) {
			t_write(cli[i], buf, (size_t)(i + 1) * 7);
			readable(srv[i]);
		}
		if (round == 0)
			for (int i = 0; i < N; i++)
				t_change(kq, srv[i], EVFILT_READ, EV_ADD, 0, 0,
					 (void *)(intptr_t)(i + 1));
		int seen[N] = { 0 };
		int n = t_get(kq, ev, 2 * N);
		T_EQ(n, N);
		for (int k = 0; k < n; k++) {
			int i = (int)(intptr_t)ev[k].udata - 1;
			T_ASSERT(i >= 0 && i < N && !seen[i]);
			seen[i] = 1;
			T_KEVENT(&ev[k], (uintptr_t)srv[i], EVFILT_READ, 0, 0,
				 (int64_t)(round + 1) * (i + 1) * 7, ev[k].udata);
		}
	}
	/* half the peers close: EV_EOF with the bytes still queued */
	for (int i = 0; i < N; i += 2) {
		close(cli[i]);
		cli[i] = -1;
	}
	for (int i = 0; i < N; i += 2) {
		struct pollfd p = { .fd = srv[i], .events = POLLRDHUP };
		T_EQ(poll(&p, 1, 5000), 1);
	}
	int n = t_get(kq, ev, 2 * N);
	T_EQ(n, N);
	for (int k = 0; k < n; k++) {
		int i = (int)(intptr_t)ev[k].udata - 1;
		T_ASSERT(i >= 0 && i < N);
		T_KEVENT(&ev[k], (uintptr_t)srv[i], EVFILT_READ, (i % 2 == 0) ? EV_EOF : 0, 0,
			 (int64_t)3 * (i + 1) * 7, ev[k].udata);
	}
	for (int i = 0; i < N; i++) {
		if (cli[i] >= 0)
			close(cli[i]);
		close(srv[i]);
	}
	close(kq);
	return 0;
}
