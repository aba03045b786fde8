/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * <sys/event.h> for libkq: the FreeBSD (>= 12) kqueue/kevent interface on Linux.
 *
 * Every name and value below is FreeBSD's, so a program written for FreeBSD
 * compiles unchanged.  Behaviour is specified in the project's docs; where it
 * differs from FreeBSD, docs/differences.md says so.
 *
 * Link with -lkq.  The library also exports its own versions of libc's
 * close(), dup2(), dup3(), close_range(), closefrom() and fclose(), so
 * that knotes die with their descriptor as on BSD, of getsockopt(),
 * connect(), read(),
 * readv(), recv(), recvfrom(), recvmsg(), write(), writev(), send(),
 * sendto() and sendmsg() (and the _FORTIFY_SOURCE forms __read_chk(),
 * __recv_chk(), __recvfrom_chk()), so that a socket error libkq read for
 * EV_EOF stays where the program looks for it, of sigaction(),
 * signal(), sigtimedwait(), sigwaitinfo() and sigwait() for EVFILT_SIGNAL,
 * of socket(), socketpair(), accept(), accept4(), setsockopt(), dup(),
 * fcntl() and fcntl64(), so that libkq knows a new socket without asking
 * the kernel,
 * and on x86-64 of vfork() (see docs/differences.md and docs/guide.md).
 *
 * The header is C89 and C++98 clean and needs no feature-test macro.
 */
#ifndef LIBKQ_SYS_EVENT_H
#define LIBKQ_SYS_EVENT_H

#include <stdint.h>
#include <sys/types.h>
#include <time.h>

/*
 * kevent()'s timeout is a struct timespec.  <time.h> defines it in C11 and
 * later, in C++ and whenever POSIX is visible (the compilers' default gnu
 * modes, any POSIX feature-test macro), but not in strict C89/C99, where
 * glibc's own definition is taken (guarded by _STRUCT_TIMESPEC, so a later
 * <time.h> with POSIX enabled does not define it again).  It is also
 * declared before the prototypes, as FreeBSD does, so that they name the
 * file-scope struct with any other C library.
 */
#if defined(__GLIBC__) && !defined(_STRUCT_TIMESPEC) && \
    (__GLIBC__ > 2 || (__GLIBC__ == 2 && __GLIBC_MINOR__ >= 26))
#include <bits/types/struct_timespec.h>
#endif

