# Generation and variant selection, shared by the library build and the test sweeps.

# aesgen_generate(<out_dir> <target_name> [generator arguments...])
# Runs the generator at configure time (so the source lists exist), includes the
# generated sources.cmake (AESGEN_GENERATED_SOURCES as absolute paths, AESGEN_VARIANTS,
# AESGEN_BACKENDS, AESGEN_BACKENDS_BUILT, AESGEN_ASM_OPTIONS, AESGEN_FEATURES_<variant>,
# AESGEN_BACKEND_OF_<variant>), and adds
# <target_name>, which regenerates whenever a generator input changes. A macro, so the
# variables land in the caller's scope.
macro(aesgen_generate _out _target)
  if(NOT AESGEN_PYTHON)
    message(FATAL_ERROR "generating needs python3 (sudo apt-get install python3)")
  endif()
  execute_process(COMMAND ${AESGEN_PYTHON} -c "import jinja2" RESULT_VARIABLE _aesgen_rc OUTPUT_QUIET ERROR_QUIET)
  if(NOT _aesgen_rc EQUAL 0)
    message(FATAL_ERROR "generating needs Jinja2 for ${AESGEN_PYTHON}: sudo apt-get install python3-jinja2")
  endif()
  set(_aesgen_cmd ${CMAKE_COMMAND} -E env PYTHONPATH=${PROJECT_SOURCE_DIR}/generator ${AESGEN_PYTHON} -m aesgen)
  execute_process(COMMAND ${_aesgen_cmd} inputs ${ARGN} OUTPUT_VARIABLE _aesgen_inputs
                  RESULT_VARIABLE _aesgen_rc ERROR_VARIABLE _aesgen_err)
  if(NOT _aesgen_rc EQUAL 0)
    message(FATAL_ERROR "aesgen inputs failed: ${_aesgen_err}")
  endif()
  string(REPLACE "\n" ";" _aesgen_inputs "${_aesgen_inputs}")
  list(FILTER _aesgen_inputs EXCLUDE REGEX "^$")
  execute_process(COMMAND ${_aesgen_cmd} generate --quiet --out ${_out} ${ARGN}
                  RESULT_VARIABLE _aesgen_rc ERROR_VARIABLE _aesgen_err)
  if(NOT _aesgen_rc EQUAL 0)
    message(FATAL_ERROR "aesgen generate failed: ${_aesgen_err}")
  endif()
  set_property(DIRECTORY APPEND PROPERTY CMAKE_CONFIGURE_DEPENDS ${_aesgen_inputs})
  include(${_out}/sources.cmake)
  list(TRANSFORM AESGEN_GENERATED_SOURCES PREPEND ${_out}/)
  # The generator rewrites only files whose bytes change, so a stamp records the run.
  add_custom_command(
    OUTPUT ${_out}.stamp
    BYPRODUCTS ${AESGEN_GENERATED_SOURCES}
    COMMAND ${_aesgen_cmd} generate --quiet --out ${_out} ${ARGN}
    COMMAND ${CMAKE_COMMAND} -E touch ${_out}.stamp
    DEPENDS ${_aesgen_inputs}
    COMMENT "Regenerating AES sources in ${_out} (each variant model-checked against the reference AES)"
    VERBATIM)
  add_custom_target(${_target} DEPENDS ${_out}.stamp)
endmacro()

# aesgen_runnable(<variants_out> <backends_out> <not_here_out>)
# The variants (and their backends) whose CPU features AESGEN_HOST_FEATURES has, from the
# AESGEN_VARIANTS of the current scope; with AESGEN_TEST_ALL_VARIANTS, all of those built
# for this processor (AESGEN_BACKENDS_BUILT).
macro(aesgen_runnable _vars _backs _missing)
  set(${_vars} "")
  set(${_backs} "")
  set(${_missing} "")
  foreach(_v IN LISTS AESGEN_VARIANTS)
    if(NOT AESGEN_BACKEND_OF_${_v} IN_LIST AESGEN_BACKENDS_BUILT)
      list(APPEND ${_missing} "${AESGEN_BACKEND_OF_${_v}} (another processor)")
      continue()
    endif()
    set(_ok TRUE)
    foreach(_f IN LISTS AESGEN_FEATURES_${_v})
      if(NOT _f IN_LIST AESGEN_HOST_FEATURES)
        set(_ok FALSE)
      endif()
    endforeach()
    if(_ok OR AESGEN_TEST_ALL_VARIANTS)
      list(APPEND ${_vars} ${_v})
      list(APPEND ${_backs} ${AESGEN_BACKEND_OF_${_v}})
    else()
      string(REPLACE ";" " " _needs "${AESGEN_FEATURES_${_v}}")
      list(APPEND ${_missing} "${AESGEN_BACKEND_OF_${_v}} (needs ${_needs})")
    endif()
  endforeach()
  list(REMOVE_DUPLICATES ${_backs})
  list(REMOVE_DUPLICATES ${_missing})
endmacro()
