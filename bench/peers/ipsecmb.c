/*
 * peers/ipsecmb.c -- the ipsecmb row: intel-ipsec-mb (Debian's
 * libipsec-mb-dev) through its IMB_MGR API. bench/CMakeLists.txt compiles
 * this file only when it found the library and a test program using these
 * calls builds.
 *
 * One manager, alloc_mb_mgr + init_mb_mgr_auto (the best of its SSE, AVX,
 * AVX2 and AVX512 managers for this CPU; the row says which), and keys
 * expanded once outside the timing (IMB_AES_KEYEXP_*, IMB_AES*_GCM_PRE).
 * One call is one message, as for every row:
 *  - CBC and CTR: IMB_SUBMIT_CIPHER_BURST with a burst of one job (1.3's
 *    synchronous cipher-only path);
 *  - ECB: the job API (get_next_job, submit_job, flush_job when the
 *    scheduler holds the job back), since 1.3's cipher burst has no ECB;
 *  - GCM: the direct API, IMB_AES*_GCM_ENC / _DEC. _DEC only computes the
 *    tag, so the row compares it with the received one (constant time), as
 *    an application must.
 * A job takes its IV and hands back none, so the row carries the CBC IV (the
 * last ciphertext block) and the CTR counter on between calls itself, as the
 * other libraries do inside theirs. ipsec-mb's CTR counts only the low 32
 * bits of a 16-byte counter block (1.3, checked against OpenSSL: no carry
 * into byte 11), so this is a ctr32 row: its check starts from a counter
 * that does not wrap (bench_start_iv), and the row counts in 32 bits too.
 */
#define _GNU_SOURCE
#include "bench.h"

#include <intel-ipsec-mb.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Expanded keys, 64-byte aligned as the library's own builds declare
 * gcm_key_data (the header says so only when LINUX is defined). */
typedef struct imb_key {
    _Alignas(64) struct gcm_key_data gk;
    _Alignas(64) uint8_t enc[16 * 15];
    _Alignas(64) uint8_t dec[16 * 15];
} imb_key;

typedef struct imb_priv {
    imb_key key[NKEYS];
    uint8_t iv[NKEYS][OP_COUNT][16];
    uint8_t stream_iv[NKEYS][BENCH_MAX_STREAMS][16];
    struct gcm_context_data gctx;
    IMB_MGR *mgr;
} imb_priv;

static char g_imb_summary[160]; /* "intel-ipsec-mb 1.3.0; manager AVX2" */

static const char *arch_name(unsigned arch)
{
    static const char *const names[] = {"none", "no-AES-NI", "SSE", "AVX", "AVX2", "AVX512"};
    return arch < sizeof names / sizeof names[0] ? names[arch] : "unknown";
}

/* The entry point the manager's AES-128-GCM encryption is, among those
 * 1.3's header declares. */
static const char *gcm_code(const IMB_MGR *m)
{
    if (m->gcm128_enc == aes_gcm_enc_128_sse)
        return "aes_gcm_enc_128_sse";
    if (m->gcm128_enc == aes_gcm_enc_128_avx_gen2)
        return "aes_gcm_enc_128_avx_gen2";
    if (m->gcm128_enc == aes_gcm_enc_128_avx_gen4)
        return "aes_gcm_enc_128_avx_gen4 (AES-NI and PCLMULQDQ on xmm, AVX encoding)";
    return "an AVX-512 entry point the header does not declare";
}

static void features(uint64_t f, char *out, size_t n)
{
    static const struct { uint64_t bit; const char *name; } fs[] = {
        {IMB_FEATURE_AESNI, "AES-NI"}, {IMB_FEATURE_PCLMULQDQ, "PCLMULQDQ"},
        {IMB_FEATURE_AVX, "AVX"},      {IMB_FEATURE_AVX2, "AVX2"},
        {IMB_FEATURE_VAES, "VAES"},    {IMB_FEATURE_VPCLMULQDQ, "VPCLMULQDQ"},
        {IMB_FEATURE_GFNI, "GFNI"},    {IMB_FEATURE_AVX512F, "AVX512F"}};
    size_t used = 0;
    out[0] = '\0';
    for (size_t i = 0; i < sizeof fs / sizeof fs[0] && used < n; i++)
        used += (size_t)snprintf(out + used, n - used, "%s%s%s", i ? " " : "",
                                 f & fs[i].bit ? "" : "no ", fs[i].name);
}

/* Add nblocks to the low 32 bits of a big-endian counter block, no carry. */
static void add32(uint8_t c[16], size_t nblocks)
{
    uint32_t v = (uint32_t)c[12] << 24 | (uint32_t)c[13] << 16 | (uint32_t)c[14] << 8 | c[15];
    v += (uint32_t)nblocks;
    c[12] = (uint8_t)(v >> 24);
    c[13] = (uint8_t)(v >> 16);
    c[14] = (uint8_t)(v >> 8);
    c[15] = (uint8_t)v;
}

