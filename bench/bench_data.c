/*
 * bench_data.c -- what every row of aesgen-bench shares: the operations and
 * key sizes by name, the deterministic keys and messages, the start IVs /
 * counters the correctness checks compare from, and the GCM message layout
 * (bench.h): the IV, the AAD, where gcm-open's sealed input lives in buf;
 * and the XTS keys, tweaks and the fixed length of xts-sectors-enc.
 */
#define _GNU_SOURCE
#include "bench.h"

#include <string.h>

const char *const bench_op_name[OP_COUNT] = {"ecb-enc",  "ecb-dec",  "ctr",     "cbc-dec",
                                             "cbc-enc",  "gcm-seal", "gcm-open", "xts-enc",
                                             "xts-dec",  "xts-sectors-enc", "cbc-enc-streams"};
unsigned bench_cbc_streams = 8;
size_t bench_stream_gap = 0;
size_t bench_xts_sector_bytes = 4096;
const unsigned bench_key_bits[NKEYS] = {128, 192, 256};

int bench_op_is_decrypt(int op)
{
    return op == OP_ECB_DEC || op == OP_CBC_DEC || op == OP_GCM_OPEN || op == OP_XTS_DEC;
}

int bench_op_is_gcm(int op) { return op == OP_GCM_SEAL || op == OP_GCM_OPEN; }

int bench_op_is_xts(int op)
{
    return op == OP_XTS_ENC || op == OP_XTS_DEC || op == OP_XTS_SECTORS_ENC;
}

int bench_op_fixed_len(int op) { return op == OP_XTS_SECTORS_ENC; }

size_t bench_op_len(int op, size_t size)
{
    return op == OP_XTS_SECTORS_ENC   ? BENCH_XTS_SECTORS_BYTES
           : op == OP_CBC_STREAMS_ENC ? size * bench_cbc_streams
                                      : size;
}

void bench_stream_iv(unsigned i, uint8_t iv[16])
{
    bench_start_iv(OP_CBC_ENC, 0, iv);
    iv[0] ^= (uint8_t)i;
}

size_t bench_stream_at(size_t size, unsigned i) { return (size + bench_stream_gap) * i; }

size_t bench_in_bytes(int op, size_t len)
{
    if (op != OP_CBC_STREAMS_ENC)
        return len;
    const size_t size = len / bench_cbc_streams;
    return bench_stream_at(size, bench_cbc_streams - 1) + size;
}

const char *bench_op_na(int op, int k, size_t len)
{
    if (bench_op_is_xts(op) && bench_key_bits[k] == 192)
        return "no AES-192-XTS: XTS (IEEE 1619, SP 800-38E) is defined for AES-128 and "
               "AES-256 only";
    if ((op == OP_XTS_ENC || op == OP_XTS_DEC) && len > BENCH_XTS_MAX_UNIT)
        return "an XTS data unit is at most 2^20 blocks (16 MiB)";
    return NULL;
}

int bench_op_from_name(const char *s)
{
    for (int i = 0; i < OP_COUNT; i++)
        if (strcmp(s, bench_op_name[i]) == 0)
            return i;
    return -1;
}

int bench_key_index(unsigned bits)
{
    for (int i = 0; i < NKEYS; i++)
        if (bench_key_bits[i] == bits)
            return i;
    return -1;
}

/* ---- test data -------------------------------------------------------- */

static uint64_t xorshift(uint64_t *s)
{
    uint64_t x = *s;
    x ^= x << 13;
    x ^= x >> 7;
    x ^= x << 17;
    *s = x;
    return x;
}

void bench_key(int k, uint8_t key[32])
{
    uint64_t s = 0x9e3779b97f4a7c15ull ^ (uint64_t)(k + 1) * 0x100000001b3ull;
    for (int i = 0; i < 32; i++)
        key[i] = (uint8_t)(xorshift(&s) >> 24);
}

void bench_fill(uint8_t *buf, size_t len)
{
    uint64_t s = 0x2545f4914f6cdd1dull;
    for (size_t i = 0; i < len; i++)
        buf[i] = (uint8_t)(xorshift(&s) >> 32);
}

uint64_t bench_fnv64(const uint8_t *p, size_t len)
{
    uint64_t h = 0xcbf29ce484222325ull;
    for (size_t i = 0; i < len; i++) {
        h ^= p[i];
        h *= 0x100000001b3ull;
    }
    return h;
}

void bench_copy(char *dst, size_t n, const char *src)
{
    size_t l = strlen(src);
    if (l >= n)
        l = n - 1;
    memcpy(dst, src, l);
    dst[l] = '\0';
}

