/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * libc-calls: what each C library function libkq replaces costs per call,
 * against glibc's own function making the same call in the same process.
 *
 * A program linked with -lkq gets libkq's close(), read(), sigaction() ...
 * (src/libc/) for every such call it or any of its libraries makes, whether
 * or not it ever uses a kqueue.  So the figure that matters most is the cost
 * in the state nearly every call is made in: descriptors and signals libkq
 * knows nothing of ("common").  Where libkq has work to do the cost differs
 * and is measured too ("watched": a knote on the descriptor being closed,
 * an EVFILT_SIGNAL knote on the signal).
 *
 * The two contenders, both called through a function pointer so that the
 * calls are made the same way and only the function differs:
 *   libkq   the plain name as this program binds it: it links libkq, whose
 *           names come before the C library's (close@LIBKQ_0);
 *   glibc   dlsym() on the handle of libc.so.6 itself (dlopen RTLD_NOLOAD).
 *           A lookup in a handle searches that object and its dependencies
 *           only, so it never finds libkq, and it gives the default version
 *           of the name: the function a program not linked with libkq
 *           calls.  No version table per architecture, nothing generated at
 *           build time.  Each one is checked: dladdr() must place it in
 *           libc.so.6, and its version is found among the versions libc.so.6
 *           defines (DT_VERDEF) as the one at which dlvsym() returns the same
 *           address; it is printed (glibc_fn=close@GLIBC_2.2.5).
 * A function that is the same both ways (libkq built with
 * KQ_LIBC_REPLACEMENTS=OFF; posix_spawn in a program linked with libkq.a)
 * is left out and said so.
 *
 * Method (bench.h): blocks, the contender going first alternating from
 * block to block; in a block each contender runs R rounds of the case; a
 * round prepares what the calls need untimed (descriptors to close, bytes
 * to read, signals to take), times n calls, and cleans up untimed.  Per call
 * = (timed total - R x the cost of one clock reading) / (R x n); a
 * contender's figure is the median over the blocks, its spread the
 * interquartile range in % of that median, and ratio = libkq / glibc of the
 * medians (ratio_paired: the median of the per-block ratios).  Process CPU
 * time, as the other benchmarks (the calls do all their work in this
 * thread); posix_spawn and vfork add their children's CPU time (wait4()),
 * since the caller waits while the child runs up to its exec or exit, and
 * the child's time is not this process's (clock=cpu+children; /bin/true's
 * own run is in it, the same both ways).  The wall clock (--clock=wall)
 * would mostly time how long the child waited for a CPU on a busy machine.
 * A first row, read through glibc both ways ("libc-calls-null"), shows what
 * the method itself makes of two equal functions.
 *
 * The cases (a round is 256 calls; 128 for accept, accept4, connect and the
 * watched close, 16 for vfork, 1 for posix_spawn; reads and writes of 1
 * byte; sockets AF_UNIX stream):
 *   state=common
 *     close            a fresh eventfd; and a socket made by socket()
 *                      (libkq notes the birth of every socket: its close is
 *                      not the plain fast path)
 *     fclose           a FILE fdopen()ed on a fresh eventfd
 *     dup+close        a copy of an eventfd, closed again (both timed)
 *     dup2, dup3       onto a free number (dup3 with O_CLOEXEC)
 *     close_range      one open number, lo = hi
 *     closefrom        the highest open number, from 1024 up; libkq also
 *                      looks up every number above it in each page (4096
 *                      numbers) of its descriptor table that exists, and
 *                      the first one does once any socket was made
 *     fcntl, fcntl64   F_GETFL
 *     socket+close, socketpair+close
 *     accept, accept4  a connection waiting in the backlog of a listener
 *                      made by socket()
 *     connect          to that listener
 *     setsockopt, getsockopt   SO_RCVBUF
 *     read, readv, write, writev, __read_chk     on a pipe
 *     recv, recvfrom, recvmsg, recvmmsg, send, sendto, sendmsg, sendmmsg,
 *     __recv_chk, __recvfrom_chk    on a socketpair, MSG_DONTWAIT, one
 *                      message of one byte per call
 *     splice           1 byte from a pipe to /dev/null
 *     sendfile         1 byte from a memfd to /dev/null
 *     sigaction        query, and set (a handler), of SIGUSR1, unwatched
 *     signal, bsd_signal, ssignal, sysv_signal, sigset, sigignore,
 *     siginterrupt     the same signal
 *     sigtimedwait, sigwaitinfo, sigwait   take a pending, blocked real-time
 *                      signal (queued untimed with sigqueue(); timeout 0)
 *     posix_spawn      /bin/true (posix_spawnp: "true" through PATH); the
 *                      child is reaped untimed, its CPU time counted
 *     vfork            the child calls _exit(0) at once; reaped the same way
 *   state=watched
 *     close            an eventfd with an EVFILT_READ knote (added again
 *                      each round, untimed, the same both ways): libkq's
 *                      close removes the knote, glibc's does not
 *     sigaction, signal   SIGUSR2, which an EVFILT_SIGNAL knote watches:
 *                      glibc's call would put its own disposition in place
 *                      of libkq's handler, so glibc is timed on SIGUSR1,
 *                      unwatched (baseline=glibc-unwatched)
 *     posix_spawn      with SIGUSR2 watched and ignored by the program
 *                      (libkq sets it ignored around the spawn)
 *
 * Options (besides bench.h's): --second-thread keeps a second thread alive
 * (blocked, all signals blocked) for the whole run.  glibc skips its
 * cancellation steps while a process has one thread; libkq's calls made as
 * raw system calls (readv, recv, sendto, ..., sigtimedwait) take them always,
 * so their cost differs between the two runs.  --only=WORD runs the rows
 * whose call contains WORD.  --per-block=R sets the rounds per block.
 *
 * Output: one line per row
 *   libc-calls call=<name> state=<common|watched> what=<case> threads=<1|2>
 *       libkq_ns=<x> glibc_ns=<y> ratio=<x/y> diff_ns=<x-y> ratio_paired=...
 *       libkq_iqr_pct=... glibc_iqr_pct=... calls=<per block> blocks=...
 *       clock=<cpu|cpu+children|wall> baseline=<glibc|glibc-unwatched>
 *       glibc_fn=...
 * then
 *   libc-calls-summary threads=... common_median_ratio=... common_max_ratio=...
 *       common_max_ratio_call=... common_median_diff_ns=... ...
 * and the same table for people, as '#' comment lines.
 *
 * Exit: 0 done, 1 a call failed or returned something wrong, 2 bad usage.
 */
#include "bench.h"

#include <dlfcn.h>
#include <elf.h>
#include <gnu/libc-version.h>
#include <link.h>
#include <pthread.h>
#include <signal.h>
#include <spawn.h>
#include <stddef.h>
#include <sys/event.h>
#include <sys/eventfd.h>
#include <sys/mman.h>
#include <sys/sendfile.h>
#include <sys/uio.h>
#include <sys/un.h>
#include <sys/wait.h>

#define UNUSED __attribute__((unused))

/* Declared by <unistd.h> only from glibc 2.34 on; libkq exports them
 * whatever the headers say. */
int close_range(unsigned int, unsigned int, int);
void closefrom(int);
/* Not declared with _GNU_SOURCE (POSIX 2008 dropped it), still in glibc. */
sighandler_t bsd_signal(int, sighandler_t);
/* The _FORTIFY_SOURCE entry points, declared by glibc's headers only when
 * fortification is on. */
#if __USE_FORTIFY_LEVEL == 0
ssize_t __read_chk(int, void *, size_t, size_t);
ssize_t __recv_chk(int, void *, size_t, size_t, int);
ssize_t __recvfrom_chk(int, void *, size_t, size_t, int, struct sockaddr *, socklen_t *);
#endif

/* Every function libkq replaces that is measured here (sendfile64 and
 * __sysv_signal are the same functions as sendfile and sysv_signal). */
#define CALLS(X)                                                               \
	X(close) X(fclose) X(dup) X(dup2) X(dup3) X(close_range) X(closefrom)  \
	X(fcntl) X(fcntl64) X(socket) X(socketpair) X(accept) X(accept4)       \
	X(setsockopt) X(getsockopt) X(connect)                                 \
	X(read) X(readv) X(recv) X(recvfrom) X(recvmsg) X(recvmmsg)            \
	X(write) X(writev) X(send) X(sendto) X(sendmsg) X(sendmmsg)            \
	X(splice) X(sendfile) X(__read_chk) X(__recv_chk) X(__recvfrom_chk)    \
	X(sigaction) X(signal) X(bsd_signal) X(ssignal) X(sysv_signal)         \
	X(sigset) X(sigignore) X(siginterrupt)                                 \
	X(sigtimedwait) X(sigwaitinfo) X(sigwait)                              \
	X(posix_spawn) X(posix_spawnp) X(vfork)

#define AS_ENUM(n) C_##n,
enum { CALLS(AS_ENUM) NCALLS };
#define AS_NAME(n) #n,
static const char *const call_name[NCALLS] = { CALLS(AS_NAME) };

/* sigset, sigignore and siginterrupt are marked deprecated in glibc's
 * headers; they are measured because libkq replaces them. */
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wdeprecated-declarations"
#define AS_MEMBER(n) __typeof__(n) *n;
struct fns {
	CALLS(AS_MEMBER)
};

static struct fns kqf, glf;          /* libkq's, glibc's */
static void *kq_addr[NCALLS], *gl_addr[NCALLS];

static void fill_libkq(void)
{
#define SET_LIBKQ(n) kqf.n = n; kq_addr[C_##n] = (void *)kqf.n;
	CALLS(SET_LIBKQ)
}
#pragma GCC diagnostic pop

/* ---- glibc's own functions ---- */

static void *libc;                   /* libc.so.6's handle */
static struct link_map *libc_map;
static const char *libc_ver[256];    /* the versions libc.so.6 defines */
static int n_libc_ver;
static const char *gl_ver[NCALLS];   /* the version each function has */
static const char *kq_object;        /* where libkq's close() lives */

/* The names of the versions libc.so.6 defines, from its DT_VERDEF. */
static void read_libc_versions(void)
{
	uintptr_t strtab = 0, verdef = 0;
	size_t nverdef = 0;
	for (const ElfW(Dyn) *d = libc_map->l_ld; d->d_tag != DT_NULL; d++) {
		if (d->d_tag == DT_STRTAB)
			strtab = d->d_un.d_ptr;
		else if (d->d_tag == DT_VERDEF)
			verdef = d->d_un.d_ptr;
		else if (d->d_tag == DT_VERDEFNUM)
			nverdef = d->d_un.d_val;
	}
	if (!strtab || !verdef)
		return;
	/* The dynamic linker relocates these entries in place on most
	 * targets, not on all: an address below the load address is still
	 * an offset. */
	if (strtab < libc_map->l_addr)
		strtab += libc_map->l_addr;
	if (verdef < libc_map->l_addr)
		verdef += libc_map->l_addr;
	const char *p = (const char *)verdef;
	for (size_t i = 0; i < nverdef && n_libc_ver < 256; i++) {
		const ElfW(Verdef) *vd = (const void *)p;
		const ElfW(Verdaux) *va = (const void *)(p + vd->vd_aux);
		if (!(vd->vd_flags & VER_FLG_BASE))
			libc_ver[n_libc_ver++] = (const char *)strtab + va->vda_name;
		if (!vd->vd_next)
			break;
		p += vd->vd_next;
	}
}

/* glibc's function `name` (see the header comment), or the run fails. */
static void *glibc_fn(int i)
{
	const char *name = call_name[i];
	void *f = dlsym(libc, name);
	if (!f)
		bench_fail("glibc has no %s (%s)", name, dlerror());
	Dl_info di;
	if (!dladdr(f, &di) || !di.dli_fname || strcmp(di.dli_fname, libc_map->l_name) != 0)
		bench_fail("dlsym(libc.so.6, %s) is not in %s", name, libc_map->l_name);
	gl_ver[i] = "?";
	for (int v = n_libc_ver - 1; v >= 0; v--) {   /* the newest first */
		if (dlvsym(libc, name, libc_ver[v]) == f) {
			gl_ver[i] = libc_ver[v];
			break;
		}
	}
	return f;
}

static void fill_glibc(void)
{
	libc = dlopen("libc.so.6", RTLD_NOLOAD | RTLD_LAZY);
	if (!libc)
		bench_fail("dlopen(libc.so.6, RTLD_NOLOAD): %s", dlerror());
	if (dlinfo(libc, RTLD_DI_LINKMAP, &libc_map) != 0)
		bench_fail("dlinfo(libc.so.6): %s", dlerror());
	read_libc_versions();
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wdeprecated-declarations"
#define SET_GLIBC(n) gl_addr[C_##n] = glibc_fn(C_##n); glf.n = (__typeof__(n) *)gl_addr[C_##n];
	CALLS(SET_GLIBC)
#pragma GCC diagnostic pop
	Dl_info di;
	kq_object = "?";
	if (dladdr(kq_addr[C_close], &di) && di.dli_fname) {
		const char *s = strrchr(di.dli_fname, '/');
		kq_object = s ? s + 1 : di.dli_fname;
	}
}

/* ---- what the cases work on ---- */

enum { MAXN = 256 };

static int efd;                     /* an eventfd: fcntl's and dup's subject */
static int pipe_r, pipe_w;          /* a pipe, non-blocking */
static int sock_a, sock_b;          /* AF_UNIX stream pair: recv on a, send on b */
static int sock_n;                  /* 1-byte messages sock_b may queue, capped */
static int opt_sock;                /* setsockopt / getsockopt */
static int listener;                /* AF_UNIX stream, abstract address */
static struct sockaddr_un lis_addr;
static socklen_t lis_len;
static int devnull, memfd;
static int hi_base;                 /* free numbers for dup2 .. closefrom */
static int sig_rt;                  /* the real-time signal sigtimedwait takes */
static sigset_t rt_set;
static int kq_sig = -1;             /* the kqueue watching SIGUSR2 */
static int kq_round = -1;           /* the kqueue of a watched-close round */
static int fds[MAXN], fds2[MAXN];
static FILE *files[MAXN];
static pid_t pids[MAXN];
static const char *true_path = "/bin/true";
static char *true_argv[] = { (char *)"true", NULL };
static int splice_ok, sendfile_ok;
static unsigned char buf1[1];
static unsigned char big[64 * 1024];

static void on_signal(int sig)
{
	(void)sig;
}

static const struct sigaction act_handler = { .sa_handler = on_signal, .sa_flags = SA_RESTART };

/* Raw system calls for the untimed parts, so that neither contender's
 * functions run there. */
static void raw_write_all(int fd, size_t n)
{
	while (n > 0) {
		long r = syscall(SYS_write, fd, big, n < sizeof big ? n : sizeof big);
		if (r <= 0)
			bench_die("write (filling)");
		n -= (size_t)r;
	}
}

static void raw_read_all(int fd, size_t n)
{
	while (n > 0) {
		long r = syscall(SYS_read, fd, big, n < sizeof big ? n : sizeof big);
		if (r <= 0)
			bench_die("read (draining)");
		n -= (size_t)r;
	}
}

static void sock_fill(int n)
{
	for (int i = 0; i < n; i++)
		if (syscall(SYS_sendto, sock_b, big, 1, MSG_DONTWAIT, NULL, 0) != 1)
			bench_die("send (filling the socket)");
}

static void sock_drain(int n)
{
	while (n > 0) {
		long r = syscall(SYS_recvfrom, sock_a, big, sizeof big, MSG_DONTWAIT, NULL, NULL);
		if (r <= 0)
			bench_die("recv (draining the socket)");
		n -= (int)r;
	}
}

static int new_eventfd(void)
{
	int e = eventfd(0, EFD_CLOEXEC);
	if (e < 0)
		bench_die("eventfd");
	return e;
}

/* A fresh eventfd at number hi_base + i. */
static void eventfd_at(int i)
{
	int e = new_eventfd();
	if (syscall(SYS_dup3, e, hi_base + i, O_CLOEXEC) != hi_base + i)
		bench_die("dup3 (placing an eventfd)");
	bench_raw_close(e);
}

/* ---- the cases: prepare (untimed), calls (timed), clean up (untimed) ---- */

static void p_eventfds(UNUSED int who, int n)
{
	for (int i = 0; i < n; i++)
		fds[i] = new_eventfd();
}

/* Sockets made by libkq's socket(), as a program makes them: libkq has
 * noted their birth, for both contenders. */
static void p_sockets(UNUSED int who, int n)
{
	for (int i = 0; i < n; i++)
		if ((fds[i] = kqf.socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0)) < 0)
			bench_die("socket");
}

