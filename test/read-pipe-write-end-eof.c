/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * EVFILT_READ on the write end of a pipe reports EV_EOF (data 0) once the
 * read end is closed, as on FreeBSD and macOS: an event loop learns so
 * that a child closed its stdin.  Nothing is reported before.  A FIFO
 * opened write-only stays silent, as on FreeBSD.
 */
#include "t.h"

int main(void)
{
	int kq = t_kqueue(), p[2];
	struct kevent ev[2];

	t_pipe(p);
	t_change(kq, p[1], EVFILT_READ, EV_ADD, 0, 0, (void *)1);
	T_NO_EVENTS(kq);
	close(p[0]);
	T_WAIT1(kq, 1000, p[1], EVFILT_READ, EV_EOF, 0, 0, (void *)1);
	/* a level condition: still there at the next call */
	T_WAIT1(kq, 1000, p[1], EVFILT_READ, EV_EOF, 0, 0, (void *)1);
	close(p[1]);

	char path[] = "/tmp/kq-fifo-XXXXXX";
	int tmp = mkstemp(path);
	T_ASSERT(tmp >= 0);
	close(tmp);
	unlink(path);
	T_ASSERT(mkfifo(path, 0600) == 0);
	int r = open(path, O_RDONLY | O_NONBLOCK);
	int w = open(path, O_WRONLY | O_NONBLOCK);
	unlink(path);
	T_ASSERT(r >= 0 && w >= 0);
	t_change(kq, w, EVFILT_READ, EV_ADD, 0, 0, (void *)2);
	close(r);
	T_EQ(t_wait(kq, ev, 2, 100), 0);
	return 0;
}
