/*
 * bench_impls.c -- the aesgen rows (one per backend, or one generated
 * variant alone; the OpenSSL row is bench_openssl.c), the table of optional
 * peer libraries (bench/peers/), and the timing of one sample.
 *
 * Every operation runs in place (out == in) on a keyed context, the way
 * `openssl speed` and the kernel's tcrypt do: one "operation" is one call
 * over a whole message; key set-up and IV set-up are outside the timing,
 * and CBC IVs / CTR counters simply carry on from call to call. GCM is one
 * whole message per call, IV set-up included; gcm-open reads a prepared
 * sealed message and writes beside it (bench.h). XTS is one data unit per
 * call with its tweak (tweak set-up included), or 64 sectors in one
 * aesgen_xts_encrypt_sectors call (bench.h).
 */
#define _GNU_SOURCE
#include "bench.h"

#include "aesgen.h"
#include "aesgen_internal.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- aesgen ------------------------------------------------------------- */

/* How the named generated variant computes (its descriptor's info), or NULL. */
static const char *variant_info(const char *name)
{
    const aesgen_variant *v = name ? aesgen_find_variant(name) : NULL;
    return v && v->info && v->info[0] ? v->info : NULL;
}

/* The issue bound of a software variant in bytes per cycle: its batch's bytes over the
 * cycles its core operations take at the issue rate the target assumes; 0 otherwise. */
static double issue_bpc(const aesgen_variant *v)
{
    return v && v->core_ops ? v->issue_per_cycle * 16.0 * v->batch_blocks / v->core_ops : 0.0;
}

typedef struct aesgen_priv {
    aesgen_ctx *ctx[NKEYS];
    aesgen_gcm_key *gcm[NKEYS]; /* NULL where GCM is not offered */
    aesgen_xts_key *xts[NKEYS]; /* NULL where XTS is not offered (AES-192 never) */
    uint8_t iv[NKEYS][OP_COUNT][16];
    uint8_t stream_iv[NKEYS][BENCH_MAX_STREAMS][16];
    aesgen_ctr ctr[NKEYS];
} aesgen_priv;

static int aesgen_reset(impl *im, int k, int op)
{
    aesgen_priv *p = im->priv;
    bench_start_iv(op, 0, p->iv[k][op]);
    for (unsigned i = 0; op == OP_CBC_STREAMS_ENC && i < bench_cbc_streams; i++)
        bench_stream_iv(i, p->stream_iv[k][i]);
    if (op == OP_CTR)
        return aesgen_ctr_init(&p->ctr[k], p->iv[k][op]) == AESGEN_OK ? 0 : -1;
    return 0;
}

static int aesgen_loop(impl *im, int k, int op, uint8_t *buf, size_t len, uint64_t iters)
{
    aesgen_priv *p = im->priv;
    const aesgen_ctx *ctx = p->ctx[k];
    uint8_t *iv = p->iv[k][op];
    int bad = 0;
    switch (op) {
    case OP_ECB_ENC:
        for (uint64_t i = 0; i < iters; i++)
            bad |= aesgen_ecb_encrypt(ctx, buf, buf, len);
        break;
    case OP_ECB_DEC:
        for (uint64_t i = 0; i < iters; i++)
            bad |= aesgen_ecb_decrypt(ctx, buf, buf, len);
        break;
    case OP_CTR:
        for (uint64_t i = 0; i < iters; i++)
            bad |= aesgen_ctr_crypt(ctx, &p->ctr[k], buf, buf, len);
        break;
    case OP_CBC_DEC:
        for (uint64_t i = 0; i < iters; i++)
            bad |= aesgen_cbc_decrypt(ctx, iv, buf, buf, len);
        break;
    case OP_CBC_ENC:
        for (uint64_t i = 0; i < iters; i++)
            bad |= aesgen_cbc_encrypt(ctx, iv, buf, buf, len);
        break;
    case OP_GCM_SEAL:
        for (uint64_t i = 0; p->gcm[k] && i < iters; i++)
            bad |= aesgen_gcm_seal(p->gcm[k], bench_gcm_iv, BENCH_GCM_IV_BYTES, bench_gcm_aad,
                                   BENCH_GCM_AAD_BYTES, buf, buf, len, buf + len,
                                   BENCH_GCM_TAG_BYTES);
        return p->gcm[k] && !bad ? 0 : -1;
    case OP_GCM_OPEN: {
        const uint8_t *in = bench_open_input(buf, len);
        for (uint64_t i = 0; p->gcm[k] && i < iters; i++) /* AESGEN_ERR_AUTH: failed */
            bad |= aesgen_gcm_open(p->gcm[k], bench_gcm_iv, BENCH_GCM_IV_BYTES, bench_gcm_aad,
                                   BENCH_GCM_AAD_BYTES, buf, in, len, in + len,
                                   BENCH_GCM_TAG_BYTES);
        return p->gcm[k] && !bad ? 0 : -1;
    }
    case OP_XTS_ENC:
        for (uint64_t i = 0; p->xts[k] && i < iters; i++)
            bad |= aesgen_xts_encrypt(p->xts[k], bench_xts_tweak, buf, buf, len);
        return p->xts[k] && !bad ? 0 : -1;
    case OP_XTS_DEC:
        for (uint64_t i = 0; p->xts[k] && i < iters; i++)
            bad |= aesgen_xts_decrypt(p->xts[k], bench_xts_tweak, buf, buf, len);
        return p->xts[k] && !bad ? 0 : -1;
    case OP_XTS_SECTORS_ENC:
        for (uint64_t i = 0; p->xts[k] && i < iters; i++)
            bad |= aesgen_xts_encrypt_sectors(p->xts[k], BENCH_XTS_FIRST_SECTOR,
                                              bench_xts_sector_bytes,
                                              len / bench_xts_sector_bytes, buf, buf);
        return p->xts[k] && !bad ? 0 : -1;
    case OP_CBC_STREAMS_ENC: {
        aesgen_cbc_msg m[BENCH_MAX_STREAMS];
        const size_t size = len / bench_cbc_streams;
        for (unsigned s = 0; s < bench_cbc_streams; s++)
            m[s] = (aesgen_cbc_msg){p->stream_iv[k][s], buf + bench_stream_at(size, s), buf + bench_stream_at(size, s),
                                    size};
        for (uint64_t i = 0; i < iters; i++)
            bad |= aesgen_cbc_encrypt_streams(ctx, m, bench_cbc_streams);
        break;
    }
    default:
        return -1;
    }
    return bad ? -1 : 0;
}

