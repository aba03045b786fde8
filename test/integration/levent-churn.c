/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * levent-churn: many short TCP connections through a libevent server.
 *
 * The program is linked with libevent only (never with -lkq); libevent's
 * kqueue backend is the one that brings libkq in.  So every close() below
 * goes to the C library, exactly as in a program written for libevent that
 * knows nothing about libkq.  The backend is chosen by libevent's usual
 * environment (EVENT_NOEPOLL=1 ... for kqueue), and --expect checks it.
 *
 * The server accepts on 127.0.0.1 and handles connections in two ways, in
 * turn: a raw persistent read event (event_new, recv, send, event_free,
 * close) and a bufferevent created without BEV_OPT_CLOSE_ON_FREE (read a
 * line, answer it, bufferevent_free, close).  A client process, forked
 * before any event base exists, runs --parallel worker processes that open
 * --connections connections between them, each sending "req <n>\n" and
 * requiring "ok req <n>\n" followed by end of file.  The server also watches
 * SIGCHLD with an evsignal event to learn when the client is done.
 *
 * Checks: every connection answered (server and client side), the client
 * exits 0, nothing went wrong before --seconds, and the server has as many
 * descriptors open at the end as before the first connection (counted in
 * /proc/self/fd), not counting libkq's io_uring instance: a kqueue makes it
 * the first time it has enough socket counts to ask at once (kqueue(2)
 * lists the internal descriptors made when first needed), so it may
 * appear during the run; there is at most one.
 *
 * usage: levent-churn --method
 *        levent-churn [--expect METHOD] [--connections N] [--parallel P]
 *                     [--seconds S]
 * exit:  0 pass, 1 fail
 */
#define _GNU_SOURCE
#include <event2/buffer.h>
#include <event2/bufferevent.h>
#include <event2/event.h>
#include <event2/listener.h>

#include <arpa/inet.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <sys/wait.h>
#include <unistd.h>

#define LINE_MAX_LEN 64
#define CONN_SECONDS 10

struct server {
	struct event_base *base;
	int want;		/* connections to serve */
	int accepted;
	int served;		/* answered and closed */
	int errors;
	int open_now;		/* accepted, not yet closed */
	int open_max;
	pid_t client;
	int client_status;	/* -1 until reaped */
	int timed_out;
};

struct raw_conn {
	struct server *srv;
	int fd;
	struct event *ev;
	size_t len;
	char buf[LINE_MAX_LEN];
};

static void fail_msg(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	fputs("levent-churn: ", stderr);
	vfprintf(stderr, fmt, ap);
	fputc('\n', stderr);
	va_end(ap);
}

/* Descriptors open, but for io_uring instances (counted in *rings); each
 * one is printed to stderr when `list_as` names the moment. */
static int count_fds(int *rings, const char *list_as)
{
	DIR *d = opendir("/proc/self/fd");
	struct dirent *e;
	char path[288], target[256];
	ssize_t len;
	int n = 0;

	*rings = 0;
	if (d == NULL)
		return -1;
	if (list_as != NULL)
		fprintf(stderr, "descriptors %s:\n", list_as);
	while ((e = readdir(d)) != NULL) {
		if (e->d_name[0] == '.')
			continue;
		snprintf(path, sizeof(path), "/proc/self/fd/%s", e->d_name);
		len = readlink(path, target, sizeof(target) - 1);
		target[len < 0 ? 0 : len] = '\0';
		if (list_as != NULL)
			fprintf(stderr, "  %s -> %s\n", e->d_name, target);
		if (strcmp(target, "anon_inode:[io_uring]") == 0)
			(*rings)++;
		else
			n++;
	}
	closedir(d);
	return n - 1;		/* the directory's own descriptor */
}

/* ---- client (separate processes, plain blocking sockets) ---- */