static void b_close(const struct fns *f, UNUSED int who, int n)
{
	for (int i = 0; i < n; i++)
		if (f->close(fds[i]) != 0)
			bench_die("close");
}

static void p_files(UNUSED int who, int n)
{
	for (int i = 0; i < n; i++)
		if (!(files[i] = fdopen(new_eventfd(), "r")))
			bench_die("fdopen");
}

static void b_fclose(const struct fns *f, UNUSED int who, int n)
{
	for (int i = 0; i < n; i++)
		if (f->fclose(files[i]) != 0)
			bench_die("fclose");
}

static void b_dup_close(const struct fns *f, UNUSED int who, int n)
{
	for (int i = 0; i < n; i++) {
		int c = f->dup(efd);
		if (c < 0 || f->close(c) != 0)
			bench_die("dup+close");
	}
}

static void b_dup2(const struct fns *f, UNUSED int who, int n)
{
	for (int i = 0; i < n; i++)
		if (f->dup2(efd, hi_base + i) != hi_base + i)
			bench_die("dup2");
}

static void b_dup3(const struct fns *f, UNUSED int who, int n)
{
	for (int i = 0; i < n; i++)
		if (f->dup3(efd, hi_base + i, O_CLOEXEC) != hi_base + i)
			bench_die("dup3");
}

