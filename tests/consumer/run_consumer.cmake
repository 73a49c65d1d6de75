# run_consumer.cmake -- one consumer_* test (tests/consumer/CMakeLists.txt): install
# aesgen, or build tests/consumer/project against it one way, run it and check its output.
#
#   cmake -DMODE=<mode> -DSOURCE_DIR=<aesgen source> -DBUILD_DIR=<aesgen build>
#         -DPREFIX=<install prefix> -DLIBDIR=<lib dir relative to it> -DWORK=<scratch dir>
#         [-DLINK=shared|static] [-DSHARED=ON] [-DPROVIDER=ON] [-DCONFIG=<build type>] [-DVERSION=...] [-DCC=...] [-DGENERATOR=...] [-DREADELF=...] [-DLDD=...]
#         [-DPKG_CONFIG=...] [-DTOOLCHAIN=...] [-DREQUIRE_CROSS=ON] -P run_consumer.cmake
#
# MODE: install       cmake --install BUILD_DIR --prefix PREFIX (afresh)
#       layout        PREFIX holds exactly the expected files (with PROVIDER, the OpenSSL module too); symlink chain and SONAME
#       package       find_package(aesgen CONFIG) from PREFIX, LINK shared or static
#       pkgconfig     cc main.c $(pkg-config [--static] --cflags --libs aesgen)
#       subdirectory  aesgen via add_subdirectory, fetchcontent via FetchContent
#       selection     add_subdirectory with -DAESGEN_BACKENDS=BACKENDS (comma-separated); the
#                     library's backends must be EXPECT (comma-separated, any order); with
#                     UNROLL, also -DAESGEN_UNROLL=UNROLL, and for each backend=form of
#                     SERVES (comma-separated) the consumer run with AESGEN_BACKEND=backend
#                     must be served by a variant named ..._form
#       selection-error configure aesgen with -DAESGEN_BACKENDS=BACKENDS: it must stop,
#                     naming EXPECT as no backend and listing the valid ones; with
#                     UNROLL, -DAESGEN_UNROLL=UNROLL instead, which must stop naming it
#       cross         aarch64: cross-build aesgen, install it, build the consumer with the
#                     same toolchain and run it under qemu-aarch64 (exit 77: tools missing)
# Every step that fails stops the test with what failed and its output.

cmake_minimum_required(VERSION 3.22)
set(expected_output "FIPS-197 C.1 C.2 C.3: passed")
set(project_dir ${CMAKE_CURRENT_LIST_DIR}/project)
if(NOT GENERATOR)
  set(GENERATOR "Unix Makefiles")
endif()
if(NOT VERSION)
  set(VERSION 0.1.0)
endif()

set(label "consumer ${MODE}")
if(LINK)
  string(APPEND label " (${LINK})")
endif()

function(fail)
  string(JOIN "" msg ${ARGN})
  message(FATAL_ERROR "${label}: FAILED: ${msg}")
endfunction()

# step(<what> <out-var> COMMAND...): run, fail loudly with the output on a non-zero exit.
function(step what out)
  execute_process(COMMAND ${ARGN} RESULT_VARIABLE rc OUTPUT_VARIABLE o ERROR_VARIABLE o)
  if(NOT rc EQUAL 0)
    string(REPLACE ";" " " cmd "${ARGN}")
    fail("${what} (exit ${rc}): ${cmd}\n${o}")
  endif()
  message(STATUS "consumer: ${what}: ok")
  set(${out} "${o}" PARENT_SCOPE)
endfunction()

# The consumer's own output: the FIPS-197 vectors passed; show which backend served them.
function(check_run out)
  string(FIND "${out}" "${expected_output}\n" at)
  if(at EQUAL -1)
    fail("the consumer did not print '${expected_output}':\n${out}")
  endif()
  string(REGEX MATCH "aesgen [^\n]*backend [^\n]*" line "${out}")
  message(STATUS "consumer: ran: ${line}")
endfunction()

# NEEDED entries of an ELF file.
function(needed file out)
  step("readelf -d ${file}" o ${READELF} -d ${file})
  string(REGEX MATCHALL "\\(NEEDED\\)[^\n]*\\[([^]\n]+)\\]" lines "${o}")
  set(libs "")
  foreach(l IN LISTS lines)
    string(REGEX REPLACE ".*\\[([^]]+)\\]$" "\\1" lib "${l}")
    list(APPEND libs ${lib})
  endforeach()
  set(${out} "${libs}" PARENT_SCOPE)
endfunction()

