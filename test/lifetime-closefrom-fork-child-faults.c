/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * closefrom() in a fork child costs what the close_range system call
 * costs there, whatever libkq's tables hold.  libkq's closefrom() looks
 * for the numbers it must leave open (its own), and that look read the
 * per-number tables from the first number to the last one libkq ever
 * noted: memory mapped whole but written only here and there, so in a
 * child each untouched page read was a page fault (46 of them, 95 us
 * against glibc's 8, after one kqueue had watched an eventfd, a timer and
 * a signal, its descriptors kept high).  The test counts the child's
 * minor faults over closefrom(3) against those of the same child state
 * over the raw system call, with one kqueue and several numbers used.
 */
#include "t.h"

#include <limits.h>
#include <stdbool.h>
#include <sys/eventfd.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/wait.h>

#ifndef SYS_close_range
#define SYS_close_range 436
#endif

/* Minor faults of one fork child over closefrom(3) (raw: the system call
 * alone), or -1 if the child failed. */
static long child_faults(bool raw, volatile long *shared)
{
	*shared = -1;
	pid_t c = fork();
	T_ASSERT(c >= 0);
	if (c == 0) {
		struct rusage a, b;
		getrusage(RUSAGE_SELF, &a);
		if (raw)
			syscall(SYS_close_range, 3, ~0u, 0);
		else
			closefrom(3);
		getrusage(RUSAGE_SELF, &b);
		*shared = b.ru_minflt - a.ru_minflt;
		_exit(0);
	}
	int st;
	T_ASSERT(waitpid(c, &st, 0) == c);
	T_ASSERT(WIFEXITED(st) && WEXITSTATUS(st) == 0);
	return *shared;
}

int main(void)
{
#ifdef __SANITIZE_THREAD__
	/* every access the child makes touches ThreadSanitizer's shadow
	 * memory, itself mapped on first use: its faults are not libkq's */
	T_SKIP("ThreadSanitizer's shadow memory faults in the fork child");
#endif
	long *shared = mmap(NULL, 4096, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	T_ASSERT(shared != MAP_FAILED);
	int kq = t_kqueue();
	int e = eventfd(1, 0);
	T_ASSERT(e >= 0);
	t_change(kq, e, EVFILT_READ, EV_ADD, 0, 0, NULL);
	t_change(kq, 1, EVFILT_TIMER, EV_ADD, 0, 1000, NULL);
	t_change(kq, SIGUSR1, EVFILT_SIGNAL, EV_ADD, 0, 0, NULL);
	struct kevent ev[4];
	T_EQ(t_get(kq, ev, 4), 1);
	/* sockets born at a few numbers, one of them high */
	int s[2];
	T_ASSERT(socketpair(AF_UNIX, SOCK_STREAM, 0, s) == 0);
	int hi = fcntl(s[0], F_DUPFD, 700);
	T_ASSERT(hi >= 700);

	/* the least of several children: a fault of the machine's own
	 * (a page reclaimed meanwhile) is not the library's */
	long mine = LONG_MAX, base = LONG_MAX;
	for (int i = 0; i < 5; i++) {
		long m = child_faults(false, shared), r = child_faults(true, shared);
		T_ASSERT(m >= 0 && r >= 0);
		if (m < mine)
			mine = m;
		if (r < base)
			base = r;
	}
	if (mine > base + 6)
		T_FAIL("closefrom() in a fork child took %ld minor faults, the system call alone %ld",
		       mine, base);
	close(hi);
	close(s[0]);
	close(s[1]);
	close(e);
	close(kq);
	return 0;
}
