/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * A blocked real-time signal queued three times and taken by the program
 * with sigwaitinfo() three times: every send is counted (FreeBSD: data 3),
 * whether or not a kevent() looked while they were pending, and however
 * the takes and the looks interleave.  While instances wait, libkq sees
 * only that the signal is pending (one); each take accounts for the rest.
 */
#include "t_signal.h"

static void send3(int sig)
{
	for (int i = 0; i < 3; i++) {
		union sigval v = { .sival_int = 100 + i };
		T_EQ(sigqueue(getpid(), sig, v), 0);
	}
}

/* Takes one instance; they come in the order they were sent. */
static void take(const sigset_t *s, int sig, int i)
{
	siginfo_t si;
	T_EQ(sigwaitinfo(s, &si), sig);
	T_EQ(si.si_value.sival_int, 100 + i);
}

int main(void)
{
	t_fail_after(10, "signal-rt-blocked-sigwaitinfo hung");
	int sig = SIGRTMIN + 1;
	sigset_t s;
	ts_block(&s, sig);
	int kq = t_kqueue();
	t_change(kq, sig, EVFILT_SIGNAL, EV_ADD, 0, 0, (void *)9);

	/* taken without any kevent() in between */
	send3(sig);
	for (int i = 0; i < 3; i++)
		take(&s, sig, i);
	T_EQ(ts_collect(kq, sig, 2000, (void *)9), 3);
	T_NO_EVENTS(kq);

	/* looked at while pending, then taken one by one with a look after
	 * each take (a look must not count the remaining ones again) */
	send3(sig);
	int64_t sum = ts_collect(kq, sig, 2000, (void *)9);
	for (int i = 0; i < 3; i++) {
		take(&s, sig, i);
		sum += ts_collect(kq, sig, 0, (void *)9);
	}
	T_EQ(sum, 3);
	T_NO_EVENTS(kq);
	alarm(0);
	return 0;
}
