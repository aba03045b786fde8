/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * Where a sandbox refuses both inotify_init1() and fanotify_init() (EPERM,
 * EACCES) or the kernel has neither (ENOSYS), libkq has nothing to hear a
 * file's changes with.  FreeBSD's READ knote on a regular file never fails
 * to attach, so READ on files and directories is polled and keeps its
 * exact records (test/t_fileread.h: level at every call, growth while a
 * kevent() sleeps reported within a second, EV_CLEAR one record per
 * change, EV_ONESHOT), while EVFILT_VNODE, whose notes only the kernel's
 * events can give, fails with ENOTSUP: EV_ADD|EV_CLEAR NOTE_WRITE gives
 * {fd, EVFILT_VNODE, EV_ERROR, 0, ENOTSUP, udata} twice (a create clears
 * fflags, as FreeBSD does) and leaves no knote, also on a file that has a
 * polled READ knote, which goes on reporting.  A pipe READ knote and an
 * EVFILT_USER knote on the same kqueue work.  One child per answer, under
 * a seccomp filter it installs, with /proc mounted.  Skipped where seccomp
 * filters cannot be installed.
 */
#include "t_seccomp.h"
#include "t_fileread.h"

#include <sys/fanotify.h>
#include <sys/inotify.h>

static void vnode_refused(int kq, int fd, void *ud)
{
	for (int i = 0; i < 2; i++) {
		struct kevent ch, ev[2];
		EV_SET(&ch, fd, EVFILT_VNODE, EV_ADD | EV_CLEAR, NOTE_WRITE, 0, ud);
		T_EQ(kevent(kq, &ch, 1, ev, 2, &(struct timespec){ 0, 0 }), 1);
		T_KEVENT(&ev[0], fd, EVFILT_VNODE, EV_ERROR, 0, ENOTSUP, ud);
	}
	T_ERRNO(kevent(kq, &(struct kevent){ .ident = (uintptr_t)fd, .filter = EVFILT_VNODE,
					      .flags = EV_DELETE }, 1, NULL, 0, NULL), ENOENT);
}

static int child(int err)
{
	if (t_seccomp_refuse2(SYS_inotify_init1, SYS_fanotify_init, err) != 0)
		return 77;
	if (inotify_init1(IN_CLOEXEC) != -1 || errno != err)
		return 77;
	if (fanotify_init(FAN_CLASS_NOTIF, O_RDONLY) != -1 || errno != err)
		return 77;
	if (access("/proc/self/fd", F_OK) != 0)
		return 77;
	int kq = t_kqueue(), ud, p[2];
	t_pipe(p);
	t_change(kq, p[0], EVFILT_READ, EV_ADD, 0, 0, NULL);
	T_NO_EVENTS(kq);
	tf_check_read(kq);

	/* VNODE refused, before and beside a polled READ knote */
	char path[256];
	snprintf(path, sizeof path, "%s/v", t_tmp_state()->dir);
	int f = open(path, O_RDWR | O_CREAT | O_EXCL, 0600);
	T_ASSERT(f >= 0);
	vnode_refused(kq, f, &ud);
	T_NO_EVENTS(kq);
	t_change(kq, f, EVFILT_READ, EV_ADD, 0, 0, &ud);
	T_NO_EVENTS(kq);
	vnode_refused(kq, f, &ud);
	T_NO_EVENTS(kq);
	t_write(f, "ab", 2);
	T_EQ(lseek(f, 1, SEEK_SET), 1);
	T_GET1(kq, f, EVFILT_READ, 0, 0, 1, &ud);
	t_change(kq, f, EVFILT_READ, EV_DELETE, 0, 0, NULL);
	T_NO_EVENTS(kq);
	close(f);
	T_EQ(unlink(path), 0);
	t_tmp_cleanup();

	t_seccomp_others_work(kq, p, &ud);
	close(kq);
	return 0;
}

int main(void)
{
	t_seccomp_run(child, "inotify_init1() and fanotify_init()");
	return 0;
}
