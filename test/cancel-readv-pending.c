/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * readv() is a cancellation point (POSIX; glibc's is): a thread with a
 * cancellation request pending (deferred type) is cancelled when it calls
 * it, and the call does not return (here it would wait forever on an empty
 * pipe).
 */
#include "t_cancelpt.h"

#include <sys/uio.h>

static void call(void *arg)
{
	char a[4], b[4];
	struct iovec iov[2] = { { a, sizeof a }, { b, sizeof b } };
	readv(*(int *)arg, iov, 2);
}

int main(void)
{
	T_CANCEL_SKIP_ASAN();
	int p[2];
	t_pipe(p);
	t_cancelpt_pending("readv()", call, &p[0]);
	return 0;
}
