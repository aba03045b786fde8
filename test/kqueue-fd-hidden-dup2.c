/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * dup2() onto a number libkq holds for itself (its epoll copy, a waitset,
 * the wake eventfd, a parked inotify instance) puts the program's
 * descriptor there, as onto the free number it is on FreeBSD, while
 * threads sleep in kevent() on the kqueue: libkq's descriptor moves out of
 * the way, and nothing is lost.  Each round takes one of libkq's numbers
 * with a pipe's write end, then triggers: a sleeper must get the record
 * within two seconds, and the pipe must stay empty (libkq never writes
 * the program's file).  Then a pipe's record and a VNODE knote (on the
 * moved inotify instance) still come, exact.
 */
#include "t.h"

#include <dirent.h>
#include <fcntl.h>
#include <semaphore.h>
#include <time.h>

#define SLEEPERS 4
#ifndef ROUNDS
#define ROUNDS   120
#endif

static int kq;
static sem_t got;
static char mine[8192];

static void *sleeper(void *arg)
{
	(void)arg;
	for (;;) {
		struct kevent ev;
		int n = kevent(kq, NULL, 0, &ev, 1, NULL);
		if (n < 0)
			return (void *)1;
		if (n == 1 && ev.ident == 2)
			return NULL;   /* level: every sleeper sees it */
		if (n == 1 && ev.ident == 1)
			sem_post(&got);
	}
}

/* A number open in the process that is not the program's, and names a
 * file of kind `want` if there is one; -1 when there is none at all. */
static int libkq_number(const char *want, char *kind, size_t len)
{
	DIR *d = opendir("/proc/self/fd");
	T_ASSERT(d != NULL);
	int found = -1;
	struct dirent *e;
	while ((e = readdir(d)) != NULL) {
		if (e->d_name[0] == '.')
			continue;
		int fd = atoi(e->d_name);
		if (fd == dirfd(d) || fd >= 8192 || mine[fd])
			continue;
		char path[64];
		snprintf(path, sizeof path, "/proc/self/fd/%d", fd);
		ssize_t n = readlink(path, kind, len - 1);
		kind[n > 0 ? n : 0] = 0;
		found = fd;
		if (strstr(kind, want))
			break;
	}
	closedir(d);
	return found;
}

static int open_mine(int fd)
{
	T_ASSERT(fd >= 0 && fd < 8192);
	mine[fd] = 1;
	return fd;
}

int main(void)
{
	for (int fd = 0; fd < 8192; fd++)
		mine[fd] = fcntl(fd, F_GETFD) >= 0;
	T_ASSERT(sem_init(&got, 0, 0) == 0);
	char dir[] = "/tmp/kq-dup2-XXXXXX";
	T_ASSERT(mkdtemp(dir) != NULL);
	char file[64];
	snprintf(file, sizeof file, "%s/f", dir);
	int ff = open_mine(open(file, O_CREAT | O_RDWR, 0600));

	/* a parked inotify instance: a VNODE kqueue closed */
	int kq2 = kqueue();
	T_ASSERT(kq2 >= 0);
	mine[kq2] = 1;
	t_change(kq2, ff, EVFILT_VNODE, EV_ADD, NOTE_WRITE, 0, NULL);
	T_ASSERT(close(kq2) == 0);
	mine[kq2] = 0;

	kq = open_mine(t_kqueue());
	t_change(kq, 1, EVFILT_USER, EV_ADD | EV_CLEAR, 0, 0, NULL);
	t_change(kq, 2, EVFILT_USER, EV_ADD, 0, 0, NULL);
	pthread_t t[SLEEPERS];
	for (int i = 0; i < SLEEPERS; i++)
		T_ASSERT(pthread_create(&t[i], NULL, sleeper, NULL) == 0);
	usleep(20000);   /* asleep, some on the waitset */

	int kinds[3] = { 0, 0, 0 };
	for (int r = 0; r < ROUNDS; r++) {
		static const char *const want[] = { "eventpoll", "eventfd", "inotify" };
		char kind[64];
		int h = libkq_number(want[r % 3], kind, sizeof kind);
		if (h < 0)
			T_FAIL("round %d: no number of libkq's found", r);
		int q[2];
		t_pipe(q);
		open_mine(q[0]);
		open_mine(q[1]);
		T_ASSERT(fcntl(q[0], F_SETFL, O_NONBLOCK) == 0);
		if ((r & 1 ? dup3(q[1], h, O_CLOEXEC) : dup2(q[1], h)) != h)
			T_FAIL("round %d: dup%s(%d, %d) onto libkq's %s: %s", r,
			       r & 1 ? "3" : "2", q[1], h, kind, strerror(errno));
		open_mine(h);
		kinds[strstr(kind, "eventpoll") ? 0 : strstr(kind, "eventfd") ? 1 : 2]++;

		t_change(kq, 1, EVFILT_USER, 0, NOTE_TRIGGER, 0, NULL);
		struct timespec dl;
		clock_gettime(CLOCK_REALTIME, &dl);
		dl.tv_sec += 2;
		if (sem_timedwait(&got, &dl) != 0)
			T_FAIL("round %d: after dup2() onto libkq's %s (%d), no sleeper "
			       "got the trigger", r, kind, h);
		char c;
		if (read(q[0], &c, 1) != -1 || errno != EAGAIN)
			T_FAIL("round %d: libkq wrote the program's file at %d", r, h);
		/* the program closes its own: a number free again */
		T_ASSERT(close(h) == 0 && close(q[0]) == 0 && close(q[1]) == 0);
		mine[h] = mine[q[0]] = mine[q[1]] = 0;
	}

	/* a VNODE knote takes the moved inotify instance and still works */
	int kq3 = open_mine(t_kqueue());
	t_change(kq3, ff, EVFILT_VNODE, EV_ADD | EV_CLEAR, NOTE_WRITE, 0, NULL);
	T_ASSERT(write(ff, "y", 1) == 1);
	T_GET1(kq3, ff, EVFILT_VNODE, EV_CLEAR, NOTE_WRITE | NOTE_EXTEND, 0, NULL);

	t_change(kq, 2, EVFILT_USER, 0, NOTE_TRIGGER, 0, NULL);
	for (int i = 0; i < SLEEPERS; i++) {
		void *res;
		pthread_join(t[i], &res);
		if (res)
			T_FAIL("a sleeper's kevent() failed");
	}
	/* and a pipe's record still comes, exact */
	t_change(kq, 2, EVFILT_USER, EV_DELETE, 0, 0, NULL);
	int p[2];
	t_pipe(p);
	t_change(kq, p[0], EVFILT_READ, EV_ADD, 0, 0, (void *)7);
	t_write(p[1], "xy", 2);
	T_GET1(kq, p[0], EVFILT_READ, 0, 0, 2, (void *)7);
	if (!kinds[0] || !kinds[1] || !kinds[2])
		T_FAIL("rounds took %d epoll sets, %d eventfds, %d inotify instances: "
		       "expected some of each", kinds[0], kinds[1], kinds[2]);
	printf("took %d epoll sets, %d eventfds, %d inotify instances\n", kinds[0],
	       kinds[1], kinds[2]);
	unlink(file);
	rmdir(dir);
	return 0;
}
