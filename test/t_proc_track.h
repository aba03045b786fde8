/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * Shared fixture of the EVFILT_PROC tests that watch forks, execs and
 * tracked children (test/proc-track*.c, proc-fork-exec.c, ...):
 *   pt_begin()              the start: as root, the rest of the test in a
 *                           uid 65534 child (pt_run_unprivileged(): the
 *                           proc connector's availability depends on the
 *                           uid), and a deadline;
 *   pt_fork()/pt_reap()     our children, killed and reaped at exit unless
 *                           the test reaped them (checking their status);
 *   pt_fork_piped()         a child with the pipes that sequence it
 *                           (struct pt_pipes), pt_*_or_exit() for what it
 *                           does, which has no test to fail;
 *   pt_watch()/pt_add_proc() EV_ADD that skips where the connector is
 *                           unavailable;
 *   pt_take()/pt_await()    every record checked as it comes and filed per
 *                           process (struct pt_seen), since FreeBSD may split
 *                           or merge the records of one process;
 *   pt_expect()             what one process reported, over all its records.
 */
#ifndef KQ_TEST_T_PROC_TRACK_H
#define KQ_TEST_T_PROC_TRACK_H

#include "t.h"

#include <grp.h>
#include <sys/utsname.h>
#include <sys/wait.h>

#define PT_MAX 8

struct pt_kids {
	pid_t pid[PT_MAX];
	int n;
};

static inline struct pt_kids *pt_kids_state(void)
{
	static struct pt_kids kids;
	return &kids;
}

static inline void pt_kill_kids(void)
{
	struct pt_kids *k = pt_kids_state();

	for (int i = 0; i < k->n; i++)
		if (k->pid[i] > 0) {
			kill(k->pid[i], SIGKILL);
			waitpid(k->pid[i], NULL, 0);
		}
}

/* pid (our child) is killed and reaped at exit unless pt_reap() took it. */
static inline void pt_add_kid(pid_t pid)
{
	struct pt_kids *k = pt_kids_state();

	if (k->n == PT_MAX)
		T_FAIL("pt_add_kid: more than %d children", PT_MAX);
	if (k->n == 0)
		atexit(pt_kill_kids);
	k->pid[k->n++] = pid;
}

/* Forks (failing the test if it cannot); the parent's child is then
 * killed and reaped at exit unless pt_reap() took it. */
static inline pid_t pt_fork(void)
{
	pid_t pid = fork();

	if (pid < 0)
		T_FAIL("fork: %s", strerror(errno));
	if (pid > 0)
		pt_add_kid(pid);
	return pid;
}

/* Reaps our child pid (already exited or about to) and checks its status. */
static inline void pt_reap(pid_t pid, int want)
{
	struct pt_kids *k = pt_kids_state();
	int st;
	pid_t r;

	while ((r = waitpid(pid, &st, 0)) < 0 && errno == EINTR)
		;
	if (r != pid)
		T_FAIL("waitpid(%d): %s", (int)pid, strerror(errno));
	for (int i = 0; i < k->n; i++)
		if (k->pid[i] == pid)
			k->pid[i] = 0;
	if (st != want)
		T_FAIL("process %d: wait status 0x%x, expected 0x%x", (int)pid,
		       st, want);
}

/* As root: run the rest of main() in a child with uid/gid 65534 and exit
 * with its status; as any other user: return at once. */
static inline void pt_run_unprivileged(void)
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

/* The start of a test: as root the rest runs as uid 65534
 * (pt_run_unprivileged()); the test fails unless it is over within 5 s;
 * a write to a pipe whose reader has gone fails instead of killing it. */
static inline void pt_begin(const char *name)
{
	char why[80];

	pt_run_unprivileged();
	snprintf(why, sizeof why, "%s did not finish within 5 s", name);
	t_fail_after(5, why);
	signal(SIGPIPE, SIG_IGN);
}

/* EV_ADD of an EVFILT_PROC knote needing the proc connector; ENOTSUP (the
 * connector cannot be used here) skips the test, any other error fails. */
static inline void pt_add_proc(int kq, pid_t pid, unsigned int fflags,
			       void *udata)
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

/* Blocks until fd has a byte or EOF (a gate the test opens). */
static inline void pt_wait_byte(int fd)
{
	char c;

	while (read(fd, &c, 1) < 0 && errno == EINTR)
		;
}

