# Prints the size of the shared library a build made, stripped as a product ships it
# (a POST_BUILD step of aesgen_shared; docs/install.md lists the figures).
#   cmake -DLIB=<libaesgen.so> -DSTRIP=<strip> -DBACKENDS=<list> -P AesgenLibrarySize.cmake
file(SIZE "${LIB}" _size)
set(_stripped "")
if(STRIP)
  set(_copy "${LIB}.stripped")
  execute_process(COMMAND "${STRIP}" -o "${_copy}" "${LIB}" RESULT_VARIABLE _rc OUTPUT_QUIET ERROR_QUIET)
  if(_rc EQUAL 0)
    file(SIZE "${_copy}" _bytes)
    file(REMOVE "${_copy}")
    math(EXPR _kib "(${_bytes} + 1023) / 1024")
    set(_stripped ", ${_bytes} bytes (${_kib} KiB) stripped")
  endif()
endif()
get_filename_component(_name "${LIB}" NAME)
string(REPLACE ";" " " BACKENDS "${BACKENDS}")
message(STATUS "aesgen: ${_name}: ${_size} bytes${_stripped}; backends: ${BACKENDS}")
