/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * kevent(kq, ch, 1, ev, 1, NULL) with one ADD in the changelist,
 * interrupted by a caught SIGALRM (SA_RESTART) while waiting, returns
 * -1/EINTR and the ADD is in effect afterwards (FreeBSD kevent(2) ERRORS:
 * "all changes in the changelist have been applied").
 */
#include "t.h"

#include <sys/time.h>

static volatile sig_atomic_t caught;
static int wd[2];

static void on_alarm(int sig)
{
	(void)sig;
	caught++;
}

int main(void)
{
	int kq = t_kqueue();
	int p[2];
	t_pipe(p);
	t_pipe(wd);
	t_change(kq, wd[0], EVFILT_READ, EV_ADD, 0, 0, NULL);

	/* Makes the wait end after 3 s if the signal did not end it. */
	t_write_later(wd[1], 3000);

	t_on_signal(SIGALRM, on_alarm, SA_RESTART);
	struct itimerval it = { { 0, 0 }, { 0, 100000 } };
	T_ASSERT(setitimer(ITIMER_REAL, &it, NULL) == 0);

	int tag;
	struct kevent ch, ev[1];
	EV_SET(&ch, p[0], EVFILT_READ, EV_ADD, 0, 0, &tag);
	errno = 0;
	int r = kevent(kq, &ch, 1, ev, 1, NULL);
	int e = errno;
	if (r == 1)
		t_print_kevent("  got", &ev[0]);
	if (r != -1 || e != EINTR)
		T_FAIL("kevent returned %d/errno %d (%s), expected -1/EINTR",
		       r, e, strerror(e));
	T_EQ(caught, 1);

	/* The ADD is in effect. */
	T_NO_EVENTS(kq);
	t_write(p[1], "abc", 3);
	T_GET1(kq, p[0], EVFILT_READ, 0, 0, 3, &tag);
	return 0;
}
