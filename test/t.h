/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * Shared helpers for libkq's test programs.  A test is one program that
 * checks one behaviour: exit 0 = pass, 1 = fail, 77 = skip (say why).
 *
 * Records are compared field by field with what FreeBSD returns:
 * ident, filter, flags, fflags, data, udata.
 */
#ifndef KQ_TEST_T_H
#define KQ_TEST_T_H

#ifndef _GNU_SOURCE
#define _GNU_SOURCE   /* posix_openpt() and friends */
#endif

#include <sys/event.h>
#include <sys/syscall.h>

#include <arpa/inet.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <netinet/in.h>
#include <pthread.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <time.h>
#include <unistd.h>

#define T_FAIL(...) do {                                                   \
	fprintf(stderr, "FAIL %s:%d: ", __FILE__, __LINE__);               \
	fprintf(stderr, __VA_ARGS__);                                      \
	fprintf(stderr, "\n");                                             \
	exit(1);                                                           \
} while (0)

#define T_SKIP(...) do {                                                   \
	fprintf(stderr, "SKIP: ");                                         \
	fprintf(stderr, __VA_ARGS__);                                      \
	fprintf(stderr, "\n");                                             \
	exit(77);                                                          \
} while (0)

#define T_ASSERT(cond) do {                                                \
	if (!(cond))                                                       \
		T_FAIL("assertion failed: %s (errno %d: %s)", #cond,       \
		       errno, strerror(errno));                            \
} while (0)

/* Asserts a call returning -1/errno failed with exactly the given errno. */
#define T_ERRNO(call, err) do {                                            \
	errno = 0;                                                         \
	long t_r_ = (long)(call);                                          \
	if (t_r_ != -1 || errno != (err))                                  \
		T_FAIL("%s: expected -1/%s, got %ld/errno %d (%s)", #call, \
		       #err, t_r_, errno, strerror(errno));                \
} while (0)

#define T_EQ(a, b) do {                                                    \
	long long t_a_ = (long long)(a), t_b_ = (long long)(b);            \
	if (t_a_ != t_b_)                                                  \
		T_FAIL("%s == %lld, expected %s == %lld", #a, t_a_, #b,    \
		       t_b_);                                              \
} while (0)

static inline const char *t_filter_name(short f)
{
	static const char *names[] = { "?", "READ", "WRITE", "AIO", "VNODE",
		"PROC", "SIGNAL", "TIMER", "PROCDESC", "FS", "LIO", "USER",
		"SENDFILE", "EMPTY" };
	return (f < 0 && -f <= 13) ? names[-f] : "?";
}

static inline void t_print_kevent(const char *what, const struct kevent *e)
{
	fprintf(stderr, "%s {ident=%" PRIuPTR ", filter=%s(%d), flags=0x%x, "
		"fflags=0x%x, data=%" PRId64 ", udata=%p}\n", what, e->ident,
		t_filter_name(e->filter), e->filter, e->flags, e->fflags,
		e->data, e->udata);
}

/* Compares every field FreeBSD returns; fails the test on any difference. */
#define T_KEVENT(ev, id, filt, fl, ffl, dat, ud)                           \
	t_kevent_check(__FILE__, __LINE__, (ev), (uintptr_t)(id), (filt),  \
		       (fl), (ffl), (dat), (void *)(ud))

static inline void t_kevent_check(const char *file, int line,
	const struct kevent *e, uintptr_t ident, short filter,
	unsigned short flags, unsigned int fflags, int64_t data, void *udata)
{
	if (e->ident == ident && e->filter == filter && e->flags == flags &&
	    e->fflags == fflags && e->data == data && e->udata == udata)
		return;
	struct kevent want;
	EV_SET(&want, ident, filter, flags, fflags, data, udata);
	fprintf(stderr, "FAIL %s:%d: record mismatch\n", file, line);
	t_print_kevent("  got ", e);
	t_print_kevent("  want", &want);
	exit(1);
}

/* Like T_KEVENT, but data need only be >= min (free space, bytes readable). */
#define T_KEVENT_MIN(ev, id, filt, fl, ffl, min, ud)                       \
	t_kevent_min_check(__FILE__, __LINE__, (ev), (uintptr_t)(id),      \
			   (filt), (fl), (ffl), (min), (void *)(ud))

