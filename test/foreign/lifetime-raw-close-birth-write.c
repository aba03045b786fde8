/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * A close libkq does not see (syscall(SYS_close)) leaves the birth of a
 * UDP socket (socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC)) on its number.
 * When a pipe's write end is moved there (raw dup3, so libkq sees
 * nothing), its first WRITE knote takes the kind from the stale birth; the
 * filter must classify again when the descriptor behaves as no socket can
 * (no socket send space: ENOTSOCK).  Checked, field by field: with 100
 * bytes queued, data is the pipe's free space (F_GETPIPE_SZ - 100); once
 * the read end is closed, EV_EOF with data 0 (FreeBSD filt_pipewrite).
 */
#include "births.h"

#include <sys/syscall.h>

int main(void)
{
	int kq = t_kqueue(), p[2];
	struct kevent ev[4];
	void *ud = (void *)0x5252;
	char buf[100];

	T_ASSERT(syscall(SYS_pipe2, p, O_CLOEXEC) == 0);
	int fd = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	if (fd < 0)
		T_FAIL("socket(AF_INET, SOCK_DGRAM): %s", strerror(errno));
	T_ASSERT(syscall(SYS_close, fd) == 0);
	T_EQ(syscall(SYS_dup3, p[1], fd, O_CLOEXEC), fd);
	T_ASSERT(syscall(SYS_close, p[1]) == 0);
	p[1] = fd;

	int cap = fcntl(fd, F_GETPIPE_SZ);
	T_ASSERT(cap > 0);
	memset(buf, 'w', sizeof buf);
	t_write(fd, buf, sizeof buf);

	t_change(kq, fd, EVFILT_WRITE, EV_ADD, 0, 0, ud);
	T_EQ(t_wait(kq, ev, 4, 1000), 1);
	T_KEVENT(&ev[0], fd, EVFILT_WRITE, 0, 0, cap - (int)sizeof buf, ud);
	T_ASSERT(close(p[0]) == 0);
	T_EQ(t_wait(kq, ev, 4, 1000), 1);
	T_KEVENT(&ev[0], fd, EVFILT_WRITE, EV_EOF, 0, 0, ud);

	T_ASSERT(close(fd) == 0);
	T_ASSERT(close(kq) == 0);
	return 0;
}
