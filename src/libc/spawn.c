/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * posix_spawn() and posix_spawnp(), caught so that libkq sees the child
 * being made: it copies the descriptors, so none stays private (fdtab.c,
 * children), and it keeps the signals the program ignores ignored across
 * its exec while knotes watch them (filter/signal.c,
 * kq_signal_spawn_enter).  Otherwise they are the C library's own call.
 * system() and popen() (shell.c) spawn through kq_spawn() too.
 *
 * The C library's function is reached under its own version of the name,
 * found on first use (posix_spawn() is not async-signal-safe, so a lookup
 * is allowed here).  Exported as src/export.h describes.
 */
#include "kq.h"
#include "sys.h"
#include "export.h"

#include <spawn.h>

/* See close.c: keeps this object in programs linked with libkq.a. */
const char kq_spawn_anchor = 1;

typedef int spawn_fn(pid_t *, const char *, const posix_spawn_file_actions_t *,
		     const posix_spawnattr_t *, char *const[], char *const[]);

/*
 * posix_spawn() itself is replaced in libkq.so only.  libkq.a cannot reach
 * the C library's function once it defines the name: in a dynamic program
 * glibc's posix_spawn is known by that name alone (which the program's own
 * definition, libkq's, then takes), and its second name exists only in the
 * static libc.a, which libkq.a cannot tell it is linked with.  With libkq.a,
 * the program's posix_spawn() is glibc's, unseen (docs/differences.md), and
 * libkq's own spawns call it by its name.
 */
#ifdef KQ_SHARED_LIB
#include <dlfcn.h>

static spawn_fn *libc_spawn(bool search)
{
	static spawn_fn *_Atomic fns[2];
	spawn_fn *f = atomic_load_explicit(&fns[search], memory_order_acquire);
	if (f)
		return f;
	/* looked up in the C library itself: RTLD_NEXT would find libkq's
	 * own when the C library comes first in the lookup order */
	void *h = dlopen("libc.so.6", RTLD_LAZY | RTLD_NOLOAD);
	if (h) {
		f = search ? (spawn_fn *)dlvsym(h, "posix_spawnp", KQ_LIBC_VERSION_posix_spawnp)
			   : (spawn_fn *)dlvsym(h, "posix_spawn", KQ_LIBC_VERSION_posix_spawn);
		dlclose(h);
	}
	atomic_store_explicit(&fns[search], f, memory_order_release);
	return f;
}
#else
static spawn_fn *libc_spawn(bool search)
{
	return search ? posix_spawnp : posix_spawn;
}
#endif

/* A spawn libkq sees.  Returns 0 or an error number, as posix_spawn(). */
int kq_spawn(bool search, pid_t *pid, const char *path,
	     const posix_spawn_file_actions_t *fa, const posix_spawnattr_t *attr,
	     char *const argv[], char *const envp[])
{
	spawn_fn *real = libc_spawn(search);
	if (!real)
		return ENOSYS;
	/* a vfork() child's spawn: the tables are its parent's */
	if (kq_foreign_process())
		return real(pid, path, fa, attr, argv, envp);
	/* waits for closes in other threads, so before any lock is taken */
	kq_fdtab_child_begin();
	sigset_t old;
	uint64_t swapped = kq_signal_spawn_enter(&old);
	int r = real(pid, path, fa, attr, argv, envp);
	kq_signal_spawn_leave(swapped, &old);
	kq_fdtab_child_end();
	return r;
}

#ifdef KQ_SHARED_LIB
int KQ_INTERPOSE(posix_spawn)(pid_t *pid, const char *path,
			      const posix_spawn_file_actions_t *fa,
			      const posix_spawnattr_t *attr, char *const argv[],
			      char *const envp[])
{
	return kq_spawn(false, pid, path, fa, attr, argv, envp);
}

int KQ_INTERPOSE(posix_spawnp)(pid_t *pid, const char *file,
			       const posix_spawn_file_actions_t *fa,
			       const posix_spawnattr_t *attr, char *const argv[],
			       char *const envp[])
{
	return kq_spawn(true, pid, file, fa, attr, argv, envp);
}
#endif