#ifdef __cplusplus
extern "C" {
#endif

/*
 * libkq's own version (a libkq extension; FreeBSD has none of these names),
 * that of this header.  libkq_version() and libkq_version_number() give the
 * version of the library actually loaded.  LIBKQ_VERSION_NUMBER is
 * 0xMMmmpp, for tests such as #if LIBKQ_VERSION_NUMBER >= 0x000200.
 * See libkq_version(3).
 */
#define LIBKQ_VERSION_MAJOR 0
#define LIBKQ_VERSION_MINOR 1
#define LIBKQ_VERSION_PATCH 0
#define LIBKQ_VERSION_STRING "0.1.0"
#define LIBKQ_VERSION_NUMBER \
	((LIBKQ_VERSION_MAJOR << 16) | (LIBKQ_VERSION_MINOR << 8) | \
	 LIBKQ_VERSION_PATCH)

/* Filters (FreeBSD numbering). */
#define EVFILT_READ      (-1)
#define EVFILT_WRITE     (-2)
#define EVFILT_AIO       (-3)   /* attached by the AIO subsystem only */
#define EVFILT_VNODE     (-4)
#define EVFILT_PROC      (-5)
#define EVFILT_SIGNAL    (-6)
#define EVFILT_TIMER     (-7)
#define EVFILT_PROCDESC  (-8)
#define EVFILT_FS        (-9)
#define EVFILT_LIO       (-10)
#define EVFILT_USER      (-11)
#define EVFILT_SENDFILE  (-12)
#define EVFILT_EMPTY     (-13)
#define EVFILT_SYSCOUNT  13

/* Actions (input). */
#define EV_ADD           0x0001
#define EV_DELETE        0x0002
#define EV_ENABLE        0x0004
#define EV_DISABLE       0x0008
#define EV_FORCEONESHOT  0x0100
#define EV_KEEPUDATA     0x0200

/* Flags (input, kept on the knote and returned). */
#define EV_ONESHOT       0x0010
#define EV_CLEAR         0x0020
#define EV_RECEIPT       0x0040
#define EV_DISPATCH      0x0080

/*
 * libkq extension, not in FreeBSD (a bit FreeBSD leaves unused): given at
 * EV_ADD, wake only one waiter per event.  A READ/WRITE knote with it gets an
 * exclusive kernel registration, so one descriptor (a listening socket) in
 * many kqueues, e.g. one per worker process, wakes one of them per event
 * instead of all.  Threads waiting on one kqueue are woken one at a time
 * anyway.  Fixed at creation; ignored on an existing knote.  See
 * kevent(2), EV_WAKEONE.
 */
#define EV_WAKEONE       0x0800

#define EV_SYSFLAGS      0xF000
#define EV_DROP          0x1000
#define EV_FLAG1         0x2000
#define EV_FLAG2         0x4000

/* Returned. */
#define EV_EOF           0x8000
#define EV_ERROR         0x4000

/* EVFILT_USER */
#define NOTE_FFNOP       0x00000000
#define NOTE_FFAND       0x40000000
#define NOTE_FFOR        0x80000000
#define NOTE_FFCOPY      0xc0000000
#define NOTE_FFCTRLMASK  0xc0000000
#define NOTE_FFLAGSMASK  0x00ffffff
#define NOTE_TRIGGER     0x01000000

/* EVFILT_READ / EVFILT_WRITE */
#define NOTE_LOWAT       0x0001
#define NOTE_FILE_POLL   0x0002

/* EVFILT_VNODE */
#define NOTE_DELETE      0x0001
#define NOTE_WRITE       0x0002
#define NOTE_EXTEND      0x0004
#define NOTE_ATTRIB      0x0008
#define NOTE_LINK        0x0010
#define NOTE_RENAME      0x0020
#define NOTE_REVOKE      0x0040
#define NOTE_OPEN        0x0080
#define NOTE_CLOSE       0x0100
#define NOTE_CLOSE_WRITE 0x0200
#define NOTE_READ        0x0400

/* EVFILT_PROC / EVFILT_PROCDESC */
#define NOTE_EXIT        0x80000000
#define NOTE_FORK        0x40000000
#define NOTE_EXEC        0x20000000
#define NOTE_PCTRLMASK   0xf0000000
#define NOTE_PDATAMASK   0x000fffff
#define NOTE_TRACK       0x00000001
#define NOTE_TRACKERR    0x00000002
#define NOTE_CHILD       0x00000004

/* EVFILT_TIMER */
#define NOTE_SECONDS     0x00000001
#define NOTE_MSECONDS    0x00000002
#define NOTE_USECONDS    0x00000004
#define NOTE_NSECONDS    0x00000008
#define NOTE_ABSTIME     0x00000010

/*
 * EVFILT_FS: the vfsquery flags, FreeBSD's names and values.  FreeBSD
 * defines them in <sys/mount.h>; Linux's <sys/mount.h> has none of them, so
 * libkq provides them here, where a program that includes <sys/event.h> and
 * <sys/mount.h> in either order finds them.  libkq reports VQ_MOUNT and
 * VQ_UNMOUNT; the others are FreeBSD's file-system conditions (an NFS
 * server not responding, ...), which Linux does not signal: they are
 * accepted and never reported.  See kevent(2), EVFILT_FS.
 */
#ifndef VQ_NOTRESP
#define VQ_NOTRESP       0x0001   /* server down */
#define VQ_NEEDAUTH      0x0002   /* server bad auth */
#define VQ_LOWDISK       0x0004   /* we're low on space */
#define VQ_MOUNT         0x0008   /* new file system arrived */
#define VQ_UNMOUNT       0x0010   /* file system has left */
#define VQ_DEAD          0x0020   /* file system is dead, needs force unmount */
#define VQ_ASSIST        0x0040   /* file system needs assistance */
#define VQ_NOTRESPLOCK   0x0080   /* server lockd down */
#define VQ_FLAG0100      0x0100   /* placeholders */
#define VQ_FLAG0200      0x0200
#define VQ_FLAG0400      0x0400
#define VQ_FLAG0800      0x0800
#define VQ_FLAG1000      0x1000
#define VQ_FLAG2000      0x2000
#define VQ_FLAG4000      0x4000
#define VQ_FLAG8000      0x8000
#endif
/*
 * libkq extension (Apple's name and value; FreeBSD has no such note): a
 * mounted file system's options changed (a remount).  Reported only to a
 * knote that asks for it in fflags, so that a FreeBSD program never sees
 * the bit.
 */
#ifndef VQ_UPDATE
#define VQ_UPDATE        0x0100
#endif

/* kqueuex() flags */
#define KQUEUE_CLOEXEC   0x00000001
#define KQUEUE_CPONFORK  0x00000002   /* FreeBSD 15; not supported: EINVAL */

struct kevent {
	uintptr_t     ident;    /* identifier for this event */
	short         filter;   /* filter for event */
	unsigned short flags;   /* action flags for kqueue */
	unsigned int  fflags;   /* filter flag value */
	int64_t       data;     /* filter data value */
	void         *udata;    /* opaque user data identifier */
	uint64_t      ext[4];   /* extensions */
};

/* Evaluates kevp_ once; zero-fills ext[] as FreeBSD does. */
#define EV_SET(kevp_, a, b, c, d, e, f) do {            \
	struct kevent *kq_ev_set_ = (kevp_);            \
	kq_ev_set_->ident = (a);                        \
	kq_ev_set_->filter = (b);                       \
	kq_ev_set_->flags = (c);                        \
	kq_ev_set_->fflags = (d);                       \
	kq_ev_set_->data = (e);                         \
	kq_ev_set_->udata = (f);                        \
	kq_ev_set_->ext[0] = 0;                         \
	kq_ev_set_->ext[1] = 0;                         \
	kq_ev_set_->ext[2] = 0;                         \
	kq_ev_set_->ext[3] = 0;                         \
} while (0)


struct timespec;

int kqueue(void);
int kqueuex(unsigned int flags);
int kqueue1(int flags);
/* In C++ the function kevent "hides the constructor" of struct kevent
 * (-Wshadow): the BSD interface names both alike, and callers write
 * "struct kevent" for the type. */
#if defined(__cplusplus) && defined(__GNUC__)
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wshadow"
#endif
int kevent(int kq, const struct kevent *changelist, int nchanges,
           struct kevent *eventlist, int nevents,
           const struct timespec *timeout);
#if defined(__cplusplus) && defined(__GNUC__)
#pragma GCC diagnostic pop
#endif

/* The version of the loaded library: "MAJOR.MINOR.PATCH", and 0xMMmmpp. */
const char *libkq_version(void);
unsigned int libkq_version_number(void);

#ifdef __cplusplus
}
#endif

#endif /* LIBKQ_SYS_EVENT_H */
