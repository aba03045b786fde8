/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * The race between close() of a private socket and a child being made:
 * close() judges the socket its file's only descriptor and skips the
 * EPOLL_CTL_DEL, then its system call runs; a child cloned in between
 * copies the file, whose epoll entry then lives on, keyed by the closed
 * number (an orphan, reporting for a file the program no longer names).
 * libkq makes the child wait for such closes (src/fdtab.c, children).
 *
 * One thread makes children that hold their copies for a while (fork,
 * vfork and posix_spawn of a sleep), another makes watched sockets (close-on-exec
 * and not) and closes them, and looks in the kqueue's epoll set
 * (/proc/self/fdinfo) right after each close: an entry for the number is
 * the race lost.  A second, the test ends with the first.
 */
#include "t.h"

#include <spawn.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <sys/wait.h>

extern char **environ;

static atomic_bool stop;

/* In a frame of its own: nothing of the caller's is live across vfork(). */
static __attribute__((noinline)) pid_t vforked(char **argv)
{
	pid_t pid = vfork();
	if (pid == 0) {
		execv("/bin/sleep", argv);
		_exit(127);
	}
	return pid;
}

static void *maker(void *arg)
{
	(void)arg;
	char *argv[] = { "sleep", "0.01", NULL };
	for (unsigned i = 0; !atomic_load(&stop); i++) {
		pid_t pid;
		if (i % 3 == 0) {
			pid = fork();
			if (pid == 0) {
				usleep(10000);
				_exit(0);
			}
		} else if (i % 3 == 1) {
			pid = vforked(argv);
		} else if (posix_spawn(&pid, "/bin/sleep", NULL, NULL, argv, environ) != 0) {
			pid = -1;
		}
		if (pid > 0)
			waitpid(pid, NULL, 0);
	}
	return NULL;
}

/* Entries for number fd in kq's epoll set, or -1 if the kernel lists none. */
static int entries(int kq, int fd)
{
	char path[64], buf[8192];
	ssize_t n, len = 0;
	snprintf(path, sizeof path, "/proc/self/fdinfo/%d", kq);
	int f = open(path, O_RDONLY | O_CLOEXEC);
	if (f < 0)
		return -1;
	while (len < (ssize_t)sizeof buf - 1 && (n = read(f, buf + len, sizeof buf - 1 - (size_t)len)) > 0)
		len += n;
	close(f);
	buf[len] = 0;
	int count = 0;
	bool any = false;
	for (char *line = strstr(buf, "tfd:"); line; line = strstr(line + 1, "tfd:")) {
		int t;
		any = true;
		if (sscanf(line, "tfd: %d", &t) == 1 && t == fd)
			count++;
	}
	return any ? count : -1;
}

int main(void)
{
	if (access("/bin/sleep", X_OK) != 0)
		T_SKIP("no /bin/sleep: %s", strerror(errno));
	int kq = t_kqueue();
	pthread_t t;
	T_EQ(pthread_create(&t, NULL, maker, NULL), 0);

	long long end = t_now_ns() + 1000000000LL;
	unsigned rounds = 0;
	for (; t_now_ns() < end; rounds++) {
		int sv[2];
		int type = SOCK_STREAM | (rounds % 2 ? SOCK_CLOEXEC : 0);
		T_ASSERT(socketpair(AF_UNIX, type, 0, sv) == 0);
		t_change(kq, sv[0], EVFILT_READ, EV_ADD, 0, 0, NULL);
		int n = entries(kq, sv[0]);
		if (n < 0) {
			atomic_store(&stop, true);
			pthread_join(t, NULL);
			T_SKIP("/proc/self/fdinfo/%d lists no epoll entries", kq);
		}
		T_ASSERT(close(sv[0]) == 0);
		n = entries(kq, sv[0]);
		if (n != 0) {
			atomic_store(&stop, true);
			pthread_join(t, NULL);
			T_FAIL("round %u: after close(%d) of a %s socket, the kqueue's "
			       "epoll set still has %d entr%s for it: a child copied it "
			       "between the judgment and the close", rounds, sv[0],
			       rounds % 2 ? "close-on-exec" : "inheritable", n,
			       n == 1 ? "y" : "ies");
		}
		T_ASSERT(close(sv[1]) == 0);
	}
	atomic_store(&stop, true);
	T_EQ(pthread_join(t, NULL), 0);
	T_NO_EVENTS(kq);
	return 0;
}
