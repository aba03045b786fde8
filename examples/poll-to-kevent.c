/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * poll-to-kevent.c - the first program of the kqueue paper (J. Lemon, 2001,
 * Figures 4 and 5): a server written in poll() style, converted to kevent().
 *
 * A poll() server rebuilds its pollfd array whenever interest changes.  The
 * kevent() version keeps a changelist instead: update_fd() appends an
 * EV_ADD or EV_DELETE change, and the single kevent() call in
 * handle_events() applies every pending change AND returns the events that
 * are ready, in one system call.  For each returned record:
 *   - EV_ERROR set: a change failed; ident/filter name it, data is the errno;
 *   - otherwise filter says readable or writable, and ident is the fd.
 *
 * The program serves an echo protocol on 127.0.0.1 to a client process it
 * forks itself.  Like the poll() original, when a client goes away it
 * "removes the fd from the set" with update_fd(fd, DELETE, EVFILT_READ) and
 * closes it.  With kqueue that change is stale by the time it is applied:
 * close() already removed the knote, so kevent() hands it back as an
 * EV_ERROR record (data = EBADF, or ENOENT if the fd number has been reused
 * by a new connection).  That is the EV_ERROR path of Figure 5, shown live.
 *
 * It is self-checking: exit 0 only if every echo came back intact, the first
 * kevent() call applied the listener's EV_ADD and returned its event, and
 * every stale EV_DELETE was reported as EV_ERROR.  Exit 77: no loopback.
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
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define NCLIENTS	2
#define MAXFD		256	/* this demo only ever uses small fds */
#define NCHANGES	32
#define NEVENTS		32

enum { ADD, DELETE };

static int kq;
static int listen_fd;
static struct kevent ch[NCHANGES];	/* changes waiting for the next kevent() */
static int nchanges;
static struct kevent ev[NEVENTS];

static struct conn {
	char	buf[256];
	size_t	len;		/* bytes waiting to be echoed */
	int	stale;		/* a stale EV_DELETE for this fd is pending */
} conns[MAXFD];

/* What the server saw; checked at the end. */
static int ncalls, ncalls_both, accepted, closed, stale_errors, failures;
static size_t echoed;
static int first_call_ok;

/* Prefix of every line printed for the current kevent() call. */
static char tag[64];

static void
fail(const char *what)
{
	fprintf(stderr, "poll-to-kevent: %s: %s\n", what, strerror(errno));
	exit(1);
}

/* Figure 4: queue a change; it is applied by the next kevent() call. */
static void
update_fd(int fd, int action, int filter)
{
	if (nchanges == NCHANGES) {
		fprintf(stderr, "poll-to-kevent: changelist full\n");
		exit(1);
	}
	EV_SET(&ch[nchanges], fd, filter,
	    action == ADD ? EV_ADD : EV_DELETE, 0, 0, 0);
	nchanges++;
}

static void
readable_fd(int fd)
{
	ssize_t n;
	int c;

	if (fd == listen_fd) {
		c = accept(listen_fd, NULL, NULL);
		if (c < 0) {
			if (errno == EAGAIN || errno == EWOULDBLOCK ||
			    errno == ECONNABORTED || errno == EINTR)
				return;	/* try again on the next event */
			fail("accept");
		}
		if (c >= MAXFD) {
			fprintf(stderr, "poll-to-kevent: fd %d too large\n", c);
			exit(1);
		}
		fcntl(c, F_SETFL, fcntl(c, F_GETFL) | O_NONBLOCK);
		accepted++;
		printf("%s: fd %d (listener) readable -> accepted fd %d\n",
		    tag, fd, c);
		update_fd(c, ADD, EVFILT_READ);
		return;
	}

	n = read(fd, conns[fd].buf, sizeof(conns[fd].buf));
	if (n < 0) {
		if (errno == EAGAIN || errno == EINTR)
			return;
		fail("read");
	}
	if (n == 0) {
		/*
		 * End of file.  The poll() server would drop fd from its set;
		 * doing the same here queues an EV_DELETE that will fail,
		 * because close() removes the knote right now.
		 */
		printf("%s: fd %d readable -> end of file, closing it\n",
		    tag, fd);
		update_fd(fd, DELETE, EVFILT_READ);
		conns[fd].stale = 1;
		close(fd);
		closed++;
		return;
	}
	conns[fd].len = (size_t)n;
	printf("%s: fd %d readable -> read \"%.*s\", now waiting for "
	    "writable\n", tag, fd, (int)n, conns[fd].buf);
	/* Like flipping POLLIN to POLLOUT in the pollfd entry. */
	update_fd(fd, DELETE, EVFILT_READ);
	update_fd(fd, ADD, EVFILT_WRITE);
}