static int imb_reset(impl *im, int k, int op)
{
    imb_priv *p = im->priv;
    bench_start_iv(op, 1, p->iv[k][op]);
    for (unsigned i = 0; op == OP_CBC_STREAMS_ENC && i < bench_cbc_streams; i++)
        bench_stream_iv(i, p->stream_iv[k][i]);
    return 0;
}

/* Longest ECB or CBC encryption job: the multi-buffer lanes keep lengths in 16 bits (a
 * 64 KiB job fails with an error status, seen with 1.3's AVX-512 manager). */
#define IMB_JOB_MAX ((size_t)65536 - 16)

/* CBC and CTR: a burst of one job per call. */
static int imb_burst(imb_priv *p, int k, int op, uint8_t *buf, size_t len, uint64_t iters)
{
    IMB_JOB job;
    uint8_t *iv = p->iv[k][op], last[16];
    int mode = op == OP_CTR ? IMB_CIPHER_CNTR : IMB_CIPHER_CBC;
    int dir = op == OP_CBC_DEC ? IMB_DIR_DECRYPT : IMB_DIR_ENCRYPT;
    memset(&job, 0, sizeof job);
    job.cipher_mode = mode;
    job.cipher_direction = dir;
    job.enc_keys = p->key[k].enc;
    job.dec_keys = p->key[k].dec;
    job.key_len_in_bytes = bench_key_bits[k] / 8;
    job.src = buf;
    job.dst = buf;
    job.msg_len_to_cipher_in_bytes = len;
    job.iv = iv;
    job.iv_len_in_bytes = 16;
    for (uint64_t i = 0; i < iters; i++) {
        if (op == OP_CBC_DEC)
            memcpy(last, buf + len - 16, 16); /* in place: the next IV goes first */
        if (op == OP_CBC_ENC && len > IMB_JOB_MAX) {
            /* The multi-buffer CBC encryption lanes hold 16-bit lengths: longer
             * messages go in chained pieces, as a caller of the library must. */
            for (size_t at = 0; at < len; at += IMB_JOB_MAX) {
                job.src = job.dst = buf + at;
                job.msg_len_to_cipher_in_bytes = len - at < IMB_JOB_MAX ? len - at : IMB_JOB_MAX;
                if (IMB_SUBMIT_CIPHER_BURST(p->mgr, &job, 1, mode, dir, job.key_len_in_bytes) != 1 ||
                    job.status != IMB_STATUS_COMPLETED)
                    return -1;
                memcpy(iv, buf + at + job.msg_len_to_cipher_in_bytes - 16, 16);
            }
            job.src = job.dst = buf;
            job.msg_len_to_cipher_in_bytes = len;
            continue;
        }
        if (IMB_SUBMIT_CIPHER_BURST(p->mgr, &job, 1, mode, dir, job.key_len_in_bytes) != 1 ||
            job.status != IMB_STATUS_COMPLETED)
            return -1;
        if (op == OP_CTR)
            add32(iv, len / 16);
        else
            memcpy(iv, op == OP_CBC_DEC ? last : buf + len - 16, 16);
    }
    return 0;
}

/* One ECB job of at most IMB_JOB_MAX bytes, in place, through the scheduler. */
static int imb_ecb_job(imb_priv *p, int k, int dec, uint8_t *buf, size_t len)
{
    IMB_JOB *j = IMB_GET_NEXT_JOB(p->mgr);
    j->cipher_mode = IMB_CIPHER_ECB;
    j->cipher_direction = dec ? IMB_DIR_DECRYPT : IMB_DIR_ENCRYPT;
    j->chain_order = dec ? IMB_ORDER_HASH_CIPHER : IMB_ORDER_CIPHER_HASH;
    j->hash_alg = IMB_AUTH_NULL;
    j->enc_keys = p->key[k].enc;
    j->dec_keys = p->key[k].dec;
    j->key_len_in_bytes = bench_key_bits[k] / 8;
    j->src = buf;
    j->dst = buf;
    j->cipher_start_src_offset_in_bytes = 0;
    j->msg_len_to_cipher_in_bytes = len;
    j->iv = NULL;
    j->iv_len_in_bytes = 0;
    j = IMB_SUBMIT_JOB(p->mgr);
    if (!j)
        j = IMB_FLUSH_JOB(p->mgr);
    return j && j->status == IMB_STATUS_COMPLETED ? 0 : -1;
}

