/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * The file system under a watched file goes away: NOTE_REVOKE with
 * EV_EOF.  FreeBSD posts NOTE_REVOKE when the vnode is reclaimed (forced
 * unmount, revoke(2); vfs_subr.c vop_reclaim_post) and filt_vfsvnode sets
 * EV_EOF.  Linux has no revoke(2); the library maps an unmount to
 * NOTE_REVOKE (see docs/filters.md).  The test mounts a tmpfs on a private
 * directory under /tmp, opens a file there, watches it for NOTE_REVOKE
 * (and NOTE_WRITE|NOTE_DELETE, which must not be claimed) and detaches the
 * mount with umount2(MNT_DETACH), the Linux way to unmount a file system
 * with files still open.  Expected within 2 s: one record {fd, VNODE,
 * EV_EOF, NOTE_REVOKE, 0, udata}; EV_ONESHOT may be set in flags as well
 * (the knote becomes one-shot: FreeBSD marks it so when the vnode's note
 * list is torn down), no other flag.
 * Needs CAP_SYS_ADMIN to mount: skipped, with the reason, when not root or
 * when mount(2) is refused (e.g. in a container without that capability).
 */
#include "t.h"

#include <sys/mount.h>

static char mnt[64];
static char file[96];
static int mounted;

static void cleanup(void)
{
	if (mounted)
		umount2(mnt, MNT_DETACH);
	if (mnt[0])
		rmdir(mnt);
}

int main(void)
{
	struct kevent ev[4];
	void *ud = (void *)0x126;

	if (geteuid() != 0)
		T_SKIP("NOTE_REVOKE needs an unmount; not root (euid %d), "
		       "cannot mount a tmpfs", (int)geteuid());
	strcpy(mnt, "/tmp/kqrevoke.XXXXXX");
	if (mkdtemp(mnt) == NULL) {
		mnt[0] = 0;
		T_FAIL("mkdtemp: %s", strerror(errno));
	}
	atexit(cleanup);
	if (mount("tmpfs", mnt, "tmpfs", 0, "size=64k,mode=0700") != 0)
		T_SKIP("mount(tmpfs, %s): %s", mnt, strerror(errno));
	mounted = 1;

	int kq = t_kqueue();
	snprintf(file, sizeof file, "%s/file", mnt);
	int fd = open(file, O_RDWR | O_CREAT | O_EXCL, 0600);
	T_ASSERT(fd >= 0);
	t_write(fd, "data", 4);

	t_change(kq, fd, EVFILT_VNODE, EV_ADD,
		 NOTE_REVOKE | NOTE_WRITE | NOTE_DELETE, 0, ud);
	T_NO_EVENTS(kq);

	T_ASSERT(umount2(mnt, MNT_DETACH) == 0);
	mounted = 0;

	int n = t_wait(kq, ev, 4, 2000);
	if (n != 1) {
		for (int i = 0; i < n; i++)
			t_print_kevent("  got", &ev[i]);
		T_FAIL("expected one NOTE_REVOKE record within 2 s of the "
		       "unmount, got %d", n);
	}
	if (!(ev[0].flags & EV_EOF) ||
	    (ev[0].flags & ~(EV_EOF | EV_ONESHOT)) != 0) {
		t_print_kevent("  got", &ev[0]);
		T_FAIL("flags 0x%x: EV_EOF (|EV_ONESHOT) expected",
		       ev[0].flags);
	}
	T_KEVENT(&ev[0], fd, EVFILT_VNODE, ev[0].flags, NOTE_REVOKE, 0, ud);
	return 0;
}
