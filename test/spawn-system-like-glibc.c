/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * libkq's system() keeps glibc's contract (t_shell.h compares the two):
 * system(NULL); the exit status; /bin/sh -c; the child's signals (SIGINT
 * and SIGQUIT at the default unless the caller ignored them, other ignored
 * signals kept, the caller's mask without SIGCHLD); in the caller, SIGINT
 * and SIGQUIT ignored and SIGCHLD blocked while it waits, all put back
 * after, also with several threads in system() at once; status 127 and
 * errno when no child can be made.
 */
#include "t_shell.h"

static void on_int(int sig)
{
	(void)sig;
}

/* A file the shell writes to, named alike in both runs. */
static int scratch(char *path, size_t size)
{
	snprintf(path, size, "/tmp/libkq-system-%d", (int)getpid());
	int fd = open(path, O_RDWR | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
	T_ASSERT(fd >= 0);
	return fd;
}

static void basics(const struct t_shell *s, char *out, size_t size)
{
	t_say(out, size, "null=%d exit=%#x killed=%#x ", s->system(NULL),
	      s->system("exit 3"), s->system("kill -TERM $$"));
	/* the shell and its arguments */
	char path[64], cmd[128], buf[256] = "";
	int fd = scratch(path, sizeof path);
	snprintf(cmd, sizeof cmd, "tr '\\0' ' ' < /proc/$$/cmdline > %s", path);
	t_say(out, size, "st=%#x ", s->system(cmd));
	ssize_t n = read(fd, buf, sizeof buf - 1);
	buf[n > 0 ? n : 0] = 0;
	t_say(out, size, "argv=[%s] ", buf);
	close(fd);
	unlink(path);
}

/* The child's blocked and ignored signals, in hex as the kernel says. */
static void child_signals(const struct t_shell *s, char *out, size_t size)
{
	char path[64], cmd[128], buf[256] = "";
	int fd = scratch(path, sizeof path);
	snprintf(cmd, sizeof cmd, "grep -E '^Sig(Blk|Ign)' /proc/self/status > %s", path);
	t_say(out, size, "st=%#x ", s->system(cmd));
	ssize_t n = read(fd, buf, sizeof buf - 1);
	buf[n > 0 ? n : 0] = 0;
	for (char *c = buf; *c; c++)
		if (*c == '\n' || *c == '\t')
			*c = ' ';
	t_say(out, size, "[%s] ", buf);
	close(fd);
	unlink(path);
}

static void signals(const struct t_shell *s, char *out, size_t size)
{
	sigset_t usr2, old;
	sigemptyset(&usr2);
	sigaddset(&usr2, SIGUSR2);
	T_ASSERT(sigprocmask(SIG_BLOCK, &usr2, &old) == 0);
	T_ASSERT(signal(SIGINT, on_int) != SIG_ERR);
	T_ASSERT(signal(SIGTERM, SIG_IGN) != SIG_ERR);
	child_signals(s, out, size);
	T_ASSERT(signal(SIGINT, SIG_IGN) != SIG_ERR);
	T_ASSERT(signal(SIGQUIT, on_int) != SIG_ERR);
	child_signals(s, out, size);

	/* all put back */
	struct sigaction a;
	sigset_t now;
	T_ASSERT(sigaction(SIGINT, NULL, &a) == 0);
	t_say(out, size, "int=%s ", a.sa_handler == SIG_IGN ? "ign" : a.sa_handler == on_int ? "handler" : "dfl");
	T_ASSERT(sigaction(SIGQUIT, NULL, &a) == 0);
	t_say(out, size, "quit=%s ", a.sa_handler == SIG_IGN ? "ign" : a.sa_handler == on_int ? "handler" : "dfl");
	T_ASSERT(sigprocmask(SIG_SETMASK, &old, &now) == 0);
	t_say(out, size, "usr2=%d chld=%d ", sigismember(&now, SIGUSR2), sigismember(&now, SIGCHLD));
	signal(SIGINT, SIG_DFL);
	signal(SIGQUIT, SIG_DFL);
	signal(SIGTERM, SIG_DFL);
}

/* Several threads in system() at once: SIGINT is ignored while any
 * waits, and the handler is back when the last returns. */
static const struct t_shell *cur;
static void *one(void *arg)
{
	(void)arg;
	return (void *)(intptr_t)cur->system("sleep 0.2; exit 4");
}

static void concurrent(const struct t_shell *s, char *out, size_t size)
{
	pthread_t t[4];
	struct sigaction a;
	T_ASSERT(signal(SIGINT, on_int) != SIG_ERR);
	cur = s;
	for (int i = 0; i < 4; i++) {
		T_EQ(pthread_create(&t[i], NULL, one, NULL), 0);
		t_sleep_ms(20);
	}
	T_ASSERT(sigaction(SIGINT, NULL, &a) == 0);
	t_say(out, size, "during=%s ", a.sa_handler == SIG_IGN ? "ign" : "not");
	for (int i = 0; i < 4; i++) {
		void *r;
		T_EQ(pthread_join(t[i], &r), 0);
		t_say(out, size, "%#x ", (int)(intptr_t)r);
	}
	T_ASSERT(sigaction(SIGINT, NULL, &a) == 0);
	t_say(out, size, "after=%s ", a.sa_handler == on_int ? "handler" : "lost");
	signal(SIGINT, SIG_DFL);
}

static void no_child(const struct t_shell *s, char *out, size_t size)
{
	errno = 0;
	int st = s->system("exit 0");
	t_say(out, size, "st=%#x errno=%d ", st, errno);
}

static void no_clone(const struct t_shell *s, char *out, size_t size)
{
	t_shell_no_clone(s, out, size, no_child);
}

int main(void)
{
	if (access("/bin/sh", X_OK) != 0)
		T_SKIP("no /bin/sh");
	t_shell_same("system(NULL), status, argv", basics);
	t_shell_same("the child's signals and the caller's after", signals);
	t_shell_same("concurrent system() calls", concurrent);
	t_shell_same("no child can be made", no_clone);
	return 0;
}
