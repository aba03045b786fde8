/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * An EV_CLEAR WRITE knote reports the peer's close once,
 * not twice: after the initial "writable" record, closing the peer gives
 * exactly one record with EV_EOF (EV_CLEAR kept in flags), and later
 * collections (also 100 ms later) return nothing.  Checked on a stream
 * socketpair (peer close shuts the send side: EV_EOF, fflags 0) and on a
 * pipe's write end whose reader closes (EV_EOF, data 0, FreeBSD
 * filt_pipewrite).
 */
#include "t.h"

static void once(int fd, int peer, int is_pipe)
{
	int kq = t_kqueue();
	void *u = (void *)0xd01;
	struct kevent ev[8];

	t_change(kq, fd, EVFILT_WRITE, EV_ADD | EV_CLEAR, 0, 0, u);
	T_EQ(t_get(kq, ev, 8), 1);
	T_KEVENT_MIN(&ev[0], fd, EVFILT_WRITE, EV_CLEAR, 0, 1, u);
	T_NO_EVENTS(kq);

	T_EQ(close(peer), 0);
	T_EQ(t_wait(kq, ev, 8, 2000), 1);
	if (is_pipe)
		T_KEVENT(&ev[0], fd, EVFILT_WRITE, EV_CLEAR | EV_EOF, 0, 0, u);
	else if (ev[0].ident != (uintptr_t)fd ||
		 ev[0].filter != EVFILT_WRITE ||
		 ev[0].flags != (EV_CLEAR | EV_EOF) || ev[0].fflags != 0 ||
		 ev[0].udata != u) {
		t_print_kevent("  got ", &ev[0]);
		T_FAIL("want {fd, WRITE, EV_CLEAR|EV_EOF, 0, *, udata}");
	}
	T_NO_EVENTS(kq);
	t_sleep_ms(100);
	T_NO_EVENTS(kq);
	T_EQ(t_wait(kq, ev, 8, 100), 0);
	T_EQ(close(kq), 0);
}

int main(void)
{
	int sp[2], p[2];

	t_socketpair(sp);
	once(sp[0], sp[1], 0);
	t_pipe(p);
	once(p[1], p[0], 1);
	return 0;
}
