/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * Fork: posix_spawn() (and vfork) run no atfork
 * handler, so nothing of libkq may leak into the spawned program: every
 * descriptor libkq creates must be close-on-exec.  The test creates a kqueue
 * with READ, WRITE, USER, TIMER, SIGNAL, PROC and VNODE knotes (and a
 * second, nested kqueue), finds the descriptors that appeared by comparing
 * /proc/self/fd before and after, and checks that each has FD_CLOEXEC.  It
 * then posix_spawn()s /bin/sleep and reads /proc/<pid>/fd once sleep is
 * asleep: the spawned program holds exactly the descriptors the test itself
 * left inheritable, none of libkq's.  posix_spawn of /bin/true exits 0.
 */
#include "t_thread.h"

#include <spawn.h>
#include <sys/prctl.h>
#include <sys/wait.h>

extern char **environ;

#define MAXFD 8192

/* Marks in set[] the open descriptor numbers listed in dir. */
static void list_fds(const char *dir, char *set)
{
	DIR *d = opendir(dir);
	struct dirent *e;

	if (d == NULL)
		T_FAIL("opendir(%s): %s", dir, strerror(errno));
	memset(set, 0, MAXFD);
	while ((e = readdir(d)) != NULL) {
		if (e->d_name[0] == '.')
			continue;
		int fd = atoi(e->d_name);
		if (fd == dirfd(d))
			continue;
		if (fd < 0 || fd >= MAXFD)
			T_FAIL("descriptor %d out of range", fd);
		set[fd] = 1;
	}
	closedir(d);
}

static void link_of(pid_t pid, int fd, char *out, size_t len)
{
	char path[64];
	snprintf(path, sizeof path, "/proc/%d/fd/%d", (int)pid, fd);
	ssize_t n = readlink(path, out, len - 1);
	out[n < 0 ? 0 : n] = 0;
}

int main(void)
{
	static char before[MAXFD], after[MAXFD], spawned[MAXFD];
	int p[2], sp[2], file;
	const char *path;

	t_fail_after(8, "fork-spawn-no-leak: still running after 8 s");

	/* The test's own descriptors, made before the snapshot. */
	t_pipe(p);
	t_socketpair(sp);
	file = t_tmp_file(&path);
	pid_t kid = fork();
	T_ASSERT(kid >= 0);
	if (kid == 0) {
		prctl(PR_SET_PDEATHSIG, SIGKILL);
		alarm(10);
		pause();
		_exit(0);
	}
	list_fds("/proc/self/fd", before);

	int kq = t_kqueue(), kq2 = t_kqueue();
	t_change(kq, p[0], EVFILT_READ, EV_ADD, 0, 0, NULL);
	t_change(kq, sp[0], EVFILT_WRITE, EV_ADD, 0, 0, NULL);
	t_change(kq, 1, EVFILT_USER, EV_ADD, 0, 0, NULL);
	t_change(kq, 2, EVFILT_TIMER, EV_ADD, NOTE_SECONDS, 60, NULL);
	t_change(kq, 3, EVFILT_TIMER, EV_ADD | EV_ONESHOT, 0, 1, NULL);
	t_change(kq, SIGUSR1, EVFILT_SIGNAL, EV_ADD, 0, 0, NULL);
	t_change(kq, kid, EVFILT_PROC, EV_ADD, NOTE_EXIT, 0, NULL);
	t_change(kq, file, EVFILT_VNODE, EV_ADD | EV_CLEAR,
		 NOTE_WRITE | NOTE_DELETE, 0, NULL);
	t_change(kq2, kq, EVFILT_READ, EV_ADD, 0, 0, NULL);
	t_change(kq2, 4, EVFILT_USER, EV_ADD, 0, 0, NULL);
	struct kevent ev[8];
	t_wait(kq, ev, 8, 50);   /* let the one-shot timer fire */
	list_fds("/proc/self/fd", after);

	int created = 0;
	for (int fd = 0; fd < MAXFD; fd++) {
		if (!after[fd] || before[fd])
			continue;
		created++;
		int fl = fcntl(fd, F_GETFD);
		if (fl < 0 || !(fl & FD_CLOEXEC)) {
			char l[256];
			link_of(getpid(), fd, l, sizeof l);
			T_FAIL("libkq descriptor %d (%s) is not close-on-exec",
			       fd, l);
		}
	}
	if (created < 2)
		T_FAIL("only %d new descriptors after creating 2 kqueues",
		       created);

	/* What a spawned program inherits: the non-CLOEXEC ones of before. */
	pid_t pid;
	char *sleep_args[] = { "sleep", "5", NULL };
	int err = posix_spawn(&pid, "/bin/sleep", NULL, NULL, sleep_args,
			      environ);
	if (err != 0)
		T_FAIL("posix_spawn(/bin/sleep): %s", strerror(err));
	int64_t end = t_now_ns() + 3000000000LL;
	while (t_proc_state(pid) != 'S') {
		if (t_now_ns() > end) {
			kill(pid, SIGKILL);
			T_FAIL("spawned sleep never went to sleep");
		}
		t_sleep_ms(2);
	}
	char dir[64];
	snprintf(dir, sizeof dir, "/proc/%d/fd", (int)pid);
	list_fds(dir, spawned);
	int bad = 0;
	for (int fd = 0; fd < MAXFD; fd++) {
		int want = before[fd] && !(fcntl(fd, F_GETFD) & FD_CLOEXEC);
		if (spawned[fd] == want)
			continue;
		char l[256];
		link_of(spawned[fd] ? pid : getpid(), fd, l, sizeof l);
		fprintf(stderr, "spawned sleep %s descriptor %d (%s)\n",
			spawned[fd] ? "has unexpected" : "lacks", fd, l);
		bad = 1;
	}
	kill(pid, SIGKILL);
	T_EQ(waitpid(pid, NULL, 0), pid);
	if (bad)
		T_FAIL("posix_spawn leaked or lost descriptors");

	char *true_args[] = { "true", NULL };
	err = posix_spawn(&pid, "/bin/true", NULL, NULL, true_args, environ);
	if (err != 0)
		T_FAIL("posix_spawn(/bin/true): %s", strerror(err));
	int st;
	T_EQ(waitpid(pid, &st, 0), pid);
	T_ASSERT(WIFEXITED(st) && WEXITSTATUS(st) == 0);

	kill(kid, SIGKILL);
	T_EQ(waitpid(kid, NULL, 0), kid);
	alarm(0);
	return 0;
}
