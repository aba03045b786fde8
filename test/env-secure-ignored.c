/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * libkq's environment switches (LIBKQ_NO_EPOLL_PWAIT2, LIBKQ_NO_IO_URING,
 * LIBKQ_EXACT_EOF) are obeyed by ordinary programs and ignored by
 * set-user-ID, set-group-ID and capability programs (AT_SECURE): whoever
 * starts such a program must not steer the library inside it.
 *
 * The library has no query for its switches, so their effect is observed
 * through the system calls they change, counted by a seccomp filter whose
 * notifications a second thread answers (the calls then run as usual):
 *   LIBKQ_EXACT_EOF=1      one more ppoll() per READ record;
 *   LIBKQ_NO_EPOLL_PWAIT2  no epoll_pwait2() in a waiting kevent();
 *   LIBKQ_NO_IO_URING      no io_uring_setup() for a batch of 6 TCP counts.
 * This program, run as "probe", prints those counts.  The test runs the
 * probe three times: with no switch, with all three, and with all three
 * from a set-group-ID copy of itself (group 65534), which must count as
 * the first.  Making that copy needs root: skipped otherwise.
 */
#include "t.h"

#include <linux/filter.h>
#include <linux/seccomp.h>
#include <poll.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <sys/auxv.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <sys/wait.h>

#ifndef SYS_io_uring_setup
#define SYS_io_uring_setup 425
#endif
#define NR_EPOLL_PWAIT2 441   /* as libkq's src/mux/epoll.c numbers it */
#ifndef SECCOMP_USER_NOTIF_FLAG_CONTINUE
#define SECCOMP_USER_NOTIF_FLAG_CONTINUE 1
#endif

enum { C_PPOLL, C_PWAIT2, C_URING, C_N };
static atomic_int counts[C_N];
static int listener;

static void *answer(void *arg)
{
	struct seccomp_notif_sizes *sz = arg;
	struct seccomp_notif *req = calloc(1, sz->seccomp_notif);
	struct seccomp_notif_resp *resp = calloc(1, sz->seccomp_notif_resp);
	if (!req || !resp)
		T_FAIL("calloc");
	for (;;) {
		memset(req, 0, sz->seccomp_notif);
		if (ioctl(listener, SECCOMP_IOCTL_NOTIF_RECV, req) != 0) {
			if (errno == EINTR || errno == ENOENT)
				continue;
			T_FAIL("SECCOMP_IOCTL_NOTIF_RECV: %s", strerror(errno));
		}
		int c = req->data.nr == SYS_ppoll ? C_PPOLL :
			req->data.nr == NR_EPOLL_PWAIT2 ? C_PWAIT2 : C_URING;
		atomic_fetch_add(&counts[c], 1);
		memset(resp, 0, sz->seccomp_notif_resp);
		resp->id = req->id;
		resp->flags = SECCOMP_USER_NOTIF_FLAG_CONTINUE;
		if (ioctl(listener, SECCOMP_IOCTL_NOTIF_SEND, resp) != 0 && errno != ENOENT)
			T_FAIL("SECCOMP_IOCTL_NOTIF_SEND: %s", strerror(errno));
	}
	return NULL;
}

/* Counts the three system calls made by this thread from now on; false
 * where the kernel cannot (no seccomp notifications, Linux < 5.5). */
static bool count_calls(void)
{
	static struct seccomp_notif_sizes sz;
	struct sock_filter code[] = {
		BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, nr)),
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, SYS_ppoll, 3, 0),
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, NR_EPOLL_PWAIT2, 2, 0),
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, SYS_io_uring_setup, 1, 0),
		BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
		BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_USER_NOTIF),
	};
	struct sock_fprog prog = { .len = sizeof code / sizeof code[0], .filter = code };
	if (syscall(SYS_seccomp, SECCOMP_GET_NOTIF_SIZES, 0, &sz) != 0)
		return false;
	T_ASSERT(prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) == 0);
	listener = (int)syscall(SYS_seccomp, SECCOMP_SET_MODE_FILTER,
				SECCOMP_FILTER_FLAG_NEW_LISTENER, &prog);
	if (listener < 0)
		return false;
	pthread_t th;
	int err = pthread_create(&th, NULL, answer, &sz);
	if (err)
		T_FAIL("pthread_create: %s", strerror(err));
	return true;
}

