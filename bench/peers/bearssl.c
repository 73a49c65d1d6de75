/*
 * peers/bearssl.c -- the bearssl-ct64 row: BearSSL's aes_ct64 (64-bit
 * bitsliced, constant time) from the system libbearssl. bench/CMakeLists.txt
 * compiles this file only when it found BearSSL, and defines
 * AESGEN_BENCH_BEARSSL_RAW when BearSSL's internal ct64 primitives link (the
 * ECB rows use them).
 *
 * GCM is BearSSL's constant-time combination: br_gcm over the ct64 CTR
 * context and br_ghash_ctmul64. br_gcm_run works in place only, so gcm-open
 * copies the sealed text into the output buffer and decrypts it there.
 */
#define _GNU_SOURCE
#include "bench.h"

#include <bearssl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#ifdef AESGEN_BENCH_BEARSSL_RAW
/* BearSSL's internal ct64 primitives (inner.h), exported by libbearssl but
 * not declared in its public headers. The configure step checked they link. */
void br_aes_ct64_ortho(uint64_t *q);
void br_aes_ct64_interleave_in(uint64_t *q0, uint64_t *q1, const uint32_t *w);
void br_aes_ct64_interleave_out(uint32_t *w, uint64_t q0, uint64_t q1);
unsigned br_aes_ct64_keysched(uint64_t *comp_skey, const void *key, size_t key_len);
void br_aes_ct64_skey_expand(uint64_t *skey, unsigned num_rounds, const uint64_t *comp_skey);
void br_aes_ct64_bitslice_encrypt(unsigned num_rounds, const uint64_t *skey, uint64_t *q);
void br_aes_ct64_bitslice_decrypt(unsigned num_rounds, const uint64_t *skey, uint64_t *q);
#endif

typedef struct bear_priv {
    br_aes_ct64_cbcenc_keys cbce[NKEYS];
    br_aes_ct64_cbcdec_keys cbcd[NKEYS];
    br_aes_ct64_ctr_keys ctr[NKEYS];
    uint64_t skx[NKEYS][120]; /* expanded schedule for ECB */
    unsigned rounds[NKEYS];
    uint8_t iv[NKEYS][OP_COUNT][16];
    uint32_t cc[NKEYS];
    br_gcm_context gcm[NKEYS]; /* over ctr[k] */
} bear_priv;