static int client_one(const struct sockaddr_in *sin, int n)
{
	char req[LINE_MAX_LEN], want[LINE_MAX_LEN], got[LINE_MAX_LEN * 2];
	struct timeval tv = { CONN_SECONDS, 0 };
	size_t len = 0;
	ssize_t r;
	int fd, reqlen;

	fd = socket(AF_INET, SOCK_STREAM, 0);
	if (fd < 0) {
		fail_msg("client %d: socket: %s", n, strerror(errno));
		return -1;
	}
	setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv));
	setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &tv, sizeof(tv));
	if (connect(fd, (const struct sockaddr *)sin, sizeof(*sin)) < 0) {
		fail_msg("client %d: connect: %s", n, strerror(errno));
		close(fd);
		return -1;
	}
	reqlen = snprintf(req, sizeof(req), "req %d\n", n);
	snprintf(want, sizeof(want), "ok req %d\n", n);
	if (send(fd, req, (size_t)reqlen, MSG_NOSIGNAL) != reqlen) {
		fail_msg("client %d: send: %s", n, strerror(errno));
		close(fd);
		return -1;
	}
	/* Read the answer up to end of file: the server closes after it. */
	for (;;) {
		r = recv(fd, got + len, sizeof(got) - 1 - len, 0);
		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0)
			break;
		len += (size_t)r;
		if (len == sizeof(got) - 1)
			break;
	}
	got[len] = '\0';
	close(fd);
	if (r < 0) {
		fail_msg("client %d: recv: %s (got \"%s\")", n, strerror(errno),
			 got);
		return -1;
	}
	if (strcmp(got, want) != 0) {
		fail_msg("client %d: answer \"%s\", expected \"%s\"", n, got,
			 want);
		return -1;
	}
	return 0;
}

static int run_client(const struct sockaddr_in *sin, int total, int parallel)
{
	pid_t pid;
	int w, i, status, bad = 0;

	for (w = 0; w < parallel; w++) {
		pid = fork();
		if (pid < 0) {
			fail_msg("client: fork: %s", strerror(errno));
			return 1;
		}
		if (pid == 0) {
			int errs = 0;

			for (i = w; i < total; i += parallel)
				if (client_one(sin, i) < 0 && ++errs >= 5)
					break;
			_exit(errs ? 1 : 0);
		}
	}
	while (wait(&status) > 0)
		if (!WIFEXITED(status) || WEXITSTATUS(status) != 0)
			bad = 1;
	return bad;
}

/* ---- server ---- */

static void conn_done(struct server *srv, int ok)
{
	srv->open_now--;
	if (ok)
		srv->served++;
	else
		srv->errors++;
	if (srv->served == srv->want && srv->client_status != -1)
		event_base_loopbreak(srv->base);
}

static void raw_read_cb(evutil_socket_t fd, short what, void *arg)
{
	struct raw_conn *c = arg;
	struct server *srv = c->srv;
	char out[LINE_MAX_LEN + 8];
	char *nl;
	ssize_t r;
	int outlen, ok = 0;

	if (what & EV_TIMEOUT) {
		fail_msg("server: raw connection fd %d timed out", (int)fd);
		goto done;
	}
	r = recv(fd, c->buf + c->len, sizeof(c->buf) - 1 - c->len, 0);
	if (r < 0 && (errno == EAGAIN || errno == EINTR))
		return;
	if (r <= 0) {
		fail_msg("server: raw fd %d: %s before a full request",
			 (int)fd, r == 0 ? "end of file" : strerror(errno));
		goto done;
	}
	c->len += (size_t)r;
	c->buf[c->len] = '\0';
	nl = strchr(c->buf, '\n');
	if (nl == NULL) {
		if (c->len == sizeof(c->buf) - 1) {
			fail_msg("server: raw fd %d: request too long", (int)fd);
			goto done;
		}
		return;		/* wait for the rest */
	}
	*nl = '\0';
	outlen = snprintf(out, sizeof(out), "ok %s\n", c->buf);
	/* A few bytes into an empty socket buffer: one send does it. */
	if (send(fd, out, (size_t)outlen, MSG_NOSIGNAL) != outlen) {
		fail_msg("server: raw fd %d: send: %s", (int)fd,
			 strerror(errno));
		goto done;
	}
	ok = 1;
done:
	event_free(c->ev);
	close(c->fd);
	free(c);
	conn_done(srv, ok);
}

static void bev_finish(struct bufferevent *bev, struct server *srv, int ok)
{
	evutil_socket_t fd = bufferevent_getfd(bev);

	bufferevent_free(bev);
	close(fd);
	conn_done(srv, ok);
}

static void bev_event_cb(struct bufferevent *bev, short what, void *arg);

static void bev_write_cb(struct bufferevent *bev, void *arg)
{
	/* The answer is out: this connection is done. */
	bev_finish(bev, arg, 1);
}

static void bev_read_cb(struct bufferevent *bev, void *arg)
{
	struct evbuffer *in = bufferevent_get_input(bev);
	size_t n;
	char *line = evbuffer_readln(in, &n, EVBUFFER_EOL_LF);

	if (line == NULL) {
		if (evbuffer_get_length(in) >= LINE_MAX_LEN) {
			fail_msg("server: bufferevent: request too long");
			bev_finish(bev, arg, 0);
		}
		return;
	}
	bufferevent_setcb(bev, NULL, bev_write_cb, bev_event_cb, arg);
	bufferevent_disable(bev, EV_READ);
	evbuffer_add_printf(bufferevent_get_output(bev), "ok %s\n", line);
	free(line);
}