static void
writeable_fd(int fd)
{
	ssize_t n;

	n = write(fd, conns[fd].buf, conns[fd].len);
	if (n < 0) {
		if (errno == EAGAIN || errno == EINTR)
			return;
		fail("write");
	}
	echoed += (size_t)n;
	memmove(conns[fd].buf, conns[fd].buf + n, conns[fd].len - (size_t)n);
	conns[fd].len -= (size_t)n;
	if (conns[fd].len > 0)
		return;		/* stay interested in writability */
	printf("%s: fd %d writable -> echoed %zd bytes, back to reading\n",
	    tag, fd, n);
	update_fd(fd, DELETE, EVFILT_WRITE);
	update_fd(fd, ADD, EVFILT_READ);
}

/* Figure 5: one kevent() call applies the changes and returns events. */
static void
handle_events(void)
{
	struct timespec timeout = { 2, 0 };
	int i, n, submitted, got_event;

	submitted = nchanges;
	n = kevent(kq, ch, nchanges, ev, NEVENTS, &timeout);
	if (n < 0)
		fail("kevent");
	nchanges = 0;		/* the changelist has been consumed */
	ncalls++;
	if (n == 0) {
		fprintf(stderr, "poll-to-kevent: nothing happened for 2 s\n");
		exit(1);
	}
	snprintf(tag, sizeof(tag), "kevent #%d (%d change%s applied)",
	    ncalls, submitted, submitted == 1 ? "" : "s");

	got_event = 0;
	for (i = 0; i < n; i++) {
		int fd = (int)ev[i].ident;

		if (ev[i].flags & EV_ERROR) {
			/* A change failed: data is the errno. */
			int err = (int)ev[i].data;

			if (fd >= 0 && fd < MAXFD && conns[fd].stale &&
			    ev[i].filter == EVFILT_READ &&
			    (err == EBADF || err == ENOENT)) {
				printf("%s: EV_ERROR for the EV_DELETE of fd "
				    "%d: %s (close() had removed it)\n",
				    tag, fd, strerror(err));
				conns[fd].stale = 0;
				stale_errors++;
			} else {
				fprintf(stderr, "poll-to-kevent: unexpected "
				    "EV_ERROR: fd %d filter %d: %s\n", fd,
				    ev[i].filter, strerror(err));
				failures++;
			}
			continue;
		}
		got_event = 1;
		if (ncalls == 1 && fd == listen_fd &&
		    ev[i].filter == EVFILT_READ)
			first_call_ok = 1;
		if (ev[i].filter == EVFILT_READ)
			readable_fd(fd);
		if (ev[i].filter == EVFILT_WRITE)
			writeable_fd(fd);
	}
	if (submitted > 0 && got_event)
		ncalls_both++;
}

/* The client: NCLIENTS connections at once, each sends a line and
 * expects it back unchanged.  Runs in a child process. */
static int
client(const struct sockaddr_in *sin)
{
	char msg[NCLIENTS][32], buf[32];
	int s[NCLIENTS], i;
	size_t len, got;
	ssize_t n;

	for (i = 0; i < NCLIENTS; i++) {
		s[i] = socket(AF_INET, SOCK_STREAM, 0);
		if (s[i] < 0 || connect(s[i], (const struct sockaddr *)sin,
		    sizeof(*sin)) != 0)
			return 1;
	}
	for (i = 0; i < NCLIENTS; i++) {
		snprintf(msg[i], sizeof(msg[i]), "hello from client %d", i + 1);
		len = strlen(msg[i]);
		if (write(s[i], msg[i], len) != (ssize_t)len)
			return 1;
	}
	for (i = 0; i < NCLIENTS; i++) {
		len = strlen(msg[i]);
		for (got = 0; got < len; got += (size_t)n) {
			n = read(s[i], buf + got, len - got);
			if (n <= 0)
				return 1;
		}
		if (memcmp(buf, msg[i], len) != 0) {
			fprintf(stderr, "client %d: echo mismatch\n", i + 1);
			return 1;
		}
	}
	for (i = 0; i < NCLIENTS; i++)
		close(s[i]);
	return 0;
}

