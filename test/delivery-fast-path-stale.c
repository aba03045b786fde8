/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * A kevent() call that returns fewer records than nevents owes every
 * pending event (nothing may be lost).  libkq's queue-only fast path must
 * therefore not answer from its ready queue when a queued knote turns out
 * not to fire.  Two USER knotes are triggered (both queued), then knote 2 is
 * reset by a change with EV_CLEAR (FreeBSD's touch clears the trigger; the
 * knote may stay on the queue until the next scan), and a pipe becomes
 * readable.  kevent(nevents = 2) returns exactly {1, USER, 0, 0, 0, u1} and
 * {p, READ, 0, 0, 4, up}, in any order.  (Found by the fuzzer.)
 */
#include "t.h"

int main(void)
{
	int kq = t_kqueue(), p[2];
	struct kevent ev[4];
	void *u1 = (void *)0x61, *u2 = (void *)0x62, *up = (void *)0x63;

	t_pipe(p);
	t_change(kq, p[0], EVFILT_READ, EV_ADD, 0, 0, up);
	t_change(kq, 1, EVFILT_USER, EV_ADD, 0, 0, u1);
	t_change(kq, 2, EVFILT_USER, EV_ADD, 0, 0, u2);
	t_change(kq, 1, EVFILT_USER, 0, NOTE_TRIGGER, 0, u1);
	t_change(kq, 2, EVFILT_USER, 0, NOTE_TRIGGER, 0, u2);
	t_change(kq, 2, EVFILT_USER, EV_CLEAR, 0, 0, u2);
	t_write(p[1], "abcd", 4);

	T_EQ(t_get(kq, ev, 2), 2);
	int user = ev[0].filter == EVFILT_USER ? 0 : 1;
	T_KEVENT(&ev[user], 1, EVFILT_USER, 0, 0, 0, u1);
	T_KEVENT(&ev[1 - user], p[0], EVFILT_READ, 0, 0, 4, up);
	T_ASSERT(close(kq) == 0);
	return 0;
}
