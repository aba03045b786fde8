/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * A close libkq does not see (syscall(SYS_close)) leaves the birth of a TCP
 * socket on its number; a kqueue then created at that number must still be
 * known for a kqueue by the filter, which trusts a socket's birth to rule
 * one out.  Checked as FreeBSD answers: EVFILT_WRITE on a kqueue is EINVAL,
 * and EVFILT_READ on it reports the one knote it has ready (data 1).
 */
#include "births.h"

#include <sys/syscall.h>

int main(void)
{
	int kq = t_kqueue();
	struct kevent ev[4];
	void *ud = (void *)0x4b51;

	int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (fd < 0)
		T_FAIL("socket(AF_INET, SOCK_STREAM): %s", strerror(errno));
	T_ASSERT(syscall(SYS_close, fd) == 0);
	int inner = kqueue();
	T_ASSERT(inner >= 0);
	if (inner != fd)
		T_SKIP("kqueue() took number %d, not the freed %d", inner, fd);

	struct kevent ch;
	EV_SET(&ch, inner, EVFILT_WRITE, EV_ADD, 0, 0, ud);
	T_ERRNO(kevent(kq, &ch, 1, NULL, 0, NULL), EINVAL);

	t_change(inner, 1, EVFILT_USER, EV_ADD, 0, 0, NULL);
	t_change(inner, 1, EVFILT_USER, 0, NOTE_TRIGGER, 0, NULL);
	t_change(kq, inner, EVFILT_READ, EV_ADD, 0, 0, ud);
	T_EQ(t_wait(kq, ev, 4, 1000), 1);
	T_KEVENT(&ev[0], inner, EVFILT_READ, 0, 0, 1, ud);

	T_ASSERT(close(inner) == 0);
	T_ASSERT(close(kq) == 0);
	return 0;
}
