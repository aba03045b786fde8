/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * A socket made by socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC)
 * is private (its file's only descriptor): close() frees the file, the
 * kernel removes its epoll entries, and libkq skips the EPOLL_CTL_DEL.
 * Checked: with a READ knote and a report already taken, close() leaves no
 * entry for the number in the kqueue's epoll set, nothing is reported for
 * it, and the next socket given the number is watched afresh and reports
 * exactly (the skipped DEL must not leave the slot thinking it has one,
 * nor the kqueue skipping the DEL of a later, copied socket's close).
 * Also with the knote deleted before the close (its entry parked).
 */
#include "births.h"

/* parked: the knote is deleted before the close, its entry kept with no
 * knote (filter/fd.c, parking), which the close must let go of as well */
static void check(bool parked)
{
	int kq = t_kqueue();
	struct kevent ev[4];
	struct birth b;

	birth_make(BIRTH_SOCKETPAIR, false, &b);
	t_change(kq, b.fd, EVFILT_READ, EV_ADD, 0, 0, (void *)0x1111);
	birth_expect_entry(kq, b.fd);
	t_write(b.peer, "xy", 2);
	T_EQ(t_wait(kq, ev, 4, 1000), 1);
	T_KEVENT(&ev[0], b.fd, EVFILT_READ, 0, 0, 2, (void *)0x1111);
	if (parked)
		t_change(kq, b.fd, EVFILT_READ, EV_DELETE, 0, 0, NULL);

	int fd = b.fd;
	T_ASSERT(close(fd) == 0);
	birth_expect_no_entry(kq, fd, b.what);
	T_NO_EVENTS(kq);
	T_EQ(t_change_err(kq, fd, EVFILT_READ, EV_DELETE, 0, 0, NULL), EBADF);
	birth_expect_reuse(kq, fd, -1);

	birth_free(&b);
	T_ASSERT(close(kq) == 0);
}

int main(void)
{
	check(false);
	check(true);
	return 0;
}
