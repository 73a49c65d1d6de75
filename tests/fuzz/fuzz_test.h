/*
 * fuzz_test.h -- what the two files of fuzz_differential share:
 *   fuzz_test.c  the libFuzzer entry points, the input layout, the subjects, the
 *                ECB/CBC/CTR modes
 *   fuzz_gcm.c   the AES-GCM modes (seal, open)
 *   fuzz_xts.c   the AES-XTS modes (encrypt, decrypt; one unit or many sectors)
 *   fuzz_cbc_streams.c  CBC encryption of independent messages (one call)
 * Both decode the same header (FUZZ_HEADER bytes, the layout at the top of
 * fuzz_test.c) and compare aesgen with OpenSSL EVP; any mismatch prints the case
 * and calls abort(), which libFuzzer saves as a reproducer.
 */
#ifndef AESGEN_FUZZ_TEST_H
#define AESGEN_FUZZ_TEST_H

#include <stddef.h>
#include <stdint.h>

#include <openssl/evp.h>

#include "aesgen.h"
#include "aesgen_internal.h"

#define FUZZ_MAX_LEN 4096  /* text bytes */
#define FUZZ_MAX_PIECES 8  /* calls a message (and a GCM AAD) is split into */
#define FUZZ_HEADER 65     /* the payload starts here */
#define FUZZ_MAX_SUBJECTS 256
#define FUZZ_GCM_MAX_IV 80     /* GCM IV lengths 1..80 (12 favoured) */
#define FUZZ_GCM_MAX_AAD 1024  /* GCM AAD lengths 0..1024 */

#define FUZZ_STREAMS_MAX 72    /* CBC streams: messages per call (past 2 x 32 + 1) */

/* Modes: TS_MODE_* (ts_modes.h), then the two GCM ones, the two XTS ones, CBC streams. */
enum {
    FUZZ_MODE_GCM_SEAL = 5,
    FUZZ_MODE_GCM_OPEN,
    FUZZ_MODE_XTS_ENC,
    FUZZ_MODE_XTS_DEC,
    FUZZ_MODE_CBC_STREAMS,
    FUZZ_MODE_COUNT
};

/* What serves a case: a forced backend (aesgen_force_backend, then the API picks),
 * or one variant (aesgen_init_variants / aesgen_gcm_init_variants). */
typedef struct fuzz_subject {
    const char *backend;           /* forced backend, or NULL */
    const aesgen_variant *variant; /* variant under test, or NULL */
} fuzz_subject;

/* The OpenSSL context the oracle runs in (one per process). */
extern EVP_CIPHER_CTX *fuzz_ossl;

/* Byte i of the input, 0 past its end. */
uint8_t fuzz_at(const uint8_t *data, size_t size, size_t i);

/* len bytes of payload (the input from FUZZ_HEADER on), repeated with a running xor
 * when shorter (zeros with the xor when there is none). */
void fuzz_payload(uint8_t *out, size_t len, const uint8_t *data, size_t size);

/* Split points of len bytes into n_pieces (1..FUZZ_MAX_PIECES) calls: cut[0] = 0,
 * cut[n_pieces] = len, the inner ones from the bytes at `first`, first + 1, ...
 * (each scaled to len, in multiples of unit), sorted; pieces may be empty. */
void fuzz_cuts(size_t *cut, size_t n_pieces, size_t len, size_t unit, const uint8_t *data, size_t size,
               size_t first);

/* A heap buffer whose n bytes from *at end exactly at the end of the allocation, off
 * bytes after its start (ASan sees a read or write one past them). Free *base. */
uint8_t *fuzz_tail_buffer(size_t off, size_t n, uint8_t **base);

/* Printing, on stderr: "  <label>: <hex>"; what the current case was (set by the
 * mode that runs it, NULL between cases). */
void fuzz_hex(const char *label, const uint8_t *p, size_t n);
extern void (*fuzz_describe)(void);

/* "fuzz_differential: MISMATCH: <message>", the case, abort(). */
#if defined(__GNUC__) || defined(__clang__)
__attribute__((format(printf, 1, 2), noreturn))
#endif
void fuzz_fail(const char *fmt, ...);
/* The status of `call` must be `want`, else the same with both statuses. */
void fuzz_expect_status(const char *call, int got, int want);
/* n bytes must match: else both from the first differing block, then fuzz_fail. */
void fuzz_same(const char *what, const uint8_t *want, const uint8_t *got, size_t n);

/* fuzz_gcm.c: its subjects and GHASH variants (after the backends are known), and
 * one case of mode FUZZ_MODE_GCM_SEAL or FUZZ_MODE_GCM_OPEN. */
void fuzz_gcm_init(void);
void fuzz_gcm_run(const uint8_t *data, size_t size, int mode);

/* fuzz_xts.c: its subjects and decryption variants, and one case of mode
 * FUZZ_MODE_XTS_ENC or FUZZ_MODE_XTS_DEC. */
void fuzz_xts_init(void);
void fuzz_xts_run(const uint8_t *data, size_t size, int mode);

/* fuzz_cbc_streams.c: its subjects (backends, encryption variants), and one case of
 * mode FUZZ_MODE_CBC_STREAMS. */
void fuzz_cbc_streams_init(void);
void fuzz_cbc_streams_run(const uint8_t *data, size_t size);

#endif
