# SPDX-License-Identifier: BSD-2-Clause
# CPack: Debian packages split as distributions ship a library.
#
#   libkq0        libkq.so.0 and libkq.so.0.x.y in /usr/lib/<triplet> (the
#                 install component "runtime"); Section libs, Multi-Arch:
#                 same; Depends from dpkg-shlibdeps; a shlibs file, so that
#                 packages built against it depend on libkq0 (>= version).
#   libkq-dev     the libkq.so link, libkq.a, <sys/event.h> in
#                 /usr/include/kqueue, libkq.pc, the CMake package files and
#                 the manual pages (component "dev"); Section libdevel,
#                 Multi-Arch: same, Depends: libkq0 (= version).
#   libkq0-dbgsym the debug information split out of libkq.so.0.x.y
#                 (/usr/lib/debug/.build-id/...), as a .ddeb.
#
#   cmake -S . -B build-deb -G Ninja -DCMAKE_INSTALL_PREFIX=/usr \
#         -DKQ_BUILD_TESTS=OFF -DKQ_BUILD_BENCH=OFF
#   cmake --build build-deb
#   cd build-deb && cpack -G DEB
#     -> libkq0_0.1.0_amd64.deb libkq-dev_0.1.0_amd64.deb
#        libkq0-dbgsym_0.1.0_amd64.ddeb
#
# The prefix /usr is what makes GNUInstallDirs choose the multiarch library
# directory lib/<triplet> on Debian; cpack refuses a build directory whose
# CMAKE_INSTALL_LIBDIR is not that (configure with -DCMAKE_INSTALL_PREFIX=/usr
# or set CMAKE_INSTALL_LIBDIR).  The Maintainer field is the cache variable
# KQ_DEB_MAINTAINER ("Name <address>").  -DKQ_LIBKQUEUE_COMPAT=ON puts the
# libkqueue drop-in into libkq-dev as well.
#
# What cpack does beyond this file's settings:
#   cmake/cpack-deb-tools.cmake  (CPACK_PROJECT_CONFIG_FILE, read when cpack
#     starts): Depends by dpkg-shlibdeps when dpkg-dev and file(1) are there,
#     else libc6 (>= 2.34); the .so stripped into a
#     -dbgsym package when objcopy, readelf and file(1) are there, else
#     stripped with no debug information kept.
#   cmake/cpack-deb-layout.cmake  (CPACK_PRE_BUILD_SCRIPTS, after the
#     components are installed into the staging tree): gzip -9n the manual
#     pages, turn the .so link pages (EV_SET.2, ...) into symbolic links to
#     the compressed page they name, strip the debug information from
#     libkq.a and the .comment section from libkq.so, and put copyright
#     (the LICENSE) and changelog.gz into /usr/share/doc/<package>/
#     (libkq-dev also CHANGELOG.md.gz).
#   cmake/cpack-deb-control.cmake  (CPACK_POST_BUILD_SCRIPTS, on the
#     packages cpack made, with dpkg-deb): add Multi-Arch: same, drop the
#     postinst and postrm CPack writes to run ldconfig (the triggers file
#     does it), link /usr/share/doc/libkq0-dbgsym to libkq0's, and write
#     md5sums, Installed-Size and the order of the fields as dpkg does.
# The packages are native Debian packages: the version is the project's,
# with no Debian revision, and the packaging is part of the sources.
# test/sh/deb-lintian.sh checks them with lintian.
# test/sh/deb-package.sh builds the packages, checks them, and installs and
# uses them (as root, with dpkg) or unpacks and uses them (otherwise).

set(CPACK_PACKAGE_NAME "libkq")
set(CPACK_PACKAGE_VENDOR "libkq")
set(CPACK_PACKAGE_VERSION "${PROJECT_VERSION}")
set(CPACK_PACKAGING_INSTALL_PREFIX "/usr")
if(NOT CPACK_GENERATOR)
  set(CPACK_GENERATOR "DEB")
endif()

# Maintainer: an RFC 822 "Name <address>", as Debian requires.
set(KQ_DEB_MAINTAINER "libkq developers <libkq-dev@lists.libkq.org>" CACHE STRING
    "Maintainer field of the Debian packages made by cpack: Name <address>")
if(NOT KQ_DEB_MAINTAINER MATCHES "^[^<>@]+ <[^<>@ ]+@[^<>@ ]+\\.[^<>@ ]+>$")
  message(WARNING "KQ_DEB_MAINTAINER is '${KQ_DEB_MAINTAINER}', "
    "not 'Name <address>' as a Debian Maintainer field must be")
endif()
set(CPACK_PACKAGE_CONTACT "${KQ_DEB_MAINTAINER}")
set(CPACK_DEBIAN_PACKAGE_MAINTAINER "${KQ_DEB_MAINTAINER}")