static void bev_event_cb(struct bufferevent *bev, short what, void *arg)
{
	fail_msg("server: bufferevent fd %d: event 0x%x (%s)",
		 (int)bufferevent_getfd(bev), what,
		 what & BEV_EVENT_TIMEOUT ? "timeout" :
		 what & BEV_EVENT_EOF ? "end of file" : strerror(errno));
	bev_finish(bev, arg, 0);
}

static void accept_cb(struct evconnlistener *lev, evutil_socket_t fd,
		      struct sockaddr *sa, int socklen, void *arg)
{
	struct server *srv = arg;
	struct timeval tmo = { CONN_SECONDS, 0 };

	(void)lev;
	(void)sa;
	(void)socklen;
	srv->accepted++;
	if (++srv->open_now > srv->open_max)
		srv->open_max = srv->open_now;
	if (srv->accepted % 2) {
		struct raw_conn *c = calloc(1, sizeof(*c));

		if (c == NULL)
			goto fail;
		c->srv = srv;
		c->fd = fd;
		c->ev = event_new(srv->base, fd, EV_READ | EV_PERSIST,
				  raw_read_cb, c);
		if (c->ev == NULL || event_add(c->ev, &tmo) < 0) {
			if (c->ev)
				event_free(c->ev);
			free(c);
			goto fail;
		}
	} else {
		/* No BEV_OPT_CLOSE_ON_FREE: the program closes fd itself. */
		struct bufferevent *bev = bufferevent_socket_new(srv->base, fd, 0);

		if (bev == NULL)
			goto fail;
		bufferevent_setcb(bev, bev_read_cb, NULL, bev_event_cb, srv);
		bufferevent_set_timeouts(bev, &tmo, &tmo);
		if (bufferevent_enable(bev, EV_READ) < 0) {
			bufferevent_free(bev);
			goto fail;
		}
	}
	return;
fail:
	fail_msg("server: cannot set up connection %d", srv->accepted);
	close(fd);
	conn_done(srv, 0);
}

static void sigchld_cb(evutil_socket_t sig, short what, void *arg)
{
	struct server *srv = arg;
	int status;

	(void)sig;
	(void)what;
	if (srv->client_status != -1)
		return;
	if (waitpid(srv->client, &status, WNOHANG) != srv->client)
		return;
	srv->client_status = status;
	/* Everything answered, or the client gave up: stop either way. */
	if (srv->served == srv->want ||
	    !WIFEXITED(status) || WEXITSTATUS(status) != 0)
		event_base_loopbreak(srv->base);
}

static void deadline_cb(evutil_socket_t fd, short what, void *arg)
{
	struct server *srv = arg;

	(void)fd;
	(void)what;
	srv->timed_out = 1;
	event_base_loopbreak(srv->base);
}

static int listen_socket(struct sockaddr_in *sin)
{
	socklen_t len = sizeof(*sin);
	int one = 1, fd = socket(AF_INET, SOCK_STREAM, 0);

	if (fd < 0)
		return -1;
	setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
	memset(sin, 0, sizeof(*sin));
	sin->sin_family = AF_INET;
	sin->sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	if (bind(fd, (struct sockaddr *)sin, sizeof(*sin)) < 0 ||
	    listen(fd, 512) < 0 ||
	    getsockname(fd, (struct sockaddr *)sin, &len) < 0 ||
	    evutil_make_socket_nonblocking(fd) < 0) {
		close(fd);
		return -1;
	}
	return fd;
}

static int print_method(void)
{
	struct event_base *base = event_base_new();

	if (base == NULL) {
		fail_msg("event_base_new failed");
		return 1;
	}
	printf("%s\n", event_base_get_method(base));
	event_base_free(base);
	return 0;
}

