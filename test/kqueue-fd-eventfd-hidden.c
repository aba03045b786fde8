/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * The /proc fdinfo files libkq keeps open to read watched eventfds'
 * counters (one per eventfd, and one spare for the descriptor limit) are
 * out of the program's way, as FreeBSD, where an eventfd's count costs no
 * descriptor, would have it: with READ and WRITE knotes on three eventfds
 * and their counts read, the next number the program gets is still the
 * kqueue's plus one.  The program's close() of each of libkq's numbers
 * fails with EBADF, closefrom() leaves them, and dup2() of a pipe's end
 * onto each puts the program's pipe there while libkq's file moves away;
 * after each, every record comes exact ({fd, EVFILT_READ, 0, 0, count,
 * udata}, WRITE data 0xfffffffffffffffe - count), and nothing is ever
 * written into the program's pipe.  Once the kqueue is closed, nothing of
 * libkq's is left.
 */
#include "t.h"
#include "t_hidden.h"

#include <sys/eventfd.h>

#define NE 3

static int efd[NE];
static uint64_t count[NE];

/* Every eventfd's count one higher, then all six records, exact. */
static void records(int kq, const char *after)
{
	for (int i = 0; i < NE; i++) {
		t_eventfd_add(efd[i], 1);
		count[i]++;
	}
	struct kevent ev[8];
	int n = t_get(kq, ev, 8);
	if (n != 2 * NE)
		T_FAIL("after %s: %d records, expected %d", after, n, 2 * NE);
	for (int j = 0; j < n; j++) {
		int i = (int)((intptr_t)ev[j].udata % 10);
		T_ASSERT(i >= 0 && i < NE);
		if ((intptr_t)ev[j].udata < 20)
			T_KEVENT(&ev[j], efd[i], EVFILT_READ, 0, 0, (int64_t)count[i],
				 ev[j].udata);
		else
			T_KEVENT(&ev[j], efd[i], EVFILT_WRITE, 0, 0,
				 (int64_t)(UINT64_C(0xfffffffffffffffe) - count[i]), ev[j].udata);
	}
}

/* How many of the numbers in lib[] are fdinfo files. */
static int fdinfo_files(const int *lib, int n)
{
	int k = 0;
	for (int i = 0; i < n; i++) {
		char path[64], what[128];
		snprintf(path, sizeof path, "/proc/self/fd/%d", lib[i]);
		ssize_t m = readlink(path, what, sizeof what - 1);
		what[m > 0 ? m : 0] = 0;
		k += strstr(what, "/fdinfo/") != NULL;
	}
	return k;
}

int main(void)
{
	static char mine[8192];
	for (int i = 0; i < NE; i++) {
		efd[i] = eventfd(0, EFD_NONBLOCK);
		T_ASSERT(efd[i] >= 0);
	}
	for (int fd = 0; fd < 8192; fd++)
		mine[fd] = fcntl(fd, F_GETFD) >= 0;
	int kq = t_kqueue();
	mine[kq] = 1;
	for (int i = 0; i < NE; i++) {
		t_change(kq, efd[i], EVFILT_READ, EV_ADD, 0, 0, (void *)(intptr_t)(10 + i));
		t_change(kq, efd[i], EVFILT_WRITE, EV_ADD, 0, 0, (void *)(intptr_t)(20 + i));
	}
	records(kq, "setting up");
	int next = dup(0);
	if (next != kq + 1)
		T_FAIL("with READ and WRITE knotes on %d eventfds in kqueue %d, their "
		       "counts read, the next number is %d, not %d", NE, kq, next, kq + 1);
	T_ASSERT(close(next) == 0);

	int lib[32];
	int n = t_others(mine, lib, 32);
	int files = fdinfo_files(lib, n);
	if (files < NE + 1)
		T_FAIL("libkq holds %d fdinfo files, expected %d and a spare", files, NE);
	for (int i = 0; i < n; i++) {
		errno = 0;
		if (close(lib[i]) != -1 || errno != EBADF)
			T_FAIL("close(%d), libkq's own: not -1/EBADF (%s)", lib[i],
			       strerror(errno));
	}
	records(kq, "close() of libkq's numbers");

	closefrom(kq + 1);   /* the program's close-everything */
	n = t_others(mine, lib, 32);
	if (fdinfo_files(lib, n) != files)
		T_FAIL("closefrom(%d) took libkq's fdinfo files: %d left of %d", kq + 1,
		       fdinfo_files(lib, n), files);
	records(kq, "closefrom()");

	/* onto them: the program's pipe lands, libkq's file moves away */
	int p[2];
	t_pipe(p);
	T_ASSERT(fcntl(p[0], F_SETFL, O_NONBLOCK) == 0);
	mine[p[0]] = mine[p[1]] = 1;
	for (int i = 0; i < n; i++) {
		if (dup2(p[1], lib[i]) != lib[i])
			T_FAIL("dup2(%d, %d) onto libkq's own: %s", p[1], lib[i], strerror(errno));
		struct stat a, b;
		T_ASSERT(fstat(lib[i], &a) == 0 && fstat(p[1], &b) == 0);
		if (a.st_ino != b.st_ino)
			T_FAIL("dup2(%d, %d) left another file there", p[1], lib[i]);
		records(kq, "dup2() onto libkq's numbers");
		char c;
		if (read(p[0], &c, 1) != -1 || errno != EAGAIN)
			T_FAIL("libkq wrote the pipe put at %d", lib[i]);
		T_ASSERT(close(lib[i]) == 0);
	}
	int moved[32];
	int m = t_others(mine, moved, 32);
	if (fdinfo_files(moved, m) != files)
		T_FAIL("after the moves libkq holds %d fdinfo files, not %d",
		       fdinfo_files(moved, m), files);
	records(kq, "the moves");

	T_ASSERT(close(kq) == 0);
	mine[kq] = 0;
	int rest = t_others(mine, lib, 32);
	if (rest)
		T_FAIL("%d descriptors of libkq's left after its kqueue closed (first %d)",
		       rest, lib[0]);
	return 0;
}
