/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * A READ knote deleted after its EV_EOF record leaves the descriptor's
 * epoll entry in the set (parked, so that a knote added again costs a MOD).
 * A level entry at end of file reports at every epoll_wait(), so the next
 * kevent() that waits must not find it there: that wait makes one
 * epoll_wait() and sleeps, where it used to return at once for the entry,
 * remove it and wait a second time.  A server whose thread removes a
 * finished connection and waits again (APR's pollset under Apache's event
 * MPM) paid that round once per connection.
 *
 * Both orders a server uses are checked, counting the epoll_wait() calls
 * and the EPOLL_CTL_DELs the process makes (a seccomp filter traps each,
 * and the handler counts it and makes it again, marked so that the filter
 * lets the copy through: the mark is the high half of the first argument,
 * an int the kernel truncates):
 *   delete, then wait, then close: one epoll_wait(), one DEL;
 *   delete, then close, then wait: one epoll_wait(), no DEL (the close of
 *   a private socket frees its file and the kernel drops the entry).
 */
#include "t_seccomp.h"

#include <sys/epoll.h>
#include <ucontext.h>

#ifndef SYS_epoll_pwait2
#define SYS_epoll_pwait2 441
#endif

#define MARK 0x4b510000u

static volatile sig_atomic_t waits, dels;

static void counted(int sig, siginfo_t *si, void *uc)
{
	(void)sig;
#if defined(__x86_64__)
	greg_t *g = ((ucontext_t *)uc)->uc_mcontext.gregs;
	long a[6] = { g[REG_RDI], g[REG_RSI], g[REG_RDX], g[REG_R10], g[REG_R8], g[REG_R9] };
#elif defined(__aarch64__)
	unsigned long long *g = ((ucontext_t *)uc)->uc_mcontext.regs;
	long a[6] = { (long)g[0], (long)g[1], (long)g[2], (long)g[3], (long)g[4], (long)g[5] };
#else
	long a[6] = { 0 };
	(void)uc;
#endif
	if (si->si_syscall == SYS_epoll_ctl) {
		if ((int)a[1] == EPOLL_CTL_DEL)
			dels++;
	} else {
		waits++;
	}
	int saved = errno;
	long r = syscall(si->si_syscall, (long)(((unsigned long)MARK << 32) | (uint32_t)a[0]),
			 a[1], a[2], a[3], a[4], a[5]);
	if (r < 0)
		r = -errno;
	errno = saved;
#if defined(__x86_64__)
	g[REG_RAX] = r;
#elif defined(__aarch64__)
	g[0] = (unsigned long long)r;
#endif
}

static void trap(void)
{
#ifdef T_AUDIT_ARCH
	struct sigaction sa = { .sa_sigaction = counted, .sa_flags = SA_SIGINFO };
	T_ASSERT(sigaction(SIGSYS, &sa, NULL) == 0);
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
		/* the high half of the first argument (little-endian, as both
		 * architectures here are): the handler's copy */
		BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, args[0]) + 4),
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, MARK, 0, 1),
		BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
		BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_TRAP),
	};
	if (t_seccomp_install(f, sizeof f / sizeof f[0], 0) < 0)
		T_SKIP("cannot install a seccomp filter: %s", strerror(errno));
#else
	T_SKIP("no seccomp filter for this architecture");
#endif
}

/* A private connection at end of file, its READ knote's EV_EOF record
 * taken and the knote deleted; *peer is closed. */
static int finished(int kq)
{
	int sp[2];
	T_ASSERT(socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sp) == 0);
	t_change(kq, sp[0], EVFILT_READ, EV_ADD, 0, 0, (void *)0x5151);
	T_ASSERT(close(sp[1]) == 0);
	T_WAIT1(kq, 1000, sp[0], EVFILT_READ, EV_EOF, 0, 0, (void *)0x5151);
	t_change(kq, sp[0], EVFILT_READ, EV_DELETE, 0, 0, NULL);
	return sp[0];
}

/* One wait of 50 ms that finds nothing, counted. */
static void quiet_wait(int kq, const char *order)
{
	struct kevent ev[4];
	waits = 0;
	int64_t t0 = t_now_ns();
	T_EQ(t_wait(kq, ev, 4, 50), 0);
	if (t_now_ns() - t0 < 45000000)
		T_FAIL("%s: the wait returned after %lld ns", order, (long long)(t_now_ns() - t0));
	if (waits != 1)
		T_FAIL("%s: the wait made %d epoll waits, expected 1", order, (int)waits);
}

int main(void)
{
	int kq = t_kqueue();
	trap();

	int fd = finished(kq);
	dels = 0;
	quiet_wait(kq, "delete, wait, close");
	T_ASSERT(close(fd) == 0);
	if (dels != 1)
		T_FAIL("delete, wait, close: %d EPOLL_CTL_DELs, expected 1", (int)dels);

	fd = finished(kq);
	dels = 0;
	T_ASSERT(close(fd) == 0);
	quiet_wait(kq, "delete, close, wait");
	if (dels != 0)
		T_FAIL("delete, close, wait: %d EPOLL_CTL_DELs, expected none", (int)dels);

	T_NO_EVENTS(kq);
	return 0;
}
