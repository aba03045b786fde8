/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * A UDP socket with IP_RECVERR: an ICMP port-unreachable both sets the
 * socket's pending error and queues a message on its error queue, and
 * Linux says EPOLLERR for as long as that queue holds it, which a receive
 * does not drain (only recvmsg(MSG_ERRQUEUE) does).  FreeBSD, which has
 * no error queue, fires READ while the error is pending:
 *   - one record {s, READ, 0, 0, 0, udata} for the error;
 *   - recv() then fails with ECONNREFUSED;
 *   - after that, nothing: kevent() with a 300 ms timeout returns 0, sleeping
 *     (under 100 ms of CPU), not a record with data 0 on every call;
 *   - a datagram that arrives later is reported {s, READ, 0, 0, 1, udata};
 *   - the error queue still holds the message for the program.
 * Level and EV_CLEAR knotes alike.
 */
#include "t.h"

#include <netinet/ip.h>
#include <sys/resource.h>
#include <time.h>

static double cpu_seconds(void)
{
	struct rusage ru;
	T_EQ(getrusage(RUSAGE_SELF, &ru), 0);
	return (double)ru.ru_utime.tv_sec + ru.ru_utime.tv_usec / 1e6 +
	       (double)ru.ru_stime.tv_sec + ru.ru_stime.tv_usec / 1e6;
}

static void run(unsigned short flags)
{
	int kq = t_kqueue(), one = 1;
	struct sockaddr_in dead, me, peer;
	struct kevent ev[4];
	void *ud = (void *)0x1ce;
	char b[16];

	int tmp = t_inet_socket(SOCK_DGRAM, 0, &dead);
	T_EQ(close(tmp), 0);
	int s = t_inet_socket(SOCK_DGRAM, 0, &me);
	T_EQ(setsockopt(s, SOL_IP, IP_RECVERR, &one, sizeof one), 0);
	int c = t_inet_socket(SOCK_DGRAM, 0, &peer);
	t_change(kq, s, EVFILT_READ, EV_ADD | flags, 0, 0, ud);
	T_NO_EVENTS(kq);

	T_EQ(sendto(s, "x", 1, 0, (struct sockaddr *)&dead, sizeof dead), 1);
	T_WAIT1(kq, 2000, s, EVFILT_READ, flags, 0, 0, ud);
	errno = 0;
	T_EQ(recv(s, b, sizeof b, MSG_DONTWAIT), -1);
	T_EQ(errno, ECONNREFUSED);

	double c0 = cpu_seconds();
	T_EQ(t_wait(kq, ev, 4, 300), 0);
	double used = cpu_seconds() - c0;
	if (used > 0.1)
		T_FAIL("kevent() spent %.3f s of CPU in a 300 ms wait", used);

	T_EQ(sendto(c, "y", 1, 0, (struct sockaddr *)&me, sizeof me), 1);
	T_WAIT1(kq, 2000, s, EVFILT_READ, flags, 0, 1, ud);
	T_EQ(recv(s, b, sizeof b, MSG_DONTWAIT), 1);

	struct msghdr mh = { 0 };
	char ctl[256];
	struct iovec iov = { b, sizeof b };
	mh.msg_iov = &iov;
	mh.msg_iovlen = 1;
	mh.msg_control = ctl;
	mh.msg_controllen = sizeof ctl;
	T_ASSERT(recvmsg(s, &mh, MSG_ERRQUEUE | MSG_DONTWAIT) >= 0);
	T_NO_EVENTS(kq);
	close(kq);
	close(s);
	close(c);
}

int main(void)
{
	run(0);
	run(EV_CLEAR);
	return 0;
}
