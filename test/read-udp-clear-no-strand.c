/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * EVFILT_READ | EV_CLEAR on a UDP socket with two datagrams queued before
 * kevent(): FreeBSD's data is every payload byte queued.  A program that
 * reads datagrams until it has consumed `data` bytes and then waits for the
 * next record must never strand a datagram: whatever `data` says, a record
 * follows while datagrams remain, and none once all are read.  A program
 * that reads nothing is not flooded with records either.
 */
#include "t.h"

static int udp_pair(int *tx, struct sockaddr_in *sin)
{
	int rx = t_inet_socket(SOCK_DGRAM, 0, sin);
	*tx = socket(AF_INET, SOCK_DGRAM, 0);
	T_ASSERT(*tx >= 0);
	T_ASSERT(fcntl(rx, F_SETFL, O_NONBLOCK) == 0);
	return rx;
}

static void send_to(int tx, const struct sockaddr_in *sin, size_t n)
{
	char buf[64];
	memset(buf, 'd', sizeof buf);
	T_ASSERT(sendto(tx, buf, n, 0, (const struct sockaddr *)sin, sizeof *sin) == (ssize_t)n);
}

int main(void)
{
	struct sockaddr_in sin;
	struct kevent ev[2];
	char buf[128];
	int tx, rx = udp_pair(&tx, &sin), kq = t_kqueue();

	send_to(tx, &sin, 10);
	send_to(tx, &sin, 20);
	t_wait_inq(rx, 10);
	t_sleep_ms(20);   /* the second datagram is queued too */
	t_change(kq, rx, EVFILT_READ, EV_ADD | EV_CLEAR, 0, 0, (void *)9);

	int got = 0;
	for (int round = 0; round < 4 && got < 2; round++) {
		int n = t_wait(kq, ev, 2, 1000);
		if (n != 1)
			T_FAIL("round %d: %d records with %d of 2 datagrams read", round, n, got);
		T_ASSERT(ev[0].ident == (uintptr_t)rx && ev[0].filter == EVFILT_READ &&
			 ev[0].flags == EV_CLEAR && ev[0].udata == (void *)9);
		T_ASSERT(ev[0].data >= 10 && ev[0].data <= 30);
		for (int64_t left = ev[0].data; left > 0; got++) {
			ssize_t r = recv(rx, buf, sizeof buf, 0);
			T_ASSERT(r > 0);
			left -= r;
		}
	}
	T_EQ(got, 2);
	T_EQ(t_wait(kq, ev, 2, 100), 0);

	/* reading nothing: one reminder at most, then quiet */
	send_to(tx, &sin, 5);
	send_to(tx, &sin, 6);
	t_wait_inq(rx, 5);
	T_EQ(t_wait(kq, ev, 2, 1000), 1);
	int more = 0;
	for (int i = 0; i < 4; i++)
		more += t_wait(kq, ev, 2, 50);
	if (more > 1)
		T_FAIL("%d records for datagrams nobody read", more);
	return 0;
}
