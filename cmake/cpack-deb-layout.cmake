# SPDX-License-Identifier: BSD-2-Clause
# CPACK_PRE_BUILD_SCRIPTS of libkq (set in cmake/packaging.cmake): cpack runs
# it after installing each component into its staging tree
# (CPACK_TEMPORARY_DIRECTORY/<component>/usr) and before making the
# packages.  For DEB it gives the trees the layout Debian packages have, as
# debhelper would:
#   - manual pages compressed with gzip -9n; a page that only sources
#     another (".so man2/kevent.2", e.g. EV_SET.2) becomes a symbolic link
#     to the compressed page it names (EV_SET.2.gz -> kevent.2.gz), which
#     man(1) follows, as dh_installman does;
#   - libkq.a stripped of debug information, of the .comment and .note
#     sections and of the LTO bytecode (the objects are fat, so the machine
#     code stays; the bytecode only works with the GCC that wrote it), in
#     deterministic mode, as dh_strip does; libkq.so.N.x.y without its
#     .comment and .note sections (cpack then splits out its debug
#     information: cmake/cpack-deb-tools.cmake);
#   - /usr/share/doc/<package>/copyright (the LICENSE) and changelog.gz in
#     each package, in place of /usr/share/doc/libkq/LICENSE, and
#     CHANGELOG.md.gz (the project's CHANGELOG.md) in libkq-dev.  The
#     packages are native (the version has no Debian revision), so their
#     Debian changelog is changelog.gz, not changelog.Debian.gz.
# `cmake --install` is not affected: its files stay as they are.
if(NOT CPACK_GENERATOR STREQUAL "DEB")
  return()
endif()
cmake_policy(PUSH)
cmake_policy(VERSION 3.19)     # CMP0007: lists keep empty elements

find_program(KQ_GZIP gzip)
if(NOT KQ_GZIP)
  message(FATAL_ERROR "gzip is needed to compress the manual pages")
endif()

set(kq_stage "${CPACK_TEMPORARY_DIRECTORY}")
set(kq_prefix "${CPACK_PACKAGING_INSTALL_PREFIX}")

function(kq_gzip file)           # FILE -> FILE.gz, no name or time inside
  execute_process(COMMAND "${KQ_GZIP}" -9nf "${file}" RESULT_VARIABLE rc)
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "gzip -9n ${file} failed")
  endif()
  file(CHMOD "${file}.gz" PERMISSIONS OWNER_READ OWNER_WRITE GROUP_READ WORLD_READ)
endfunction()

function(kq_write file text)     # a 0644 file with TEXT
  file(WRITE "${file}" "${text}")
  file(CHMOD "${file}" PERMISSIONS OWNER_READ OWNER_WRITE GROUP_READ WORLD_READ)
endfunction()

# The Debian changelog: one entry for the version packaged.  Its date is
# that of the sources, not the time of packaging, so that the file is the
# same in packages built at different times, as Multi-Arch: same requires
# of a file in both the amd64 and the i386 package, say:
# SOURCE_DATE_EPOCH when it is set, else the time of the last commit when
# the sources are a git checkout, else the time CHANGELOG.md was changed.
set(kq_epoch "$ENV{SOURCE_DATE_EPOCH}")
if(NOT kq_epoch MATCHES "^[0-9]+$")
  set(kq_epoch "")
  find_program(KQ_GIT git)
  if(KQ_GIT)
    execute_process(COMMAND "${KQ_GIT}" -C "${CPACK_KQ_SOURCE_DIR}" rev-parse --show-toplevel
      RESULT_VARIABLE rc OUTPUT_VARIABLE top ERROR_QUIET OUTPUT_STRIP_TRAILING_WHITESPACE)
    if(rc EQUAL 0)
      get_filename_component(top "${top}" REALPATH)
      get_filename_component(src "${CPACK_KQ_SOURCE_DIR}" REALPATH)
    endif()
    if(rc EQUAL 0 AND top STREQUAL src)
      execute_process(COMMAND "${KQ_GIT}" -C "${CPACK_KQ_SOURCE_DIR}" log -1 --format=%ct
        RESULT_VARIABLE rc OUTPUT_VARIABLE kq_epoch ERROR_QUIET OUTPUT_STRIP_TRAILING_WHITESPACE)
      if(NOT rc EQUAL 0 OR NOT kq_epoch MATCHES "^[0-9]+$")
        set(kq_epoch "")
      endif()
    endif()
  endif()
  if(kq_epoch STREQUAL "")
    file(TIMESTAMP "${CPACK_KQ_CHANGELOG}" kq_epoch "%s" UTC)
  endif()
endif()
# string(TIMESTAMP) formats SOURCE_DATE_EPOCH when it is set.
set(kq_saved_epoch "$ENV{SOURCE_DATE_EPOCH}")
set(ENV{SOURCE_DATE_EPOCH} "${kq_epoch}")
string(TIMESTAMP kq_date "%a, %d %b %Y %H:%M:%S +0000" UTC)
if(kq_saved_epoch STREQUAL "")
  unset(ENV{SOURCE_DATE_EPOCH})
else()
  set(ENV{SOURCE_DATE_EPOCH} "${kq_saved_epoch}")