void bench_start_iv(int op, int ctr32, uint8_t iv[16])
{
    if (bench_op_is_gcm(op)) {
        memset(iv, 0, 16);
        memcpy(iv, bench_gcm_iv, BENCH_GCM_IV_BYTES);
    } else if (bench_op_is_xts(op)) {
        memcpy(iv, bench_xts_tweak, 16); /* (xts-sectors-enc: its tweaks are computed) */
    } else if (op == OP_CTR) {
        if (ctr32) {
            /* 12 fixed bytes, 32-bit counter starting at 1: no wrap. */
            for (int i = 0; i < 12; i++)
                iv[i] = (uint8_t)(0xc0 + i);
            iv[12] = 0;
            iv[13] = 0;
            iv[14] = 0;
            iv[15] = 1;
        } else {
            /* Low 64 bits at 2^64 - 128: an 8 KiB check crosses the carry
             * into the upper half. */
            for (int i = 0; i < 8; i++)
                iv[i] = (uint8_t)(0xf0 + i);
            for (int i = 8; i < 15; i++)
                iv[i] = 0xff;
            iv[15] = 0x80;
        }
    } else {
        for (int i = 0; i < 16; i++)
            iv[i] = (uint8_t)(0x10 * (i & 15) + (15 - i));
    }
}

/* ---- GCM messages ------------------------------------------------------ */

const uint8_t bench_gcm_iv[BENCH_GCM_IV_BYTES] = {0xca, 0xfe, 0xba, 0xbe, 0xfa, 0xce,
                                                  0xdb, 0xad, 0xde, 0xca, 0xf8, 0x88};
/* As a TLS 1.2 record's AAD would be: sequence number, type, version, length
 * (here only bytes: nothing checks their meaning). */
const uint8_t bench_gcm_aad[BENCH_GCM_AAD_BYTES] = {0, 0, 0, 0, 0, 0, 0, 1,
                                                    0x17, 0x03, 0x03, 0x40, 0x00, 0, 0, 0};

size_t bench_out_bytes(int op, size_t len)
{
    return op == OP_GCM_SEAL ? len + BENCH_GCM_TAG_BYTES : bench_in_bytes(op, len);
}

static size_t round64(size_t n) { return (n + 63) & ~(size_t)63; }

size_t bench_buf_bytes(size_t maxlen)
{
    /* output (text + tag), then gcm-open's sealed input */
    return 2 * round64(maxlen + BENCH_GCM_TAG_BYTES);
}

uint8_t *bench_open_input(uint8_t *buf, size_t len)
{
    return buf + round64(len + BENCH_GCM_TAG_BYTES);
}

int bench_prepare(int op, int k, uint8_t *buf, size_t len)
{
    bench_fill(buf, bench_in_bytes(op, len));
    if (op == OP_XTS_DEC)
        return bench_reference(OP_XTS_ENC, k, bench_xts_tweak, buf, len);
    if (op != OP_GCM_OPEN)
        return 0;
    uint8_t iv[16], *in = bench_open_input(buf, len);
    bench_start_iv(op, 0, iv);
    bench_fill(in, len);
    return bench_reference(OP_GCM_SEAL, k, iv, in, len);
}

/* ---- XTS ---------------------------------------------------------------- */

/* Data unit 0x0123456789a of a little-endian (plain64) numbering. */
const uint8_t bench_xts_tweak[16] = {0x9a, 0x78, 0x56, 0x34, 0x12, 0x10, 0, 0,
                                     0,    0,    0,    0,    0,    0,    0, 0};

size_t bench_xts_key(int k, uint8_t key[64])
{
    size_t half = bench_key_bits[k] / 8;
    if (bench_key_bits[k] == 192)
        return 0;
    /* key1: the key size's ordinary key; key2: another stream */
    uint8_t k1[32];
    uint64_t s = 0x243f6a8885a308d3ull ^ (uint64_t)(k + 1) * 0x9e3779b97f4a7c15ull;
    bench_key(k, k1);
    memcpy(key, k1, half);
    for (size_t i = 0; i < half; i++)
        key[half + i] = (uint8_t)(xorshift(&s) >> 24);
    return 2 * half;
}

void bench_xts_sector_tweak(uint64_t sector, uint8_t tweak[16])
{
    for (int i = 0; i < 8; i++)
        tweak[i] = (uint8_t)(sector >> (8 * i));
    memset(tweak + 8, 0, 8);
}
