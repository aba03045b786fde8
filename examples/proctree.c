/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * proctree.c - follow a process and all its descendants (kqueue paper,
 * section 5).
 *
 * EVFILT_PROC watches a process id.  In fflags we ask for
 *
 *	NOTE_FORK	the process called fork()
 *	NOTE_EXEC	it executed a new program
 *	NOTE_EXIT	it exited; data is the status, as wait() gives it
 *	NOTE_TRACK	follow its forks: give every new child a knote of its
 *			own, with the same fflags and udata
 *
 * and the same bits in a returned event say what happened.  A knote made by
 * NOTE_TRACK first reports NOTE_CHILD, with data = the parent's pid; since
 * the child's knote has NOTE_TRACK too, its own children are followed in
 * turn, and one EV_ADD covers the whole tree.  (NOTE_TRACKERR in a record
 * means a child could not be followed.)
 *
 * A process's notes may come in one record or several, so the program
 * collects the bits per pid.  In particular the NOTE_CHILD record is kept
 * apart from the child's later notes (FreeBSD always separates it from
 * NOTE_EXIT; libkq on Linux from all of them).
 *
 * The loop ends when every process it learned of has exited: one live
 * process to start with, one more per NOTE_CHILD, one less per NOTE_EXIT.
 *
 * usage:
 *	proctree COMMAND [ARG ...]	run COMMAND and print the records of
 *					its process tree until all exited
 *	proctree -p PID			the same for a running process
 *	proctree --self-test		process A (ours) forks B and C, C forks
 *					D, D executes /bin/sh -c 'exit 4';
 *					check the four processes' notes,
 *					parents and exit statuses.  Exit 0
 *					pass, 1 fail, 77 skip (NOTE_TRACK not
 *					available here: reason printed).
 *
 * Plain FreeBSD code: <sys/event.h>, EV_SET, POSIX calls only.
 */
#include <sys/types.h>
#include <sys/event.h>
#include <sys/time.h>
#include <sys/wait.h>

#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define NOTES	(NOTE_FORK | NOTE_TRACK | NOTE_EXEC | NOTE_EXIT)
#define MAXPROC	64		/* processes remembered for the summary */

/* What the records said about one process, all its records together. */
struct proc {
	pid_t		pid;
	pid_t		parent;		/* from NOTE_CHILD; 0: the root */
	unsigned int	notes;		/* every fflags bit reported */
	int		status;		/* from NOTE_EXIT */
};

static struct proc procs[MAXPROC];
static int nprocs;

static struct proc *
lookup(pid_t pid)
{
	int i;

	for (i = 0; i < nprocs; i++)
		if (procs[i].pid == pid)
			return &procs[i];
	if (nprocs == MAXPROC)
		return NULL;
	procs[nprocs].pid = pid;
	return &procs[nprocs++];
}

/* Watch pid and, through NOTE_TRACK, everything it forks from now on. */
static int
track(int kq, pid_t pid)
{
	struct kevent ch;

	EV_SET(&ch, pid, EVFILT_PROC, EV_ADD, NOTES, 0, NULL);
	return kevent(kq, &ch, 1, NULL, 0, NULL);
}

/* "pid 123: NOTE_CHILD of 122" ... "pid 123: NOTE_EXIT (status 4)" */
static void
print_record(const struct kevent *ev)
{
	int st = (int)ev->data;

	printf("pid %d:", (int)ev->ident);
	if (ev->fflags & NOTE_CHILD)
		printf(" NOTE_CHILD of %d", (int)ev->data);
	if (ev->fflags & NOTE_FORK)
		printf(" NOTE_FORK");
	if (ev->fflags & NOTE_EXEC)
		printf(" NOTE_EXEC");
	if (ev->fflags & NOTE_TRACKERR)
		printf(" NOTE_TRACKERR");
	if ((ev->fflags & NOTE_EXIT) && WIFSIGNALED(st))
		printf(" NOTE_EXIT (killed by signal %d)", WTERMSIG(st));
	else if (ev->fflags & NOTE_EXIT)
		printf(" NOTE_EXIT (status %d)", WEXITSTATUS(st));
	printf("\n");
	fflush(stdout);
}

/*
 * Print every record until the whole tree has exited.  Returns 0, or -1 on
 * error or when nothing happened for `timeout` (NULL: wait forever).
 */
