/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * A caught signal (SIGALRM, handler installed with SA_RESTART) during a
 * kevent() wait with a NULL timeout ends the call with -1/EINTR; kevent() is
 * never restarted (FreeBSD kern_kevent maps ERESTART to EINTR).
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
	t_pipe(wd);
	t_change(kq, wd[0], EVFILT_READ, EV_ADD, 0, 0, NULL);

	/* Makes the wait end after 3 s if the signal did not end it; the
	 * watchdog thread must not take the signal. */
	t_write_later(wd[1], 3000);

	t_on_signal(SIGALRM, on_alarm, SA_RESTART);
	struct itimerval it = { { 0, 0 }, { 0, 100000 } };
	T_ASSERT(setitimer(ITIMER_REAL, &it, NULL) == 0);

	struct kevent ev[1];
	errno = 0;
	int r = kevent(kq, NULL, 0, ev, 1, NULL);
	int e = errno;
	if (r == 1)
		T_FAIL("kevent was not interrupted (the watchdog event "
		       "arrived; restarted after SA_RESTART?)");
	if (r != -1 || e != EINTR)
		T_FAIL("kevent returned %d/errno %d (%s), expected -1/EINTR",
		       r, e, strerror(e));
	T_EQ(caught, 1);
	T_NO_EVENTS(kq);
	return 0;
}