endif()
set(kq_changelog_debian "\
libkq (${CPACK_PACKAGE_VERSION}) unstable; urgency=medium

  * libkq ${CPACK_PACKAGE_VERSION}, packaged with CPack (cmake/packaging.cmake).
    The changes in libkq are in
    /usr/share/doc/${CPACK_DEBIAN_DEV_PACKAGE_NAME}/CHANGELOG.md.gz.

 -- ${CPACK_DEBIAN_PACKAGE_MAINTAINER}  ${kq_date}
")

foreach(component runtime dev)
  set(root "${kq_stage}/${component}${kq_prefix}")
  if(NOT IS_DIRECTORY "${root}")
    continue()
  endif()
  string(TOUPPER "${component}" upper)
  set(pkg "${CPACK_DEBIAN_${upper}_PACKAGE_NAME}")

  # --- manual pages ------------------------------------------------------
  file(GLOB pages LIST_DIRECTORIES false "${root}/${CPACK_KQ_MANDIR}/man*/*")
  set(links "")
  foreach(page IN LISTS pages)
    if(IS_SYMLINK "${page}" OR page MATCHES "\\.gz$")
      continue()
    endif()
    file(STRINGS "${page}" lines)
    list(FILTER lines EXCLUDE REGEX "^\\.\\\\\"|^[ \t]*$")
    list(LENGTH lines n)
    if(n EQUAL 1 AND lines MATCHES "^\\.so[ \t]+([^ \t]+)[ \t]*$")
      list(APPEND links "${page}|${CMAKE_MATCH_1}")
    else()
      kq_gzip("${page}")
    endif()
  endforeach()
  foreach(link IN LISTS links)
    string(REPLACE "|" ";" link "${link}")
    list(GET link 0 page)
    list(GET link 1 target)            # man2/kevent.2, relative to mandir
    get_filename_component(dir "${page}" DIRECTORY)
    get_filename_component(target_dir "${target}" DIRECTORY)
    get_filename_component(target_name "${target}" NAME)
    if(NOT EXISTS "${root}/${CPACK_KQ_MANDIR}/${target}.gz")
      message(FATAL_ERROR "${page} sources ${target}, which is not in ${pkg}")
    endif()
    get_filename_component(dir_name "${dir}" NAME)
    if(dir_name STREQUAL target_dir)
      set(dest "${target_name}.gz")
    else()
      set(dest "../${target}.gz")
    endif()
    file(REMOVE "${page}")
    file(CREATE_LINK "${dest}" "${page}.gz" SYMBOLIC)
  endforeach()

  # --- static libraries --------------------------------------------------
  file(GLOB archives LIST_DIRECTORIES false "${root}/${CPACK_KQ_LIBDIR}/*.a")
  foreach(a IN LISTS archives)
    if(IS_SYMLINK "${a}")            # libkqueue.a -> libkq.a
      continue()
    endif()
    if(NOT EXISTS "${CPACK_KQ_STRIP}")
      message(FATAL_ERROR "strip (CMAKE_STRIP) is needed for ${a}")
    endif()
    execute_process(COMMAND "${CPACK_KQ_STRIP}" --strip-debug
        --remove-section=.comment --remove-section=.note
        "--remove-section=.gnu.lto_*" "--remove-section=.gnu.debuglto_*"
        -N __gnu_lto_slim -N __gnu_lto_v1
        --enable-deterministic-archives "${a}"
      RESULT_VARIABLE rc)
    if(NOT rc EQUAL 0)
      message(FATAL_ERROR "strip --strip-debug ${a} failed")
    endif()
  endforeach()

  # --- the shared library ---------------------------------------------------
  # The .comment section (compiler versions) and a .note section, which
  # dh_strip removes too; the build ID note stays.
  file(GLOB libs LIST_DIRECTORIES false "${root}/${CPACK_KQ_LIBDIR}/lib*.so.*.*.*")
  foreach(so IN LISTS libs)
    if(IS_SYMLINK "${so}" OR NOT EXISTS "${CPACK_KQ_OBJCOPY}")
      continue()
    endif()
    execute_process(COMMAND "${CPACK_KQ_OBJCOPY}" --remove-section=.comment
        --remove-section=.note "${so}"
      RESULT_VARIABLE rc)
    if(NOT rc EQUAL 0)
      message(FATAL_ERROR "objcopy --remove-section=.comment ${so} failed")
    endif()
  endforeach()

  # --- /usr/share/doc/<package> ------------------------------------------
  file(REMOVE_RECURSE "${root}/${CPACK_KQ_DOCDIR}")
  set(doc "${root}/share/doc/${pkg}")
  file(MAKE_DIRECTORY "${doc}")
  file(READ "${CPACK_KQ_LICENSE}" license)
  kq_write("${doc}/copyright" "${license}")
  kq_write("${doc}/changelog" "${kq_changelog_debian}")
  kq_gzip("${doc}/changelog")
  if(component STREQUAL "dev")
    file(READ "${CPACK_KQ_CHANGELOG}" changelog)
    kq_write("${doc}/CHANGELOG.md" "${changelog}")
    kq_gzip("${doc}/CHANGELOG.md")
  endif()
endforeach()
cmake_policy(POP)
