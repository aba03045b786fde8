/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * connect() is a cancellation point (POSIX; glibc's is): a thread with a
 * cancellation request pending (deferred type) is cancelled when it calls
 * it, and the call does not return, even when it would not have to wait
 * (here a connection to a listening socket on 127.0.0.1).
 */
#include "t_cancelpt.h"

static struct sockaddr_in sin;

static void call(void *arg)
{
	connect(*(int *)arg, (struct sockaddr *)&sin, sizeof sin);
}

int main(void)
{
	T_CANCEL_SKIP_ASAN();
	int l = t_inet_socket(SOCK_STREAM, 4, &sin);
	int s = socket(AF_INET, SOCK_STREAM, 0);
	T_ASSERT(l >= 0 && s >= 0);
	t_cancelpt_pending("connect()", call, &s);
	return 0;
}