/* A child that blocks until the test writes to gate[1] (or closes it),
 * then _exit(code); the parent keeps only gate[1]. */
static inline pid_t pt_gated_kid(int gate[2], int code)
{
	pid_t pid = pt_fork();

	if (pid == 0) {
		close(gate[1]);
		pt_wait_byte(gate[0]);
		_exit(code);
	}
	close(gate[0]);
	return pid;
}

/* The pipes between the test and a child X it forks: X blocks on go and
 * then on gate until the test writes a byte to them, and reports on report
 * the pids of the processes it forks. */
struct pt_pipes {
	int go[2], gate[2], report[2];
};

/* Makes the pipes and forks X: X keeps the ends it reads go and gate
 * from and writes report to, the test the other ends. */
static inline pid_t pt_fork_piped(struct pt_pipes *p)
{
	t_pipe(p->go);
	t_pipe(p->gate);
	t_pipe(p->report);
	pid_t pid = pt_fork();
	int mine = pid == 0;

	close(p->go[mine]);
	close(p->gate[mine]);
	close(p->report[!mine]);
	return pid;
}

/* In a forked process, which has no test to fail: fork, or _exit(code). */
static inline pid_t pt_fork_or_exit(int code)
{
	pid_t pid = fork();

	if (pid < 0)
		_exit(code);
	return pid;
}

/* In a forked process: report pid on fd, or _exit(code). */
static inline void pt_report_pid(int fd, pid_t pid, int code)
{
	if (write(fd, &pid, sizeof pid) != sizeof pid)
		_exit(code);
}

/* In a forked process: reap its child pid, or _exit(code) unless it ended
 * with wait status want. */
static inline void pt_reap_or_exit(pid_t pid, int want, int code)
{
	int st;

	if (waitpid(pid, &st, 0) != pid || st != want)
		_exit(code);
}

/* In a forked process: fork a child that exits at once and reap it, or
 * _exit(code) if either fails (code + 1 if the reaping does). */
static inline void pt_fork_reaped_or_exit(int code)
{
	pid_t pid = pt_fork_or_exit(code);

	if (pid == 0)
		_exit(0);
	pt_reap_or_exit(pid, 0, code + 1);
}

/* Reads a pid that a child of ours reported on the pipe fd. */
static inline pid_t pt_read_pid(int fd)
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
struct pt_seen {
	pid_t pid;
	unsigned int all;   /* every fflags bit reported */
	int child;          /* a NOTE_CHILD record came */
	int64_t child_data;
	int exited;         /* a NOTE_EXIT record came */
	int64_t exit_data;
};

struct pt_track {
	struct pt_seen seen[PT_MAX];
	int nseen;
	void *udata;        /* what every record must carry */
};

static inline struct pt_track *pt_state(void)
{
	static struct pt_track track;
	return &track;
}

/* Every record taken from now on must carry udata. */
static inline void pt_want_udata(void *udata)
{
	pt_state()->udata = udata;
}

/* How many processes records have come about. */
static inline int pt_nseen(void)
{
	return pt_state()->nseen;
}

static inline struct pt_seen *pt_find_seen(pid_t pid)
{
	struct pt_track *t = pt_state();

	for (int i = 0; i < t->nseen; i++)
		if (t->seen[i].pid == pid)
			return &t->seen[i];
	return NULL;
}

static inline void pt_dump_seen(void)
{
	struct pt_track *t = pt_state();

	for (int i = 0; i < t->nseen; i++)
		fprintf(stderr, "  pid %d: fflags 0x%x, child %d (data %" PRId64
			"), exit %d (data 0x%" PRIx64 ")\n", (int)t->seen[i].pid,
			t->seen[i].all, t->seen[i].child, t->seen[i].child_data,
			t->seen[i].exited, t->seen[i].exit_data);
}

/* Checks one record and files it.  Records of one process may be split or
 * merged, except that a NOTE_CHILD record never carries
 * NOTE_EXIT (FreeBSD PR 180385).  Flags: EV_CLEAR always (forced);
 * EV_EOF|EV_ONESHOT on exit records; EV_CLEAR|EV_ONESHOT exactly on a
 * NOTE_CHILD record (FreeBSD's child note is a knote of its own, registered
 * EV_ONESHOT); others exactly EV_CLEAR. */