static int probe(void)
{
	if (!count_calls()) {
		printf("no-seccomp-notify\n");
		return 0;
	}
	/* LIBKQ_EXACT_EOF: a READ record straight from an epoll report */
	int kq = t_kqueue(), sp[2];
	struct kevent ev[16];
	t_socketpair(sp);
	t_write(sp[1], "abc", 3);
	t_change(kq, sp[0], EVFILT_READ, EV_ADD, 0, 0, NULL);
	int c0 = atomic_load(&counts[C_PPOLL]);
	T_GET1(kq, sp[0], EVFILT_READ, 0, 0, 3, NULL);
	int polls = atomic_load(&counts[C_PPOLL]) - c0;
	T_EQ(close(kq), 0);

	/* LIBKQ_NO_EPOLL_PWAIT2: a wait of 3.5 ms with nothing to report (a
	 * whole number of milliseconds needs no epoll_pwait2) */
	kq = t_kqueue();
	c0 = atomic_load(&counts[C_PWAIT2]);
	const struct timespec wait35 = { 0, 3500000 };
	T_EQ(kevent(kq, NULL, 0, ev, 16, &wait35), 0);
	int pwait2 = atomic_load(&counts[C_PWAIT2]) - c0;
	T_EQ(close(kq), 0);

	/* LIBKQ_NO_IO_URING: six TCP READ knotes ready at once */
	kq = t_kqueue();
	int cli[6], srv[6];
	for (int i = 0; i < 6; i++) {
		t_tcp_pair(&cli[i], &srv[i]);
		t_write(cli[i], "0123456789", (size_t)i + 1);
		struct pollfd p = { .fd = srv[i], .events = POLLIN };
		T_EQ(poll(&p, 1, 5000), 1);
		t_change(kq, srv[i], EVFILT_READ, EV_ADD, 0, 0, (void *)(intptr_t)(i + 1));
	}
	c0 = atomic_load(&counts[C_URING]);
	T_EQ(t_get(kq, ev, 16), 6);
	for (int k = 0; k < 6; k++)
		T_KEVENT(&ev[k], srv[(intptr_t)ev[k].udata - 1], EVFILT_READ, 0, 0,
			 (intptr_t)ev[k].udata, ev[k].udata);
	int uring = atomic_load(&counts[C_URING]) - c0;

	printf("polls=%d pwait2=%d uring=%d secure=%lu\n", polls, pwait2, uring,
	       getauxval(AT_SECURE));
	return 0;
}

struct result {
	bool counted;
	int polls, pwait2, uring;
	unsigned long secure;
};

/* Runs `exe probe` with the environment less LIBKQ_*, plus the three
 * switches if `switches`. */
static struct result run_probe(const char *exe, bool switches)
{
	extern char **environ;
	size_t n = 0;
	while (environ[n])
		n++;
	char **env = calloc(n + 4, sizeof *env);
	T_ASSERT(env != NULL);
	size_t k = 0;
	for (size_t i = 0; i < n; i++)
		if (strncmp(environ[i], "LIBKQ_", 6) != 0)
			env[k++] = environ[i];
	if (switches) {
		env[k++] = "LIBKQ_EXACT_EOF=1";
		env[k++] = "LIBKQ_NO_EPOLL_PWAIT2=1";
		env[k++] = "LIBKQ_NO_IO_URING=1";
	}
	env[k] = NULL;

	int out[2];
	t_pipe(out);
	fflush(NULL);
	pid_t pid = fork();
	T_ASSERT(pid >= 0);
	if (pid == 0) {
		dup2(out[1], 1);
		char *argv[] = { (char *)exe, "probe", NULL };
		execve(exe, argv, env);
		fprintf(stderr, "execve(%s): %s\n", exe, strerror(errno));
		_exit(1);
	}
	close(out[1]);
	free(env);
	char buf[256];
	size_t len = 0;
	ssize_t r;
	while (len < sizeof buf - 1 && (r = read(out[0], buf + len, sizeof buf - 1 - len)) > 0)
		len += (size_t)r;
	buf[len] = 0;
	close(out[0]);
	int status;
	T_EQ(waitpid(pid, &status, 0), pid);
	if (!WIFEXITED(status) || WEXITSTATUS(status) != 0)
		T_FAIL("probe %s%s failed (status 0x%x)", exe, switches ? " with switches" : "",
		       status);
	struct result res = { 0 };
	if (strncmp(buf, "no-seccomp-notify", 17) == 0)
		return res;
	if (sscanf(buf, "polls=%d pwait2=%d uring=%d secure=%lu", &res.polls, &res.pwait2,
		   &res.uring, &res.secure) != 4)
		T_FAIL("probe said \"%s\"", buf);
	res.counted = true;
	return res;
}

