/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * Where a sandbox refuses kcmp() (EPERM or EACCES; ENOSYS on a kernel
 * built without it), libkq tells whether a number recorded as a kqueue
 * still names it from the file's type instead: a kqueue is an anonymous
 * inode, a pipe is not.  In a child under a seccomp filter the test
 * installs (one per answer):
 *  - a kqueue A added to kqueue B (EVFILT_READ) is taken for the kqueue
 *    it is: a triggered EVFILT_USER knote in A gives B the record
 *    {A, EVFILT_READ, 0, 0, 1, udata};
 *  - a kqueue closed by a raw system call whose number then goes to a
 *    pipe's read end is not taken for the kqueue: the pipe added to B is
 *    watched as a pipe, {fd, EVFILT_READ, 0, 0, 2, udata} after a write
 *    of 2 bytes.
 * Skipped where seccomp filters cannot be installed.
 */
#include "t_seccomp.h"

#ifndef SYS_kcmp
#define SYS_kcmp 312
#endif

static int child(int err)
{
	if (t_seccomp_refuse(SYS_kcmp, err) != 0)
		return 77;
	if (syscall(SYS_kcmp, getpid(), getpid(), 0, 0, 0) != -1 || errno != err)
		return 77;
	int b = t_kqueue(), a = t_kqueue(), ud;
	t_change(a, 1, EVFILT_USER, EV_ADD | EV_CLEAR, 0, 0, NULL);
	t_change(b, a, EVFILT_READ, EV_ADD, 0, 0, &ud);
	T_NO_EVENTS(b);
	t_change(a, 1, EVFILT_USER, 0, NOTE_TRIGGER, 0, NULL);
	T_GET1(b, a, EVFILT_READ, 0, 0, 1, &ud);
	t_change(b, a, EVFILT_READ, EV_DELETE, 0, 0, NULL);

	int old = t_kqueue();
	t_change(old, 7, EVFILT_USER, EV_ADD | EV_CLEAR, NOTE_TRIGGER, 0, NULL);
	t_raw_close(old);
	int p[2];
	t_pipe(p);
	if (p[0] != old)
		T_SKIP("pipe() took number %d, not the freed %d", p[0], old);
	t_change(b, p[0], EVFILT_READ, EV_ADD, 0, 0, &ud);
	T_NO_EVENTS(b);
	t_write(p[1], "xy", 2);
	T_GET1(b, p[0], EVFILT_READ, 0, 0, 2, &ud);
	close(a);
	close(b);
	return 0;
}

int main(void)
{
	t_seccomp_run(child, "kcmp()");
	return 0;
}
