/*
 * aesgen.h -- the public API of the aesgen runtime library.
 *
 * AES-128/192/256 in ECB, CBC and CTR (SP 800-38A), GCM (SP 800-38D) and
 * AES-128/256 in XTS (IEEE 1619, SP 800-38E) over
 * generated, fully unrolled backends, chosen once per process from what the
 * CPU supports.
 *
 * Conventions
 *  - Every function that can fail returns an aesgen_status (0 = success,
 *    negative = error). On error nothing is written: no output byte, no IV,
 *    no counter, no context field changes.
 *  - Buffers may have any alignment. `out == in` (in place) works; buffers
 *    that overlap in any other way are rejected with AESGEN_ERR_OVERLAP.
 *  - A pointer may be NULL only where its length is 0.
 *  - An initialised aesgen_ctx is read-only: any number of threads may use
 *    one context at the same time. An aesgen_ctr stream is written by every
 *    call and belongs to one thread at a time.
 *  - Nothing here branches on, or indexes memory with, key or data bytes.
 */
#ifndef AESGEN_H
#define AESGEN_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#if defined(_WIN32) && defined(AESGEN_SHARED_BUILD)
#define AESGEN_API __declspec(dllexport)
#elif defined(__GNUC__)
#define AESGEN_API __attribute__((visibility("default")))
#else
#define AESGEN_API
#endif

#define AESGEN_VERSION_MAJOR 0
#define AESGEN_VERSION_MINOR 1
#define AESGEN_VERSION_PATCH 0

#define AESGEN_BLOCK_SIZE 16

/* Status codes. */
typedef enum aesgen_status {
    AESGEN_OK = 0,
    AESGEN_ERR_NULL = -1,       /* a required pointer is NULL */
    AESGEN_ERR_KEY_LENGTH = -2, /* key length is not 16, 24 or 32 bytes */
    AESGEN_ERR_LENGTH = -3,     /* ECB/CBC length not a multiple of 16, or the
                                   buffer would wrap the address space */
    AESGEN_ERR_OVERLAP = -4,    /* in and out overlap without being equal */
    AESGEN_ERR_CONTEXT = -5,    /* context or stream not initialised (or wiped) */
    AESGEN_ERR_BACKEND = -6,    /* backend name unknown, or not usable on this CPU
                                   (also returned by aesgen_init when the
                                   AESGEN_BACKEND environment variable names one,
                                   AESGEN_CPU_DISABLE names an unknown feature or
                                   AESGEN_CPU_ID is malformed) */
    AESGEN_ERR_AUTH = -7,       /* GCM: the tag does not authenticate the IV, AAD
                                   and ciphertext */
    AESGEN_ERR_STATE = -8,      /* GCM stream: a call out of order (AAD after data,
                                   finish on a decryption stream, anything after
                                   finish or verify) */
    AESGEN_ERR_WEAK_KEY = -9    /* XTS: the two key halves are equal (FIPS 140
                                   implementation guidance forbids it) */
} aesgen_status;

typedef enum aesgen_direction {
    AESGEN_ENCRYPT = 0,
    AESGEN_DECRYPT = 1
} aesgen_direction;

/* A key context: round keys for both directions plus the variants that
 * serve them. Opaque; its size is part of the ABI. It needs only the
 * alignment of uint64_t: a context at any 8-byte-aligned address (malloc,
 * an arena or custom allocator, a member of a packed struct at an 8-byte
 * boundary) works on every backend, because no backend reads round keys with
 * an instruction that needs more. A context may be copied with memcpy to any
 * such address. 64-byte alignment puts the round keys on the fewest cache
 * lines and is recommended where it is free, never required. */
#define AESGEN_CTX_BYTES 2176
typedef struct aesgen_ctx {
    uint64_t opaque[AESGEN_CTX_BYTES / 8];
} aesgen_ctx;

/* A CTR stream: the 128-bit big-endian counter block of SP 800-38A and the
 * unused rest of the current keystream block, so that a call may end in the
 * middle of a block and the next call continues the keystream. */
typedef struct aesgen_ctr {
    uint8_t counter[16];   /* the next counter block to encrypt */
    uint8_t keystream[16]; /* keystream of the previous counter block */
    uint32_t used;         /* bytes of keystream[] already consumed (0..16) */
    uint32_t magic;        /* set by aesgen_ctr_init */
} aesgen_ctr;

/* Key set-up for both directions. key_len is 16, 24 or 32. */
AESGEN_API int aesgen_init(aesgen_ctx *ctx, const uint8_t *key, size_t key_len);

