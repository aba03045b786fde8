/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * fcntl(F_SETLKW) is a cancellation point (POSIX; glibc's is): a thread
 * with a cancellation request pending (deferred type) is cancelled when it
 * calls it, and the call does not return, even when it would not have to
 * wait (here a lock on a file nobody else locks).
 */
#include "t_cancelpt.h"

static void call(void *arg)
{
	struct flock fl = { .l_type = F_WRLCK, .l_whence = SEEK_SET };
	fcntl(*(int *)arg, F_SETLKW, &fl);
}

int main(void)
{
	T_CANCEL_SKIP_ASAN();
	int fd = t_tmp_file(NULL);
	t_cancelpt_pending("fcntl(F_SETLKW)", call, &fd);
	return 0;
}
