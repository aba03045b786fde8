/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * FreeBSD's filt_sigattach does no range check: {0, SIGNAL},
 * {200, SIGNAL} are accepted and never fire; so are SIGKILL and SIGSTOP,
 * which no process can catch.  Library decision: accepted likewise (the
 * EINVAL of mheily/libkqueue is not followed).  Checked: the four EV_ADDs
 * succeed with no record, sends of SIGUSR1/SIGUSR2 (blocked) and
 * kill(getpid(), 0) make only the SIGUSR1 knote fire, and the four
 * knotes can be deleted (they existed).  SIGSTOP never firing on a real
 * stop is in signal-sigcont.
 */
#include "t.h"

int main(void)
{
	t_fail_after(3, "signal-bad-ident hung");
	sigset_t s;
	sigemptyset(&s);
	sigaddset(&s, SIGUSR1);
	sigaddset(&s, SIGUSR2);
	T_EQ(sigprocmask(SIG_BLOCK, &s, NULL), 0);

	int kq = t_kqueue();
	struct timespec z = { 0, 0 };
	int ud;
	static const uintptr_t odd[] = { 0, 200, SIGKILL, SIGSTOP };

	for (size_t i = 0; i < sizeof odd / sizeof odd[0]; i++) {
		int err = t_change_err(kq, odd[i], EVFILT_SIGNAL, EV_ADD, 0, 0,
				       &ud);
		if (err != 0)
			T_FAIL("EV_ADD {%" PRIuPTR ", EVFILT_SIGNAL} failed: "
			       "%s", odd[i], strerror(err));
	}
	T_NO_EVENTS(kq);
	t_change(kq, SIGUSR1, EVFILT_SIGNAL, EV_ADD, 0, 0, NULL);

	T_EQ(kill(getpid(), 0), 0);
	T_NO_EVENTS(kq);
	T_EQ(kill(getpid(), SIGUSR2), 0);
	T_EQ(kill(getpid(), SIGUSR1), 0);
	T_WAIT1(kq, 2000, SIGUSR1, EVFILT_SIGNAL, EV_CLEAR, 0, 1, NULL);
	T_NO_EVENTS(kq);
	T_EQ(sigtimedwait(&s, NULL, &z) > 0, 1);
	T_EQ(sigtimedwait(&s, NULL, &z) > 0, 1);

	for (size_t i = 0; i < sizeof odd / sizeof odd[0]; i++)
		t_change(kq, odd[i], EVFILT_SIGNAL, EV_DELETE, 0, 0, NULL);
	t_change(kq, SIGUSR1, EVFILT_SIGNAL, EV_DELETE, 0, 0, NULL);
	T_EQ(close(kq), 0);
	alarm(0);
	return 0;
}
