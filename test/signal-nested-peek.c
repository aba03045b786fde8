/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * Kqueue skq has a SIGUSR1 knote and is watched by kq with
 * {skq, READ, EV_CLEAR}; SIGUSR1 is blocked.  100 times: kill(self); a
 * zero-timeout get on kq returns 1 record at once ({skq, READ, EV_CLEAR,
 * 0, 1}: one event pending in skq), then 0; a zero-timeout get on skq
 * returns {SIGUSR1, SIGNAL, EV_CLEAR, 0, 1}, then 0; sigtimedwait() still
 * returns SIGUSR1 (not consumed), then fails with EAGAIN.
 * FreeBSD tests/sys/kqueue/kqueue_peek_signal.c (review D31858: a signal to
 * self is visible through a nested kqueue with a zero timeout).
 */
#include "t_signal.h"

int main(void)
{
	t_fail_after(3, "signal-nested-peek hung");
	sigset_t s;
	ts_block(&s, SIGUSR1);

	int skq = t_kqueue();
	int sud, kud;
	t_change(skq, SIGUSR1, EVFILT_SIGNAL, EV_ADD, 0, 0, &sud);
	int kq = t_kqueue();
	t_change(kq, skq, EVFILT_READ, EV_ADD | EV_CLEAR, 0, 0, &kud);
	T_NO_EVENTS(kq);

	for (int i = 0; i < 100; i++) {
		struct kevent ev[2];
		struct timespec z = { 0, 0 };
		siginfo_t si;

		T_EQ(kill(getpid(), SIGUSR1), 0);
		int n = t_get(kq, ev, 1);
		if (n != 1)
			T_FAIL("iteration %d: outer zero-timeout get returned "
			       "%d, expected 1", i, n);
		T_KEVENT(&ev[0], skq, EVFILT_READ, EV_CLEAR, 0, 1, &kud);
		T_EQ(t_get(kq, ev, 1), 0);

		n = t_get(skq, ev, 1);
		if (n != 1)
			T_FAIL("iteration %d: inner get returned %d", i, n);
		T_KEVENT(&ev[0], SIGUSR1, EVFILT_SIGNAL, EV_CLEAR, 0, 1, &sud);
		T_EQ(t_get(skq, ev, 1), 0);

		T_EQ(sigtimedwait(&s, &si, &z), SIGUSR1);
		T_ERRNO(sigtimedwait(&s, &si, &z), EAGAIN);
	}
	T_EQ(close(kq), 0);
	T_EQ(close(skq), 0);
	alarm(0);
	return 0;
}