/* Erase a context, a stream or any buffer so that no key material remains;
 * the stores cannot be optimised away. NULL is ignored. A wiped context or
 * stream must be initialised again before use. */
AESGEN_API void aesgen_wipe(aesgen_ctx *ctx);
AESGEN_API void aesgen_ctr_wipe(aesgen_ctr *ctr);
AESGEN_API void aesgen_memwipe(void *p, size_t len);

/* ECB of whole blocks: len must be a multiple of 16. */
AESGEN_API int aesgen_ecb_encrypt(const aesgen_ctx *ctx, uint8_t *out,
                                  const uint8_t *in, size_t len);
AESGEN_API int aesgen_ecb_decrypt(const aesgen_ctx *ctx, uint8_t *out,
                                  const uint8_t *in, size_t len);

/* CBC of whole blocks: len must be a multiple of 16. iv[16] is updated to
 * the last ciphertext block, so consecutive calls chain like one call. */
AESGEN_API int aesgen_cbc_encrypt(const aesgen_ctx *ctx, uint8_t iv[16],
                                  uint8_t *out, const uint8_t *in, size_t len);
AESGEN_API int aesgen_cbc_decrypt(const aesgen_ctx *ctx, uint8_t iv[16],
                                  uint8_t *out, const uint8_t *in, size_t len);

/* CBC encryption of independent messages under one key. A CBC chain waits for
 * each block before the next, so one message keeps a fraction of the AES unit
 * busy; this call keeps one block of each of up to L messages in flight (L is
 * the variant's batch: 8 on aesni, 16 on vaes256, 32 on vaes512 and
 * avx512-fixslice) and gives a finished message's lane to the next one.
 * Message i is encrypted exactly as aesgen_cbc_encrypt(ctx, msgs[i].iv,
 * msgs[i].out, msgs[i].in, msgs[i].len) would: len a multiple of 16, 0
 * allowed (nothing is written, not even its IV); iv updated to the last
 * ciphertext block. Lengths may differ. count is at most
 * AESGEN_CBC_STREAMS_MAX; count 0 does nothing (msgs may then be NULL).
 * Errors, all found before anything is written (no output byte, no IV):
 *  - AESGEN_ERR_NULL: msgs (count > 0), a message's iv, or its out or in
 *    where its len > 0;
 *  - AESGEN_ERR_LENGTH: a len not a multiple of 16, a buffer past the end of
 *    the address space, count > AESGEN_CBC_STREAMS_MAX;
 *  - AESGEN_ERR_OVERLAP: a message's out overlaps its own in without being
 *    equal to it, or anything the call writes (an out, an iv) overlaps any
 *    other buffer of the call: another message's out, in or iv, its own iv,
 *    or msgs[] itself. Inputs may overlap each other. */
#define AESGEN_CBC_STREAMS_MAX 256
typedef struct aesgen_cbc_msg {
    uint8_t *iv;       /* 16 bytes, in: the IV; out: the last ciphertext block */
    uint8_t *out;
    const uint8_t *in;
    size_t len;        /* bytes, a multiple of 16 */
} aesgen_cbc_msg;

AESGEN_API int aesgen_cbc_encrypt_streams(const aesgen_ctx *ctx, const aesgen_cbc_msg *msgs,
                                          size_t count);

/* CTR (SP 800-38A): the whole 16-byte counter block is one big-endian
 * 128-bit integer, incremented by one per block and wrapping from 2^128-1
 * to 0. Any byte length; encryption and decryption are the same call. */
AESGEN_API int aesgen_ctr_init(aesgen_ctr *ctr, const uint8_t counter[16]);
AESGEN_API int aesgen_ctr_crypt(const aesgen_ctx *ctx, aesgen_ctr *ctr,
                                uint8_t *out, const uint8_t *in, size_t len);

/* ---- AES-GCM (NIST SP 800-38D) ----------------------------------------
 *
 * A GCM key holds the round keys and the powers of the hash key H; like
 * aesgen_ctx it is read-only once set up, may be shared between threads, and
 * needs only 8-byte alignment. IVs of any length from 1 byte work; 12 bytes is
 * the fast path (and the only length whose uniqueness is simple to get right).
 * Tags are 16, 15, 14, 13 or 12 bytes, or 8 or 4 (SP 800-38D Appendix C limits
 * the data a key may protect with those: the caller's duty); any other length
 * is AESGEN_ERR_LENGTH. At most 2^36 - 32 bytes of text per IV, 2^61 - 1 of
 * AAD, else AESGEN_ERR_LENGTH. Buffers: any alignment, in place (out == in)
 * works, other overlaps are AESGEN_ERR_OVERLAP; on any error nothing is written. */
