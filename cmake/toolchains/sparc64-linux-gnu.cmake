# Cross-compiling aesgen for 64-bit SPARC Linux (big-endian) with Debian's cross toolchain.
#
#   sudo apt-get install gcc-sparc64-linux-gnu libc6-dev-sparc64-cross qemu-user
#   cmake -S . -B build-sparc64 -DCMAKE_TOOLCHAIN_FILE=cmake/toolchains/sparc64-linux-gnu.cmake
#   cmake --build build-sparc64 && ctest --test-dir build-sparc64
#
# The big-endian target: every byte load, store and packing path runs the other way
# round. ctest runs the test programs under qemu-sparc64, whose CPUs (up to the
# UltraSPARC T2) have no T4 AES opcodes: only the portable backends run there.

set(CMAKE_SYSTEM_PROCESSOR sparc64)
set(AESGEN_CROSS_TRIPLE sparc64-linux-gnu)
set(AESGEN_CROSS_QEMU qemu-sparc64)
include(${CMAKE_CURRENT_LIST_DIR}/debian-cross.cmake)
