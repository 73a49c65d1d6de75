# Install rules, included by the top-level CMakeLists.txt when AESGEN_INSTALL is ON.
#
#   <prefix>/include/aesgen.h
#   <prefix>/<libdir>/libaesgen.a
#   <prefix>/<libdir>/libaesgen.so -> libaesgen.so.0 -> libaesgen.so.0.1.0
#   <prefix>/<libdir>/cmake/aesgen/aesgen{Config,ConfigVersion,Targets*}.cmake
#   <prefix>/<libdir>/pkgconfig/aesgen.pc
#
# find_package(aesgen CONFIG) gives aesgen::static, aesgen::shared (when installed)
# and aesgen::aesgen (the shared library when installed, else the static one).
include(CMakePackageConfigHelpers)

set(AESGEN_INSTALL_CMAKEDIR ${CMAKE_INSTALL_LIBDIR}/cmake/aesgen CACHE STRING
    "Where the CMake package files go (relative to the prefix)")
mark_as_advanced(AESGEN_INSTALL_CMAKEDIR)

# Consumers see aesgen::static / aesgen::shared, the names the build tree's aliases have.
set_target_properties(aesgen_static PROPERTIES EXPORT_NAME static)
set(_aesgen_install_targets aesgen_static)
if(TARGET aesgen_shared)
  set_target_properties(aesgen_shared PROPERTIES EXPORT_NAME shared)
  list(APPEND _aesgen_install_targets aesgen_shared)
endif()

install(TARGETS ${_aesgen_install_targets} EXPORT aesgenTargets
  ARCHIVE DESTINATION ${CMAKE_INSTALL_LIBDIR} COMPONENT aesgen_development
  LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR} COMPONENT aesgen_runtime
          NAMELINK_COMPONENT aesgen_development
  RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR} COMPONENT aesgen_runtime)
install(FILES ${PROJECT_SOURCE_DIR}/runtime/include/aesgen.h
  DESTINATION ${CMAKE_INSTALL_INCLUDEDIR} COMPONENT aesgen_development)

# --- CMake package -------------------------------------------------------------------
install(EXPORT aesgenTargets NAMESPACE aesgen:: DESTINATION ${AESGEN_INSTALL_CMAKEDIR}
        COMPONENT aesgen_development)
configure_package_config_file(${CMAKE_CURRENT_LIST_DIR}/aesgenConfig.cmake.in
  ${PROJECT_BINARY_DIR}/aesgenConfig.cmake INSTALL_DESTINATION ${AESGEN_INSTALL_CMAKEDIR})
# 0.x: SameMajorVersion means any 0.y satisfies a request for 0.x with y >= x.
write_basic_package_version_file(${PROJECT_BINARY_DIR}/aesgenConfigVersion.cmake
  VERSION ${PROJECT_VERSION} COMPATIBILITY SameMajorVersion)
install(FILES ${PROJECT_BINARY_DIR}/aesgenConfig.cmake ${PROJECT_BINARY_DIR}/aesgenConfigVersion.cmake
  DESTINATION ${AESGEN_INSTALL_CMAKEDIR} COMPONENT aesgen_development)

# --- pkg-config ----------------------------------------------------------------------
# The prefix is only known at install time (cmake --install --prefix may differ from
# CMAKE_INSTALL_PREFIX), so the file is completed by an install(CODE) step: everything
# else is filled in now, @AESGEN_PC_PREFIX@ is left for then.
if(CMAKE_C_COMPILER_ID MATCHES "GNU|Clang")
  # What the static library needs (pthread_once). With glibc >= 2.34 Threads resolves to
  # nothing (libc has it), but -pthread is right everywhere gcc and clang run.
  set(AESGEN_PC_LIBS_PRIVATE "-pthread")
else()
  set(AESGEN_PC_LIBS_PRIVATE "${CMAKE_THREAD_LIBS_INIT}")
endif()
foreach(_dir LIBDIR INCLUDEDIR)
  if(IS_ABSOLUTE "${CMAKE_INSTALL_${_dir}}")
    set(AESGEN_PC_${_dir} "${CMAKE_INSTALL_${_dir}}")
  else()
    set(AESGEN_PC_${_dir} "\${prefix}/${CMAKE_INSTALL_${_dir}}")
  endif()
endforeach()
set(AESGEN_PC_PREFIX "@AESGEN_PC_PREFIX@")   # kept for the install step
configure_file(${CMAKE_CURRENT_LIST_DIR}/aesgen.pc.in ${PROJECT_BINARY_DIR}/aesgen.pc.in @ONLY)
install(CODE "
  set(AESGEN_PC_PREFIX \"\${CMAKE_INSTALL_PREFIX}\")
  configure_file(\"${PROJECT_BINARY_DIR}/aesgen.pc.in\" \"${PROJECT_BINARY_DIR}/aesgen.pc\" @ONLY)
" COMPONENT aesgen_development)
install(FILES ${PROJECT_BINARY_DIR}/aesgen.pc DESTINATION ${CMAKE_INSTALL_LIBDIR}/pkgconfig
        COMPONENT aesgen_development)