static void aesgen_release(impl *im)
{
    aesgen_priv *p = im->priv;
    for (int k = 0; k < NKEYS; k++) {
        if (p->ctx[k]) {
            aesgen_wipe(p->ctx[k]);
            free(p->ctx[k]);
        }
        if (p->gcm[k]) {
            aesgen_gcm_wipe(p->gcm[k]);
            free(p->gcm[k]);
        }
        if (p->xts[k]) {
            aesgen_xts_wipe(p->xts[k]);
            free(p->xts[k]);
        }
    }
}

/* A GCM key for key index k with the given AES variant (NULL: what
 * dispatch, under any forced backend, picks) and the GHASH dispatch picks;
 * appends "AES-N variant + ghash" to the row's description, or why not. 0, or
 * -1 (and the reason in op_note) when GCM cannot be set up. */
static int aesgen_gcm_setup(impl *im, int k, const aesgen_variant *v)
{
    aesgen_priv *p = im->priv;
    uint8_t key[32];
    size_t used = strlen(im->desc);
    unsigned bits = bench_key_bits[k];
    const char *sep = strstr(im->desc, "; GCM") ? ","
                      : v ? "; GCM (aesgen_gcm_init_variants, GHASH as dispatch picks):"
                          : "; GCM (aesgen_gcm_init):";
    aesgen_gcm_key *g = aligned_alloc(64, sizeof *g);
    bench_key(k, key);
    int rc = !g ? AESGEN_ERR_NULL
             : v ? aesgen_gcm_init_variants(g, key, bits / 8, v, NULL)
                 : aesgen_gcm_init(g, key, bits / 8);
    if (rc != AESGEN_OK) {
        free(g);
        for (int op = OP_GCM_SEAL; op <= OP_GCM_OPEN; op++)
            snprintf(im->op_note[op], sizeof im->op_note[op], "aesgen_gcm_init (AES-%u): %s",
                     bits, aesgen_status_string(rc));
        snprintf(im->desc + used, sizeof im->desc - used, "%s AES-%u n/a (%s)", sep, bits,
                 aesgen_status_string(rc));
        return -1;
    }
    p->gcm[k] = g;
    snprintf(im->desc + used, sizeof im->desc - used, "%s AES-%u %s + %s%s", sep, bits,
             aesgen_gcm_variant(g), aesgen_gcm_ghash(g), aesgen_gcm_stitched(g) ? " (stitched)" : "");
    return 0;
}

/* An XTS key for key index k (AES-128 or AES-256) with the given variants
 * (both NULL: what dispatch, under any forced backend, picks: aesgen_xts_init);
 * appends "AES-N enc-variant / dec-variant" to the row's description, or why
 * not. 0, or -1 (and the reason in the XTS ops' op_note) when XTS cannot be set
 * up. */
