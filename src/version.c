/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * libkq_version(), libkq_version_number(): the version of the library that
 * is running, as opposed to the LIBKQ_VERSION_* macros of the header a
 * program was compiled with.
 *
 * KQ_VERSION_* come from the project version in CMakeLists.txt
 * (cmake/version.cmake); the header's macros must say the same.
 */
#include <sys/event.h>

#define KQ_API __attribute__((visibility("default")))

#if !defined(KQ_VERSION_MAJOR) || !defined(KQ_VERSION_MINOR) || \
	!defined(KQ_VERSION_PATCH) || !defined(KQ_VERSION_STRING)
#error "KQ_VERSION_* are defined by cmake/version.cmake"
#endif

_Static_assert(LIBKQ_VERSION_MAJOR == KQ_VERSION_MAJOR &&
	       LIBKQ_VERSION_MINOR == KQ_VERSION_MINOR &&
	       LIBKQ_VERSION_PATCH == KQ_VERSION_PATCH,
	       "<sys/event.h> LIBKQ_VERSION_* differ from the project version");
_Static_assert(LIBKQ_VERSION_NUMBER == ((KQ_VERSION_MAJOR << 16) |
	       (KQ_VERSION_MINOR << 8) | KQ_VERSION_PATCH),
	       "<sys/event.h> LIBKQ_VERSION_NUMBER is not 0xMMmmpp");
_Static_assert(KQ_VERSION_MINOR < 256 && KQ_VERSION_PATCH < 256,
	       "LIBKQ_VERSION_NUMBER has 8 bits for the minor and patch numbers");

KQ_API const char *libkq_version(void)
{
	return KQ_VERSION_STRING;
}

KQ_API unsigned int libkq_version_number(void)
{
	return (KQ_VERSION_MAJOR << 16) | (KQ_VERSION_MINOR << 8) | KQ_VERSION_PATCH;
}
