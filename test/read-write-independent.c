/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * READ and WRITE knotes on the same descriptor are independent knotes
 * (a knote's identity is (ident, filter)): each keeps its own udata and
 * flags, a level READ and an EV_CLEAR WRITE each behave as their own flags
 * say, data arriving for READ does not activate the WRITE knote, disabling
 * one does not silence the other, and deleting one leaves the other firing.
 */
#include "t.h"

static void *const UR = (void *)0xaaa1;   /* READ udata */
static void *const UW = (void *)0xbbb2;   /* WRITE udata */
static void *const UW2 = (void *)0xccc3;  /* WRITE udata after re-add */

/* Makes sp0's send space grow (sp0 sends, sp1 reads it all). */
static void free_send_space(int sp[2])
{
	char buf[16];

	t_write(sp[0], "0123456789", 10);
	T_EQ(read(sp[1], buf, sizeof buf), 10);
}

int main(void)
{
	int kq = t_kqueue(), sp[2];
	struct kevent ev[8];

	t_socketpair(sp);
	t_change(kq, sp[0], EVFILT_READ, EV_ADD, 0, 0, UR);
	t_change(kq, sp[0], EVFILT_WRITE, EV_ADD | EV_CLEAR, 0, 0, UW);

	/* Only WRITE is ready; reported once (EV_CLEAR). */
	T_EQ(t_get(kq, ev, 8), 1);
	T_KEVENT_MIN(&ev[0], sp[0], EVFILT_WRITE, EV_CLEAR, 0, 1, UW);
	T_NO_EVENTS(kq);

	/* Data arrives: READ fires; the cleared WRITE knote is not
	 * activated by it. */
	t_write(sp[1], "x", 1);
	T_WAIT1(kq, 2000, sp[0], EVFILT_READ, 0, 0, 1, UR);

	/* READ is level: reported again; WRITE still silent. */
	T_GET1(kq, sp[0], EVFILT_READ, 0, 0, 1, UR);

	/* Disable READ: nothing at all. */
	t_change(kq, sp[0], EVFILT_READ, EV_DISABLE, 0, 0, UR);
	T_NO_EVENTS(kq);

	/* WRITE still works while READ is disabled. */
	free_send_space(sp);
	T_EQ(t_wait(kq, ev, 8, 2000), 1);
	T_KEVENT_MIN(&ev[0], sp[0], EVFILT_WRITE, EV_CLEAR, 0, 1, UW);
	T_NO_EVENTS(kq);

	/* Enable READ: the byte is still there, READ alone fires. */
	t_change(kq, sp[0], EVFILT_READ, EV_ENABLE, 0, 0, UR);
	T_GET1(kq, sp[0], EVFILT_READ, 0, 0, 1, UR);

	/* Delete WRITE: READ keeps firing, space changes report nothing
	 * for WRITE. */
	t_change(kq, sp[0], EVFILT_WRITE, EV_DELETE, 0, 0, NULL);
	T_GET1(kq, sp[0], EVFILT_READ, 0, 0, 1, UR);
	free_send_space(sp);
	T_GET1(kq, sp[0], EVFILT_READ, 0, 0, 1, UR);

	/* Re-add WRITE level-triggered with another udata, delete READ:
	 * WRITE keeps firing on every collection, READ never again although
	 * the byte is still unread. */
	t_change(kq, sp[0], EVFILT_WRITE, EV_ADD, 0, 0, UW2);
	t_change(kq, sp[0], EVFILT_READ, EV_DELETE, 0, 0, NULL);
	T_EQ(t_get(kq, ev, 8), 1);
	T_KEVENT_MIN(&ev[0], sp[0], EVFILT_WRITE, 0, 0, 1, UW2);
	T_EQ(t_get(kq, ev, 8), 1);
	T_KEVENT_MIN(&ev[0], sp[0], EVFILT_WRITE, 0, 0, 1, UW2);

	/* Disable WRITE: silence, READ stays deleted. */
	t_change(kq, sp[0], EVFILT_WRITE, EV_DISABLE, 0, 0, UW2);
	T_NO_EVENTS(kq);
	return 0;
}
