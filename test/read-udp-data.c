/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * A UDP socket with two queued datagrams of 3 and 5 bytes.
 * Deviation from FreeBSD: FreeBSD reports data 8 (all queued bytes); the
 * library reports the size of the next datagram (3, then 5 after the first
 * is read) because Linux has no cheap way to learn the total (SIOCINQ gives
 * the next datagram only).  When the queue is empty nothing fires.
 */
#include "t.h"

int main(void)
{
	int kq = t_kqueue(), r, s;
	struct sockaddr_in sin;
	void *ud = (void *)0x11;
	char buf[16];

	r = t_inet_socket(SOCK_DGRAM, 0, &sin);
	s = socket(AF_INET, SOCK_DGRAM, 0);
	T_ASSERT(s >= 0);

	t_change(kq, r, EVFILT_READ, EV_ADD, 0, 0, ud);
	T_NO_EVENTS(kq);

	T_EQ(sendto(s, "abc", 3, 0, (struct sockaddr *)&sin, sizeof sin), 3);
	T_EQ(sendto(s, "defgh", 5, 0, (struct sockaddr *)&sin, sizeof sin), 5);

	T_WAIT1(kq, 2000, r, EVFILT_READ, 0, 0, 3, ud);

	T_EQ(recv(r, buf, sizeof buf, 0), 3);
	T_WAIT1(kq, 2000, r, EVFILT_READ, 0, 0, 5, ud);

	T_EQ(recv(r, buf, sizeof buf, 0), 5);
	T_NO_EVENTS(kq);
	return 0;
}
