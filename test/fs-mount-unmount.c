/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * A file system mounted, then unmounted, is reported to an EVFILT_FS knote:
 * FreeBSD posts VQ_MOUNT when a mount is added to the mount list and
 * VQ_UNMOUNT when one leaves it, and its filter ORs the hint in whatever
 * the knote asked (here nothing) and always clears after a record:
 *   mount   {0, EVFILT_FS, EV_CLEAR, VQ_MOUNT, 0, udata}
 *   umount  {0, EVFILT_FS, EV_CLEAR, VQ_UNMOUNT, 0, udata}
 * Runs in a mount namespace of its own (skipped where none can be had).
 */
#include "t_fs.h"

/* One record {0, FS, EV_CLEAR, fflags, 0, ud} within 2 s, then none. */
static void want(int kq, unsigned int fflags, void *ud)
{
	T_WAIT1(kq, 2000, 0, EVFILT_FS, EV_CLEAR, fflags, 0, ud);
	struct kevent ev[4];
	T_EQ(t_wait(kq, ev, 4, 50), 0);
}

int main(void)
{
	ft_private_mounts();

	const char *dir = ft_mnt_dir();
	void *ud = (void *)0x5411;


	int kq = t_kqueue();
	t_change(kq, 0, EVFILT_FS, EV_ADD, 0, 0, ud);
	T_NO_EVENTS(kq);

	ft_mount_tmpfs(dir);
	want(kq, VQ_MOUNT, ud);

	if (umount(dir) != 0)
		T_FAIL("umount(%s): %s", dir, strerror(errno));
	want(kq, VQ_UNMOUNT, ud);
	return 0;
}
