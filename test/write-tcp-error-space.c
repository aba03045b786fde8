/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * WRITE on a TCP socket whose connection died of an error reports
 * EV_EOF, the error as fflags, and as data the whole send buffer: FreeBSD
 * drops a disconnected socket's send buffer (soisdisconnected), so all of
 * it is free, whatever was queued and never acknowledged.  (Linux's
 * SIOCOUTQ still counts those bytes after it discarded them, and a
 * refused connect's SYN as one.)
 *
 *   refused  a non-blocking connect to a port nothing listens on;
 *   reset    the peer closes with unread data (a reset) while about a
 *            megabyte this side wrote waits unacknowledged.
 */
#include "t.h"

#include <fcntl.h>
#include <linux/sockios.h>

static void refused(int kq)
{
	struct sockaddr_in dead;
	int d = t_inet_socket(SOCK_STREAM, 0, &dead);
	int s = t_refused_connect(&dead);
	t_change(kq, s, EVFILT_WRITE, EV_ADD | EV_ONESHOT, 0, 0, (void *)0x1);
	T_WAIT1(kq, 2000, s, EVFILT_WRITE, EV_ONESHOT | EV_EOF, ECONNREFUSED, t_sndbuf(s), (void *)0x1);
	T_ASSERT(close(s) == 0);
	T_ASSERT(close(d) == 0);
}

static void reset(int kq)
{
	int c, srv;
	t_tcp_pair(&c, &srv);
	T_ASSERT(fcntl(c, F_SETFL, fcntl(c, F_GETFL) | O_NONBLOCK) == 0);
	static char buf[65536];
	long total = 0;
	for (int idle = 0; idle < 20 && total < (8L << 20);) {
		ssize_t w = write(c, buf, sizeof buf);
		if (w > 0) {
			total += w;
			idle = 0;
			continue;
		}
		T_ASSERT(errno == EAGAIN);
		usleep(2000);   /* let the stack move what it can */
		idle++;
	}
	int queued = 0;
	T_ASSERT(ioctl(c, SIOCOUTQ, &queued) == 0);
	T_ASSERT(queued > 0);   /* the peer's window is full */

	t_change(kq, c, EVFILT_WRITE, EV_ADD | EV_CLEAR, 0, 0, (void *)0x2);
	T_NO_EVENTS(kq);
	struct linger lg = { 1, 0 };
	T_ASSERT(setsockopt(srv, SOL_SOCKET, SO_LINGER, &lg, sizeof lg) == 0);
	T_ASSERT(close(srv) == 0);
	T_WAIT1(kq, 2000, c, EVFILT_WRITE, EV_CLEAR | EV_EOF, ECONNRESET, t_sndbuf(c), (void *)0x2);
	T_ASSERT(close(c) == 0);
}

int main(void)
{
	int kq = t_kqueue();
	refused(kq);
	reset(kq);
	return 0;
}
