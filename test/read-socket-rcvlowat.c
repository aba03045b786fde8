/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * A socket whose SO_RCVLOWAT the program set to 4: a READ knote (no
 * NOTE_LOWAT) does not fire with 3 bytes buffered and fires with 4
 * ({r, READ, 0, 0, 4, udata}); FreeBSD filt_soread honours sb_lowat.
 * Checked on an AF_UNIX socketpair (Linux poll ignores SO_RCVLOWAT there,
 * so the library must compare itself) and on TCP over 127.0.0.1, with 4 and
 * with 300 (libkq caches small values in the knote and asks for large ones).
 */
#include "t.h"

static void check(int r, int w, int lowat)
{
	int kq = t_kqueue();
	char buf[512];
	void *ud = (void *)0x10;

	T_ASSERT(setsockopt(r, SOL_SOCKET, SO_RCVLOWAT, &lowat,
			    sizeof lowat) == 0);
	t_change(kq, r, EVFILT_READ, EV_ADD, 0, 0, ud);
	T_NO_EVENTS(kq);

	memset(buf, 'x', sizeof buf);
	t_write(w, buf, (size_t)lowat - 1);
	t_wait_inq(r, lowat - 1);
	T_NO_EVENTS(kq);

	t_write(w, "d", 1);
	t_wait_inq(r, lowat);
	T_WAIT1(kq, 2000, r, EVFILT_READ, 0, 0, lowat, ud);
	T_ASSERT(close(kq) == 0);
	T_ASSERT(read(r, buf, sizeof buf) == lowat);
}

int main(void)
{
	int sp[2], r, w;

	for (int lowat = 4; lowat <= 300; lowat += 296) {
		t_socketpair(sp);
		check(sp[0], sp[1], lowat);
		t_tcp_pair(&w, &r);
		check(r, w, lowat);
	}
	return 0;
}
