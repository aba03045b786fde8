/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * A kqueue closed by a shared library that does not link libkq is gone
 * (kevent() on the number fails with EBADF) and the number, given to a new
 * kqueue, is a working kqueue with none of the old knotes.
 */
#include "../t.h"
#include "foreign.h"

int main(void)
{
	int p[2];
	struct kevent ev[2];
	struct timespec z = { 0, 0 };

	t_pipe(p);
	int kq = t_kqueue();
	t_change(kq, p[0], EVFILT_READ, EV_ADD, 0, 0, (void *)1);
	T_ASSERT(foreign_close(kq) == 0);
	errno = 0;
	T_ASSERT(kevent(kq, NULL, 0, ev, 2, &z) == -1 && errno == EBADF);

	int kq2 = t_kqueue();
	T_EQ(kq2, kq);
	t_write(p[1], "x", 1);
	T_NO_EVENTS(kq2);
	T_EQ(t_change_err(kq2, p[0], EVFILT_READ, EV_DELETE, 0, 0, NULL), ENOENT);
	t_change(kq2, p[0], EVFILT_READ, EV_ADD, 0, 0, (void *)2);
	T_EQ(t_wait(kq2, ev, 2, 1000), 1);
	T_KEVENT(&ev[0], p[0], EVFILT_READ, 0, 0, 1, (void *)2);
	return 0;
}
