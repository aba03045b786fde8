/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * Fork: in a fork child every descriptor libkq
 * created is closed (the child has none of the parent's kqueues, and holds
 * no epoll, eventfd, timerfd, signalfd, inotify, pidfd or netlink descriptor
 * of the library).  The parent lists /proc/self/fd before creating two
 * kqueues with READ, WRITE, USER, TIMER, SIGNAL, PROC and VNODE knotes (READ
 * knotes on an eventfd and on a listening AF_UNIX socket among them, whose
 * counts were read); the child's /proc/self/fd must be exactly that list.
 * Checked for a fork from the main thread, and for a fork from another
 * thread while the main thread is blocked in kevent().
 */
#include "t.h"

#include <sys/eventfd.h>
#include <sys/prctl.h>
#include <sys/wait.h>

#define MAXFD 8192

static char before[MAXFD];

static void list_fds(char *set)
{
	DIR *d = opendir("/proc/self/fd");
	struct dirent *e;

	if (d == NULL)
		T_FAIL("opendir: %s", strerror(errno));
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

/* Runs in the child: its descriptors must be exactly before[]. */
static int child_check(void)
{
	static char now[MAXFD];
	int bad = 0;

	list_fds(now);
	for (int fd = 0; fd < MAXFD; fd++) {
		if (now[fd] == before[fd])
			continue;
		char path[64], l[256];
		snprintf(path, sizeof path, "/proc/self/fd/%d", fd);
		ssize_t n = readlink(path, l, sizeof l - 1);
		l[n < 0 ? 0 : n] = 0;
		fprintf(stderr, "child %s descriptor %d (%s)\n",
			now[fd] ? "still has" : "lost", fd, l);
		bad = 1;
	}
	return bad;
}

static pid_t fork_and_check(void)
{
	pid_t pid = fork();
	if (pid == 0) {
		alarm(4);
		_exit(child_check());
	}
	return pid;
}

static void expect_ok(pid_t pid, const char *what)
{
	int st;
	T_ASSERT(pid > 0);
	T_EQ(waitpid(pid, &st, 0), pid);
	if (!WIFEXITED(st) || WEXITSTATUS(st) != 0)
		T_FAIL("%s: child kept libkq descriptors (status 0x%x)", what,
		       st);
}

static int kq3;
static pid_t thread_child;

static void *forker(void *arg)
{
	(void)arg;
	t_sleep_ms(50);   /* main is in kevent() by now */
	thread_child = fork_and_check();
	t_change(kq3, 9, EVFILT_USER, 0, NOTE_TRIGGER, 0, NULL);
	return NULL;
}

int main(void)
{
	int p[2], sp[2], file, efd, ul, uc;
	struct sockaddr_un sun;
	socklen_t sunlen;
	const char *path;
	struct kevent ev[8];

	t_fail_after(8, "fork-child-fds-closed: still running after 8 s");
	t_pipe(p);
	t_socketpair(sp);
	file = t_tmp_file(&path);
	efd = eventfd(1, EFD_NONBLOCK | EFD_CLOEXEC);
	T_ASSERT(efd >= 0);
	ul = t_unix_listener_abstract(4, 0, &sun, &sunlen);
	uc = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
	T_ASSERT(uc >= 0);
	T_ASSERT(connect(uc, (struct sockaddr *)&sun, sunlen) == 0);
	pid_t kid = fork();
	T_ASSERT(kid >= 0);
	if (kid == 0) {
		prctl(PR_SET_PDEATHSIG, SIGKILL);
		alarm(10);
		pause();
		_exit(0);
	}
	list_fds(before);

	int kq = t_kqueue(), kq2 = t_kqueue();
	kq3 = t_kqueue();
	t_change(kq3, 9, EVFILT_USER, EV_ADD | EV_CLEAR, 0, 0, NULL);
	t_change(kq, p[0], EVFILT_READ, EV_ADD, 0, 0, NULL);
	t_change(kq, sp[0], EVFILT_WRITE, EV_ADD, 0, 0, NULL);
	t_change(kq, 1, EVFILT_USER, EV_ADD | EV_CLEAR, 0, 0, NULL);
	t_change(kq, 2, EVFILT_TIMER, EV_ADD, NOTE_SECONDS, 60, NULL);
	t_change(kq, SIGUSR1, EVFILT_SIGNAL, EV_ADD, 0, 0, NULL);
	t_change(kq, kid, EVFILT_PROC, EV_ADD, NOTE_EXIT, 0, NULL);
	t_change(kq, file, EVFILT_VNODE, EV_ADD | EV_CLEAR, NOTE_WRITE, 0,
		 NULL);
	t_change(kq, efd, EVFILT_READ, EV_ADD, 0, 0, &efd);
	t_change(kq, ul, EVFILT_READ, EV_ADD, 0, 0, &ul);
	int got = t_get(kq, ev, 8), seen = 0;
	for (int i = 0; i < got; i++) {
		if (ev[i].udata == &efd) {
			T_KEVENT(&ev[i], efd, EVFILT_READ, 0, 0, 1, &efd);
			seen++;
		} else if (ev[i].udata == &ul) {
			T_KEVENT(&ev[i], ul, EVFILT_READ, 0, 0, 1, &ul);
			seen++;
		}
	}
	T_EQ(seen, 2);
	t_change(kq2, kq, EVFILT_READ, EV_ADD, 0, 0, NULL);
	t_change(kq2, 3, EVFILT_TIMER, EV_ADD, 0, 10, NULL);
	/* NOTE_FORK needs the proc connector; use it when available. */
	struct kevent ch;
	EV_SET(&ch, getpid(), EVFILT_PROC, EV_ADD, NOTE_FORK, 0, NULL);
	if (kevent(kq2, &ch, 1, NULL, 0, NULL) != 0 && errno != ENOTSUP)
		T_FAIL("NOTE_FORK knote: %s", strerror(errno));
	T_EQ(t_wait(kq2, ev, 8, 2000) > 0, 1);

	expect_ok(fork_and_check(), "fork from the main thread");

	pthread_t th;
	T_ASSERT(pthread_create(&th, NULL, forker, NULL) == 0);
	int n;
	do   /* a SIGCHLD may interrupt it (EINTR) */
		n = kevent(kq3, NULL, 0, ev, 8, &(struct timespec){ 3, 0 });
	while (n < 0 && errno == EINTR);
	T_ASSERT(pthread_join(th, NULL) == 0);
	expect_ok(thread_child, "fork from a thread while main waits");
	if (n != 1 || ev[0].filter != EVFILT_USER || ev[0].ident != 9)
		T_FAIL("main's kevent() did not return the USER trigger made "
		       "after the fork");

	kill(kid, SIGKILL);
	T_EQ(waitpid(kid, NULL, 0), kid);
	alarm(0);
	return 0;
}