# A dynamically linked consumer needs libaesgen.so.0 and the loader finds the one in PREFIX.
function(check_uses_installed_so exe)
  needed(${exe} libs)
  if(NOT "libaesgen.so.0" IN_LIST libs)
    fail("${exe} does not need libaesgen.so.0 (NEEDED: ${libs})")
  endif()
  if(LDD)
    step("ldd ${exe}" o ${CMAKE_COMMAND} -E env ${ARGN} ${LDD} ${exe})
    string(REGEX MATCH "libaesgen\\.so\\.0 => ([^ \n]+)" m "${o}")
    file(REAL_PATH "${PREFIX}/${LIBDIR}/libaesgen.so.0" want)
    if(NOT CMAKE_MATCH_1)
      fail("ldd does not resolve libaesgen.so.0:\n${o}")
    endif()
    file(REAL_PATH "${CMAKE_MATCH_1}" got)
    if(NOT got STREQUAL want)
      fail("${exe} loads ${CMAKE_MATCH_1}, not the installed ${PREFIX}/${LIBDIR}/libaesgen.so.0")
    endif()
    message(STATUS "consumer: ${exe} loads ${CMAKE_MATCH_1}")
  endif()
endfunction()

function(check_static exe)
  needed(${exe} libs)
  if(libs MATCHES "libaesgen")
    fail("${exe} was to link libaesgen.a but needs ${libs}")
  endif()
  message(STATUS "consumer: ${exe} has aesgen linked in (NEEDED: ${libs})")
endfunction()

# The backends named on the line of <text> that starts with <prefix>, in any order, are <expect> (sorted).
function(check_backends where prefix text expect)
  string(REGEX MATCH "(^|\n)${prefix}([^\n]*)" line "${text}")
  string(STRIP "${CMAKE_MATCH_2}" got)
  string(REPLACE " " ";" got "${got}")
  list(SORT got)
  if(NOT line OR NOT got STREQUAL expect)
    string(REPLACE ";" " " got "${got}")
    string(REPLACE ";" " " expect "${expect}")
    fail("${where}: the backends are '${got}', not '${expect}':\n${text}")
  endif()
endfunction()

# Configure and build tests/consumer/project in <dir> with the given -D arguments.
function(build_consumer dir)
  step("configure the consumer (${dir})" o ${CMAKE_COMMAND} -S ${project_dir} -B ${dir} -G ${GENERATOR}
       -DCMAKE_BUILD_TYPE=Release ${ARGN})
  set(configure_out "${o}" PARENT_SCOPE)
  step("build the consumer" o ${CMAKE_COMMAND} --build ${dir} --target consumer --parallel 2)
endfunction()

if(MODE STREQUAL "install")
  file(REMOVE_RECURSE ${PREFIX})
  step("cmake --install ${BUILD_DIR} --prefix ${PREFIX}" o ${CMAKE_COMMAND} --install ${BUILD_DIR} --prefix ${PREFIX})
  if(NOT EXISTS ${PREFIX}/include/aesgen.h)
    fail("nothing installed in ${PREFIX}:\n${o}")
  endif()