static int
follow(int kq, const struct timespec *timeout)
{
	struct timespec zero = { 0, 0 };
	struct kevent ev[16];
	struct proc *p;
	int i, n, live = 1;

	for (;;) {
		/*
		 * When the count reaches 0, look once more without waiting:
		 * a child's NOTE_CHILD record can come after its parent's
		 * NOTE_EXIT, in the same kevent() call or the next.
		 */
		n = kevent(kq, NULL, 0, ev, 16, live > 0 ? timeout : &zero);
		if (n == -1 && errno == EINTR)
			continue;
		if (n == -1) {
			perror("kevent");
			return -1;
		}
		if (n == 0 && live == 0)
			return 0;
		if (n == 0) {
			fprintf(stderr, "proctree: no record for %d s, %d "
			    "processes still running\n",
			    (int)timeout->tv_sec, live);
			return -1;
		}
		for (i = 0; i < n; i++) {
			print_record(&ev[i]);
			if (ev[i].fflags & NOTE_CHILD)
				live++;
			if (ev[i].fflags & NOTE_EXIT)
				live--;
			if ((p = lookup((pid_t)ev[i].ident)) == NULL)
				continue;
			p->notes |= ev[i].fflags;
			if (ev[i].fflags & NOTE_CHILD)
				p->parent = (pid_t)ev[i].data;
			if (ev[i].fflags & NOTE_EXIT)
				p->status = (int)ev[i].data;
		}
	}
}

/* ---- self-test ---------------------------------------------------------- */

/* Process A: fork B (exits 2) and C (forks D, exits 3); reap; exit 1. */
static void
run_a(int go)
{
	pid_t b, c, d;
	char x;

	if (read(go, &x, 1) != 1)	/* until our parent watches us */
		_exit(10);
	if ((b = fork()) == 0)
		_exit(2);				/* B */
	if ((c = fork()) == 0) {			/* C */
		if ((d = fork()) == 0) {		/* D */
			execl("/bin/sh", "sh", "-c", "exit 4", (char *)NULL);
			_exit(11);
		}
		_exit(d == -1 || waitpid(d, NULL, 0) != d ? 12 : 3);
	}
	/* Reap B and C: their exit is then final for everyone. */
	if (b == -1 || c == -1 || waitpid(b, NULL, 0) != b ||
	    waitpid(c, NULL, 0) != c)
		_exit(13);
	_exit(1);
}

/* Check one process's summary. */
static int
expect(const char *name, const struct proc *p, unsigned int notes,
    pid_t parent, int code, int exact)
{
	int st = p ? p->status : 0;

	if (p == NULL) {
		fprintf(stderr, "FAIL: no records for %s\n", name);
		return 0;
	}
	/* NOTE_TRACK itself is never reported; everything else must match. */
	if (p->notes != notes) {
		fprintf(stderr, "FAIL: %s (pid %d): notes 0x%x, expected "
		    "0x%x\n", name, (int)p->pid, p->notes, notes);
		return 0;
	}
	if (p->parent != parent) {
		fprintf(stderr, "FAIL: %s: NOTE_CHILD data %d, expected %d\n",
		    name, (int)p->parent, (int)parent);
		return 0;
	}
	/*
	 * A's status is exact: it is our child.  For B, C and D Linux tells
	 * libkq the status of a process that is not ours only since 6.15;
	 * before, data is 0 (docs/differences.md, EVFILT_PROC).
	 */
	if (!WIFEXITED(st) || (WEXITSTATUS(st) != code &&
	    (exact || st != 0))) {
		fprintf(stderr, "FAIL: %s: exit status 0x%x, expected exit "
		    "code %d\n", name, st, code);
		return 0;
	}
	return 1;
}

