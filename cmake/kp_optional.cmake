# The one pattern of kpbrowse's optional libraries (docs/style.md, "Optional
# libraries"): each behind a switch KP_<NAME>=AUTO|ON|OFF, its headers found
# here at configure time, never linked: the one file that calls it loads it
# at run time through core/base/kp_dl.h, from the file found here first,
# then by its run-time names.  A build without it, or a machine without it,
# runs everything else and says what is missing where it is missed.
#
#   kp_optional(NAME PKG DOC DEBIAN [HEADER h] [LIB name])
#     The cache switch KP_<NAME> (AUTO: used when pkg-config finds PKG, or
#     when HEADER is found by name; ON: a configure error naming DEBIAN, the
#     package with the headers, when not found; OFF: never looked for).
#     Sets KP_<NAME>_FOUND, KP_<NAME>_INCLUDE_DIRS and KP_<NAME>_FILE_FOUND
#     (the shared library named LIB or PKG's first library; empty when none
#     is found or it is a linker stub, a macOS SDK's .tbd) in the caller's
#     scope.
#   kp_optional_use(NAME TARGET SOURCE...)
#     When found: TARGET gets the headers, and each SOURCE KP_HAVE_<NAME>=1
#     and KP_<NAME>_PATH="FILE" (the file kp_dl tries first).
function(kp_optional name pkg doc debian)
  cmake_parse_arguments(opt "" "HEADER;LIB" "" ${ARGN})
  set(KP_${name} AUTO CACHE STRING "${doc}: AUTO (when found), ON (required), OFF")
  set_property(CACHE KP_${name} PROPERTY STRINGS AUTO ON OFF)
  set(found FALSE)
  set(incs "")
  set(file "")
  set(mode "${KP_${name}}")
  if(NOT mode STREQUAL "AUTO")
    if(mode)   # ON, TRUE, 1 (an old boolean cache entry): required
      set(mode ON)
    else()
      set(mode OFF)
    endif()
  endif()
  if(NOT mode STREQUAL "OFF")
    pkg_check_modules(KPO_${name} QUIET ${pkg})
    if(KPO_${name}_FOUND)
      set(found TRUE)
      set(incs ${KPO_${name}_INCLUDE_DIRS})
    elseif(opt_HEADER)
      find_path(KP_${name}_HEADER_DIR ${opt_HEADER})
      if(KP_${name}_HEADER_DIR)
        set(found TRUE)
        set(incs ${KP_${name}_HEADER_DIR})
      endif()
    endif()
    if(NOT found AND mode STREQUAL "ON")
      message(FATAL_ERROR "KP_${name}=ON: ${pkg} not found (${doc}; Debian: ${debian}); install it or configure with -DKP_${name}=OFF")
    endif()
  endif()
  if(found)
    set(lib ${opt_LIB})
    if(NOT lib AND KPO_${name}_LIBRARIES)
      list(GET KPO_${name}_LIBRARIES 0 lib)
    endif()
    if(lib)
      find_library(KP_${name}_FILE NAMES ${lib} HINTS ${KPO_${name}_LIBRARY_DIRS} NO_DEFAULT_PATH)
      if(NOT KP_${name}_FILE)
        find_library(KP_${name}_FILE NAMES ${lib})
      endif()
      if(KP_${name}_FILE AND NOT KP_${name}_FILE MATCHES "\\.tbd$")
        set(file ${KP_${name}_FILE})
      endif()
    endif()
    message(STATUS "KP_${name}=${mode}: ${pkg} found, loaded at run time (${file})")
  else()
    message(STATUS "KP_${name}=${mode}: built without ${pkg} (${doc})")
  endif()
  set(KP_${name}_FOUND ${found} PARENT_SCOPE)
  set(KP_${name}_INCLUDE_DIRS "${incs}" PARENT_SCOPE)
  set(KP_${name}_FILE_FOUND "${file}" PARENT_SCOPE)
endfunction()

function(kp_optional_use name target)
  if(NOT KP_${name}_FOUND)
    return()
  endif()
  target_include_directories(${target} PRIVATE ${KP_${name}_INCLUDE_DIRS})
  set(defs KP_HAVE_${name}=1)
  if(KP_${name}_FILE_FOUND)
    list(APPEND defs KP_${name}_PATH="${KP_${name}_FILE_FOUND}")
  endif()
  set_property(SOURCE ${ARGN} APPEND PROPERTY COMPILE_DEFINITIONS ${defs})
endfunction()