elseif(MODE STREQUAL "layout")
  set(l ${LIBDIR})
  string(TOLOWER "${CONFIG}" config)   # the build type names the imported-targets file
  if(NOT config)
    set(config noconfig)
  endif()
  set(want include/aesgen.h ${l}/libaesgen.a ${l}/pkgconfig/aesgen.pc
      ${l}/cmake/aesgen/aesgenConfig.cmake ${l}/cmake/aesgen/aesgenConfigVersion.cmake
      ${l}/cmake/aesgen/aesgenTargets.cmake ${l}/cmake/aesgen/aesgenTargets-${config}.cmake)
  if(SHARED)
    list(APPEND want ${l}/libaesgen.so ${l}/libaesgen.so.0 ${l}/libaesgen.so.${VERSION})
  endif()
  if(PROVIDER)
    list(APPEND want ${l}/ossl-modules/aesgen.so)
  endif()
  file(GLOB_RECURSE have LIST_DIRECTORIES false RELATIVE ${PREFIX} ${PREFIX}/*)
  list(SORT want)
  list(SORT have)
  if(NOT have STREQUAL want)
    set(extra ${have})
    list(REMOVE_ITEM extra ${want})
    set(missing ${want})
    list(REMOVE_ITEM missing ${have})
    fail("${PREFIX} does not hold exactly the expected files\n  unexpected: ${extra}\n  missing: ${missing}")
  endif()
  if(SHARED)
    # libaesgen.so -> libaesgen.so.0 -> libaesgen.so.0.1.0 (a file), SONAME libaesgen.so.0
    foreach(pair "libaesgen.so|libaesgen.so.0" "libaesgen.so.0|libaesgen.so.${VERSION}")
      string(REPLACE "|" ";" pair "${pair}")
      list(GET pair 0 link)
      list(GET pair 1 target)
      if(NOT IS_SYMLINK ${PREFIX}/${l}/${link})
        fail("${l}/${link} is not a symlink")
      endif()
      file(READ_SYMLINK ${PREFIX}/${l}/${link} to)
      if(NOT to STREQUAL target)
        fail("${l}/${link} points to ${to}, not ${target}")
      endif()
    endforeach()
    if(IS_SYMLINK ${PREFIX}/${l}/libaesgen.so.${VERSION})
      fail("${l}/libaesgen.so.${VERSION} should be the library itself, not a symlink")
    endif()
    step("readelf -d libaesgen.so.${VERSION}" o ${READELF} -d ${PREFIX}/${l}/libaesgen.so.${VERSION})
    if(NOT o MATCHES "\\(SONAME\\)[^\n]*\\[libaesgen\\.so\\.0\\]")
      fail("the SONAME of libaesgen.so.${VERSION} is not libaesgen.so.0:\n${o}")
    endif()
    # An installed library must not point back into the build tree.
    if(o MATCHES "\\((RPATH|RUNPATH)\\)")
      fail("the installed libaesgen.so.${VERSION} has an RPATH/RUNPATH:\n${o}")
    endif()
  endif()
  file(READ ${PREFIX}/${l}/pkgconfig/aesgen.pc pc)
  string(FIND "${pc}" "prefix=${PREFIX}\n" at)   # FIND, not MATCHES: paths are no regexes
  if(NOT at EQUAL 0 OR pc MATCHES "@")
    fail("aesgen.pc does not name the install prefix ${PREFIX}, or has unsubstituted values:\n${pc}")
  endif()
  message(STATUS "consumer: ${PREFIX} holds exactly: ${have}")

elseif(MODE STREQUAL "package")
  if(LINK STREQUAL "shared")
    set(target aesgen::aesgen)   # the package's default must be the shared library
  else()
    set(target aesgen::static)
  endif()
  build_consumer(${WORK} -DCMAKE_C_COMPILER=${CC} -DAESGEN_CONSUMER_VIA=package
                 -DAESGEN_CONSUMER_LINK=${target} -DCMAKE_PREFIX_PATH=${PREFIX})
  # Found in PREFIX, not some other installed aesgen.
  string(FIND "${configure_out}" "consumer: aesgen ${VERSION} from package ${PREFIX}/${LIBDIR}/cmake/aesgen\n" at)
  if(at EQUAL -1)
    fail("find_package(aesgen) did not find the package in ${PREFIX}:\n${configure_out}")
  endif()
  if(LINK STREQUAL "shared")
    check_uses_installed_so(${WORK}/consumer)
  else()
    check_static(${WORK}/consumer)
  endif()
  step("run the consumer" o ${WORK}/consumer)
  check_run("${o}")

elseif(MODE STREQUAL "pkgconfig")
  if(NOT PKG_CONFIG)
    message("skipped: no pkg-config (sudo apt-get install pkgconf)")
    cmake_language(EXIT 77)
  endif()
  set(env PKG_CONFIG_PATH=${PREFIX}/${LIBDIR}/pkgconfig)
  step("pkg-config --modversion aesgen" o ${CMAKE_COMMAND} -E env ${env} ${PKG_CONFIG} --modversion aesgen)
  string(STRIP "${o}" o)
  if(NOT o STREQUAL VERSION)
    fail("pkg-config says aesgen ${o}, not ${VERSION}")
  endif()
  file(MAKE_DIRECTORY ${WORK})
  if(LINK STREQUAL "shared")
    step("pkg-config --cflags --libs aesgen" flags ${CMAKE_COMMAND} -E env ${env} ${PKG_CONFIG} --cflags --libs aesgen)
    set(static_flag "")
  else()
    # --static adds Libs.private; -static makes -laesgen pick libaesgen.a (and libc.a).
    step("pkg-config --static --cflags --libs aesgen" flags
         ${CMAKE_COMMAND} -E env ${env} ${PKG_CONFIG} --static --cflags --libs aesgen)
    if(NOT flags MATCHES "-pthread|-lpthread")
      fail("pkg-config --static --libs aesgen has no thread library: ${flags}")
    endif()
    set(static_flag -static)
  endif()
  string(FIND "${flags}" "-I${PREFIX}/include" at)
  if(at EQUAL -1 OR NOT flags MATCHES "-laesgen")
    fail("pkg-config flags do not point at ${PREFIX}: ${flags}")
  endif()
  separate_arguments(flags UNIX_COMMAND "${flags}")
  step("${CC} ${static_flag} main.c \$(pkg-config ...)" o
       ${CC} -std=c11 -O2 ${static_flag} -o ${WORK}/consumer ${project_dir}/main.c ${flags})
  if(LINK STREQUAL "shared")
    # No RPATH here: the loader finds the installed library through LD_LIBRARY_PATH.
    set(run_env LD_LIBRARY_PATH=${PREFIX}/${LIBDIR})
    check_uses_installed_so(${WORK}/consumer ${run_env})
  else()
    set(run_env "")
    check_static(${WORK}/consumer)
  endif()
  step("run the consumer" o ${CMAKE_COMMAND} -E env ${run_env} ${WORK}/consumer)
  check_run("${o}")

elseif(MODE STREQUAL "selection")
  # A product's own choice of backends (-DAESGEN_BACKENDS, comma-separated here): the
  # library has exactly EXPECT (the choice plus the fallback configure adds), says so at
  # configure time, and works.
  string(REPLACE "," ";" expect "${EXPECT}")
  list(SORT expect)
  set(unroll_args "")
  if(UNROLL)
    set(unroll_args -DAESGEN_UNROLL=${UNROLL})
  endif()
  build_consumer(${WORK} -DCMAKE_C_COMPILER=${CC} -DAESGEN_CONSUMER_VIA=subdirectory
                 -DAESGEN_CONSUMER_LINK=aesgen::aesgen -DAESGEN_SOURCE_DIR=${SOURCE_DIR}
                 -DAESGEN_BACKENDS=${BACKENDS} ${unroll_args})
  step("run the consumer" o ${WORK}/consumer)
  check_run("${o}")
  check_backends(configure "-- aesgen: backends in the library:" "${configure_out}" "${expect}")
  check_backends(run "backends:" "${o}" "${expect}")
  message(STATUS "consumer: AESGEN_BACKENDS=${BACKENDS}: the library has ${EXPECT}")
  if(UNROLL)
    if(NOT configure_out MATCHES "-- aesgen: unroll: ${UNROLL}\n")
      fail("configure did not say the unroll is ${UNROLL}:\n${configure_out}")
    endif()
    string(REPLACE "," ";" serves "${SERVES}")
    foreach(pair IN LISTS serves)
      string(REPLACE "=" ";" pair "${pair}")
      list(GET pair 0 backend)
      list(GET pair 1 form)
      step("run the consumer on ${backend}" o ${CMAKE_COMMAND} -E env AESGEN_BACKEND=${backend} ${WORK}/consumer)
      check_run("${o}")
      if(NOT o MATCHES "\nvariant: aes128_enc__[a-z0-9_]+_${form}\n")
        fail("${backend} did not serve AES-128 with a ${form} variant:\n${o}")
      endif()
      message(STATUS "consumer: AESGEN_UNROLL=${UNROLL}: ${backend} runs its ${form} variants")
    endforeach()
  endif()

elseif(MODE STREQUAL "selection-error")
  # A name that is no backend (or no unroll) here: configure stops, names it and lists the
  # valid ones, and writes no build files.
  if(UNROLL)
    set(asked -DAESGEN_UNROLL=${UNROLL})
    set(what "AESGEN_UNROLL=${UNROLL}")
    set(expect_msg "AESGEN_UNROLL: '${UNROLL}' is not an unroll; the unrolls: [a-z0-9]+ ")
  else()
    set(asked -DAESGEN_BACKENDS=${BACKENDS})
    set(what "AESGEN_BACKENDS=${BACKENDS}")
    set(expect_msg "AESGEN_BACKENDS: '${EXPECT}' is not a backend; the backends for [^:]+: [a-z0-9-]+ ")
  endif()
  execute_process(COMMAND ${CMAKE_COMMAND} -S ${SOURCE_DIR} -B ${WORK} -G ${GENERATOR}
                          -DCMAKE_C_COMPILER=${CC} -DBUILD_TESTING=OFF -DAESGEN_BUILD_BENCH=OFF
                          -DAESGEN_BUILD_PROVIDER=OFF ${asked}
                  RESULT_VARIABLE rc OUTPUT_VARIABLE o ERROR_VARIABLE o)
  string(REGEX REPLACE "[ \n]+" " " flat "${o}")
  if(rc EQUAL 0 OR NOT flat MATCHES "${expect_msg}")
    fail("configure with ${what} did not stop naming it and the valid values (exit ${rc}):\n${o}")
  endif()
  if(EXISTS ${WORK}/build.ninja OR EXISTS ${WORK}/Makefile)
    fail("configure with ${what} failed but wrote build files")
  endif()
  message(STATUS "consumer: ${what}: refused at configure time")

elseif(MODE STREQUAL "subdirectory" OR MODE STREQUAL "fetchcontent")
  build_consumer(${WORK} -DCMAKE_C_COMPILER=${CC} -DAESGEN_CONSUMER_VIA=${MODE}
                 -DAESGEN_CONSUMER_LINK=aesgen::aesgen -DAESGEN_SOURCE_DIR=${SOURCE_DIR})
  if(MODE STREQUAL "fetchcontent" AND NOT configure_out MATCHES "consumer: aesgen from FetchContent")
    fail("the consumer did not get aesgen through FetchContent:\n${configure_out}")
  endif()
  # aesgen registered none of its tests: the parent's one test is all there is.
  step("ctest -N in the consumer" o ${CMAKE_CTEST_COMMAND} -N --test-dir ${WORK})
  if(NOT o MATCHES "Total Tests: 1\n")
    fail("aesgen as a subproject registered tests in its parent:\n${o}")
  endif()
  check_static(${WORK}/consumer)   # BUILD_SHARED_LIBS is off: aesgen::aesgen is the static one
  step("run the consumer" o ${WORK}/consumer)
  check_run("${o}")

elseif(MODE STREQUAL "cross")
  set(triple aarch64-linux-gnu)
  set(missing "")
  find_program(cross_cc ${triple}-gcc)
  find_program(qemu qemu-aarch64)
  if(NOT cross_cc)
    string(APPEND missing " gcc-aarch64-linux-gnu")
  endif()
  if(NOT EXISTS /usr/${triple}/include/stdio.h)
    string(APPEND missing " libc6-dev-arm64-cross")
  endif()
  if(NOT qemu)
    string(APPEND missing " qemu-user")
  endif()
  if(missing)
    if(REQUIRE_CROSS)
      fail("cross toolchain missing and AESGEN_REQUIRE_CROSS=ON: sudo apt-get install${missing}")
    endif()
    message("skipped: install${missing}")
    cmake_language(EXIT 77)
  endif()
  # The commands of docs/install.md, in a tree that reruns reuse.
  set(prefix ${WORK}/prefix)
  step("configure aesgen for ${triple}" o ${CMAKE_COMMAND} -S ${SOURCE_DIR} -B ${WORK}/build -G ${GENERATOR}
       -DCMAKE_TOOLCHAIN_FILE=${TOOLCHAIN} -DCMAKE_BUILD_TYPE=Release -DBUILD_TESTING=OFF)
  step("build aesgen for ${triple}" o ${CMAKE_COMMAND} --build ${WORK}/build --parallel 2)
  file(REMOVE_RECURSE ${prefix})
  step("install aesgen for ${triple}" o ${CMAKE_COMMAND} --install ${WORK}/build --prefix ${prefix})
  foreach(link shared static)
    if(link STREQUAL "shared")
      set(target aesgen::aesgen)
    else()
      set(target aesgen::static)
    endif()
    set(dir ${WORK}/consumer-${link})
    # aesgen_DIR, not CMAKE_PREFIX_PATH: the toolchain confines package searches to the
    # target's root (/usr/${triple}), under which CMAKE_PREFIX_PATH would be re-rooted.
    build_consumer(${dir} -DCMAKE_TOOLCHAIN_FILE=${TOOLCHAIN} -Daesgen_DIR=${prefix}/lib/cmake/aesgen
                   -DAESGEN_CONSUMER_VIA=package -DAESGEN_CONSUMER_LINK=${target})
    string(FIND "${configure_out}" "consumer: aesgen ${VERSION} from package ${prefix}/lib/cmake/aesgen\n" at)
    if(at EQUAL -1)
      fail("find_package(aesgen) did not find the ${triple} package in ${prefix}:\n${configure_out}")
    endif()
    needed(${dir}/consumer libs)
    if(link STREQUAL "shared" AND NOT "libaesgen.so.0" IN_LIST libs)
      fail("the ${triple} consumer does not need libaesgen.so.0 (NEEDED: ${libs})")
    elseif(link STREQUAL "static" AND libs MATCHES "libaesgen")
      fail("the static ${triple} consumer needs ${libs}")
    endif()
    # The shared consumer finds ${prefix}/lib through its build-tree RPATH; qemu's -L
    # only redirects what exists under /usr/${triple}.
    step("run the ${link} consumer under qemu-aarch64" o
         ${qemu} -L /usr/${triple} ${dir}/consumer)
    check_run("${o}")
  endforeach()

else()
  fail("unknown MODE '${MODE}'")
endif()
message(STATUS "${label}: passed")
