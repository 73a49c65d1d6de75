# Cross-compiling aesgen for 64-bit RISC-V Linux with Debian's cross toolchain.
#
#   sudo apt-get install gcc-riscv64-linux-gnu libc6-dev-riscv64-cross qemu-user
#   cmake -S . -B build-riscv64 -DCMAKE_TOOLCHAIN_FILE=cmake/toolchains/riscv64-linux-gnu.cmake
#   cmake --build build-riscv64 && ctest --test-dir build-riscv64
#
# -march=rv64gc_zkne_zknd_zbkc: the library is built for a CPU with the scalar AES
# extensions (Zkne, Zknd) and the carry-less multiply (Zbkc). It then counts them as
# present (__riscv_zkne, __riscv_zknd, __riscv_zbkc) without asking the kernel: qemu 7.2
# has no riscv_hwprobe to ask. The binaries need such a CPU; for plain RV64GC hardware
# drop the three extensions from -march (the scalar AES variants and the clmul GHASH
# then serve only where riscv_hwprobe reports them).
# ctest runs the test programs under "qemu-riscv64 -cpu rv64,zk=true" (zk: Zkn, which
# includes Zbkc, and Zkr, Zkt).

set(CMAKE_SYSTEM_PROCESSOR riscv64)
set(AESGEN_CROSS_TRIPLE riscv64-linux-gnu)
set(AESGEN_CROSS_QEMU qemu-riscv64 -cpu rv64,zk=true)
set(CMAKE_C_FLAGS_INIT "-march=rv64gc_zkne_zknd_zbkc")
set(CMAKE_ASM_FLAGS_INIT "-march=rv64gc_zkne_zknd_zbkc")
include(${CMAKE_CURRENT_LIST_DIR}/debian-cross.cmake)
