/*
 * aesgen_variant.h -- the contract between generated variants and the runtime.
 *
 * Every generated source defines one `const aesgen_variant` descriptor (FFTW
 * style: the descriptor sits next to the kernel) and the generated registry
 * lists them all. A variant serves one key size and one direction; its
 * functions take whole blocks and never fail: the runtime has already
 * validated every argument.
 */
#ifndef AESGEN_VARIANT_H
#define AESGEN_VARIANT_H

#include <stddef.h>
#include <stdint.h>

/* CPU features a variant may require (bit mask); cpu.c detects them, with the
 * OS's consent for the register state (xgetbv) where that matters. */
enum {
    AESGEN_CPU_NONE = 0,
    AESGEN_CPU_AESNI = 1u << 0,
    AESGEN_CPU_SSSE3 = 1u << 1,
    AESGEN_CPU_AVX = 1u << 2,      /* and OS-enabled ymm state */
    AESGEN_CPU_AVX2 = 1u << 3,
    AESGEN_CPU_VAES = 1u << 4,
    AESGEN_CPU_AVX512F = 1u << 5,  /* and OS-enabled zmm and opmask state */
    AESGEN_CPU_AVX512VL = 1u << 6,
    AESGEN_CPU_AVX512BW = 1u << 7,
    AESGEN_CPU_ARM_AES = 1u << 8,      /* AArch64 AESE/AESD/AESMC/AESIMC (HWCAP_AES) */
    AESGEN_CPU_PPC_VCRYPTO = 1u << 9,  /* POWER8 vcipher/vncipher (PPC_FEATURE2_VEC_CRYPTO) */
    AESGEN_CPU_RV_ZKNE = 1u << 10,     /* RISC-V scalar AES encryption */
    AESGEN_CPU_RV_ZKND = 1u << 11,     /* RISC-V scalar AES decryption */
    AESGEN_CPU_SPARC_AES = 1u << 12,   /* SPARC T4 AES opcodes (HWCAP crypto + CFR AES bit) */
    AESGEN_CPU_NEON = 1u << 13         /* 32-bit ARM Advanced SIMD (HWCAP_NEON); AArch64 always has it */
};

/* Largest round-key schedule any variant may use, in bytes. */
#define AESGEN_MAX_SCHEDULE_BYTES 1024

typedef struct aesgen_variant {
    const char *name;      /* canonical procedural name, e.g. aes128_enc__portable_fixslice64 */
    const char *backend;   /* family it belongs to, e.g. portable64 */
    uint16_t key_bits;     /* 128, 192 or 256 */
    uint8_t direction;     /* 0 encrypt, 1 decrypt */
    uint8_t word_bits;     /* natural word of a software variant, 0 for hardware */
    uint16_t batch_blocks; /* blocks one core call processes */
    uint16_t rank;         /* dispatch preference: lower wins */
    uint32_t features;     /* AESGEN_CPU_* bits required */
    uint32_t schedule_bytes;
    const char *info;      /* how it computes: interleave, key policy per mode, ... */

    /* Writes the round keys of this direction (schedule_bytes). rk is only
     * 8-byte aligned (a context may sit at any 8-byte-aligned address), so no
     * variant may read or write it with an access that needs more. */
    void (*setkey)(void *rk, const uint8_t *key);
    /* ECB over nblocks whole blocks (encrypt or decrypt by direction). */
    void (*ecb)(const void *rk, uint8_t *out, const uint8_t *in, size_t nblocks);
    /* CBC over nblocks; iv is updated to the last ciphertext block. */
    void (*cbc)(const void *rk, uint8_t *out, const uint8_t *in, size_t nblocks,
                uint8_t iv[16]);
    /* CTR over nblocks whole blocks, counter advanced by nblocks (mod 2^128).
     * Encryption variants only; NULL for decryption variants. */
    void (*ctr)(const void *rk, uint8_t *out, const uint8_t *in, size_t nblocks,
                uint8_t counter[16]);
} aesgen_variant;

/* The generated registry: every variant built into this library. */
extern const aesgen_variant *const aesgen_registry[];
extern const size_t aesgen_registry_size;

#endif /* AESGEN_VARIANT_H */
