/*
 * gcm_api.h -- what the files of aesgen_gcm_api share (the AES-GCM contract of
 * aesgen.h; no OpenSSL, no vector folder):
 *   gcm_api_test.c    helpers, known answers (the GCM specification's test cases),
 *                     status strings, the GHASH registry, every GHASH and backend,
 *                     keys at every 8-byte offset of a line, a shared key, wiping, main
 *   gcm_api_errors.c  NULL pointers, key, IV, tag and message lengths, overlapping
 *                     buffers, uninitialised keys and streams: every refusal writes nothing
 *   gcm_api_stream.c  the stream's order of calls (AESGEN_ERR_STATE), refused calls
 *                     leaving the stream usable, tags that do not authenticate
 * Checks are counted and reported by ts_report.h: "FAIL (line N): ...".
 */
#ifndef AESGEN_GCM_API_H
#define AESGEN_GCM_API_H

#include <stddef.h>
#include <stdint.h>

#include "aesgen.h"
#include "aesgen_internal.h"
#include "gcm_common.h"
#include "ts_report.h"

#define CHECK(cond, ...) TS_CHECK(cond, __VA_ARGS__)

const char *st(int rc); /* aesgen_status_string, never NULL */

/* `expr` returned `got`; it must be `want`. */
void expect_rc_impl(int got, int want, int line, const char *expr);
#define EXPECT_RC(expr, want) expect_rc_impl((expr), (want), __LINE__, #expr)

/* Watched memory: watch() takes a copy; WATCH_CHECK verifies every watched byte is
 * unchanged ("on error nothing is written") and ends the watches. */
void watch(const char *name, const void *p, size_t n);
void watch_check_impl(int line, const char *what);
#define WATCH_CHECK(what) watch_check_impl(__LINE__, (what))

void fill(void *p, size_t n, uint8_t seed);

/* The GCM specification's test cases (McGrew and Viega, "The Galois/Counter Mode of
 * Operation", appendix B), checked against OpenSSL when written down here. */
typedef struct gcm_kat {
    const char *name;
    size_t key_len, iv_len, aad_len, len;
    uint8_t key[32], iv[64], aad[20], pt[64], ct[64], tag[16];
} gcm_kat;
#define GCM_KAT_COUNT 7
extern gcm_kat gcm_kats[GCM_KAT_COUNT]; /* filled by kat_init() */
void kat_init(void);
/* The case with the AES-128 key, 60-byte text, 20-byte AAD and 96-bit IV (test case 4). */
#define KAT4 (&gcm_kats[2])

/* Seals, opens and streams `k` with `key`, checking the known answer (every tag length). */
void check_kat(const aesgen_gcm_key *key, const gcm_kat *k, const char *label);
/* An automatically chosen key for k. */
void kat_key(aesgen_gcm_key *key, const gcm_kat *k);

/* gcm_api_errors.c */
void test_null_pointers(void);
void test_key_lengths(void);
void test_iv_tag_lengths(void);
void test_message_limits(void);
void test_overlap(void);
void test_uninitialised(void);
void test_zero_lengths(void);

/* gcm_api_stream.c */
void test_stream_order_encrypt(void);
void test_stream_order_decrypt(void);
void test_stream_refusals(void);
void test_stream_key_wiped(void);
void test_auth_failures(void);

#endif
