/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * A kqueue does not survive execve().  kqueuex(KQUEUE_CLOEXEC)
 * and kqueue1(O_CLOEXEC) descriptors are closed in the new image (FreeBSD
 * too).  Deviation from FreeBSD: FreeBSD keeps a plain kqueue()
 * descriptor open across exec, but the library creates every kqueue
 * close-on-exec, because its user-space state cannot survive execve (an
 * inherited descriptor would be an unusable epoll set).  The test
 * re-executes itself (fork + execv of /proc/self/exe, and posix_spawn) with
 * the numbers on the command line; the new image checks that each is
 * closed (fcntl F_GETFD -> EBADF) before doing anything else.
 */
#include "t.h"

#include <spawn.h>
#include <sys/wait.h>

extern char **environ;

static int new_image(int argc, char **argv)
{
	int bad = 0;
	for (int i = 2; i < argc; i++) {
		int fd = atoi(argv[i]);
		errno = 0;
		if (fcntl(fd, F_GETFD) != -1 || errno != EBADF) {
			fprintf(stderr, "exec'd image: kqueue descriptor %d is "
				"still open\n", fd);
			bad = 1;
		}
	}
	return bad;
}

static void check_status(pid_t pid, const char *how)
{
	int st;
	T_EQ(waitpid(pid, &st, 0), pid);
	if (!WIFEXITED(st) || WEXITSTATUS(st) != 0)
		T_FAIL("%s: the new image saw a kqueue descriptor (status "
		       "0x%x)", how, st);
}

int main(int argc, char **argv)
{
	if (argc > 1 && strcmp(argv[1], "--check-closed") == 0)
		return new_image(argc, argv);

	t_fail_after(5, "fork-exec-closed: still running after 5 s");
	int kqs[3];
	kqs[0] = kqueue();
	kqs[1] = kqueuex(KQUEUE_CLOEXEC);
	kqs[2] = kqueue1(O_CLOEXEC);
	T_ASSERT(kqs[0] >= 0 && kqs[1] >= 0 && kqs[2] >= 0);
	for (int i = 0; i < 3; i++)
		t_change(kqs[i], 1, EVFILT_USER, EV_ADD, 0, 0, NULL);

	char a[3][16];
	char *args[6] = { argv[0], "--check-closed", a[0], a[1], a[2], NULL };
	for (int i = 0; i < 3; i++)
		snprintf(a[i], sizeof a[i], "%d", kqs[i]);

	pid_t pid = fork();
	T_ASSERT(pid >= 0);
	if (pid == 0) {
		execv("/proc/self/exe", args);
		fprintf(stderr, "execv: %s\n", strerror(errno));
		_exit(3);
	}
	check_status(pid, "fork + execv");

	int err = posix_spawn(&pid, "/proc/self/exe", NULL, NULL, args,
			      environ);
	if (err != 0)
		T_FAIL("posix_spawn: %s", strerror(err));
	check_status(pid, "posix_spawn");

	/* Still usable here. */
	struct kevent ev;
	t_change(kqs[0], 1, EVFILT_USER, 0, NOTE_TRIGGER, 0, NULL);
	T_EQ(t_get(kqs[0], &ev, 1), 1);
	alarm(0);
	return 0;
}
