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

/* The AESGEN_CPU_* feature bits a variant may require (generated from the
 * generator's feature table). */
#include "cpu_features.h"

/* Largest round-key schedule any variant may use, in bytes. */
#define AESGEN_MAX_SCHEDULE_BYTES 1024

/* CBC encryption of `lanes` independent messages at once, `steps` blocks of each: lane
 * i reads in[i], writes out[i] (the same or disjoint, any alignment) and carries its
 * chain value in chains[16 i .. 16 i + 15] (in: the IV or the last ciphertext block;
 * out: the last ciphertext block). chains is 64-byte aligned and followed by
 * AESGEN_CBC_LANES_SCRATCH(lanes) bytes the function may overwrite (a transposing one
 * parks 4 steps of every lane there: plaintext and ciphertext, for the caller to wipe). */
typedef void aesgen_cbc_lanes_fn(const void *rk, uint8_t *const *out, const uint8_t *const *in, size_t steps,
                                 uint8_t *chains);

#define AESGEN_CBC_LANE_KERNELS 3
#define AESGEN_CBC_LANES_SCRATCH(lanes) (64 * (size_t)(lanes))

typedef struct aesgen_cbc_lanes {
    uint16_t lanes; /* 0: no function */
    aesgen_cbc_lanes_fn *fn;
    /* Steps it reads and writes of each lane as one vector (4 on zmm: a whole 64-byte
     * line, so messages a multiple of 4 KiB apart do not thrash L1), while that many
     * remain; 1: a block of each lane per step. */
    uint16_t line_steps;
} aesgen_cbc_lanes;

/* GCM over nblocks whole blocks, a multiple of the variant's gcm_blocks: CTR from
 * counter[] (counting in its low 64 bits, which must not wrap within the call, and left
 * as it was, like ctr) with the GHASH of the ciphertext (out when sealing, in when
 * opening) stitched in: hash->y is updated; hash->table is a GHASH variant's table of
 * the layout gcm_table names. hash->after and hash->before: NULL, or (gcm_seal only;
 * gcm_open ignores them) a block hashed after the text, as the lengths block is, and one
 * hashed before it, as a short AAD is. out == in or disjoint. */
typedef struct aesgen_gcm_hash {
    uint8_t y[16];
    const void *table;
    const uint8_t *after;
    const uint8_t *before;
} aesgen_gcm_hash;

typedef void aesgen_gcm_fn(const void *rk, uint8_t *out, const uint8_t *in, size_t nblocks, uint8_t counter[16],
                           aesgen_gcm_hash *hash);

typedef struct aesgen_variant {
    const char *name;      /* canonical procedural name, e.g. aes128_enc__portable_fixslice64 */
    const char *backend;   /* family it belongs to, e.g. portable64 */
    uint16_t key_bits;     /* 128, 192 or 256 */
    uint8_t direction;     /* 0 encrypt, 1 decrypt */
    uint8_t word_bits;     /* natural word of a software variant, 0 for hardware */
    uint16_t batch_blocks; /* blocks one core call processes */
    /* Software variants: logic (or vector) operations of one batch's core, and how
     * many the target assumes issue per cycle: their issue bound is
     * issue_per_cycle * 16 * batch_blocks / core_ops bytes per cycle. 0 for hardware. */
    uint16_t core_ops;
    uint8_t issue_per_cycle;
    uint16_t rank;         /* dispatch preference: lower wins */
    uint32_t features;     /* AESGEN_CPU_* bits required */
    uint32_t schedule_bytes;
    const char *info;      /* how it computes: interleave, key policy per mode, ... */
    /* What the mode functions leave to their caller (variant_call.c does it, so
     * call them through aesgen_variant_ecb/cbc/ctr for the full contract):
     * ctr_low64: ctr counts in the low 64 bits of the counter only and leaves
     *   counter[] as it was: the caller splits calls where those bits wrap and
     *   advances the counter (the hardware loops);
     * align: 0, or the alignment out, in, iv and counter must have (the caller
     *   passes other buffers through an aligned bounce buffer). */
    uint8_t ctr_low64;
    uint8_t align;

    /* Writes the round keys of this direction (schedule_bytes). rk is only
     * 8-byte aligned (a context may sit at any 8-byte-aligned address), so no
     * variant may read or write it with an access that needs more. */
    void (*setkey)(void *rk, const uint8_t *key);
    /* ECB over nblocks whole blocks (encrypt or decrypt by direction). */
    void (*ecb)(const void *rk, uint8_t *out, const uint8_t *in, size_t nblocks);
    /* CBC over nblocks; iv is updated to the last ciphertext block. */
    void (*cbc)(const void *rk, uint8_t *out, const uint8_t *in, size_t nblocks,
                uint8_t iv[16]);
    /* CTR over nblocks whole blocks, counter advanced by nblocks (mod 2^128);
     * see ctr_low64. Encryption variants only; NULL for decryption variants. */
    void (*ctr)(const void *rk, uint8_t *out, const uint8_t *in, size_t nblocks,
                uint8_t counter[16]);
    /* XTS over the nblocks whole blocks of one data unit (nblocks <= 2^20), encrypt
     * or decrypt by direction: block j is whitened with tweak * alpha^j before and
     * after the cipher; tweak[] (the first block's encrypted tweak) is left holding
     * the next block's. out == in or disjoint; out may hold a block's tweak between
     * its load and its result (every input block is read first). NULL where the
     * variant has no XTS loop (xts.c then whitens around ecb). */
    void (*xts)(const void *rk, uint8_t *out, const uint8_t *in, size_t nblocks, uint8_t tweak[16]);
    /* XTS over `count` (>= 1) consecutive data units of nblocks blocks each, nblocks a
     * positive multiple of xts_units_blocks; unit i's encrypted tweak is at tweaks +
     * 16 i (read only). The many-sector call's loop: one call for a group of sectors.
     * out == in or disjoint. NULL (and 0) where the variant has none. */
    void (*xts_units)(const void *rk, uint8_t *out, const uint8_t *in, size_t nblocks, const uint8_t *tweaks,
                      size_t count);
    uint16_t xts_units_blocks;
    /* Encryption variants with lanes functions (aesgen_cbc_encrypt_streams), widest
     * first; the rest of the array is zero. */
    aesgen_cbc_lanes cbc_lanes[AESGEN_CBC_LANE_KERNELS];
    /* Stitched GCM (encryption variants where the register plan holds it; else 0/NULL):
     * chunk of blocks, the GHASH table layout read, seal and open. */
    uint16_t gcm_blocks;
    const char *gcm_table;
    aesgen_gcm_fn *gcm_seal;
    aesgen_gcm_fn *gcm_open;
} aesgen_variant;

