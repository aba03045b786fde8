/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * A pipe with unread bytes whose write end is closed: its level READ knote
 * reports EV_EOF together with the count of bytes still unread, through
 * zero-timeout kevent() calls (kq_poll) and through waiting ones (kq_scan)
 * alike.  FreeBSD's filt_piperead sets EV_EOF once the writer is gone and
 * data to the bytes in the pipe: {p, READ, EV_EOF, 0, 4, ud}; the record
 * stays level, and after the bytes are read it is {p, READ, EV_EOF, 0, 0,
 * ud}.  (The flags are those of the other EOF tests: EV_ADD is not kept.)
 *
 * libkq delivers plain level pipe knotes straight from epoll's reports
 * (kq_fd_report_direct), counting a plain EPOLLIN report with FIONREAD
 * alone; a report with EPOLLHUP must still give EV_EOF.  Checked:
 *  - the writer closed before the knote is added: zero-timeout calls, then
 *    a kevent() with a 1 s timeout, which must return the record at once;
 *  - the knote first reported without EOF ({p, READ, 0, 0, 4, ud}, a plain
 *    EPOLLIN report), then the writer closed: the next zero-timeout call
 *    and the next waiting call both give EV_EOF with data 4;
 *  - the same with the first call a waiting one;
 *  - an empty pipe whose writer a thread closes 50 ms into a waiting
 *    kevent(): {p, READ, EV_EOF, 0, 0, ud}.
 */
#include "t.h"

#define UD ((void *)0xe0f4)

/* A kevent() with a 1 s timeout that must give the one record at once. */
static void wait_eof(int kq, int fd, int64_t data)
{
	int64_t t0 = t_now_ns();
	T_WAIT1(kq, 1000, fd, EVFILT_READ, EV_EOF, 0, data, UD);
	int64_t ms = (t_now_ns() - t0) / 1000000;
	if (ms > 500)
		T_FAIL("the ready EOF record took %lld ms to come",
		       (long long)ms);
}

/* The rest of every case: EOF with 4 bytes, then with none. */
static void eof_then_drain(int kq, int p0)
{
	char buf[16];

	T_GET1(kq, p0, EVFILT_READ, EV_EOF, 0, 4, UD);
	T_GET1(kq, p0, EVFILT_READ, EV_EOF, 0, 4, UD);
	wait_eof(kq, p0, 4);
	T_GET1(kq, p0, EVFILT_READ, EV_EOF, 0, 4, UD);
	T_EQ(read(p0, buf, 2), 2);
	wait_eof(kq, p0, 2);
	T_GET1(kq, p0, EVFILT_READ, EV_EOF, 0, 2, UD);
	T_EQ(read(p0, buf, sizeof buf), 2);
	T_GET1(kq, p0, EVFILT_READ, EV_EOF, 0, 0, UD);
	wait_eof(kq, p0, 0);
	T_GET1(kq, p0, EVFILT_READ, EV_EOF, 0, 0, UD);
}

static void closed_before_add(void)
{
	int kq = t_kqueue(), p[2];

	t_pipe(p);
	t_write(p[1], "abcd", 4);
	T_ASSERT(close(p[1]) == 0);
	t_change(kq, p[0], EVFILT_READ, EV_ADD, 0, 0, UD);
	eof_then_drain(kq, p[0]);
	T_ASSERT(close(kq) == 0);
	T_ASSERT(close(p[0]) == 0);
}

static void closed_after_report(int first_waits)
{
	int kq = t_kqueue(), p[2];

	t_pipe(p);
	t_write(p[1], "abcd", 4);
	t_change(kq, p[0], EVFILT_READ, EV_ADD, 0, 0, UD);
	if (first_waits)
		T_WAIT1(kq, 1000, p[0], EVFILT_READ, 0, 0, 4, UD);
	else
		T_GET1(kq, p[0], EVFILT_READ, 0, 0, 4, UD);
	T_GET1(kq, p[0], EVFILT_READ, 0, 0, 4, UD);
	T_ASSERT(close(p[1]) == 0);
	if (first_waits)
		wait_eof(kq, p[0], 4);
	eof_then_drain(kq, p[0]);
	T_ASSERT(close(kq) == 0);
	T_ASSERT(close(p[0]) == 0);
}

static void *close_later(void *arg)
{
	t_sleep_ms(50);
	if (close(*(int *)arg) != 0)
		abort();
	return NULL;
}

static void closed_while_waiting(void)
{
	int kq = t_kqueue(), p[2];
	static int wr;

	t_pipe(p);
	wr = p[1];
	t_change(kq, p[0], EVFILT_READ, EV_ADD, 0, 0, UD);
	T_NO_EVENTS(kq);
	t_thread_nosig(close_later, &wr);
	T_WAIT1(kq, 1000, p[0], EVFILT_READ, EV_EOF, 0, 0, UD);
	T_GET1(kq, p[0], EVFILT_READ, EV_EOF, 0, 0, UD);
	T_ASSERT(close(kq) == 0);
	T_ASSERT(close(p[0]) == 0);
}

int main(void)
{
	closed_before_add();
	closed_after_report(0);
	closed_after_report(1);
	closed_while_waiting();
	return 0;
}
