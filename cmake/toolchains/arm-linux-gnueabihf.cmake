# Cross-compiling aesgen for 32-bit ARM Linux (ARMv7-A, hard float; Debian armhf)
# with Debian's cross toolchain.
#
#   sudo apt-get install gcc-arm-linux-gnueabihf libc6-dev-armhf-cross qemu-user
#   cmake -S . -B build-armhf -DCMAKE_TOOLCHAIN_FILE=cmake/toolchains/arm-linux-gnueabihf.cmake
#   cmake --build build-armhf && ctest --test-dir build-armhf
#
# A 32-bit target: dispatch prefers the portable backend on 32-bit words (portable32).
# ctest runs the test programs under qemu-arm.

set(CMAKE_SYSTEM_PROCESSOR armv7l)
set(AESGEN_CROSS_TRIPLE arm-linux-gnueabihf)
set(AESGEN_CROSS_QEMU qemu-arm)
include(${CMAKE_CURRENT_LIST_DIR}/debian-cross.cmake)
