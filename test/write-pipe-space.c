/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * WRITE on a pipe's write end fires with data = free space
 * (>= PIPE_BUF on an empty pipe).  With less than PIPE_BUF bytes free (pipe
 * filled, then 100 bytes read) it does not fire (FreeBSD/NetBSD
 * filt_pipewrite: data >= PIPE_BUF); once the pipe is drained it fires again.
 */
#include "t.h"

#include <limits.h>

int main(void)
{
	int kq = t_kqueue(), p[2];
	struct kevent ev[8];
	void *ud = (void *)0x602;
	static char buf[4096];
	ssize_t n;

	t_pipe(p);
	T_ASSERT(fcntl(p[1], F_SETFL, O_NONBLOCK) == 0);
	T_ASSERT(fcntl(p[0], F_SETFL, O_NONBLOCK) == 0);

	/* An empty pipe: data >= PIPE_BUF. */
	t_change(kq, p[1], EVFILT_WRITE, EV_ADD, 0, 0, ud);
	T_EQ(t_get(kq, ev, 8), 1);
	T_KEVENT_MIN(&ev[0], p[1], EVFILT_WRITE, 0, 0, PIPE_BUF, ud);

	/* Fill completely, then free 100 bytes (< PIPE_BUF). */
	while ((n = write(p[1], buf, sizeof buf)) > 0)
		;
	T_ASSERT(n < 0 && errno == EAGAIN);
	while ((n = write(p[1], buf, 1)) > 0)
		;
	T_ASSERT(n < 0 && errno == EAGAIN);
	T_NO_EVENTS(kq);
	T_EQ(read(p[0], buf, 100), 100);
	T_NO_EVENTS(kq);

	/* Drained: fires again. */
	while (read(p[0], buf, sizeof buf) > 0)
		;
	T_EQ(t_wait(kq, ev, 8, 2000), 1);
	T_KEVENT_MIN(&ev[0], p[1], EVFILT_WRITE, 0, 0, PIPE_BUF, ud);
	return 0;
}
