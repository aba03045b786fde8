/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * write() is a cancellation point (POSIX; glibc's is): a thread with a
 * cancellation request pending (deferred type) is cancelled when it calls
 * it, and the call does not return, even when it would not have to wait
 * (here a pipe with room for the byte).
 */
#include "t_cancelpt.h"

static void call(void *arg)
{
	if (write(*(int *)arg, "x", 1) < 0) {
		/* the test looks only at whether it returned */
	}
}

int main(void)
{
	T_CANCEL_SKIP_ASAN();
	int p[2];
	t_pipe(p);
	t_cancelpt_pending("write()", call, &p[1]);
	return 0;
}