/* A GHASH (SP 800-38D) implementation: the hash-key set-up and the update over
 * whole blocks; independent of the key size. */
typedef struct aesgen_ghash_variant {
    const char *name;      /* e.g. ghash__portable_x4 */
    const char *backend;   /* e.g. ghash-portable */
    uint16_t blocks;       /* blocks reduced together (the powers of H in the table) */
    uint16_t rank;         /* dispatch preference: lower wins */
    uint32_t features;     /* AESGEN_CPU_* bits required */
    uint32_t table_bytes;  /* what setkey writes */
    const char *table;     /* its layout, e.g. "16 twisted powers, then their half sums" */
    const char *info;
    /* htable (table_bytes, 8-byte aligned) from the hash key h = E_K(0^128). */
    void (*setkey)(void *htable, const uint8_t h[16]);
    /* y = GHASH_H over nblocks whole blocks, continuing from y. */
    void (*update)(const void *htable, uint8_t y[16], const uint8_t *data, size_t nblocks);
} aesgen_ghash_variant;

/* CPU vendors the per-CPU dispatch table knows (x86-64 only so far). */
enum { AESGEN_CPU_VENDOR_UNKNOWN = 0, AESGEN_CPU_VENDOR_INTEL = 1, AESGEN_CPU_VENDOR_AMD = 2 };

/* A move of one backend in the dispatch order: `delta` is added to the rank of
 * each of its variants. */
typedef struct aesgen_rank_change {
    const char *backend;
    int16_t delta;
} aesgen_rank_change;

/* How CPU models order the backends they can run where that differs from the
 * targets' ranks, and why (generator/cpus/). */
typedef struct aesgen_cpu_preference {
    const char *name;      /* which CPUs, e.g. "Intel ... Ice Lake, Tiger Lake" */
    const char *prefer;    /* the order, e.g. "vaes256-avx512vl > vaes512" */
    const char *why;
    const char *source;    /* a publication, or the measurement file */
    const aesgen_rank_change *changes;
    size_t nchanges;
} aesgen_cpu_preference;

/* CPU models as cpuid reports them (vendor, family, model_first..model_last);
 * dispatch applies the preference of the first entry that matches. */
typedef struct aesgen_cpu_model {
    uint8_t vendor;        /* AESGEN_CPU_VENDOR_* */
    uint16_t family;
    uint8_t model_first, model_last;
    const aesgen_cpu_preference *preference;
} aesgen_cpu_model;

/* One CPU's identity, as matched against that table. */
typedef struct aesgen_cpu_id {
    uint8_t vendor;
    uint16_t family;
    uint8_t model;
} aesgen_cpu_id;

extern const aesgen_cpu_model aesgen_cpu_models[];
extern const size_t aesgen_cpu_models_size;

/* The generated registries: every variant built into this library. */
extern const aesgen_variant *const aesgen_registry[];
extern const size_t aesgen_registry_size;
extern const aesgen_ghash_variant *const aesgen_ghash_registry[];
extern const size_t aesgen_ghash_registry_size;

#endif /* AESGEN_VARIANT_H */