#define AESGEN_GCM_KEY_BYTES 2048
typedef struct aesgen_gcm_key {
    uint64_t opaque[AESGEN_GCM_KEY_BYTES / 8];
} aesgen_gcm_key;

/* key_len 16, 24 or 32. */
AESGEN_API int aesgen_gcm_init(aesgen_gcm_key *key, const uint8_t *k, size_t key_len);
AESGEN_API void aesgen_gcm_wipe(aesgen_gcm_key *key);

/* One message: out = the encryption of in (len bytes), tag = its tag over the
 * IV, the AAD and the ciphertext. */
AESGEN_API int aesgen_gcm_seal(const aesgen_gcm_key *key, const uint8_t *iv, size_t iv_len,
                               const uint8_t *aad, size_t aad_len, uint8_t *out,
                               const uint8_t *in, size_t len, uint8_t *tag, size_t tag_len);
/* One message: the tag is checked (in constant time) before any plaintext is
 * written. On a mismatch the result is AESGEN_ERR_AUTH and out is never
 * written: no plaintext of an unauthenticated message is released. */
AESGEN_API int aesgen_gcm_open(const aesgen_gcm_key *key, const uint8_t *iv, size_t iv_len,
                               const uint8_t *aad, size_t aad_len, uint8_t *out,
                               const uint8_t *in, size_t len, const uint8_t *tag, size_t tag_len);

/* A message in pieces: start with the IV; AAD in any number of calls; then the
 * text in any number of calls of any length (the first aesgen_gcm_update, even
 * of 0 bytes, ends the AAD); then aesgen_gcm_finish (sealing:
 * the tag) or aesgen_gcm_verify (opening: AESGEN_OK or AESGEN_ERR_AUTH). A
 * streamed open releases plaintext before the tag is verified: use
 * aesgen_gcm_open where that must not happen. The stream refers to its key,
 * which must stay set up until the stream is finished; one thread at a time. */
#define AESGEN_GCM_STREAM_BYTES 192
typedef struct aesgen_gcm_stream {
    uint64_t opaque[AESGEN_GCM_STREAM_BYTES / 8];
} aesgen_gcm_stream;

AESGEN_API int aesgen_gcm_start(aesgen_gcm_stream *s, const aesgen_gcm_key *key, aesgen_direction dir,
                                const uint8_t *iv, size_t iv_len);
AESGEN_API int aesgen_gcm_aad(aesgen_gcm_stream *s, const uint8_t *aad, size_t len);
AESGEN_API int aesgen_gcm_update(aesgen_gcm_stream *s, uint8_t *out, const uint8_t *in, size_t len);
AESGEN_API int aesgen_gcm_finish(aesgen_gcm_stream *s, uint8_t *tag, size_t tag_len);
AESGEN_API int aesgen_gcm_verify(aesgen_gcm_stream *s, const uint8_t *tag, size_t tag_len);
AESGEN_API void aesgen_gcm_stream_wipe(aesgen_gcm_stream *s);

/* The AES variant and GHASH serving a GCM key (NULL if not set up). */
AESGEN_API const char *aesgen_gcm_variant(const aesgen_gcm_key *key);
AESGEN_API const char *aesgen_gcm_ghash(const aesgen_gcm_key *key);
/* Whether the key's AES variant has a stitched GCM loop that reads its GHASH table: text
 * with a 12-byte IV then runs through one pass (CTR and GHASH interleaved) in chunks
 * of that many blocks, which is returned; 0 if the text takes two passes or the key is
 * not set up. */
AESGEN_API unsigned aesgen_gcm_stitched(const aesgen_gcm_key *key);

/* ---- AES-XTS (IEEE 1619-2007, NIST SP 800-38E) -------------------------
 *
 * An XTS key is key1 || key2: 32 bytes (AES-128-XTS) or 64 bytes
 * (AES-256-XTS); any other length is AESGEN_ERR_KEY_LENGTH, equal halves
 * AESGEN_ERR_WEAK_KEY (compared in constant time). key1 encrypts the data,
 * key2 the tweak. Read-only once set up, shareable between threads, 8-byte
 * alignment, like aesgen_ctx.
 *
 * One data unit: `len` bytes (at least 16, at most 2^24 = 2^20 blocks, else
 * AESGEN_ERR_LENGTH) with a 16-byte tweak (the data unit's number, encoded as
 * the caller's format requires). A length that is not a multiple of 16 uses
 * ciphertext stealing. Buffers: any alignment, in place works, other overlaps
 * are AESGEN_ERR_OVERLAP; on any error nothing is written. */