static void d_close_high(UNUSED int who, int n)
{
	for (int i = 0; i < n; i++)
		if (kqf.close(hi_base + i) != 0)
			bench_die("close (cleaning up)");
}

static void p_high_eventfds(UNUSED int who, int n)
{
	for (int i = 0; i < n; i++)
		eventfd_at(i);
}

static void b_close_range(const struct fns *f, UNUSED int who, int n)
{
	for (int i = 0; i < n; i++)
		if (f->close_range((unsigned)(hi_base + i), (unsigned)(hi_base + i), 0) != 0)
			bench_die("close_range");
}

/* From the top down, so each call closes exactly one number. */
static void b_closefrom(const struct fns *f, UNUSED int who, int n)
{
	for (int i = n - 1; i >= 0; i--)
		f->closefrom(hi_base + i);
}

static void d_check_closed(UNUSED int who, int n)
{
	for (int i = 0; i < n; i++)
		if (syscall(SYS_fcntl, hi_base + i, F_GETFD) >= 0)
			bench_fail("number %d is still open after closing it", hi_base + i);
}

static void b_fcntl(const struct fns *f, UNUSED int who, int n)
{
	for (int i = 0; i < n; i++)
		if (f->fcntl(efd, F_GETFL) < 0)
			bench_die("fcntl");
}

static void b_fcntl64(const struct fns *f, UNUSED int who, int n)
{
	for (int i = 0; i < n; i++)
		if (f->fcntl64(efd, F_GETFL) < 0)
			bench_die("fcntl64");
}

static void b_socket_close(const struct fns *f, UNUSED int who, int n)
{
	for (int i = 0; i < n; i++) {
		int s = f->socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
		if (s < 0 || f->close(s) != 0)
			bench_die("socket+close");
	}
}

static void b_socketpair_close(const struct fns *f, UNUSED int who, int n)
{
	for (int i = 0; i < n; i++) {
		int sv[2];
		if (f->socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv) != 0 ||
		    f->close(sv[0]) != 0 || f->close(sv[1]) != 0)
			bench_die("socketpair+close");
	}
}

/* n connections waiting in the listener's backlog. */
static void p_connections(UNUSED int who, int n)
{
	for (int i = 0; i < n; i++) {
		fds2[i] = kqf.socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
		if (fds2[i] < 0 || kqf.connect(fds2[i], (struct sockaddr *)&lis_addr, lis_len) != 0)
			bench_die("connect (to the listener)");
	}
}

static void b_accept(const struct fns *f, UNUSED int who, int n)
{
	for (int i = 0; i < n; i++)
		if ((fds[i] = f->accept(listener, NULL, NULL)) < 0)
			bench_die("accept");
}

static void b_accept4(const struct fns *f, UNUSED int who, int n)
{
	for (int i = 0; i < n; i++)
		if ((fds[i] = f->accept4(listener, NULL, NULL, SOCK_CLOEXEC)) < 0)
			bench_die("accept4");
}

static void d_close_both(UNUSED int who, int n)
{
	for (int i = 0; i < n; i++)
		if (kqf.close(fds[i]) != 0 || kqf.close(fds2[i]) != 0)
			bench_die("close (cleaning up)");
}

static void p_clients(UNUSED int who, int n)
{
	for (int i = 0; i < n; i++)
		if ((fds2[i] = kqf.socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0)) < 0)
			bench_die("socket");
}

static void b_connect(const struct fns *f, UNUSED int who, int n)
{
	for (int i = 0; i < n; i++)
		if (f->connect(fds2[i], (struct sockaddr *)&lis_addr, lis_len) != 0)
			bench_die("connect");
}

static void d_accept_all(UNUSED int who, int n)
{
	for (int i = 0; i < n; i++)
		if ((fds[i] = kqf.accept4(listener, NULL, NULL, SOCK_CLOEXEC)) < 0)
			bench_die("accept (cleaning up)");
	d_close_both(who, n);
}

static void b_setsockopt(const struct fns *f, UNUSED int who, int n)
{
	int v = 65536;
	for (int i = 0; i < n; i++)
		if (f->setsockopt(opt_sock, SOL_SOCKET, SO_RCVBUF, &v, sizeof v) != 0)
			bench_die("setsockopt");
}

static void b_getsockopt(const struct fns *f, UNUSED int who, int n)
{
	for (int i = 0; i < n; i++) {
		int v;
		socklen_t len = sizeof v;
		if (f->getsockopt(opt_sock, SOL_SOCKET, SO_RCVBUF, &v, &len) != 0)
			bench_die("getsockopt");
	}
}

static void p_pipe_bytes(UNUSED int who, int n)
{
	raw_write_all(pipe_w, (size_t)n);
}

static void d_pipe_drain(UNUSED int who, int n)
{
	raw_read_all(pipe_r, (size_t)n);
}

static void b_read(const struct fns *f, UNUSED int who, int n)
{
	for (int i = 0; i < n; i++)
		if (f->read(pipe_r, buf1, 1) != 1)
			bench_die("read");
}

static void b_read_chk(const struct fns *f, UNUSED int who, int n)
{
	for (int i = 0; i < n; i++)
		if (f->__read_chk(pipe_r, buf1, 1, sizeof buf1) != 1)
			bench_die("__read_chk");
}

static void b_readv(const struct fns *f, UNUSED int who, int n)
{
	struct iovec iov = { buf1, 1 };
	for (int i = 0; i < n; i++)
		if (f->readv(pipe_r, &iov, 1) != 1)
			bench_die("readv");
}

static void b_write(const struct fns *f, UNUSED int who, int n)
{
	for (int i = 0; i < n; i++)
		if (f->write(pipe_w, buf1, 1) != 1)
			bench_die("write");
}

