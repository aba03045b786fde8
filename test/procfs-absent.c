/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * Without /proc (a container or chroot that does not mount it, a sandbox
 * that hides it): EVFILT_VNODE and EVFILT_READ on regular files must still
 * work, and an eventfd's READ and WRITE knotes give what man/kevent.2
 * documents for a counter that cannot be read (test/t_procfs.h).
 *
 * A child makes a mount namespace of its own (as root; otherwise inside a
 * new user namespace), detaches /proc there or, where that is refused,
 * covers it with an empty tmpfs, and runs the checks.  Skipped only where
 * no namespace can be made.
 */
#include "t_procfs.h"

#include <sched.h>
#include <sys/mount.h>
#include <sys/wait.h>

/* Writes s to path; false if that failed. */
static bool put(const char *path, const char *s)
{
	int fd = open(path, O_WRONLY);
	if (fd < 0)
		return false;
	bool ok = write(fd, s, strlen(s)) == (ssize_t)strlen(s);
	close(fd);
	return ok;
}

/* A mount namespace of our own: 0, or 77 with the reason on stderr. */
static int own_namespace(void)
{
	if (geteuid() == 0 && unshare(CLONE_NEWNS) == 0)
		return 0;
	uid_t uid = geteuid();
	gid_t gid = getegid();
	if (unshare(CLONE_NEWUSER | CLONE_NEWNS) != 0) {
		fprintf(stderr, "SKIP: no mount namespace: unshare: %s\n", strerror(errno));
		return 77;
	}
	char map[64];
	snprintf(map, sizeof map, "0 %u 1", (unsigned)uid);
	bool ok = put("/proc/self/uid_map", map);
	ok = ok && put("/proc/self/setgroups", "deny");
	snprintf(map, sizeof map, "0 %u 1", (unsigned)gid);
	ok = ok && put("/proc/self/gid_map", map);
	if (!ok) {
		fprintf(stderr, "SKIP: cannot map ids in a user namespace: %s\n", strerror(errno));
		return 77;
	}
	return 0;
}

static void child(void)
{
	int r = own_namespace();
	if (r)
		_exit(r);
	if (mount(NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL) != 0)
		T_FAIL("mount(/, MS_PRIVATE): %s", strerror(errno));
	if (umount2("/proc", MNT_DETACH) != 0 &&
	    mount("none", "/proc", "tmpfs", MS_NOSUID | MS_NODEV | MS_NOEXEC, "size=16k") != 0)
		T_FAIL("neither umount2(/proc) nor a tmpfs over it: %s", strerror(errno));
	struct stat st;
	if (stat("/proc/self", &st) == 0 || stat("/proc/thread-self", &st) == 0)
		T_FAIL("/proc/self is still there");
	tp_check_filters(false);
	/* _exit: a sanitizer's exit-time leak check needs /proc */
	vt_cleanup();
	_exit(0);
}

int main(void)
{
	fflush(stderr);
	pid_t pid = fork();
	T_ASSERT(pid >= 0);
	if (pid == 0)
		child();
	int status;
	T_EQ(waitpid(pid, &status, 0), pid);
	if (WIFSIGNALED(status))
		T_FAIL("the child died of signal %d", WTERMSIG(status));
	return WEXITSTATUS(status);
}
