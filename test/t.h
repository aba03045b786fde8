/*
 * Shared helpers for libkq's test programs.  A test is one program that
 * checks one behaviour: exit 0 = pass, 1 = fail, 77 = skip (say why).
 *
 * Records are compared field by field with what FreeBSD returns:
 * ident, filter, flags, fflags, data, udata.
 */
#ifndef KQ_TEST_T_H
#define KQ_TEST_T_H

#include <sys/event.h>

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
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

static inline void t_sleep_ms(long ms)
{
	struct timespec ts = { ms / 1000, (ms % 1000) * 1000000L };
	while (nanosleep(&ts, &ts) != 0 && errno == EINTR)
		;
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

#endif /* KQ_TEST_T_H */
