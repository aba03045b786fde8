/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * READ and WRITE knotes on one socket come back in the order FreeBSD's
 * queue holds them, which is activation order (event libraries such as
 * libuv rely on it: its out-of-band poll test expects READ first):
 *   - registered READ then WRITE in one call, both ready: READ, WRITE;
 *   - the same in two calls: READ, WRITE; registered WRITE then READ:
 *     WRITE, READ;
 *   - WRITE ready and delivered (level: it goes back to the queue's tail)
 *     before data arrives for READ: WRITE, READ, and again WRITE, READ on
 *     the next call, the order the queue keeps.
 */
#include "t.h"

static void *const UR = (void *)0x5eadu;
static void *const UW = (void *)0x5717eu;

static void check_pair(const struct kevent *ev, int fd, short first)
{
	for (int i = 0; i < 2; i++) {
		short f = i == 0 ? first : (first == EVFILT_READ ? EVFILT_WRITE : EVFILT_READ);
		if (f == EVFILT_READ)
			T_KEVENT(&ev[i], fd, EVFILT_READ, 0, 0, 1, UR);
		else
			T_KEVENT_MIN(&ev[i], fd, EVFILT_WRITE, 0, 0, 1, UW);
	}
}

int main(void)
{
	struct kevent ch[2], ev[4];

	/* one call, READ first */
	int kq = t_kqueue(), sp[2];
	t_socketpair(sp);
	t_write(sp[1], "x", 1);
	EV_SET(&ch[0], sp[0], EVFILT_READ, EV_ADD, 0, 0, UR);
	EV_SET(&ch[1], sp[0], EVFILT_WRITE, EV_ADD, 0, 0, UW);
	T_EQ(kevent(kq, ch, 2, NULL, 0, NULL), 0);
	T_EQ(t_get(kq, ev, 4), 2);
	check_pair(ev, sp[0], EVFILT_READ);
	T_EQ(t_get(kq, ev, 4), 2);   /* level: the queue keeps its order */
	check_pair(ev, sp[0], EVFILT_READ);
	close(kq);
	close(sp[0]);
	close(sp[1]);

	/* two calls, each order */
	for (int w_first = 0; w_first < 2; w_first++) {
		kq = t_kqueue();
		t_socketpair(sp);
		t_write(sp[1], "x", 1);
		if (w_first) {
			t_change(kq, sp[0], EVFILT_WRITE, EV_ADD, 0, 0, UW);
			t_change(kq, sp[0], EVFILT_READ, EV_ADD, 0, 0, UR);
		} else {
			t_change(kq, sp[0], EVFILT_READ, EV_ADD, 0, 0, UR);
			t_change(kq, sp[0], EVFILT_WRITE, EV_ADD, 0, 0, UW);
		}
		T_EQ(t_get(kq, ev, 4), 2);
		check_pair(ev, sp[0], w_first ? EVFILT_WRITE : EVFILT_READ);
		close(kq);
		close(sp[0]);
		close(sp[1]);
	}

	/* WRITE delivered while READ has nothing, then data: WRITE, READ */
	kq = t_kqueue();
	t_socketpair(sp);
	t_change(kq, sp[0], EVFILT_READ, EV_ADD, 0, 0, UR);
	t_change(kq, sp[0], EVFILT_WRITE, EV_ADD, 0, 0, UW);
	for (int i = 0; i < 2; i++) {
		T_EQ(t_get(kq, ev, 4), 1);
		T_KEVENT_MIN(&ev[0], sp[0], EVFILT_WRITE, 0, 0, 1, UW);
	}
	t_write(sp[1], "x", 1);
	T_EQ(t_get(kq, ev, 4), 2);
	check_pair(ev, sp[0], EVFILT_WRITE);
	T_EQ(t_get(kq, ev, 4), 2);
	check_pair(ev, sp[0], EVFILT_WRITE);
	return 0;
}
