/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * How libkq exports its replacements of C library functions (interpose.c,
 * sockio.c, filter/signal.c):
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
 * The C library's definition of a name we also export (sockio.c): looked
 * up in libc itself on first use, as these functions can be called before
 * any constructor of ours has run.  In a function body,
 *   LIBC(accept4);
 * declares `real`, the C library's accept4.
 */
void *kq_libc_fn(const char *name, void *_Atomic *cache);
#define LIBC(name)                                                         \
	static void *_Atomic name##_cache;                                  \
	__typeof__(name) *real = (__typeof__(name) *)kq_libc_fn(#name, &name##_cache)

#endif /* KQ_EXPORT_H */
