/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * kqueue-priority.c - the kqueue paper's priority hierarchy (J. Lemon,
 * 2001, section 6.5): kqueues inside a kqueue.
 *
 * A kqueue descriptor is itself an event source.  Registered with
 * EVFILT_READ in another kqueue, it is reported readable while it has
 * pending events, with data = the number of pending events.  A program can
 * therefore keep high- and low-priority descriptors in two kqueues, wait
 * on a top-level kqueue that holds both, and always service the high
 * priority queue first.  poll() and select() on a kqueue descriptor work
 * the same way: readable iff events are pending, never writable.
 *
 * Here: one pipe with data in the high-priority kqueue, three in the
 * low-priority one.  Expected: the top-level kevent() returns two records,
 * {kq_high, EVFILT_READ, data 1} and {kq_low, EVFILT_READ, data 3}; the
 * high queue is serviced first; poll()/select() agree; once the pipes are
 * drained nothing is pending at any level.  Exit 0 only if all of it holds.
 *
 * Plain FreeBSD code: <sys/event.h>, EV_SET, POSIX calls only.
 */
#include <sys/types.h>
#include <sys/event.h>
#include <sys/select.h>
#include <sys/time.h>

#include <errno.h>
#include <poll.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define NLOW	3

struct queue {
	const char	*name;
	int		 kq;
	int		 npipes;
	int		 pipes[NLOW][2];
};

static int bad;

static void
check(int cond, const char *what)
{
	printf("%-58s %s\n", what, cond ? "yes" : "NO");
	if (!cond)
		bad = 1;
}

static void
die(const char *what)
{
	fprintf(stderr, "kqueue-priority: %s: %s\n", what, strerror(errno));
	exit(1);
}

/* Create a kqueue watching npipes fresh pipes for reading. */
static void
make_queue(struct queue *q, const char *name, int npipes)
{
	struct kevent ch[NLOW];
	int i;

	q->name = name;
	q->npipes = npipes;
	if ((q->kq = kqueue()) < 0)
		die("kqueue");
	for (i = 0; i < npipes; i++) {
		if (pipe(q->pipes[i]) != 0)
			die("pipe");
		EV_SET(&ch[i], q->pipes[i][0], EVFILT_READ, EV_ADD, 0, 0, 0);
	}
	if (kevent(q->kq, ch, npipes, NULL, 0, NULL) != 0)
		die("kevent (register pipes)");
}

/* poll() and select() on a kqueue fd: is it readable / writable now? */
static int
poll_readable(int kq, int *writable)
{
	struct pollfd pfd;

	pfd.fd = kq;
	pfd.events = POLLIN | POLLOUT;
	pfd.revents = 0;
	if (poll(&pfd, 1, 0) < 0)
		die("poll");
	*writable = (pfd.revents & POLLOUT) != 0;
	return (pfd.revents & POLLIN) != 0;
}

static int
select_readable(int kq, int *writable)
{
	struct timeval tv = { 0, 0 };
	fd_set rset, wset;

	FD_ZERO(&rset);
	FD_ZERO(&wset);
	FD_SET(kq, &rset);
	FD_SET(kq, &wset);
	if (select(kq + 1, &rset, &wset, NULL, &tv) < 0)
		die("select");
	*writable = FD_ISSET(kq, &wset) != 0;
	return FD_ISSET(kq, &rset) != 0;
}

/* Service one queue: fetch its events and drain the pipes they name. */
static int
service(struct queue *q)
{
	struct kevent ev[NLOW + 1];
	struct timespec zero = { 0, 0 };
	char c;
	int i, n;

	n = kevent(q->kq, NULL, 0, ev, NLOW + 1, &zero);
	if (n < 0)
		die("kevent (service)");
	for (i = 0; i < n; i++)
		if (read((int)ev[i].ident, &c, 1) != 1)
			die("read");
	printf("  serviced %s queue: %d event(s)\n", q->name, n);
	return n;
}

