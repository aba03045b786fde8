/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * The cancellable calls libkq replaces act on cancellation as glibc's do in
 * a process of one thread.  glibc makes such a call's system call without
 * turning asynchronous cancellation on (no other thread could cancel), so
 * a signal handler that calls pthread_cancel(pthread_self()) while the call
 * blocks only leaves a request pending: the call returns -1 with EINTR, and
 * the next cancellation point (pthread_testcancel() here) acts on it.
 * libkq's versions turned asynchronous cancellation on around every call,
 * and the thread ended inside the handler instead.  A request pending
 * before the call is acted on at the call by both (the timer's handler
 * comes then too, so a call that ignored the request would show it
 * instead of blocking).
 *
 * Each case runs in a fork child of this process of one thread, once with
 * glibc's function (looked up in libc.so.6) and once with the one the
 * program binds to (libkq's), and what each child reported through a pipe
 * (by raw write system calls, which are no cancellation points), with its
 * exit status, must be the same.
 */
#include "t_cancel.h"

#include <dlfcn.h>
#include <stdbool.h>
#include <signal.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/time.h>
#include <sys/uio.h>
#include <sys/wait.h>

struct fns {
	ssize_t (*recv)(int, void *, size_t, int);
	ssize_t (*readv)(int, const struct iovec *, int);
	ssize_t (*recvmsg)(int, struct msghdr *, int);
	int (*accept4)(int, struct sockaddr *, socklen_t *, int);
	int (*sigtimedwait)(const sigset_t *, siginfo_t *, const struct timespec *);
};

/* The descriptors the calls block on: a stream socket with nothing to
 * read, a listener with no connection. */
static int quiet_fd, listen_fd;

/* Blocks until interrupted; returns the call's value. */
static long call(const struct fns *f, int which)
{
	char buf[8];
	struct iovec iov = { buf, sizeof buf };
	struct msghdr msg = { .msg_iov = &iov, .msg_iovlen = 1 };
	sigset_t set;
	switch (which) {
	case 0:
		return f->recv(quiet_fd, buf, sizeof buf, 0);
	case 1:
		return f->readv(quiet_fd, &iov, 1);
	case 2:
		return f->recvmsg(quiet_fd, &msg, 0);
	case 3:
		return f->accept4(listen_fd, NULL, NULL, SOCK_CLOEXEC);
	default:
		/* SIGUSR2 is blocked and never sent; SIGALRM ends the wait */
		sigemptyset(&set);
		sigaddset(&set, SIGUSR2);
		return f->sigtimedwait(&set, NULL, NULL);
	}
}

static const char *const names[] = { "recv", "readv", "recvmsg", "accept4", "sigtimedwait" };

static int report_fd;

static void say(const char *s)
{
	syscall(SYS_write, report_fd, s, strlen(s));
}

static void cancel_self(int sig)
{
	(void)sig;
	say("handler ");
	pthread_cancel(pthread_self());
	say("handler-returns ");
}

/* The child's account of one case: what it wrote, and how it ended. */
static void run(const struct fns *f, int which, bool pending, char *out, size_t size)
{
	int p[2];
	T_ASSERT(pipe(p) == 0);
	pid_t pid = fork();
	T_ASSERT(pid >= 0);
	if (pid == 0) {
		close(p[0]);
		report_fd = p[1];
		sigset_t usr2;
		sigemptyset(&usr2);
		sigaddset(&usr2, SIGUSR2);
		sigprocmask(SIG_BLOCK, &usr2, NULL);
		struct sigaction sa = { .sa_handler = cancel_self };   /* no SA_RESTART */
		sigemptyset(&sa.sa_mask);
		sigaction(SIGALRM, &sa, NULL);
		int old;
		if (pending) {
			pthread_setcancelstate(PTHREAD_CANCEL_DISABLE, &old);
			pthread_cancel(pthread_self());
			pthread_setcancelstate(PTHREAD_CANCEL_ENABLE, &old);
		}
		struct itimerval it = { .it_value = { 0, 50000 } };
		setitimer(ITIMER_REAL, &it, NULL);
		errno = 0;
		long r = call(f, which);
		char line[64];
		snprintf(line, sizeof line, "returned=%ld errno=%d ", r, errno);
		say(line);
		pthread_testcancel();
		say("not-cancelled ");
		_exit(3);
	}
	close(p[1]);
	size_t n = 0;
	ssize_t k;
	while (n + 1 < size && (k = read(p[0], out + n, size - 1 - n)) > 0)
		n += (size_t)k;
	out[n] = 0;
	close(p[0]);
	int st;
	T_ASSERT(waitpid(pid, &st, 0) == pid);
	snprintf(out + n, size - n, "status=%#x", st);
}

int main(void)
{
	T_CANCEL_SKIP_ASAN();
#ifdef __SANITIZE_THREAD__
	/* ThreadSanitizer defers a signal's handler to its own safe points
	 * (here the first intercepted call after the interrupted one
	 * returned), so where the handler's cancellation acts is its own,
	 * with glibc's functions as with libkq's. */
	T_SKIP("signal handlers run late, at ThreadSanitizer's own safe points");
#endif
	void *h = dlopen("libc.so.6", RTLD_LAZY | RTLD_NOLOAD);
	if (!h)
		T_SKIP("dlopen(libc.so.6): %s", dlerror());
	struct fns mine = { recv, readv, recvmsg, accept4, sigtimedwait };
	struct fns glibc = {
		(ssize_t (*)(int, void *, size_t, int))dlsym(h, "recv"),
		(ssize_t (*)(int, const struct iovec *, int))dlsym(h, "readv"),
		(ssize_t (*)(int, struct msghdr *, int))dlsym(h, "recvmsg"),
		(int (*)(int, struct sockaddr *, socklen_t *, int))dlsym(h, "accept4"),
		(int (*)(const sigset_t *, siginfo_t *, const struct timespec *))dlsym(h, "sigtimedwait"),
	};
	if (!glibc.recv || !glibc.readv || !glibc.recvmsg || !glibc.accept4 || !glibc.sigtimedwait)
		T_SKIP("glibc's functions not found in libc.so.6");

	int sp[2];
	t_socketpair(sp);
	quiet_fd = sp[0];
	listen_fd = socket(AF_UNIX, SOCK_STREAM, 0);
	T_ASSERT(listen_fd >= 0);
	sa_family_t autobind = AF_UNIX;   /* the kernel picks an abstract name */
	T_ASSERT(bind(listen_fd, (struct sockaddr *)&autobind, sizeof autobind) == 0);
	T_ASSERT(listen(listen_fd, 4) == 0);

	int differ = 0;
	for (int pending = 0; pending <= 1; pending++) {
		for (int which = 0; which < 5; which++) {
			char a[256], b[256];
			run(&glibc, which, pending, a, sizeof a);
			run(&mine, which, pending, b, sizeof b);
			if (strcmp(a, b) != 0) {
				fprintf(stderr, "%s, request %s: glibc: %s; libkq: %s\n",
					names[which], pending ? "pending before the call" :
					"made by a handler during the call", a, b);
				differ = 1;
			}
		}
	}
	if (differ)
		T_FAIL("a replaced call acts on cancellation unlike glibc's in a process of one thread");
	return 0;
}
