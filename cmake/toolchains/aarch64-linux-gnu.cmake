# Cross-compiling aesgen for 64-bit ARM Linux with Debian's cross toolchain.
#
#   sudo apt-get install gcc-aarch64-linux-gnu libc6-dev-arm64-cross qemu-user
#   cmake -S . -B build-aarch64 -DCMAKE_TOOLCHAIN_FILE=cmake/toolchains/aarch64-linux-gnu.cmake
#   cmake --build build-aarch64 && ctest --test-dir build-aarch64
#
# ctest runs the test programs under qemu-aarch64 (CMAKE_CROSSCOMPILING_EMULATOR);
# "-cpu max" gives the emulated CPU the ARMv8 AES instructions (HWCAP_AES), so the
# configure-time probe finds them and the hardware variants' tests are registered.
# Building does not need qemu; for a real board, the library is the same.

set(CMAKE_SYSTEM_PROCESSOR aarch64)
set(AESGEN_CROSS_TRIPLE aarch64-linux-gnu)
set(AESGEN_CROSS_QEMU qemu-aarch64 -cpu max)
include(${CMAKE_CURRENT_LIST_DIR}/debian-cross.cmake)
