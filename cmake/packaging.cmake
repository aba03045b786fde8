# SPDX-License-Identifier: BSD-2-Clause
# CPack: a Debian package of everything `cmake --install` installs (the
# shared and static library, <sys/event.h> under include/kqueue, libkq.pc,
# the CMake package files and the manual pages).
#
#   cmake -S . -B build-pkg -G Ninja -DKQ_BUILD_TESTS=OFF -DKQ_BUILD_BENCH=OFF
#   cmake --build build-pkg
#   cd build-pkg && cpack -G DEB        # -> libkq_0.1.0_amd64.deb
#
# Files go under /usr (CPACK_PACKAGING_INSTALL_PREFIX).  The .pc file names
# /usr (a tree unpacked elsewhere with `dpkg-deb -x` is used with
# `pkg-config --define-variable=prefix=...`); the CMake package locates its
# prefix relative to itself.  Configure with
# -DKQ_LIBKQUEUE_COMPAT=ON to package the libkqueue drop-in as well.
# test/sh/deb-package.sh builds, unpacks and uses the package.

set(CPACK_PACKAGE_NAME "libkq")
set(CPACK_PACKAGE_VENDOR "libkq")
set(CPACK_PACKAGE_VERSION "${PROJECT_VERSION}")
set(CPACK_PACKAGE_DESCRIPTION_SUMMARY "${PROJECT_DESCRIPTION}")
set(CPACK_PACKAGE_DESCRIPTION "\
libkq provides the FreeBSD kqueue()/kevent() event notification interface
on Linux, so that programs written for FreeBSD or macOS kqueue build
unchanged.  It runs on epoll, with FreeBSD's semantics and no helper
threads.  This package holds the shared and static library, <sys/event.h>
(in /usr/include/kqueue), the pkg-config and CMake package files and the
kqueue(2) and kevent(2) manual pages.")
set(CPACK_PACKAGE_CONTACT "libkq developers" CACHE STRING
    "Maintainer field of the packages made by cpack")
set(CPACK_PACKAGING_INSTALL_PREFIX "/usr")
if(NOT CPACK_GENERATOR)
  set(CPACK_GENERATOR "DEB")
endif()

set(CPACK_DEBIAN_FILE_NAME DEB-DEFAULT)
set(CPACK_DEBIAN_PACKAGE_SECTION "libdevel")
set(CPACK_DEBIAN_PACKAGE_PRIORITY "optional")
# Depends: what libkq.so needs at run time, the C library and libgcc_s (the
# unwinder: -fexceptions makes it use __gcc_personality_v0@GCC_3.3.1 and
# _Unwind_Resume for pthread_cleanup_push).  With dpkg-shlibdeps (dpkg-dev)
# installed, cpack works the versions out from the built library.  Without
# it, the values a build on Debian 12 (glibc 2.36) gets: the newest glibc
# symbol versions the library uses (objdump -T) are GLIBC_2.34, for dlsym,
# pthread_once, pthread_mutex_trylock and pthread_testcancel, which glibc
# 2.34 moved into libc.so.6 (a build against an older glibc needs less;
# epoll_pwait2, GLIBC_2.35, is called as a system call).  deb-package.sh
# checks that the package's libc6 version is exactly the newest one used.
find_program(KQ_DPKG_SHLIBDEPS dpkg-shlibdeps)
mark_as_advanced(KQ_DPKG_SHLIBDEPS)
if(KQ_DPKG_SHLIBDEPS)
  set(CPACK_DEBIAN_PACKAGE_SHLIBDEPS ON)
else()
  set(CPACK_DEBIAN_PACKAGE_DEPENDS "libc6 (>= 2.34), libgcc-s1 (>= 3.3.1)")
endif()
# libkqueue-dev installs the same /usr/include/kqueue/sys/event.h.
set(CPACK_DEBIAN_PACKAGE_CONFLICTS "libkqueue-dev")
if(KQ_LIBKQUEUE_COMPAT)
  set(CPACK_DEBIAN_PACKAGE_PROVIDES "libkqueue-dev")
endif()

include(CPack)
