# SPDX-License-Identifier: BSD-2-Clause
# CPACK_POST_BUILD_SCRIPTS of libkq (set in cmake/packaging.cmake): cpack runs
# it once the DEB generator has made the packages, which are then still in
# cpack's staging directory (CPACK_PACKAGE_FILES; cpack copies them out
# afterwards).  It does what the DEB generator has no setting for, as
# dpkg-gencontrol and debhelper would, by unpacking each package with
# `dpkg-deb -R` and building it again with `dpkg-deb --root-owner-group -b`:
#   - Multi-Arch: same in every package.  CPack's DEB generator has no
#     variable for this field (CMake 3.25, which libkq is developed with),
#     and only writes the fields it knows.  The value is right for all three:
#     their architecture-dependent files are under /usr/lib/<triplet> (the
#     debug files under /usr/lib/debug/.build-id, named by build ID), and
#     the rest (header, manual pages, copyright, changelogs) is the same on
#     every architecture (cmake/cpack-deb-layout.cmake dates the changelog
#     from the sources, not from the time of packaging, for this).
#   - libkq0's postinst and postrm, which CPack writes to run ldconfig for
#     any package with a library under /usr/lib, are dropped: its triggers
#     file (cmake/cpack-deb-tools.cmake) has dpkg run ldconfig, as debhelper
#     arranges, and lintian rejects ldconfig in maintainer scripts
#     (maintscript-calls-ldconfig).  A script doing more than that is kept.
#   - libkq0-dbgsym: /usr/share/doc/libkq0-dbgsym is a symbolic link to
#     libkq0's directory (its copyright and changelog), as debhelper makes
#     it for a -dbgsym package; the .debug files are mode 0644, not
#     executable.
#   - md5sums is written again from the files, with paths relative to the
#     package root (CPack 3.25 puts the absolute staging path of the .debug
#     file into the -dbgsym package's md5sums), and Installed-Size is
#     counted again, as dpkg-gencontrol counts it.
#   - The control fields are written in the order dpkg-gencontrol uses
#     (CPack sorts them by name).
# Without dpkg-deb the packages are left as the DEB generator made them,
# with a warning.
if(NOT CPACK_GENERATOR STREQUAL "DEB")
  return()
endif()
cmake_policy(PUSH)
cmake_policy(VERSION 3.19)

find_program(KQ_DPKG_DEB dpkg-deb)
if(NOT KQ_DPKG_DEB)
  message(WARNING "libkq: dpkg-deb is not installed: the packages are left "
    "as CPack made them (no Multi-Arch field; postinst and postrm call "
    "ldconfig; the -dbgsym package has no copyright and a wrong md5sums)")
  cmake_policy(POP)
  return()
endif()

# The order of DEBIAN/control fields dpkg-gencontrol writes; other fields
# (Build-Ids) follow in the order they came.
set(kq_field_order Package Package-Type Source Version Auto-Built-Package
  Architecture Maintainer Installed-Size Pre-Depends Depends Recommends
  Suggests Enhances Conflicts Breaks Replaces Provides Built-Using Section
  Priority Multi-Arch Homepage Description)

# Characters CMake lists would split or group on, kept out of the list of
# lines while the control file is parsed.
set(kq_semi "@KQ_SEMICOLON@")
set(kq_open "@KQ_OPEN_BRACKET@")
set(kq_close "@KQ_CLOSE_BRACKET@")

