/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * EVFILT_PROC NOTE_EXIT on the program's own child keeps working where a
 * sandbox refuses pidfd_open() (EPERM or EACCES, as container profiles and
 * systemd's SystemCallFilter= older than the call answer) or the kernel
 * has none (ENOSYS).  In a child under a seccomp filter the test installs
 * (one per answer), with a SIGCHLD handler of the program's own:
 *  - a child that exits with 3 while kevent() sleeps wakes it with the one
 *    record {pid, EVFILT_PROC, EV_CLEAR|EV_EOF|EV_ONESHOT, NOTE_EXIT,
 *    0x300, udata}; the program's handler still ran; the child is not
 *    reaped (waitpid(WNOHANG) gets 0x300);
 *  - a child killed by SIGKILL gives data 9;
 *  - a child already a zombie at EV_ADD gives its record at once (0x700);
 *  - a pid that no longer exists fails EV_ADD with ESRCH;
 *  - with SIGCHLD set to SIG_IGN (children reaped by the kernel, no signal
 *    sent), the exit is reported by the next kevent() call, with data 0:
 *    no status is left to read (FreeBSD would give 0x400 here).
 * Skipped where seccomp filters cannot be installed.
 */
#include "t_seccomp.h"
#include "t_proc.h"

#ifndef SYS_pidfd_open
#define SYS_pidfd_open 434
#endif

static volatile sig_atomic_t chld_seen;

static void on_chld(int sig)
{
	(void)sig;
	chld_seen++;
}

static void child_exits_while_asleep(int kq)
{
	int gate[2], ud;
	pid_t pid = t_spawn_gated(gate, 3);
	t_change(kq, pid, EVFILT_PROC, EV_ADD, NOTE_EXIT, 0, &ud);
	T_NO_EVENTS(kq);
	t_write_later(gate[1], 50);
	struct kevent ev[2];
	int n = t_wait(kq, ev, 2, 3000);
	T_EQ(n, 1);
	T_EXIT_RECORD(&ev[0], pid, 0x300, &ud);
	T_ASSERT(chld_seen > 0);
	T_EQ(t_kid_reap(pid, WNOHANG), 0x300);
	T_NO_EVENTS(kq);
	/* gate[1] stays open: the writing thread may not have returned yet */
	close(gate[0]);
}

static void child_killed(int kq)
{
	int gate[2];
	pid_t pid = t_spawn_gated(gate, 0);
	t_change(kq, pid, EVFILT_PROC, EV_ADD, NOTE_EXIT, 0, NULL);
	T_NO_EVENTS(kq);
	T_ASSERT(kill(pid, SIGKILL) == 0);
	struct kevent ev[2];
	T_EQ(t_wait(kq, ev, 2, 3000), 1);
	T_EXIT_RECORD(&ev[0], pid, SIGKILL, NULL);
	T_EQ(t_kid_reap(pid, WNOHANG), SIGKILL);
	close(gate[0]);
	close(gate[1]);
}

static void child_zombie_before(int kq)
{
	pid_t pid = fork();
	T_ASSERT(pid >= 0);
	if (pid == 0)
		_exit(7);
	t_kid_reap_at_exit(pid);
	t_kid_wait_exit(pid);
	t_change(kq, pid, EVFILT_PROC, EV_ADD, NOTE_EXIT, 0, &kq);
	struct kevent ev[2];
	T_EQ(t_get(kq, ev, 2), 1);
	T_EXIT_RECORD(&ev[0], pid, 0x700, &kq);
	T_EQ(t_kid_reap(pid, WNOHANG), 0x700);
	T_NO_EVENTS(kq);

	/* reaped: the pid names no process now */
	t_change_fails(kq, pid, EVFILT_PROC, EV_ADD, NULL, ESRCH);
}

/* Ignored SIGCHLD: the kernel reaps the child at once and sends nothing;
 * the next kevent() call finds it gone, with no status left to give. */
static void child_autoreaped(int kq)
{
	signal(SIGCHLD, SIG_IGN);
	int gate[2];
	pid_t pid = t_spawn_gated(gate, 4);
	t_change(kq, pid, EVFILT_PROC, EV_ADD, NOTE_EXIT, 0, NULL);
	T_NO_EVENTS(kq);
	t_write(gate[1], "x", 1);
	for (int i = 0; kill(pid, 0) == 0; i++) {
		if (i == 3000)
			T_FAIL("child %d not reaped by the kernel within 3 s", (int)pid);
		t_sleep_ms(1);
	}
	t_kid_reaped();
	T_WAIT1(kq, 3000, pid, EVFILT_PROC, EV_CLEAR | EV_EOF | EV_ONESHOT, NOTE_EXIT, 0, NULL);
	T_NO_EVENTS(kq);
	close(gate[0]);
	close(gate[1]);
}

static int child(int err)
{
	if (t_seccomp_refuse(SYS_pidfd_open, err) != 0)
		return 77;
	if (syscall(SYS_pidfd_open, getpid(), 0) != -1 || errno != err)
		return 77;
	t_fail_after(10, "sandbox-pidfd-open-refused did not finish within 10 s");
	t_on_signal(SIGCHLD, on_chld, SA_RESTART);
	int kq = t_kqueue();
	child_exits_while_asleep(kq);
	child_killed(kq);
	child_zombie_before(kq);
	child_autoreaped(kq);
	close(kq);
	return 0;
}

int main(void)
{
	t_seccomp_run(child, "pidfd_open()");
	return 0;
}
