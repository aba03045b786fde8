/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * Every child libkq sees made ends the privacy of the descriptors it
 * copies: an inheritable socket (socketpair() without SOCK_CLOEXEC), held
 * by a child made by fork(), vfork() + exec, posix_spawn(), system() (a
 * shell that leaves a sleep in the background) or popen(), is closed while
 * the child lives.  The file lives on in the child, so libkq must make the
 * EPOLL_CTL_DEL it skips for a private socket: no entry is left for the
 * number, no record and no spinning when the peer writes, and a new socket
 * at the number is watched afresh (births.h).
 */
#include "births.h"

#include <spawn.h>

extern char **environ;

static char pidfile[64];

/* In a frame of its own: nothing of the caller's is live across vfork(). */
static __attribute__((noinline)) pid_t vforked(void)
{
	pid_t pid = vfork();
	if (pid == 0) {
		execl("/bin/sleep", "sleep", "10", (char *)NULL);
		_exit(127);
	}
	return pid;
}

static FILE *piped;

/* Makes a child of the kind `how` that holds b->fd; returns -1. */
static int (*maker)(struct birth *b);

static int by_fork(struct birth *b)
{
	(void)b;
	pid_t pid = fork();
	T_ASSERT(pid >= 0);
	if (pid == 0) {
		sleep(10);
		_exit(0);
	}
	birth_child_set(pid);
	return -1;
}

static int by_vfork(struct birth *b)
{
	(void)b;
	pid_t pid = vforked();
	T_ASSERT(pid > 0);
	birth_child_set(pid);
	return -1;
}

static int by_posix_spawn(struct birth *b)
{
	(void)b;
	char *argv[] = { "sleep", "10", NULL };
	pid_t pid;
	T_EQ(posix_spawn(&pid, "/bin/sleep", NULL, NULL, argv, environ), 0);
	birth_child_set(pid);
	return -1;
}

static int by_system(struct birth *b)
{
	(void)b;
	char cmd[128], buf[32] = "";
	snprintf(cmd, sizeof cmd, "sleep 10 </dev/null >/dev/null 2>&1 & echo $! > %s", pidfile);
	T_EQ(system(cmd), 0);
	FILE *f = fopen(pidfile, "r");
	T_ASSERT(f != NULL);
	T_ASSERT(fgets(buf, sizeof buf, f) != NULL);
	fclose(f);
	unlink(pidfile);
	/* not our child: killed, not reaped (birth_child_kill's waitpid
	 * fails at once) */
	birth_child_set((pid_t)atoi(buf));
	return -1;
}

static int by_popen(struct birth *b)
{
	(void)b;
	char buf[32];
	piped = popen("echo $$; exec sleep 10", "r");
	T_ASSERT(piped != NULL);
	T_ASSERT(fgets(buf, sizeof buf, piped) != NULL);
	/* killed by birth_child_kill(), reaped by pclose() */
	birth_child_set((pid_t)atoi(buf));
	return -1;
}

static int copy(struct birth *b)
{
	return maker(b);
}

/* An inheritable socketpair made by the program, in place of births.h's
 * close-on-exec ones. */
static void run(int (*how)(struct birth *), const char *what)
{
	int kq = t_kqueue();
	struct kevent ev[4];
	struct birth b;
	int sv[2];

	T_ASSERT(socketpair(AF_UNIX, SOCK_STREAM, 0, sv) == 0);
	b = (struct birth){ sv[0], sv[1], -1, "inheritable socketpair" };
	t_change(kq, b.fd, EVFILT_READ, EV_ADD, 0, 0, (void *)0x1111);
	birth_expect_entry(kq, b.fd);
	t_write(b.peer, "x", 1);
	T_EQ(t_wait(kq, ev, 4, 1000), 1);
	T_KEVENT(&ev[0], b.fd, EVFILT_READ, 0, 0, 1, (void *)0x1111);

	maker = how;
	copy(&b);
	int fd = b.fd;
	T_ASSERT(close(fd) == 0);
	birth_expect_gone(kq, fd, b.peer, what);
	birth_expect_reuse(kq, fd, b.peer);

	birth_child_kill();
	if (piped) {
		pclose(piped);
		piped = NULL;
	}
	birth_free(&b);
	T_ASSERT(close(kq) == 0);
}

int main(void)
{
	if (access("/bin/sleep", X_OK) != 0 || access("/bin/sh", X_OK) != 0)
		T_SKIP("no /bin/sleep or /bin/sh");
	snprintf(pidfile, sizeof pidfile, "/tmp/libkq-child-%d", (int)getpid());
	run(by_fork, "a fork() child holds it");
	run(by_vfork, "a vfork() child holds it");
	run(by_posix_spawn, "a posix_spawn() child holds it");
	run(by_system, "a system() child holds it");
	run(by_popen, "a popen() child holds it");
	return 0;
}
