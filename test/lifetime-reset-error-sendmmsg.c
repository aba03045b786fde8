/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * sendmmsg() on a reset connection whose error libkq took for an EV_EOF
 * record fails with ECONNRESET and raises no SIGPIPE, as it does without
 * libkq; the read after it sees end of file.
 */
#include "t_reset_error.h"

static volatile sig_atomic_t piped;

static void on_pipe(int sig)
{
	(void)sig;
	piped = 1;
}

int main(void)
{
	signal(SIGPIPE, on_pipe);
	int c = t_reset_after_eof();
	char b[4] = "abc";
	struct iovec iov = { b, sizeof b };
	struct mmsghdr m;
	memset(&m, 0, sizeof m);
	m.msg_hdr.msg_iov = &iov;
	m.msg_hdr.msg_iovlen = 1;

	T_ERRNO(sendmmsg(c, &m, 1, MSG_DONTWAIT), ECONNRESET);
	T_EQ(piped, 0);
	t_reset_then_eof(c);
	return 0;
}
