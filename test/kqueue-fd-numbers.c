/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * A kqueue is one descriptor to the program, as on FreeBSD: the number
 * after kqueue()'s is the program's next one (libkq keeps its own
 * descriptors far above), in turn with pipes and with several kqueues,
 * with and without threads sleeping in them (which make more of libkq's
 * own), and at any RLIMIT_NOFILE; and the limit's last number still goes
 * to the program.
 */
#include "t.h"

#include <sys/resource.h>

static void *sleeper(void *arg)
{
	int kq = *(int *)arg;
	struct kevent ev;
	kevent(kq, NULL, 0, &ev, 1, NULL);
	return NULL;
}

static void run(const char *what)
{
	int kq = t_kqueue();
	int p[2];
	t_pipe(p);
	if (p[0] != kq + 1 || p[1] != kq + 2)
		T_FAIL("%s: kqueue() gave %d, then pipe() gave %d and %d (FreeBSD: "
		       "%d and %d)", what, kq, p[0], p[1], kq + 1, kq + 2);
	int kq2 = t_kqueue();
	if (kq2 != kq + 3)
		T_FAIL("%s: a second kqueue() gave %d, expected %d", what, kq2, kq + 3);
	/* two threads asleep in the second kqueue (a waitset of its own),
	 * and a knote, a timer and a trigger in the first */
	t_change(kq, p[0], EVFILT_READ, EV_ADD, 0, 0, NULL);
	t_change(kq, 1, EVFILT_USER, EV_ADD, 0, 0, NULL);
	pthread_t t[2];
	for (int i = 0; i < 2; i++)
		T_ASSERT(pthread_create(&t[i], NULL, sleeper, &kq2) == 0);
	usleep(50000);
	int n = dup(0);
	if (n != kq2 + 1)
		T_FAIL("%s: with threads asleep in kqueue %d, dup() gave %d, expected %d",
		       what, kq2, n, kq2 + 1);
	struct kevent ch;
	EV_SET(&ch, 9, EVFILT_USER, EV_ADD | EV_ONESHOT, NOTE_TRIGGER, 0, NULL);
	T_ASSERT(kevent(kq2, &ch, 1, NULL, 0, NULL) == 0);
	EV_SET(&ch, 9, EVFILT_USER, 0, NOTE_TRIGGER, 0, NULL);
	T_ASSERT(kevent(kq2, &ch, 1, NULL, 0, NULL) == 0);
	/* one of them gets it; the other is woken by the close */
	usleep(20000);
	close(kq2);
	for (int i = 0; i < 2; i++)
		pthread_join(t[i], NULL);
	close(n);
	close(p[0]);
	close(p[1]);
	close(kq);
}

int main(void)
{
	run("default limit");
	struct rlimit rl;
	T_ASSERT(getrlimit(RLIMIT_NOFILE, &rl) == 0);
	rl.rlim_cur = 64;
	T_ASSERT(setrlimit(RLIMIT_NOFILE, &rl) == 0);
	run("RLIMIT_NOFILE 64");
	/* The limit's last number is the program's: servers tell a full
	 * table by the number accept() gives (memcached rejects the
	 * connection that gets it) */
	int kq = t_kqueue(), fd, top = -1;
	t_change(kq, 1, EVFILT_USER, EV_ADD, 0, 0, NULL);
	while ((fd = dup(0)) >= 0)
		if (fd > top)
			top = fd;
	if (errno != EMFILE)
		T_FAIL("dup(): %s", strerror(errno));
	if (top != 63)
		T_FAIL("with a kqueue, the highest number dup() gave under "
		       "RLIMIT_NOFILE 64 was %d, not 63", top);
	/* Leave room: LeakSanitizer's exit check opens /proc files */
	for (fd = kq + 1; fd <= top; fd++)
		close(fd);
	close(kq);
	return 0;
}