static int
self_test(void)
{
	struct timespec timeout = { 10, 0 };
	struct proc *a, *b = NULL, *c = NULL, *d = NULL;
	int kq, go[2], i, r, status, ok = 1;
	pid_t pid;

	fflush(stdout);
	if (pipe(go) == -1 || (pid = fork()) == -1) {
		perror("pipe/fork");
		return 1;
	}
	if (pid == 0) {
		close(go[1]);
		run_a(go[0]);
	}
	close(go[0]);

	if ((kq = kqueue()) == -1) {
		perror("kqueue");
		return 1;
	}
	if (track(kq, pid) == -1) {
		r = errno;
		kill(pid, SIGKILL);
		waitpid(pid, NULL, 0);
		if (r == ENOTSUP) {
			/* Linux: NOTE_FORK/EXEC/TRACK need the process
			 * connector, which libkq could not open here. */
			printf("SKIP: EVFILT_PROC NOTE_TRACK is not available "
			    "here: %s\n", strerror(r));
			return 77;
		}
		fprintf(stderr, "FAIL: EV_ADD EVFILT_PROC: %s\n",
		    strerror(r));
		return 1;
	}
	if (write(go[1], "g", 1) != 1) {	/* A may start forking */
		perror("write");
		return 1;
	}
	close(go[1]);

	r = follow(kq, &timeout);
	if (waitpid(pid, &status, 0) != pid) {
		perror("waitpid");
		return 1;
	}
	close(kq);
	if (r == -1)
		return 1;

	/* Who is who: B and C are A's children, C is the one that forked. */
	a = lookup(pid);
	for (i = 0; i < nprocs; i++) {
		if (procs[i].parent == pid && (procs[i].notes & NOTE_FORK))
			c = &procs[i];
		else if (procs[i].parent == pid)
			b = &procs[i];
	}
	for (i = 0; c != NULL && i < nprocs; i++)
		if (procs[i].parent == c->pid)
			d = &procs[i];
	if (nprocs != 4) {
		fprintf(stderr, "FAIL: records about %d processes, "
		    "expected 4\n", nprocs);
		ok = 0;
	}
	ok &= expect("A", a, NOTE_FORK | NOTE_EXIT, 0, 1, 1);
	ok &= expect("B", b, NOTE_CHILD | NOTE_EXIT, pid, 2, 0);
	ok &= expect("C", c, NOTE_CHILD | NOTE_FORK | NOTE_EXIT, pid, 3, 0);
	if (c != NULL)
		ok &= expect("D", d, NOTE_CHILD | NOTE_EXEC | NOTE_EXIT,
		    c->pid, 4, 0);
	if (a == NULL || status != a->status) {
		fprintf(stderr, "FAIL: A's NOTE_EXIT data 0x%x, waitpid() "
		    "says 0x%x\n", a ? a->status : 0, status);
		ok = 0;
	}
	if (!ok)
		return 1;
	printf("ok: A forked B and C, C forked D, D executed sh: every "
	    "fork, exec and exit reported, with parents and statuses\n");
	return 0;
}

int
main(int argc, char **argv)
{
	int kq, go[2], status;
	pid_t pid;
	char x;

	if (argc == 2 && strcmp(argv[1], "--self-test") == 0) {
		alarm(60);	/* never hang a test run */
		return self_test();
	}
	if (argc < 2 || (strcmp(argv[1], "-p") == 0 && argc != 3)) {
		fprintf(stderr, "usage: proctree command [arg ...]\n"
		    "       proctree -p pid\n"
		    "       proctree --self-test\n");
		return 2;
	}
	if (strcmp(argv[1], "-p") == 0) {
		pid = (pid_t)atol(argv[2]);
		if ((kq = kqueue()) == -1 || track(kq, pid) == -1) {
			perror(argv[2]);
			return 1;
		}
		return follow(kq, NULL) == 0 ? 0 : 1;
	}

	/*
	 * Run the command in a child that waits until it is watched: the
	 * knote must exist before the first fork or exec we want to see.
	 * (Fork before creating the kqueue: a kqueue is not inherited.)
	 */
	if (pipe(go) == -1 || (pid = fork()) == -1) {
		perror("pipe/fork");
		return 1;
	}
	if (pid == 0) {
		close(go[1]);
		if (read(go[0], &x, 1) != 1)
			_exit(127);
		close(go[0]);
		execvp(argv[1], argv + 1);
		perror(argv[1]);
		_exit(127);
	}
	close(go[0]);
	if ((kq = kqueue()) == -1) {
		perror("kqueue");
		kill(pid, SIGKILL);
		return 1;
	}
	if (track(kq, pid) == -1) {
		perror("kevent: EVFILT_PROC");
		kill(pid, SIGKILL);
		return 1;
	}
	if (write(go[1], "g", 1) != 1)
		return 1;
	close(go[1]);
	if (follow(kq, NULL) == -1)
		return 1;
	waitpid(pid, &status, 0);	/* NOTE_EXIT did not reap it */
	return WIFEXITED(status) ? WEXITSTATUS(status) : 1;
}