#ifdef AESGEN_BENCH_BEARSSL_RAW
static uint32_t ld32le(const uint8_t *p)
{
    return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

static void st32le(uint8_t *p, uint32_t v)
{
    p[0] = (uint8_t)v;
    p[1] = (uint8_t)(v >> 8);
    p[2] = (uint8_t)(v >> 16);
    p[3] = (uint8_t)(v >> 24);
}

/* ECB in place, four blocks per bitsliced call, as BearSSL's own ct64 CBC
 * decryption loop does (minus the chaining). */
static void bear_ecb(const uint64_t *skx, unsigned nr, int dec, uint8_t *buf, size_t len)
{
    while (len > 0) {
        uint64_t q[8];
        uint32_t w[16];
        size_t n = len < 64 ? len : 64;
        memset(w, 0, sizeof w);
        for (size_t i = 0; i < n / 4; i++)
            w[i] = ld32le(buf + 4 * i);
        for (int i = 0; i < 4; i++)
            br_aes_ct64_interleave_in(&q[i], &q[i + 4], w + (i << 2));
        br_aes_ct64_ortho(q);
        if (dec)
            br_aes_ct64_bitslice_decrypt(nr, skx, q);
        else
            br_aes_ct64_bitslice_encrypt(nr, skx, q);
        br_aes_ct64_ortho(q);
        for (int i = 0; i < 4; i++)
            br_aes_ct64_interleave_out(w + (i << 2), q[i], q[i + 4]);
        for (size_t i = 0; i < n / 4; i++)
            st32le(buf + 4 * i, w[i]);
        buf += n;
        len -= n;
    }
}
#endif

/* iters GCM messages (bench.h): seal buf in place, or open the prepared one. */
static int bear_gcm(br_gcm_context *g, int op, uint8_t *buf, size_t len, uint64_t iters)
{
    const uint8_t *in = bench_open_input(buf, len);
    uint32_t ok = 1;
    for (uint64_t i = 0; i < iters; i++) {
        if (op == OP_GCM_OPEN)
            memcpy(buf, in, len);
        br_gcm_reset(g, bench_gcm_iv, BENCH_GCM_IV_BYTES);
        br_gcm_aad_inject(g, bench_gcm_aad, BENCH_GCM_AAD_BYTES);
        br_gcm_flip(g);
        br_gcm_run(g, op == OP_GCM_SEAL, buf, len);
        if (op == OP_GCM_SEAL)
            br_gcm_get_tag(g, buf + len);
        else
            ok &= br_gcm_check_tag(g, in + len); /* 1: authentic */
    }
    return ok ? 0 : -1;
}

static int bear_reset(impl *im, int k, int op)
{
    bear_priv *p = im->priv;
    bench_start_iv(op, 1, p->iv[k][op]);
    if (op == OP_CTR) {
        const uint8_t *c = p->iv[k][op];
        p->cc[k] = (uint32_t)c[12] << 24 | (uint32_t)c[13] << 16 | (uint32_t)c[14] << 8 | c[15];
    }
    return 0;
}

static int bear_loop(impl *im, int k, int op, uint8_t *buf, size_t len, uint64_t iters)
{
    bear_priv *p = im->priv;
    uint8_t *iv = p->iv[k][op];
    switch (op) {
#ifdef AESGEN_BENCH_BEARSSL_RAW
    case OP_ECB_ENC:
    case OP_ECB_DEC:
        for (uint64_t i = 0; i < iters; i++)
            bear_ecb(p->skx[k], p->rounds[k], op == OP_ECB_DEC, buf, len);
        break;
#endif
    case OP_CTR:
        for (uint64_t i = 0; i < iters; i++)
            p->cc[k] = br_aes_ct64_ctr_run(&p->ctr[k], iv, p->cc[k], buf, len);
        break;
    case OP_CBC_DEC:
        for (uint64_t i = 0; i < iters; i++)
            br_aes_ct64_cbcdec_run(&p->cbcd[k], iv, buf, len);
        break;
    case OP_CBC_ENC:
        for (uint64_t i = 0; i < iters; i++)
            br_aes_ct64_cbcenc_run(&p->cbce[k], iv, buf, len);
        break;
    case OP_GCM_SEAL:
    case OP_GCM_OPEN:
        return bear_gcm(&p->gcm[k], op, buf, len, iters);
    default:
        return -1;
    }
    return 0;
}

static const char *bear_version(void)
{
    return "BearSSL (system libbearssl; Debian builds it with -Os)";
}

static int bear_create(impl *im)
{
    bear_priv *p = impl_init(im, "bearssl-ct64", IMPL_BEARSSL, sizeof *p, bear_reset, bear_loop, NULL);
    if (!p)
        return -1;
    im->ctr32 = 1;
    snprintf(im->desc, sizeof im->desc,
             "BearSSL aes_ct64 (64-bit bitsliced, constant time, 4 blocks per core call; system "
             "library, Debian builds it -Os so read it as a floor): CTR br_aes_ct64_ctr_run "
             "(32-bit counter), CBC br_aes_ct64_cbcenc/cbcdec_run (they expand the key schedule "
             "on every call); GCM br_gcm over the ct64 CTR and br_ghash_ctmul64, BearSSL's "
             "constant-time GCM (open copies the text to the output, br_gcm_run works in place); "
             "ECB %s",
#ifdef AESGEN_BENCH_BEARSSL_RAW
             "= a 4-block loop of our own over BearSSL's exported internal ct64 functions "
             "(interleave/ortho/bitslice_encrypt|decrypt), schedule expanded once"
#else
             "not measured (internal ct64 functions not linkable)"
#endif
    );
    for (int k = 0; k < NKEYS; k++) {
        uint8_t key[32];
        size_t kl = bench_key_bits[k] / 8;
        bench_key(k, key);
        br_aes_ct64_cbcenc_init(&p->cbce[k], key, kl);
        br_aes_ct64_cbcdec_init(&p->cbcd[k], key, kl);
        br_aes_ct64_ctr_init(&p->ctr[k], key, kl);
        br_gcm_init(&p->gcm[k], &p->ctr[k].vtable, br_ghash_ctmul64);
#ifdef AESGEN_BENCH_BEARSSL_RAW
        {
            uint64_t comp[30];
            p->rounds[k] = br_aes_ct64_keysched(comp, key, kl);
            br_aes_ct64_skey_expand(p->skx[k], p->rounds[k], comp);
        }
#endif
        im->key_ok[k] = 1;
        for (int op = 0; op < OP_COUNT; op++)
            bear_reset(im, k, op);
    }
#ifdef AESGEN_BENCH_BEARSSL_RAW
    im->op_ok[OP_ECB_ENC] = im->op_ok[OP_ECB_DEC] = 1;
#endif
    im->op_ok[OP_CTR] = im->op_ok[OP_CBC_DEC] = im->op_ok[OP_CBC_ENC] = 1;
    im->op_ok[OP_GCM_SEAL] = im->op_ok[OP_GCM_OPEN] = 1;
    for (int op = OP_XTS_ENC; op <= OP_XTS_SECTORS_ENC; op++)
        snprintf(im->op_note[op], sizeof im->op_note[op], "BearSSL has no XTS");
    return 0;
}

const bench_peer_lib bench_peer_bearssl = {bear_create, bear_version};
