/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * echo-clear.c - an echo server written edge-triggered, with EV_CLEAR.
 *
 * Without EV_CLEAR a knote is reported by every kevent() call for as long
 * as its condition holds ("level-triggered").  With EV_CLEAR it is reported
 * once per change: new bytes arrived, room appeared in the send buffer, a
 * connection came in ("edge-triggered").  That saves events and system
 * calls, and it lets a server register READ and WRITE once per connection
 * and never touch them again - but only if it keeps these rules:
 *
 *  1. Every descriptor is non-blocking.
 *  2. On an event, keep going until the kernel says EAGAIN: accept until
 *     EAGAIN, read until EAGAIN, write until EAGAIN.  What is left behind
 *     is not reported again, because no new change will happen for it.
 *  3. If you stop early for your own reasons (here: the echo buffer is
 *     full), the next event that can unblock you (WRITE: room to send) must
 *     resume the work you stopped (the reading).  service() below simply
 *     alternates writing and reading until neither makes progress, so every
 *     stop is an EAGAIN that a future event will end.
 *  4. Records already returned by kevent() are not taken back when you
 *     close a descriptor.  Closing removes the knotes (no EV_DELETE needed),
 *     but a later record in the same batch may still carry the old udata:
 *     free per-connection state only after the batch is done.
 *
 * usage:
 *	echo-clear [port]	serve 127.0.0.1:port (default 7777) forever
 *	echo-clear --self-test	serve NCLIENTS client processes, each sending
 *				256 KiB through a 4 KiB echo buffer, and check
 *				every byte comes back; a lost edge shows up as
 *				a stall.  Exit 0 pass, 1 fail, 77 skip (no
 *				loopback networking).
 *
 * Plain FreeBSD code: <sys/event.h>, EV_SET, POSIX calls only.
 */
#include <sys/types.h>
#include <sys/event.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <sys/wait.h>

#include <netinet/in.h>
#include <arpa/inet.h>

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define BUFSZ		4096		/* echo buffer per connection */
#define NCLIENTS	4
#define CLIENT_BYTES	(256 * 1024)
#define NEVENTS		16

struct conn {
	int		fd;
	size_t		off, len;	/* buf[off .. off+len) waits to be sent */
	int		eof;		/* the peer will send no more */
	int		closed;
	struct conn	*next_dead;	/* freed after the current batch */
	char		buf[BUFSZ];
};

static int kq, listen_fd;
static struct conn *dead;	/* closed during this batch (rule 4) */
static int nclosed;		/* connections finished */
static long long nevents, nechoed, nwaits;
static int small_buffers;	/* self-test: make EAGAIN happen often */

static void
die(const char *what)
{
	fprintf(stderr, "echo-clear: %s: %s\n", what, strerror(errno));
	exit(1);
}

static void
set_nonblock(int fd)
{
	if (fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK) == -1)
		die("fcntl");
}

/* Small socket buffers, so that writes block often (self-test only). */
static void
shrink_buffers(int fd)
{
	int size = 4096;

	setsockopt(fd, SOL_SOCKET, SO_SNDBUF, &size, sizeof(size));
	setsockopt(fd, SOL_SOCKET, SO_RCVBUF, &size, sizeof(size));
}

static void
conn_close(struct conn *c)
{
	close(c->fd);		/* also removes both knotes from the kqueue */
	c->closed = 1;
	c->next_dead = dead;
	dead = c;
	nclosed++;
}

/* Rules 2 and 3: write and read alternately until both would block. */
static void
service(struct conn *c)
{
	ssize_t n;
	int progress;

	do {
		progress = 0;
		while (c->len > 0) {			/* send what we have */
			n = write(c->fd, c->buf + c->off, c->len);
			if (n == -1 && errno == EINTR)
				continue;
			if (n == -1 && errno == EAGAIN) {
				nwaits++;
				break;			/* a WRITE event will come */
			}
			if (n == -1) {
				conn_close(c);		/* peer reset, say */
				return;
			}
			c->off += (size_t)n;
			c->len -= (size_t)n;
			nechoed += n;
			progress = 1;
		}
		if (c->len == 0)
			c->off = 0;
		while (!c->eof && c->off + c->len < BUFSZ) {	/* fill up */
			n = read(c->fd, c->buf + c->off + c->len,
			    BUFSZ - c->off - c->len);
			if (n == -1 && errno == EINTR)
				continue;
			if (n == -1 && errno == EAGAIN)
				break;			/* a READ event will come */
			if (n == -1) {
				conn_close(c);
				return;
			}
			if (n == 0)
				c->eof = 1;
			c->len += (size_t)n;
			progress = 1;
		}
	} while (progress);

	if (c->eof && c->len == 0)
		conn_close(c);		/* all echoed and the peer is done */
}

