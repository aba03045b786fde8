/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * Shared helpers for the EVFILT_FS tests (test/fs-*.c):
 *   ft_private_mounts()  moves the test into a mount namespace of its own,
 *                        so that it may mount and unmount without touching
 *                        the machine's mount table; skips (77) where that
 *                        is not allowed;
 *   ft_mnt_dir()         a new empty directory to mount on, unmounted
 *                        and removed at exit (also when the test fails);
 *   ft_mount_tmpfs()     mounts a small tmpfs on it.
 */
#ifndef KQ_TEST_T_FS_H
#define KQ_TEST_T_FS_H

#include "t.h"

#include <sched.h>
#include <sys/mount.h>

static inline void ft_write_file(const char *path, const char *text)
{
	int fd = open(path, O_WRONLY);
	if (fd < 0)
		return;
	if (write(fd, text, strlen(text)) < 0) {
		/* the mapping then fails and the mount below says so */
	}
	close(fd);
}

/* A private mount namespace: as root directly, otherwise inside a user
 * namespace of our own where we are root. */
static inline void ft_private_mounts(void)
{
	if (unshare(CLONE_NEWNS) != 0) {
		uid_t uid = getuid();
		gid_t gid = getgid();
		char map[64];

		if (unshare(CLONE_NEWUSER | CLONE_NEWNS) != 0)
			T_SKIP("no mount namespace of our own (unshare: %s)",
			       strerror(errno));
		ft_write_file("/proc/self/setgroups", "deny");
		snprintf(map, sizeof map, "0 %u 1", (unsigned)uid);
		ft_write_file("/proc/self/uid_map", map);
		snprintf(map, sizeof map, "0 %u 1", (unsigned)gid);
		ft_write_file("/proc/self/gid_map", map);
	}
	/* the mounts below must not propagate back to the parent namespace */
	if (mount(NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL) != 0)
		T_SKIP("cannot make the mounts private: %s", strerror(errno));
}

static inline char *ft_mnt_state(void)
{
	static char dir[160];
	return dir;
}

static inline void ft_mnt_cleanup(void)
{
	char *dir = ft_mnt_state();

	if (dir[0]) {
		umount2(dir, MNT_DETACH);
		rmdir(dir);
	}
}

/* A new directory <t_tmp_path() dir>/mnt, gone at exit (before the
 * temporary directory holding it). */
static inline const char *ft_mnt_dir(void)
{
	char *dir = ft_mnt_state();

	snprintf(dir, 160, "%s", t_tmp_path("mnt"));
	if (mkdir(dir, 0700) != 0)
		T_FAIL("mkdir(%s): %s", dir, strerror(errno));
	atexit(ft_mnt_cleanup);
	return dir;
}

/* Mounts a tmpfs on dir; skips the test if that is refused. */
static inline void ft_mount_tmpfs(const char *dir)
{
	if (mount("kqtest", dir, "tmpfs", 0, "size=64k") != 0)
		T_SKIP("mount(tmpfs, %s): %s", dir, strerror(errno));
}

#endif
