/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * Counts the EPOLL_CTL_DELs the process makes, without timing: a seccomp
 * filter traps each one (SIGSYS), and the handler counts it and makes it
 * succeed, as the kernel would have.  Irreversible, so installed last.
 * t_epoll_del_trap() skips the test where filters cannot be installed.
 */
#ifndef T_EPOLL_DEL_H
#define T_EPOLL_DEL_H

#include "t_seccomp.h"

#include <sys/epoll.h>
#include <ucontext.h>

static volatile sig_atomic_t t_epoll_dels;

static void t_epoll_del_counted(int sig, siginfo_t *si, void *uc)
{
	(void)sig;
	(void)si;
	t_epoll_dels++;
#if defined(__x86_64__)
	((ucontext_t *)uc)->uc_mcontext.gregs[REG_RAX] = 0;
#elif defined(__aarch64__)
	((ucontext_t *)uc)->uc_mcontext.regs[0] = 0;
#else
	(void)uc;
#endif
}

static inline void t_epoll_del_trap(void)
{
#ifdef T_AUDIT_ARCH
	struct sigaction sa = { .sa_sigaction = t_epoll_del_counted, .sa_flags = SA_SIGINFO };
	T_ASSERT(sigaction(SIGSYS, &sa, NULL) == 0);
	struct sock_filter f[] = {
		BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, arch)),
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, T_AUDIT_ARCH, 1, 0),
		BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
		BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, nr)),
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, SYS_epoll_ctl, 1, 0),
		BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
		/* the low half of the second argument, the operation */
		BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, args[1])),
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, EPOLL_CTL_DEL, 1, 0),
		BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
		BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_TRAP),
	};
	struct sock_fprog prog = { sizeof f / sizeof f[0], f };
	if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0 ||
	    prctl(PR_SET_SECCOMP, SECCOMP_MODE_FILTER, &prog) != 0)
		T_SKIP("cannot install a seccomp filter: %s", strerror(errno));
#else
	T_SKIP("no seccomp filter for this architecture");
#endif
}

#endif
