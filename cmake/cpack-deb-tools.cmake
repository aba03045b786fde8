# SPDX-License-Identifier: BSD-2-Clause
# CPACK_PROJECT_CONFIG_FILE of libkq (set in cmake/packaging.cmake): cpack
# reads it when it starts, once per generator, after CPackConfig.cmake.  For
# the DEB generator it checks the build directory and chooses, by the tools
# on this machine at packaging time (not at configure time), how Depends is
# found and how the library is stripped.
if(NOT CPACK_GENERATOR STREQUAL "DEB")
  return()
endif()

# The Debian layout is made by CPACK_PRE_BUILD_SCRIPTS (cpack 3.19).
if(CMAKE_VERSION VERSION_LESS 3.19)
  message(FATAL_ERROR "libkq's Debian packages need cpack 3.19 or newer "
    "(this is ${CMAKE_VERSION})")
endif()
# A Debian library lives in the multiarch directory /usr/lib/<triplet>.
# GNUInstallDirs chooses it when the install prefix is /usr.
if(CPACK_KQ_MULTIARCH AND NOT CPACK_KQ_LIBDIR STREQUAL "lib/${CPACK_KQ_MULTIARCH}")
  message(FATAL_ERROR "this build directory installs the library into "
    "<prefix>/${CPACK_KQ_LIBDIR}, but the Debian packages need "
    "/usr/lib/${CPACK_KQ_MULTIARCH}: configure it with "
    "-DCMAKE_INSTALL_PREFIX=/usr (or -DCMAKE_INSTALL_LIBDIR=lib/${CPACK_KQ_MULTIARCH})")
endif()

# Each package's description starts with its own summary line
# (cmake/packaging.cmake); CPack puts CPACK_PACKAGE_DESCRIPTION_SUMMARY
# before it unless that is left at CPack's default.
set(CPACK_PACKAGE_DESCRIPTION_SUMMARY "${CPACK_DEFAULT_PACKAGE_DESCRIPTION_SUMMARY}")

# file(1) is what CPack uses to find the ELF files for dpkg-shlibdeps, for
# the shlibs file and for splitting out debug information.
find_program(KQ_FILE_EXECUTABLE file)

# Depends of libkq0.  dpkg-shlibdeps (package dpkg-dev) works it out from
# the library and the symbols files of the packages it links with.  Without
# it, the values it gives on Debian 12 (glibc 2.36): the newest glibc symbol
# versions libkq.so uses (objdump -T) are GLIBC_2.34 (dlsym, pthread_once,
# pthread_mutex_trylock and pthread_testcancel moved into libc.so.6 in 2.34;
# epoll_pwait2, GLIBC_2.35, is called as a system call).  libgcc_s is not
# linked: the unwinder is looked up when a thread is cancelled in kevent(),
# and glibc itself loads it for any cancellation (src/unwind.c).
# test/sh/deb-package.sh checks
# that libc6's version is exactly the newest one used.
find_program(KQ_DPKG_SHLIBDEPS dpkg-shlibdeps)
if(KQ_DPKG_SHLIBDEPS AND KQ_FILE_EXECUTABLE)
  set(CPACK_DEBIAN_PACKAGE_SHLIBDEPS ON)
else()
  set(CPACK_DEBIAN_PACKAGE_SHLIBDEPS OFF)
  set(CPACK_DEBIAN_RUNTIME_PACKAGE_DEPENDS "libc6 (>= 2.34)")
  message(STATUS "libkq: dpkg-shlibdeps or file(1) is not installed; "
    "libkq0 Depends: ${CPACK_DEBIAN_RUNTIME_PACKAGE_DEPENDS}")
endif()
# libkq-dev needs nothing but libkq0 (CPACK_COMPONENT_DEV_DEPENDS).
set(CPACK_DEBIAN_DEV_PACKAGE_DEPENDS "")

# libkq0's control files.  triggers: the dynamic linker's cache is
# refreshed (ldconfig) when libkq0 is installed or removed, as debhelper
# arranges for every library package.  (With file(1), CPack also writes a
# postinst and postrm running ldconfig, which lintian rejects;
# cmake/cpack-deb-control.cmake drops them.)  shlibs: CPack writes it from the
# library's SONAME, with file(1); without file(1), the same line is written
# here.
set(kq_control "${CPACK_KQ_BINARY_DIR}/cpack-deb")
file(WRITE "${kq_control}/triggers" "activate-noawait ldconfig\n")
set(CPACK_DEBIAN_RUNTIME_PACKAGE_CONTROL_EXTRA "${kq_control}/triggers")
if(NOT KQ_FILE_EXECUTABLE)
  set(CPACK_DEBIAN_PACKAGE_GENERATE_SHLIBS OFF)
  string(REGEX MATCH "^[0-9]+" kq_soversion "${CPACK_PACKAGE_VERSION}")
  file(WRITE "${kq_control}/shlibs"
    "libkq ${kq_soversion} libkq${kq_soversion} (>= ${CPACK_PACKAGE_VERSION})\n")
  list(APPEND CPACK_DEBIAN_RUNTIME_PACKAGE_CONTROL_EXTRA "${kq_control}/shlibs")
endif()

# Stripping.  With objcopy, readelf and file(1), CPack strips libkq.so.0.x.y
# (objcopy --strip-unneeded, with a .gnu_debuglink) and puts its debug
# information into libkq0-dbgsym_<version>_<arch>.ddeb, under
# /usr/lib/debug/.build-id/, where gdb looks for it.  Without them, the
# install step strips the library and no debug information is kept.
# libkq.a is stripped of debug information in either case
# (cmake/cpack-deb-layout.cmake).
if(KQ_FILE_EXECUTABLE AND EXISTS "${CPACK_KQ_OBJCOPY}" AND EXISTS "${CPACK_KQ_READELF}")
  set(CPACK_OBJCOPY_EXECUTABLE "${CPACK_KQ_OBJCOPY}")
  set(CPACK_READELF_EXECUTABLE "${CPACK_KQ_READELF}")
  set(CPACK_DEBIAN_RUNTIME_DEBUGINFO_PACKAGE ON)
  set(CPACK_STRIP_FILES OFF)
else()
  set(CPACK_DEBIAN_RUNTIME_DEBUGINFO_PACKAGE OFF)
  set(CPACK_STRIP_FILES ON)
  message(STATUS "libkq: objcopy, readelf or file(1) is missing; "
    "libkq.so is stripped without a -dbgsym package")
endif()
