/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * A kqueue's number closed by a raw system call (as libuv closes every
 * descriptor) and given to a file that is itself an anonymous inode, as a
 * kqueue is, or to a socket:
 *   - an eventfd at the number, added to another kqueue, is watched as an
 *     eventfd: {efd, READ, 0, 0, 3, udata} after a write of 3 (it must not
 *     be taken for the closed kqueue, nested, and never reported);
 *   - a fork() child keeps the eventfd at that number (libkq's fork handler
 *     closes the kqueues' numbers in the child, not this one);
 *   - a socket() given such a number releases the closed kqueue at once:
 *     50 kqueues closed unseen, each number then taken by a socket that
 *     stays open, leave only the 50 sockets behind, not the kqueues'
 *     own descriptors.
 */
#include "t.h"

#include <sys/eventfd.h>
#include <sys/wait.h>

int main(void)
{
	int kq = t_kqueue();
	void *ud = (void *)0xefd;

	int old = t_kqueue();
	t_change(old, 7, EVFILT_USER, EV_ADD, NOTE_TRIGGER, 0, NULL);
	t_raw_close(old);
	int efd = eventfd(0, EFD_NONBLOCK);
	T_ASSERT(efd >= 0);
	if (efd != old)
		T_SKIP("eventfd() took number %d, not the freed %d", efd, old);
	t_change(kq, efd, EVFILT_READ, EV_ADD, 0, 0, ud);
	T_NO_EVENTS(kq);
	t_eventfd_add(efd, 3);
	T_GET1(kq, efd, EVFILT_READ, 0, 0, 3, ud);

	pid_t pid = fork();
	T_ASSERT(pid >= 0);
	if (pid == 0) {
		uint64_t v = 0;
		_exit(read(efd, &v, sizeof v) == (ssize_t)sizeof v && v == 3 ? 0 : 1);
	}
	int st;
	T_EQ(waitpid(pid, &st, 0), pid);
	if (!WIFEXITED(st) || WEXITSTATUS(st) != 0)
		T_FAIL("the fork child lost the eventfd at number %d (status %#x)", efd, st);
	T_EQ(close(efd), 0);

	int base = t_count_fds();
	int socks[50];
	for (int i = 0; i < 50; i++) {
		int k = t_kqueue();
		t_change(k, 1, EVFILT_USER, EV_ADD, 0, 0, NULL);
		t_raw_close(k);
		socks[i] = socket(AF_INET, SOCK_DGRAM, 0);
		T_ASSERT(socks[i] >= 0);
		if (socks[i] != k)
			T_SKIP("socket() took number %d, not the freed %d", socks[i], k);
	}
	int left = t_count_fds() - base - 50;
	if (left > 0)
		T_FAIL("%d descriptors of kqueues closed unseen stayed behind their sockets", left);
	for (int i = 0; i < 50; i++)
		T_EQ(close(socks[i]), 0);
	T_EQ(close(kq), 0);
	return 0;
}
