/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * Counts the epoll waits (epoll_wait, epoll_pwait, epoll_pwait2) and the
 * EPOLL_CTL_DELs the process makes, without timing and without changing
 * what they do: a seccomp filter traps each, and the handler counts it and
 * makes it again, marked so that the filter lets the copy through (the
 * mark is the high half of the first argument, an int the kernel
 * truncates).  Irreversible, so installed last; t_epoll_waits_trap()
 * skips the test where filters cannot be installed.
 */
#ifndef T_EPOLL_WAITS_H
#define T_EPOLL_WAITS_H

#include "t_seccomp.h"

#include <sys/epoll.h>

#ifndef SYS_epoll_pwait2
#define SYS_epoll_pwait2 441
#endif

#define T_EPOLL_WAITS_MARK 0x4b510000u

static volatile sig_atomic_t t_epoll_waits, t_epoll_waits_dels;

static void t_epoll_waits_counted(int sig, siginfo_t *si, void *uc)
{
	(void)sig;
	long a[6];
	t_sigsys_args(uc, a);
	if (si->si_syscall != SYS_epoll_ctl)
		t_epoll_waits++;
	else if ((int)a[1] == EPOLL_CTL_DEL)
		t_epoll_waits_dels++;
	t_sigsys_redo(uc, si->si_syscall, 0, T_EPOLL_WAITS_MARK);
}

static inline void t_epoll_waits_trap(void)
{
#ifdef T_AUDIT_ARCH
	struct sock_filter f[] = {
		T_SECCOMP_PROLOGUE,
#ifdef SYS_epoll_wait
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, SYS_epoll_wait, 4, 0),
#else
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, SYS_epoll_pwait, 4, 0),
#endif
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, SYS_epoll_pwait, 3, 0),
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, SYS_epoll_pwait2, 2, 0),
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, SYS_epoll_ctl, 1, 0),
		BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
		/* the handler's copy goes through */
		T_SECCOMP_TRAP_UNMARKED(0, T_EPOLL_WAITS_MARK),
	};
	t_seccomp_trap(t_epoll_waits_counted, f, sizeof f / sizeof f[0]);
#else
	T_SKIP("no seccomp filter for this architecture");
#endif
}

/* A wait of ms milliseconds on kq that must return no record, after most
 * of that time, with exactly `expected` epoll waits (what: the case, for
 * the messages). */
static inline void t_epoll_waits_quiet(int kq, long ms, int expected, const char *what)
{
	struct kevent ev[4];
	t_epoll_waits = 0;
	int64_t t0 = t_now_ns();
	T_EQ(t_wait(kq, ev, 4, ms), 0);
	int64_t took = t_now_ns() - t0;
	if (took < ms * 900000)
		T_FAIL("%s: the wait returned after %lld ns", what, (long long)took);
	if (t_epoll_waits != expected)
		T_FAIL("%s: the wait made %d epoll waits, expected %d", what,
		       (int)t_epoll_waits, expected);
}

#endif
