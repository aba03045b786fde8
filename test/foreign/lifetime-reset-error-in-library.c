/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * A connection reset by the peer: EV_EOF's fflags carry ECONNRESET, and the
 * first recv(), read(), send() or write() on the socket afterwards still
 * fails with ECONNRESET, as on FreeBSD (whose filter copies the error
 * without clearing it) — here made by a library without -lkq.  The error is
 * given once; a write does not raise SIGPIPE in its place.
 */
#include "../t.h"
#include "foreign.h"

/* A connected TCP socket whose peer has reset the connection after sending
 * `sent` bytes, reported through a READ knote. */
static int reset_socket(int kq, const char *sent)
{
	struct sockaddr_in sin;
	int l = t_inet_socket(SOCK_STREAM, 4, &sin);
	int c = socket(AF_INET, SOCK_STREAM, 0);
	T_ASSERT(c >= 0);
	T_ASSERT(connect(c, (struct sockaddr *)&sin, sizeof sin) == 0);
	int a = accept(l, NULL, NULL);
	T_ASSERT(a >= 0);
	if (sent[0])
		t_write(a, sent, strlen(sent));
	t_wait_inq(c, (int)strlen(sent));
	struct linger lg = { 1, 0 };   /* close() sends a reset */
	T_ASSERT(setsockopt(a, SOL_SOCKET, SO_LINGER, &lg, sizeof lg) == 0);
	close(a);
	close(l);

	struct kevent ev[2];
	t_change(kq, c, EVFILT_READ, EV_ADD | EV_ONESHOT, 0, 0, (void *)5);
	T_EQ(t_wait(kq, ev, 2, 2000), 1);
	T_KEVENT(&ev[0], c, EVFILT_READ, EV_ONESHOT | EV_EOF, ECONNRESET,
		 (int64_t)strlen(sent), (void *)5);
	return c;
}

int main(void)
{
	signal(SIGPIPE, SIG_DFL);   /* a SIGPIPE would end the test */
	int kq = t_kqueue();
	char buf[8];

	int s = reset_socket(kq, "");
	errno = 0;
	T_EQ(foreign_recv(s, buf, sizeof buf), -1);
	T_EQ(errno, ECONNRESET);
	T_EQ(foreign_recv(s, buf, sizeof buf), 0);   /* once */
	close(s);

	s = reset_socket(kq, "");
	errno = 0;
	T_EQ(foreign_read(s, buf, sizeof buf), -1);
	T_EQ(errno, ECONNRESET);
	close(s);

	/* data that came before the reset is read first, then the error;
	 * a peek does not take it */
	s = reset_socket(kq, "hello");
	errno = 0;
	T_EQ(recv(s, buf, sizeof buf, MSG_PEEK), 5);
	T_EQ(foreign_recv(s, buf, sizeof buf), 5);
	T_EQ(recv(s, buf, sizeof buf, MSG_PEEK), -1);
	T_EQ(errno, ECONNRESET);
	errno = 0;
	T_EQ(foreign_read(s, buf, sizeof buf), -1);
	T_EQ(errno, ECONNRESET);
	T_EQ(foreign_read(s, buf, sizeof buf), 0);
	close(s);

	s = reset_socket(kq, "");
	errno = 0;
	T_EQ(foreign_send(s, "x", 1), -1);
	T_EQ(errno, ECONNRESET);
	close(s);

	s = reset_socket(kq, "");
	errno = 0;
	T_EQ(foreign_write(s, "x", 1), -1);
	T_EQ(errno, ECONNRESET);
	close(s);
	return 0;
}
