# What every Debian cross toolchain file here shares. The including file sets
# CMAKE_SYSTEM_PROCESSOR, AESGEN_CROSS_TRIPLE and AESGEN_CROSS_QEMU (the emulator and
# its CPU options), and may set CMAKE_C_FLAGS_INIT / CMAKE_ASM_FLAGS_INIT.

set(CMAKE_SYSTEM_NAME Linux)
set(CMAKE_C_COMPILER ${AESGEN_CROSS_TRIPLE}-gcc)
set(CMAKE_ASM_COMPILER ${AESGEN_CROSS_TRIPLE}-gcc)

# Debian installs the target's libc and headers under /usr/<triple>: search there for
# libraries, headers and packages, never for programs (those run on the build machine).
set(CMAKE_FIND_ROOT_PATH /usr/${AESGEN_CROSS_TRIPLE})
set(CMAKE_FIND_ROOT_PATH_MODE_PROGRAM NEVER)
set(CMAKE_FIND_ROOT_PATH_MODE_LIBRARY ONLY)
set(CMAKE_FIND_ROOT_PATH_MODE_INCLUDE ONLY)
set(CMAKE_FIND_ROOT_PATH_MODE_PACKAGE ONLY)

# ctest (and CMake's configure-time probe) run target programs through qemu-user.
set(CMAKE_CROSSCOMPILING_EMULATOR ${AESGEN_CROSS_QEMU} -L /usr/${AESGEN_CROSS_TRIPLE})
