/*
 * D15: EV_ADD of EVFILT_WRITE on a pipe's write end whose read end is already
 * closed fails with EPIPE and creates no knote.  [FB] FreeBSD pipe_kqfilter
 * (NetBSD returns EBADF).  SPEC §3.5, §6.2.
 */
#include "t.h"

int main(void)
{
	int kq = t_kqueue();
	int p[2];
	int ud;
	struct kevent ch, ev[2];
	struct timespec z = { 0, 0 };

	t_pipe(p);
	close(p[0]);

	EV_SET(&ch, p[1], EVFILT_WRITE, EV_ADD, 0, 0, &ud);
	memset(ev, 0xa5, sizeof ev);
	T_EQ(kevent(kq, &ch, 1, ev, 2, &z), 1);
	T_KEVENT(&ev[0], p[1], EVFILT_WRITE, EV_ERROR, 0, EPIPE, &ud);
	T_ERRNO(kevent(kq, &ch, 1, NULL, 0, NULL), EPIPE);

	T_NO_EVENTS(kq);
	T_EQ(t_change_err(kq, p[1], EVFILT_WRITE, EV_DELETE, 0, 0, NULL),
	     ENOENT);
	return 0;
}
