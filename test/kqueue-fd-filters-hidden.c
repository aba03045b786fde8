/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * The descriptors filters keep (a kqueue's timerfd and inotify instance,
 * a knote's pidfd, the process's signalfd and the eventfd its signal
 * handler writes) are out of the program's way too: with timer, vnode,
 * proc and signal knotes in a kqueue, the next number the program gets is
 * still the kqueue's plus one, as on FreeBSD.  The program's close() of
 * one of them fails with EBADF, dup2() onto each puts the program's
 * descriptor there (libkq's moves away), closefrom() leaves them, and the
 * knotes keep working: a timer, a signal (its handler writes the moved
 * eventfd), a vnode and an exit record come, exact, and nothing is
 * written to the program's files.
 */
#include "t.h"
#include "t_hidden.h"

#include <sys/wait.h>

static _Atomic int storm_stop;

static void *storm(void *arg)
{
	(void)arg;
	while (!storm_stop) {
		kill(getpid(), SIGUSR1);
		usleep(50);
	}
	return NULL;
}

/* Signals keep coming, so libkq's handler keeps writing its eventfd,
 * while the program takes that number (and the signalfd's) again and
 * again with a pipe's write end: nothing must land in the pipe, and the
 * signal knote must still count. */
static void storm_moves(int kq, const char *mine)
{
	pthread_t t;
	T_ASSERT(pthread_create(&t, NULL, storm, NULL) == 0);
	int rounds = 0;
	for (int r = 0; r < 200; r++) {
		int lib[32], k = t_others(mine, lib, 32);
		for (int i = 0; i < k; i++) {
			char path[64], what[64];
			snprintf(path, sizeof path, "/proc/self/fd/%d", lib[i]);
			ssize_t m = readlink(path, what, sizeof what - 1);
			what[m > 0 ? m : 0] = 0;
			if (!strstr(what, "eventfd") && !strstr(what, "signalfd"))
				continue;
			int q[2];
			t_pipe(q);
			T_ASSERT(fcntl(q[0], F_SETFL, O_NONBLOCK) == 0);
			if (dup2(q[1], lib[i]) != lib[i])
				T_FAIL("round %d: dup2(%d, %d) onto libkq's %s: %s", r, q[1],
				       lib[i], what, strerror(errno));
			usleep(100);
			char c;
			if (read(q[0], &c, 1) != -1 || errno != EAGAIN)
				T_FAIL("round %d: libkq wrote the pipe now at %d", r, lib[i]);
			T_ASSERT(close(lib[i]) == 0 && close(q[0]) == 0 && close(q[1]) == 0);
			rounds++;
		}
	}
	storm_stop = 1;
	pthread_join(t, NULL);
	if (rounds < 200)
		T_FAIL("only %d moves of the signal filter's descriptors", rounds);
	struct kevent ev;
	T_EQ(t_wait(kq, &ev, 1, 2000), 1);
	T_KEVENT(&ev, SIGUSR1, EVFILT_SIGNAL, EV_CLEAR, 0, ev.data, (void *)2);
	if (ev.data < 1)
		T_FAIL("signal record with data %lld", (long long)ev.data);
}

int main(void)
{
	static char mine[8192];
	for (int fd = 0; fd < 8192; fd++)
		mine[fd] = fcntl(fd, F_GETFD) >= 0;
	T_ASSERT(signal(SIGUSR1, SIG_IGN) != SIG_ERR);
	int kq = t_kqueue();
	mine[kq] = 1;
	t_change(kq, 1, EVFILT_TIMER, EV_ADD, 0, 5, (void *)1);
	t_change(kq, SIGUSR1, EVFILT_SIGNAL, EV_ADD | EV_CLEAR, 0, 0, (void *)2);
	char dir[] = "/tmp/kq-own-XXXXXX", file[64];
	T_ASSERT(mkdtemp(dir) != NULL);
	snprintf(file, sizeof file, "%s/f", dir);
	int ff = open(file, O_CREAT | O_RDWR, 0600);
	T_ASSERT(ff == kq + 1);
	mine[ff] = 1;
	t_change(kq, ff, EVFILT_VNODE, EV_ADD | EV_CLEAR, NOTE_WRITE, 0, (void *)3);
	pid_t child = fork();
	T_ASSERT(child >= 0);
	if (child == 0) {
		pause();
		_exit(0);
	}
	t_change(kq, child, EVFILT_PROC, EV_ADD, NOTE_EXIT, 0, (void *)4);
	int n = dup(0);
	if (n != kq + 2)
		T_FAIL("with timer, vnode, proc and signal knotes in kqueue %d and a "
		       "file at %d, the next number is %d, not %d", kq, kq + 1, n,
		       kq + 2);
	mine[n] = 1;

	/* the program's files at low numbers, to see nothing lands there */
	int p[2];
	t_pipe(p);
	mine[p[0]] = mine[p[1]] = 1;
	T_ASSERT(fcntl(p[0], F_SETFL, O_NONBLOCK) == 0);

	static const char *const kinds[4] = { "timerfd", "inotify", "pidfd", "signalfd" };
	int lib[32], moved = 0;
	int k = t_others(mine, lib, 32);
	if (k < 3)
		T_FAIL("libkq holds %d descriptors of its own, expected 3 or more", k);
	for (int i = 0; i < k; i++) {
		errno = 0;
		if (close(lib[i]) != -1 || errno != EBADF)
			T_FAIL("close(%d), libkq's own: not -1/EBADF (%s)", lib[i],
			       strerror(errno));
		char path[64], what[64];
		snprintf(path, sizeof path, "/proc/self/fd/%d", lib[i]);
		ssize_t m = readlink(path, what, sizeof what - 1);
		what[m > 0 ? m : 0] = 0;
		/* every one of them moves away, the signal filter's too */
		if (dup2(p[1], lib[i]) != lib[i])
			T_FAIL("dup2(%d, %d) onto libkq's %s: %s", p[1], lib[i], what,
			       strerror(errno));
		T_ASSERT(close(lib[i]) == 0);
		for (int j = 0; j < 4; j++)
			if (strstr(what, kinds[j]))
				moved |= 1 << j;
	}
	if (moved != 15)
		T_FAIL("moved libkq's descriptors of kinds %#x, expected a timerfd, an "
		       "inotify instance, a pidfd and a signalfd (0xf)", moved);
	closefrom(n + 1);   /* the program's close-everything */
	mine[p[0]] = mine[p[1]] = 0;
	t_pipe(p);
	T_ASSERT(fcntl(p[0], F_SETFL, O_NONBLOCK) == 0);

	struct kevent ev[2];
	T_EQ(t_wait(kq, ev, 1, 2000), 1);
	T_KEVENT(&ev[0], 1, EVFILT_TIMER, EV_CLEAR, 0, ev[0].data, (void *)1);
	if (ev[0].data < 1)
		T_FAIL("timer record with data %lld", (long long)ev[0].data);
	t_change(kq, 1, EVFILT_TIMER, EV_DELETE, 0, 0, NULL);
	T_ASSERT(kill(getpid(), SIGUSR1) == 0);
	T_GET1(kq, SIGUSR1, EVFILT_SIGNAL, EV_CLEAR, 0, 1, (void *)2);
	T_ASSERT(write(ff, "y", 1) == 1);
	T_GET1(kq, ff, EVFILT_VNODE, EV_CLEAR, NOTE_WRITE | NOTE_EXTEND, 0, (void *)3);
	T_ASSERT(kill(child, SIGKILL) == 0);
	T_EQ(t_wait(kq, ev, 1, 2000), 1);
	T_KEVENT(&ev[0], child, EVFILT_PROC, EV_EOF | EV_CLEAR | EV_ONESHOT, NOTE_EXIT,
		 ev[0].data, (void *)4);
	T_ASSERT(waitpid(child, NULL, 0) == child);
	mine[p[0]] = mine[p[1]] = 1;
	storm_moves(kq, mine);
	unlink(file);
	rmdir(dir);
	char c;
	if (read(p[0], &c, 1) != -1 || errno != EAGAIN)
		T_FAIL("libkq wrote the program's pipe");
	return 0;
}
