/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * Where a sandbox refuses inotify_init1() (EPERM, EACCES) or the kernel
 * has no inotify (ENOSYS), EVFILT_VNODE has nothing to stand on: EV_ADD
 * fails with ENOTSUP, the error libkq gives wherever a filter's Linux
 * mechanism is missing, in an error record echoing the change.  In a child
 * under a seccomp filter the test installs (one per answer), with /proc
 * mounted (inotify is libkq's choice then):
 *  - EV_ADD|EV_CLEAR of EVFILT_VNODE NOTE_WRITE on a file: the record
 *    {fd, EVFILT_VNODE, EV_ERROR, 0, ENOTSUP, udata} (a create clears
 *    fflags, as FreeBSD does), and no knote is left;
 *  - a second try gives the same, and so does EVFILT_READ on the same
 *    file, which needs the same instance (FreeBSD's is always ready);
 *  - the kqueue's other filters work: a pipe READ knote added before
 *    reports {p[0], EVFILT_READ, 0, 0, 1, NULL}, and an EVFILT_USER knote
 *    added after reports its trigger.
 * Skipped where seccomp filters cannot be installed.
 */
#include "t_seccomp.h"

#include <sys/inotify.h>

static int child(int err)
{
	if (t_seccomp_refuse(SYS_inotify_init1, err) != 0)
		return 77;
	if (inotify_init1(IN_CLOEXEC) != -1 || errno != err)
		return 77;
	if (access("/proc/self/fd", F_OK) != 0)
		return 77;
	const char *path;
	int fd = t_tmp_file(&path);
	int kq = t_kqueue(), ud, p[2];
	t_pipe(p);
	t_change(kq, p[0], EVFILT_READ, EV_ADD, 0, 0, NULL);
	for (int i = 0; i < 2; i++) {
		struct kevent ch, ev[2];
		EV_SET(&ch, fd, EVFILT_VNODE, EV_ADD | EV_CLEAR, NOTE_WRITE, 0, &ud);
		T_EQ(kevent(kq, &ch, 1, ev, 2, &(struct timespec){ 0, 0 }), 1);
		T_KEVENT(&ev[0], fd, EVFILT_VNODE, EV_ERROR, 0, ENOTSUP, &ud);
	}
	/* READ on a regular file needs the same instance */
	struct kevent ch, ev[2];
	EV_SET(&ch, fd, EVFILT_READ, EV_ADD, 0, 0, &ud);
	T_EQ(kevent(kq, &ch, 1, ev, 2, &(struct timespec){ 0, 0 }), 1);
	T_KEVENT(&ev[0], fd, EVFILT_READ, EV_ERROR, 0, ENOTSUP, &ud);
	T_ERRNO(kevent(kq, &(struct kevent){ .ident = (uintptr_t)fd, .filter = EVFILT_VNODE,
					      .flags = EV_DELETE }, 1, NULL, 0, NULL), ENOENT);
	T_NO_EVENTS(kq);
	t_write(p[1], "x", 1);
	T_GET1(kq, p[0], EVFILT_READ, 0, 0, 1, NULL);
	char c;
	T_EQ(read(p[0], &c, 1), 1);
	t_change(kq, 1, EVFILT_USER, EV_ADD | EV_CLEAR, 0, 0, &ud);
	t_change(kq, 1, EVFILT_USER, 0, NOTE_TRIGGER, 0, &ud);
	T_GET1(kq, 1, EVFILT_USER, EV_CLEAR, 0, 0, &ud);
	T_NO_EVENTS(kq);
	close(kq);
	close(fd);
	return 0;
}

int main(void)
{
	t_seccomp_run(child, "inotify_init1()");
	return 0;
}
