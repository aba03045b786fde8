/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * recvmsg() is a cancellation point (POSIX; glibc's is): a thread with a
 * cancellation request pending (deferred type) is cancelled when it calls
 * it, and the call does not return (here it would wait forever on a socket
 * with nothing to read).
 */
#include "t_cancelpt.h"

static void call(void *arg)
{
	char buf[8];
	struct iovec iov = { buf, sizeof buf };
	struct msghdr msg = { .msg_iov = &iov, .msg_iovlen = 1 };
	recvmsg(*(int *)arg, &msg, 0);
}

int main(void)
{
	T_CANCEL_SKIP_ASAN();
	int sp[2];
	t_socketpair(sp);
	t_cancelpt_pending("recvmsg()", call, &sp[0]);
	return 0;
}
