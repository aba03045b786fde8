/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * accept4() is a cancellation point (POSIX for accept(); glibc's accept4()
 * is one too): a thread with a cancellation request pending (deferred
 * type) is cancelled when it calls it, and the call does not return (here
 * it would wait forever on a listening socket nobody connects to).
 */
#include "t_cancelpt.h"

static void call(void *arg)
{
	accept4(*(int *)arg, NULL, NULL, SOCK_CLOEXEC);
}

int main(void)
{
	T_CANCEL_SKIP_ASAN();
	struct sockaddr_in sin;
	int l = t_inet_socket(SOCK_STREAM, 4, &sin);
	t_cancelpt_pending("accept4()", call, &l);
	return 0;
}
