/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * sendmsg() is a cancellation point (POSIX; glibc's is): a thread with a
 * cancellation request pending (deferred type) is cancelled when it calls
 * it, and the call does not return, even when it would not have to wait
 * (here a socket with room for the byte).
 */
#include "t_cancelpt.h"

static void call(void *arg)
{
	char c = 'x';
	struct iovec iov = { &c, 1 };
	struct msghdr msg = { .msg_iov = &iov, .msg_iovlen = 1 };
	sendmsg(*(int *)arg, &msg, 0);
}

int main(void)
{
	T_CANCEL_SKIP_ASAN();
	int sp[2];
	t_socketpair(sp);
	t_cancelpt_pending("sendmsg()", call, &sp[0]);
	return 0;
}
