/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * EV_ADD of EVFILT_PROC for a pid that does not exist fails with
 * ESRCH (FreeBSD filt_procattach): pid 99999999 (above Linux's largest
 * pid_max) with fflags 0 and with NOTE_EXIT, and the pid of a child that
 * has already been reaped.  With room for records the error is an EV_ERROR
 * record echoing ident/filter/udata with fflags 0 (FreeBSD's create path
 * clears them before attaching) and data ESRCH; with nevents 0 kevent()
 * returns -1/ESRCH.  No knote is left behind.
 */
#include "t.h"

#include <sys/wait.h>

#define NOPID 99999999

static void add_fails(int kq, uintptr_t pid, unsigned int fflags, void *ud)
{
	struct kevent ch, ev[2];

	EV_SET(&ch, pid, EVFILT_PROC, EV_ADD, fflags, 0, ud);
	T_EQ(t_kevent1(kq, &ch, ev, 2), 1);
	T_KEVENT(&ev[0], pid, EVFILT_PROC, EV_ERROR, 0, ESRCH, ud);
	T_ERRNO(kevent(kq, &ch, 1, NULL, 0, NULL), ESRCH);
}

int main(void)
{
	int kq, st;

	t_fail_after(5, "proc-nonexistent did not finish within 5 s");
	kq = t_kqueue();

	t_change_fails(kq, NOPID, EVFILT_PROC, EV_ADD, &kq, ESRCH);
	add_fails(kq, NOPID, NOTE_EXIT, &kq);

	pid_t pid = fork();
	if (pid < 0)
		T_FAIL("fork: %s", strerror(errno));
	if (pid == 0)
		_exit(0);
	T_EQ(waitpid(pid, &st, 0), pid);
	add_fails(kq, (uintptr_t)pid, NOTE_EXIT, NULL);
	add_fails(kq, (uintptr_t)pid, 0, NULL);

	T_NO_EVENTS(kq);
	t_change_fails(kq, NOPID, EVFILT_PROC, EV_DELETE, NULL, ENOENT);
	t_change_fails(kq, (uintptr_t)pid, EVFILT_PROC, EV_DELETE, NULL, ENOENT);
	close(kq);
	return 0;
}
