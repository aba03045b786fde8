/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * Where libkq keeps the descriptors it holds for itself (a kqueue's
 * private epoll set, its waitset, the process's wake eventfd, parked
 * inotify instances): out of the program's way.  On FreeBSD a kqueue is
 * one descriptor, so the number after kqueue()'s is the program's next
 * one.  These descriptors go high among the numbers the program may open
 * (RLIMIT_NOFILE, capped at KQ_HIDE_TOP), below its last eighth, going
 * down: the kernel hands the program the lowest free numbers, so they
 * meet ours only when the program has almost all it may have.  The cap:
 * a limit of a million would otherwise make the kernel grow the process's
 * descriptor table to a million entries.
 */
#include "kq.h"
#include "sys.h"

#include <fcntl.h>
#include <sched.h>
#include <stdatomic.h>
#include <sys/stat.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/syscall.h>

#define KQ_HIDE_TOP  4096   /* numbers above it are never used */

/* The highest number to use: the program's last numbers stay its own.
 * Servers tell that they are out of descriptors by the number accept()
 * gives (memcached rejects a connection that gets the limit's last
 * number): were libkq's there, no connection could get it, and the
 * server would find out only from EMFILE, later and differently. */
static int hide_top(void)
{
	struct rlimit rl;
	long lim = KQ_HIDE_TOP;
	if (getrlimit(RLIMIT_NOFILE, &rl) == 0 && rl.rlim_cur != RLIM_INFINITY &&
	    rl.rlim_cur < KQ_HIDE_TOP)
		lim = (long)rl.rlim_cur;
	long gap = lim / 8 < 128 ? lim / 8 : 128;
	return lim - 1 - gap > 0 ? (int)(lim - 1 - gap) : 0;
}

/* Below the number libkq took last: where the next free one usually is.
 * Only a hint (a freed number above it is found by the search). */
static atomic_int hide_hint = INT_MAX;

/*
 * A close-on-exec copy of fd as high as it fits, or -errno.  F_DUPFD gives
 * the lowest free number at or above its floor: the floor goes down from
 * the top, by steps that double while nothing is free above it, so the
 * numbers fill from the top down in a few calls.  Async-signal-safe
 * (system calls only).
 */
static int dup_high_raw(int fd)
{
	int top = hide_top();
	int hint = atomic_load_explicit(&hide_hint, memory_order_relaxed);
	if (hint <= top && hint > 0) {
		int r = sys_fcntl(fd, F_DUPFD_CLOEXEC, hint - 1);
		if (r >= 0 && r <= top) {
			atomic_store_explicit(&hide_hint, r, memory_order_relaxed);
			return r;
		}
		if (r >= 0)
			sys_close(r);
	}
	for (int step = 1;; step *= 2) {
		int floor = top - step + 1;
		if (floor < 0)
			floor = 0;
		int r = sys_fcntl(fd, F_DUPFD_CLOEXEC, floor);
		if (r >= 0 && r > top && floor > 0) {
			sys_close(r);   /* above the top: a lower floor */
			continue;
		}
		if (r >= 0)
			atomic_store_explicit(&hide_hint, r, memory_order_relaxed);
		if (r >= 0 || r != -EMFILE || floor == 0)
			return r;
	}
}

/*
 * The program's dup2() and dup3() between their look at the target number
 * and their system call (close.c).  A number libkq takes in that gap is
 * not marked yet when the program looks, so the program's call would put
 * its descriptor there over libkq's, silently: a number the program never
 * had and libkq had not yet marked is free as far as it can tell, as on
 * FreeBSD.  So the program counts its gap (dup_windows; dup_opens counts
 * every gap begun), and a number libkq takes is marked first, then every
 * gap open meanwhile is waited out, and if any was, the number is asked
 * whether it still holds libkq's copy.  A gap never holds a lock or waits
 * for anything (a move, which takes locks, happens outside it), so the
 * wait is short even under a kqueue's lock.  Seq-cst on both sides: the
 * program's count before its look, libkq's mark before its count.
 */
static atomic_uint dup_windows, dup_opens;
static __thread unsigned my_dup_windows __attribute__((tls_model("initial-exec")));

void kq_dup_window_open(void)
{
	my_dup_windows++;
	atomic_fetch_add(&dup_opens, 1);
	atomic_fetch_add(&dup_windows, 1);
	atomic_thread_fence(memory_order_seq_cst);
}

void kq_dup_window_close(void)
{
	atomic_fetch_sub(&dup_windows, 1);
	my_dup_windows--;
}

/* Whether number r still holds the close-on-exec copy of fd libkq made
 * there.  Where kcmp() is refused, the same inode (an anonymous one is
 * shared by all eventfds, say) and the flag are all that can be asked. */
static bool still_copy(int fd, int r)
{
	if (sys_fcntl(r, F_GETFD, 0) != FD_CLOEXEC)
		return false;
	long k = sys_same_file(fd, r);
	if (k >= 0)
		return k == 0;
	struct stat a, b;
	return sys_fstat(fd, &a) == 0 && sys_fstat(r, &b) == 0 &&
	       a.st_dev == b.st_dev && a.st_ino == b.st_ino;
}

