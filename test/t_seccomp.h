/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * Tests of kevent() in a sandbox that refuses one system call: container
 * profiles and systemd's SystemCallFilter= older than a call answer it
 * with EPERM (or EACCES), a kernel without it with ENOSYS.  Each answer
 * is tried in a child of its own, under a seccomp filter the child
 * installs; t_seccomp_run() skips the test (77) where filters cannot be
 * installed (no seccomp, another architecture).
 */
#ifndef T_SECCOMP_H
#define T_SECCOMP_H

#include "t.h"

#include <linux/audit.h>
#include <stdbool.h>
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <stddef.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <ucontext.h>

#if defined(__x86_64__) && !defined(__ILP32__)
#define T_AUDIT_ARCH AUDIT_ARCH_X86_64
#elif defined(__aarch64__)
#define T_AUDIT_ARCH AUDIT_ARCH_AARCH64
#endif

#ifdef T_AUDIT_ARCH
/* A filter's first statements: another architecture's calls are allowed,
 * and the call's number is loaded. */
#define T_SECCOMP_PROLOGUE                                                  \
	BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, arch)), \
	BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, T_AUDIT_ARCH, 1, 0),            \
	BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),                       \
	BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, nr))

/* A filter's last statements for a trapped call whose handler makes it
 * again, marked in the high half of an argument (args[i]; little-endian,
 * as both architectures here are): the marked copy is let through. */
#define T_SECCOMP_TRAP_UNMARKED(i, mark)                                     \
	BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, args[i]) + 4), \
	BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, (mark), 0, 1),                   \
	BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),                        \
	BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_TRAP)

/* Installs the n statements at f on this thread (and the threads it makes
 * from now on) with seccomp(2)'s flags: -1 if it cannot, else what
 * seccomp(2) returns (the listener's descriptor for
 * SECCOMP_FILTER_FLAG_NEW_LISTENER). */
static inline int t_seccomp_install(struct sock_filter *f, unsigned short n, unsigned flags)
{
	struct sock_fprog prog = { n, f };
	if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0)
		return -1;
	return (int)syscall(SYS_seccomp, SECCOMP_SET_MODE_FILTER, flags, &prog);
}

/* handler for SIGSYS, then the n statements at f: the calls f traps go to
 * the handler from now on.  Skips the test where filters cannot be
 * installed.  Irreversible, so a test installs it last. */
static inline void t_seccomp_trap(void (*handler)(int, siginfo_t *, void *),
				  struct sock_filter *f, unsigned short n)
{
	struct sigaction sa = { .sa_sigaction = handler, .sa_flags = SA_SIGINFO };
	T_ASSERT(sigaction(SIGSYS, &sa, NULL) == 0);
	if (t_seccomp_install(f, n, 0) < 0)
		T_SKIP("cannot install a seccomp filter: %s", strerror(errno));
}
#endif

/* In a SIGSYS handler for a call a filter trapped (SECCOMP_RET_TRAP), uc
 * its context: the call's six arguments, and setting its result. */
static inline void t_sigsys_args(void *uc, long a[6])
{
#if defined(__x86_64__)
	greg_t *g = ((ucontext_t *)uc)->uc_mcontext.gregs;
	long r[6] = { g[REG_RDI], g[REG_RSI], g[REG_RDX], g[REG_R10], g[REG_R8], g[REG_R9] };
#elif defined(__aarch64__)
	unsigned long long *g = ((ucontext_t *)uc)->uc_mcontext.regs;
	long r[6] = { (long)g[0], (long)g[1], (long)g[2], (long)g[3], (long)g[4], (long)g[5] };
#else
	long r[6] = { 0 };
	(void)uc;
#endif
	memcpy(a, r, sizeof r);
}

static inline void t_sigsys_return(void *uc, long r)
{
#if defined(__x86_64__)
	((ucontext_t *)uc)->uc_mcontext.gregs[REG_RAX] = r;
#elif defined(__aarch64__)
	((ucontext_t *)uc)->uc_mcontext.regs[0] = (unsigned long long)r;
#else
	(void)uc;
	(void)r;
#endif
}

/* Makes the trapped call nr again, with the high half of argument `at`
 * (an int the kernel truncates) set to mark, which the trapping filter
 * lets through, and gives its result (or -errno) to the trapped call;
 * errno is kept. */
