/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * How libkq exports its replacements of C library functions (src/libc/):
 *
 *   int KQ_INTERPOSE(close)(int fd) { ... }
 *
 * In libkq.so the definition is exported under two versions of the name:
 *   close@@LIBKQ_0       the default, recorded by everything linked against
 *                        libkq (an event library, the program): such a
 *                        reference binds to libkq whatever the order of the
 *                        libraries in the process;
 *   close@GLIBC_2.2.5    the version the C library gives the name (read from
 *                        it at configure time, cmake/libc-versions.cmake), so
 *                        that a reference made by code that never heard of
 *                        libkq (any other shared library, a dlopen()ed module)
 *                        binds to libkq too, when libkq comes before the C
 *                        library in the lookup order (the program links it).
 * Within libkq.so, a call to another replacement goes to it directly
 * (KQ_CALL), not through the dynamic linker.
 *
 * In libkq.a the definitions carry the plain names: the program itself then
 * defines them, and the linker options of the CMake target and libkq.pc
 * export them for its libraries.
 */
#ifndef KQ_EXPORT_H
#define KQ_EXPORT_H

#include <pthread.h>
#include <spawn.h>
#include <stdbool.h>
#include <stdio.h>
#include <sys/socket.h>
#include <sys/types.h>

#ifdef KQ_SHARED_LIB
#include "kq_libc_versions.h"   /* generated: KQ_LIBC_SYMVER_<name> */
#define KQ_INTERPOSE(name)                                                   \
	__attribute__((visibility("default"), symver(#name "@@LIBKQ_0")      \
		       KQ_LIBC_SYMVER_##name)) kq_##name
#define KQ_CALL(name) kq_##name
#else
#define KQ_INTERPOSE(name) __attribute__((visibility("default"))) name
#define KQ_CALL(name) name
#endif

/*
 * A system call made a cancellation point the way glibc (2.34-2.39) makes
 * its own: asynchronous cancellation is on for the call alone, and turning
 * it on acts on a cancellation already pending.  For the replaced calls
 * whose glibc function has no public second name to call (__read, __close,
 * ... are used where it has): nothing is looked up at run time, so the
 * call is as async-signal-safe as the system call, in static links too.
 *
 * In a process of one thread glibc makes the system call alone, as no
 * other thread could cancel it: a signal handler's pthread_cancel() of its
 * own thread during the call then leaves the request pending (the call
 * returns EINTR, the next cancellation point acts), where asynchronous
 * cancellation would end the thread inside the handler.  glibc's
 * pthread_cancel() clears __libc_single_threaded, so a request pending
 * when the call starts takes the other branch (kq_alone(), lock.h, reads
 * the variable) and acts there, as in glibc; pthread_testcancel() covers a
 * program with a copy of the variable, which that write of glibc's does
 * not reach.  This also spares two compare-and-swaps a call.  Evaluates to
 * the value or -errno.
 */
#define KQ_CANCELLABLE(...) ({                                             \
	long kq_r_;                                                         \
	if (__builtin_expect(kq_alone(), 1)) {                              \
		pthread_testcancel();                                       \
		kq_r_ = KQ_SYSCALL(__VA_ARGS__);                            \
	} else {                                                            \
		int kq_ct_;                                                 \
		pthread_setcanceltype(PTHREAD_CANCEL_ASYNCHRONOUS, &kq_ct_); \
		kq_r_ = KQ_SYSCALL(__VA_ARGS__);                            \
		pthread_setcanceltype(kq_ct_, NULL);                        \
	}                                                                   \
	kq_r_;                                                              \
})

/* glibc's public second names of the functions libkq replaces: the same
 * functions, cancellation points where those are, reachable without a
 * lookup in static and dynamic links alike. */
int __close(int);
ssize_t __read(int, void *, size_t);
ssize_t __write(int, const void *, size_t);
ssize_t __send(int, const void *, size_t, int);
int __connect(int, const struct sockaddr *, socklen_t);
int __fcntl(int, int, ...);

/* Replacements one file calls in another (KQ_CALL). */
#ifdef KQ_SHARED_LIB
struct sigaction;
int kq_sigaction(int, const struct sigaction *, struct sigaction *);
int kq_fclose(FILE *);
#endif

/* Children libkq sees being made (libc/spawn.c, libc/shell.c). */
int kq_spawn(bool search, pid_t *pid, const char *path,
	     const posix_spawn_file_actions_t *fa, const posix_spawnattr_t *attr,
	     char *const argv[], char *const envp[]);
#ifdef KQ_SHARED_LIB
bool kq_children_seen(void);           /* libc/seen.c */
#endif
pid_t kq_popen_forget(FILE *f);       /* the child of a popen() stream, or -1 */
int kq_popen_wait(pid_t child, int closed);   /* pclose()'s result */

#endif /* KQ_EXPORT_H */