/* ECB: one job per call (pieces of IMB_JOB_MAX bytes beyond that). */
static int imb_ecb(imb_priv *p, int k, int op, uint8_t *buf, size_t len, uint64_t iters)
{
    int dec = op == OP_ECB_DEC;
    for (uint64_t i = 0; i < iters; i++)
        for (size_t at = 0; at < len; at += IMB_JOB_MAX)
            if (imb_ecb_job(p, k, dec, buf + at, len - at < IMB_JOB_MAX ? len - at : IMB_JOB_MAX) != 0)
                return -1;
    return 0;
}

/* cbc-enc-streams: the multi-buffer path, one job per stream through the scheduler
 * (IMB_GET_NEXT_JOB, IMB_SUBMIT_JOB), then IMB_FLUSH_JOB until every job is back;
 * messages over IMB_JOB_MAX bytes go in chained rounds of pieces. Each stream's IV
 * then becomes its last ciphertext block, as aesgen_cbc_encrypt_streams leaves it. */
static int imb_cbc_streams(imb_priv *p, int k, uint8_t *buf, size_t len, uint64_t iters)
{
    const unsigned n = bench_cbc_streams;
    const size_t size = len / n;
    for (uint64_t it = 0; it < iters; it++)
        for (size_t at = 0; at < size; at += IMB_JOB_MAX) {
            const size_t piece = size - at < IMB_JOB_MAX ? size - at : IMB_JOB_MAX;
            unsigned done = 0;
            for (unsigned s = 0; s < n; s++) {
                IMB_JOB *j = IMB_GET_NEXT_JOB(p->mgr);
                j->cipher_mode = IMB_CIPHER_CBC;
                j->cipher_direction = IMB_DIR_ENCRYPT;
                j->chain_order = IMB_ORDER_CIPHER_HASH;
                j->hash_alg = IMB_AUTH_NULL;
                j->enc_keys = p->key[k].enc;
                j->dec_keys = p->key[k].dec;
                j->key_len_in_bytes = bench_key_bits[k] / 8;
                j->src = buf + bench_stream_at(size, s) + at;
                j->dst = buf + bench_stream_at(size, s) + at;
                j->cipher_start_src_offset_in_bytes = 0;
                j->msg_len_to_cipher_in_bytes = piece;
                j->iv = p->stream_iv[k][s];
                j->iv_len_in_bytes = 16;
                j = IMB_SUBMIT_JOB(p->mgr);
                for (; j; j = IMB_GET_COMPLETED_JOB(p->mgr), done++)
                    if (j->status != IMB_STATUS_COMPLETED)
                        return -1;
            }
            for (IMB_JOB *j; (j = IMB_FLUSH_JOB(p->mgr)) != NULL; done++)
                if (j->status != IMB_STATUS_COMPLETED)
                    return -1;
            if (done != n)
                return -1;
            for (unsigned s = 0; s < n; s++)
                memcpy(p->stream_iv[k][s], buf + bench_stream_at(size, s) + at + piece - 16, 16);
        }
    return 0;
}

/* iters GCM messages: seal buf in place, or open the prepared one. */
static int imb_gcm(imb_priv *p, int k, int op, uint8_t *buf, size_t len, uint64_t iters)
{
    const struct gcm_key_data *gk = &p->key[k].gk;
    const uint8_t *in = op == OP_GCM_SEAL ? buf : bench_open_input(buf, len);
    const uint8_t *iv = bench_gcm_iv, *aad = bench_gcm_aad;
    const uint64_t al = BENCH_GCM_AAD_BYTES, tl = BENCH_GCM_TAG_BYTES;
    uint8_t tag[BENCH_GCM_TAG_BYTES], *t = op == OP_GCM_SEAL ? buf + len : tag;
    IMB_MGR *m = p->mgr;
    unsigned diff = 0;
    for (uint64_t i = 0; i < iters; i++) {
        if (op == OP_GCM_SEAL && k == 0)
            IMB_AES128_GCM_ENC(m, gk, &p->gctx, buf, in, len, iv, aad, al, t, tl);
        else if (op == OP_GCM_SEAL && k == 1)
            IMB_AES192_GCM_ENC(m, gk, &p->gctx, buf, in, len, iv, aad, al, t, tl);
        else if (op == OP_GCM_SEAL)
            IMB_AES256_GCM_ENC(m, gk, &p->gctx, buf, in, len, iv, aad, al, t, tl);
        else if (k == 0)
            IMB_AES128_GCM_DEC(m, gk, &p->gctx, buf, in, len, iv, aad, al, t, tl);
        else if (k == 1)
            IMB_AES192_GCM_DEC(m, gk, &p->gctx, buf, in, len, iv, aad, al, t, tl);
        else
            IMB_AES256_GCM_DEC(m, gk, &p->gctx, buf, in, len, iv, aad, al, t, tl);
        if (op == OP_GCM_OPEN) /* the caller's tag check: no early exit */
            for (size_t b = 0; b < BENCH_GCM_TAG_BYTES; b++)
                diff |= (unsigned)(tag[b] ^ in[len + b]);
    }
    return diff ? -1 : 0;
}

