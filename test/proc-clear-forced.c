/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * EV_CLEAR is forced on proc knotes (FreeBSD
 * filt_procattach sets it), so returned flags include it though EV_ADD
 * did not ask for it:
 *  1. NOTE_EXIT knote added with plain EV_ADD: the exit record's flags are
 *     EV_CLEAR|EV_EOF|EV_ONESHOT.
 *  2. NOTE_FORK knote added with plain EV_ADD on a child that forks: the
 *     record is {X, EVFILT_PROC, EV_CLEAR, NOTE_FORK, -, udata}, and it is
 *     edge-triggered: once collected it is not reported again while X
 *     lives.  X then exits; no NOTE_EXIT was asked for, so nothing more.
 * Part 2 needs the netlink proc connector: if its EV_ADD fails with ENOTSUP
 * the test skips (part 1 has then passed).
 * Privilege: if run as root, the whole test runs in a child that first
 * drops to uid/gid 65534 (the connector's availability depends on it).
 */
#include "t.h"

#include <grp.h>
#include <sys/wait.h>

static pid_t kids[8];
static int nkids;

static void kill_kids(void)
{
	for (int i = 0; i < nkids; i++)
		if (kids[i] > 0) {
			kill(kids[i], SIGKILL);
			waitpid(kids[i], NULL, 0);
		}
}

static void add_kid(pid_t pid)
{
	if (nkids == 0)
		atexit(kill_kids);
	kids[nkids++] = pid;
}

/* Reaps our child pid (already exited or about to) and checks its status. */
static void reap(pid_t pid, int want)
{
	int st;
	pid_t r;

	while ((r = waitpid(pid, &st, 0)) < 0 && errno == EINTR)
		;
	if (r != pid)
		T_FAIL("waitpid(%d): %s", (int)pid, strerror(errno));
	for (int i = 0; i < nkids; i++)
		if (kids[i] == pid)
			kids[i] = 0;
	if (st != want)
		T_FAIL("process %d: wait status 0x%x, expected 0x%x", (int)pid,
		       st, want);
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

/* EV_ADD of an EVFILT_PROC knote needing the proc connector; ENOTSUP (the
 * connector cannot be used here) skips the test, any other error fails. */
static void add_proc(int kq, pid_t pid, unsigned int fflags, void *udata)
{
	struct kevent ch;

	EV_SET(&ch, pid, EVFILT_PROC, EV_ADD, fflags, 0, udata);
	if (kevent(kq, &ch, 1, NULL, 0, NULL) == 0)
		return;
	if (errno == ENOTSUP)
		T_SKIP("EVFILT_PROC fflags 0x%x need the netlink proc connector, "
		       "unavailable here for uid %d: EV_ADD failed with ENOTSUP",
		       fflags, (int)geteuid());
	T_FAIL("EV_ADD {pid %d, EVFILT_PROC, fflags 0x%x}: %s", (int)pid,
	       fflags, strerror(errno));
}

static void wait_byte(int fd)
{
	char c;

	while (read(fd, &c, 1) < 0 && errno == EINTR)
		;
}

/* Fails if any further record arrives within ms milliseconds. */
static void no_more(int kq, long ms)
{
	struct kevent ev[8];
	int n = t_wait(kq, ev, 8, ms);

	if (n != 0) {
		for (int k = 0; k < n; k++)
			t_print_kevent("  unexpected", &ev[k]);
		T_FAIL("%d unexpected records", n);
	}
}

int main(void)
{
	struct kevent ev[4];
	int gate[2], go[2], kq;

	run_unprivileged();
	t_fail_after(5, "proc-clear-forced did not finish within 5 s");
	signal(SIGPIPE, SIG_IGN);
	kq = t_kqueue();

	/* 1. NOTE_EXIT */
	t_pipe(gate);
	pid_t k = fork();
	if (k < 0)
		T_FAIL("fork: %s", strerror(errno));
	if (k == 0) {
		close(gate[1]);
		wait_byte(gate[0]);
		_exit(0);
	}
	add_kid(k);
	close(gate[0]);
	t_change(kq, k, EVFILT_PROC, EV_ADD, NOTE_EXIT, 0, &gate);
	t_write(gate[1], "x", 1);
	T_EQ(t_wait(kq, ev, 4, 2000), 1);
	T_KEVENT(&ev[0], k, EVFILT_PROC, EV_CLEAR | EV_EOF | EV_ONESHOT,
		 NOTE_EXIT, 0, &gate);
	reap(k, 0);
	close(gate[1]);
	T_NO_EVENTS(kq);

	/* 2. NOTE_FORK */
	t_pipe(go);
	t_pipe(gate);
	pid_t x = fork();
	if (x < 0)
		T_FAIL("fork: %s", strerror(errno));
	if (x == 0) {
		close(go[1]);
		close(gate[1]);
		wait_byte(go[0]);
		pid_t g = fork();
		if (g < 0)
			_exit(120);
		if (g == 0)
			_exit(0);
		if (waitpid(g, NULL, 0) != g)
			_exit(121);
		wait_byte(gate[0]);
		_exit(0);
	}
	add_kid(x);
	close(go[0]);
	close(gate[0]);
	add_proc(kq, x, NOTE_FORK, &go);
	T_NO_EVENTS(kq);
	t_write(go[1], "x", 1);
	T_EQ(t_wait(kq, ev, 4, 2000), 1);
	T_KEVENT(&ev[0], x, EVFILT_PROC, EV_CLEAR, NOTE_FORK, ev[0].data, &go);
	T_EQ(t_wait(kq, ev, 4, 100), 0);
	T_NO_EVENTS(kq);

	t_write(gate[1], "x", 1);
	reap(x, 0);
	no_more(kq, 100);
	close(kq);
	return 0;
}
