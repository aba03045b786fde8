/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * A zero timeout returns what is ready even when the knotes that
 * happen to be queued first turned stale.  A READ knote is left queued and
 * its pipe drained; disabled EV_CLEAR knotes see writes (their epoll entries
 * report, but nothing is activated); a WRITE knote is then ready at once.
 * kevent() with one slot and a zero timeout must return the WRITE knote,
 * not 0 because its first harvest found only stale and disabled entries.
 */
#include "t.h"

int main(void)
{
	int kq = t_kqueue();
	int p[6][2];
	char buf[8];
	struct kevent ev[1];
	void *ud = (void *)(uintptr_t)0x705;

	for (int i = 0; i < 6; i++)
		t_pipe(p[i]);
	for (int i = 0; i < 2; i++) {
		t_change(kq, p[i][0], EVFILT_READ, EV_ADD, 0, 0, NULL);
		t_write(p[i][1], "x", 1);
	}
	T_EQ(t_get(kq, ev, 1), 1);
	T_ASSERT(read(p[0][0], buf, sizeof buf) == 1);
	T_ASSERT(read(p[1][0], buf, sizeof buf) == 1);
	for (int i = 2; i < 5; i++) {
		t_change(kq, p[i][0], EVFILT_READ, EV_ADD | EV_CLEAR | EV_DISABLE,
			 0, 0, NULL);
		t_write(p[i][1], "x", 1);
	}
	t_change(kq, p[5][1], EVFILT_WRITE, EV_ADD | EV_CLEAR, 0, 0, ud);
	T_EQ(t_get(kq, ev, 1), 1);
	T_KEVENT_MIN(&ev[0], p[5][1], EVFILT_WRITE, EV_CLEAR, 0, 1, ud);
	T_NO_EVENTS(kq);
	return 0;
}
