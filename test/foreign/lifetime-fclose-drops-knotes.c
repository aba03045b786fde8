/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * A socket wrapped in a FILE (fdopen) and closed with fclose(): the C
 * library closes the descriptor itself, where libkq's close() is not
 * called, so libkq catches fclose() too.  As on FreeBSD, the knote dies
 * with the close: EV_DELETE then fails with EBADF and no record comes.
 * And what libkq knew of the socket does not outlive it: a pipe given the
 * number next, copied into a spawned child, still has its epoll entry
 * removed when it is closed (were the socket's close-on-exec birth left
 * on the number, libkq would take the pipe for a private socket and leave
 * an orphan entry behind).
 */
#include "births.h"

#include <spawn.h>

extern char **environ;

int main(void)
{
	struct kevent ev[4];
	int kq = t_kqueue(), sp[2], p[2];
	char *argv[] = { "sleep", "10", NULL };
	pid_t child;

	if (access("/bin/sleep", X_OK) != 0)
		T_SKIP("no /bin/sleep: %s", strerror(errno));
	T_EQ(socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sp), 0);
	int fd = sp[0];
	t_change(kq, fd, EVFILT_READ, EV_ADD, 0, 0, NULL);
	birth_expect_entry(kq, fd);

	FILE *f = fdopen(fd, "r+");
	T_ASSERT(f != NULL);
	T_EQ(fclose(f), 0);
	/* (no look at the epoll set here: reading it would give the freed
	 * number to a file of the test's own, closed with close()) */
	T_EQ(t_change_err(kq, (uintptr_t)fd, EVFILT_READ, EV_DELETE, 0, 0, NULL), EBADF);
	t_wait_nothing_asleep(kq, 100);

	/* the number goes to a pipe's read end (inheritable), copied into a
	 * child that outlives its close here */
	T_EQ(pipe(p), 0);
	if (p[0] != fd)
		T_SKIP("the pipe's read end is %d, not the freed %d", p[0], fd);
	t_change(kq, p[0], EVFILT_READ, EV_ADD, 0, 0, (void *)0x5);
	t_write(p[1], "abc", 3);
	T_EQ(t_get(kq, ev, 4), 1);
	T_KEVENT(&ev[0], (uintptr_t)p[0], EVFILT_READ, 0, 0, 3, (void *)0x5);
	int err = posix_spawn(&child, "/bin/sleep", NULL, NULL, argv, environ);
	if (err != 0)
		T_SKIP("posix_spawn(/bin/sleep): %s", strerror(err));
	birth_child_set(child);
	T_EQ(close(p[0]), 0);
	birth_expect_no_entry(kq, p[0], "a pipe at the number of an fclose()d socket");
	birth_child_kill();
	close(p[1]);
	close(sp[1]);
	close(kq);
	return 0;
}