int main(int argc, char **argv)
{
	struct server srv;
	struct sockaddr_in sin;
	struct evconnlistener *lev;
	struct event *sigev, *deadline;
	struct timeval limit;
	const char *expect = NULL, *method;
	int total = 5000, parallel = 8, seconds = 60;
	int lfd, i, before, after, rings_before, rings_after, fds_ok, ok;

	for (i = 1; i < argc; i++) {
		if (strcmp(argv[i], "--method") == 0)
			return print_method();
		else if (strcmp(argv[i], "--expect") == 0 && i + 1 < argc)
			expect = argv[++i];
		else if (strcmp(argv[i], "--connections") == 0 && i + 1 < argc)
			total = atoi(argv[++i]);
		else if (strcmp(argv[i], "--parallel") == 0 && i + 1 < argc)
			parallel = atoi(argv[++i]);
		else if (strcmp(argv[i], "--seconds") == 0 && i + 1 < argc)
			seconds = atoi(argv[++i]);
		else {
			fprintf(stderr, "usage: %s --method | [--expect METHOD] "
				"[--connections N] [--parallel P] [--seconds S]\n",
				argv[0]);
			return 2;
		}
	}
	if (total < 1 || parallel < 1 || seconds < 1) {
		fail_msg("bad arguments");
		return 2;
	}

	lfd = listen_socket(&sin);
	if (lfd < 0) {
		fail_msg("listen on 127.0.0.1: %s", strerror(errno));
		return 1;
	}
	memset(&srv, 0, sizeof(srv));
	srv.want = total;
	srv.client_status = -1;

	/* The client first, while this process has no event base. */
	srv.client = fork();
	if (srv.client < 0) {
		fail_msg("fork: %s", strerror(errno));
		return 1;
	}
	if (srv.client == 0) {
		close(lfd);
		_exit(run_client(&sin, total, parallel));
	}

	srv.base = event_base_new();
	if (srv.base == NULL) {
		fail_msg("event_base_new failed");
		kill(srv.client, SIGKILL);
		return 1;
	}
	method = event_base_get_method(srv.base);
	printf("levent-churn: backend %s, %d connections, %d in parallel, "
	       "server pid %d\n", method, total, parallel, (int)getpid());
	if (expect != NULL && strcmp(method, expect) != 0) {
		fail_msg("backend is %s, expected %s", method, expect);
		kill(srv.client, SIGKILL);
		return 1;
	}
	lev = evconnlistener_new(srv.base, accept_cb, &srv,
				 LEV_OPT_CLOSE_ON_FREE, -1, lfd);
	sigev = evsignal_new(srv.base, SIGCHLD, sigchld_cb, &srv);
	deadline = evtimer_new(srv.base, deadline_cb, &srv);
	limit.tv_sec = seconds;
	limit.tv_usec = 0;
	if (lev == NULL || sigev == NULL || deadline == NULL ||
	    event_add(sigev, NULL) < 0 || event_add(deadline, &limit) < 0) {
		fail_msg("cannot set up the server's events");
		kill(srv.client, SIGKILL);
		return 1;
	}
	/* The client may have finished already (a failure): look now. */
	sigchld_cb(SIGCHLD, EV_SIGNAL, &srv);

	before = count_fds(&rings_before, NULL);
	if (srv.client_status == -1 || srv.served < srv.want)
		event_base_dispatch(srv.base);
	after = count_fds(&rings_after, NULL);

	if (srv.client_status == -1) {
		kill(srv.client, SIGKILL);
		waitpid(srv.client, &srv.client_status, 0);
	}
	ok = 1;
	if (srv.timed_out) {
		fail_msg("not done after %d s", seconds);
		ok = 0;
	}
	if (srv.served != total || srv.errors != 0) {
		fail_msg("server answered %d of %d connections (%d accepted, "
			 "%d errors, %d still open)", srv.served, total,
			 srv.accepted, srv.errors, srv.open_now);
		ok = 0;
	}
	if (!WIFEXITED(srv.client_status) ||
	    WEXITSTATUS(srv.client_status) != 0) {
		fail_msg("client failed (wait status 0x%x)",
			 srv.client_status);
		ok = 0;
	}
	fds_ok = 1;
	if (rings_after > 1 || rings_after < rings_before) {
		fail_msg("server io_uring instances: %d before the first "
			 "connection, %d at the end (one kqueue: at most one)",
			 rings_before, rings_after);
		fds_ok = 0;
	}
	if (before < 0 || before != after) {
		fail_msg("server descriptors: %d before the first connection, "
			 "%d at the end", before, after);
		fds_ok = 0;
	}
	if (!fds_ok) {
		count_fds(&rings_after, "at the end");
		ok = 0;
	}
	printf("levent-churn: %d served, %d errors, at most %d open at once, "
	       "descriptors %d before, %d after (io_uring %d, %d): %s\n",
	       srv.served, srv.errors, srv.open_max, before, after,
	       rings_before, rings_after, ok ? "ok" : "FAILED");

	event_free(deadline);
	event_free(sigev);
	evconnlistener_free(lev);
	event_base_free(srv.base);
	return ok ? 0 : 1;
}
