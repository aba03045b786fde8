/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * The tests of the numbers libkq holds for itself (kqueue-fd-hidden*,
 * lifetime-hidden-numbers-in-library): finding them, checking that a
 * kqueue still works after the program touched them, and the whole check
 * made with the program's calls or a library's.
 */
#ifndef KQ_TEST_HIDDEN_H
#define KQ_TEST_HIDDEN_H

#include <dirent.h>
#include <fcntl.h>
#include <semaphore.h>
#include <sys/eventfd.h>
#include <time.h>

/* Numbers open in the process that are none of the program's (mine[],
 * for numbers below 8192). */
static inline int t_others(const char *mine, int *out, int max)
{
	DIR *d = opendir("/proc/self/fd");
	T_ASSERT(d != NULL);
	int n = 0;
	struct dirent *e;
	while ((e = readdir(d)) != NULL) {
		if (e->d_name[0] == '.')
			continue;
		int fd = atoi(e->d_name);
		if (fd == dirfd(d) || (fd < 8192 && mine[fd]))
			continue;
		if (n < max)
			out[n++] = fd;
	}
	closedir(d);
	return n;
}

static int t_works_kq;
static sem_t t_works_back;

static void *t_works_sleeper(void *arg)
{
	(void)arg;
	struct kevent ev;
	int n = kevent(t_works_kq, NULL, 0, &ev, 1, NULL);
	sem_post(&t_works_back);
	return (void *)(intptr_t)(n == 1 && ev.ident == 5 ? 0 : 1);
}

/* kq holds user knote 5 (EV_CLEAR) and a READ knote on rd (udata 9).  Two
 * threads sleep in it (the second on the waitset); each trigger, made
 * once the previous one was collected, must wake one within 2 s; then a
 * byte written to wr is a record, exact. */
static inline void t_works(int kq, const char *after, int rd, int wr)
{
	static int init;
	if (!init++)
		T_ASSERT(sem_init(&t_works_back, 0, 0) == 0);
	t_works_kq = kq;
	pthread_t t[2];
	for (int i = 0; i < 2; i++)
		T_ASSERT(pthread_create(&t[i], NULL, t_works_sleeper, NULL) == 0);
	usleep(20000);
	for (int i = 0; i < 2; i++) {
		t_change(kq, 5, EVFILT_USER, 0, NOTE_TRIGGER, 0, NULL);
		struct timespec dl;
		clock_gettime(CLOCK_REALTIME, &dl);
		dl.tv_sec += 2;
		if (sem_timedwait(&t_works_back, &dl) != 0)
			T_FAIL("after %s: trigger %d woke no sleeping thread", after, i);
	}
	for (int i = 0; i < 2; i++) {
		void *r;
		pthread_join(t[i], &r);
		if (r)
			T_FAIL("after %s: a sleeping thread's kevent() failed", after);
	}
	t_write(wr, "x", 1);
	T_GET1(kq, rd, EVFILT_READ, 0, 0, 1, (void *)9);
	char c;
	T_EQ(read(rd, &c, 1), 1);
}

/* The calls the check makes: the program's own, or a library's. */
struct t_calls {
	const char *who;
	int (*close)(int);
	int (*dup2)(int, int);
	int (*dup3)(int, int, int);
	int (*close_range)(unsigned, unsigned, int);
	void (*closefrom)(int);
};

/*
 * close() of one of libkq's numbers fails with EBADF and dup2() from one
 * with EBADF; close_range() and closefrom() close the program's
 * descriptors around them; dup2() and dup3() onto one put the caller's
 * descriptor there (libkq's moves away), never written by libkq; and
 * after each, the kqueue works.  An eventfd's count read in it makes its
 * fdinfo file and the spare libkq's too, and the count still comes exact
 * at the end.  Once it is closed, nothing of libkq's is left.
 */
