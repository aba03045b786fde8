/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * recvmmsg() on a reset connection whose error libkq took for an EV_EOF
 * record fails with ECONNRESET, as it does without libkq; the read after it
 * sees end of file, not the error a second time.
 */
#include "t_reset_error.h"

int main(void)
{
	int c = t_reset_after_eof();
	char b[16];
	struct iovec iov = { b, sizeof b };
	struct mmsghdr m;
	memset(&m, 0, sizeof m);
	m.msg_hdr.msg_iov = &iov;
	m.msg_hdr.msg_iovlen = 1;

	T_ERRNO(recvmmsg(c, &m, 1, MSG_DONTWAIT, NULL), ECONNRESET);
	t_reset_then_eof(c);
	return 0;
}
