/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * READ on an eventfd reports its counter; the counter is read again at every
 * evaluation, and after the eventfd is closed and its number comes back as
 * another eventfd, a knote on the new one reports the new one's counter.
 * Whatever libkq keeps open to read counters goes with the knotes: once
 * they are gone, no descriptor is left behind.
 */
#include "t.h"

#include <sys/eventfd.h>

int main(void)
{
	int kq = t_kqueue();
	int base = t_count_fds();

	int a = eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);
	T_ASSERT(a >= 0);
	t_change(kq, a, EVFILT_READ, EV_ADD, 0, 0, (void *)0x1);
	for (uint64_t i = 1; i <= 5; i++) {
		t_eventfd_add(a, i);
		T_GET1(kq, a, EVFILT_READ, 0, 0, (int64_t)(i * (i + 1) / 2), (void *)0x1);
	}
	T_ASSERT(close(a) == 0);
	T_NO_EVENTS(kq);
	T_EQ(t_count_fds(), base);

	int b = eventfd(40, EFD_NONBLOCK | EFD_CLOEXEC);
	T_ASSERT(b >= 0);
	if (b != a)
		T_SKIP("the new eventfd did not get the old number (%d, %d)", a, b);
	t_change(kq, b, EVFILT_READ, EV_ADD, 0, 0, (void *)0x2);
	T_GET1(kq, b, EVFILT_READ, 0, 0, 40, (void *)0x2);
	t_eventfd_add(b, 2);
	T_GET1(kq, b, EVFILT_READ, 0, 0, 42, (void *)0x2);

	/* the knote deleted, the eventfd still open: nothing kept for it */
	t_change(kq, b, EVFILT_READ, EV_DELETE, 0, 0, NULL);
	T_EQ(t_count_fds(), base + 1);
	T_ASSERT(close(b) == 0);
	T_EQ(t_count_fds(), base);
	return 0;
}
