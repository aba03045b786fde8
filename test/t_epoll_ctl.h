/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * Counts the epoll_ctl() calls the process makes, by operation, without
 * timing and without changing what they do: a seccomp filter traps each
 * one (SIGSYS), and the handler counts it and makes it again, marked so
 * that the filter lets the copy through.  The mark is the high half of the
 * operation argument, which the kernel drops (the operation is an int).
 * Irreversible, so installed last; t_epoll_ctl_trap() skips the test where
 * filters cannot be installed.
 */
#ifndef T_EPOLL_CTL_H
#define T_EPOLL_CTL_H

#include "t_seccomp.h"

#include <sys/epoll.h>

#define T_EPOLL_CTL_MARK 0x4b510000u

/* t_epoll_ctls[EPOLL_CTL_ADD / _DEL / _MOD]; [0] counts the others */
static volatile sig_atomic_t t_epoll_ctls[4];

static inline int t_epoll_ctl_count(void)
{
	return (int)(t_epoll_ctls[EPOLL_CTL_ADD] + t_epoll_ctls[EPOLL_CTL_DEL] +
		     t_epoll_ctls[EPOLL_CTL_MOD] + t_epoll_ctls[0]);
}

static inline void t_epoll_ctl_zero(void)
{
	for (int i = 0; i < 4; i++)
		t_epoll_ctls[i] = 0;
}

static void t_epoll_ctl_counted(int sig, siginfo_t *si, void *uc)
{
	(void)sig;
	(void)si;
	long a[6];
	t_sigsys_args(uc, a);
	int op = (int)a[1];
	t_epoll_ctls[op >= 1 && op <= 3 ? op : 0]++;
	t_sigsys_redo(uc, SYS_epoll_ctl, 1, T_EPOLL_CTL_MARK);
}

static inline void t_epoll_ctl_trap(void)
{
#ifdef T_AUDIT_ARCH
	struct sock_filter f[] = {
		T_SECCOMP_PROLOGUE,
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, SYS_epoll_ctl, 1, 0),
		BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
		/* the handler's copy goes through */
		T_SECCOMP_TRAP_UNMARKED(1, T_EPOLL_CTL_MARK),
	};
	t_seccomp_trap(t_epoll_ctl_counted, f, sizeof f / sizeof f[0]);
#else
	T_SKIP("no seccomp filter for this architecture");
#endif
}

#endif
