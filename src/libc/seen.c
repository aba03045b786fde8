/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * Whether every child the C library can make with the program's calls is
 * one libkq sees (libc/births.c: then a socket need not be close-on-exec
 * to be private).  True when each replaced name that makes a child
 * (vfork, posix_spawn, posix_spawnp, system, popen) binds to libkq under
 * the C library's version too, which calls from code built without -lkq
 * carry: libkq comes before the C library in the lookup order.  Not so
 * when the program does not link libkq itself (only a library it uses
 * does), or libkq was dlopen()ed: the program's system() is then glibc's.
 *
 * The question is dlvsym(RTLD_DEFAULT, name, the C library's version)
 * from libkq, for each name: five lookups at every start of every program
 * linked with libkq, were they made in a constructor.  Most starts have
 * the answer without one: this file refers to each name
 * under the C library's version itself, and the loader binds those
 * references in libkq's own lookup scope, the one that dlvsym() searches,
 * before libkq runs.  A reference bound to libkq's definition means that
 * nothing before libkq in that scope defines the name, versioned or not,
 * so dlvsym() too finds libkq's: the answer is yes, read from the GOT
 * with plain loads (async-signal-safe, as the births must be).  A
 * reference bound elsewhere does not mean no: the loader binds a
 * versioned reference to a definition without a version (a sanitizer's
 * interceptor, a preloaded library built without versions) where
 * dlvsym() skips it, so the constructor asks dlvsym() then, as before.
 * The references take addresses, never call: the loader binds such
 * references at load even with lazy binding.
 *
 * libkq.so only (libkq.a's posix_spawn() is the C library's), and built
 * without link-time optimization: the assembler directives that version
 * the references would end up in another partition than the code using
 * them.
 */
#include "kq.h"
#include "sys.h"
#include "export.h"

#ifdef KQ_SHARED_LIB
#include <dlfcn.h>

#if KQ_VFORK_TRACKED && defined(KQ_LIBC_VERSION_system) &&                  \
	defined(KQ_LIBC_VERSION_popen) && defined(KQ_LIBC_VERSION_vfork) &&  \
	defined(KQ_LIBC_VERSION_posix_spawn) && defined(KQ_LIBC_VERSION_posix_spawnp)
/* kq_seen_<name>: an undefined reference to <name>@<the C library's
 * version>.  The link finds libkq's own definition but, the name being
 * exported, leaves the binding to the loader (a GOT entry). */
#define SEEN_REF(name)                                                        \
	__asm__(".symver kq_seen_" #name ", " #name "@" KQ_LIBC_VERSION_##name); \
	extern const char kq_seen_##name[]
SEEN_REF(system);
SEEN_REF(popen);
SEEN_REF(posix_spawn);
SEEN_REF(posix_spawnp);
SEEN_REF(vfork);

int kq_system(const char *);
FILE *kq_popen(const char *, const char *);
int kq_posix_spawn(pid_t *, const char *, const posix_spawn_file_actions_t *,
		   const posix_spawnattr_t *, char *const[], char *const[]);
int kq_posix_spawnp(pid_t *, const char *, const posix_spawn_file_actions_t *,
		    const posix_spawnattr_t *, char *const[], char *const[]);
pid_t kq_vfork(void);

/* The compiler may fold the comparison of two distinct names' addresses
 * to false: the bound one is made opaque to it. */
static bool bound_to(const void *ref, const void *mine)
{
	__asm__("" : "+r"(ref));
	return ref == mine;
}

/* Every reference bound to libkq's definition. */
static bool bound_to_libkq(void)
{
	return bound_to(kq_seen_system, (const void *)kq_system) &&
	       bound_to(kq_seen_popen, (const void *)kq_popen) &&
	       bound_to(kq_seen_posix_spawn, (const void *)kq_posix_spawn) &&
	       bound_to(kq_seen_posix_spawnp, (const void *)kq_posix_spawnp) &&
	       bound_to(kq_seen_vfork, (const void *)kq_vfork);
}

/* dlvsym()'s yes where a binding said no; written at load only then (the
 * common start writes nothing: no page of libkq's data touched for it). */
static bool seen_looked_up;

#define SEEN(name) { #name, KQ_LIBC_VERSION_##name, (void *)kq_##name }

__attribute__((constructor)) static void children_seen_check(void)
{
	if (bound_to_libkq())
		return;
	static const struct {
		const char *name, *version;
		void *mine;
	} fns[] = { SEEN(system), SEEN(popen), SEEN(posix_spawn),
		    SEEN(posix_spawnp), SEEN(vfork) };
	for (unsigned i = 0; i < sizeof fns / sizeof fns[0]; i++)
		if (dlvsym(RTLD_DEFAULT, fns[i].name, fns[i].version) != fns[i].mine)
			return;
	seen_looked_up = true;
}

bool kq_children_seen(void)
{
	return bound_to_libkq() || seen_looked_up;
}
#else
bool kq_children_seen(void)
{
	return false;
}
#endif
#endif /* KQ_SHARED_LIB */
