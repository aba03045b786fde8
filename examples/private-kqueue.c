/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * private-kqueue.c - a library function with a kqueue of its own (kqueue
 * paper, section 9).
 *
 * A kqueue is cheap, and a knote belongs to the kqueue it was added to.  So
 * a library that must wait for something can create a kqueue, wait on it
 * and close it again, knowing nothing about the program's event loop:
 *
 *  - its events never appear in the program's kqueue;
 *  - the program's events do not wake the library's kevent() and are not
 *    consumed by it, not even the ones reported only once (EV_CLEAR,
 *    EV_ONESHOT, a timer's count): they are all still there, intact, when
 *    the program's own kevent() looks;
 *  - nothing is left behind once it has closed its kqueue.
 *
 * Many kqueues in one process are normal; this one makes hundreds.
 *
 * The library here is a toy resolver: lookup() sends "<id> <name>" in a UDP
 * datagram to a name server and waits for "<id> <address>" with EVFILT_READ
 * on its socket and a timeout on kevent().  The name server is a thread of
 * this program on 127.0.0.1; it makes up an address in 192.0.2.0/24 for any
 * name, and never answers a name that starts with "slow", so that lookups
 * of such names time out.
 *
 * usage:
 *	private-kqueue [name ...]
 *		look the names up (default: www.example slow.example
 *		ftp.example) one per tick of the program's own 100 ms timer,
 *		and print the answers with the ticks counted meanwhile.
 *	private-kqueue --self-test
 *		with a pipe, a triggered EV_CLEAR user event and a one-shot
 *		timer pending in the program's kqueue: a lookup succeeds; a
 *		"slow" one times out after its full timeout (the program's
 *		ready events did not wake it) while the program's timer
 *		fires; 300 more lookups leak no descriptor; then the
 *		program's kqueue reports exactly its three events, with
 *		their data and udata, and the one-shot ones only once.
 *		Exit 0 pass, 1 fail, 77 skip (no loopback networking).
 *
 * Plain FreeBSD code: <sys/event.h>, EV_SET, POSIX calls only.
 */
#include <sys/types.h>
#include <sys/event.h>
#include <sys/socket.h>
#include <sys/time.h>

#include <netinet/in.h>
#include <arpa/inet.h>

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

/* ---- the library ---------------------------------------------------------- */

/* The library's configuration: where its name server is. */
static struct sockaddr_in resolver_server;

static long long
ms_since(const struct timespec *t0)
{
	struct timespec now;

	clock_gettime(CLOCK_MONOTONIC, &now);
	return (now.tv_sec - t0->tv_sec) * 1000LL +
	    (now.tv_nsec - t0->tv_nsec) / 1000000;
}

/*
 * Look up `name`, waiting at most timeout_ms.  Returns 0 and the address in
 * *addr, ETIMEDOUT when no answer came in time, or another errno value.
 * Uses a kqueue of its own: the caller may have any number of kqueues and
 * events; none of them is touched.
 */
static int
lookup(const char *name, struct in_addr *addr, int timeout_ms)
{
	static unsigned int last_id;
	struct timespec t0, left;
	struct kevent ch, ev;
	char buf[512], text[64];
	unsigned int id, got_id;
	long long rest;
	ssize_t len;
	int s, kq, n, err;

	if ((s = socket(AF_INET, SOCK_DGRAM, 0)) == -1)
		return errno;
	if ((kq = kqueue()) == -1) {
		err = errno;
		close(s);
		return err;
	}
	/* Connected: only datagrams from the server reach the socket. */
	id = ++last_id;
	n = snprintf(buf, sizeof(buf), "%u %s", id, name);
	if (connect(s, (struct sockaddr *)&resolver_server,
	    sizeof(resolver_server)) == -1 ||
	    send(s, buf, (size_t)n, 0) == -1) {
		err = errno;
		goto out;
	}
	/* The private kqueue's one knote: the answer is readable. */
	EV_SET(&ch, s, EVFILT_READ, EV_ADD, 0, 0, NULL);
	if (kevent(kq, &ch, 1, NULL, 0, NULL) == -1) {
		err = errno;
		goto out;
	}
	clock_gettime(CLOCK_MONOTONIC, &t0);
	for (;;) {
		rest = timeout_ms - ms_since(&t0);
		if (rest <= 0) {
			err = ETIMEDOUT;
			break;
		}
		left.tv_sec = (time_t)(rest / 1000);
		left.tv_nsec = (long)(rest % 1000) * 1000000;
		n = kevent(kq, NULL, 0, &ev, 1, &left);
		if (n == -1 && errno == EINTR)
			continue;
		if (n == -1) {
			err = errno;
			break;
		}
		if (n == 0) {
			err = ETIMEDOUT;
			break;
		}
		/* ev.ident == s: nothing else can be in this kqueue. */
		if ((len = recv(s, buf, sizeof(buf) - 1, 0)) == -1) {
			err = errno;
			break;
		}
		buf[len] = '\0';
		if (sscanf(buf, "%u %63s", &got_id, text) != 2 ||
		    got_id != id)
			continue;	/* not the answer to this query */
		err = inet_pton(AF_INET, text, addr) == 1 ? 0 : EINVAL;
		break;
	}
out:
	close(kq);		/* the knote goes with it */
	close(s);
	return err;
}

/* ---- the name server (a thread; stands in for a remote one) ------------- */

static int server_fd;

static void *
name_server(void *arg)
{
	struct sockaddr_in from;
	socklen_t fromlen;
	char buf[512], name[256];
	unsigned int id, sum;
	ssize_t n;
	size_t i;

	(void)arg;
	for (;;) {
		fromlen = sizeof(from);
		n = recvfrom(server_fd, buf, sizeof(buf) - 1, 0,
		    (struct sockaddr *)&from, &fromlen);
		if (n == -1 && errno == EINTR)
			continue;
		if (n == -1)
			return NULL;
		buf[n] = '\0';
		if (sscanf(buf, "%u %255s", &id, name) != 2)
			continue;
		if (id == 0)
			return NULL;		/* "0 quit": stop */
		if (strncmp(name, "slow", 4) == 0)
			continue;		/* never answered */
		for (sum = 0, i = 0; name[i] != '\0'; i++)
			sum += (unsigned char)name[i];
		n = snprintf(buf, sizeof(buf), "%u 192.0.2.%u", id,
		    1 + sum % 254);
		sendto(server_fd, buf, (size_t)n, 0, (struct sockaddr *)&from,
		    fromlen);
	}
}

/* Start the server on 127.0.0.1 (any port) and point the library at it. */
static int
start_server(pthread_t *thread)
{
	socklen_t len = sizeof(resolver_server);

	if ((server_fd = socket(AF_INET, SOCK_DGRAM, 0)) == -1)
		return -1;
	memset(&resolver_server, 0, sizeof(resolver_server));
	resolver_server.sin_family = AF_INET;
	resolver_server.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	if (bind(server_fd, (struct sockaddr *)&resolver_server,
	    sizeof(resolver_server)) == -1 ||
	    getsockname(server_fd, (struct sockaddr *)&resolver_server,
	    &len) == -1)
		return -1;
	/* Can we reach ourselves?  (The empty datagram is ignored.) */
	if (sendto(server_fd, "", 0, 0, (struct sockaddr *)&resolver_server,
	    sizeof(resolver_server)) == -1)
		return -1;
	errno = pthread_create(thread, NULL, name_server, NULL);
	return errno == 0 ? 0 : -1;
}

static void
stop_server(pthread_t thread)
{
	int s = socket(AF_INET, SOCK_DGRAM, 0);

	sendto(s, "0 quit", 6, 0, (struct sockaddr *)&resolver_server,
	    sizeof(resolver_server));
	close(s);
	pthread_join(thread, NULL);
	close(server_fd);
}

/* The address the server gives `name` (for the self-test's checks). */
static void
expected_address(const char *name, char *text, size_t size)
{
	unsigned int sum = 0;

	while (*name != '\0')
		sum += (unsigned char)*name++;
	snprintf(text, size, "192.0.2.%u", 1 + sum % 254);
}

/* ---- the program ---------------------------------------------------------- */

/* Interactive: one lookup per tick of the program's own timer. */
static int
demo(int argc, char **argv)
{
	static char *names[] = { "www.example", "slow.example",
	    "ftp.example" };
	struct timespec t0;
	struct kevent ch, ev;
	struct in_addr addr;
	char text[INET_ADDRSTRLEN];
	int kq, i, err;

	if (argc == 0) {
		argc = 3;
		argv = names;
	}
	if ((kq = kqueue()) == -1) {
		perror("kqueue");
		return 1;
	}
	EV_SET(&ch, 1, EVFILT_TIMER, EV_ADD, 0, 100, NULL);	/* 100 ms */
	if (kevent(kq, &ch, 1, NULL, 0, NULL) == -1) {
		perror("kevent");
		return 1;
	}
	for (i = 0; i < argc; i++) {
		if (kevent(kq, NULL, 0, &ev, 1, NULL) != 1) {
			perror("kevent");
			return 1;
		}
		/* data: ticks since the last report, also those that came
		 * while lookup() waited on its own kqueue */
		printf("program: timer, %lld tick%s\n", (long long)ev.data,
		    ev.data == 1 ? "" : "s");
		clock_gettime(CLOCK_MONOTONIC, &t0);
		err = lookup(argv[i], &addr, 500);
		if (err == 0)
			printf("lookup(%s) = %s\n", argv[i],
			    inet_ntop(AF_INET, &addr, text, sizeof(text)));
		else
			printf("lookup(%s): %s after %lld ms\n", argv[i],
			    strerror(err), ms_since(&t0));
	}
	if (kevent(kq, NULL, 0, &ev, 1, NULL) == 1)
		printf("program: timer, %lld tick%s\n", (long long)ev.data,
		    ev.data == 1 ? "" : "s");
	close(kq);
	return 0;
}

/* ---- self-test ---------------------------------------------------------- */

static char tag_pipe[] = "pipe", tag_user[] = "user", tag_timer[] = "timer";

static int
self_test(void)
{
	struct timespec zero = { 0, 0 }, t0;
	struct kevent ch[4], ev[8];
	struct in_addr addr;
	char text[INET_ADDRSTRLEN], want[INET_ADDRSTRLEN];
	int kq, p[2], probe, probe2, i, n, err, ok = 1;
	int seen_pipe = 0, seen_user = 0, seen_timer = 0;
	long long waited;

	/* The program's own kqueue and events, some of them ready now. */
	if ((kq = kqueue()) == -1 || pipe(p) == -1 ||
	    write(p[1], "abc", 3) != 3) {
		perror("kqueue/pipe");
		return 1;
	}
	EV_SET(&ch[0], p[0], EVFILT_READ, EV_ADD, 0, 0, tag_pipe);
	EV_SET(&ch[1], 1, EVFILT_USER, EV_ADD | EV_CLEAR, 0, 0, tag_user);
	EV_SET(&ch[2], 1, EVFILT_USER, 0, NOTE_TRIGGER, 0, tag_user);
	EV_SET(&ch[3], 2, EVFILT_TIMER, EV_ADD | EV_ONESHOT, 0, 50,
	    tag_timer);					/* in 50 ms */
	if (kevent(kq, ch, 4, NULL, 0, NULL) == -1) {
		perror("kevent");
		return 1;
	}

	/* 1. A lookup that is answered. */
	err = lookup("www.example", &addr, 2000);
	expected_address("www.example", want, sizeof(want));
	if (err != 0 || strcmp(inet_ntop(AF_INET, &addr, text,
	    sizeof(text)), want) != 0) {
		fprintf(stderr, "FAIL: lookup(www.example): %s\n",
		    err ? strerror(err) : text);
		ok = 0;
	} else
		printf("lookup(www.example) = %s\n", text);

	/* 2. One that is not: the program's events must not cut it short. */
	clock_gettime(CLOCK_MONOTONIC, &t0);
	err = lookup("slow.example", &addr, 300);
	waited = ms_since(&t0);
	printf("lookup(slow.example): %s after %lld ms\n", strerror(err),
	    waited);
	if (err != ETIMEDOUT || waited < 300) {
		fprintf(stderr, "FAIL: expected ETIMEDOUT after 300 ms\n");
		ok = 0;
	}

	/* 3. Many kqueues, one after another: nothing leaks. */
	probe = open("/dev/null", O_RDONLY);
	close(probe);
	for (i = 0; i < 300 && ok; i++) {
		snprintf(text, sizeof(text), "host%d.example", i);
		if ((err = lookup(text, &addr, 2000)) != 0) {
			fprintf(stderr, "FAIL: lookup(%s): %s\n", text,
			    strerror(err));
			ok = 0;
		}
	}
	probe2 = open("/dev/null", O_RDONLY);
	close(probe2);
	if (probe2 != probe) {
		fprintf(stderr, "FAIL: a descriptor leaked (lowest free was "
		    "%d, now %d)\n", probe, probe2);
		ok = 0;
	} else
		printf("300 more lookups, 300 more kqueues, no descriptor "
		    "left behind\n");

	/* 4. The program's kqueue: its three events, and nothing else. */
	n = kevent(kq, NULL, 0, ev, 8, &zero);
	for (i = 0; i < n; i++) {
		printf("program: ident %d, filter %d, data %lld, udata %s\n",
		    (int)ev[i].ident, ev[i].filter, (long long)ev[i].data,
		    ev[i].udata ? (char *)ev[i].udata : "NULL");
		if (ev[i].filter == EVFILT_READ && ev[i].ident ==
		    (uintptr_t)p[0] && ev[i].data == 3 &&
		    ev[i].udata == tag_pipe)
			seen_pipe++;
		else if (ev[i].filter == EVFILT_USER && ev[i].ident == 1 &&
		    ev[i].udata == tag_user)
			seen_user++;
		else if (ev[i].filter == EVFILT_TIMER && ev[i].ident == 2 &&
		    ev[i].data == 1 && ev[i].udata == tag_timer)
			seen_timer++;
		else {
			fprintf(stderr, "FAIL: an event that is not the "
			    "program's\n");
			ok = 0;
		}
	}
	if (n != 3 || seen_pipe != 1 || seen_user != 1 || seen_timer != 1) {
		fprintf(stderr, "FAIL: %d events (pipe %d, user %d, timer "
		    "%d), expected one of each\n", n, seen_pipe, seen_user,
		    seen_timer);
		ok = 0;
	}
	/* Reported once: now only the level-triggered pipe remains. */
	n = kevent(kq, NULL, 0, ev, 8, &zero);
	if (n != 1 || ev[0].udata != tag_pipe) {
		fprintf(stderr, "FAIL: second look: %d events, expected the "
		    "pipe only\n", n);
		ok = 0;
	}
	close(kq);
	close(p[0]);
	close(p[1]);
	if (!ok)
		return 1;
	printf("ok: the library's private kqueues neither saw, woke on, "
	    "consumed nor added to the program's events\n");
	return 0;
}

int
main(int argc, char **argv)
{
	pthread_t server;
	int r;

	if (start_server(&server) == -1) {
		fprintf(stderr, "SKIP: cannot run a UDP server on 127.0.0.1: "
		    "%s\n", strerror(errno));
		return 77;
	}
	if (argc == 2 && strcmp(argv[1], "--self-test") == 0) {
		alarm(60);	/* never hang a test run */
		r = self_test();
	} else if (argc > 1 && argv[1][0] == '-') {
		fprintf(stderr, "usage: private-kqueue [name ...]\n"
		    "       private-kqueue --self-test\n");
		r = 2;
	} else
		r = demo(argc - 1, argv + 1);
	stop_server(server);
	return r;
}
