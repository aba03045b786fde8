/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * close() of a descriptor with a knote is a cancellation point too, and a
 * close() that acts on a pending cancellation request leaves things as they
 * are after it: the kqueue usable from other threads (no lock left held by
 * the cancelled thread), and the descriptor's knote alive exactly if the
 * descriptor is still open (glibc acts on the request before closing,
 * FreeBSD after: either way a knote may not outlive its descriptor, nor an
 * open descriptor lose its knote).
 */
#include "t_cancelpt.h"

static void call_close(void *arg)
{
	close(*(int *)arg);
}

int main(void)
{
	T_CANCEL_SKIP_ASAN();
	alarm(20);   /* watchdog: a lock kept by the cancelled thread hangs */
	int kq = t_kqueue();
	int p[2];
	t_pipe(p);
	t_change(kq, p[0], EVFILT_READ, EV_ADD, 0, 0, &kq);
	t_cancelpt_pending("close() of a descriptor with a knote", call_close, &p[0]);

	/* The kqueue still works: another registration reports. */
	t_cancel_kq_works(kq);

	struct kevent ev[4];
	if (fcntl(p[0], F_GETFD) >= 0) {
		/* still open: its knote reports a byte */
		t_write(p[1], "x", 1);
		int n = t_wait(kq, ev, 4, 2000);
		if (n != 1)
			T_FAIL("close() acted on the cancellation request and "
			       "left the descriptor open, but its knote is gone");
		T_KEVENT(&ev[0], p[0], EVFILT_READ, 0, 0, 1, &kq);
		T_EQ(close(p[0]), 0);
	} else {
		T_EQ(errno, EBADF);
		T_NO_EVENTS(kq);
	}
	/* and in both cases no knote remains now */
	T_NO_EVENTS(kq);
	alarm(0);
	return 0;
}
