# Cross-compiling aesgen for 64-bit little-endian POWER Linux with Debian's cross toolchain.
#
#   sudo apt-get install gcc-powerpc64le-linux-gnu libc6-dev-ppc64el-cross qemu-user
#   cmake -S . -B build-ppc64le -DCMAKE_TOOLCHAIN_FILE=cmake/toolchains/powerpc64le-linux-gnu.cmake
#   cmake --build build-ppc64le && ctest --test-dir build-ppc64le
#
# -mcpu=power8: the POWER8 vector crypto instructions (vcipher, vncipher) assemble,
# and POWER8 is the baseline of every little-endian POWER Linux. ctest runs the test
# programs under "qemu-ppc64le -cpu power8", which has them (PPC_FEATURE2_VEC_CRYPTO).

set(CMAKE_SYSTEM_PROCESSOR ppc64le)
set(AESGEN_CROSS_TRIPLE powerpc64le-linux-gnu)
set(AESGEN_CROSS_QEMU qemu-ppc64le -cpu power8)
set(CMAKE_C_FLAGS_INIT "-mcpu=power8")
set(CMAKE_ASM_FLAGS_INIT "-mcpu=power8")
include(${CMAKE_CURRENT_LIST_DIR}/debian-cross.cmake)