int
main(void)
{
	struct queue high, low, *order[2];
	struct kevent ch[2], ev[4];
	struct timespec zero = { 0, 0 }, two = { 2, 0 };
	char line[80];
	int top, i, n, w, pr, sr;

	alarm(30);
	make_queue(&high, "high-priority", 1);
	make_queue(&low, "low-priority", NLOW);

	/* The top level watches both kqueues; udata = the queue. */
	if ((top = kqueue()) < 0)
		die("kqueue");
	EV_SET(&ch[0], high.kq, EVFILT_READ, EV_ADD, 0, 0, &high);
	EV_SET(&ch[1], low.kq, EVFILT_READ, EV_ADD, 0, 0, &low);
	if (kevent(top, ch, 2, NULL, 0, NULL) != 0)
		die("kevent (register kqueues)");

	/* Nothing pending yet. */
	check(kevent(top, NULL, 0, ev, 4, &zero) == 0,
	    "idle: top-level kevent() returns nothing");
	pr = poll_readable(low.kq, &w);
	check(!pr && !w, "idle: poll() on the low kqueue: not readable");
	sr = select_readable(low.kq, &w);
	check(!sr && !w, "idle: select() on the low kqueue: not readable");

	/* One byte into every pipe: 1 event pending high, NLOW low. */
	for (i = 0; i < high.npipes; i++)
		if (write(high.pipes[i][1], "h", 1) != 1)
			die("write");
	for (i = 0; i < low.npipes; i++)
		if (write(low.pipes[i][1], "l", 1) != 1)
			die("write");

	pr = poll_readable(low.kq, &w);
	check(pr && !w, "busy: poll() on the low kqueue: readable, not writable");
	sr = select_readable(high.kq, &w);
	check(sr && !w,
	    "busy: select() on the high kqueue: readable, not writable");

	n = kevent(top, NULL, 0, ev, 4, &two);
	check(n == 2, "busy: top-level kevent() returns 2 records");
	order[0] = order[1] = NULL;
	for (i = 0; i < n && i < 2; i++) {
		struct queue *q = ev[i].udata;
		int64_t want = q == &high ? 1 : NLOW;

		if (q != &high && q != &low) {
			fprintf(stderr, "FAIL: record %d: ident %d, udata %p "
			    "is neither queue\n", i, (int)ev[i].ident,
			    ev[i].udata);
			bad = 1;
			continue;
		}

		snprintf(line, sizeof(line), "  %s kqueue (fd %d): readable, "
		    "data %lld (want %lld)", q->name, (int)ev[i].ident,
		    (long long)ev[i].data, (long long)want);
		check(ev[i].ident == (uintptr_t)q->kq &&
		    ev[i].filter == EVFILT_READ &&
		    (ev[i].flags & (EV_ERROR | EV_EOF)) == 0 &&
		    ev[i].data == want, line);
		/* Priority: the high queue goes first, whatever the order. */
		order[q == &high ? 0 : 1] = q;
	}
	if (order[0] == NULL || order[1] == NULL) {
		fprintf(stderr, "FAIL: did not see both kqueues\n");
		return 1;
	}
	check(service(order[0]) == 1, "high-priority queue serviced first, "
	    "1 event");
	check(service(order[1]) == NLOW, "then the low-priority queue, "
	    "3 events");

	/*
	 * The pipes are drained.  The next look at each queue finds the
	 * events no longer true and drops them, after which nothing is
	 * pending at any level.
	 */
	check(kevent(high.kq, NULL, 0, ev, 4, &zero) == 0 &&
	    kevent(low.kq, NULL, 0, ev, 4, &zero) == 0,
	    "drained: inner kqueues return nothing");
	pr = poll_readable(low.kq, &w);
	check(!pr && !w, "drained: poll() on the low kqueue: not readable");
	check(kevent(top, NULL, 0, ev, 4, &zero) == 0,
	    "drained: top-level kevent() returns nothing");

	if (bad) {
		fprintf(stderr, "FAIL: see the lines marked NO\n");
		return 1;
	}
	printf("ok: kqueues nest, report their pending count, and poll/select "
	    "see them\n");
	return 0;
}
