/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * udata-dispatch.c - the kqueue paper's second program (J. Lemon, 2001,
 * Figure 6): dispatching events to callbacks through udata.
 *
 * Each registration stores a pointer to its handler in udata; the event
 * loop does not look at ident or filter at all, it just calls
 *
 *	((void (*)(struct kevent *))ev[i].udata)(&ev[i]);
 *
 * The program registers four handlers on a pipe and a socketpair (one
 * descriptor carries two knotes, READ and WRITE, each with its own
 * handler) and shows that:
 *   - every event reaches the handler given at registration, with the
 *     ident and filter that handler was registered for;
 *   - EV_ADD on an existing knote replaces its udata, so a handler can hand
 *     its descriptor over to the next handler (a tiny state machine);
 *   - handlers queue changes that the next kevent() call applies.
 * Exit 0 only if each handler ran exactly once, in a valid order, and no
 * change failed.
 *
 * Plain FreeBSD code: <sys/event.h>, EV_SET, POSIX calls only.
 */
#include <sys/types.h>
#include <sys/event.h>
#include <sys/socket.h>
#include <sys/time.h>

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define NCHANGES	16
#define NEVENTS		16

static int kq;
static struct kevent ch[NCHANGES];
static int nchanges;

static int pipefd[2];		/* a pipe: "first", then "second" */
static int sv[2];		/* a socketpair: "ping" one way, "pong" back */

/* How often each handler ran, and in which order. */
enum { H_FIRST, H_SECOND, H_SOCK_WRITE, H_SOCK_READ, H_PEER_READ, NHANDLERS };
static const char *names[NHANDLERS] = {
	"on_first", "on_second", "on_sock_write", "on_sock_read",
	"on_peer_read"
};
static int calls[NHANDLERS];
static int order[16], norder;
static int bad;

static void
queue_change(int fd, int filter, int flags, void (*fn)(struct kevent *))
{
	if (nchanges == NCHANGES) {
		fprintf(stderr, "udata-dispatch: changelist full\n");
		exit(1);
	}
	EV_SET(&ch[nchanges], fd, filter, flags, 0, 0, (void *)fn);
	nchanges++;
}

/* Every handler checks it was called for the knote it was registered on. */
static void
called(int h, const struct kevent *kev, int fd, int filter)
{
	calls[h]++;
	if (norder < (int)(sizeof(order) / sizeof(order[0])))
		order[norder++] = h;
	printf("%-13s ident %d, filter %s, data %lld\n", names[h],
	    (int)kev->ident, kev->filter == EVFILT_READ ? "EVFILT_READ" :
	    kev->filter == EVFILT_WRITE ? "EVFILT_WRITE" : "?",
	    (long long)kev->data);
	if ((int)kev->ident != fd || kev->filter != filter) {
		fprintf(stderr, "FAIL: %s got ident %d filter %d, registered "
		    "for ident %d filter %d\n", names[h], (int)kev->ident,
		    kev->filter, fd, filter);
		bad = 1;
	}
}

static void
expect_read(int fd, const char *want)
{
	char buf[32];
	ssize_t n;

	n = read(fd, buf, sizeof(buf));
	if (n != (ssize_t)strlen(want) || memcmp(buf, want, (size_t)n) != 0) {
		fprintf(stderr, "FAIL: read on fd %d did not return \"%s\"\n",
		    fd, want);
		bad = 1;
	}
}

static void on_second(struct kevent *);

/* First message on the pipe: hand the descriptor over to on_second. */
static void
on_first(struct kevent *kev)
{
	called(H_FIRST, kev, pipefd[0], EVFILT_READ);
	expect_read(pipefd[0], "first");
	/* EV_ADD on the existing knote only replaces its udata. */
	queue_change(pipefd[0], EVFILT_READ, EV_ADD, on_second);
	if (write(pipefd[1], "second", 6) != 6)
		bad = 1;
}

static void
on_second(struct kevent *kev)
{
	called(H_SECOND, kev, pipefd[0], EVFILT_READ);
	expect_read(pipefd[0], "second");
	queue_change(pipefd[0], EVFILT_READ, EV_DELETE, NULL);
}

