/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * pwait.c - wait for any processes to exit, like FreeBSD's pwait(1).
 *
 * wait() only works for a process's own children.  EVFILT_PROC with
 * NOTE_EXIT works for any process we may see: the event comes when the
 * process exits, and its data is the exit status in the form wait() returns
 * it, so WIFEXITED()/WEXITSTATUS()/WTERMSIG() decode it.  The knote is then
 * deleted by itself (the record carries EV_EOF | EV_ONESHOT), and a child of
 * ours is not reaped: waitpid() still works afterwards.
 *
 * All the pids go into one kqueue, with one more knote for the timeout: a
 * one-shot EVFILT_TIMER.  A single kevent() call then waits for "the next
 * thing that happens", whichever it is.  (FreeBSD's pwait uses
 * setitimer() and an EVFILT_SIGNAL knote for SIGALRM instead; a timer
 * knote needs no signal at all.)
 *
 * On Linux, the exit of a process that is not our child is reported when
 * its parent reaps it, and its status only from Linux 6.15 on (0 before);
 * see docs/differences.md.
 *
 * usage:
 *	pwait [-t timeout] [-ov] pid ...
 *		-t	give up after `timeout` (seconds, or a number with an
 *			s, m or h suffix; fractions allowed) and exit 124
 *		-o	exit as soon as one of the processes has exited
 *		-v	print how each process ended:
 *			  "<pid>: exited with status N."
 *			  "<pid>: killed by signal N."
 *			and "timeout" if the time ran out
 *		Exit 0 when all have exited (even if some pids were bad:
 *		those are reported on stderr and skipped, as FreeBSD does),
 *		124 on timeout, 64 on a usage error, 65 for a bad
 *		timeout value (as FreeBSD's pwait).  Duplicates count once.
 *	pwait --self-test
 *		forks children with known endings (exit 0, exit 3, SIGTERM,
 *		one already a zombie), runs pwait -v on them, one of them
 *		named twice, plus a pid that does not exist, and checks every
 *		line and that each appears once; then checks that -t
 *		gives 124 and "timeout" for a child that does not exit, and
 *		that -o returns after the first exit, and the exit status of
 *		usage errors.  Exit 0 pass, 1 fail.
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

#define EXIT_TIMEOUT	124	/* like FreeBSD's pwait and timeout(1) */
#define EXIT_USAGE	64	/* EX_USAGE from <sysexits.h> */
#define EXIT_DATAERR	65	/* EX_DATAERR: a malformed timeout */
#define TIMER_IDENT	0	/* the timeout's knote (a timer, not a pid) */

static int
usage(void)
{
	fprintf(stderr, "usage: pwait [-t timeout] [-ov] pid ...\n"
	    "       pwait --self-test\n");
	return EXIT_USAGE;
}

/* "1.5" -> 1500000, "2m" -> 120000000 microseconds; -1 if malformed. */
static long long
parse_timeout(const char *s)
{
	double t;
	char *end;

	errno = 0;
	t = strtod(s, &end);
	if (end == s || errno != 0 || t < 0)
		return -1;
	switch (*end) {
	case '\0':
	case 's':
		break;
	case 'm':
		t *= 60;
		break;
	case 'h':
		t *= 3600;
		break;
	default:
		return -1;
	}
	if (*end != '\0' && end[1] != '\0')
		return -1;
	if (t > 100000000.0)	/* about three years, as FreeBSD's limit */
		return -1;
	return (long long)(t * 1000000.0);
}

/*
 * The whole program: pwait(1) with its arguments, the -v lines written to
 * `out`.  Returns the exit status.
 */
static int
pwait(int argc, char **argv, FILE *out)
{
	struct kevent *ev;
	long long usec = -1;
	long pid;
	char *end;
	int ch, kq, i, n, nleft, oflag = 0, verbose = 0, status = 0;

	optind = 1;		/* the self-test calls us more than once */
	while ((ch = getopt(argc, argv, "ot:v")) != -1) {
		switch (ch) {
		case 'o':
			oflag = 1;
			break;
		case 't':
			if ((usec = parse_timeout(optarg)) < 0) {
				fprintf(stderr, "pwait: %s: bad timeout\n",
				    optarg);
				return EXIT_DATAERR;
			}
			break;
		case 'v':
			verbose = 1;
			break;
		default:
			return usage();
		}
	}
	argc -= optind;
	argv += optind;
	if (argc == 0)
		return usage();

	if ((kq = kqueue()) == -1) {
		perror("pwait: kqueue");
		return 1;
	}
	/* One record per pid, plus one for the timer. */
	if ((ev = calloc((size_t)argc + 1, sizeof(*ev))) == NULL) {
		perror("pwait: calloc");
		close(kq);
		return 1;
	}

	/*
	 * Register the pids one by one, so that a bad one (no such process,
	 * or our own) is reported and skipped.  A pid given twice is added
	 * once: a second EV_ADD would only update the same knote, and nleft
	 * must count knotes, one record each.
	 */
	nleft = 0;
	for (i = 0; i < argc; i++) {
		errno = 0;
		pid = strtol(argv[i], &end, 10);
		if (end == argv[i] || *end != '\0' || errno != 0 || pid <= 0) {
			fprintf(stderr, "pwait: %s: bad process id\n",
			    argv[i]);
			continue;
		}
		if (pid == (long)getpid()) {
			fprintf(stderr, "pwait: %s: skipping my own pid\n",
			    argv[i]);
			continue;
		}
		for (n = 0; n < nleft; n++)
			if (ev[n].ident == (uintptr_t)pid)
				break;
		if (n < nleft)
			continue;			/* a duplicate */
		EV_SET(&ev[nleft], pid, EVFILT_PROC, EV_ADD, NOTE_EXIT, 0,
		    NULL);
		if (kevent(kq, &ev[nleft], 1, NULL, 0, NULL) == -1) {
			/* ESRCH: it does not exist, or is already gone */
			fprintf(stderr, "pwait: %ld: %s\n", pid,
			    strerror(errno));
			if (oflag)
				goto done;	/* as FreeBSD: "one has exited" */
			continue;
		}
		nleft++;
	}

	/* The timeout: a one-shot timer knote in the same kqueue. */
	if (usec >= 0 && nleft > 0) {
		EV_SET(&ev[nleft], TIMER_IDENT, EVFILT_TIMER,
		    EV_ADD | EV_ONESHOT, NOTE_USECONDS, usec, NULL);
		if (kevent(kq, &ev[nleft], 1, NULL, 0, NULL) == -1) {
			perror("pwait: kevent: EVFILT_TIMER");
			status = 1;
			goto done;
		}
	}

	/* Wait: each record is one exit, or the timer. */
	while (nleft > 0) {
		n = kevent(kq, NULL, 0, ev, nleft + 1, NULL);
		if (n == -1 && errno == EINTR)
			continue;
		if (n == -1) {
			perror("pwait: kevent");
			status = 1;
			break;
		}
		for (i = 0; i < n && nleft > 0; i++) {
			if (ev[i].filter == EVFILT_TIMER) {
				if (verbose)
					fprintf(out, "timeout\n");
				status = EXIT_TIMEOUT;
				nleft = 0;
				break;
			}
			/* NOTE_EXIT: data is the wait status. */
			if (verbose) {
				int st = (int)ev[i].data;

				if (WIFEXITED(st))
					fprintf(out, "%ld: exited with status "
					    "%d.\n", (long)ev[i].ident,
					    WEXITSTATUS(st));
				else if (WIFSIGNALED(st))
					fprintf(out, "%ld: killed by signal "
					    "%d.\n", (long)ev[i].ident,
					    WTERMSIG(st));
				else
					fprintf(out, "%ld: terminated.\n",
					    (long)ev[i].ident);
			}
			nleft = oflag ? 0 : nleft - 1;
		}
	}
done:
	fflush(out);
	free(ev);
	close(kq);
	return status;
}

/* ---- self-test ---------------------------------------------------------- */

/*
 * A child that ends with exit(code), or by signal sig if not 0: after
 * `ms` milliseconds, or when the write end of `go` closes (go not NULL).
 */
static pid_t
child(int code, int sig, long ms, int *go)
{
	struct timespec delay = { ms / 1000, (ms % 1000) * 1000000 };
	siginfo_t si;
	pid_t pid;
	char c;

	if ((pid = fork()) == -1) {
		perror("fork");
		exit(1);
	}
	if (pid == 0) {
		if (go != NULL) {
			close(go[1]);
			while (read(go[0], &c, 1) > 0)
				;
		}
		nanosleep(&delay, NULL);
		if (sig != 0) {
			signal(sig, SIG_DFL);
			kill(getpid(), sig);
		}
		_exit(code);
	}
	if (go == NULL && ms == 0)	/* "a zombie": wait until it is one */
		waitid(P_PID, (id_t)pid, &si, WEXITED | WNOWAIT);
	return pid;
}

/* Run pwait with the arguments given as one string; its -v output in out. */
static int
run(char *out, size_t size, const char *args)
{
	char buf[512], *argv[16], *tok;
	FILE *f;
	int argc = 0, r;

	snprintf(buf, sizeof(buf), "pwait %s", args);
	for (tok = strtok(buf, " "); tok != NULL && argc < 15;
	    tok = strtok(NULL, " "))
		argv[argc++] = tok;
	argv[argc] = NULL;
	if ((f = tmpfile()) == NULL) {
		perror("tmpfile");
		exit(1);
	}
	r = pwait(argc, argv, f);
	rewind(f);
	size = fread(out, 1, size - 1, f);
	out[size] = '\0';
	fclose(f);
	printf("$ pwait %s -> exit %d\n%s", args, r, out);
	return r;
}

/* out must contain `line` (a whole line) exactly once. */
static int
has_line(const char *out, const char *line)
{
	const char *p = out;
	size_t len = strlen(line);
	int count = 0;

	while ((p = strstr(p, line)) != NULL) {
		if ((p == out || p[-1] == '\n') && p[len] == '\n')
			count++;
		p += len;
	}
	if (count != 1)
		fprintf(stderr, "FAIL: the line \"%s\" appears %d times\n",
		    line, count);
	return count == 1;
}

static int
count_lines(const char *out)
{
	int n = 0;

	for (; *out != '\0'; out++)
		n += *out == '\n';
	return n;
}

static int
self_test(void)
{
	char out[2048], args[256], line[128];
	pid_t p0, p3, pterm, pzombie, pgone, pstuck;
	int go[2], r, ok = 1;

	fflush(stdout);
	/* A pid that does not exist: a child already reaped. */
	pgone = child(0, 0, 0, NULL);
	waitpid(pgone, NULL, 0);
	/* Exited before pwait starts, not reaped: reported at once. */
	pzombie = child(7, 0, 0, NULL);
	/* Three that end while pwait waits. */
	p0 = child(0, 0, 100, NULL);
	p3 = child(3, 0, 150, NULL);
	pterm = child(0, SIGTERM, 200, NULL);

	/* p3 twice: a duplicate counts once. */
	snprintf(args, sizeof(args), "-v -t 10 %d %d %d %d %d %d", (int)p0,
	    (int)p3, (int)pterm, (int)pzombie, (int)pgone, (int)p3);
	r = run(out, sizeof(out), args);
	if (r != 0) {
		fprintf(stderr, "FAIL: exit status %d, expected 0\n", r);
		ok = 0;
	}
	snprintf(line, sizeof(line), "%d: exited with status 0.", (int)p0);
	ok &= has_line(out, line);
	snprintf(line, sizeof(line), "%d: exited with status 3.", (int)p3);
	ok &= has_line(out, line);
	snprintf(line, sizeof(line), "%d: killed by signal %d.", (int)pterm,
	    SIGTERM);
	ok &= has_line(out, line);
	snprintf(line, sizeof(line), "%d: exited with status 7.",
	    (int)pzombie);
	ok &= has_line(out, line);
	if (count_lines(out) != 4) {
		fprintf(stderr, "FAIL: %d lines, expected 4\n",
		    count_lines(out));
		ok = 0;
	}
	while (waitpid(-1, NULL, 0) > 0)	/* pwait reaped none of them */
		;

	/* -t: a child that does not exit until we close go[1]. */
	if (pipe(go) == -1) {
		perror("pipe");
		return 1;
	}
	pstuck = child(0, 0, 0, go);
	close(go[0]);
	snprintf(args, sizeof(args), "-v -t 0.2 %d", (int)pstuck);
	r = run(out, sizeof(out), args);
	if (r != EXIT_TIMEOUT || strcmp(out, "timeout\n") != 0) {
		fprintf(stderr, "FAIL: -t 0.2: exit %d, expected %d and "
		    "\"timeout\"\n", r, EXIT_TIMEOUT);
		ok = 0;
	}

	/* -o: one of the two has exited, the other still runs. */
	pzombie = child(5, 0, 0, NULL);
	snprintf(args, sizeof(args), "-o -v -t 10 %d %d", (int)pstuck,
	    (int)pzombie);
	r = run(out, sizeof(out), args);
	snprintf(line, sizeof(line), "%d: exited with status 5.\n",
	    (int)pzombie);
	if (r != 0 || strcmp(out, line) != 0) {
		fprintf(stderr, "FAIL: -o: exit %d, expected 0 and only "
		    "\"%.*s\"\n", r, (int)strlen(line) - 1, line);
		ok = 0;
	}
	close(go[1]);				/* now pstuck exits too */
	while (waitpid(-1, NULL, 0) > 0)
		;

	/* Usage errors. */
	if (run(out, sizeof(out), "-t 1x 1") != EXIT_DATAERR ||
	    run(out, sizeof(out), "-v") != EXIT_USAGE) {
		fprintf(stderr, "FAIL: a usage error did not give %d or %d\n",
		    EXIT_DATAERR, EXIT_USAGE);
		ok = 0;
	}
	if (!ok)
		return 1;
	printf("ok: exit statuses and a signal reported as FreeBSD's pwait "
	    "-v does, a duplicate and a missing pid handled, -t gave %d, "
	    "-o stopped at the first exit\n", EXIT_TIMEOUT);
	return 0;
}

int
main(int argc, char **argv)
{
	if (argc == 2 && strcmp(argv[1], "--self-test") == 0) {
		alarm(60);	/* never hang a test run */
		return self_test();
	}
	return pwait(argc, argv, stdout);
}
