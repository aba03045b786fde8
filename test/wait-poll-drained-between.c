/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * A level READ knote whose descriptor was drained between two zero-timeout
 * kevent() calls is not reported by the second: FreeBSD evaluates the
 * filter when it delivers, so there is no stale record with data 0, and
 * the next data is counted exactly.
 *
 * libkq delivers these records straight from epoll's reports
 * (kq_fd_report_direct), counting a pipe's or a TCP connection's bytes with
 * FIONREAD; epoll hands a level entry back after each epoll_wait(), so a
 * report taken before the read() must not be believed after it.
 *
 * Pipe: 5 bytes give {p, READ, 0, 0, 5, ud}; after reading them, no
 * record (twice); 3 bytes written give data 3; reading 1 gives data 2;
 * several write/drain rounds in a row.
 *
 * TCP over 127.0.0.1, READ on the accepted end: 7 bytes give data 7; after
 * reading them, no record; 4 more give data 4.  When the peer then closes,
 * the record is {s, READ, EV_EOF, 0, 4, ud}: EV_EOF together with the bytes
 * still unread (FreeBSD's soreadable count), and after reading them
 * {s, READ, EV_EOF, 0, 0, ud}, still level.
 */
#include "t.h"
#include <poll.h>

/* Waits (at most 2 s) until poll() sees the peer's FIN on s. */
static void wait_rdhup(int s)
{
	struct pollfd pfd = { .fd = s, .events = POLLRDHUP };
	int64_t deadline = t_now_ns() + 2000000000LL;

	for (;;) {
		pfd.revents = 0;
		int r = poll(&pfd, 1, 10);
		if (r < 0 && errno != EINTR)
			T_FAIL("poll: %s", strerror(errno));
		if (r > 0 && (pfd.revents & POLLRDHUP))
			return;
		if (t_now_ns() > deadline)
			T_FAIL("the peer's close did not arrive in 2 s");
	}
}

static void pipe_case(void)
{
	int kq = t_kqueue(), p[2];
	void *ud = (void *)0xd1;
	char buf[32];

	t_pipe(p);
	t_change(kq, p[0], EVFILT_READ, EV_ADD, 0, 0, ud);
	T_NO_EVENTS(kq);

	t_write(p[1], "12345", 5);
	T_GET1(kq, p[0], EVFILT_READ, 0, 0, 5, ud);
	T_GET1(kq, p[0], EVFILT_READ, 0, 0, 5, ud);
	T_EQ(read(p[0], buf, sizeof buf), 5);
	T_NO_EVENTS(kq);
	T_NO_EVENTS(kq);

	t_write(p[1], "abc", 3);
	T_GET1(kq, p[0], EVFILT_READ, 0, 0, 3, ud);
	T_EQ(read(p[0], buf, 1), 1);
	T_GET1(kq, p[0], EVFILT_READ, 0, 0, 2, ud);
	T_EQ(read(p[0], buf, sizeof buf), 2);
	T_NO_EVENTS(kq);

	/* Rounds of write, report, drain, silence. */
	memset(buf, 'w', sizeof buf);
	for (int i = 1; i <= 20; i++) {
		t_write(p[1], buf, (size_t)i);
		T_GET1(kq, p[0], EVFILT_READ, 0, 0, i, ud);
		T_EQ(read(p[0], buf, sizeof buf), i);
		T_NO_EVENTS(kq);
	}
	T_ASSERT(close(kq) == 0);
	T_ASSERT(close(p[0]) == 0);
	T_ASSERT(close(p[1]) == 0);
}

static void tcp_case(void)
{
	int kq = t_kqueue(), c, s;
	void *ud = (void *)0xd2;
	char buf[32];

	t_tcp_pair(&c, &s);
	t_change(kq, s, EVFILT_READ, EV_ADD, 0, 0, ud);
	T_NO_EVENTS(kq);

	t_write(c, "1234567", 7);
	t_wait_inq(s, 7);
	T_GET1(kq, s, EVFILT_READ, 0, 0, 7, ud);
	T_GET1(kq, s, EVFILT_READ, 0, 0, 7, ud);
	T_EQ(read(s, buf, sizeof buf), 7);
	T_NO_EVENTS(kq);
	T_NO_EVENTS(kq);

	t_write(c, "abcd", 4);
	t_wait_inq(s, 4);
	T_GET1(kq, s, EVFILT_READ, 0, 0, 4, ud);

	T_ASSERT(close(c) == 0);
	wait_rdhup(s);
	T_GET1(kq, s, EVFILT_READ, EV_EOF, 0, 4, ud);
	T_GET1(kq, s, EVFILT_READ, EV_EOF, 0, 4, ud);
	T_EQ(read(s, buf, sizeof buf), 4);
	T_GET1(kq, s, EVFILT_READ, EV_EOF, 0, 0, ud);
	T_GET1(kq, s, EVFILT_READ, EV_EOF, 0, 0, ud);
	T_ASSERT(close(kq) == 0);
	T_ASSERT(close(s) == 0);
}

int main(void)
{
	pipe_case();
	tcp_case();
	return 0;
}
