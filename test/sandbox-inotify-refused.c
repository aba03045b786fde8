/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * Where a sandbox refuses inotify_init1() (EPERM, EACCES) or the kernel
 * has no inotify (ENOSYS), libkq turns to fanotify, as it does without
 * /proc, and the filters built on inotify keep working.  In a child under
 * a seccomp filter the test installs (one per answer), with /proc mounted
 * (where inotify would be libkq's choice):
 *  - EVFILT_VNODE NOTE_WRITE on a file: an append reports {fd,
 *    EVFILT_VNODE, EV_CLEAR, NOTE_WRITE | NOTE_EXTEND, 0, udata} (the
 *    write's whole hint, as FreeBSD posts it) where this process
 *    may make a fanotify group (FAN_REPORT_FID: Linux 5.13, or 5.1 with
 *    CAP_SYS_ADMIN); where it may not, EV_ADD fails with ENOTSUP in an
 *    error record echoing the change, twice, and no knote is left;
 *  - EVFILT_READ on a regular file and a directory gives FreeBSD's exact
 *    records either way (test/t_fileread.h: level, growth while asleep,
 *    EV_CLEAR, EV_ONESHOT);
 *  - the kqueue's other filters work: a pipe READ knote added before
 *    reports {p[0], EVFILT_READ, 0, 0, 1, NULL}, and an EVFILT_USER knote
 *    added after reports its trigger.
 * Skipped where seccomp filters cannot be installed.
 */
#include "t_seccomp.h"
#include "t_fileread.h"

#include <sys/fanotify.h>
#include <sys/inotify.h>

/* Whether this process may make the fanotify group libkq would. */
static bool fanotify_allowed(void)
{
	int fd = fanotify_init(FAN_CLASS_NOTIF | FAN_REPORT_FID | FAN_CLOEXEC, O_RDONLY);
	if (fd < 0)
		return false;
	close(fd);
	return true;
}

static void check_vnode(int kq, bool fan)
{
	void *ud = (void *)0x7e2;
	char path[256];
	snprintf(path, sizeof path, "%s/v", t_tmp_state()->dir);
	int f = open(path, O_RDWR | O_CREAT | O_EXCL, 0600);
	T_ASSERT(f >= 0);
	for (int i = 0; i < (fan ? 1 : 2); i++) {
		struct kevent ch, ev[2];
		EV_SET(&ch, f, EVFILT_VNODE, EV_ADD | EV_CLEAR, NOTE_WRITE, 0, ud);
		int n = kevent(kq, &ch, 1, ev, 2, &(struct timespec){ 0, 0 });
		if (fan) {
			T_EQ(n, 0);
			break;
		}
		T_EQ(n, 1);
		T_KEVENT(&ev[0], f, EVFILT_VNODE, EV_ERROR, 0, ENOTSUP, ud);
	}
	t_write(f, "x", 1);
	if (fan) {
		/* the whole hint of a write that extends the file */
		T_WAIT1(kq, 2000, f, EVFILT_VNODE, EV_CLEAR, NOTE_WRITE | NOTE_EXTEND, 0, ud);
		T_NO_EVENTS(kq);
		t_change(kq, f, EVFILT_VNODE, EV_DELETE, 0, 0, NULL);
	} else {
		T_ERRNO(kevent(kq, &(struct kevent){ .ident = (uintptr_t)f,
						      .filter = EVFILT_VNODE,
						      .flags = EV_DELETE }, 1, NULL, 0, NULL), ENOENT);
	}
	T_NO_EVENTS(kq);
	close(f);
	T_EQ(unlink(path), 0);
}

static int child(int err)
{
	if (t_seccomp_refuse(SYS_inotify_init1, err) != 0)
		return 77;
	if (inotify_init1(IN_CLOEXEC) != -1 || errno != err)
		return 77;
	if (access("/proc/self/fd", F_OK) != 0)
		return 77;
	bool fan = fanotify_allowed();
	int kq = t_kqueue(), ud, p[2];
	t_pipe(p);
	t_change(kq, p[0], EVFILT_READ, EV_ADD, 0, 0, NULL);
	T_NO_EVENTS(kq);
	tf_check_read(kq);
	check_vnode(kq, fan);
	t_tmp_cleanup();
	t_seccomp_others_work(kq, p, &ud);
	close(kq);
	return 0;
}

int main(void)
{
	t_seccomp_run(child, "inotify_init1()");
	return 0;
}
