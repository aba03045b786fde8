/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * sigwaitinfo() is a cancellation point (POSIX; glibc's is): a thread with
 * a cancellation request pending (deferred type) is cancelled when it calls
 * it, and the call does not return (here it would wait forever for a
 * blocked SIGUSR1 that never comes).
 */
#include "t_cancelpt.h"

static void call(void *arg)
{
	siginfo_t si;
	sigwaitinfo(arg, &si);
}

int main(void)
{
	T_CANCEL_SKIP_ASAN();
	sigset_t set;
	sigemptyset(&set);
	sigaddset(&set, SIGUSR1);
	T_EQ(sigprocmask(SIG_BLOCK, &set, NULL), 0);
	t_cancelpt_pending("sigwaitinfo()", call, &set);
	return 0;
}