static inline void pt_take(const struct kevent *e)
{
	static const unsigned int known = NOTE_EXIT | NOTE_FORK | NOTE_EXEC |
		NOTE_CHILD;
	struct pt_track *t = pt_state();
	struct pt_seen *s = NULL;
	const char *why = NULL;

	if (e->filter != EVFILT_PROC || (e->flags & EV_ERROR))
		why = "not an EVFILT_PROC event";
	else if (e->udata != t->udata)
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
		s = pt_find_seen((pid_t)e->ident);
		if (s == NULL) {
			if (t->nseen == PT_MAX)
				why = "records for too many processes";
			else {
				s = &t->seen[t->nseen++];
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
		pt_dump_seen();
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
static inline void pt_await(int kq, pid_t pid, unsigned int what,
			    const char *desc)
{
	struct kevent ev[16];
	int64_t end = t_now_ns() + 2500000000LL;

	for (;;) {
		struct pt_seen *s = pt_find_seen(pid);

		if (s != NULL && (s->all & what) == what)
			return;
		if (t_now_ns() > end) {
			pt_dump_seen();
			T_FAIL("no %s record for pid %d within 2.5 s", desc,
			       (int)pid);
		}
		int n = t_wait(kq, ev, 16, 100);
		for (int k = 0; k < n; k++)
			pt_take(&ev[k]);
	}
}

/* Fails if any further record arrives within ms milliseconds. */
static inline void pt_no_more(int kq, long ms)
{
	struct kevent ev[8];
	int n = t_wait(kq, ev, 8, ms);

	if (n != 0) {
		for (int k = 0; k < n; k++)
			t_print_kevent("  unexpected", &ev[k]);
		T_FAIL("%d unexpected records", n);
	}
}

/* Fails unless pid reported exactly the fflags all, a NOTE_CHILD record
 * with data parent (unless parent is 0) and exit data exit_data. */
static inline void pt_expect(pid_t pid, const char *name, unsigned int all,
			     pid_t parent, int64_t exit_data)
{
	struct pt_seen *s = pt_find_seen(pid);

	if (s == NULL || s->all != all) {
		pt_dump_seen();
		T_FAIL("%s (pid %d): reported fflags 0x%x, expected 0x%x", name,
		       (int)pid, s ? s->all : 0, all);
	}
	if (parent != 0 && s->child_data != parent) {
		pt_dump_seen();
		T_FAIL("%s: NOTE_CHILD data %" PRId64 ", expected parent %d",
		       name, s->child_data, (int)parent);
	}
	if (s->exit_data != exit_data) {
		pt_dump_seen();
		T_FAIL("%s: NOTE_EXIT data 0x%" PRIx64 ", expected 0x%" PRIx64,
		       name, s->exit_data, exit_data);
	}
}

/* A kqueue *kq watching pid (EV_ADD, fflags, udata kq) whose every record
 * must carry kq as udata; no record yet. */
static inline void pt_watch(int *kq, pid_t pid, unsigned int fflags)
{
	*kq = t_kqueue();
	pt_want_udata(kq);
	pt_add_proc(*kq, pid, fflags, kq);
	T_NO_EVENTS(*kq);
}

/* The kernel release's major.minor; 0 if it cannot be parsed. */
static inline int pt_kernel_release(int *major, int *minor)
{
	struct utsname u;

	*major = *minor = 0;
	return uname(&u) == 0 &&
	       sscanf(u.release, "%d.%d", major, minor) == 2;
}

static inline int pt_kernel_at_least(int major, int minor)
{
	int a, b;

	return pt_kernel_release(&a, &b) &&
	       (a > major || (a == major && b >= minor));
}

/* The data of a NOTE_EXIT record for a process that is not our child.
 * Deviation from FreeBSD: Linux gives a non-child's exit status only via
 * PIDFD_GET_INFO (Linux >= 6.15) once its real parent has reaped it, so the
 * record comes at reap time; before 6.15 the status cannot be had and data
 * is 0. */
static inline int64_t pt_nonchild_status(int st)
{
	int a, b;

	if (!pt_kernel_release(&a, &b))
		T_FAIL("uname: cannot parse the kernel release");
	return (a > 6 || (a == 6 && b >= 15)) ? st : 0;
}

#endif /* KQ_TEST_T_PROC_TRACK_H */
