/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * system() is a cancellation point, as glibc's: a thread cancelled while
 * it waits kills its child with SIGKILL and reaps it, and the caller's
 * SIGINT and SIGQUIT are put back.  The shell tells its process id first.
 */
#include "t_cancel.h"
#include "t_shell.h"

static int pipe_w;

static void *caller(void *arg)
{
	int (*sys)(const char *) = (int (*)(const char *))arg;
	char cmd[64];
	snprintf(cmd, sizeof cmd, "echo $$ >&%d; exec sleep 30", pipe_w);
	sys(cmd);
	return (void *)1;
}

static void run(const struct t_shell *s, char *out, size_t size)
{
	int p[2];
	char buf[32] = "";
	struct sigaction a;
	T_ASSERT(pipe(p) == 0);
	pipe_w = p[1];
	T_ASSERT(signal(SIGINT, SIG_DFL) != SIG_ERR);
	pthread_t t;
	T_EQ(pthread_create(&t, NULL, caller, (void *)s->system), 0);
	ssize_t n = read(p[0], buf, sizeof buf - 1);
	T_ASSERT(n > 0);
	buf[n] = 0;
	pid_t child = (pid_t)atoi(buf);
	T_ASSERT(child > 0);
	T_ASSERT(sigaction(SIGINT, NULL, &a) == 0);
	t_say(out, size, "during=%s ", a.sa_handler == SIG_IGN ? "ign" : "dfl");
	T_EQ(pthread_cancel(t), 0);
	void *r;
	T_EQ(pthread_join(t, &r), 0);
	t_say(out, size, "cancelled=%d ", r == PTHREAD_CANCELED);
	errno = 0;
	int k = kill(child, 0);
	t_say(out, size, "child=%d/%d ", k, errno);
	T_ASSERT(sigaction(SIGINT, NULL, &a) == 0);
	t_say(out, size, "after=%s ", a.sa_handler == SIG_IGN ? "ign" : "dfl");
	close(p[0]);
	close(p[1]);
}

int main(void)
{
	T_CANCEL_SKIP_ASAN();
	if (access("/bin/sh", X_OK) != 0)
		T_SKIP("no /bin/sh");
	t_shell_same("system() cancelled", run);
	return 0;
}
