# SPDX-License-Identifier: BSD-2-Clause
# The version has one source: project(libkq VERSION ...) in CMakeLists.txt.
# <sys/event.h> repeats it as macros (LIBKQ_VERSION_MAJOR, _MINOR, _PATCH,
# _STRING) so that programs can test it at compile time; this file checks
# at configure time that they agree, and gives the library (src/version.c)
# the project's numbers, which it checks against the header once more when
# it is compiled.  Included from src/CMakeLists.txt.

function(kq_check_header_version header)
  file(STRINGS ${header} lines REGEX "^#define LIBKQ_VERSION_(MAJOR|MINOR|PATCH|STRING) ")
  foreach(part MAJOR MINOR PATCH STRING)
    set(value "")
    foreach(line ${lines})
      if(line MATCHES "^#define LIBKQ_VERSION_${part} +\"?([^\"]*)\"?$")
        set(value ${CMAKE_MATCH_1})
      endif()
    endforeach()
    if(part STREQUAL "STRING")
      set(want ${PROJECT_VERSION})
    else()
      set(want ${PROJECT_VERSION_${part}})
    endif()
    if(NOT value STREQUAL want)
      message(FATAL_ERROR "${header}: LIBKQ_VERSION_${part} is '${value}', "
        "but the project version (CMakeLists.txt) is ${PROJECT_VERSION}: "
        "change the header's version macros to match")
    endif()
  endforeach()
endfunction()

if(NOT PROJECT_VERSION MATCHES "^[0-9]+\\.[0-9]+\\.[0-9]+$")
  message(FATAL_ERROR "the project version must be MAJOR.MINOR.PATCH, not '${PROJECT_VERSION}'")
endif()
kq_check_header_version(${PROJECT_SOURCE_DIR}/include/sys/event.h)
set_property(SOURCE ${CMAKE_CURRENT_SOURCE_DIR}/version.c APPEND PROPERTY
  COMPILE_DEFINITIONS
  KQ_VERSION_MAJOR=${PROJECT_VERSION_MAJOR}
  KQ_VERSION_MINOR=${PROJECT_VERSION_MINOR}
  KQ_VERSION_PATCH=${PROJECT_VERSION_PATCH}
  KQ_VERSION_STRING="${PROJECT_VERSION}")
