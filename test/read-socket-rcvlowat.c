/*
 * F10: a socket whose SO_RCVLOWAT the program set to 4: a READ knote (no
 * NOTE_LOWAT) does not fire with 3 bytes buffered and fires with 4
 * ({r, READ, 0, 0, 4, udata}); FreeBSD filt_soread honours sb_lowat.
 * Checked on an AF_UNIX socketpair (Linux poll ignores SO_RCVLOWAT there,
 * so the library must compare itself) and on TCP over 127.0.0.1.
 */
#include "t.h"

static void check(int r, int w)
{
	int kq = t_kqueue(), lowat = 4;
	struct kevent ev[8];
	void *ud = (void *)0x10;

	T_ASSERT(setsockopt(r, SOL_SOCKET, SO_RCVLOWAT, &lowat,
			    sizeof lowat) == 0);
	t_change(kq, r, EVFILT_READ, EV_ADD, 0, 0, ud);
	T_NO_EVENTS(kq);

	t_write(w, "abc", 3);
	t_wait_inq(r, 3);
	T_NO_EVENTS(kq);

	t_write(w, "d", 1);
	t_wait_inq(r, 4);
	T_EQ(t_wait(kq, ev, 8, 2000), 1);
	T_KEVENT(&ev[0], r, EVFILT_READ, 0, 0, 4, ud);
	T_ASSERT(close(kq) == 0);
}

int main(void)
{
	int sp[2], r, w;

	t_socketpair(sp);
	check(sp[0], sp[1]);
	t_tcp_pair(&w, &r);
	check(r, w);
	return 0;
}