int
main(void)
{
	struct sockaddr_in sin;
	socklen_t slen;
	size_t expect_echoed;
	pid_t pid;
	int status, i, ok;

	signal(SIGPIPE, SIG_IGN);
	alarm(30);		/* never hang a test run */

	listen_fd = socket(AF_INET, SOCK_STREAM, 0);
	if (listen_fd < 0) {
		fprintf(stderr, "SKIP: no IPv4 sockets: %s\n", strerror(errno));
		return 77;
	}
	memset(&sin, 0, sizeof(sin));
	sin.sin_family = AF_INET;
	sin.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	sin.sin_port = 0;		/* any free port */
	if (bind(listen_fd, (struct sockaddr *)&sin, sizeof(sin)) != 0 ||
	    listen(listen_fd, 16) != 0) {
		fprintf(stderr, "SKIP: cannot listen on 127.0.0.1: %s\n",
		    strerror(errno));
		return 77;
	}
	slen = sizeof(sin);
	if (getsockname(listen_fd, (struct sockaddr *)&sin, &slen) != 0)
		fail("getsockname");
	fcntl(listen_fd, F_SETFL, fcntl(listen_fd, F_GETFL) | O_NONBLOCK);

	/* The client is forked before kqueue(): a kqueue is not inherited. */
	fflush(stdout);
	pid = fork();
	if (pid < 0)
		fail("fork");
	if (pid == 0) {
		close(listen_fd);
		_exit(client(&sin));
	}

	kq = kqueue();
	if (kq < 0)
		fail("kqueue");
	printf("echo server on 127.0.0.1:%d (listener fd %d, kqueue fd %d)\n",
	    ntohs(sin.sin_port), listen_fd, kq);

	update_fd(listen_fd, ADD, EVFILT_READ);
	/* Run until every client has gone and no change is pending. */
	while (closed < NCLIENTS || nchanges > 0)
		handle_events();

	if (waitpid(pid, &status, 0) != pid)
		fail("waitpid");

	expect_echoed = 0;
	for (i = 0; i < NCLIENTS; i++) {
		char m[32];
		expect_echoed += (size_t)snprintf(m, sizeof(m),
		    "hello from client %d", i + 1);
	}

	ok = 1;
	if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) {
		fprintf(stderr, "FAIL: the client did not get its echoes\n");
		ok = 0;
	}
	if (!first_call_ok) {
		fprintf(stderr, "FAIL: the first kevent() did not both apply "
		    "the listener's EV_ADD and return its event\n");
		ok = 0;
	}
	if (accepted != NCLIENTS || closed != NCLIENTS ||
	    echoed != expect_echoed) {
		fprintf(stderr, "FAIL: accepted %d, closed %d, echoed %zu "
		    "bytes; expected %d, %d, %zu\n", accepted, closed, echoed,
		    NCLIENTS, NCLIENTS, expect_echoed);
		ok = 0;
	}
	if (stale_errors != NCLIENTS || failures != 0) {
		fprintf(stderr, "FAIL: %d stale EV_DELETEs reported as "
		    "EV_ERROR (expected %d), %d unexpected errors\n",
		    stale_errors, NCLIENTS, failures);
		ok = 0;
	}
	if (!ok)
		return 1;
	printf("ok: %d clients echoed in %d kevent() calls; %d of them "
	    "applied changes and returned events in the same call\n",
	    NCLIENTS, ncalls, ncalls_both);
	close(kq);
	close(listen_fd);
	return 0;
}
