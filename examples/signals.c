/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * signals.c - count signals through kevent() (kqueue paper, Figure 7).
 *
 * EVFILT_SIGNAL does not replace signal handling: it counts.  A knote for
 * SIGHUP records every SIGHUP sent to the process, and each event's data is
 * the number of sends since the last time kevent() reported it (EV_CLEAR is
 * implied: the count restarts after each report).  It works even while the
 * signal is ignored, so the paper's recipe is:
 *
 *	register EVFILT_SIGNAL for SIGHUP	(EV_ADD | EV_ENABLE)
 *	signal(SIGHUP, SIG_IGN)			(SIGHUP would kill us)
 *	loop in kevent(), printing ident (the signal) and data (the count)
 *
 * A program can then handle SIGHUP ("reload the configuration") in its
 * event loop, next to its descriptors and timers, with none of the
 * restrictions of a signal handler.
 *
 * usage:
 *	signals			print each batch of SIGHUPs (kill -HUP <pid>)
 *	signals --self-test	1. raise SIGHUP three times between two
 *				   kevent() calls: one event, data 3, and the
 *				   process is not killed;
 *				2. the paper's loop: another process sends
 *				   three SIGHUPs, one per kevent() call, each
 *				   counted once.
 *				Exit 0 pass, 1 fail.
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

/* Figure 7: watch SIGHUP, then ignore it.  Returns the kqueue. */
static int
watch_sighup(void)
{
	struct kevent ev;
	struct timespec nullts = { 0, 0 };
	int kq;

	if ((kq = kqueue()) == -1) {
		perror("kqueue");
		exit(1);
	}
	EV_SET(&ev, SIGHUP, EVFILT_SIGNAL, EV_ADD | EV_ENABLE, 0, 0, NULL);
	if (kevent(kq, &ev, 1, NULL, 0, &nullts) == -1) {
		perror("kevent: EVFILT_SIGNAL");
		exit(1);
	}
	/*
	 * Ignoring the signal does not stop the count: the knote sees every
	 * send, whatever the disposition.  (Order does not matter either;
	 * the paper ignores it after registering.)
	 */
	signal(SIGHUP, SIG_IGN);
	return kq;
}

/*
 * One turn of the paper's loop: wait for the next batch and print it.
 * Returns the count (data), 0 if `timeout` passed, -1 on error.
 */
static long long
next_batch(int kq, const struct timespec *timeout)
{
	struct kevent ev;
	int n;

	do
		n = kevent(kq, NULL, 0, &ev, 1, timeout);
	while (n == -1 && errno == EINTR);
	if (n == -1) {
		perror("kevent");
		return -1;
	}
	if (n == 0)
		return 0;
	printf("signal %d delivered %lld time%s\n", (int)ev.ident,
	    (long long)ev.data, ev.data == 1 ? "" : "s");
	fflush(stdout);
	if (ev.filter != EVFILT_SIGNAL || ev.ident != SIGHUP) {
		fprintf(stderr, "signals: unexpected event (filter %d, "
		    "ident %lu)\n", ev.filter, (unsigned long)ev.ident);
		return -1;
	}
	return ev.data;
}

/* ---- self-test ---------------------------------------------------------- */

/* Part 2's sender: one SIGHUP to `target` per byte read from `go`. */
static int
sender(pid_t target, int go)
{
	char c;

	while (read(go, &c, 1) == 1)
		if (kill(target, SIGHUP) == -1)
			return 1;
	return 0;
}

static int
self_test(void)
{
	struct timespec zero = { 0, 0 }, five = { 5, 0 };
	long long n;
	int kq, go[2], status, i, ok = 1;
	pid_t pid;

	/* Fork the sender first: a child must not use its parent's kqueue. */
	if (pipe(go) == -1) {
		perror("pipe");
		return 1;
	}
	if ((pid = fork()) == -1) {
		perror("fork");
		return 1;
	}
	if (pid == 0) {
		close(go[1]);
		_exit(sender(getppid(), go[0]));
	}
	close(go[0]);

	kq = watch_sighup();

	/* Part 1: nothing yet; three sends; one event with data 3. */
	if (next_batch(kq, &zero) != 0) {
		fprintf(stderr, "FAIL: an event before any SIGHUP\n");
		ok = 0;
	}
	for (i = 0; i < 3; i++)
		kill(getpid(), SIGHUP);	/* ignored, so we live on */
	if ((n = next_batch(kq, &five)) != 3) {
		fprintf(stderr, "FAIL: 3 SIGHUPs counted as %lld\n", n);
		ok = 0;
	}
	if (next_batch(kq, &zero) != 0) {	/* the count was reset */
		fprintf(stderr, "FAIL: the batch was reported twice\n");
		ok = 0;
	}

	/*
	 * Part 2: the loop, fed by another process.  The sender sends the
	 * next SIGHUP only once the previous one has been reported, so each
	 * kevent() call finds exactly one.
	 */
	for (i = 0; i < 3 && ok; i++) {
		if (write(go[1], "s", 1) != 1) {
			perror("write");
			ok = 0;
		} else if ((n = next_batch(kq, &five)) != 1) {
			fprintf(stderr, "FAIL: SIGHUP %d from process %d "
			    "counted as %lld\n", i + 1, (int)pid, n);
			ok = 0;
		}
	}
	close(go[1]);			/* the sender's read sees EOF */
	if (waitpid(pid, &status, 0) != pid || !WIFEXITED(status) ||
	    WEXITSTATUS(status) != 0) {
		fprintf(stderr, "FAIL: the sender process failed\n");
		ok = 0;
	}
	close(kq);
	if (!ok)
		return 1;
	printf("ok: 3 SIGHUPs between two kevent() calls gave data 3, 3 "
	    "from another process gave 3 events of 1, and SIG_IGN kept "
	    "the process alive\n");
	return 0;
}

int
main(int argc, char **argv)
{
	int kq;

	if (argc == 2 && strcmp(argv[1], "--self-test") == 0) {
		alarm(60);	/* never hang a test run */
		return self_test();
	}
	if (argc != 1) {
		fprintf(stderr, "usage: signals\n"
		    "       signals --self-test\n");
		return 2;
	}
	kq = watch_sighup();
	printf("pid %d: waiting for SIGHUP (kill -HUP %d); interrupt to "
	    "stop\n", (int)getpid(), (int)getpid());
	fflush(stdout);
	for (;;)
		if (next_batch(kq, NULL) == -1)
			return 1;
}