static int aesgen_xts_setup(impl *im, int k, const aesgen_variant *enc, const aesgen_variant *dec)
{
    aesgen_priv *p = im->priv;
    uint8_t key[64];
    size_t used = strlen(im->desc), klen = bench_xts_key(k, key);
    unsigned bits = bench_key_bits[k];
    int explicit = enc || dec;
    const char *sep = strstr(im->desc, "; XTS") ? ","
                      : explicit ? "; XTS (aesgen_xts_init_variants, the other direction as "
                                   "dispatch picks; enc, also the tweak / dec):"
                                 : "; XTS (aesgen_xts_init; enc, also the tweak / dec):";
    if (klen == 0)
        return 0; /* AES-192: no XTS, noted by bench_op_na */
    aesgen_xts_key *x = aligned_alloc(64, sizeof *x);
    int rc = !x ? AESGEN_ERR_NULL
             : explicit ? aesgen_xts_init_variants(x, key, klen, enc, dec)
                        : aesgen_xts_init(x, key, klen);
    aesgen_memwipe(key, sizeof key);
    if (rc != AESGEN_OK) {
        free(x);
        for (int op = 0; op < OP_COUNT; op++)
            if (bench_op_is_xts(op))
                snprintf(im->op_note[op], sizeof im->op_note[op], "%s (AES-%u-XTS): %s",
                         explicit ? "aesgen_xts_init_variants" : "aesgen_xts_init", bits,
                         aesgen_status_string(rc));
        snprintf(im->desc + used, sizeof im->desc - used, "%s AES-%u n/a (%s)", sep, bits,
                 aesgen_status_string(rc));
        return -1;
    }
    p->xts[k] = x;
    const char *ve = aesgen_xts_variant(x, AESGEN_ENCRYPT);
    const char *vd = aesgen_xts_variant(x, AESGEN_DECRYPT);
    snprintf(im->desc + used, sizeof im->desc - used, "%s AES-%u %s / %s", sep, bits,
             ve ? ve : "?", vd ? vd : "(none)");
    return 0;
}

int impl_aesgen_create(impl *im, const char *backend)
{
    char name[sizeof im->name];
    snprintf(name, sizeof name, "aesgen-%s", backend);
    aesgen_priv *p = impl_init(im, name, IMPL_AESGEN, sizeof *p, aesgen_reset, aesgen_loop, aesgen_release);
    if (!p)
        return -1;
    snprintf(im->desc, sizeof im->desc, "aesgen %s, backend %s (forced with aesgen_force_backend)",
             aesgen_version_string(), backend);
    int gcm_ok = 1, xts_ok = 1, rc = aesgen_force_backend(backend);
    if (rc != AESGEN_OK) {
        for (int k = 0; k < NKEYS; k++)
            snprintf(im->key_note[k], sizeof im->key_note[k], "aesgen_force_backend: %s",
                     aesgen_status_string(rc));
        aesgen_force_backend(NULL);
        return 0;
    }
    for (int k = 0; k < NKEYS; k++) {
        uint8_t key[32];
        unsigned bits = bench_key_bits[k];
        if (!aesgen_selected_variant(bits, AESGEN_ENCRYPT) ||
            !aesgen_selected_variant(bits, AESGEN_DECRYPT)) {
            snprintf(im->key_note[k], sizeof im->key_note[k],
                     "backend %s has no AES-%u variant here", backend, bits);
            continue;
        }
        p->ctx[k] = aligned_alloc(64, sizeof(aesgen_ctx));
        if (!p->ctx[k])
            return -1;
        bench_key(k, key);
        rc = aesgen_init(p->ctx[k], key, bits / 8);
        if (rc != AESGEN_OK) {
            snprintf(im->key_note[k], sizeof im->key_note[k], "aesgen_init: %s (%d)",
                     aesgen_status_string(rc), rc);
            free(p->ctx[k]);
            p->ctx[k] = NULL;
            continue;
        }
        const char *ve = aesgen_ctx_variant(p->ctx[k], AESGEN_ENCRYPT);
        const char *vd = aesgen_ctx_variant(p->ctx[k], AESGEN_DECRYPT);
        snprintf(im->variant[k][0], sizeof im->variant[k][0], "%s", ve ? ve : "?");
        snprintf(im->variant[k][1], sizeof im->variant[k][1], "%s", vd ? vd : "?");
        im->variant_info[k][0] = variant_info(ve);
        im->variant_info[k][1] = variant_info(vd);
        im->issue_bpc[k][0] = issue_bpc(ve ? aesgen_find_variant(ve) : NULL);
        im->issue_bpc[k][1] = issue_bpc(vd ? aesgen_find_variant(vd) : NULL);
        im->key_ok[k] = 1;
        for (int op = 0; op < OP_COUNT; op++)
            aesgen_reset(im, k, op);
        gcm_ok &= aesgen_gcm_setup(im, k, NULL) == 0;
    }
    for (int k = 0; k < NKEYS; k++) /* after GCM: each appends its own part of desc */
        if (im->key_ok[k])
            xts_ok &= aesgen_xts_setup(im, k, NULL, NULL) == 0;
    aesgen_force_backend(NULL);
    for (int op = 0; op < OP_COUNT; op++) /* bench_run_setup_impls fails these */
        im->op_ok[op] = bench_op_is_gcm(op) ? gcm_ok : bench_op_is_xts(op) ? xts_ok : 1;
    return 0;
}

