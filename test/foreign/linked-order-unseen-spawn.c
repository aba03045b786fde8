/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * A program that does not link libkq itself, using a library that does:
 * the program's posix_spawn() is then the C library's, and its child
 * copies the descriptors where libkq cannot see it.  So an inheritable
 * socket the library made is not private, and the library's close()
 * of it must make the EPOLL_CTL_DEL: with the spawned child holding the
 * file, no entry may be left for the closed number in the kqueue's epoll
 * set (/proc/self/fdinfo).  Only the shim's functions reach libkq here.
 */
#define _GNU_SOURCE
#include "shim.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#define EVFILT_READ (-1)
#define EV_ADD      0x0001

#define CHECK(c) do { if (!(c)) { fprintf(stderr, "FAIL %s:%d: %s\n", __FILE__, __LINE__, #c); exit(1); } } while (0)

extern char **environ;

/* Entries for number fd in kq's epoll set; skips if none are listed. */
static int entries(int kq, int fd)
{
	char path[64], buf[8192];
	ssize_t n, len = 0;
	snprintf(path, sizeof path, "/proc/self/fdinfo/%d", kq);
	int f = open(path, O_RDONLY | O_CLOEXEC);
	CHECK(f >= 0);
	while (len < (ssize_t)sizeof buf - 1 && (n = read(f, buf + len, sizeof buf - 1 - (size_t)len)) > 0)
		len += n;
	close(f);
	buf[len] = 0;
	int count = 0, any = 0;
	for (char *line = strstr(buf, "tfd:"); line; line = strstr(line + 1, "tfd:")) {
		int t;
		any = 1;
		if (sscanf(line, "tfd: %d", &t) == 1 && t == fd)
			count++;
	}
	if (!any) {
		fprintf(stderr, "SKIP: %s lists no epoll entries\n", path);
		exit(77);
	}
	return count;
}

int main(void)
{
#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
	/* the sanitizer runtime in the program intercepts the calls */
	fprintf(stderr, "SKIP: a sanitizer runtime comes before the C library\n");
	return 77;
#endif
	if (access("/bin/sleep", X_OK) != 0) {
		fprintf(stderr, "SKIP: no /bin/sleep\n");
		return 77;
	}
	int kq = shim_kqueue();
	CHECK(kq >= 0);
	int sv[2];
	CHECK(shim_socketpair(sv) == 0);
	int a = sv[0];
	CHECK(shim_change(kq, a, EVFILT_READ, EV_ADD) == 0);
	CHECK(entries(kq, a) == 1);

	char *argv[] = { "sleep", "10", NULL };
	pid_t child;
	CHECK(posix_spawn(&child, "/bin/sleep", NULL, NULL, argv, environ) == 0);
	CHECK(shim_close(a) == 0);
	int n = entries(kq, a);
	kill(child, SIGKILL);
	waitpid(child, NULL, 0);
	if (n != 0) {
		fprintf(stderr, "FAIL: after the library's close(%d), with a child of the C "
			"library's posix_spawn() holding the socket, the kqueue's epoll set "
			"still has %d entr%s for it (libkq skipped its EPOLL_CTL_DEL)\n",
			a, n, n == 1 ? "y" : "ies");
		return 1;
	}
	return 0;
}