static void b_writev(const struct fns *f, UNUSED int who, int n)
{
	struct iovec iov = { buf1, 1 };
	for (int i = 0; i < n; i++)
		if (f->writev(pipe_w, &iov, 1) != 1)
			bench_die("writev");
}

static void p_sock_bytes(UNUSED int who, int n)
{
	sock_fill(n);
}

static void d_sock_drain(UNUSED int who, int n)
{
	sock_drain(n);
}

static void b_recv(const struct fns *f, UNUSED int who, int n)
{
	for (int i = 0; i < n; i++)
		if (f->recv(sock_a, buf1, 1, MSG_DONTWAIT) != 1)
			bench_die("recv");
}

static void b_recv_chk(const struct fns *f, UNUSED int who, int n)
{
	for (int i = 0; i < n; i++)
		if (f->__recv_chk(sock_a, buf1, 1, sizeof buf1, MSG_DONTWAIT) != 1)
			bench_die("__recv_chk");
}

static void b_recvfrom(const struct fns *f, UNUSED int who, int n)
{
	for (int i = 0; i < n; i++)
		if (f->recvfrom(sock_a, buf1, 1, MSG_DONTWAIT, NULL, NULL) != 1)
			bench_die("recvfrom");
}

static void b_recvfrom_chk(const struct fns *f, UNUSED int who, int n)
{
	for (int i = 0; i < n; i++)
		if (f->__recvfrom_chk(sock_a, buf1, 1, sizeof buf1, MSG_DONTWAIT, NULL, NULL) != 1)
			bench_die("__recvfrom_chk");
}

static void b_recvmsg(const struct fns *f, UNUSED int who, int n)
{
	struct iovec iov = { buf1, 1 };
	for (int i = 0; i < n; i++) {
		struct msghdr m = { .msg_iov = &iov, .msg_iovlen = 1 };
		if (f->recvmsg(sock_a, &m, MSG_DONTWAIT) != 1)
			bench_die("recvmsg");
	}
}

static void b_recvmmsg(const struct fns *f, UNUSED int who, int n)
{
	struct iovec iov = { buf1, 1 };
	for (int i = 0; i < n; i++) {
		struct mmsghdr mm = { .msg_hdr = { .msg_iov = &iov, .msg_iovlen = 1 } };
		if (f->recvmmsg(sock_a, &mm, 1, MSG_DONTWAIT, NULL) != 1 || mm.msg_len != 1)
			bench_die("recvmmsg");
	}
}

static void b_send(const struct fns *f, UNUSED int who, int n)
{
	for (int i = 0; i < n; i++)
		if (f->send(sock_b, buf1, 1, MSG_DONTWAIT) != 1)
			bench_die("send");
}

static void b_sendto(const struct fns *f, UNUSED int who, int n)
{
	for (int i = 0; i < n; i++)
		if (f->sendto(sock_b, buf1, 1, MSG_DONTWAIT, NULL, 0) != 1)
			bench_die("sendto");
}

static void b_sendmsg(const struct fns *f, UNUSED int who, int n)
{
	struct iovec iov = { buf1, 1 };
	for (int i = 0; i < n; i++) {
		struct msghdr m = { .msg_iov = &iov, .msg_iovlen = 1 };
		if (f->sendmsg(sock_b, &m, MSG_DONTWAIT) != 1)
			bench_die("sendmsg");
	}
}

static void b_sendmmsg(const struct fns *f, UNUSED int who, int n)
{
	struct iovec iov = { buf1, 1 };
	for (int i = 0; i < n; i++) {
		struct mmsghdr mm = { .msg_hdr = { .msg_iov = &iov, .msg_iovlen = 1 } };
		if (f->sendmmsg(sock_b, &mm, 1, MSG_DONTWAIT) != 1)
			bench_die("sendmmsg");
	}
}

static void b_splice(const struct fns *f, UNUSED int who, int n)
{
	for (int i = 0; i < n; i++)
		if (f->splice(pipe_r, NULL, devnull, NULL, 1, 0) != 1)
			bench_die("splice");
}

static void b_sendfile(const struct fns *f, UNUSED int who, int n)
{
	for (int i = 0; i < n; i++) {
		off_t off = 0;
		if (f->sendfile(devnull, memfd, &off, 1) != 1)
			bench_die("sendfile");
	}
}

/* The signal calls: glibc's on SIGUSR1 always; libkq's on SIGUSR1 in the
 * common state, on the watched SIGUSR2 in the watched state. */
static int watched_state;

static int sig_for(int who)
{
	return (watched_state && who == 0) ? SIGUSR2 : SIGUSR1;
}

static void b_sigaction_query(const struct fns *f, int who, int n)
{
	int sig = sig_for(who);
	for (int i = 0; i < n; i++) {
		struct sigaction old;
		if (f->sigaction(sig, NULL, &old) != 0)
			bench_die("sigaction (query)");
	}
}

static void b_sigaction_set(const struct fns *f, int who, int n)
{
	int sig = sig_for(who);
	for (int i = 0; i < n; i++)
		if (f->sigaction(sig, &act_handler, NULL) != 0)
			bench_die("sigaction (set)");
}

static void b_signal(const struct fns *f, int who, int n)
{
	int sig = sig_for(who);
	for (int i = 0; i < n; i++)
		if (f->signal(sig, on_signal) == SIG_ERR)
			bench_die("signal");
}

static void b_bsd_signal(const struct fns *f, UNUSED int who, int n)
{
	for (int i = 0; i < n; i++)
		if (f->bsd_signal(SIGUSR1, on_signal) == SIG_ERR)
			bench_die("bsd_signal");
}

static void b_ssignal(const struct fns *f, UNUSED int who, int n)
{
	for (int i = 0; i < n; i++)
		if (f->ssignal(SIGUSR1, on_signal) == SIG_ERR)
			bench_die("ssignal");
}

static void b_sysv_signal(const struct fns *f, UNUSED int who, int n)
{
	for (int i = 0; i < n; i++)
		if (f->sysv_signal(SIGUSR1, on_signal) == SIG_ERR)
			bench_die("sysv_signal");
}

static void b_sigset(const struct fns *f, UNUSED int who, int n)
{
	for (int i = 0; i < n; i++)
		if (f->sigset(SIGUSR1, on_signal) == SIG_ERR)
			bench_die("sigset");
}

static void b_sigignore(const struct fns *f, UNUSED int who, int n)
{
	for (int i = 0; i < n; i++)
		if (f->sigignore(SIGUSR1) != 0)
			bench_die("sigignore");
}

static void b_siginterrupt(const struct fns *f, UNUSED int who, int n)
{
	for (int i = 0; i < n; i++)
		if (f->siginterrupt(SIGUSR1, 0) != 0)
			bench_die("siginterrupt");
}

/* Real-time signals queue: n of them pending at once, each taken by one
 * call.  Blocked in every thread, so they wait for the calls. */
static void p_rt_signals(UNUSED int who, int n)
{
	union sigval v = { .sival_int = 0 };
	pid_t me = getpid();
	for (int i = 0; i < n; i++)
		if (sigqueue(me, sig_rt, v) != 0)
			bench_die("sigqueue");
}

static void b_sigtimedwait(const struct fns *f, UNUSED int who, int n)
{
	static const struct timespec zero = { 0, 0 };
	for (int i = 0; i < n; i++) {
		siginfo_t si;
		if (f->sigtimedwait(&rt_set, &si, &zero) != sig_rt)
			bench_die("sigtimedwait");
	}
}

static void b_sigwaitinfo(const struct fns *f, UNUSED int who, int n)
{
	for (int i = 0; i < n; i++) {
		siginfo_t si;
		if (f->sigwaitinfo(&rt_set, &si) != sig_rt)
			bench_die("sigwaitinfo");
	}
}

