/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * close() is a cancellation point (POSIX; glibc's is): a thread with a
 * cancellation request pending (deferred type) that calls close() is
 * cancelled there, and close() does not return to it.
 */
#include "t_cancelpt.h"

static void call_close(void *arg)
{
	close(*(int *)arg);
}

int main(void)
{
	T_CANCEL_SKIP_ASAN();
	int p[2];
	t_pipe(p);
	t_cancelpt_pending("close()", call_close, &p[0]);
	return 0;
}
