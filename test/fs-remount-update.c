/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * VQ_UPDATE (a libkq extension, Apple's name and value; FreeBSD defines
 * no such note and posts nothing for a remount): a knote that asks for it
 * gets {0, EVFILT_FS, EV_CLEAR, VQ_UPDATE, 0, udata} when a mounted file
 * system's options change (here a remount read-only).  A knote that did
 * not ask for it gets nothing, as on FreeBSD.  Mount and unmount are still
 * reported to both.  Runs in a mount namespace of its own (skipped where
 * none can be had).
 */
#include "t_fs.h"

/* One record {0, FS, EV_CLEAR, fflags, 0, ud} within 2 s. */
static void want(int kq, unsigned int fflags, void *ud)
{
	T_WAIT1(kq, 2000, 0, EVFILT_FS, EV_CLEAR, fflags, 0, ud);
}

int main(void)
{
	ft_private_mounts();

	const char *dir = ft_mnt_dir();
	void *ud = (void *)0x5421, *ud2 = (void *)0x5422;
	struct kevent ev[4];

	ft_mount_tmpfs(dir);

	int kq = t_kqueue(), kq2 = t_kqueue();
	t_change(kq, 0, EVFILT_FS, EV_ADD, VQ_UPDATE, 0, ud);
	t_change(kq2, 0, EVFILT_FS, EV_ADD, 0, 0, ud2);
	T_NO_EVENTS(kq);
	T_NO_EVENTS(kq2);

	if (mount(NULL, dir, NULL, MS_REMOUNT | MS_RDONLY, NULL) != 0)
		T_SKIP("remount read-only: %s", strerror(errno));
	want(kq, VQ_UPDATE, ud);
	T_EQ(t_wait(kq, ev, 4, 50), 0);
	T_EQ(t_wait(kq2, ev, 4, 50), 0);

	if (umount(dir) != 0)
		T_FAIL("umount(%s): %s", dir, strerror(errno));
	want(kq, VQ_UNMOUNT, ud);
	want(kq2, VQ_UNMOUNT, ud2);
	return 0;
}