static void b_sigwait(const struct fns *f, UNUSED int who, int n)
{
	for (int i = 0; i < n; i++) {
		int sig = 0;
		if (f->sigwait(&rt_set, &sig) != 0 || sig != sig_rt)
			bench_fail("sigwait: got signal %d, want %d", sig, sig_rt);
	}
}

static void b_posix_spawn(const struct fns *f, UNUSED int who, int n)
{
	for (int i = 0; i < n; i++) {
		int r = f->posix_spawn(&pids[i], true_path, NULL, NULL, true_argv, environ);
		if (r != 0)
			bench_fail("posix_spawn(%s): %s", true_path, strerror(r));
	}
}

static void b_posix_spawnp(const struct fns *f, UNUSED int who, int n)
{
	for (int i = 0; i < n; i++) {
		int r = f->posix_spawnp(&pids[i], "true", NULL, NULL, true_argv, environ);
		if (r != 0)
			bench_fail("posix_spawnp(true): %s", strerror(r));
	}
}

/*
 * The child runs on this function's stack until it exits: it only tests
 * the value and calls _exit(), which writes nothing in this frame, so the
 * parent finds the frame as it left it.  Not inlined, so that the frame is
 * this small one whatever the caller keeps on its own.
 */
static __attribute__((noinline)) pid_t vfork_and_exit(__typeof__(vfork) *fn)
{
	pid_t pid = fn();
	if (pid == 0)
		_exit(0);
	return pid;
}

static void b_vfork(const struct fns *f, UNUSED int who, int n)
{
	for (int i = 0; i < n; i++)
		if ((pids[i] = vfork_and_exit(f->vfork)) < 0)
			bench_die("vfork");
}

/* The CPU time the children of a block's rounds used, from wait4(). */
static int64_t child_cpu_ns;

static void d_reap(UNUSED int who, int n)
{
	for (int i = 0; i < n; i++) {
		int st;
		struct rusage ru;
		if (wait4(pids[i], &st, 0, &ru) != pids[i])
			bench_die("wait4");
		if (!WIFEXITED(st) || WEXITSTATUS(st) != 0)
			bench_fail("child %d ended with status %#x", (int)pids[i], st);
		child_cpu_ns += ((int64_t)ru.ru_utime.tv_sec + ru.ru_stime.tv_sec) * 1000000000 +
				((int64_t)ru.ru_utime.tv_usec + ru.ru_stime.tv_usec) * 1000;
	}
}

/* A kqueue with an EVFILT_READ knote on each of n fresh eventfds. */
static void p_watched_eventfds(UNUSED int who, int n)
{
	struct kevent ch[MAXN];
	if ((kq_round = kqueue()) < 0)
		bench_die("kqueue");
	for (int i = 0; i < n; i++) {
		fds[i] = new_eventfd();
		EV_SET(&ch[i], fds[i], EVFILT_READ, EV_ADD, 0, 0, NULL);
	}
	int r = kevent(kq_round, ch, n, NULL, 0, NULL);
	if (r != 0)
		bench_fail("kevent(EV_ADD x%d) = %d: %s", n, r, r < 0 ? strerror(errno) : "records");
}

/* Closing the kqueue drops whatever knotes glibc's close() left behind. */
static void d_close_kq(UNUSED int who, UNUSED int n)
{
	if (kqf.close(kq_round) != 0)
		bench_die("close (kqueue)");
	kq_round = -1;
}

/* SIGUSR2 watched by an EVFILT_SIGNAL knote, the program's disposition of
 * it a handler or SIG_IGN. */
static void watch_sigusr2(int ignored)
{
	struct sigaction a = act_handler;
	if (ignored)
		a.sa_handler = SIG_IGN;
	if ((kq_sig = kqueue()) < 0)
		bench_die("kqueue");
	struct kevent ch;
	EV_SET(&ch, SIGUSR2, EVFILT_SIGNAL, EV_ADD, 0, 0, NULL);
	if (kevent(kq_sig, &ch, 1, NULL, 0, NULL) != 0)
		bench_die("kevent(EVFILT_SIGNAL)");
	if (kqf.sigaction(SIGUSR2, &a, NULL) != 0)
		bench_die("sigaction(SIGUSR2)");
	watched_state = 1;
}

static void s_watch_handler(void)
{
	watch_sigusr2(0);
}

static void s_watch_ignored(void)
{
	watch_sigusr2(1);
}

static void t_unwatch(void)
{
	struct sigaction dfl = { .sa_handler = SIG_DFL };
	if (kqf.close(kq_sig) != 0)
		bench_die("close (kqueue)");
	kq_sig = -1;
	if (kqf.sigaction(SIGUSR2, &dfl, NULL) != 0)
		bench_die("sigaction(SIGUSR2, SIG_DFL)");
	watched_state = 0;
}

/* ---- the table ---- */

enum { N_SOCK = -1 };   /* n: as many 1-byte messages as the socket queues */

struct bcase {
	const char *call;       /* the function, or "a+b" when both are timed */
	const char *state;      /* common, watched */
	const char *what;
	int n;                  /* calls per round (full size) */
	int spawn;              /* a child per call: its CPU time too, few rounds */
	int needs;              /* 1: splice to /dev/null, 2: sendfile (if they work here) */
	void (*setup)(void);
	void (*prep)(int who, int n);
	void (*body)(const struct fns *f, int who, int n);
	void (*done)(int who, int n);
	void (*teardown)(void);
	const char *baseline;
};

