/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * READ knote on p0; d = dup(p0); close(p0): the knote is
 * removed at this first close of its number although the file stays open
 * through d (FreeBSD keys knotes on the descriptor number; Linux
 * epoll would keep reporting through the dup).  Checked for a level knote
 * with data already queued and for an EV_CLEAR knote with data arriving
 * after the close: no record, also after further writes; EV_DELETE of the
 * closed number -> EBADF; the dup itself is an ordinary descriptor whose own
 * knote works.  Conversely a knote on the dup survives the close of the
 * original number (knotes key on their own number only).
 */
#include "t.h"

static void dup_then_close(unsigned short flags, int data_first)
{
	int kq = t_kqueue(), p[2];
	void *u = (void *)0x301, *ud = (void *)0x302;
	char buf[16];

	t_pipe(p);
	t_change(kq, p[0], EVFILT_READ, EV_ADD | flags, 0, 0, u);
	if (data_first) {
		t_write(p[1], "ab", 2);
		T_GET1(kq, p[0], EVFILT_READ, flags, 0, 2, u);
	}
	int d = dup(p[0]);
	T_ASSERT(d >= 0);
	T_EQ(close(p[0]), 0);
	T_NO_EVENTS(kq);
	t_write(p[1], "c", 1);
	T_NO_EVENTS(kq);
	t_write(p[1], "d", 1);
	T_NO_EVENTS(kq);
	t_change_fails(kq, p[0], EVFILT_READ, EV_DELETE, NULL, EBADF);

	/* The dup is usable and can be watched under its own number. */
	int have = data_first ? 4 : 2;
	t_change(kq, d, EVFILT_READ, EV_ADD, 0, 0, ud);
	T_GET1(kq, d, EVFILT_READ, 0, 0, have, ud);
	T_EQ(read(d, buf, sizeof buf), have);
	T_NO_EVENTS(kq);

	T_EQ(close(d), 0);
	T_EQ(close(p[1]), 0);
	T_EQ(close(kq), 0);
}

/* A knote on the dup is not touched by the close of the original. */
static void knote_on_dup(void)
{
	int kq = t_kqueue(), p[2];
	void *ud = (void *)0x303;

	t_pipe(p);
	int d = dup(p[0]);
	T_ASSERT(d >= 0);
	t_change(kq, d, EVFILT_READ, EV_ADD, 0, 0, ud);
	T_EQ(close(p[0]), 0);
	t_write(p[1], "xyz", 3);
	T_GET1(kq, d, EVFILT_READ, 0, 0, 3, ud);
	T_EQ(close(d), 0);
	T_NO_EVENTS(kq);
	T_EQ(close(p[1]), 0);
	T_EQ(close(kq), 0);
}

int main(void)
{
	dup_then_close(0, 1);
	dup_then_close(0, 0);
	dup_then_close(EV_CLEAR, 1);
	dup_then_close(EV_CLEAR, 0);
	knote_on_dup();
	return 0;
}
