/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * ngx-load: the client of nginx.sh.  Plain blocking sockets, one thread per
 * client, nothing of libkq's: every reply nginx (on kqueue) sends is checked
 * byte for byte against the file it serves.
 *
 *   ngx-load port              prints a free TCP port on 127.0.0.1
 *   ngx-load run PORT DOCROOT  the load below; exit 0 iff every reply was
 *                              right (failures are printed, the first few)
 *   ngx-load probe PORT DOCROOT  one request for each file; exit 0 iff right
 *
 * The clients (the locations are nginx.sh's):
 *   keepalive   HTTP/1.1 on one connection, 1 or 4 requests in flight,
 *               small and large files, served directly (/), through a
 *               keepalive upstream (/p/), through a new upstream connection
 *               per request, unbuffered (/np/), and by a thread pool
 *               (/aio/: nginx's threads report back with EVFILT_USER);
 *   refused     /bad/ proxies to a port nothing listens on: 502 each time;
 *   slow        a small receive buffer, read slowly, of a rate-limited
 *               reply (/slow/: nginx's timers and write events);
 *   abort       a rate-limited reply abandoned after its first bytes, the
 *               connection reset (nginx must notice and go on);
 *   churn       HTTP/1.0, one request per connection.
 */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/time.h>
#include <unistd.h>

static int port;
static char *small, *large;
static size_t nsmall, nlarge;
static atomic_int failures, replies;

static void fail(const char *fmt, ...)
{
	if (atomic_fetch_add(&failures, 1) >= 10)
		return;
	va_list ap;
	va_start(ap, fmt);
	fprintf(stderr, "ngx-load: ");
	vfprintf(stderr, fmt, ap);
	fprintf(stderr, "\n");
	va_end(ap);
}

static char *slurp(const char *dir, const char *name, size_t *n)
{
	char path[4096];
	snprintf(path, sizeof path, "%s/%s", dir, name);
	FILE *f = fopen(path, "rb");
	struct stat st;
	if (!f || fstat(fileno(f), &st) != 0) {
		perror(path);
		exit(2);
	}
	char *p = malloc((size_t)st.st_size + 1);
	if (!p || fread(p, 1, (size_t)st.st_size, f) != (size_t)st.st_size) {
		perror(path);
		exit(2);
	}
	fclose(f);
	*n = (size_t)st.st_size;
	return p;
}

static int dial(int rcvbuf)
{
	int s = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (s < 0)
		return -1;
	struct timeval tv = { 30, 0 };
	setsockopt(s, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof tv);
	setsockopt(s, SOL_SOCKET, SO_SNDTIMEO, &tv, sizeof tv);
	if (rcvbuf)
		setsockopt(s, SOL_SOCKET, SO_RCVBUF, &rcvbuf, sizeof rcvbuf);
	struct sockaddr_in a = { .sin_family = AF_INET, .sin_port = htons((uint16_t)port) };
	a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	if (connect(s, (struct sockaddr *)&a, sizeof a) != 0) {
		close(s);
		return -1;
	}
	return s;
}

static int send_all(int s, const char *p, size_t n)
{
	while (n) {
		ssize_t w = send(s, p, n, MSG_NOSIGNAL);
		if (w <= 0)
			return -1;
		p += w;
		n -= (size_t)w;
	}
	return 0;
}

/* A connection's unread bytes. */
struct conn {
	int    s;
	char  *buf;
	size_t len, cap;
};

/* Reads more; 0 at EOF, -1 on error.  `pause_us` slows a slow reader. */
static ssize_t fill(struct conn *c, size_t chunk, unsigned pause_us)
{
	if (c->cap - c->len < chunk) {
		c->cap = c->len + chunk + 65536;
		c->buf = realloc(c->buf, c->cap);
		if (!c->buf)
			abort();
	}
	if (pause_us)
		usleep(pause_us);
	ssize_t r = recv(c->s, c->buf + c->len, chunk, 0);
	if (r > 0)
		c->len += (size_t)r;
	return r;
}

static void consume(struct conn *c, size_t n)
{
	memmove(c->buf, c->buf + n, c->len - n);
	c->len -= n;
}

/* One reply: its status, and its body (Content-Length, or to EOF when
 * to_eof) compared with want (NULL: not compared).  0 or -1 (printed). */
static int reply(struct conn *c, int status, const char *want, size_t nwant, bool to_eof,
		 unsigned pause_us, const char *what)
{
	char *end;
	while (!(end = memmem(c->buf, c->len, "\r\n\r\n", 4))) {
		if (fill(c, 16384, 0) <= 0) {
			fail("%s: connection ended in a reply's header (%s)", what, strerror(errno));
			return -1;
		}
	}
	size_t hlen = (size_t)(end - c->buf) + 4;
	int code = 0;
	long long clen = -1;
	c->buf[hlen - 1] = 0;
	sscanf(c->buf, "HTTP/1.%*d %d", &code);
	char *h = strcasestr(c->buf, "\r\ncontent-length:");
	if (h)
		clen = atoll(h + 17);
	if (strcasestr(c->buf, "\r\ntransfer-encoding:")) {
		fail("%s: a chunked reply, not expected here", what);
		return -1;
	}
	consume(c, hlen);
	if (code != status) {
		fail("%s: status %d, expected %d", what, code, status);
		return -1;
	}
	if (clen < 0 && !to_eof) {
		fail("%s: no Content-Length", what);
		return -1;
	}
	size_t chunk = pause_us ? 2048 : 262144;
	while (clen >= 0 ? c->len < (size_t)clen : true) {
		ssize_t r = fill(c, chunk, pause_us);
		if (r == 0 && clen < 0)
			break;
		if (r <= 0) {
			fail("%s: connection ended in a body (%zu of %lld bytes; %s)", what,
			     c->len, clen, r ? strerror(errno) : "EOF");
			return -1;
		}
	}
	size_t blen = clen >= 0 ? (size_t)clen : c->len;
	if (want && (blen != nwant || memcmp(c->buf, want, nwant) != 0)) {
		fail("%s: the body differs from the file (%zu bytes, expected %zu)", what, blen, nwant);
		return -1;
	}
	consume(c, blen);
	atomic_fetch_add(&replies, 1);
	return 0;
}

struct job {
	void      (*fn)(struct job *);
	const char *prefix;
	int         n, depth;
};

static void keepalive(struct job *j)
{
	struct conn c = { .s = dial(0) };
	if (c.s < 0) {
		fail("keepalive %s: connect: %s", j->prefix, strerror(errno));
		return;
	}
	for (int i = 0; i < j->n; i += j->depth) {
		char req[4096];
		size_t len = 0;
		int k = j->n - i < j->depth ? j->n - i : j->depth;
		for (int q = 0; q < k; q++)
			len += (size_t)snprintf(req + len, sizeof req - len,
				"GET /%s%s HTTP/1.1\r\nHost: t\r\n\r\n", j->prefix,
				(i + q) % 3 ? "small.txt" : "large.txt");
		if (send_all(c.s, req, len) != 0) {
			fail("keepalive %s: send: %s", j->prefix, strerror(errno));
			break;
		}
		bool bad = false;
		for (int q = 0; q < k && !bad; q++) {
			bool sm = (i + q) % 3 != 0;
			bad = reply(&c, 200, sm ? small : large, sm ? nsmall : nlarge, false, 0,
				    j->prefix[0] ? j->prefix : "/") != 0;
		}
		if (bad)
			break;
	}
	close(c.s);
	free(c.buf);
}

static void refused(struct job *j)
{
	struct conn c = { .s = dial(0) };
	if (c.s < 0) {
		fail("refused: connect: %s", strerror(errno));
		return;
	}
	static const char req[] = "GET /bad/small.txt HTTP/1.1\r\nHost: t\r\n\r\n";
	for (int i = 0; i < j->n; i++)
		if (send_all(c.s, req, sizeof req - 1) != 0 ||
		    reply(&c, 502, NULL, 0, false, 0, "refused upstream") != 0)
			break;
	close(c.s);
	free(c.buf);
}

static void slow(struct job *j)
{
	for (int i = 0; i < j->n; i++) {
		struct conn c = { .s = dial(4096) };
		static const char req[] = "GET /slow/large.txt HTTP/1.0\r\n\r\n";
		if (c.s < 0 || send_all(c.s, req, sizeof req - 1) != 0) {
			fail("slow: %s", strerror(errno));
		} else {
			reply(&c, 200, large, nlarge, true, 200, "slow reader");
		}
		if (c.s >= 0)
			close(c.s);
		free(c.buf);
	}
}

static void abandon(struct job *j)
{
	for (int i = 0; i < j->n; i++) {
		int s = dial(4096);
		static const char req[] = "GET /slow/large.txt HTTP/1.1\r\nHost: t\r\n\r\n";
		char b[1024];
		if (s < 0 || send_all(s, req, sizeof req - 1) != 0 || recv(s, b, sizeof b, 0) <= 0) {
			fail("abort: %s", strerror(errno));
		} else {
			struct linger lg = { 1, 0 };   /* close with a reset */
			setsockopt(s, SOL_SOCKET, SO_LINGER, &lg, sizeof lg);
			atomic_fetch_add(&replies, 1);
		}
		if (s >= 0)
			close(s);
	}
}

static void churn(struct job *j)
{
	for (int i = 0; i < j->n; i++) {
		struct conn c = { .s = dial(0) };
		static const char req[] = "GET /small.txt HTTP/1.0\r\n\r\n";
		if (c.s < 0 || send_all(c.s, req, sizeof req - 1) != 0)
			fail("churn: %s", strerror(errno));
		else
			reply(&c, 200, small, nsmall, true, 0, "churn");
		if (c.s >= 0)
			close(c.s);
		free(c.buf);
	}
}

static void *run(void *p)
{
	struct job *j = p;
	j->fn(j);
	return NULL;
}

static int free_port(void)
{
	int s = socket(AF_INET, SOCK_STREAM, 0);
	struct sockaddr_in a = { .sin_family = AF_INET };
	socklen_t al = sizeof a;
	a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	if (s < 0 || bind(s, (struct sockaddr *)&a, sizeof a) != 0 ||
	    getsockname(s, (struct sockaddr *)&a, &al) != 0)
		return -1;
	close(s);
	return ntohs(a.sin_port);
}

int main(int argc, char **argv)
{
	if (argc == 2 && !strcmp(argv[1], "port")) {
		int p = free_port();
		if (p < 0)
			return 1;
		printf("%d\n", p);
		return 0;
	}
	if (argc != 4 || (strcmp(argv[1], "run") != 0 && strcmp(argv[1], "probe") != 0)) {
		fprintf(stderr, "usage: ngx-load port | ngx-load run|probe PORT DOCROOT\n");
		return 2;
	}
	port = atoi(argv[2]);
	small = slurp(argv[3], "small.txt", &nsmall);
	large = slurp(argv[3], "large.txt", &nlarge);
	if (!strcmp(argv[1], "probe")) {
		struct job j = { keepalive, "", 2, 2 };
		keepalive(&j);
		return atomic_load(&failures) || atomic_load(&replies) != 2;
	}

	static const char *const prefixes[] = { "", "p/", "np/", "aio/" };
	struct job jobs[64];
	int n = 0;
	for (int i = 0; i < 24; i++)
		jobs[n++] = (struct job){ keepalive, prefixes[i % 4], 60, i % 2 ? 1 : 4 };
	for (int i = 0; i < 4; i++) {
		jobs[n++] = (struct job){ refused, "", 40, 1 };
		jobs[n++] = (struct job){ slow, "", 2, 1 };
		jobs[n++] = (struct job){ abandon, "", 20, 1 };
		jobs[n++] = (struct job){ churn, "", 100, 1 };
	}
	pthread_t th[64];
	for (int i = 0; i < n; i++)
		if (pthread_create(&th[i], NULL, run, &jobs[i]) != 0) {
			perror("pthread_create");
			return 2;
		}
	for (int i = 0; i < n; i++)
		pthread_join(th[i], NULL);
	printf("ngx-load: %d replies checked, %d failures\n", atomic_load(&replies),
	       atomic_load(&failures));
	return atomic_load(&failures) ? 1 : 0;
}