static const struct bcase cases[] = {
	{ "close", "common", "eventfd", 256, 0, 0, NULL, p_eventfds, b_close, NULL, NULL, "glibc" },
	{ "close", "common", "socket-made-by-socket()", 256, 0, 0, NULL, p_sockets, b_close, NULL,
	  NULL, "glibc" },
	{ "fclose", "common", "fdopen-eventfd", 256, 0, 0, NULL, p_files, b_fclose, NULL, NULL,
	  "glibc" },
	{ "dup+close", "common", "eventfd", 256, 0, 0, NULL, NULL, b_dup_close, NULL, NULL, "glibc" },
	{ "dup2", "common", "eventfd-to-free-number", 256, 0, 0, NULL, NULL, b_dup2, d_close_high,
	  NULL, "glibc" },
	{ "dup3", "common", "eventfd-to-free-number-cloexec", 256, 0, 0, NULL, NULL, b_dup3,
	  d_close_high, NULL, "glibc" },
	{ "close_range", "common", "one-eventfd", 256, 0, 0, NULL, p_high_eventfds, b_close_range,
	  d_check_closed, NULL, "glibc" },
	{ "closefrom", "common", "highest-open-number-above-1024", 256, 0, 0, NULL, p_high_eventfds,
	  b_closefrom, d_check_closed, NULL, "glibc" },
	{ "fcntl", "common", "F_GETFL", 256, 0, 0, NULL, NULL, b_fcntl, NULL, NULL, "glibc" },
	{ "fcntl64", "common", "F_GETFL", 256, 0, 0, NULL, NULL, b_fcntl64, NULL, NULL, "glibc" },
	{ "socket+close", "common", "unix-stream", 256, 0, 0, NULL, NULL, b_socket_close, NULL,
	  NULL, "glibc" },
	{ "socketpair+close", "common", "unix-stream", 256, 0, 0, NULL, NULL, b_socketpair_close,
	  NULL, NULL, "glibc" },
	{ "accept", "common", "unix-stream-backlog", 128, 0, 0, NULL, p_connections, b_accept,
	  d_close_both, NULL, "glibc" },
	{ "accept4", "common", "unix-stream-backlog-cloexec", 128, 0, 0, NULL, p_connections,
	  b_accept4, d_close_both, NULL, "glibc" },
	{ "connect", "common", "unix-stream", 128, 0, 0, NULL, p_clients, b_connect, d_accept_all,
	  NULL, "glibc" },
	{ "setsockopt", "common", "SO_RCVBUF", 256, 0, 0, NULL, NULL, b_setsockopt, NULL, NULL,
	  "glibc" },
	{ "getsockopt", "common", "SO_RCVBUF", 256, 0, 0, NULL, NULL, b_getsockopt, NULL, NULL,
	  "glibc" },
	{ "read", "common", "pipe-1-byte", 256, 0, 0, NULL, p_pipe_bytes, b_read, NULL, NULL,
	  "glibc" },
	{ "write", "common", "pipe-1-byte", 256, 0, 0, NULL, NULL, b_write, d_pipe_drain, NULL,
	  "glibc" },
	{ "readv", "common", "pipe-1-byte", 256, 0, 0, NULL, p_pipe_bytes, b_readv, NULL, NULL,
	  "glibc" },
	{ "writev", "common", "pipe-1-byte", 256, 0, 0, NULL, NULL, b_writev, d_pipe_drain, NULL,
	  "glibc" },
	{ "__read_chk", "common", "pipe-1-byte", 256, 0, 0, NULL, p_pipe_bytes, b_read_chk, NULL,
	  NULL, "glibc" },
	{ "recv", "common", "unix-stream-1-byte-dontwait", N_SOCK, 0, 0, NULL, p_sock_bytes,
	  b_recv, NULL, NULL, "glibc" },
	{ "send", "common", "unix-stream-1-byte-dontwait", N_SOCK, 0, 0, NULL, NULL, b_send,
	  d_sock_drain, NULL, "glibc" },
	{ "recvfrom", "common", "unix-stream-1-byte-dontwait", N_SOCK, 0, 0, NULL, p_sock_bytes,
	  b_recvfrom, NULL, NULL, "glibc" },
	{ "sendto", "common", "unix-stream-1-byte-dontwait", N_SOCK, 0, 0, NULL, NULL, b_sendto,
	  d_sock_drain, NULL, "glibc" },
	{ "recvmsg", "common", "unix-stream-1-byte-dontwait", N_SOCK, 0, 0, NULL, p_sock_bytes,
	  b_recvmsg, NULL, NULL, "glibc" },
	{ "sendmsg", "common", "unix-stream-1-byte-dontwait", N_SOCK, 0, 0, NULL, NULL, b_sendmsg,
	  d_sock_drain, NULL, "glibc" },
	{ "recvmmsg", "common", "unix-stream-1-message-dontwait", N_SOCK, 0, 0, NULL, p_sock_bytes,
	  b_recvmmsg, NULL, NULL, "glibc" },
	{ "sendmmsg", "common", "unix-stream-1-message-dontwait", N_SOCK, 0, 0, NULL, NULL,
	  b_sendmmsg, d_sock_drain, NULL, "glibc" },
	{ "__recv_chk", "common", "unix-stream-1-byte-dontwait", N_SOCK, 0, 0, NULL, p_sock_bytes,
	  b_recv_chk, NULL, NULL, "glibc" },
	{ "__recvfrom_chk", "common", "unix-stream-1-byte-dontwait", N_SOCK, 0, 0, NULL,
	  p_sock_bytes, b_recvfrom_chk, NULL, NULL, "glibc" },
	{ "splice", "common", "pipe-to-devnull-1-byte", 256, 0, 1, NULL, p_pipe_bytes, b_splice,
	  NULL, NULL, "glibc" },
	{ "sendfile", "common", "memfd-to-devnull-1-byte", 256, 0, 2, NULL, NULL, b_sendfile, NULL,
	  NULL, "glibc" },
	{ "sigaction", "common", "query-unwatched", 256, 0, 0, NULL, NULL, b_sigaction_query, NULL,
	  NULL, "glibc" },
	{ "sigaction", "common", "set-unwatched", 256, 0, 0, NULL, NULL, b_sigaction_set, NULL,
	  NULL, "glibc" },
	{ "signal", "common", "set-unwatched", 256, 0, 0, NULL, NULL, b_signal, NULL, NULL,
	  "glibc" },
	{ "bsd_signal", "common", "set-unwatched", 256, 0, 0, NULL, NULL, b_bsd_signal, NULL, NULL,
	  "glibc" },
	{ "ssignal", "common", "set-unwatched", 256, 0, 0, NULL, NULL, b_ssignal, NULL, NULL,
	  "glibc" },
	{ "sysv_signal", "common", "set-unwatched", 256, 0, 0, NULL, NULL, b_sysv_signal, NULL,
	  NULL, "glibc" },
	{ "sigset", "common", "set-unwatched", 256, 0, 0, NULL, NULL, b_sigset, NULL, NULL,
	  "glibc" },
	{ "sigignore", "common", "unwatched", 256, 0, 0, NULL, NULL, b_sigignore, NULL, NULL,
	  "glibc" },
	{ "siginterrupt", "common", "unwatched", 256, 0, 0, NULL, NULL, b_siginterrupt, NULL, NULL,
	  "glibc" },
	{ "sigtimedwait", "common", "pending-rt-signal-timeout-0", 256, 0, 0, NULL, p_rt_signals,
	  b_sigtimedwait, NULL, NULL, "glibc" },
	{ "sigwaitinfo", "common", "pending-rt-signal", 256, 0, 0, NULL, p_rt_signals,
	  b_sigwaitinfo, NULL, NULL, "glibc" },
	{ "sigwait", "common", "pending-rt-signal", 256, 0, 0, NULL, p_rt_signals, b_sigwait, NULL,
	  NULL, "glibc" },
	{ "posix_spawn", "common", "/bin/true", 1, 1, 0, NULL, NULL, b_posix_spawn, d_reap, NULL,
	  "glibc" },
	{ "posix_spawnp", "common", "true-through-PATH", 1, 1, 0, NULL, NULL, b_posix_spawnp,
	  d_reap, NULL, "glibc" },
	{ "vfork", "common", "child-calls-_exit", 16, 1, 0, NULL, NULL, b_vfork, d_reap, NULL,
	  "glibc" },
	{ "close", "watched", "eventfd-with-read-knote", 128, 0, 0, NULL, p_watched_eventfds,
	  b_close, d_close_kq, NULL, "glibc" },
	{ "sigaction", "watched", "query", 256, 0, 0, s_watch_handler, NULL, b_sigaction_query,
	  NULL, t_unwatch, "glibc-unwatched" },
	{ "sigaction", "watched", "set", 256, 0, 0, s_watch_handler, NULL, b_sigaction_set, NULL,
	  t_unwatch, "glibc-unwatched" },
	{ "signal", "watched", "set", 256, 0, 0, s_watch_handler, NULL, b_signal, NULL, t_unwatch,
	  "glibc-unwatched" },
	{ "posix_spawn", "watched", "/bin/true-with-a-watched-ignored-signal", 1, 1, 0,
	  s_watch_ignored, NULL, b_posix_spawn, d_reap, t_unwatch, "glibc" },
};
enum { NCASES = sizeof cases / sizeof cases[0] };

/* ---- running them ---- */

static int quick;
static long nblocks, rounds_fast, rounds_spawn;
static clockid_t cpu_clock = CLOCK_PROCESS_CPUTIME_ID;
static double ovh_cpu, ovh_wall;    /* one clock reading, ns */
static const char *only;
static int second_thread;

