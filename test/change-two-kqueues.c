/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * The same <sp0, EVFILT_READ> registered in two kqueues gives two
 * independent knotes: each kqueue reports the data once (EV_CLEAR), with its
 * own udata; consuming or deleting in one does not affect the other.
 */
#include "t.h"

int main(void)
{
	int kq1 = t_kqueue(), kq2 = t_kqueue();
	int sp[2];
	int u1, u2;

	t_socketpair(sp);
	t_change(kq1, sp[0], EVFILT_READ, EV_ADD | EV_CLEAR, 0, 0, &u1);
	t_change(kq2, sp[0], EVFILT_READ, EV_ADD | EV_CLEAR, 0, 0, &u2);
	T_NO_EVENTS(kq1);
	T_NO_EVENTS(kq2);

	t_write(sp[1], "x", 1);
	T_GET1(kq1, sp[0], EVFILT_READ, EV_CLEAR, 0, 1, &u1);
	T_NO_EVENTS(kq1);
	/* kq1 consumed its edge; kq2's knote is untouched by that. */
	T_GET1(kq2, sp[0], EVFILT_READ, EV_CLEAR, 0, 1, &u2);
	T_NO_EVENTS(kq2);

	/* Deleting in kq1 leaves kq2's knote alive. */
	t_change(kq1, sp[0], EVFILT_READ, EV_DELETE, 0, 0, NULL);
	t_write(sp[1], "y", 1);
	T_NO_EVENTS(kq1);
	T_GET1(kq2, sp[0], EVFILT_READ, EV_CLEAR, 0, 2, &u2);
	T_EQ(t_change_err(kq1, sp[0], EVFILT_READ, EV_DELETE, 0, 0, NULL),
	     ENOENT);
	return 0;
}
