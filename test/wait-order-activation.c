/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * Records come in the order their knotes were activated, whichever way
 * libkq delivers each one.
 *
 * FreeBSD queues a knote as it activates, and kevent() copies the queue
 * out from its head.  Knotes added in one changelist whose conditions
 * already hold are activated in changelist order, so they are reported in
 * that order.  libkq copies a plain level knote's report straight out of
 * epoll's answer, while other knotes go through its ready queue.  Those
 * straight copies must not overtake a knote queued ahead of them.  Event
 * loops depend on this order: libuv's test of a write to a half-open
 * connection accepts the connection before it sees the connect complete.
 * With the order swapped, the client closes first, and the server's read
 * fails with EPIPE instead of ECONNRESET.
 *
 * 1. Pipes: an EV_CLEAR READ knote (queued) added before a plain level READ
 *    knote (deliverable directly), both with data waiting.
 * 2. TCP over 127.0.0.1: a listener with a connection waiting to be
 *    accepted, added before the connecting socket's WRITE knote.
 * Each is checked with a zero-timeout call and with a waiting one, and
 * every field of both records is checked.
 */
#include "t.h"

#include <arpa/inet.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/socket.h>

static void expect_rec(const struct kevent *ev, uintptr_t ident, short filter,
		       unsigned short flags, int64_t data, void *udata, const char *what)
{
	if (ev->ident != ident || ev->filter != filter || ev->flags != flags ||
	    ev->fflags != 0 || ev->data != data || ev->udata != udata)
		T_FAIL("%s: got {%lu, %d, 0x%x, %u, %lld, %p}, want {%lu, %d, 0x%x, 0, %lld, %p}",
		       what, (unsigned long)ev->ident, ev->filter, ev->flags, ev->fflags,
		       (long long)ev->data, ev->udata, (unsigned long)ident, filter, flags,
		       (long long)data, udata);
}

static void pipes(const struct timespec *ts, const char *how)
{
	int a[2], b[2];
	if (pipe(a) || pipe(b))
		T_FAIL("pipe: %s", strerror(errno));
	if (write(a[1], "abc", 3) != 3 || write(b[1], "defgh", 5) != 5)
		T_FAIL("write: %s", strerror(errno));
	int kq = kqueue();
	if (kq < 0)
		T_FAIL("kqueue: %s", strerror(errno));
	struct kevent ch[2], ev[8];
	EV_SET(&ch[0], a[0], EVFILT_READ, EV_ADD | EV_CLEAR, 0, 0, (void *)1);
	EV_SET(&ch[1], b[0], EVFILT_READ, EV_ADD, 0, 0, (void *)2);
	if (kevent(kq, ch, 2, NULL, 0, NULL) != 0)
		T_FAIL("EV_ADD: %s", strerror(errno));
	int n = kevent(kq, NULL, 0, ev, 8, ts);
	if (n != 2)
		T_FAIL("pipes, %s: %d records (%s), want 2", how, n, n < 0 ? strerror(errno) : "");
	expect_rec(&ev[0], (uintptr_t)a[0], EVFILT_READ, EV_CLEAR, 3, (void *)1, how);
	expect_rec(&ev[1], (uintptr_t)b[0], EVFILT_READ, 0, 5, (void *)2, how);
	close(kq);
	close(a[0]);
	close(a[1]);
	close(b[0]);
	close(b[1]);
}

static void tcp(const struct timespec *ts, const char *how)
{
	struct sockaddr_in sa = { .sin_family = AF_INET };
	sa.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	socklen_t len = sizeof sa;
	int l = socket(AF_INET, SOCK_STREAM, 0);
	if (l < 0 || bind(l, (struct sockaddr *)&sa, sizeof sa) || listen(l, 4) ||
	    getsockname(l, (struct sockaddr *)&sa, &len))
		T_FAIL("listener: %s", strerror(errno));
	int c = socket(AF_INET, SOCK_STREAM | SOCK_NONBLOCK, 0);
	if (c < 0)
		T_FAIL("socket: %s", strerror(errno));
	if (connect(c, (struct sockaddr *)&sa, sizeof sa) != 0 && errno != EINPROGRESS)
		T_FAIL("connect: %s", strerror(errno));
	/* the handshake done, and the connection queued on the listener */
	struct pollfd p[2] = { { l, POLLIN, 0 }, { c, POLLOUT, 0 } };
	for (int i = 0; i < 2; i++)
		if (poll(&p[i], 1, 2000) != 1)
			T_FAIL("the connection did not complete within 2 s");
	int kq = kqueue();
	if (kq < 0)
		T_FAIL("kqueue: %s", strerror(errno));
	struct kevent ch[2], ev[8];
	EV_SET(&ch[0], l, EVFILT_READ, EV_ADD, 0, 0, (void *)3);
	EV_SET(&ch[1], c, EVFILT_WRITE, EV_ADD, 0, 0, (void *)4);
	if (kevent(kq, ch, 2, NULL, 0, NULL) != 0)
		T_FAIL("EV_ADD: %s", strerror(errno));
	int n = kevent(kq, NULL, 0, ev, 8, ts);
	if (n != 2)
		T_FAIL("tcp, %s: %d records (%s), want 2", how, n, n < 0 ? strerror(errno) : "");
	/* the listener's data is its backlog; the send space varies */
	expect_rec(&ev[0], (uintptr_t)l, EVFILT_READ, 0, 1, (void *)3, how);
	if (ev[1].ident != (uintptr_t)c || ev[1].filter != EVFILT_WRITE ||
	    ev[1].flags != 0 || ev[1].fflags != 0 || ev[1].data <= 0 ||
	    ev[1].udata != (void *)4)
		T_FAIL("tcp, %s: second record {%lu, %d, 0x%x, %u, %lld, %p}, want the "
		       "connecting socket's WRITE", how, (unsigned long)ev[1].ident,
		       ev[1].filter, ev[1].flags, ev[1].fflags, (long long)ev[1].data,
		       ev[1].udata);
	close(kq);
	close(c);
	close(l);
}

int main(void)
{
	struct timespec zero = { 0, 0 }, second = { 1, 0 };
	for (int round = 0; round < 3; round++) {
		pipes(&zero, "zero timeout");
		pipes(&second, "waiting");
		tcp(&zero, "zero timeout");
		tcp(&second, "waiting");
	}
	return 0;
}
