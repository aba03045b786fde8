/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * Descriptor reuse as event loops meet it: a server closes an accepted TCP
 * socket X without EV_DELETE (its READ|EV_CLEAR and WRITE knotes had events
 * queued); the next accept() returns the same number X.  Nothing is reported
 * for X until the program adds knotes again; EV_ADD {X, READ} and {X, WRITE}
 * with a new udata succeed and create fresh knotes (level, not the old
 * EV_CLEAR) that report the new connection's data and nothing of the old one
 * (its peer's data and close).
 */
#include "t.h"

static int connect_to(const struct sockaddr_in *sin)
{
	int c = socket(AF_INET, SOCK_STREAM, 0);
	T_ASSERT(c >= 0);
	if (connect(c, (const struct sockaddr *)sin, sizeof *sin) != 0)
		T_FAIL("connect: %s", strerror(errno));
	return c;
}

int main(void)
{
	int kq = t_kqueue();
	struct sockaddr_in sin;
	int l = t_inet_socket(SOCK_STREAM, 8, &sin);
	void *u1 = (void *)0xa01, *u2 = (void *)0xa02;
	struct kevent ev[8];
	char buf[16];

	int c1 = connect_to(&sin);
	int x = accept(l, NULL, NULL);
	T_ASSERT(x >= 0);
	t_change(kq, x, EVFILT_READ, EV_ADD | EV_CLEAR, 0, 0, u1);
	t_change(kq, x, EVFILT_WRITE, EV_ADD, 0, 0, u1);
	t_write(c1, "old", 3);
	t_wait_inq(x, 3);
	T_EQ(t_get(kq, ev, 8), 2);

	/* Closed without EV_DELETE, with the WRITE knote (level) queued and
	 * the data unread (so the peer gets a reset). */
	T_EQ(close(x), 0);
	T_EQ(close(c1), 0);

	int c2 = connect_to(&sin);
	int y = accept(l, NULL, NULL);
	T_ASSERT(y >= 0);
	if (y != x)
		T_FAIL("accept() returned %d, not the lowest free number %d",
		       y, x);
	T_NO_EVENTS(kq);

	t_change(kq, y, EVFILT_READ, EV_ADD, 0, 0, u2);
	t_change(kq, y, EVFILT_WRITE, EV_ADD, 0, 0, u2);
	int n = t_get(kq, ev, 8);
	T_EQ(n, 1);
	T_KEVENT_MIN(&ev[0], y, EVFILT_WRITE, 0, 0, 1, u2);

	t_write(c2, "hello", 5);
	t_wait_inq(y, 5);
	for (int round = 0; round < 2; round++) {   /* level: twice */
		n = t_get(kq, ev, 8);
		T_EQ(n, 2);
		for (int i = 0; i < n; i++) {
			if (ev[i].filter == EVFILT_READ)
				T_KEVENT(&ev[i], y, EVFILT_READ, 0, 0, 5, u2);
			else
				T_KEVENT_MIN(&ev[i], y, EVFILT_WRITE, 0, 0, 1,
					     u2);
		}
	}
	T_EQ(read(y, buf, sizeof buf), 5);
	t_change(kq, y, EVFILT_WRITE, EV_DELETE, 0, 0, NULL);
	T_NO_EVENTS(kq);
	T_EQ(close(c2), 0);
	T_WAIT1(kq, 2000, y, EVFILT_READ, EV_EOF, 0, 0, u2);
	return 0;
}
