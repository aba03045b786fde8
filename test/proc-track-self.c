/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * NOTE_TRACK alone (udata U) on the program's own pid, then fork a
 * child K: one record {K, EVFILT_PROC, ..., NOTE_CHILD, data = our pid, U}
 * with no NOTE_TRACKERR (FreeBSD contrib/netbsd-tests t_proc3.c).  Nothing
 * else: our own knote did not ask for NOTE_FORK, and K's knote (fflags
 * NOTE_TRACK, no NOTE_EXIT) is dropped silently when K exits (FreeBSD
 * EV_DROP), so EV_DELETE of it then fails with ENOENT while our own knote
 * still exists.  K exits only after its NOTE_CHILD record was collected.
 * NOTE_TRACK needs the netlink proc connector: if EV_ADD fails with ENOTSUP
 * the test skips.
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

int main(void)
{
	int gate[2], kq;

	run_unprivileged();
	t_fail_after(5, "proc-track-self did not finish within 5 s");
	signal(SIGPIPE, SIG_IGN);
	t_pipe(gate);
	pid_t me = getpid();

	kq = t_kqueue();
	want_udata = &kq;
	add_proc(kq, me, NOTE_TRACK, &kq);
	T_NO_EVENTS(kq);

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

	await(kq, k, NOTE_CHILD, "NOTE_CHILD");
	t_write(gate[1], "x", 1);
	reap(k, 0);
	no_more(kq, 200);

	struct seen *s = find_seen(k);
	if (nseen != 1 || s->all != NOTE_CHILD) {
		dump_seen();
		T_FAIL("want exactly one NOTE_CHILD record, for the child");
	}
	T_EQ(s->child_data, me);
	t_change_fails(kq, k, EVFILT_PROC, EV_DELETE, NULL, ENOENT);
	t_change(kq, me, EVFILT_PROC, EV_DELETE, 0, 0, NULL);
	close(kq);
	return 0;
}
