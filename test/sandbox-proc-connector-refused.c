/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * Where a sandbox refuses the netlink socket of the process connector
 * (socket(AF_NETLINK) answered EPERM or EACCES, or ENOSYS where a profile
 * says so), what needs it fails cleanly and the rest keeps working.  In a
 * child under a seccomp filter the test installs (one per answer):
 *  - EV_ADD of EVFILT_PROC NOTE_EXIT|NOTE_FORK on a child of ours fails
 *    with the record {pid, EVFILT_PROC, EV_ERROR, 0, ENOTSUP, udata} (a
 *    create clears fflags), and no knote is left;
 *  - NOTE_EXIT alone on the same child works: {pid, EVFILT_PROC,
 *    EV_CLEAR|EV_EOF|EV_ONESHOT, NOTE_EXIT, 0x500, udata};
 *  - with pidfd_open() refused as well, NOTE_EXIT on a child of ours still
 *    works (0x600), and on a process that is not our child (the test's
 *    parent) EV_ADD fails with ENOTSUP: nothing else can report its exit.
 * Skipped where seccomp filters cannot be installed.
 */
#include "t_seccomp.h"
#include "t_proc.h"

#ifndef SYS_pidfd_open
#define SYS_pidfd_open 434
#endif

static void exit_reported(int kq, int code)
{
	int gate[2], ud;
	pid_t pid = t_spawn_gated(gate, code);
	t_change(kq, pid, EVFILT_PROC, EV_ADD, NOTE_EXIT, 0, &ud);
	T_NO_EVENTS(kq);
	t_write(gate[1], "x", 1);
	struct kevent ev[2];
	T_EQ(t_wait(kq, ev, 2, 3000), 1);
	T_EXIT_RECORD(&ev[0], pid, code << 8, &ud);
	T_EQ(t_kid_reap(pid, WNOHANG), code << 8);
	close(gate[0]);
	close(gate[1]);
}

static void add_fails(int kq, pid_t pid, unsigned fflags, int err)
{
	struct kevent ch, ev[2];
	EV_SET(&ch, pid, EVFILT_PROC, EV_ADD, fflags, 0, &ch);
	T_EQ(kevent(kq, &ch, 1, ev, 2, &(struct timespec){ 0, 0 }), 1);
	T_KEVENT(&ev[0], pid, EVFILT_PROC, EV_ERROR, 0, err, &ch);
	EV_SET(&ch, pid, EVFILT_PROC, EV_DELETE, 0, 0, NULL);
	T_ERRNO(kevent(kq, &ch, 1, NULL, 0, NULL), ENOENT);
}

static int child(int err)
{
	if (t_seccomp_refuse_if(SYS_socket, true, AF_NETLINK, err) != 0)
		return 77;
	if (socket(AF_NETLINK, SOCK_DGRAM, 0) != -1 || errno != err)
		return 77;
	t_fail_after(10, "sandbox-proc-connector-refused did not finish within 10 s");
	int kq = t_kqueue();

	int gate[2];
	pid_t pid = t_spawn_gated(gate, 0);
	add_fails(kq, pid, NOTE_EXIT | NOTE_FORK, ENOTSUP);
	T_NO_EVENTS(kq);
	t_write(gate[1], "x", 1);
	T_EQ(t_kid_reap(pid, 0), 0);
	close(gate[0]);
	close(gate[1]);

	exit_reported(kq, 5);

	if (t_seccomp_refuse(SYS_pidfd_open, err) != 0)
		return 77;
	exit_reported(kq, 6);
	add_fails(kq, getppid(), NOTE_EXIT, ENOTSUP);
	T_NO_EVENTS(kq);
	close(kq);
	return 0;
}

int main(void)
{
	t_seccomp_run(child, "socket(AF_NETLINK)");
	return 0;
}