static inline void t_kevent_min_check(const char *file, int line,
	const struct kevent *e, uintptr_t ident, short filter,
	unsigned short flags, unsigned int fflags, int64_t min, void *udata)
{
	if (e->ident == ident && e->filter == filter && e->flags == flags &&
	    e->fflags == fflags && e->data >= min && e->udata == udata)
		return;
	struct kevent want;
	EV_SET(&want, ident, filter, flags, fflags, min, udata);
	fprintf(stderr, "FAIL %s:%d: record mismatch (data >= %" PRId64
		" wanted)\n", file, line, min);
	t_print_kevent("  got ", e);
	t_print_kevent("  want", &want);
	exit(1);
}

/* Returns 1 if *e still holds the 0xa5 fill (kevent() did not write it). */
static inline int t_untouched(const struct kevent *e)
{
	const unsigned char *b = (const unsigned char *)e;
	for (size_t i = 0; i < sizeof *e; i++)
		if (b[i] != 0xa5)
			return 0;
	return 1;
}

static inline int t_kqueue(void)
{
	int kq = kqueue();
	if (kq < 0)
		T_FAIL("kqueue(): %s", strerror(errno));
	return kq;
}

/* Applies one change that must succeed (no record, no error). */
static inline void t_change(int kq, uintptr_t ident, short filter,
	unsigned short flags, unsigned int fflags, int64_t data, void *udata)
{
	struct kevent ch;
	EV_SET(&ch, ident, filter, flags, fflags, data, udata);
	if (kevent(kq, &ch, 1, NULL, 0, NULL) != 0)
		T_FAIL("change {ident=%" PRIuPTR ", filter=%d, flags=0x%x} "
		       "failed: %s", ident, filter, flags, strerror(errno));
}

/* Applies one change and returns 0 or the errno it failed with, read from
 * an EV_ERROR record (nevents = 1, so the record path is exercised). */
static inline int t_change_err(int kq, uintptr_t ident, short filter,
	unsigned short flags, unsigned int fflags, int64_t data, void *udata)
{
	struct kevent ch, ev;
	struct timespec z = { 0, 0 };
	EV_SET(&ch, ident, filter, flags, fflags, data, udata);
	memset(&ev, 0xa5, sizeof ev);
	int n = kevent(kq, &ch, 1, &ev, 1, &z);
	if (n < 0)
		T_FAIL("kevent() itself failed: %s", strerror(errno));
	if (n == 0)
		return 0;
	if (!(ev.flags & EV_ERROR))
		return 0;   /* an event, not an error record */
	if (ev.ident != ident || ev.filter != filter)
		T_FAIL("error record does not echo the change");
	return (int)ev.data;
}

/* Checks one change fails with err: a lone echoing EV_ERROR record, -1/err. */
static inline void t_change_fails(int kq, uintptr_t ident, short filter,
	unsigned short flags, void *udata, int err)
{
	struct kevent ch, ev[2];
	struct timespec z = { 0, 0 };

	EV_SET(&ch, ident, filter, flags, 0, 0, udata);
	memset(ev, 0xa5, sizeof ev);
	int n = kevent(kq, &ch, 1, ev, 2, &z);
	if (n != 1)
		T_FAIL("change {ident=%" PRIuPTR ", filter=%d, flags=0x%x}: "
		       "kevent returned %d (errno %d), expected one error "
		       "record", ident, filter, flags, n, errno);
	T_KEVENT(&ev[0], ident, filter, EV_ERROR, 0, err, udata);
	errno = 0;
	n = kevent(kq, &ch, 1, NULL, 0, NULL);
	if (n != -1 || errno != err)
		T_FAIL("change {ident=%" PRIuPTR ", filter=%d, flags=0x%x} "
		       "without event list: got %d/errno %d (%s), expected "
		       "-1/%d (%s)", ident, filter, flags, n, errno,
		       strerror(errno), err, strerror(err));
}

/* One kevent() call with the one change *ch, collecting up to n records
 * into the array ev (all of it first filled with 0xa5, for t_untouched())
 * without waiting; gives kevent()'s result. */
#define t_kevent1(kq, ch, ev, n)                                           \
	(memset((ev), 0xa5, sizeof (ev)),                                  \
	 kevent((kq), (ch), 1, (ev), (n), &(struct timespec){ 0, 0 }))

