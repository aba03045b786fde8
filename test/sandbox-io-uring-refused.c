/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * Where a sandbox refuses io_uring_setup() (EPERM or EACCES, as container
 * runtimes' default profiles do; ENOSYS on a kernel without it), libkq
 * asks each socket's counts with its own system call instead of batching
 * them in io_uring submissions, and the records are the same: in a child
 * under a seccomp filter the test installs (one per answer), 100 TCP
 * pairs with a WRITE knote on each client and a READ knote on each server
 * (t_tcp_counts.h), level-triggered and then EV_ONESHOT, give each record
 * its own socket's exact count, three rounds over.
 * Skipped where seccomp filters cannot be installed.
 */
#include "t_seccomp.h"
#include "t_tcp_counts.h"

#ifndef SYS_io_uring_setup
#define SYS_io_uring_setup 425
#endif

static int child(int err)
{
	if (t_seccomp_refuse(SYS_io_uring_setup, err) != 0)
		return 77;
	if (syscall(SYS_io_uring_setup, 8, NULL) != -1 || errno != err)
		return 77;
	t_nofile_raise();
	tc_run(false);
	tc_run(true);
	return 0;
}

int main(void)
{
	t_seccomp_run(child, "io_uring_setup()");
	return 0;
}
