/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * READ on a TCP listener (backlog 16): data = number of
 * completed connections waiting in accept() (FreeBSD filt_solisten: so_qlen).
 * Two clients connect -> data 2; accept one -> data 1; accept the other ->
 * no events.
 */
#include "t.h"

/* The final ACK of the handshake may be processed a moment after connect()
 * returns, so wait (bounded) until the record shows the expected count. */
static void wait_data(int kq, struct kevent *ev, int64_t want)
{
	int64_t deadline = t_now_ns() + 2000000000LL;

	for (;;) {
		int n = t_wait(kq, ev, 1, 100);
		if (n == 1 && ev->data >= want)
			return;
		if (t_now_ns() > deadline)
			return;   /* the caller's exact check reports it */
		t_sleep_ms(5);
	}
}

int main(void)
{
	int kq = t_kqueue(), l, c1, c2, a1, a2;
	struct sockaddr_in sin;
	struct kevent ev[8];
	void *ud = (void *)0x115;

	l = t_inet_socket(SOCK_STREAM, 16, &sin);

	t_change(kq, l, EVFILT_READ, EV_ADD, 0, 0, ud);
	T_NO_EVENTS(kq);

	c1 = socket(AF_INET, SOCK_STREAM, 0);
	c2 = socket(AF_INET, SOCK_STREAM, 0);
	T_ASSERT(c1 >= 0 && c2 >= 0);
	T_ASSERT(connect(c1, (struct sockaddr *)&sin, sizeof sin) == 0);
	T_ASSERT(connect(c2, (struct sockaddr *)&sin, sizeof sin) == 0);

	/* Two connections waiting: data 2. */
	wait_data(kq, ev, 2);
	T_GET1(kq, l, EVFILT_READ, 0, 0, 2, ud);

	/* One accepted: data 1. */
	a1 = accept(l, NULL, NULL);
	T_ASSERT(a1 >= 0);
	T_GET1(kq, l, EVFILT_READ, 0, 0, 1, ud);

	/* Both accepted: nothing. */
	a2 = accept(l, NULL, NULL);
	T_ASSERT(a2 >= 0);
	T_NO_EVENTS(kq);
	return 0;
}