/* sv[0] is writable at once: send "ping" and stop watching writability. */
static void
on_sock_write(struct kevent *kev)
{
	called(H_SOCK_WRITE, kev, sv[0], EVFILT_WRITE);
	if (write(sv[0], "ping", 4) != 4)
		bad = 1;
	queue_change(sv[0], EVFILT_WRITE, EV_DELETE, NULL);
}

/* The peer got "ping" and answers "pong". */
static void
on_peer_read(struct kevent *kev)
{
	called(H_PEER_READ, kev, sv[1], EVFILT_READ);
	expect_read(sv[1], "ping");
	if (write(sv[1], "pong", 4) != 4)
		bad = 1;
	queue_change(sv[1], EVFILT_READ, EV_DELETE, NULL);
}

/* Same descriptor as on_sock_write, other filter, other handler. */
static void
on_sock_read(struct kevent *kev)
{
	called(H_SOCK_READ, kev, sv[0], EVFILT_READ);
	expect_read(sv[0], "pong");
	queue_change(sv[0], EVFILT_READ, EV_DELETE, NULL);
}

static int
position(int h)
{
	int i;

	for (i = 0; i < norder; i++)
		if (order[i] == h)
			return i;
	return -1;
}

int
main(void)
{
	struct kevent ev[NEVENTS];
	struct timespec timeout = { 2, 0 };
	void (*fcn)(struct kevent *);
	int i, n, round, h;

	alarm(30);
	if (pipe(pipefd) != 0 || socketpair(AF_UNIX, SOCK_STREAM, 0, sv) != 0) {
		perror("pipe/socketpair");
		return 1;
	}
	if ((kq = kqueue()) < 0) {
		perror("kqueue");
		return 1;
	}

	queue_change(pipefd[0], EVFILT_READ, EV_ADD, on_first);
	queue_change(sv[0], EVFILT_WRITE, EV_ADD, on_sock_write);
	queue_change(sv[0], EVFILT_READ, EV_ADD, on_sock_read);
	queue_change(sv[1], EVFILT_READ, EV_ADD, on_peer_read);
	if (write(pipefd[1], "first", 5) != 5) {
		perror("write");
		return 1;
	}

	/* Figure 6: the loop knows nothing about the handlers. */
	for (round = 0; round < 10; round++) {
		int done = 1;

		for (h = 0; h < NHANDLERS; h++)
			if (calls[h] == 0)
				done = 0;
		if (done && nchanges == 0)
			break;
		/* Once everything ran, only apply the last deletions. */
		if (done)
			timeout.tv_sec = 0;
		n = kevent(kq, ch, nchanges, ev, NEVENTS, &timeout);
		nchanges = 0;
		if (n < 0) {
			perror("kevent");
			return 1;
		}
		if (n == 0 && !done) {
			fprintf(stderr, "FAIL: no event within 2 s\n");
			return 1;
		}
		for (i = 0; i < n; i++) {
			if (ev[i].flags & EV_ERROR) {
				fprintf(stderr, "FAIL: change on ident %d "
				    "filter %d failed: %s\n", (int)ev[i].ident,
				    ev[i].filter, strerror((int)ev[i].data));
				bad = 1;
				continue;
			}
			fcn = (void (*)(struct kevent *))ev[i].udata;
			fcn(&ev[i]);
		}
	}

	/* Every knote is gone now: nothing may be reported any more. */
	timeout.tv_sec = 0;
	n = kevent(kq, NULL, 0, ev, NEVENTS, &timeout);
	if (n != 0) {
		fprintf(stderr, "FAIL: %d event(s) after all knotes were "
		    "deleted\n", n);
		bad = 1;
	}

	for (h = 0; h < NHANDLERS; h++) {
		if (calls[h] != 1) {
			fprintf(stderr, "FAIL: %s ran %d times, expected "
			    "once\n", names[h], calls[h]);
			bad = 1;
		}
	}
	if (!bad && (position(H_FIRST) > position(H_SECOND) ||
	    position(H_SOCK_WRITE) > position(H_PEER_READ) ||
	    position(H_PEER_READ) > position(H_SOCK_READ))) {
		fprintf(stderr, "FAIL: handlers ran in an impossible order\n");
		bad = 1;
	}
	if (bad)
		return 1;
	printf("ok: %d handlers dispatched through udata, each once\n",
	    NHANDLERS);
	close(kq);
	return 0;
}