static inline void t_hidden_check(const struct t_calls *c)
{
	static char mine[8192];
	for (int fd = 0; fd < 8192; fd++)
		mine[fd] = fcntl(fd, F_GETFD) >= 0;
	int kq = t_kqueue();
	mine[kq] = 1;
	/* below the pipe, which the close-everything calls stop after */
	int efd = eventfd(0, EFD_NONBLOCK);
	T_ASSERT(efd >= 0);
	mine[efd] = 1;
	int p[2];
	t_pipe(p);
	mine[p[0]] = mine[p[1]] = 1;
	t_change(kq, 5, EVFILT_USER, EV_ADD | EV_CLEAR, 0, 0, NULL);
	t_change(kq, p[0], EVFILT_READ, EV_ADD, 0, 0, (void *)9);
	/* an eventfd's count read: its fdinfo file and the spare are kept */
	t_change(kq, efd, EVFILT_READ, EV_ADD, 0, 0, (void *)7);
	t_eventfd_add(efd, 2);
	T_GET1(kq, efd, EVFILT_READ, 0, 0, 2, (void *)7);
	uint64_t v;
	T_ASSERT(read(efd, &v, sizeof v) == (ssize_t)sizeof v);
	t_works(kq, "setting up", p[0], p[1]);   /* a waitset exists now */

	int lib[16];
	int n = t_others(mine, lib, 16);
	if (n < 2)
		T_FAIL("libkq holds %d descriptors of its own, expected 2 or more", n);
	for (int i = 0; i < n; i++) {
		errno = 0;
		if (c->close(lib[i]) != -1 || errno != EBADF)
			T_FAIL("%s close(%d), libkq's own: not -1/EBADF (%s)", c->who,
			       lib[i], strerror(errno));
		int x = dup(0);
		errno = 0;
		if (c->dup2(lib[i], x) != -1 || errno != EBADF)
			T_FAIL("%s dup2(%d, %d) from libkq's own: not -1/EBADF (%s)",
			       c->who, lib[i], x, strerror(errno));
		T_ASSERT(close(x) == 0);
	}
	t_works(kq, "close() and dup2() from its numbers", p[0], p[1]);

	/* the program's close-everything: its own go, libkq's stay */
	int a = dup(0), b = fcntl(0, F_DUPFD, 5000);
	T_ASSERT(a >= 0 && b >= 5000);
	T_ASSERT(c->close_range((unsigned)p[1] + 1, ~0U, 0) == 0);
	if (fcntl(a, F_GETFD) != -1 || fcntl(b, F_GETFD) != -1)
		T_FAIL("%s close_range() left %d or %d open", c->who, a, b);
	t_works(kq, "close_range() over its numbers", p[0], p[1]);
	a = dup(0);
	b = fcntl(0, F_DUPFD, 6000);
	c->closefrom(p[1] + 1);
	if (fcntl(a, F_GETFD) != -1 || fcntl(b, F_GETFD) != -1)
		T_FAIL("%s closefrom() left %d or %d open", c->who, a, b);
	t_works(kq, "closefrom() over its numbers", p[0], p[1]);

	/* onto them: the caller's descriptor lands, libkq's moves away */
	n = t_others(mine, lib, 16);
	for (int i = 0; i < n; i++) {
		int q[2];
		t_pipe(q);
		int three = i & 1;
		int r = three ? c->dup3(q[1], lib[i], O_CLOEXEC) : c->dup2(q[1], lib[i]);
		if (r != lib[i] || fcntl(lib[i], F_GETFD) != (three ? FD_CLOEXEC : 0))
			T_FAIL("%s dup%s(%d, %d) onto libkq's own: %d (%s), flags %d",
			       c->who, three ? "3" : "2", q[1], lib[i], r, strerror(errno),
			       fcntl(lib[i], F_GETFD));
		T_ASSERT(fcntl(q[0], F_SETFL, O_NONBLOCK) == 0);
		mine[lib[i]] = mine[q[0]] = mine[q[1]] = 1;
		t_works(kq, "dup2() and dup3() onto its numbers", p[0], p[1]);
		char ch;
		if (read(q[0], &ch, 1) != -1 || errno != EAGAIN)
			T_FAIL("libkq wrote the file %s put at %d", c->who, lib[i]);
		if (c->close(lib[i]) != 0)
			T_FAIL("%s close(%d) of its own file: %s", c->who, lib[i],
			       strerror(errno));
		T_ASSERT(close(q[0]) == 0 && close(q[1]) == 0);
		mine[lib[i]] = mine[q[0]] = mine[q[1]] = 0;
	}

	t_eventfd_add(efd, 5);
	T_GET1(kq, efd, EVFILT_READ, 0, 0, 5, (void *)7);
	T_ASSERT(close(kq) == 0 && close(efd) == 0);
	mine[kq] = mine[efd] = 0;
	int rest = t_others(mine, lib, 16);
	if (rest)
		T_FAIL("%d descriptors of libkq's left after its last kqueue closed "
		       "(first %d)", rest, lib[0]);
}

#endif