# One package per install component (src/CMakeLists.txt, CMakeLists.txt).
set(CPACK_DEB_COMPONENT_INSTALL ON)
set(CPACK_COMPONENTS_ALL runtime dev)
set(CPACK_COMPONENT_DEV_DEPENDS runtime)
set(CPACK_DEBIAN_ENABLE_COMPONENT_DEPENDS ON)   # libkq-dev: libkq0 (= V)
set(CPACK_DEBIAN_FILE_NAME DEB-DEFAULT)         # name_version_arch.deb
set(CPACK_DEBIAN_PACKAGE_PRIORITY "optional")
# Descriptions: the first line is the summary, different for each package
# (cmake/cpack-deb-tools.cmake keeps CPack from adding another before it).
# Source: libkq for both.  Multi-Arch: same, which CPack has no variable
# for, is added to every package after cpack has made it
# (cmake/cpack-deb-control.cmake).

set(CPACK_DEBIAN_RUNTIME_PACKAGE_NAME "libkq${PROJECT_VERSION_MAJOR}")
set(CPACK_DEBIAN_RUNTIME_PACKAGE_SECTION "libs")
set(CPACK_DEBIAN_RUNTIME_PACKAGE_SOURCE "libkq")
set(CPACK_DEBIAN_RUNTIME_DESCRIPTION "\
${PROJECT_DESCRIPTION} (shared library)
libkq provides the FreeBSD kqueue()/kevent() event notification interface
on Linux, so that programs written for FreeBSD or macOS kqueue build
unchanged.  It runs on epoll, with FreeBSD's semantics and no helper
threads.  This package holds the shared library.")

set(CPACK_DEBIAN_DEV_PACKAGE_NAME "libkq-dev")
set(CPACK_DEBIAN_DEV_PACKAGE_SECTION "libdevel")
set(CPACK_DEBIAN_DEV_PACKAGE_SOURCE "libkq")
set(CPACK_DEBIAN_DEV_DESCRIPTION "\
${PROJECT_DESCRIPTION} (development files)
libkq provides the FreeBSD kqueue()/kevent() event notification interface
on Linux, so that programs written for FreeBSD or macOS kqueue build
unchanged.  This package holds <sys/event.h> (in /usr/include/kqueue),
the libkq.so link, the static library, the pkg-config and CMake package
files and the kqueue(2) and kevent(2) manual pages.")
# libkqueue-dev installs the same /usr/include/kqueue/sys/event.h.
set(CPACK_DEBIAN_DEV_PACKAGE_CONFLICTS "libkqueue-dev")
if(KQ_LIBKQUEUE_COMPAT)
  set(CPACK_DEBIAN_DEV_PACKAGE_PROVIDES "libkqueue-dev")
endif()

# Control files added to the packages (libkq0's triggers, and its shlibs
# without file(1): cmake/cpack-deb-tools.cmake) are mode 0644 whatever the
# umask they were written with.
set(CPACK_DEBIAN_PACKAGE_CONTROL_STRICT_PERMISSION TRUE)

# The shlibs control file of libkq0: "libkq 0 libkq0 (>= 0.1.0)".
set(CPACK_DEBIAN_PACKAGE_GENERATE_SHLIBS ON)
set(CPACK_DEBIAN_PACKAGE_GENERATE_SHLIBS_POLICY ">=")

# Read by cpack: Depends and stripping by the tools at hand, the Debian
# layout of the staged files, and the control fields CPack cannot write.
set(CPACK_PROJECT_CONFIG_FILE "${PROJECT_SOURCE_DIR}/cmake/cpack-deb-tools.cmake")
set(CPACK_PRE_BUILD_SCRIPTS "${PROJECT_SOURCE_DIR}/cmake/cpack-deb-layout.cmake")
set(CPACK_POST_BUILD_SCRIPTS "${PROJECT_SOURCE_DIR}/cmake/cpack-deb-control.cmake")
set(CPACK_KQ_SOURCE_DIR "${PROJECT_SOURCE_DIR}")
set(CPACK_KQ_BINARY_DIR "${PROJECT_BINARY_DIR}")
set(CPACK_KQ_LIBDIR "${CMAKE_INSTALL_LIBDIR}")
set(CPACK_KQ_MULTIARCH "${CMAKE_LIBRARY_ARCHITECTURE}")
set(CPACK_KQ_DOCDIR "${CMAKE_INSTALL_DOCDIR}")
set(CPACK_KQ_MANDIR "${CMAKE_INSTALL_MANDIR}")
set(CPACK_KQ_LICENSE "${PROJECT_SOURCE_DIR}/LICENSE")
set(CPACK_KQ_CHANGELOG "${PROJECT_SOURCE_DIR}/CHANGELOG.md")
set(CPACK_KQ_STRIP "${CMAKE_STRIP}")
set(CPACK_KQ_OBJCOPY "${CMAKE_OBJCOPY}")
set(CPACK_KQ_READELF "${CMAKE_READELF}")

include(CPack)
