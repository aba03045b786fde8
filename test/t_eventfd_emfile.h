/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * The read-eventfd-emfile* tests: at the descriptor limit (RLIMIT_NOFILE
 * reached), READ and WRITE knotes on an eventfd still report its counter
 * (READ data = counter, WRITE data = 0xfffffffffffffffe - counter).
 * libkq reads it from a /proc fdinfo file it must open, and keeps one
 * descriptor in reserve for that while it reads any eventfd's counter.
 * The kqueue watches eventfd A (read once), so its fdinfo file and the
 * spare are open: both out of the program's way, whose next number is
 * still B's plus one.  Then the program lowers its soft limit (the test's
 * `lower`: setrlimit(), prlimit(), a signal handler), the table is filled,
 * and eventfd B's knotes are evaluated for the first time; both keep
 * their counts, round after round.
 */
#ifndef T_EVENTFD_EMFILE_H
#define T_EVENTFD_EMFILE_H

#include "t_fdfill.h"

#include <sys/eventfd.h>

static inline void t_eventfd_emfile(void (*lower)(const struct rlimit *low))
{
	int kq = t_kqueue();
	struct kevent ev[8];
	int a = eventfd(0, EFD_NONBLOCK), b = eventfd(0, EFD_NONBLOCK);
	T_ASSERT(a >= 0 && b >= 0);

	t_change(kq, a, EVFILT_READ, EV_ADD, 0, 0, (void *)1);
	t_eventfd_add(a, 3);
	T_GET1(kq, a, EVFILT_READ, 0, 0, 3, (void *)1);
	int next = dup(0);
	if (next != b + 1)
		T_FAIL("with eventfd %d's count read in kqueue %d, the next number is "
		       "%d, not %d", a, kq, next, b + 1);
	T_ASSERT(close(next) == 0);

	struct t_fdfill fill;
	struct rlimit low;
	t_fdfill_plan(&fill, &low);
	lower(&low);
	struct rlimit now;
	T_ASSERT(getrlimit(RLIMIT_NOFILE, &now) == 0);
	T_EQ(now.rlim_cur, low.rlim_cur);
	t_fdfill_rest(&fill);

	t_change(kq, b, EVFILT_READ, EV_ADD, 0, 0, (void *)2);
	t_eventfd_add(b, 7);
	for (int round = 0; round < 3; round++) {
		int n = t_get(kq, ev, 8);
		T_EQ(n, 2);
		for (int i = 0; i < n; i++) {
			if (ev[i].udata == (void *)1)
				T_KEVENT(&ev[i], a, EVFILT_READ, 0, 0, 3 + round, (void *)1);
			else
				T_KEVENT(&ev[i], b, EVFILT_READ, 0, 0, 7 + round, (void *)2);
		}
		t_eventfd_add(a, 1);
		t_eventfd_add(b, 1);
	}
	t_change(kq, b, EVFILT_WRITE, EV_ADD | EV_ONESHOT, 0, 0, (void *)3);
	int n = t_get(kq, ev, 8);
	T_EQ(n, 3);
	for (int i = 0; i < n; i++)
		if (ev[i].udata == (void *)3)
			T_KEVENT(&ev[i], b, EVFILT_WRITE, EV_ONESHOT, 0,
				 (int64_t)(UINT64_C(0xfffffffffffffffe) - 10), (void *)3);

	t_fdfill_undo(&fill);
}

#endif