/* Rule 2 for the listener: accept until EAGAIN. */
static void
accept_all(void)
{
	struct kevent ch[2];
	struct conn *c;
	int fd;

	for (;;) {
		fd = accept(listen_fd, NULL, NULL);
		if (fd == -1) {
			if (errno == EAGAIN || errno == EWOULDBLOCK)
				return;
			if (errno == EINTR || errno == ECONNABORTED)
				continue;
			die("accept");
		}
		set_nonblock(fd);
		if (small_buffers)
			shrink_buffers(fd);
		if ((c = calloc(1, sizeof(*c))) == NULL)
			die("calloc");
		c->fd = fd;
		/* Rule 4 of the header: both knotes once, for good. */
		EV_SET(&ch[0], fd, EVFILT_READ, EV_ADD | EV_CLEAR, 0, 0, c);
		EV_SET(&ch[1], fd, EVFILT_WRITE, EV_ADD | EV_CLEAR, 0, 0, c);
		if (kevent(kq, ch, 2, NULL, 0, NULL) == -1)
			die("kevent: add connection");
	}
}

/*
 * The event loop.  Runs until `until` connections have finished (forever if
 * until < 0).  Returns 0, or -1 if nothing happened for `timeout`.
 */
static int
serve(int until, const struct timespec *timeout)
{
	struct kevent ev[NEVENTS];
	struct conn *c;
	int i, n;

	while (until < 0 || nclosed < until) {
		n = kevent(kq, NULL, 0, ev, NEVENTS, timeout);
		if (n == -1 && errno == EINTR)
			continue;
		if (n == -1)
			die("kevent");
		if (n == 0)
			return -1;
		for (i = 0; i < n; i++) {
			nevents++;
			if (!(ev[i].flags & EV_CLEAR)) {
				/* the stored EV_CLEAR comes back with it */
				fprintf(stderr, "echo-clear: event without "
				    "EV_CLEAR: fd %d\n", (int)ev[i].ident);
				exit(1);
			}
			if (ev[i].udata == NULL) {
				accept_all();		/* the listener */
				continue;
			}
			c = ev[i].udata;
			if (!c->closed)			/* rule 4 */
				service(c);
		}
		while ((c = dead) != NULL) {		/* batch done: free */
			dead = c->next_dead;
			free(c);
		}
	}
	return 0;
}

/* ---- self-test clients (child processes, plain poll()) ---------------- */

static unsigned char
pattern(int client, size_t i)
{
	return (unsigned char)(i * 31 + (size_t)client * 7 + i / 251);
}

/* Send CLIENT_BYTES and read them back at the same time; check them. */
static int
client(int id, const struct sockaddr_in *sin)
{
	unsigned char out[8192], in[8192];
	struct pollfd pfd;
	size_t sent = 0, got = 0, k, chunk;
	ssize_t n;
	int s;

	s = socket(AF_INET, SOCK_STREAM, 0);
	if (s != -1)
		shrink_buffers(s);
	if (s == -1 || connect(s, (const struct sockaddr *)sin,
	    sizeof(*sin)) == -1)
		return 1;
	set_nonblock(s);
	pfd.fd = s;
	for (;;) {
		pfd.events = POLLIN | (sent < CLIENT_BYTES ? POLLOUT : 0);
		if (poll(&pfd, 1, 10000) <= 0) {
			fprintf(stderr, "client %d: stalled at %zu sent, "
			    "%zu echoed\n", id, sent, got);
			return 1;
		}
		if ((pfd.revents & POLLOUT) && sent < CLIENT_BYTES) {
			chunk = CLIENT_BYTES - sent;
			if (chunk > sizeof(out))
				chunk = sizeof(out);
			for (k = 0; k < chunk; k++)
				out[k] = pattern(id, sent + k);
			n = write(s, out, chunk);
			if (n > 0)
				sent += (size_t)n;
			else if (n == -1 && errno != EAGAIN)
				return 1;
			if (sent == CLIENT_BYTES)
				shutdown(s, SHUT_WR);	/* server sees EOF */
		}
		if (pfd.revents & (POLLIN | POLLHUP)) {
			n = read(s, in, sizeof(in));
			if (n == 0)
				break;			/* server closed */
			if (n == -1 && errno == EAGAIN)
				continue;
			if (n == -1)
				return 1;
			for (k = 0; k < (size_t)n; k++)
				if (in[k] != pattern(id, got + k)) {
					fprintf(stderr, "client %d: byte "
					    "%zu differs\n", id, got + k);
					return 1;
				}
			got += (size_t)n;
		}
	}
	close(s);
	if (got != CLIENT_BYTES) {
		fprintf(stderr, "client %d: %zu of %d bytes came back\n", id,
		    got, CLIENT_BYTES);
		return 1;
	}
	return 0;
}