static inline void t_sigsys_redo(void *uc, long nr, int at, uint32_t mark)
{
	long a[6];
	t_sigsys_args(uc, a);
	a[at] = (long)(((unsigned long)mark << 32) | (uint32_t)a[at]);
	int saved = errno;
	long r = syscall(nr, a[0], a[1], a[2], a[3], a[4], a[5]);
	if (r < 0)
		r = -errno;
	errno = saved;
	t_sigsys_return(uc, r);
}

/* Refuses system call nr with errno err, only when its first argument's
 * low 32 bits are arg0 if match_arg0; everything else is allowed.
 * -1 where no filter can be installed. */
static inline int t_seccomp_refuse_if(long nr, bool match_arg0, uint32_t arg0, int err)
{
#ifdef T_AUDIT_ARCH
	struct sock_filter f[] = {
		T_SECCOMP_PROLOGUE,
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, (uint32_t)nr, 1, 0),
		BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
		BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, args[0])),
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, arg0, 1, 0),
		BPF_STMT(BPF_RET | BPF_K,
			 match_arg0 ? SECCOMP_RET_ALLOW : SECCOMP_RET_ERRNO | (uint32_t)err),
		BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ERRNO | (uint32_t)err),
	};
	return t_seccomp_install(f, sizeof f / sizeof f[0], 0);
#else
	(void)nr; (void)match_arg0; (void)arg0; (void)err;
	return -1;
#endif
}

static inline int t_seccomp_refuse(long nr, int err)
{
	return t_seccomp_refuse_if(nr, false, 0, err);
}

/* Refuses system calls nr1 and nr2 with errno err, whatever their
 * arguments; -1 where no filter can be installed. */
static inline int t_seccomp_refuse2(long nr1, long nr2, int err)
{
#ifdef T_AUDIT_ARCH
	struct sock_filter f[] = {
		T_SECCOMP_PROLOGUE,
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, (uint32_t)nr1, 2, 0),
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, (uint32_t)nr2, 1, 0),
		BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
		BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ERRNO | (uint32_t)err),
	};
	return t_seccomp_install(f, sizeof f / sizeof f[0], 0);
#else
	(void)nr1; (void)nr2; (void)err;
	return -1;
#endif
}

/* An EVFILT_USER knote (ident 1, udata ud) added to kq reports its
 * trigger, and nothing else is left to collect: the filters a refused call
 * does not concern work on. */
static inline void t_seccomp_user_works(int kq, void *ud)
{
	t_change(kq, 1, EVFILT_USER, EV_ADD | EV_CLEAR, 0, 0, ud);
	t_change(kq, 1, EVFILT_USER, 0, NOTE_TRIGGER, 0, ud);
	T_GET1(kq, 1, EVFILT_USER, EV_CLEAR, 0, 0, ud);
	T_NO_EVENTS(kq);
}

/* The same, after a READ knote (udata NULL) the caller added on the pipe
 * p's read end reports a byte written to it. */
static inline void t_seccomp_others_work(int kq, const int p[2], void *ud)
{
	char c = 'x';
	T_EQ(write(p[1], &c, 1), 1);
	T_GET1(kq, p[0], EVFILT_READ, 0, 0, 1, NULL);
	T_EQ(read(p[0], &c, 1), 1);
	t_seccomp_user_works(kq, ud);
}

/* Runs child(err) in a child process for each errno a sandbox or an old
 * kernel answers with; the child returns 0 (pass), 1 (fail) or 77 (the
 * filter could not be installed).  Fails or skips the test for it. */
static inline void t_seccomp_run(int (*child)(int err), const char *call)
{
	static const int errs[] = { EPERM, EACCES, ENOSYS };
	for (unsigned i = 0; i < sizeof errs / sizeof errs[0]; i++) {
		fflush(NULL);
		pid_t pid = fork();
		T_ASSERT(pid >= 0);
		if (pid == 0)
			_exit(child(errs[i]));
		int st;
		T_ASSERT(waitpid(pid, &st, 0) == pid);
		if (!WIFEXITED(st))
			T_FAIL("child for errno %d died of signal %d", errs[i], WTERMSIG(st));
		if (WEXITSTATUS(st) == 77)
			T_SKIP("cannot install a seccomp filter here");
		if (WEXITSTATUS(st) != 0)
			T_FAIL("with %s refused with errno %d", call, errs[i]);
	}
}

#endif
