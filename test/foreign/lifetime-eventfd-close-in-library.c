/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * An eventfd watched by a READ knote, closed by a shared library that does
 * not link libkq: the knote goes as on FreeBSD, and with it whatever libkq
 * kept open to read the eventfd's counter (the kqueue may keep the
 * counter's /proc file open while the eventfd has knotes).  No descriptor
 * is left behind, and an eventfd given the same number afterwards reports
 * its own counter.
 */
#include "../t.h"
#include "foreign.h"

#include <sys/eventfd.h>

int main(void)
{
	int before = t_count_fds();
	int kq = t_kqueue();
	struct kevent ev[4];
	int base = t_count_fds();

	int a = eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);
	T_ASSERT(a >= 0);
	t_change(kq, a, EVFILT_READ, EV_ADD, 0, 0, (void *)0x1);
	t_change(kq, a, EVFILT_WRITE, EV_ADD | EV_DISPATCH, 0, 0, (void *)0x3);
	T_EQ(t_get(kq, ev, 4), 1);
	T_KEVENT(&ev[0], a, EVFILT_WRITE, EV_DISPATCH, 0, 0xfffffffffffffffeLL, (void *)0x3);
	for (uint64_t i = 1; i <= 3; i++) {
		t_eventfd_add(a, i);
		T_EQ(t_get(kq, ev, 4), 1);
		T_KEVENT(&ev[0], a, EVFILT_READ, 0, 0, (int64_t)(i * (i + 1) / 2), (void *)0x1);
	}

	T_ASSERT(foreign_close(a) == 0);
	T_NO_EVENTS(kq);
	T_EQ(t_count_fds(), base);
	T_EQ(t_change_err(kq, a, EVFILT_READ, EV_DELETE, 0, 0, NULL), EBADF);

	int b = eventfd(7, EFD_NONBLOCK | EFD_CLOEXEC);
	T_ASSERT(b >= 0);
	if (b != a)
		T_SKIP("the new eventfd did not get the old number (%d, %d)", a, b);
	T_EQ(t_change_err(kq, b, EVFILT_WRITE, EV_DELETE, 0, 0, NULL), ENOENT);
	t_change(kq, b, EVFILT_READ, EV_ADD, 0, 0, (void *)0x2);
	T_EQ(t_get(kq, ev, 4), 1);
	T_KEVENT(&ev[0], b, EVFILT_READ, 0, 0, 7, (void *)0x2);

	/* the same close from the library once more, then the kqueue's own */
	T_ASSERT(foreign_close(b) == 0);
	T_EQ(t_count_fds(), base);
	T_ASSERT(close(kq) == 0);
	T_EQ(t_count_fds(), before);
	return 0;
}