static int imb_loop(impl *im, int k, int op, uint8_t *buf, size_t len, uint64_t iters)
{
    imb_priv *p = im->priv;
    if (op == OP_ECB_ENC || op == OP_ECB_DEC)
        return imb_ecb(p, k, op, buf, len, iters);
    if (bench_op_is_gcm(op))
        return imb_gcm(p, k, op, buf, len, iters);
    if (op == OP_CBC_STREAMS_ENC)
        return imb_cbc_streams(p, k, buf, len, iters);
    return imb_burst(p, k, op, buf, len, iters);
}

static void imb_release(impl *im)
{
    imb_priv *p = im->priv;
    free_mb_mgr(p->mgr); /* NULL is fine */
}

static const char *imb_version(void)
{
    if (!g_imb_summary[0])
        snprintf(g_imb_summary, sizeof g_imb_summary, "intel-ipsec-mb %s", imb_get_version_str());
    return g_imb_summary;
}

static int imb_create(impl *im)
{
    imb_priv *p = impl_init(im, "ipsecmb", IMPL_IPSECMB, sizeof *p, imb_reset, imb_loop, imb_release);
    if (!p) /* the library's key schedules want 64-byte alignment: impl_init gives it */
        return -1;
    im->ctr32 = 1;
    IMB_ARCH arch = IMB_ARCH_NONE;
    p->mgr = alloc_mb_mgr(0);
    if (p->mgr)
        init_mb_mgr_auto(p->mgr, &arch);
    int err = p->mgr ? imb_get_errno(p->mgr) : IMB_ERR_NULL_MBMGR;
    if (err) {
        snprintf(im->desc, sizeof im->desc, "intel-ipsec-mb %s (manager set-up failed: %s)",
                 imb_get_version_str(), imb_get_strerror(err));
        for (int k = 0; k < NKEYS; k++)
            snprintf(im->key_note[k], sizeof im->key_note[k], "%s", imb_get_strerror(err));
        return 0;
    }
    char feat[160];
    features(p->mgr->features, feat, sizeof feat);
    snprintf(g_imb_summary, sizeof g_imb_summary, "intel-ipsec-mb %s; manager %s",
             imb_get_version_str(), arch_name(p->mgr->used_arch));
    snprintf(im->desc, sizeof im->desc,
             "intel-ipsec-mb %s, IMB_MGR from alloc_mb_mgr + init_mb_mgr_auto, which chose the "
             "%s manager on this CPU (%s); CBC and CTR IMB_SUBMIT_CIPHER_BURST with one job per "
             "call, ECB the job API, cbc-enc-streams one job per stream submitted then flushed (get_next_job/submit_job/flush_job; 1.3's cipher burst has "
             "no ECB); ECB and CBC encryption over 65,520 B in pieces (16-bit lane lengths); "
             "CTR counts the low 32 bits only; the row carries the CBC IV and CTR "
             "counter between calls itself; GCM IMB_AES*_GCM_ENC/DEC (AES-128: %s), keys by "
             "IMB_AES*_GCM_PRE, open compares the computed tag itself",
             imb_get_version_str(), arch_name(p->mgr->used_arch), feat, gcm_code(p->mgr));
    for (int k = 0; k < NKEYS; k++) {
        uint8_t key[32];
        bench_key(k, key);
        if (k == 0) {
            IMB_AES_KEYEXP_128(p->mgr, key, p->key[k].enc, p->key[k].dec);
            IMB_AES128_GCM_PRE(p->mgr, key, &p->key[k].gk);
        } else if (k == 1) {
            IMB_AES_KEYEXP_192(p->mgr, key, p->key[k].enc, p->key[k].dec);
            IMB_AES192_GCM_PRE(p->mgr, key, &p->key[k].gk);
        } else {
            IMB_AES_KEYEXP_256(p->mgr, key, p->key[k].enc, p->key[k].dec);
            IMB_AES256_GCM_PRE(p->mgr, key, &p->key[k].gk);
        }
        im->key_ok[k] = 1;
        for (int op = 0; op < OP_COUNT; op++)
            imb_reset(im, k, op);
    }
    for (int op = 0; op < OP_COUNT; op++)
        im->op_ok[op] = !bench_op_is_xts(op);
    for (int op = OP_XTS_ENC; op <= OP_XTS_SECTORS_ENC; op++)
        snprintf(im->op_note[op], sizeof im->op_note[op],
                 "XTS is not measured for intel-ipsec-mb");
    return 0;
}

const bench_peer_lib bench_peer_ipsecmb = {imb_create, imb_version};