/* A close libkq cannot see, as libuv makes every close. */
static inline void t_raw_close(int fd)
{
	if (syscall(SYS_close, fd) != 0)
		T_FAIL("syscall(SYS_close, %d): %s", fd, strerror(errno));
}

/* Collects up to n records, zero timeout. */
static inline int t_get(int kq, struct kevent *ev, int n)
{
	struct timespec z = { 0, 0 };
	int r = kevent(kq, NULL, 0, ev, n, &z);
	if (r < 0)
		T_FAIL("kevent(get): %s", strerror(errno));
	return r;
}

/* Collects up to n records, waiting at most ms milliseconds (-1: forever). */
static inline int t_wait(int kq, struct kevent *ev, int n, long ms)
{
	struct timespec ts = { ms / 1000, (ms % 1000) * 1000000L };
	int r = kevent(kq, NULL, 0, ev, n, ms < 0 ? NULL : &ts);
	if (r < 0)
		T_FAIL("kevent(wait): %s", strerror(errno));
	return r;
}

/* Collects (room for 8 records; waiting at most ms milliseconds, 0: not at
 * all) exactly one record, equal in every field to the given one. */
#define T_WAIT1(kq, ms, id, filt, fl, ffl, dat, ud)                        \
	t_one_check(__FILE__, __LINE__, (kq), (ms), (uintptr_t)(id),       \
		    (filt), (fl), (ffl), (dat), (void *)(ud))

/* The same without waiting. */
#define T_GET1(kq, id, filt, fl, ffl, dat, ud)                             \
	T_WAIT1((kq), 0, (id), (filt), (fl), (ffl), (dat), (ud))

static inline void t_one_check(const char *file, int line, int kq, long ms,
	uintptr_t ident, short filter, unsigned short flags,
	unsigned int fflags, int64_t data, void *udata)
{
	struct kevent ev[8];
	int n = t_wait(kq, ev, 8, ms);

	if (n != 1) {
		for (int i = 0; i < n; i++)
			t_print_kevent("  got", &ev[i]);
		fprintf(stderr, "FAIL %s:%d: %d records, expected one\n", file,
			line, n);
		exit(1);
	}
	t_kevent_check(file, line, &ev[0], ident, filter, flags, fflags, data,
		       udata);
}

/* Fails unless a zero-timeout collection returns nothing. */
#define T_NO_EVENTS(kq) do {                                               \
	struct kevent t_ev_[8];                                            \
	int t_n_ = t_get((kq), t_ev_, 8);                                  \
	if (t_n_ != 0) {                                                   \
		for (int t_i_ = 0; t_i_ < t_n_; t_i_++)                    \
			t_print_kevent("  unexpected", &t_ev_[t_i_]);      \
		T_FAIL("expected no events, got %d", t_n_);                \
	}                                                                  \
} while (0)

