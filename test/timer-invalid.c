/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * A first ADD of a timer with data < 0, with two unit bits in
 * fflags, or with an unknown fflags bit fails with EINVAL (as an EV_ERROR
 * record, and as -1/EINVAL with nevents 0) and creates no knote.  Valid
 * unit/NOTE_ABSTIME combinations are accepted.  FreeBSD filt_timervalidate.
 */
#include "t.h"

static void bad(int kq, uintptr_t id, unsigned fflags, int64_t data)
{
	struct kevent ch;
	int err = t_change_err(kq, id, EVFILT_TIMER, EV_ADD, fflags, data,
			       NULL);
	if (err != EINVAL)
		T_FAIL("ADD timer fflags 0x%x data %lld: error %d, want EINVAL",
		       fflags, (long long)data, err);
	EV_SET(&ch, id, EVFILT_TIMER, EV_ADD, fflags, data, NULL);
	T_ERRNO(kevent(kq, &ch, 1, NULL, 0, NULL), EINVAL);
	T_EQ(t_change_err(kq, id, EVFILT_TIMER, EV_DELETE, 0, 0, NULL),
	     ENOENT);
}

int main(void)
{
	int kq = t_kqueue();

	/* data < 0 */
	bad(kq, 1, 0, -1);
	bad(kq, 2, 0, INT64_MIN);
	bad(kq, 3, NOTE_USECONDS, -1);
	bad(kq, 4, NOTE_ABSTIME, -1);
	/* two units */
	bad(kq, 5, NOTE_SECONDS | NOTE_MSECONDS, 1000);
	bad(kq, 6, NOTE_USECONDS | NOTE_NSECONDS, 1000);
	bad(kq, 7, NOTE_SECONDS | NOTE_NSECONDS | NOTE_ABSTIME, 0);
	/* unknown bits */
	bad(kq, 8, 0x100, 1000);
	bad(kq, 9, NOTE_MSECONDS | 0x100, 1000);
	bad(kq, 10, 0x20, 1000);
	bad(kq, 11, 0x80000000u, 1000);
	T_NO_EVENTS(kq);

	/* Controls: one unit, optionally with NOTE_ABSTIME, is fine. */
	t_change(kq, 20, EVFILT_TIMER, EV_ADD, NOTE_SECONDS, 100, NULL);
	t_change(kq, 21, EVFILT_TIMER, EV_ADD, NOTE_MSECONDS, 100000, NULL);
	t_change(kq, 22, EVFILT_TIMER, EV_ADD, NOTE_USECONDS, 100000000,
		 NULL);
	t_change(kq, 23, EVFILT_TIMER, EV_ADD, NOTE_NSECONDS,
		 100000000000LL, NULL);
	struct timespec rt;
	clock_gettime(CLOCK_REALTIME, &rt);
	t_change(kq, 24, EVFILT_TIMER, EV_ADD, NOTE_ABSTIME | NOTE_SECONDS,
		 rt.tv_sec + 100, NULL);
	T_NO_EVENTS(kq);
	close(kq);
	return 0;
}
