/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * When the ready queue alone can fill a kevent() call, libkq answers from
 * it without asking epoll (the Linux kqueue prototype's "O(1) retrieval"); a
 * descriptor that became ready meanwhile must still get its turn, as in
 * FreeBSD where its activation is queued behind the knotes already there.
 *
 * A level EVFILT_USER knote (no EV_CLEAR) stays triggered, so it is back on
 * the queue after every delivery and the queue can always fill nevents = 1.
 * Calls of one record each, zero timeout: the USER record every time until a
 * pipe is written, then the pipe's record within a bounded number of calls
 * ({p, READ, 0, 0, 3, udata}; FreeBSD: the next call or the one after), and
 * the USER record still alternating with it.
 */
#include "t.h"

int main(void)
{
	int kq = t_kqueue(), p[2];
	struct kevent ev[1];
	void *uu = (void *)0x51, *up = (void *)0x52;

	t_pipe(p);
	t_change(kq, 7, EVFILT_USER, EV_ADD, 0, 0, uu);
	t_change(kq, 7, EVFILT_USER, 0, NOTE_TRIGGER, 0, uu);
	t_change(kq, p[0], EVFILT_READ, EV_ADD, 0, 0, up);
	for (int i = 0; i < 50; i++) {
		T_EQ(t_get(kq, ev, 1), 1);
		T_KEVENT(&ev[0], 7, EVFILT_USER, 0, 0, 0, uu);
	}

	t_write(p[1], "abc", 3);
	int calls = 0, pipe_seen = 0, user_seen = 0;
	while (pipe_seen < 3 && calls < 100) {
		T_EQ(t_get(kq, ev, 1), 1);
		calls++;
		if (ev[0].filter == EVFILT_READ) {
			T_KEVENT(&ev[0], p[0], EVFILT_READ, 0, 0, 3, up);
			if (pipe_seen == 0 && calls > 10)
				T_FAIL("the pipe waited %d calls behind one USER knote", calls);
			pipe_seen++;
		} else {
			T_KEVENT(&ev[0], 7, EVFILT_USER, 0, 0, 0, uu);
			user_seen++;
		}
	}
	T_EQ(pipe_seen, 3);
	T_ASSERT(user_seen >= 2);
	T_ASSERT(close(kq) == 0);
	return 0;
}
