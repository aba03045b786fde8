/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * The whole send buffer as the data of a TCP connection that died, also
 * when libkq asks a harvest's counts together (several sockets at once,
 * through io_uring where the kernel answers there): eight non-blocking
 * connects refused at once, each socket with its own SO_SNDBUF, report in
 * one kevent() call EV_EOF, ECONNREFUSED and each its own buffer -- with
 * EV_ONESHOT knotes (which take their data as the harvest is processed)
 * and with plain ones (which take it when delivered).  (Also run with
 * LIBKQ_NO_IO_URING=1.)
 */
#include "t.h"

#define N 8

static void round_of(int kq, const struct sockaddr_in *dead, unsigned short extra)
{
	int s[N];
	for (int i = 0; i < N; i++) {
		s[i] = t_refused_connect(dead);
		int want = 8192 * (i + 1);   /* the kernel doubles it: all differ */
		T_ASSERT(setsockopt(s[i], SOL_SOCKET, SO_SNDBUF, &want, sizeof want) == 0);
		t_change(kq, s[i], EVFILT_WRITE, EV_ADD | extra, 0, 0, (void *)(intptr_t)(i + 1));
	}
	t_sleep_ms(50);   /* every refusal is in */
	struct kevent ev[2 * N];
	T_EQ(t_wait(kq, ev, 2 * N, 2000), N);
	int seen = 0;
	for (int k = 0; k < N; k++) {
		int i = (int)(intptr_t)ev[k].udata - 1;
		T_ASSERT(i >= 0 && i < N && !(seen & 1 << i));
		seen |= 1 << i;
		T_KEVENT(&ev[k], s[i], EVFILT_WRITE, extra | EV_EOF, ECONNREFUSED, t_sndbuf(s[i]),
			 (void *)(intptr_t)(i + 1));
	}
	for (int i = 0; i < N; i++)
		T_EQ(close(s[i]), 0);
}

int main(void)
{
	struct sockaddr_in dead;
	int d = t_inet_socket(SOCK_STREAM, 0, &dead);
	int kq = t_kqueue();
	round_of(kq, &dead, EV_ONESHOT);
	round_of(kq, &dead, 0);
	T_EQ(close(d), 0);
	T_EQ(close(kq), 0);
	return 0;
}