static char copy_dir[4200], copy_exe[4300];

static void remove_copy(void)
{
	if (copy_exe[0])
		unlink(copy_exe);
	if (copy_dir[0])
		rmdir(copy_dir);
}

/* A set-group-ID (group 65534) copy of exe, in a new directory beside it
 * (/tmp is often mounted nosuid) or else in /tmp. */
static void make_copy(const char *exe)
{
	const char *slash = strrchr(exe, '/');
	T_ASSERT(slash != NULL);
	snprintf(copy_dir, sizeof copy_dir, "%.*s/kqsecure.XXXXXX", (int)(slash - exe), exe);
	if (mkdtemp(copy_dir) == NULL) {
		strcpy(copy_dir, "/tmp/kqsecure.XXXXXX");
		if (mkdtemp(copy_dir) == NULL) {
			copy_dir[0] = 0;
			T_FAIL("mkdtemp: %s", strerror(errno));
		}
	}
	atexit(remove_copy);
	T_ASSERT(chmod(copy_dir, 0755) == 0);
	snprintf(copy_exe, sizeof copy_exe, "%s/probe", copy_dir);
	int in = open(exe, O_RDONLY | O_CLOEXEC);
	int out = open(copy_exe, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0700);
	T_ASSERT(in >= 0 && out >= 0);
	char buf[65536];
	ssize_t r;
	while ((r = read(in, buf, sizeof buf)) > 0)
		t_write(out, buf, (size_t)r);
	T_ASSERT(r == 0);
	T_ASSERT(fchown(out, 0, 65534) == 0);
	T_ASSERT(fchmod(out, 02755) == 0);
	T_EQ(close(out), 0);
	T_EQ(close(in), 0);
}

int main(int argc, char **argv)
{
	if (argc > 1 && strcmp(argv[1], "probe") == 0)
		return probe();
	if (geteuid() != 0)
		T_SKIP("making a set-group-ID program needs root");

	static char exe[4096];
	ssize_t n = readlink("/proc/self/exe", exe, sizeof exe - 1);
	T_ASSERT(n > 0);
	exe[n] = 0;
	make_copy(exe);

	struct result plain = run_probe(exe, false);
	if (!plain.counted)
		T_SKIP("this kernel cannot count system calls for the test "
		       "(seccomp user notification, Linux 5.5)");
	struct result obeyed = run_probe(exe, true);
	struct result secure = run_probe(copy_exe, true);
	T_EQ(plain.secure, 0);
	T_EQ(obeyed.secure, 0);
	if (secure.secure != 1)
		T_SKIP("the set-group-ID copy did not run with AT_SECURE (nosuid mount?)");

	/* each switch shows when obeyed ... */
	if (obeyed.polls != plain.polls + 1)
		T_FAIL("LIBKQ_EXACT_EOF=1: %d ppoll() calls, without it %d", obeyed.polls,
		       plain.polls);
	if (plain.pwait2 < 1 || obeyed.pwait2 != 0)
		T_FAIL("LIBKQ_NO_EPOLL_PWAIT2=1: %d epoll_pwait2() calls, without it %d",
		       obeyed.pwait2, plain.pwait2);
	if (plain.uring < 1 || obeyed.uring != 0)
		T_FAIL("LIBKQ_NO_IO_URING=1: %d io_uring_setup() calls, without it %d",
		       obeyed.uring, plain.uring);
	/* ... and is ignored under AT_SECURE */
	if (secure.polls != plain.polls)
		T_FAIL("AT_SECURE program obeyed LIBKQ_EXACT_EOF: %d ppoll() calls, "
		       "expected %d", secure.polls, plain.polls);
	if (secure.pwait2 < 1)
		T_FAIL("AT_SECURE program obeyed LIBKQ_NO_EPOLL_PWAIT2: no epoll_pwait2() "
		       "call");
	if (secure.uring < 1)
		T_FAIL("AT_SECURE program obeyed LIBKQ_NO_IO_URING: no io_uring_setup() call");
	return 0;
}