static int
listen_on(int port, struct sockaddr_in *sin)
{
	socklen_t len = sizeof(*sin);
	int one = 1;

	listen_fd = socket(AF_INET, SOCK_STREAM, 0);
	if (listen_fd == -1)
		return -1;
	setsockopt(listen_fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
	memset(sin, 0, sizeof(*sin));
	sin->sin_family = AF_INET;
	sin->sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	sin->sin_port = htons((unsigned short)port);
	if (bind(listen_fd, (struct sockaddr *)sin, sizeof(*sin)) == -1 ||
	    listen(listen_fd, 64) == -1 ||
	    getsockname(listen_fd, (struct sockaddr *)sin, &len) == -1)
		return -1;
	set_nonblock(listen_fd);
	return 0;
}

static void
start_server(void)
{
	struct kevent ch;

	if ((kq = kqueue()) == -1)
		die("kqueue");
	/* The listener is edge-triggered too: accept_all() drains it. */
	EV_SET(&ch, listen_fd, EVFILT_READ, EV_ADD | EV_CLEAR, 0, 0, NULL);
	if (kevent(kq, &ch, 1, NULL, 0, NULL) == -1)
		die("kevent: add listener");
}

static int
self_test(void)
{
	struct timespec timeout = { 10, 0 };
	struct sockaddr_in sin;
	pid_t pids[NCLIENTS];
	int i, status, ok = 1;

	if (listen_on(0, &sin) == -1) {
		fprintf(stderr, "SKIP: cannot listen on 127.0.0.1: %s\n",
		    strerror(errno));
		return 77;
	}
	small_buffers = 1;
	/* Clients first: a kqueue is not inherited by fork(). */
	fflush(stdout);
	for (i = 0; i < NCLIENTS; i++) {
		if ((pids[i] = fork()) == -1)
			die("fork");
		if (pids[i] == 0) {
			close(listen_fd);
			_exit(client(i, &sin));
		}
	}
	start_server();
	if (serve(NCLIENTS, &timeout) == -1) {
		fprintf(stderr, "FAIL: no event for %d s with %d of %d "
		    "connections finished (a lost edge?)\n",
		    (int)timeout.tv_sec, nclosed, NCLIENTS);
		for (i = 0; i < NCLIENTS; i++)
			kill(pids[i], SIGTERM);
		ok = 0;
	}
	for (i = 0; i < NCLIENTS; i++) {
		if (waitpid(pids[i], &status, 0) != pids[i] ||
		    !WIFEXITED(status) || WEXITSTATUS(status) != 0) {
			fprintf(stderr, "FAIL: client %d failed\n", i);
			ok = 0;
		}
	}
	if (!ok)
		return 1;
	if (nechoed != (long long)NCLIENTS * CLIENT_BYTES) {
		fprintf(stderr, "FAIL: echoed %lld bytes, expected %lld\n",
		    nechoed, (long long)NCLIENTS * CLIENT_BYTES);
		return 1;
	}
	printf("ok: %d clients, %lld bytes echoed through %d-byte buffers "
	    "in %lld EV_CLEAR events; writes stopped at EAGAIN %lld times and "
	    "resumed on a later event\n", NCLIENTS, nechoed, BUFSZ,
	    nevents, nwaits);
	return 0;
}

int
main(int argc, char **argv)
{
	struct sockaddr_in sin;
	int port = 7777;

	signal(SIGPIPE, SIG_IGN);	/* a vanished peer is an EPIPE, not death */
	if (argc == 2 && strcmp(argv[1], "--self-test") == 0) {
		alarm(60);		/* never hang a test run */
		return self_test();
	}
	if (argc == 2)
		port = atoi(argv[1]);
	if (argc > 2 || port <= 0 || port > 65535) {
		fprintf(stderr, "usage: echo-clear [port]\n"
		    "       echo-clear --self-test\n");
		return 2;
	}
	if (listen_on(port, &sin) == -1)
		die("listen");
	start_server();
	printf("echoing on 127.0.0.1:%d\n", port);
	fflush(stdout);
	serve(-1, NULL);
	return 0;
}
