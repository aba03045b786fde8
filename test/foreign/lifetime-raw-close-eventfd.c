/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * An eventfd's number closed where libkq cannot see it (syscall(SYS_close))
 * after a READ knote on it has reported its counter, so that the kqueue
 * may be keeping the counter's /proc file open for that number.
 *
 *   alone   the eventfd had no other descriptor: its file, and its epoll
 *           entry, went with the close.  An eventfd made at the number by
 *           a raw system call is watched afresh by the next EV_ADD, which
 *           reports its counter (40) and its udata, never the old ones.
 *   copied  a dup() keeps the eventfd alive, and so its epoll entry under
 *           the closed number; a pipe takes the number.  A write to the
 *           eventfd through its copy wakes that entry, but the number now
 *           names an empty pipe: FreeBSD's knote died with the close, so no
 *           record may come, certainly not one with the eventfd's counter.
 *           The next EV_ADD watches the pipe (data 2 for 2 bytes).
 *   copied, WRITE  the same for a WRITE knote: the number becomes a full
 *           pipe's write end, while the eventfd's entry goes on saying it
 *           is writable; no record, and then no knote (EV_DELETE: ENOENT).
 *
 * Either way nothing libkq opened is left once the knotes and the files
 * are gone.
 */
#include "../t.h"
#include "foreign.h"

#include <fcntl.h>
#include <sys/eventfd.h>
#include <sys/syscall.h>

/* A pipe made by raw system calls with its end `end` (0 read, 1 write) at
 * number `at` (free); the other end's number in *other. */
static void raw_pipe_at(int at, int end, int *other)
{
	int p[2];
	T_ASSERT(syscall(SYS_pipe2, p, O_CLOEXEC | O_NONBLOCK) == 0);
	if (p[end] != at) {
		T_ASSERT(p[!end] != at || end == 1);
		if (p[!end] == at) {   /* `at` was the lowest: swap the ends */
			int t = (int)syscall(SYS_fcntl, p[0], F_DUPFD_CLOEXEC, 0);
			T_ASSERT(t >= 0);
			p[0] = t;
		}
		T_EQ(syscall(SYS_dup3, p[end], at, O_CLOEXEC), at);
		T_ASSERT(syscall(SYS_close, p[end]) == 0);
	}
	*other = p[!end];
}

static void alone(int kq, int base)
{
	struct kevent ev[4];
	int a = eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);
	T_ASSERT(a >= 0);
	t_change(kq, a, EVFILT_READ, EV_ADD, 0, 0, (void *)0x1);
	t_eventfd_add(a, 3);
	T_EQ(t_get(kq, ev, 4), 1);
	T_KEVENT(&ev[0], a, EVFILT_READ, 0, 0, 3, (void *)0x1);

	T_ASSERT(foreign_raw_close(a) == 0);
	int b = (int)syscall(SYS_eventfd2, 40, EFD_NONBLOCK | EFD_CLOEXEC);
	T_ASSERT(b >= 0);
	if (b != a)
		T_SKIP("the new eventfd did not get the old number (%d, %d)", a, b);
	T_NO_EVENTS(kq);
	t_change(kq, b, EVFILT_READ, EV_ADD, 0, 0, (void *)0x2);
	T_EQ(t_get(kq, ev, 4), 1);
	T_KEVENT(&ev[0], b, EVFILT_READ, 0, 0, 40, (void *)0x2);
	t_eventfd_add(b, 2);
	T_EQ(t_get(kq, ev, 4), 1);
	T_KEVENT(&ev[0], b, EVFILT_READ, 0, 0, 42, (void *)0x2);

	t_change(kq, b, EVFILT_READ, EV_DELETE, 0, 0, NULL);
	T_ASSERT(close(b) == 0);
	T_EQ(t_count_fds(), base);
}

static void copied(int kq, int base)
{
	struct kevent ev[4];
	int a = eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);
	T_ASSERT(a >= 0);
	int copy = dup(a);
	T_ASSERT(copy >= 0);
	t_change(kq, a, EVFILT_READ, EV_ADD, 0, 0, (void *)0x3);
	t_eventfd_add(copy, 5);
	T_EQ(t_get(kq, ev, 4), 1);
	T_KEVENT(&ev[0], a, EVFILT_READ, 0, 0, 5, (void *)0x3);
	uint64_t v;
	T_EQ(read(copy, &v, sizeof v), (ssize_t)sizeof v);   /* counter back to 0 */
	T_NO_EVENTS(kq);

	T_ASSERT(foreign_raw_close(a) == 0);
	int w;
	raw_pipe_at(a, 0, &w);
	t_eventfd_add(copy, 1);
	T_NO_EVENTS(kq);

	t_change(kq, a, EVFILT_READ, EV_ADD, 0, 0, (void *)0x4);
	T_NO_EVENTS(kq);
	t_write(w, "xy", 2);
	T_EQ(t_get(kq, ev, 4), 1);
	T_KEVENT(&ev[0], a, EVFILT_READ, 0, 0, 2, (void *)0x4);
	t_eventfd_add(copy, 1);
	T_EQ(t_get(kq, ev, 4), 1);   /* the pipe's record, nothing of the eventfd */
	T_KEVENT(&ev[0], a, EVFILT_READ, 0, 0, 2, (void *)0x4);

	t_change(kq, a, EVFILT_READ, EV_DELETE, 0, 0, NULL);
	T_ASSERT(close(a) == 0);
	T_ASSERT(close(w) == 0);
	T_ASSERT(close(copy) == 0);
	T_EQ(t_count_fds(), base);
}

static void copied_write(int kq, int base)
{
	struct kevent ev[4];
	int a = eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);
	T_ASSERT(a >= 0);
	int copy = dup(a);
	T_ASSERT(copy >= 0);
	t_eventfd_add(copy, 9);
	t_change(kq, a, EVFILT_WRITE, EV_ADD, 0, 0, (void *)0x5);
	for (int i = 0; i < 2; i++) {   /* level-triggered: every call */
		T_EQ(t_get(kq, ev, 4), 1);
		T_KEVENT(&ev[0], a, EVFILT_WRITE, 0, 0, 0xfffffffffffffffeLL - 9, (void *)0x5);
	}

	T_ASSERT(foreign_raw_close(a) == 0);
	int r;
	raw_pipe_at(a, 1, &r);
	char buf[4096] = { 0 };
	while (write(a, buf, sizeof buf) > 0)
		;
	T_EQ(errno, EAGAIN);
	t_eventfd_add(copy, 1);
	T_NO_EVENTS(kq);
	/* that evaluation found the entry no longer the number's and dropped
	 * the knote: on FreeBSD it died with the close */
	T_EQ(t_change_err(kq, a, EVFILT_WRITE, EV_DELETE, 0, 0, NULL), ENOENT);
	T_ASSERT(close(a) == 0);
	T_ASSERT(close(r) == 0);
	T_ASSERT(close(copy) == 0);
	T_EQ(t_count_fds(), base);
}

int main(void)
{
	int before = t_count_fds();
	int kq = t_kqueue();
	int base = t_count_fds();
	alone(kq, base);
	copied(kq, base);
	copied_write(kq, base);
	T_ASSERT(close(kq) == 0);
	T_EQ(t_count_fds(), before);
	return 0;
}