/* One generated variant on its own: its key size and the operations of its
 * direction; the other direction is whatever dispatch picks (unused). */
int impl_aesgen_variant_create(impl *im, const char *variant)
{
    char name[sizeof im->name];
    snprintf(name, sizeof name, "aesgen-%s", variant);
    aesgen_priv *p = impl_init(im, name, IMPL_AESGEN, sizeof *p, aesgen_reset, aesgen_loop, aesgen_release);
    if (!p)
        return -1;
    const aesgen_variant *v = aesgen_find_variant(variant);
    int gcm_ok = 1, xts_ok = 1;
    snprintf(im->desc, sizeof im->desc, "aesgen %s, variant %s alone (aesgen_init_variants)",
             aesgen_version_string(), variant);
    for (int k = 0; k < NKEYS; k++) {
        unsigned bits = bench_key_bits[k];
        if (v == NULL || v->key_bits != bits) {
            snprintf(im->key_note[k], sizeof im->key_note[k], "variant %s is not AES-%u", variant, bits);
            continue;
        }
        uint8_t key[32];
        p->ctx[k] = aligned_alloc(64, sizeof(aesgen_ctx));
        if (!p->ctx[k])
            return -1;
        bench_key(k, key);
        int rc = aesgen_init_variants(p->ctx[k], key, bits / 8, v->direction == 0 ? v : NULL,
                                      v->direction == 1 ? v : NULL);
        if (rc != AESGEN_OK) {
            snprintf(im->key_note[k], sizeof im->key_note[k], "aesgen_init_variants: %s (%d)",
                     aesgen_status_string(rc), rc);
            free(p->ctx[k]);
            p->ctx[k] = NULL;
            continue;
        }
        snprintf(im->variant[k][v->direction], sizeof im->variant[k][0], "%s", variant);
        im->variant_info[k][v->direction] = v->info && v->info[0] ? v->info : NULL;
        im->issue_bpc[k][v->direction] = issue_bpc(v);
        snprintf(im->variant[k][1 - v->direction], sizeof im->variant[k][0], "(not measured)");
        im->key_ok[k] = 1;
        for (int op = 0; op < OP_COUNT; op++)
            aesgen_reset(im, k, op);
        if (v->direction == 0 && v->ctr)
            gcm_ok &= aesgen_gcm_setup(im, k, v) == 0;
    }
    /* XTS, after GCM (each appends its own part of desc): an encryption
     * variant serves the tweak and the data of xts-enc and xts-sectors-enc; a
     * decryption variant the data of xts-dec (whose tweak is still encrypted,
     * by the encryption variant dispatch picks). */
    for (int k = 0; k < NKEYS; k++)
        if (im->key_ok[k])
            xts_ok &= aesgen_xts_setup(im, k, v->direction == 0 ? v : NULL,
                                       v->direction == 1 ? v : NULL) == 0;
    int enc = v != NULL && v->direction == 0;
    im->op_ok[OP_ECB_ENC] = im->op_ok[OP_CTR] = im->op_ok[OP_CBC_ENC] = im->op_ok[OP_CBC_STREAMS_ENC] = enc;
    im->op_ok[OP_ECB_DEC] = im->op_ok[OP_CBC_DEC] = v != NULL && !enc;
    /* GCM needs the variant's CTR loop: encryption variants only. */
    im->op_ok[OP_GCM_SEAL] = im->op_ok[OP_GCM_OPEN] = enc && v->ctr && gcm_ok;
    if (v != NULL && !(enc && v->ctr))
        for (int op = OP_GCM_SEAL; op <= OP_GCM_OPEN; op++)
            snprintf(im->op_note[op], sizeof im->op_note[op], "GCM needs an encryption variant "
                     "with a CTR loop; %s is not one", variant);
    im->op_ok[OP_XTS_ENC] = im->op_ok[OP_XTS_SECTORS_ENC] = enc && xts_ok;
    im->op_ok[OP_XTS_DEC] = v != NULL && !enc && xts_ok;
    if (v != NULL && xts_ok)
        for (int op = OP_XTS_ENC; op <= OP_XTS_SECTORS_ENC; op++)
            if (!im->op_ok[op])
                snprintf(im->op_note[op], sizeof im->op_note[op],
                         "%s is a%s variant; %s runs the other direction", variant,
                         enc ? "n encryption" : " decryption", bench_op_name[op]);
    return 0;
}

