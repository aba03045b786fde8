/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * A TCP connection whose peer reset it, after an EV_EOF record that
 * carried ECONNRESET in fflags.  libkq had to read the socket's error
 * (Linux's SO_ERROR clears it) and keeps it for the program: whichever call
 * looks first must get it, once, as it would have without libkq, and every
 * later call then sees what the kernel says after the error was taken (end
 * of file for a read, EPIPE for a write).
 */
#ifndef KQ_TEST_T_RESET_ERROR_H
#define KQ_TEST_T_RESET_ERROR_H

#include "t.h"

/* The connected end, its error taken by libkq for the EV_EOF record; moved
 * to number `at` first unless at < 0. */
static inline int t_reset_after_eof_at(int at)
{
	int kq = t_kqueue(), c, s;
	struct kevent ev[4];
	struct linger lg = { 1, 0 };

	t_tcp_pair(&c, &s);
	if (at >= 0) {
		T_EQ(dup2(c, at), at);
		T_EQ(close(c), 0);
		c = at;
	}
	t_change(kq, c, EVFILT_READ, EV_ADD, 0, 0, NULL);
	T_ASSERT(setsockopt(s, SOL_SOCKET, SO_LINGER, &lg, sizeof lg) == 0);
	T_ASSERT(close(s) == 0);
	T_EQ(t_wait(kq, ev, 4, 2000), 1);
	T_KEVENT(&ev[0], c, EVFILT_READ, EV_EOF, ECONNRESET, 0, NULL);
	T_ASSERT(close(kq) == 0);
	return c;
}

static inline int t_reset_after_eof(void)
{
	return t_reset_after_eof_at(-1);
}

/* After the error was taken: a read sees end of file. */
static inline void t_reset_then_eof(int c)
{
	char b[8];
	T_EQ(read(c, b, sizeof b), 0);
	int err = -1;
	socklen_t len = sizeof err;
	T_ASSERT(getsockopt(c, SOL_SOCKET, SO_ERROR, &err, &len) == 0);
	T_EQ(err, 0);
}

#endif
