/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * A close libkq does not see (syscall(SYS_close)) leaves the birth of a
 * TCP socket (socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC)) on its number.
 * When a pipe's read end gets the number (made and moved there by raw
 * system calls too, so libkq sees nothing), its first READ knote takes the
 * kind from the stale birth; the filter must classify again when the
 * descriptor behaves as no TCP socket can (a hang-up without RDHUP).
 * Checked, field by field: 5 bytes written report data 5; once the write
 * end is closed, EV_EOF with data 5 (FreeBSD filt_piperead).
 */
#include "births.h"

#include <sys/syscall.h>

int main(void)
{
	int kq = t_kqueue(), p[2];
	struct kevent ev[4];
	void *ud = (void *)0x5151;

	int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (fd < 0)
		T_FAIL("socket(AF_INET, SOCK_STREAM): %s", strerror(errno));
	T_ASSERT(syscall(SYS_close, fd) == 0);
	T_ASSERT(syscall(SYS_pipe2, p, O_CLOEXEC) == 0);
	if (p[0] != fd) {
		T_ASSERT(p[1] != fd);   /* p[0] < p[1], and fd was the lowest */
		T_EQ(syscall(SYS_dup3, p[0], fd, O_CLOEXEC), fd);
		T_ASSERT(syscall(SYS_close, p[0]) == 0);
		p[0] = fd;
	}

	t_change(kq, fd, EVFILT_READ, EV_ADD, 0, 0, ud);
	T_NO_EVENTS(kq);
	t_write(p[1], "hello", 5);
	T_EQ(t_wait(kq, ev, 4, 1000), 1);
	T_KEVENT(&ev[0], fd, EVFILT_READ, 0, 0, 5, ud);
	T_ASSERT(close(p[1]) == 0);
	T_EQ(t_wait(kq, ev, 4, 1000), 1);
	T_KEVENT(&ev[0], fd, EVFILT_READ, EV_EOF, 0, 5, ud);

	T_ASSERT(close(fd) == 0);
	T_ASSERT(close(kq) == 0);
	return 0;
}
