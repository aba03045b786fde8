/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * levent-visible.h: forced into every libevent compilation (-include) by
 * libevent.sh.  libevent's CMake build compiles its shared libraries with
 * -fvisibility=hidden and exports only what its public headers mark, yet
 * Debian's security updates add regress tests of internal functions (the
 * HTTP Transfer-Encoding parsers of 2.1.12-stable-8+deb12u1) that are not
 * marked, so regress no longer links against the shared libraries.  The
 * pragma outranks the command-line option: every symbol keeps its default
 * visibility, nothing else about the build changes, and regress links as
 * it did before those tests.
 */
#pragma GCC visibility push(default)