/* dup_high_raw(), the copy marked as libkq's (kq_fdtab_hide) and sure to
 * be libkq's: see the gaps above.  A number the program's dup2() took
 * meanwhile is the program's; the copy is made again elsewhere. */
int kq_fd_dup_high(int fd)
{
	for (int tries = 0;; tries++) {
		unsigned opens = atomic_load(&dup_opens);
		bool open = atomic_load(&dup_windows) > my_dup_windows;
		int r = dup_high_raw(fd);
		if (r < 0)
			return r;
		kq_fdtab_hide(r);
		atomic_thread_fence(memory_order_seq_cst);
		while (atomic_load(&dup_windows) > my_dup_windows) {
			open = true;
			sched_yield();
		}
		if ((!open && atomic_load(&dup_opens) == opens) || still_copy(fd, r))
			return r;
		kq_fdtab_unhide(r);   /* the program's now: not closed */
		if (tries == 100)
			return -EBUSY;
	}
}

/* fd moved high (the original closed); fd itself when no number above it
 * is free, which is then where it stays. */
int kq_fd_hide(int fd)
{
	int r = kq_fd_dup_high(fd);
	if (r < 0)
		return fd;
	if (r < fd) {
		kq_fdtab_unhide(r);
		sys_close(r);
		return fd;
	}
	sys_close(fd);
	return r;
}

/* A descriptor libkq made for its own use (a filter's timerfd, the
 * signal descriptors, a WRITE set, a netlink socket, an io_uring ring, an
 * eventfd's fdinfo file): moved out of the program's way and marked, so
 * that the program's close() of the number is EBADF, as on FreeBSD where
 * it is free.  dup2() onto it moves it (move.c). */
int kq_fd_own(int fd)
{
	if (fd < 0)
		return fd;
	fd = kq_fd_hide(fd);
	kq_fdtab_hide(fd);
	return fd;
}

void kq_fd_own_close(int fd)
{
	if (fd < 0)
		return;
	kq_fdtab_unhide(fd);
	sys_close(fd);
}

/*
 * What fd, marked as libkq's own, still is: a raw close the program made
 * (close_range by system call, say) frees the number without libkq
 * knowing, and the program's next file there must not be refused its
 * close().  libkq's own are close-on-exec epoll sets, eventfds, inotify
 * instances, pipes (standing in for the eventfds where eventfd2 is
 * refused), and what kq_fd_own() marks (timerfds, signalfds, io_uring
 * rings, netlink sockets, pidfds, fanotify groups, O_PATH directory
 * handles, read-only /proc fdinfo files); anything else at the number is
 * the program's, and the mark goes.  Only for marked numbers: a program
 * closing one of libkq's.
 */
int kq_fd_hidden_kind(int fd)
{
	if (!kq_fdtab_busy(fd) || !kq_fdtab_hidden(fd))
		return KQ_OWN_NONE;
	if (sys_fcntl(fd, F_GETFD, 0) != FD_CLOEXEC)
		goto gone;
	char path[48], link[64];
	snprintf(path, sizeof path, "%s/fd/%d", kq_procfs_self(), fd);
	long n = KQ_SYSCALL(SYS_readlinkat, AT_FDCWD, path, link, sizeof link - 1);
	if (n < 0)
		return n != -ENOENT ? KQ_OWN_FIXED : KQ_OWN_NONE;   /* no /proc: trust the mark */
	link[n] = 0;
	if (!strcmp(link, "anon_inode:[eventpoll]"))
		return KQ_OWN_EPOLL;
	if (!strcmp(link, "anon_inode:[eventfd]"))
		return KQ_OWN_EVENTFD;
	if (!strcmp(link, "anon_inode:inotify"))
		return KQ_OWN_INOTIFY;
	if (!strcmp(link, "anon_inode:[timerfd]") || !strcmp(link, "anon_inode:[signalfd]") ||
	    !strcmp(link, "anon_inode:[io_uring]") || !strcmp(link, "anon_inode:[pidfd]") ||
	    !strcmp(link, "anon_inode:[fanotify]") ||
	    !strncmp(link, "socket:[", 8) || !strncmp(link, "pipe:[", 6))
		return KQ_OWN_FIXED;
	int fl = sys_fcntl(fd, F_GETFL, 0);
	/* a directory handle (filter/vnode.c, O_PATH) */
	if (link[0] == '/' && fl >= 0 && (fl & O_PATH))
		return KQ_OWN_FIXED;
	/* an eventfd's fdinfo file, kept or spare (filter/efdinfo.c):
	 * "/proc/<pid>/fdinfo/<n>", or ".../task/<tid>/fdinfo/<n>" */
	if (fl >= 0 && (fl & O_ACCMODE) == O_RDONLY && !strncmp(link, "/proc/", 6) &&
	    strstr(link, "/fdinfo/"))
		return KQ_OWN_FIXED;
gone:
	kq_fdtab_unhide(fd);
	return KQ_OWN_NONE;
}

bool kq_fd_hidden_live(int fd)
{
	return kq_fd_hidden_kind(fd) != KQ_OWN_NONE;
}