function(kq_finish_deb deb)
  get_filename_component(name "${deb}" NAME)
  set(dir "${deb}.finish")
  file(REMOVE_RECURSE "${dir}")
  execute_process(COMMAND "${KQ_DPKG_DEB}" -R "${deb}" "${dir}"
    RESULT_VARIABLE rc ERROR_VARIABLE err)
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "dpkg-deb -R ${name} failed: ${err}")
  endif()

  # --- control fields ----------------------------------------------------
  file(READ "${dir}/DEBIAN/control" text)
  string(REPLACE ";" "${kq_semi}" text "${text}")
  string(REPLACE "[" "${kq_open}" text "${text}")
  string(REPLACE "]" "${kq_close}" text "${text}")
  string(REPLACE "\n" ";" lines "${text}")
  set(names "")
  set(field "")
  foreach(line IN LISTS lines)
    if(line MATCHES "^[ \t]" AND NOT field STREQUAL "")
      string(APPEND value_${field} "\n${line}")
    elseif(line MATCHES "^([A-Za-z0-9][A-Za-z0-9-]*):[ \t]*(.*)$")
      set(field "${CMAKE_MATCH_1}")
      list(APPEND names "${field}")
      set(value_${field} "${CMAKE_MATCH_2}")
    elseif(NOT line STREQUAL "")
      message(FATAL_ERROR "${name}: cannot parse the control line '${line}'")
    endif()
  endforeach()
  set(pkg "${value_Package}")
  set(value_Multi-Arch "same")
  list(APPEND names Multi-Arch)
  list(REMOVE_DUPLICATES names)

  # --- maintainer scripts that only run ldconfig -------------------------
  foreach(script postinst postrm)
    if(NOT EXISTS "${dir}/DEBIAN/${script}")
      continue()
    endif()
    file(STRINGS "${dir}/DEBIAN/${script}" body)
    list(FILTER body EXCLUDE REGEX
      "^(#!.*|[ \t]*|[ \t]*set -e[ \t]*|[ \t]*if \\[ \"\\$1\" = \"[a-z]+\" \\]; then[ \t]*|[ \t]*ldconfig[ \t]*|[ \t]*fi[ \t]*)$")
    if(body STREQUAL "")
      file(REMOVE "${dir}/DEBIAN/${script}")
    endif()
  endforeach()

  # --- the -dbgsym package -------------------------------------------------
  if(value_Package-Type STREQUAL "ddeb" AND pkg MATCHES "^(.+)-dbgsym$")
    set(of "${CMAKE_MATCH_1}")
    file(MAKE_DIRECTORY "${dir}/usr/share/doc")
    file(REMOVE_RECURSE "${dir}/usr/share/doc/${pkg}")
    file(CREATE_LINK "${of}" "${dir}/usr/share/doc/${pkg}" SYMBOLIC)
    file(GLOB_RECURSE debug_files LIST_DIRECTORIES false "${dir}/usr/lib/debug/*")
    foreach(f IN LISTS debug_files)
      if(NOT IS_SYMLINK "${f}")
        file(CHMOD "${f}" PERMISSIONS OWNER_READ OWNER_WRITE GROUP_READ WORLD_READ)
      endif()
    endforeach()
  endif()

  # --- md5sums and Installed-Size ----------------------------------------
  file(GLOB_RECURSE entries LIST_DIRECTORIES true RELATIVE "${dir}" "${dir}/*")
  list(FILTER entries EXCLUDE REGEX "^DEBIAN(/|$)")
  list(SORT entries)
  set(md5sums "")
  set(size 0)
  foreach(e IN LISTS entries)
    if(IS_SYMLINK "${dir}/${e}")
      file(READ_SYMLINK "${dir}/${e}" target)
      string(LENGTH "${target}" bytes)
    elseif(IS_DIRECTORY "${dir}/${e}")
      math(EXPR size "${size} + 1")
      continue()
    else()
      file(MD5 "${dir}/${e}" sum)
      string(APPEND md5sums "${sum}  ${e}\n")
      file(SIZE "${dir}/${e}" bytes)
    endif()
    math(EXPR size "${size} + (${bytes} + 1023) / 1024")
  endforeach()
  set(value_Installed-Size "${size}")
  file(WRITE "${dir}/DEBIAN/md5sums" "${md5sums}")

  # --- control, in dpkg-gencontrol's order --------------------------------
  set(ordered "")
  foreach(f IN LISTS kq_field_order)
    if(f IN_LIST names)
      list(APPEND ordered "${f}")
    endif()
  endforeach()
  foreach(f IN LISTS names)
    if(NOT f IN_LIST ordered)
      list(APPEND ordered "${f}")
    endif()
  endforeach()
  set(control "")
  foreach(f IN LISTS ordered)
    string(APPEND control "${f}: ${value_${f}}\n")
  endforeach()
  string(REPLACE "${kq_semi}" ";" control "${control}")
  string(REPLACE "${kq_open}" "[" control "${control}")
  string(REPLACE "${kq_close}" "]" control "${control}")
  file(WRITE "${dir}/DEBIAN/control" "${control}")
  foreach(f control md5sums)
    file(CHMOD "${dir}/DEBIAN/${f}" PERMISSIONS OWNER_READ OWNER_WRITE GROUP_READ WORLD_READ)
  endforeach()

  # --- the package again ---------------------------------------------------
  file(REMOVE "${deb}")
  execute_process(COMMAND "${KQ_DPKG_DEB}" --root-owner-group -b "${dir}" "${deb}"
    RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
  if(NOT rc EQUAL 0 OR err MATCHES "warning")
    message(FATAL_ERROR "dpkg-deb -b ${name} failed: ${out}${err}")
  endif()
  file(REMOVE_RECURSE "${dir}")
  message(STATUS "libkq: ${name}: Multi-Arch: same, Installed-Size ${size}")
endfunction()

foreach(deb IN LISTS CPACK_PACKAGE_FILES)
  if(deb MATCHES "\\.d?deb$")
    kq_finish_deb("${deb}")
  endif()
endforeach()
cmake_policy(POP)
