/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * WRITE on a stream socketpair end; when the peer closes, the knote
 * fires with EV_EOF (send side shut down; no socket error, so fflags 0).
 * data (free space) is not checked.
 */
#include "t.h"

int main(void)
{
	int kq = t_kqueue(), sp[2];
	struct kevent ev[8];
	void *ud = (void *)0x605;

	t_socketpair(sp);
	t_change(kq, sp[0], EVFILT_WRITE, EV_ADD, 0, 0, ud);
	T_EQ(t_get(kq, ev, 8), 1);
	T_EQ(ev[0].flags, 0);

	T_ASSERT(close(sp[1]) == 0);
	T_EQ(t_wait(kq, ev, 8, 2000), 1);
	if (ev[0].ident != (uintptr_t)sp[0] || ev[0].filter != EVFILT_WRITE ||
	    ev[0].flags != EV_EOF || ev[0].fflags != 0 || ev[0].udata != ud) {
		t_print_kevent("  got ", &ev[0]);
		T_FAIL("want {sp0, WRITE, EV_EOF, 0, *, udata}");
	}
	return 0;
}
