/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * The tests of libkq's system(), popen() and pclose(): each case runs with
 * libkq's function (the plain name, as this program binds it) and with
 * glibc's own (dlsym() on the C library's handle, which never finds
 * libkq's), and what each does is written to a string; the two strings
 * must be equal.
 */
#ifndef T_SHELL_H
#define T_SHELL_H

#include "t.h"
#include "t_seccomp.h"

#include <dlfcn.h>
#include <sys/wait.h>

struct t_shell {
	const char *who;
	int (*system)(const char *);
	FILE *(*popen)(const char *, const char *);
	int (*pclose)(FILE *);
};

static inline void t_shell_pair(struct t_shell *kq, struct t_shell *libc)
{
	void *h = dlopen("libc.so.6", RTLD_LAZY | RTLD_NOLOAD);
	if (!h)
		T_SKIP("dlopen(libc.so.6): %s", dlerror());
	*kq = (struct t_shell){ "libkq", system, popen, pclose };
	*libc = (struct t_shell){ "glibc", (int (*)(const char *))dlsym(h, "system"),
				  (FILE * (*)(const char *, const char *))dlsym(h, "popen"),
				  (int (*)(FILE *))dlsym(h, "pclose") };
	if (!libc->system || !libc->popen || !libc->pclose)
		T_SKIP("glibc's system/popen/pclose not found");
	if (libc->system == system)
		T_SKIP("system() is glibc's here (libkq does not replace it)");
}

/* Appends to the case's account. */
static inline void t_say(char *out, size_t size, const char *fmt, ...)
{
	size_t n = strlen(out);
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(out + n, size - n, fmt, ap);
	va_end(ap);
}

/* Runs a case with both and compares the accounts. */
static inline void t_shell_same(const char *name,
				void (*run)(const struct t_shell *, char *, size_t))
{
	struct t_shell a, b;
	char oa[4096] = "", ob[4096] = "";
	t_shell_pair(&a, &b);
	run(&a, oa, sizeof oa);
	run(&b, ob, sizeof ob);
	if (strcmp(oa, ob) != 0)
		T_FAIL("%s:\n  libkq: %s\n  glibc: %s", name, oa, ob);
	if (getenv("T_SHELL_VERBOSE"))
		fprintf(stderr, "%s: %s\n", name, oa);
}

/* Runs a case in a child where no process can be made (clone refused with
 * EAGAIN); the child writes its account to the pipe. */
static inline void t_shell_no_clone(const struct t_shell *s, char *out, size_t size,
				    void (*run)(const struct t_shell *, char *, size_t))
{
	int p[2];
	T_ASSERT(pipe(p) == 0);
	fflush(NULL);
	pid_t pid = fork();
	T_ASSERT(pid >= 0);
	if (pid == 0) {
		char buf[1024] = "";
		close(p[0]);
		if (t_seccomp_refuse(SYS_clone, EAGAIN) != 0 ||
		    t_seccomp_refuse(SYS_clone3, EAGAIN) != 0)
			_exit(77);
		run(s, buf, sizeof buf);
		ssize_t w = write(p[1], buf, strlen(buf));
		_exit(w < 0);
	}
	close(p[1]);
	size_t len = strlen(out);
	ssize_t n = read(p[0], out + len, size - len - 1);
	close(p[0]);
	int st;
	T_ASSERT(waitpid(pid, &st, 0) == pid);
	if (WIFEXITED(st) && WEXITSTATUS(st) == 77)
		T_SKIP("cannot install a seccomp filter here");
	T_ASSERT(n >= 0);
	out[len + (size_t)n] = 0;
}

#endif
