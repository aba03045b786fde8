/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * Deleting a descriptor's last knote may leave its epoll entry in place
 * for a cheap re-add.  Whatever happens to the descriptor meanwhile, a
 * kqueue must behave as if the knote had simply gone:
 *   - data arriving for it is not reported and the wait sleeps;
 *   - a re-add watches the descriptor, with the right data;
 *   - a close no interposition sees, and the number given to a file of
 *     another kind (a pipe where a socket was), is not mistaken for the
 *     old file: the new file's end-of-file is reported as a pipe's;
 *   - a close of the number while a dup keeps the file open leaves nothing
 *     that reports.
 */
#include "../t.h"
#include "foreign.h"

/* A READ knote on fd, evaluated once (its kind learned), then deleted. */
static void watch_then_delete(int kq, int fd, int peer)
{
	struct kevent ev[2];
	char buf[8];
	t_change(kq, fd, EVFILT_READ, EV_ADD, 0, 0, (void *)1);
	t_write(peer, "a", 1);
	T_EQ(t_wait(kq, ev, 2, 1000), 1);
	T_KEVENT(&ev[0], fd, EVFILT_READ, 0, 0, 1, (void *)1);
	T_ASSERT(read(fd, buf, sizeof buf) == 1);
	t_change(kq, fd, EVFILT_READ, EV_DELETE, 0, 0, NULL);
}

int main(void)
{
	int kq = t_kqueue(), s[2], p[2];
	struct kevent ev[2];
	char buf[8];

	/* data while deleted: nothing reported; a re-add reports it */
	t_socketpair(s);
	watch_then_delete(kq, s[0], s[1]);
	t_write(s[1], "bc", 2);
	t_wait_nothing_asleep(kq, 300);
	t_change(kq, s[0], EVFILT_READ, EV_ADD, 0, 0, (void *)2);
	T_EQ(t_wait(kq, ev, 2, 1000), 1);
	T_KEVENT(&ev[0], s[0], EVFILT_READ, 0, 0, 2, (void *)2);
	T_ASSERT(read(s[0], buf, sizeof buf) == 2);
	t_change(kq, s[0], EVFILT_READ, EV_DELETE, 0, 0, NULL);

	/* closed behind libkq's back, the number given to a pipe */
	int fd = s[0];
	T_ASSERT(foreign_raw_close(fd) == 0);
	close(s[1]);
	t_pipe(p);
	T_EQ(p[0], fd);
	t_change(kq, fd, EVFILT_READ, EV_ADD, 0, 0, (void *)3);
	t_write(p[1], "def", 3);
	T_EQ(t_wait(kq, ev, 2, 1000), 1);
	T_KEVENT(&ev[0], fd, EVFILT_READ, 0, 0, 3, (void *)3);
	T_ASSERT(read(fd, buf, sizeof buf) == 3);
	close(p[1]);
	T_EQ(t_wait(kq, ev, 2, 1000), 1);
	T_KEVENT(&ev[0], fd, EVFILT_READ, EV_EOF, 0, 0, (void *)3);
	close(fd);

	/* closed (seen) while a dup keeps the file: nothing reports */
	t_socketpair(s);
	watch_then_delete(kq, s[0], s[1]);
	int d = dup(s[0]);
	T_ASSERT(d >= 0);
	T_ASSERT(foreign_close(s[0]) == 0);
	t_write(s[1], "g", 1);
	t_wait_nothing_asleep(kq, 300);
	close(d);
	close(s[1]);
	return 0;
}