static inline int64_t t_now_ns(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

/* A wait of ms milliseconds on kq that must return no record, last (at
 * least) most of that time, and sleep: a spinning wait would use about as
 * much CPU as time; a sleeping one microseconds (a quarter is allowed, for
 * loaded machines). */
static inline void t_wait_nothing_asleep(int kq, long ms)
{
	struct kevent ev[4];
	struct rusage r0, r1;
	getrusage(RUSAGE_SELF, &r0);
	int64_t w0 = t_now_ns();
	int n = t_wait(kq, ev, 4, ms);
	int64_t wall = t_now_ns() - w0;
	getrusage(RUSAGE_SELF, &r1);
	int64_t cpu = ((int64_t)(r1.ru_utime.tv_sec + r1.ru_stime.tv_sec) -
		       (int64_t)(r0.ru_utime.tv_sec + r0.ru_stime.tv_sec)) * 1000000000 +
		      ((int64_t)(r1.ru_utime.tv_usec + r1.ru_stime.tv_usec) -
		       (int64_t)(r0.ru_utime.tv_usec + r0.ru_stime.tv_usec)) * 1000;
	for (int i = 0; i < n; i++)
		t_print_kevent("  unexpected", &ev[i]);
	if (n != 0)
		T_FAIL("expected no records in %ld ms, got %d", ms, n);
	if (wall < ms * 1000000 * 5 / 6)
		T_FAIL("kevent() returned after %lld ms of a %ld ms wait",
		       (long long)(wall / 1000000), ms);
	if (cpu > wall / 4)
		T_FAIL("kevent() used %lld ms of CPU in a %lld ms wait",
		       (long long)(cpu / 1000000), (long long)(wall / 1000000));
}

static inline void t_sleep_ms(long ms)
{
	struct timespec ts = { ms / 1000, (ms % 1000) * 1000000L };
	while (nanosleep(&ts, &ts) != 0 && errno == EINTR)
		;
}

/* Raises RLIMIT_NOFILE's soft limit to the hard one (as far as allowed)
 * and returns the soft limit then in force. */
static inline rlim_t t_nofile_raise(void)
{
	struct rlimit rl;
	T_ASSERT(getrlimit(RLIMIT_NOFILE, &rl) == 0);
	if (rl.rlim_cur < rl.rlim_max) {
		rl.rlim_cur = rl.rlim_max;
		(void)setrlimit(RLIMIT_NOFILE, &rl);
		T_ASSERT(getrlimit(RLIMIT_NOFILE, &rl) == 0);
	}
	return rl.rlim_cur;
}

/* How many pipes (two descriptors each) fit under RLIMIT_NOFILE, up to
 * `want`, leaving `slack` numbers free; the soft limit is raised to the
 * hard one first.  Skips the test below `min`. */
static inline long t_pipes_fit(long want, long slack, long min)
{
	rlim_t lim = t_nofile_raise();
	long n = want;
	if (lim != RLIM_INFINITY && (long)lim < 2 * n + slack)
		n = ((long)lim - slack) / 2;
	if (n < min)
		T_SKIP("RLIMIT_NOFILE %ld too small for %ld pipes", (long)lim, min);
	return n;
}

static inline void t_socketpair(int sp[2])
{
	if (socketpair(AF_UNIX, SOCK_STREAM, 0, sp) != 0)
		T_FAIL("socketpair: %s", strerror(errno));
}

static inline void t_pipe(int p[2])
{
	if (pipe(p) != 0)
		T_FAIL("pipe: %s", strerror(errno));
}

static inline void t_write(int fd, const void *buf, size_t n)
{
	if (write(fd, buf, n) != (ssize_t)n)
		T_FAIL("write(%d, %zu): %s", fd, n, strerror(errno));
}

/* Adds v to an eventfd's counter. */
static inline void t_eventfd_add(int fd, uint64_t v)
{
	t_write(fd, &v, sizeof v);
}

/* Waits (at most 2 s) until n bytes are buffered for reading on fd. */
static inline void t_wait_inq(int fd, int n)
{
	int64_t deadline = t_now_ns() + 2000000000LL;
	int v = 0;

	for (;;) {
		if (ioctl(fd, FIONREAD, &v) != 0)
			T_FAIL("ioctl(%d, FIONREAD): %s", fd, strerror(errno));
		if (v >= n)
			return;
		if (t_now_ns() > deadline)
			T_FAIL("only %d of %d bytes arrived", v, n);
		t_sleep_ms(1);
	}
}

/* Sets *sin to 127.0.0.1, port 0 (any free port). */
static inline void t_loopback(struct sockaddr_in *sin)
{
	memset(sin, 0, sizeof *sin);
	sin->sin_family = AF_INET;
	sin->sin_addr.s_addr = htonl(INADDR_LOOPBACK);
}

/* The socket's SO_SNDBUF (what a died TCP connection's WRITE data is). */
static inline int64_t t_sndbuf(int s)
{
	int v = 0;
	socklen_t len = sizeof v;
	T_ASSERT(getsockopt(s, SOL_SOCKET, SO_SNDBUF, &v, &len) == 0);
	return v;
}

/* AF_INET socket on a free 127.0.0.1 port (*sin); listening if backlog > 0. */
static inline int t_inet_socket(int type, int backlog, struct sockaddr_in *sin)
{
	socklen_t len = sizeof *sin;
	int s = socket(AF_INET, type, 0);

	if (s < 0)
		T_FAIL("socket(AF_INET, %d): %s", type, strerror(errno));
	t_loopback(sin);
	if (bind(s, (struct sockaddr *)sin, sizeof *sin) != 0)
		T_FAIL("bind(127.0.0.1:0): %s", strerror(errno));
	if (backlog > 0 && listen(s, backlog) != 0)
		T_FAIL("listen(%d): %s", backlog, strerror(errno));
	if (getsockname(s, (struct sockaddr *)sin, &len) != 0)
		T_FAIL("getsockname: %s", strerror(errno));
	return s;
}

/* A non-blocking TCP socket whose connect() to *dead (a bound socket that
 * never listens) is in progress and will be refused; skips the test if
 * the refusal comes at once. */
static inline int t_refused_connect(const struct sockaddr_in *dead)
{
	int s = socket(AF_INET, SOCK_STREAM | SOCK_NONBLOCK, 0);
	if (s < 0)
		T_FAIL("socket: %s", strerror(errno));
	if (connect(s, (const struct sockaddr *)dead, sizeof *dead) == 0 || errno != EINPROGRESS) {
		if (errno == ECONNREFUSED)
			T_SKIP("connect() to 127.0.0.1 refused at once");
		T_FAIL("connect: %s", strerror(errno));
	}
	return s;
}

/* Connected TCP pair over 127.0.0.1: *client connect()ed, *server accepted. */
static inline void t_tcp_pair(int *client, int *server)
{
	struct sockaddr_in sin;
	int l = t_inet_socket(SOCK_STREAM, 4, &sin);

	*client = socket(AF_INET, SOCK_STREAM, 0);
	if (*client < 0)
		T_FAIL("socket(AF_INET, SOCK_STREAM): %s", strerror(errno));
	if (connect(*client, (struct sockaddr *)&sin, sizeof sin) != 0)
		T_FAIL("connect(127.0.0.1:%u): %s", ntohs(sin.sin_port),
		       strerror(errno));
	*server = accept(l, NULL, NULL);
	if (*server < 0)
		T_FAIL("accept: %s", strerror(errno));
	if (close(l) != 0)
		T_FAIL("close(listener): %s", strerror(errno));
}

/* Control space for one descriptor passed in SCM_RIGHTS. */
union t_rights {
	char space[CMSG_SPACE(sizeof(int))];
	struct cmsghdr align;
};

/* Sets *msg to carry the one buffer *iov with the control space *ctl: for
 * sendmsg() passing fd in SCM_RIGHTS, or with fd < 0 for recvmsg() to take
 * one descriptor (t_rights_fd()). */
static inline void t_rights_msg(struct msghdr *msg, struct iovec *iov,
				union t_rights *ctl, int fd)
{
	memset(ctl, 0, sizeof *ctl);
	memset(msg, 0, sizeof *msg);
	msg->msg_iov = iov;
	msg->msg_iovlen = 1;
	msg->msg_control = ctl->space;
	msg->msg_controllen = sizeof ctl->space;
	if (fd < 0)
		return;
	struct cmsghdr *cm = CMSG_FIRSTHDR(msg);
	cm->cmsg_level = SOL_SOCKET;
	cm->cmsg_type = SCM_RIGHTS;
	cm->cmsg_len = CMSG_LEN(sizeof(int));
	memcpy(CMSG_DATA(cm), &fd, sizeof fd);
}

/* The descriptor that recvmsg() took into msg in SCM_RIGHTS, or -1. */
static inline int t_rights_fd(struct msghdr *msg)
{
	struct cmsghdr *cm = CMSG_FIRSTHDR(msg);
	int fd;

	if (cm == NULL || cm->cmsg_type != SCM_RIGHTS)
		return -1;
	memcpy(&fd, CMSG_DATA(cm), sizeof fd);
	return fd;
}

struct t_tmp {
	char dir[64];
	char path[128];
};

static inline struct t_tmp *t_tmp_state(void)
{
	static struct t_tmp tmp;
	return &tmp;
}

static inline void t_tmp_cleanup(void)
{
	struct t_tmp *t = t_tmp_state();
	if (t->path[0])
		unlink(t->path);
	if (t->dir[0])
		rmdir(t->dir);
}

/* Returns <new dir in /tmp>/name, both removed at exit (one per test). */
static inline const char *t_tmp_path(const char *name)
{
	struct t_tmp *t = t_tmp_state();

	if (t->dir[0])
		T_FAIL("t_tmp_path: one temporary path per test");
	strcpy(t->dir, "/tmp/kqtest.XXXXXX");
	if (mkdtemp(t->dir) == NULL) {
		t->dir[0] = 0;
		T_FAIL("mkdtemp: %s", strerror(errno));
	}
	atexit(t_tmp_cleanup);
	snprintf(t->path, sizeof t->path, "%s/%s", t->dir, name);
	return t->path;
}

/* Creates and opens (O_RDWR) an empty t_tmp_path() file; path to *path. */
static inline int t_tmp_file(const char **path)
{
	const char *p = t_tmp_path("file");
	int fd = open(p, O_RDWR | O_CREAT | O_EXCL, 0600);

	if (fd < 0)
		T_FAIL("open(%s): %s", p, strerror(errno));
	if (path != NULL)
		*path = p;
	return fd;
}

/* Creates a FIFO at a t_tmp_path() and returns its path. */
static inline const char *t_tmp_fifo(void)
{
	const char *p = t_tmp_path("fifo");

	if (mkfifo(p, 0600) != 0)
		T_FAIL("mkfifo(%s): %s", p, strerror(errno));
	return p;
}

/* An AF_UNIX stream socket bound to sun (len bytes of it, shown as name in
 * messages) and listening. */
static inline int t_unix_listen_at(const struct sockaddr_un *sun, socklen_t len,
				   const char *name, int backlog)
{
	int l = socket(AF_UNIX, SOCK_STREAM, 0);
	if (l < 0)
		T_FAIL("socket(AF_UNIX, SOCK_STREAM): %s", strerror(errno));
	if (bind(l, (const struct sockaddr *)sun, len) != 0)
		T_FAIL("bind(%s): %s", name, strerror(errno));
	if (listen(l, backlog) != 0)
		T_FAIL("listen(%d): %s", backlog, strerror(errno));
	return l;
}

/* AF_UNIX stream socket listening at a t_tmp_path() (its address: *sun). */
static inline int t_unix_listener(int backlog, struct sockaddr_un *sun)
{
	const char *p = t_tmp_path("sock");

	memset(sun, 0, sizeof *sun);
	sun->sun_family = AF_UNIX;
	if (strlen(p) >= sizeof sun->sun_path)
		T_FAIL("socket path too long: %s", p);
	strcpy(sun->sun_path, p);
	return t_unix_listen_at(sun, sizeof *sun, p, backlog);
}

/* A listening AF_UNIX stream socket at an abstract address (no file, so a
 * test may have any number): the address, unique to this process and n,
 * goes to *sun and its length to *len. */
static inline int t_unix_listener_abstract(int backlog, int n, struct sockaddr_un *sun,
					   socklen_t *len)
{
	memset(sun, 0, sizeof *sun);
	sun->sun_family = AF_UNIX;
	int k = snprintf(sun->sun_path + 1, sizeof sun->sun_path - 1, "kqtest-%d-%d",
			 (int)getpid(), n);
	*len = (socklen_t)(offsetof(struct sockaddr_un, sun_path) + 1 + (size_t)k);
	return t_unix_listen_at(sun, *len, sun->sun_path + 1, backlog);
}

/* Opens a pty pair (O_RDWR | O_NOCTTY); skips the test if ptys fail. */
static inline void t_pty(int *master, int *slave)
{
	*master = posix_openpt(O_RDWR | O_NOCTTY);
	if (*master < 0)
		T_SKIP("posix_openpt: %s", strerror(errno));
	if (grantpt(*master) != 0 || unlockpt(*master) != 0)
		T_SKIP("grantpt/unlockpt: %s", strerror(errno));
	*slave = open(ptsname(*master), O_RDWR | O_NOCTTY);
	if (*slave < 0)
		T_SKIP("open pty slave: %s", strerror(errno));
}

/* Counts the entries of a directory whose names do not start with '.'. */
static inline int t_count_dir(const char *path)
{
	DIR *d = opendir(path);
	struct dirent *e;
	int n = 0;

	if (d == NULL)
		T_FAIL("opendir(%s): %s", path, strerror(errno));
	while ((e = readdir(d)) != NULL)
		if (e->d_name[0] != '.')
			n++;
	closedir(d);
	return n;
}

/* Counts open descriptors in /proc/self/fd, less the one used to read it. */
static inline int t_count_fds(void)
{
	return t_count_dir("/proc/self/fd") - 1;
}

/* Counts the open inotify instances.  libkq keeps up to 4 of them idle
 * after the kqueues that used them are closed, for later kqueues (closing
 * one at once would wait for the kernel), so a test counting what a
 * closed kqueue left behind counts without them (t_count_fds_but_idle),
 * and checks this count is at most 4. */
static inline int t_count_inotify(void)
{
	DIR *d = opendir("/proc/self/fd");
	struct dirent *e;
	int n = 0;

	if (d == NULL)
		T_FAIL("opendir(/proc/self/fd): %s", strerror(errno));
	while ((e = readdir(d)) != NULL) {
		char link[32];
		ssize_t len = readlinkat(dirfd(d), e->d_name, link, sizeof link - 1);
		if (len > 0) {
			link[len] = 0;
			n += strcmp(link, "anon_inode:inotify") == 0;
		}
	}
	closedir(d);
	return n;
}

static inline int t_count_fds_but_idle(void)
{
	return t_count_fds() - t_count_inotify();
}

/* A struct sigaction for the handler fn with the given flags and an empty
 * mask, all else zero. */
static inline struct sigaction t_sigact(void (*fn)(int), int flags)
{
	struct sigaction sa;

	memset(&sa, 0, sizeof sa);
	sa.sa_handler = fn;
	sa.sa_flags = flags;
	sigemptyset(&sa.sa_mask);
	return sa;
}

/* Installs fn as the handler of sig with the given sigaction flags. */
static inline void t_on_signal(int sig, void (*fn)(int), int flags)
{
	struct sigaction sa = t_sigact(fn, flags);

	if (sigaction(sig, &sa, NULL) != 0)
		T_FAIL("sigaction(%d): %s", sig, strerror(errno));
}

struct t_later {
	int fd;
	long ms;
};

static inline void *t_write_later_main(void *arg)
{
	struct t_later later = *(struct t_later *)arg;

	free(arg);
	t_sleep_ms(later.ms);
	t_write(later.fd, "w", 1);
	return NULL;
}

/* Starts fn(arg) in a detached thread with every signal blocked, so that
 * the signals a test sends are taken by the thread it aims them at. */
static inline void t_thread_nosig(void *(*fn)(void *), void *arg)
{
	sigset_t all, old;
	pthread_t th;
	int err;

	sigfillset(&all);
	if ((err = pthread_sigmask(SIG_BLOCK, &all, &old)) != 0)
		T_FAIL("pthread_sigmask: %s", strerror(err));
	if ((err = pthread_create(&th, NULL, fn, arg)) != 0)
		T_FAIL("pthread_create: %s", strerror(err));
	if ((err = pthread_detach(th)) != 0)
		T_FAIL("pthread_detach: %s", strerror(err));
	if ((err = pthread_sigmask(SIG_SETMASK, &old, NULL)) != 0)
		T_FAIL("pthread_sigmask: %s", strerror(err));
}

/* Writes a byte to fd after ms ms from a detached thread taking no signals. */
static inline void t_write_later(int fd, long ms)
{
	struct t_later *later = malloc(sizeof *later);

	if (later == NULL)
		T_FAIL("malloc: %s", strerror(errno));
	later->fd = fd;
	later->ms = ms;
	t_thread_nosig(t_write_later_main, later);
}

struct t_deadline {
	char msg[160];
	size_t len;
};

static inline struct t_deadline *t_deadline_state(void)
{
	static struct t_deadline deadline;
	return &deadline;
}

static inline void t_deadline_fire(int sig)
{
	struct t_deadline *d = t_deadline_state();

	(void)sig;
	if (write(2, d->msg, d->len) < 0) {
		/* nothing more to do */
	}
	_exit(1);
}

/* Fails the test with "FAIL: why" unless alarm(0) comes within sec seconds. */
static inline void t_fail_after(unsigned int sec, const char *why)
{
	struct t_deadline *d = t_deadline_state();
	int n = snprintf(d->msg, sizeof d->msg, "FAIL: %s\n", why);

	if (n < 0 || (size_t)n >= sizeof d->msg)
		T_FAIL("t_fail_after: message too long");
	d->len = (size_t)n;
	t_on_signal(SIGALRM, t_deadline_fire, SA_RESTART);
	alarm(sec);
}

#endif /* KQ_TEST_T_H */