/* ---- optional peers ----------------------------------------------------- */

/* The only place that asks which peers CMake built in: it defines
 * AESGEN_BENCH_HAVE_<PEER> for this file alone when it adds
 * peers/<peer>.c to the program. */
#ifdef AESGEN_BENCH_HAVE_BEARSSL
#define BEARSSL_LIB (&bench_peer_bearssl)
#else
#define BEARSSL_LIB NULL
#endif
#ifdef AESGEN_BENCH_HAVE_RUSTCRYPTO
#define RUSTCRYPTO_LIB (&bench_peer_rustcrypto)
#else
#define RUSTCRYPTO_LIB NULL
#endif
#ifdef AESGEN_BENCH_HAVE_GCRYPT
#define GCRYPT_LIB (&bench_peer_gcrypt)
#else
#define GCRYPT_LIB NULL
#endif
#ifdef AESGEN_BENCH_HAVE_IPSECMB
#define IPSECMB_LIB (&bench_peer_ipsecmb)
#else
#define IPSECMB_LIB NULL
#endif

const bench_peer bench_peers[PEER_COUNT] = {
    [PEER_BEARSSL] = {"bearssl-ct64", "bearssl", "BearSSL not found at configure time",
                      BEARSSL_LIB},
    [PEER_RUSTCRYPTO] = {"rustcrypto-aes0.6", "rustcrypto",
                         "cargo or Debian's librust-aes-dev not found at configure time",
                         RUSTCRYPTO_LIB},
    [PEER_GCRYPT] = {"gcrypt", "gcrypt",
                     "libgcrypt not found at configure time, or AESGEN_BENCH_GCRYPT=OFF",
                     GCRYPT_LIB},
    [PEER_IPSECMB] = {"ipsecmb", "ipsecmb",
                      "intel-ipsec-mb (libipsec-mb-dev) not found at configure time, or "
                      "AESGEN_BENCH_IPSECMB=OFF",
                      IPSECMB_LIB},
};

/* ---- clean-up ----------------------------------------------------------- */

void *impl_init(impl *im, const char *name, int kind, size_t priv_bytes,
                int (*reset)(impl *, int, int),
                int (*loop)(impl *, int, int, uint8_t *, size_t, uint64_t),
                void (*release)(impl *))
{
    memset(im, 0, sizeof *im);
    snprintf(im->name, sizeof im->name, "%s", name);
    im->kind = kind;
    im->reset = reset;
    im->loop = loop;
    im->release = release;
    const size_t bytes = (priv_bytes + 63) & ~(size_t)63; /* aligned_alloc wants a multiple */
    im->priv = aligned_alloc(64, bytes ? bytes : 64);
    if (im->priv)
        memset(im->priv, 0, bytes ? bytes : 64);
    return im->priv;
}

void impl_destroy(impl *im)
{
    if (!im->priv || im->kind == IMPL_REMOTE)
        return;
    if (im->release)
        im->release(im);
    free(im->priv);
    im->priv = NULL;
}

/* ---- timing ------------------------------------------------------------- */

int impl_sample(impl *im, int k, int op, uint8_t *buf, size_t len, uint64_t iters,
                bench_sample *s)
{
    if (im->remote_sample)
        return im->remote_sample(im, k, op, len, iters, s);
    int kind = counter_kind_now();
    long sw0 = involuntary_switches();
    uint64_t c0 = counter_read();
    double t0 = now_ns();
    int rc = im->loop(im, k, op, buf, len, iters);
    double t1 = now_ns();
    uint64_t c1 = counter_read();
    long sw1 = involuntary_switches();
    s->ns = t1 - t0;
    s->count = kind == CNT_NONE ? -1.0 : (double)(c1 - c0);
    s->preempted = (sw0 < 0 || sw1 < 0) ? -1 : (int)(sw1 - sw0);
    return rc;
}
