/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * The kqueue paper's example of tracking a process tree (section 5):
 * EVFILT_PROC with NOTE_FORK|NOTE_TRACK|NOTE_EXEC|NOTE_EXIT (udata U) on
 * process A (our child).  A forks B and C; C forks D; D execs a program
 * (this test binary with "--exit 5") which exits.  Expected, per process,
 * over all its records (split or merged as FreeBSD may):
 *   A: NOTE_FORK, then NOTE_EXIT (data 0x100); no NOTE_CHILD, no NOTE_EXEC
 *   B: NOTE_CHILD (data = A), NOTE_EXIT (data 0x200)
 *   C: NOTE_CHILD (data = A), NOTE_FORK, NOTE_EXIT (data 0x400)
 *   D: NOTE_CHILD (data = C), NOTE_EXEC, NOTE_EXIT (data 0x500)
 * every record with udata U and EV_CLEAR, no NOTE_TRACKERR, and a
 * NOTE_CHILD record never merged with the process's own NOTE_EXIT (FreeBSD
 * PR 180385).  Records about no other process; nothing after the exits.
 * Sequenced with pipes so the outcome does not depend on timing: each of
 * B, C, D waits until its NOTE_CHILD record has been collected before it
 * goes on; A and C reap their children.  B, C and D are not our children:
 * see nonchild_status() for when and with what data their exit is reported.
 * NOTE_FORK/NOTE_EXEC/NOTE_TRACK need the netlink proc connector: if EV_ADD
 * fails with ENOTSUP the test skips.
 * Privilege: if run as root, the whole test runs in a child that first
 * drops to uid/gid 65534 (the connector's availability depends on it).
 */
#include "t.h"

#include <grp.h>
#include <sys/utsname.h>
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

static pid_t read_pid(int fd)
{
	pid_t p;
	ssize_t r;

	do
		r = read(fd, &p, sizeof p);
	while (r < 0 && errno == EINTR);
	if (r != sizeof p)
		T_FAIL("no pid on the report pipe (read %zd: %s)", r,
		       r < 0 ? strerror(errno) : "EOF");
	return p;
}

/* What the records of one process said, over all its records. */
struct seen {
	pid_t pid;
	unsigned int all;   /* every fflags bit reported */
	int child;          /* a NOTE_CHILD record came */
	int64_t child_data;
	int exited;         /* a NOTE_EXIT record came */
	int64_t exit_data;
};

static struct seen seen[8];
static int nseen;
static void *want_udata;

static struct seen *find_seen(pid_t pid)
{
	for (int i = 0; i < nseen; i++)
		if (seen[i].pid == pid)
			return &seen[i];
	return NULL;
}

static void dump_seen(void)
{
	for (int i = 0; i < nseen; i++)
		fprintf(stderr, "  pid %d: fflags 0x%x, child %d (data %" PRId64
			"), exit %d (data 0x%" PRIx64 ")\n", (int)seen[i].pid,
			seen[i].all, seen[i].child, seen[i].child_data,
			seen[i].exited, seen[i].exit_data);
}

/* Checks one record and files it.  Records of one process may be split or
 * merged, except that a NOTE_CHILD record never carries
 * NOTE_EXIT (FreeBSD PR 180385).  Flags: EV_CLEAR always (forced);
 * EV_EOF|EV_ONESHOT on exit records; EV_CLEAR|EV_ONESHOT exactly on a
 * NOTE_CHILD record (FreeBSD's child note is a knote of its own, registered
 * EV_ONESHOT); others exactly EV_CLEAR. */
static void take(const struct kevent *e)
{
	static const unsigned int known = NOTE_EXIT | NOTE_FORK | NOTE_EXEC |
		NOTE_CHILD;
	struct seen *s = NULL;
	const char *why = NULL;

	if (e->filter != EVFILT_PROC || (e->flags & EV_ERROR))
		why = "not an EVFILT_PROC event";
	else if (e->udata != want_udata)
		why = "udata not copied from the watched knote";
	else if (e->fflags & NOTE_TRACKERR)
		why = "NOTE_TRACKERR: a child could not be tracked";
	else if (e->fflags == 0 || (e->fflags & ~known))
		why = "unexpected fflags";
	else if ((e->fflags & (NOTE_CHILD | NOTE_EXIT)) ==
		 (NOTE_CHILD | NOTE_EXIT))
		why = "NOTE_CHILD merged with NOTE_EXIT (FreeBSD PR 180385)";
	else if ((e->fflags & NOTE_EXIT) &&
		 e->flags != (EV_CLEAR | EV_EOF | EV_ONESHOT))
		why = "exit record flags are not EV_CLEAR|EV_EOF|EV_ONESHOT";
	else if ((e->fflags & NOTE_CHILD) && e->flags != (EV_CLEAR | EV_ONESHOT))
		why = "NOTE_CHILD record flags are not EV_CLEAR|EV_ONESHOT";
	else if (!(e->fflags & (NOTE_EXIT | NOTE_CHILD)) &&
		 e->flags != EV_CLEAR)
		why = "flags are not EV_CLEAR";
	if (why == NULL) {
		s = find_seen((pid_t)e->ident);
		if (s == NULL) {
			if (nseen == 8)
				why = "records for too many processes";
			else {
				s = &seen[nseen++];
				s->pid = (pid_t)e->ident;
			}
		}
	}
	if (why == NULL && s->exited)
		why = "record after the process's NOTE_EXIT record";
	if (why == NULL && (e->fflags & NOTE_CHILD) && s->child)
		why = "second NOTE_CHILD record";
	if (why != NULL) {
		t_print_kevent("  record", e);
		dump_seen();
		T_FAIL("%s", why);
	}
	if (e->fflags & NOTE_CHILD) {
		s->child = 1;
		s->child_data = e->data;
	}
	if (e->fflags & NOTE_EXIT) {
		s->exited = 1;
		s->exit_data = e->data;
	}
	s->all |= e->fflags;
}

/* Collects records until process pid has reported all the bits in what. */
static void await(int kq, pid_t pid, unsigned int what, const char *desc)
{
	struct kevent ev[16];
	int64_t end = t_now_ns() + 2500000000LL;

	for (;;) {
		struct seen *s = find_seen(pid);

		if (s != NULL && (s->all & what) == what)
			return;
		if (t_now_ns() > end) {
			dump_seen();
			T_FAIL("no %s record for pid %d within 2.5 s", desc,
			       (int)pid);
		}
		int n = t_wait(kq, ev, 16, 100);
		for (int k = 0; k < n; k++)
			take(&ev[k]);
	}
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

/* The data of a NOTE_EXIT record for a process that is not our child.
 * Deviation from FreeBSD: Linux gives a non-child's exit status only via
 * PIDFD_GET_INFO (Linux >= 6.15) once its real parent has reaped it, so the
 * record comes at reap time; before 6.15 the status cannot be had and data
 * is 0. */
static int64_t nonchild_status(int st)
{
	struct utsname u;
	int a = 0, b = 0;

	if (uname(&u) != 0 || sscanf(u.release, "%d.%d", &a, &b) != 2)
		T_FAIL("uname: cannot parse the kernel release");
	return (a > 6 || (a == 6 && b >= 15)) ? st : 0;
}

/* Process A: forks B and C (reporting their pids), reaps both, exits 1. */
static void run_a(int go, int gb, int gc, int gd, int report, char *self)
{
	int st;

	wait_byte(go);
	pid_t b = fork();
	if (b < 0)
		_exit(120);
	if (b == 0) {
		wait_byte(gb);
		_exit(2);
	}
	if (write(report, &b, sizeof b) != sizeof b)
		_exit(121);
	pid_t c = fork();
	if (c < 0)
		_exit(122);
	if (c == 0) {
		wait_byte(gc);
		pid_t d = fork();
		if (d < 0)
			_exit(123);
		if (d == 0) {
			wait_byte(gd);
			execl("/proc/self/exe", self, "--exit", "5",
			      (char *)NULL);
			_exit(124);
		}
		if (write(report, &d, sizeof d) != sizeof d)
			_exit(125);
		if (waitpid(d, &st, 0) != d || st != 0x500)
			_exit(126);
		_exit(4);
	}
	if (write(report, &c, sizeof c) != sizeof c)
		_exit(127);
	if (waitpid(b, &st, 0) != b || st != 0x200)
		_exit(128);
	if (waitpid(c, &st, 0) != c || st != 0x400)
		_exit(129);
	_exit(1);
}

static void expect(pid_t pid, const char *name, unsigned int all,
		   pid_t parent, int64_t exit_data)
{
	struct seen *s = find_seen(pid);

	if (s == NULL || s->all != all) {
		dump_seen();
		T_FAIL("%s (pid %d): reported fflags 0x%x, expected 0x%x", name,
		       (int)pid, s ? s->all : 0, all);
	}
	if (parent != 0 && s->child_data != parent) {
		dump_seen();
		T_FAIL("%s: NOTE_CHILD data %" PRId64 ", expected parent %d",
		       name, s->child_data, (int)parent);
	}
	if (s->exit_data != exit_data) {
		dump_seen();
		T_FAIL("%s: NOTE_EXIT data 0x%" PRIx64 ", expected 0x%" PRIx64,
		       name, s->exit_data, exit_data);
	}
}

int main(int argc, char **argv)
{
	int go[2], gb[2], gc[2], gd[2], report[2], kq;

	if (argc == 3 && strcmp(argv[1], "--exit") == 0)
		_exit(atoi(argv[2]));   /* the program D execs */
	run_unprivileged();
	t_fail_after(5, "proc-track-tree did not finish within 5 s");
	signal(SIGPIPE, SIG_IGN);
	t_pipe(go);
	t_pipe(gb);
	t_pipe(gc);
	t_pipe(gd);
	t_pipe(report);

	pid_t a = fork();
	if (a < 0)
		T_FAIL("fork: %s", strerror(errno));
	if (a == 0) {
		close(go[1]);
		close(gb[1]);
		close(gc[1]);
		close(gd[1]);
		close(report[0]);
		run_a(go[0], gb[0], gc[0], gd[0], report[1], argv[0]);
	}
	add_kid(a);
	close(go[0]);
	close(gb[0]);
	close(gc[0]);
	close(gd[0]);
	close(report[1]);

	kq = t_kqueue();
	want_udata = &kq;
	add_proc(kq, a, NOTE_FORK | NOTE_TRACK | NOTE_EXEC | NOTE_EXIT, &kq);
	T_NO_EVENTS(kq);
	t_write(go[1], "x", 1);

	pid_t b = read_pid(report[0]);
	pid_t c = read_pid(report[0]);
	await(kq, b, NOTE_CHILD, "B's NOTE_CHILD");
	await(kq, c, NOTE_CHILD, "C's NOTE_CHILD");
	await(kq, a, NOTE_FORK, "A's NOTE_FORK");
	t_write(gb[1], "x", 1);
	t_write(gc[1], "x", 1);
	pid_t d = read_pid(report[0]);
	await(kq, d, NOTE_CHILD, "D's NOTE_CHILD");
	await(kq, c, NOTE_FORK, "C's NOTE_FORK");
	t_write(gd[1], "x", 1);

	await(kq, d, NOTE_EXIT | NOTE_EXEC, "D's NOTE_EXEC and NOTE_EXIT");
	await(kq, b, NOTE_EXIT, "B's NOTE_EXIT");
	await(kq, c, NOTE_EXIT, "C's NOTE_EXIT");
	await(kq, a, NOTE_EXIT, "A's NOTE_EXIT");
	no_more(kq, 100);

	expect(a, "A", NOTE_FORK | NOTE_EXIT, 0, 0x100);
	expect(b, "B", NOTE_CHILD | NOTE_EXIT, a, nonchild_status(0x200));
	expect(c, "C", NOTE_CHILD | NOTE_FORK | NOTE_EXIT, a,
	       nonchild_status(0x400));
	expect(d, "D", NOTE_CHILD | NOTE_EXEC | NOTE_EXIT, c,
	       nonchild_status(0x500));
	if (nseen != 4) {
		dump_seen();
		T_FAIL("records about %d processes, expected 4", nseen);
	}
	reap(a, 0x100);
	close(kq);
	return 0;
}