static int64_t clock_ns(clockid_t id)
{
	struct timespec ts;
	clock_gettime(id, &ts);
	return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

/* What one reading of the clock costs, as that clock sees it: each timed
 * part includes about one, which is taken off. */
static double clock_overhead(clockid_t id)
{
	double v[15];
	for (int k = 0; k < 15; k++) {
		int64_t t0 = clock_ns(id);
		for (int i = 0; i < 200; i++)
			clock_ns(id);
		v[k] = (double)(clock_ns(id) - t0) / 201.0;
	}
	return bench_median(v, 15);
}

/* Runs every number a case may have used through libkq's close(), so that
 * a birth libkq noted for a socket glibc's close() then closed behind its
 * back does not follow the number into the next case. */
static void scrub(void)
{
	int tmp[2 * MAXN + 64];
	int k = 0;
	for (; k < 2 * MAXN + 64; k++)
		if ((tmp[k] = eventfd(0, EFD_CLOEXEC)) < 0)
			break;
	while (k-- > 0)
		kqf.close(tmp[k]);
}

/* One contender's share of a block: ns per call.  A case that makes
 * children counts their CPU time too (wait4's), unless timed by the wall
 * clock: the caller's own CPU time leaves out what the child does up to its
 * exec or exit, and the wall clock on a shared machine mostly measures how
 * long the child waited for a CPU. */
static double block(const struct bcase *c, const struct fns *f, int who, int n, long rounds)
{
	clockid_t id = cpu_clock;
	double ovh = cpu_clock == CLOCK_MONOTONIC ? ovh_wall : ovh_cpu;
	int64_t sum = 0;
	child_cpu_ns = 0;
	for (long r = 0; r < rounds; r++) {
		if (c->prep)
			c->prep(who, n);
		int64_t t0 = clock_ns(id);
		c->body(f, who, n);
		int64_t t1 = clock_ns(id);
		if (c->done)
			c->done(who, n);
		sum += t1 - t0;
	}
	if (c->spawn && cpu_clock != CLOCK_MONOTONIC)
		sum += child_cpu_ns;
	return ((double)sum - (double)rounds * ovh) / ((double)rounds * n);
}

struct result {
	const struct bcase *c;
	double kq, gl, ratio, diff, paired, kq_iqr, gl_iqr;
	long calls;
};

static struct result results[NCASES];
static int nresults;

/* The functions a row times ("socket+close": both); 0 if one of them is
 * glibc's under both names. */
static int replaced(const char *call, char *fnlist, size_t len)
{
	char tmp[64];
	snprintf(tmp, sizeof tmp, "%s", call);
	fnlist[0] = '\0';
	int all = 1;
	for (char *save, *t = strtok_r(tmp, "+", &save); t; t = strtok_r(NULL, "+", &save)) {
		int i = 0;
		while (i < NCALLS && strcmp(call_name[i], t) != 0)
			i++;
		if (i == NCALLS)
			bench_fail("case %s: no function %s", call, t);
		if (kq_addr[i] == gl_addr[i])
			all = 0;
		size_t used = strlen(fnlist);
		snprintf(fnlist + used, len - used, "%s%s@%s", used ? "," : "", call_name[i],
			 gl_ver[i]);
	}
	return all;
}

/* Runs one case (libkq against glibc, or glibc against itself when `aa`)
 * and fills *res. */
static void run_case(const struct bcase *c, int aa, struct result *res)
{
	int n = c->n == N_SOCK ? sock_n : c->n;
	if (quick)
		n = n > 16 ? 16 : n;
	long rounds = c->spawn ? rounds_spawn : rounds_fast;
	const struct fns *contender[2] = { aa ? &glf : &kqf, &glf };
	double *ns[2] = { bench_alloc((size_t)nblocks, sizeof(double)),
			  bench_alloc((size_t)nblocks, sizeof(double)) };
	double *pair = bench_alloc((size_t)nblocks, sizeof(double));

	if (c->setup)
		c->setup();
	/* a block each to warm up, not recorded */
	block(c, contender[0], 0, n, 1);
	block(c, contender[1], 1, n, 1);
	for (long b = 0; b < nblocks; b++) {
		for (int pos = 0; pos < 2; pos++) {
			int who = bench_turn(b, pos, 2);
			ns[who][b] = block(c, contender[who], who, n, rounds);
		}
		pair[b] = ns[1][b] > 0 ? ns[0][b] / ns[1][b] : 0.0;
	}
	if (c->teardown)
		c->teardown();
	scrub();

	res->c = c;
	res->kq = bench_median(ns[0], (size_t)nblocks);
	res->gl = bench_median(ns[1], (size_t)nblocks);
	res->ratio = res->gl > 0 ? res->kq / res->gl : 0.0;
	res->diff = res->kq - res->gl;
	res->paired = bench_median(pair, (size_t)nblocks);
	res->kq_iqr = bench_iqr_pct(ns[0], (size_t)nblocks);
	res->gl_iqr = bench_iqr_pct(ns[1], (size_t)nblocks);
	res->calls = rounds * n;
	free(ns[0]);
	free(ns[1]);
	free(pair);
}

/* ---- the second thread ---- */

static int idle_pipe[2];
static pthread_t idle_thread;

/* Alive and doing nothing: blocked in a read with every signal blocked
 * (the pending real-time signals are for the main thread's calls). */
static void *idle_main(void *arg)
{
	(void)arg;
	sigset_t all;
	sigfillset(&all);
	pthread_sigmask(SIG_BLOCK, &all, NULL);
	char c;
	while (syscall(SYS_read, idle_pipe[0], &c, 1) < 0 && errno == EINTR)
		;
	return NULL;
}

static int threads_alive(void)
{
	FILE *f = fopen("/proc/self/status", "r");
	if (!f)
		return -1;
	char line[256];
	int n = -1;
	while (fgets(line, sizeof line, f))
		if (sscanf(line, "Threads: %d", &n) == 1)
			break;
	fclose(f);
	return n;
}

/* ---- set-up ---- */

static void setup_resources(void)
{
	efd = new_eventfd();
	int p[2];
	if (pipe2(p, O_CLOEXEC | O_NONBLOCK) != 0)
		bench_die("pipe2");
	pipe_r = p[0];
	pipe_w = p[1];
	int sv[2];
	if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv) != 0)
		bench_die("socketpair");
	sock_a = sv[0];
	sock_b = sv[1];
	/* Each 1-byte send is a buffer of its own in an AF_UNIX stream socket,
	 * charged some hundreds of bytes: ask for a large send buffer, then
	 * count how many fit. */
	int big_buf = 4 << 20;
	if (setsockopt(sock_b, SOL_SOCKET, SO_SNDBUFFORCE, &big_buf, sizeof big_buf) != 0)
		setsockopt(sock_b, SOL_SOCKET, SO_SNDBUF, &big_buf, sizeof big_buf);
	int cap = 0;
	while (cap < 2 * MAXN &&
	       syscall(SYS_sendto, sock_b, big, 1, MSG_DONTWAIT, NULL, 0) == 1)
		cap++;
	sock_drain(cap);
	sock_n = cap / 2 < MAXN ? cap / 2 : MAXN;
	if (sock_n < 8)
		bench_fail("an AF_UNIX socket queues only %d 1-byte messages", cap);
	if ((opt_sock = socket(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC, 0)) < 0)
		bench_die("socket");

	/* made by libkq's socket(), as a server makes its listener */
	if ((listener = kqf.socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0)) < 0)
		bench_die("socket (listener)");
	memset(&lis_addr, 0, sizeof lis_addr);
	lis_addr.sun_family = AF_UNIX;
	int len = snprintf(lis_addr.sun_path + 1, sizeof lis_addr.sun_path - 1,
			   "libkq-bench-libc-calls-%d", (int)getpid());
	lis_len = (socklen_t)(offsetof(struct sockaddr_un, sun_path) + 1 + (size_t)len);
	if (bind(listener, (struct sockaddr *)&lis_addr, lis_len) != 0)
		bench_die("bind");
	if (listen(listener, 2 * MAXN) != 0)
		bench_die("listen");

	if ((devnull = open("/dev/null", O_WRONLY | O_CLOEXEC)) < 0)
		bench_die("open /dev/null");
	if ((memfd = memfd_create("libc-calls", MFD_CLOEXEC)) < 0)
		bench_die("memfd_create");
	raw_write_all(memfd, 4096);
	/* splice to /dev/null and sendfile from a memfd: kernels that refuse
	 * either lose that row, not the run */
	raw_write_all(pipe_w, 1);
	splice_ok = syscall(SYS_splice, pipe_r, NULL, devnull, NULL, 1, 0) == 1;
	if (!splice_ok)
		raw_read_all(pipe_r, 1);
	off_t off = 0;
	sendfile_ok = syscall(SYS_sendfile, devnull, memfd, &off, 1) == 1;

	/* Numbers for dup2, close_range and closefrom: free ones above all
	 * this program holds, in the first page of libkq's descriptor table
	 * (the page every program that made a socket has). */
	hi_base = 4 * MAXN;

	sig_rt = SIGRTMAX - 1;
	sigemptyset(&rt_set);
	sigaddset(&rt_set, sig_rt);
	if (sigprocmask(SIG_BLOCK, &rt_set, NULL) != 0)
		bench_die("sigprocmask");
	struct rlimit rl;
	if (getrlimit(RLIMIT_SIGPENDING, &rl) == 0 && rl.rlim_cur != RLIM_INFINITY &&
	    rl.rlim_cur < (rlim_t)MAXN + 16)
		bench_fail("RLIMIT_SIGPENDING is %lu: %d signals must be able to wait",
			   (unsigned long)rl.rlim_cur, MAXN);

	if (access(true_path, X_OK) != 0)
		true_path = "/usr/bin/true";
	if (access(true_path, X_OK) != 0)
		bench_fail("no /bin/true or /usr/bin/true to spawn");
}

