/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * NOTE_EXIT on a process of the same uid that is not our child (a
 * grandchild G, child of our child X): when G exits with status 9 and X
 * reaps it, one record {G, EVFILT_PROC, EV_CLEAR|EV_EOF|EV_ONESHOT,
 * NOTE_EXIT, 0x900, udata} arrives.
 * Deviation from FreeBSD: FreeBSD reports at G's exit; Linux gives a
 * non-child's exit status only once its real parent has reaped it
 * (PIDFD_GET_INFO, Linux >= 6.15), so libkq delivers the record at reap
 * time.  The test lets X reap G at once and only checks
 * that the record arrives with the exact status; on kernels before 6.15 it
 * skips.
 * Privilege: if run as root, the whole test runs in a child that first
 * drops to uid/gid 65534, so it checks what an unprivileged program gets.
 */
#include "t.h"

#include <grp.h>
#include <sys/utsname.h>
#include <sys/wait.h>

static pid_t kid;

static void kill_kid(void)
{
	if (kid > 0) {
		kill(kid, SIGKILL);
		waitpid(kid, NULL, 0);
	}
}

static int kernel_at_least(int major, int minor)
{
	struct utsname u;
	int a = 0, b = 0;

	if (uname(&u) != 0 || sscanf(u.release, "%d.%d", &a, &b) != 2)
		return 0;
	return a > major || (a == major && b >= minor);
}

/* As root: run the rest of main() in a child with uid/gid 65534 and exit
 * with its status; as any other user: return at once. */
static void run_unprivileged(void)
{
	int st;

	if (geteuid() != 0)
		return;
	pid_t w = fork();
	if (w < 0)
		T_FAIL("fork: %s", strerror(errno));
	if (w == 0) {
		if (setgroups(0, NULL) != 0 || setgid(65534) != 0 ||
		    setuid(65534) != 0) {
			fprintf(stderr, "FAIL: dropping to uid 65534: %s\n",
				strerror(errno));
			_exit(1);
		}
		return;
	}
	t_fail_after(8, "unprivileged run did not finish within 8 s");
	while (waitpid(w, &st, 0) < 0)
		if (errno != EINTR)
			T_FAIL("waitpid: %s", strerror(errno));
	if (WIFEXITED(st))
		exit(WEXITSTATUS(st));
	T_FAIL("unprivileged run killed by signal %d", WTERMSIG(st));
}

static void wait_byte(int fd)
{
	char c;

	while (read(fd, &c, 1) < 0 && errno == EINTR)
		;
}

int main(void)
{
	struct kevent ev[4];
	int gate_g[2], gate_x[2], report[2], kq, st;
	pid_t g;
	ssize_t r;

	if (!kernel_at_least(6, 15))
		T_SKIP("a non-child's exit status needs PIDFD_GET_INFO "
		       "(Linux 6.15)");
	run_unprivileged();
	t_fail_after(5, "proc-nonchild did not finish within 5 s");
	t_pipe(gate_g);
	t_pipe(gate_x);
	t_pipe(report);

	pid_t x = fork();
	if (x < 0)
		T_FAIL("fork: %s", strerror(errno));
	if (x == 0) {
		close(gate_g[1]);
		close(gate_x[1]);
		close(report[0]);
		g = fork();
		if (g < 0)
			_exit(120);
		if (g == 0) {
			wait_byte(gate_g[0]);
			_exit(9);
		}
		if (write(report[1], &g, sizeof g) != sizeof g)
			_exit(121);
		if (waitpid(g, &st, 0) != g || st != 0x900)
			_exit(122);
		wait_byte(gate_x[0]);
		_exit(0);
	}
	kid = x;
	atexit(kill_kid);
	close(report[1]);
	close(gate_g[0]);
	close(gate_x[0]);
	do
		r = read(report[0], &g, sizeof g);
	while (r < 0 && errno == EINTR);
	if (r != sizeof g)
		T_FAIL("no grandchild pid from the child (read %zd)", r);

	kq = t_kqueue();
	t_change(kq, g, EVFILT_PROC, EV_ADD, NOTE_EXIT, 0, &kq);
	T_NO_EVENTS(kq);
	t_write(gate_g[1], "x", 1);

	T_EQ(t_wait(kq, ev, 4, 2000), 1);
	T_KEVENT(&ev[0], g, EVFILT_PROC, EV_CLEAR | EV_EOF | EV_ONESHOT,
		 NOTE_EXIT, 0x900, &kq);
	T_NO_EVENTS(kq);

	t_write(gate_x[1], "x", 1);
	T_EQ(waitpid(x, &st, 0), x);
	kid = 0;
	if (st != 0)
		T_FAIL("child failed: wait status 0x%x", st);
	T_NO_EVENTS(kq);
	close(kq);
	return 0;
}
