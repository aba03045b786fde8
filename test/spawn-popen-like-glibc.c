/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * libkq's popen() and pclose() keep glibc's contract (t_shell.h compares
 * the two): modes "r" and "w", "e" for a close-on-exec stream, others
 * EINVAL; the child runs /bin/sh -c with the stream at its standard input
 * or output, and closes the streams of earlier popen() calls still open;
 * pclose() gives the child's status, -1 with ECHILD when the child was
 * reaped already, and closes a stream not from popen() as fclose() does;
 * fclose() of a popen() stream waits for the child too; a child that
 * cannot be made is NULL with glibc's errno.
 */
#include "t_shell.h"

static void modes(const struct t_shell *s, char *out, size_t size)
{
	static const char *const bad[] = { "rw", "q", "", "er" };
	char line[64] = "";
	FILE *f = s->popen("echo hello; exit 3", "r");
	T_ASSERT(f != NULL);
	t_say(out, size, "cloexec=%d ", (fcntl(fileno(f), F_GETFD) & FD_CLOEXEC) != 0);
	if (!fgets(line, sizeof line, f))
		line[0] = 0;
	t_say(out, size, "read=%s", line);
	t_say(out, size, "status=%#x ", s->pclose(f));

	f = s->popen("read x; test \"$x\" = written", "we");
	T_ASSERT(f != NULL);
	t_say(out, size, "cloexec=%d ", (fcntl(fileno(f), F_GETFD) & FD_CLOEXEC) != 0);
	fputs("written\n", f);
	t_say(out, size, "status=%#x ", s->pclose(f));

	for (unsigned i = 0; i < sizeof bad / sizeof bad[0]; i++) {
		errno = 0;
		f = s->popen("exit 0", bad[i]);
		t_say(out, size, "%s:%s/%d ", bad[i], f ? "stream" : "null", errno);
		if (f)
			s->pclose(f);
	}
}

/* The child holds none of the earlier streams, and has its own at 0/1. */
static void earlier_closed(const struct t_shell *s, char *out, size_t size)
{
	char cmd[160], line[256] = "";
	FILE *a = s->popen("cat > /dev/null", "w");
	FILE *b = s->popen("sleep 0.5", "r");
	T_ASSERT(a && b);
	snprintf(cmd, sizeof cmd, "for n in %d %d; do test -e /proc/$$/fd/$n && echo has $n; done; "
		 "test -p /proc/$$/fd/1 && echo pipe", fileno(a), fileno(b));
	FILE *c = s->popen(cmd, "r");
	T_ASSERT(c != NULL);
	while (fgets(line, sizeof line, c))
		t_say(out, size, "%.*s ", (int)strcspn(line, "\n"), line);
	t_say(out, size, "c=%#x a=%#x b=%#x ", s->pclose(c), s->pclose(a), s->pclose(b));
}

static void closes(const struct t_shell *s, char *out, size_t size)
{
	FILE *f = fopen("/dev/null", "r");
	T_ASSERT(f != NULL);
	errno = 0;
	int r = s->pclose(f);
	t_say(out, size, "not-popen=%d/%d ", r, errno);

	f = s->popen("exit 2", "r");
	T_ASSERT(f != NULL);
	int st;
	T_ASSERT(waitpid(-1, &st, 0) > 0);
	errno = 0;
	r = s->pclose(f);
	t_say(out, size, "reaped=%d/%d ", r, errno);

	/* fclose() is pclose() for such a stream (the function libkq's
	 * program binds is libkq's, glibc's own for glibc's stream) */
	f = s->popen("exit 6", "w");
	T_ASSERT(f != NULL);
	t_say(out, size, "fclose=%#x ", fclose(f));

	/* the lowest free number, 0 included */
	int saved = dup(0);
	T_ASSERT(saved >= 0);
	close(0);
	f = s->popen("echo zero", "r");
	T_ASSERT(f != NULL);
	char line[16] = "";
	t_say(out, size, "fd=%d %s", fileno(f), fgets(line, sizeof line, f) ? line : "none ");
	t_say(out, size, "st=%#x ", s->pclose(f));
	T_EQ(dup2(saved, 0), 0);
	close(saved);
}

static void no_child(const struct t_shell *s, char *out, size_t size)
{
	errno = 0;
	FILE *f = s->popen("exit 0", "r");
	t_say(out, size, "%s errno=%d ", f ? "stream" : "null", errno);
}

static void no_clone(const struct t_shell *s, char *out, size_t size)
{
	t_shell_no_clone(s, out, size, no_child);
}

int main(void)
{
	if (access("/bin/sh", X_OK) != 0)
		T_SKIP("no /bin/sh");
	t_shell_same("modes, status, close-on-exec", modes);
	t_shell_same("earlier streams closed in the child", earlier_closed);
	t_shell_same("pclose() and fclose()", closes);
	t_shell_same("no child can be made", no_clone);
	return 0;
}
