/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * TCP urgent data (libuv's out-of-band poll test reads it this way): the
 * peer sends "hello" with MSG_OOB (its last byte, 'o', is urgent) and then
 * "world".  The reader takes 'o' with MSG_OOB and "hell", which ends at
 * the urgent mark.  The five bytes after the mark are readable, and READ
 * must fire for them: {c, READ, 0, 0, 5, udata} (FreeBSD takes the urgent
 * byte out of the stream; Linux's FIONREAD says 0 at the mark).  Level and
 * EV_CLEAR knotes alike; after "world" is read, nothing.
 */
#include "t.h"

#include <netinet/in.h>

static void run(unsigned short flags)
{
	int c, s, kq = t_kqueue();
	char buf[16];
	void *ud = (void *)0x00b;

	t_tcp_pair(&c, &s);
	T_EQ(fcntl(c, F_SETFL, O_NONBLOCK), 0);
	T_EQ(send(s, "hello", 5, MSG_OOB), 5);
	T_EQ(send(s, "world", 5, 0), 5);
	t_wait_inq(c, 4);
	t_sleep_ms(20);   /* "world" is in too */

	T_EQ(recv(c, buf, sizeof buf, MSG_OOB), 1);
	T_EQ(buf[0], 'o');
	T_EQ(recv(c, buf, sizeof buf, 0), 4);
	T_ASSERT(memcmp(buf, "hell", 4) == 0);

	t_change(kq, c, EVFILT_READ, EV_ADD | flags, 0, 0, ud);
	T_GET1(kq, c, EVFILT_READ, flags, 0, 5, ud);
	T_EQ(recv(c, buf, sizeof buf, 0), 5);
	T_ASSERT(memcmp(buf, "world", 5) == 0);
	T_NO_EVENTS(kq);
	close(kq);
	close(c);
	close(s);
}

int main(void)
{
	run(0);
	run(EV_CLEAR);
	return 0;
}