#define AESGEN_XTS_KEY_BYTES 3200
typedef struct aesgen_xts_key {
    uint64_t opaque[AESGEN_XTS_KEY_BYTES / 8];
} aesgen_xts_key;

AESGEN_API int aesgen_xts_init(aesgen_xts_key *key, const uint8_t *k, size_t key_len);
AESGEN_API void aesgen_xts_wipe(aesgen_xts_key *key);
AESGEN_API int aesgen_xts_encrypt(const aesgen_xts_key *key, const uint8_t tweak[16], uint8_t *out,
                                  const uint8_t *in, size_t len);
AESGEN_API int aesgen_xts_decrypt(const aesgen_xts_key *key, const uint8_t tweak[16], uint8_t *out,
                                  const uint8_t *in, size_t len);

/* Many sectors: `count` consecutive data units of `unit_len` bytes each (the
 * same limits as one unit), unit i with the tweak sector + i as a 16-byte
 * little-endian number (dm-crypt's plain64). count 0 does nothing;
 * sector + count - 1 beyond 2^64 - 1, or count * unit_len beyond the address
 * space, is AESGEN_ERR_LENGTH. The same as a loop of single-unit calls. */
AESGEN_API int aesgen_xts_encrypt_sectors(const aesgen_xts_key *key, uint64_t sector, size_t unit_len,
                                          size_t count, uint8_t *out, const uint8_t *in);
AESGEN_API int aesgen_xts_decrypt_sectors(const aesgen_xts_key *key, uint64_t sector, size_t unit_len,
                                          size_t count, uint8_t *out, const uint8_t *in);

/* The AES encryption variant serving an XTS key's data and tweak, and its
 * decryption variant (NULL if not set up). */
AESGEN_API const char *aesgen_xts_variant(const aesgen_xts_key *key, aesgen_direction dir);

/* Backends: named families of generated variants ("portable64", ...).
 * aesgen_backend_name returns NULL past the end. */
AESGEN_API size_t aesgen_backend_count(void);
AESGEN_API const char *aesgen_backend_name(size_t index);
/* 1 if the backend exists and this CPU can run it, 0 if it exists but
 * cannot run here, AESGEN_ERR_BACKEND if no backend has that name. */
AESGEN_API int aesgen_backend_supported(const char *name);

/* Force every later aesgen_init in this process onto one backend (tests,
 * benchmarks). NULL returns to automatic choice. Contexts already set up
 * keep their variants. The name "software" is a class, not a backend: the
 * fastest constant-time software backend the CPU runs (fixsliced on the
 * widest SIMD, else portable C), never AES instructions; aesgen_backend_supported
 * accepts it too. The AESGEN_BACKEND environment variable does the
 * same for a whole process; a call to this function overrides it. Safe
 * to call from any thread: an aesgen_init running meanwhile takes both
 * directions from the old choice or both from the new.
 * AESGEN_CPU_DISABLE=name,... (aesni, ssse3, avx, avx2, vaes, avx512f,
 * avx512vl, avx512bw, arm_aes, ppc_vcrypto, rv_zkne, rv_zknd, sparc_aes, neon,
 * pclmul, arm_pmull, vpclmulqdq, rv_clmul, sparc_vis3)
 * hides CPU features from dispatch for a process; AESGEN_CPU_ID=
 * intel-family6h-model6ah (or "unknown") makes dispatch order the backends
 * as for that CPU model (docs/dispatch.md). */
AESGEN_API int aesgen_force_backend(const char *name);

/* The variant aesgen_init would pick now for a key size (128, 192, 256) and
 * direction, e.g. "aes128_enc__portable_fixslice64", and its backend name.
 * NULL for an invalid key size or direction, or if the forced backend
 * cannot serve it. */
AESGEN_API const char *aesgen_selected_variant(unsigned key_bits,
                                               aesgen_direction dir);
AESGEN_API const char *aesgen_selected_backend(unsigned key_bits,
                                               aesgen_direction dir);

/* The variant serving an initialised context (NULL if not initialised). */
AESGEN_API const char *aesgen_ctx_variant(const aesgen_ctx *ctx,
                                          aesgen_direction dir);

AESGEN_API const char *aesgen_status_string(int status);
AESGEN_API const char *aesgen_version_string(void);

#ifdef __cplusplus
}
#endif

#endif /* AESGEN_H */
