/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * sigtimedwait() is a cancellation point (POSIX; glibc's is): a thread with
 * a cancellation request pending (deferred type) is cancelled when it calls
 * it, and the call does not return (here it would wait 1 s for a blocked
 * SIGUSR1 that never comes).
 */
#include "t_cancelpt.h"

static void call(void *arg)
{
	struct timespec ts = { 1, 0 };
	sigtimedwait(arg, NULL, &ts);
}

int main(void)
{
	T_CANCEL_SKIP_ASAN();
	t_cancelpt_pending_sigusr1("sigtimedwait()", call);
	return 0;
}
