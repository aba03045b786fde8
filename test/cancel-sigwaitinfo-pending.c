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
	t_cancelpt_pending_sigusr1("sigwaitinfo()", call);
	return 0;
}
