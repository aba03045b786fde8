/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * A watched descriptor X that has a dup is closed; the
 * program then deletes the knote (EV_DELETE of the closed number fails with
 * EBADF as on FreeBSD, which event loops ignore), makes X name a
 * file again with dup2() and adds {X, READ} again: the new knote fires, with
 * the new udata, once per collection (level), with the right byte count.
 * Done with dup2() of the same file's dup (the epoll registration of the
 * old (file, X) pair must not get in the way) and of another pipe, and with
 * an old EV_CLEAR knote replaced by a level one.
 */
#include "t.h"

static void run(int same_file, unsigned short old_flags)
{
	int kq = t_kqueue(), p[2], q[2];
	void *u1 = (void *)0xb01, *u2 = (void *)0xb02;
	char buf[16];

	t_pipe(p);
	t_pipe(q);
	int x = p[0];
	int d = dup(x);
	T_ASSERT(d >= 0);
	t_change(kq, x, EVFILT_READ, EV_ADD | old_flags, 0, 0, u1);
	t_write(p[1], "a", 1);
	T_GET1(kq, x, EVFILT_READ, old_flags, 0, 1, u1);
	T_EQ(read(x, buf, sizeof buf), 1);

	T_EQ(close(x), 0);
	T_EQ(t_change_err(kq, x, EVFILT_READ, EV_DELETE, 0, 0, NULL), EBADF);

	int src = same_file ? d : q[0];
	int wr = same_file ? p[1] : q[1];
	T_EQ(dup2(src, x), x);
	T_NO_EVENTS(kq);
	t_change(kq, x, EVFILT_READ, EV_ADD, 0, 0, u2);
	T_NO_EVENTS(kq);
	t_write(wr, "bc", 2);
	T_WAIT1(kq, 2000, x, EVFILT_READ, 0, 0, 2, u2);
	T_GET1(kq, x, EVFILT_READ, 0, 0, 2, u2);
	T_EQ(read(x, buf, sizeof buf), 2);
	T_NO_EVENTS(kq);
	/* The file not behind x any more (other case) reports nothing. */
	t_write(same_file ? q[1] : p[1], "z", 1);
	T_NO_EVENTS(kq);
	t_write(wr, "d", 1);
	T_GET1(kq, x, EVFILT_READ, 0, 0, 1, u2);

	T_EQ(close(x), 0);
	T_EQ(close(d), 0);
	T_EQ(close(p[1]), 0);
	T_EQ(close(q[0]), 0);
	T_EQ(close(q[1]), 0);
	T_EQ(close(kq), 0);
}

int main(void)
{
	run(1, 0);
	run(0, 0);
	run(1, EV_CLEAR);
	run(0, EV_CLEAR);
	return 0;
}