static int parse_extra(const char *a)
{
	if (strcmp(a, "--second-thread") == 0)
		second_thread = 1;
	else if (strncmp(a, "--only=", 7) == 0)
		only = a + 7;
	else
		return 0;
	return 1;
}

static void print_row(const char *tag, const struct result *r, const char *fnlist)
{
	const struct bcase *c = r->c;
	printf("%s call=%s state=%s what=%s threads=%d libkq_ns=%.1f glibc_ns=%.1f ratio=%.3f "
	       "diff_ns=%.1f ratio_paired=%.3f libkq_iqr_pct=%.1f glibc_iqr_pct=%.1f calls=%ld "
	       "blocks=%ld clock=%s baseline=%s glibc_fn=%s\n",
	       tag, c->call, c->state, c->what, second_thread ? 2 : 1, r->kq, r->gl, r->ratio,
	       r->diff, r->paired, r->kq_iqr, r->gl_iqr, r->calls, nblocks,
	       cpu_clock == CLOCK_MONOTONIC ? "wall" : c->spawn ? "cpu+children" : "cpu", c->baseline,
	       fnlist);
	fflush(stdout);
}

int main(int argc, char **argv)
{
	struct bench_opts o;
	bench_parse_args(argc, argv, &o, parse_extra, "[--second-thread] [--only=WORD]");
	quick = o.quick;
	cpu_clock = o.wall ? CLOCK_MONOTONIC : CLOCK_PROCESS_CPUTIME_ID;
	nblocks = o.blocks ? o.blocks : quick ? 3 : 41;
	rounds_fast = o.per_block ? o.per_block : quick ? 1 : 8;
	rounds_spawn = o.per_block ? o.per_block : quick ? 1 : 10;

	if (bench_raise_nofile() < 4 * MAXN + MAXN + 64)
		bench_fail("the descriptor limit is below %d", 5 * MAXN + 64);
	fill_libkq();
	fill_glibc();
	bench_header("libc-calls", &o);

	int any = 0;
	for (int i = 0; i < NCALLS; i++)
		any |= kq_addr[i] != gl_addr[i];
	if (!any) {
		printf("# libkq replaces none of these functions in this build "
		       "(KQ_LIBC_REPLACEMENTS=OFF?): nothing to compare\n");
		printf("libc-calls-summary threads=%d rows=0 replaced=0\n", second_thread ? 2 : 1);
		return 0;
	}
	setup_resources();
	if (second_thread) {
		if (pipe2(idle_pipe, O_CLOEXEC) != 0)
			bench_die("pipe2");
		if ((errno = pthread_create(&idle_thread, NULL, idle_main, NULL)) != 0)
			bench_die("pthread_create");
	}
	ovh_cpu = clock_overhead(cpu_clock);
	ovh_wall = clock_overhead(CLOCK_MONOTONIC);
	printf("# glibc %s: its functions by dlsym() in libc.so.6's own scope (default "
	       "versions), libkq's by their plain names (%s); threads alive=%d\n",
	       gnu_get_libc_version(), kq_object, threads_alive());
	printf("# blocks=%ld rounds per block=%ld (spawn, vfork: %ld); socket cases: %d "
	       "messages a round; clock reading taken off each round: %.0f ns\n",
	       nblocks, rounds_fast, rounds_spawn, sock_n,
	       cpu_clock == CLOCK_MONOTONIC ? ovh_wall : ovh_cpu);
	fflush(stdout);

	/* The method against itself: glibc's read() both ways. */
	for (int i = 0; i < NCASES && !only; i++) {
		if (strcmp(cases[i].call, "read") != 0)
			continue;
		struct result r;
		char fnl[256];
		run_case(&cases[i], 1, &r);
		replaced(r.c->call, fnl, sizeof fnl);
		print_row("libc-calls-null", &r, fnl);
		break;
	}

	for (int i = 0; i < NCASES; i++) {
		const struct bcase *c = &cases[i];
		char fnl[256];
		if (only && !strstr(c->call, only))
			continue;
		if (!replaced(c->call, fnl, sizeof fnl)) {
			printf("# %s (%s): not replaced in this build, libkq's name is glibc's "
			       "function\n", c->call, c->what);
			continue;
		}
		if ((c->needs == 1 && !splice_ok) || (c->needs == 2 && !sendfile_ok)) {
			printf("# %s (%s): left out, this kernel refuses it\n", c->call, c->what);
			continue;
		}
		run_case(c, 0, &results[nresults]);
		print_row("libc-calls", &results[nresults], fnl);
		nresults++;
	}

	/* The summary: the common state, every row. */
	double ratios[NCASES], diffs[NCASES], iqrs[2 * NCASES];
	int nc = 0, ni = 0, maxr = -1, maxd = -1;
	for (int i = 0; i < nresults; i++) {
		const struct result *r = &results[i];
		iqrs[ni++] = r->kq_iqr;
		iqrs[ni++] = r->gl_iqr;
		if (strcmp(r->c->state, "common") != 0)
			continue;
		ratios[nc] = r->ratio;
		diffs[nc] = r->diff;
		nc++;
		if (maxr < 0 || r->ratio > results[maxr].ratio)
			maxr = i;
		if (maxd < 0 || r->diff > results[maxd].diff)
			maxd = i;
	}
	if (nc > 0)
		printf("libc-calls-summary threads=%d rows=%d common_rows=%d common_median_ratio=%.3f "
		       "common_max_ratio=%.3f common_max_ratio_call=%s common_median_diff_ns=%.1f "
		       "common_max_diff_ns=%.1f common_max_diff_call=%s median_iqr_pct=%.1f "
		       "max_iqr_pct=%.1f\n",
		       second_thread ? 2 : 1, nresults, nc, bench_median(ratios, (size_t)nc),
		       results[maxr].ratio, results[maxr].c->call, bench_median(diffs, (size_t)nc),
		       results[maxd].diff, results[maxd].c->call, bench_median(iqrs, (size_t)ni),
		       bench_quantile(iqrs, (size_t)ni, 1.0));

	/* The same for people. */
	printf("#\n# %-17s %-7s %-40s %9s %9s %7s %8s %6s\n", "call", "state", "case", "libkq ns",
	       "glibc ns", "ratio", "diff ns", "iqr %");
	for (int i = 0; i < nresults; i++) {
		const struct result *r = &results[i];
		double iqr = r->kq_iqr > r->gl_iqr ? r->kq_iqr : r->gl_iqr;
		printf("# %-17s %-7s %-40s %9.1f %9.1f %6.2fx %+8.1f %6.1f\n", r->c->call,
		       r->c->state, r->c->what, r->kq, r->gl, r->ratio, r->diff, iqr);
	}

	if (second_thread) {
		char c = 0;
		if (syscall(SYS_write, idle_pipe[1], &c, 1) != 1)
			bench_die("write");
		pthread_join(idle_thread, NULL);
	}
	return 0;
}
