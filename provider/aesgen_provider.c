/* aesgen as an OpenSSL 3 provider: AES-128/192/256 in ECB, CBC (PKCS#7 padding
 * as EVP does it) and CTR, AES-128/256 in XTS and AES-128/192/256 in GCM,
 * through the cipher dispatch interface of provider-cipher(7) (docs/openssl-provider.md).
 *
 * Semantics follow the default provider's generic block-cipher code, so that
 * EVP callers cannot tell the two apart except by speed: partial blocks are
 * buffered, decryption with padding holds back the last block until final,
 * and errors produce no output. */
#include <stdarg.h>
#include <stdatomic.h>
#include <stdint.h>
#include <string.h>

#include <openssl/core.h>
#include <openssl/core_dispatch.h>
#include <openssl/core_names.h>
#include <openssl/crypto.h>
#include <openssl/evp.h>
#include <openssl/params.h>

#include "aesgen.h"

#define AESGEN_PROV_NAME "aesgen"
#define AESGEN_PROV_VERSION "0.1.0"
#define AESGEN_PROV_PROPS "provider=aesgen"

/* Reason codes: reported through the core's error upcalls, so that the error
 * queue shows these strings under the provider's library. */
enum {
    R_BAD_KEY_LENGTH = 1,
    R_BAD_IV_LENGTH,
    R_BAD_DECRYPT,
    R_WRONG_FINAL_BLOCK_LENGTH,
    R_OUTPUT_TOO_SMALL,
    R_NO_KEY_SET,
    R_AESGEN_FAILURE,
    R_BAD_PARAMETER,
    R_XTS_DUPLICATED_KEYS,
    R_XTS_UNIT_TOO_SHORT,
    R_XTS_UNIT_TOO_LONG,
    R_NO_IV_SET,
    R_NO_TAG_SET,
    R_BAD_TAG,
    R_BAD_TAG_LENGTH,
    R_GCM_FINISHED,
    R_GCM_AAD_AFTER_TEXT,
};

static const OSSL_ITEM reason_strings[] = {
    {R_BAD_KEY_LENGTH, "aesgen: bad key length"},
    {R_BAD_IV_LENGTH, "aesgen: bad IV length"},
    {R_BAD_DECRYPT, "aesgen: bad decrypt (padding check failed)"},
    {R_WRONG_FINAL_BLOCK_LENGTH, "aesgen: wrong final block length (data not a multiple of the block size)"},
    {R_OUTPUT_TOO_SMALL, "aesgen: output buffer too small"},
    {R_NO_KEY_SET, "aesgen: no key set"},
    {R_AESGEN_FAILURE, "aesgen: library call failed"},
    {R_BAD_PARAMETER, "aesgen: bad parameter"},
    {R_XTS_DUPLICATED_KEYS, "aesgen: XTS key halves are equal"},
    {R_XTS_UNIT_TOO_SHORT, "aesgen: XTS data unit shorter than 16 bytes"},
    {R_XTS_UNIT_TOO_LONG, "aesgen: XTS data unit longer than 2^20 blocks"},
    {R_NO_IV_SET, "aesgen: no IV set"},
    {R_NO_TAG_SET, "aesgen: no tag (decryption: set the expected tag before final; encryption: get it after final)"},
    {R_BAD_TAG, "aesgen: GCM tag mismatch (the message is not authentic: drop its plaintext)"},
    {R_BAD_TAG_LENGTH, "aesgen: bad tag length"},
    {R_GCM_FINISHED, "aesgen: GCM message already finished (re-init with a new IV)"},
    {R_GCM_AAD_AFTER_TEXT, "aesgen: GCM AAD after the text"},
    {0, NULL},
};

typedef struct {
    const OSSL_CORE_HANDLE *handle;
    /* Counts cipher update/final/cipher calls, read through get_params as "aesgen-calls"
     * so that tests can prove the calls went through this provider. */
    _Atomic uint64_t calls;
} prov_ctx;

/* Core upcalls for errors; set once in OSSL_provider_init (the same for every
 * load of the module in a process). */
static OSSL_FUNC_core_new_error_fn *c_new_error;
static OSSL_FUNC_core_set_error_debug_fn *c_set_error_debug;
static OSSL_FUNC_core_vset_error_fn *c_vset_error;
/* Entropy from the core, for the random start of a TLS 1.2 GCM invocation field. */
static OSSL_FUNC_get_entropy_fn *c_get_entropy;
static OSSL_FUNC_cleanup_entropy_fn *c_cleanup_entropy;

static void raise_err(const prov_ctx *p, int reason, const char *file, int line, const char *func,
                      const char *fmt, ...)
{
    if (c_new_error == NULL || c_vset_error == NULL || p == NULL)
        return;
    c_new_error(p->handle);
    if (c_set_error_debug != NULL)
        c_set_error_debug(p->handle, file, line, func);
    va_list ap;
    va_start(ap, fmt);
    c_vset_error(p->handle, (uint32_t)reason, fmt, ap);
    va_end(ap);
}
#define RAISE(p, r) raise_err((p), (r), __FILE__, __LINE__, __func__, NULL)
#define RAISE_DATA(p, r, ...) raise_err((p), (r), __FILE__, __LINE__, __func__, __VA_ARGS__)

/* ---- cipher contexts ------------------------------------------------------------------ */

enum mode { M_ECB = EVP_CIPH_ECB_MODE, M_CBC = EVP_CIPH_CBC_MODE, M_CTR = EVP_CIPH_CTR_MODE };

typedef struct {
    aesgen_ctx key;      /* first: keeps the 8-byte alignment aesgen needs */
    aesgen_ctr ctr;      /* CTR stream */
    prov_ctx *prov;
    enum mode mode;
    size_t keylen;
    uint8_t oiv[16];     /* IV as given at init, for re-init without an IV */
    uint8_t iv[16];      /* CBC chaining value */
    uint8_t buf[16];     /* ECB/CBC partial block (decrypt with padding: up to a whole one) */
    size_t bufsz;
    int enc;
    int pad;
    int key_set;
    int iv_set;
} cipher_ctx;

static void *ctx_new(void *provctx, enum mode mode, size_t keylen)
{
    cipher_ctx *c = OPENSSL_zalloc(sizeof(*c));
    if (c == NULL)
        return NULL;
    c->prov = provctx;
    c->mode = mode;
    c->keylen = keylen;
    c->pad = 1;
    return c;
}

static void ctx_free(void *vctx)
{
    cipher_ctx *c = vctx;
    if (c == NULL)
        return;
    aesgen_wipe(&c->key);
    aesgen_ctr_wipe(&c->ctr);
    OPENSSL_clear_free(c, sizeof(*c));
}

static void *ctx_dup(void *vctx)
{
    const cipher_ctx *src = vctx;
    cipher_ctx *c = OPENSSL_malloc(sizeof(*c));
    if (c == NULL)
        return NULL;
    /* aesgen contexts and streams hold no pointers into themselves: memcpy is a copy. */
    memcpy(c, src, sizeof(*c));
    return c;
}

static size_t ivlen_of(const cipher_ctx *c)
{
    return c->mode == M_ECB ? 0 : 16;
}

static int set_ctx_params(void *vctx, const OSSL_PARAM params[]);

static int ctx_init(void *vctx, const unsigned char *key, size_t keylen, const unsigned char *iv,
                    size_t ivlen, const OSSL_PARAM params[], int enc)
{
    cipher_ctx *c = vctx;
    /* Every check first: a failed init changes nothing. */
    if (key != NULL && keylen != c->keylen) {
        RAISE_DATA(c->prov, R_BAD_KEY_LENGTH, "key length %zu, expected %zu", keylen, c->keylen);
        return 0;
    }
    if (iv != NULL && c->mode != M_ECB && ivlen != 16) {
        RAISE_DATA(c->prov, R_BAD_IV_LENGTH, "IV length %zu, expected 16", ivlen);
        return 0;
    }
    if (key != NULL) {
        int rc = aesgen_init(&c->key, key, keylen);
        if (rc != AESGEN_OK) {
            c->key_set = 0;
            RAISE_DATA(c->prov, R_AESGEN_FAILURE, "aesgen_init: %s", aesgen_status_string(rc));
            return 0;
        }
        c->key_set = 1;
    }
    if (iv != NULL && c->mode != M_ECB) {
        memcpy(c->oiv, iv, 16);
        c->iv_set = 1;
    }
    /* As the default provider: an init with an IV starts the stream there. One
     * without restarts CBC from the last IV given, while CTR goes on from the next
     * counter block, dropping the unused keystream of a partial block. */
    if (c->iv_set) {
        if (c->mode == M_CBC)
            memcpy(c->iv, c->oiv, 16);
        else if (c->mode == M_CTR)
            aesgen_ctr_init(&c->ctr, iv != NULL ? c->oiv : c->ctr.counter);
    }
    c->enc = enc;
    c->bufsz = 0;
    return set_ctx_params(c, params);
}

static int encrypt_init(void *vctx, const unsigned char *key, size_t keylen, const unsigned char *iv,
                        size_t ivlen, const OSSL_PARAM params[])
{
    return ctx_init(vctx, key, keylen, iv, ivlen, params, 1);
}

static int decrypt_init(void *vctx, const unsigned char *key, size_t keylen, const unsigned char *iv,
                        size_t ivlen, const OSSL_PARAM params[])
{
    return ctx_init(vctx, key, keylen, iv, ivlen, params, 0);
}

/* Whole blocks through aesgen; ECB or CBC in the context's direction. */
static int blocks(cipher_ctx *c, uint8_t *out, const uint8_t *in, size_t len)
{
    int rc;
    if (c->mode == M_ECB)
        rc = c->enc ? aesgen_ecb_encrypt(&c->key, out, in, len) : aesgen_ecb_decrypt(&c->key, out, in, len);
    else
        rc = c->enc ? aesgen_cbc_encrypt(&c->key, c->iv, out, in, len)
                    : aesgen_cbc_decrypt(&c->key, c->iv, out, in, len);
    if (rc != AESGEN_OK) {
        RAISE_DATA(c->prov, R_AESGEN_FAILURE, "%s", aesgen_status_string(rc));
        return 0;
    }
    return 1;
}

static int ready(cipher_ctx *c)
{
    atomic_fetch_add_explicit(&c->prov->calls, 1, memory_order_relaxed);
    if (!c->key_set || (c->mode != M_ECB && !c->iv_set)) {
        RAISE(c->prov, R_NO_KEY_SET);
        return 0;
    }
    return 1;
}

static int ctr_crypt(cipher_ctx *c, uint8_t *out, size_t *outl, size_t outsize, const uint8_t *in, size_t inl)
{
    if (outsize < inl) {
        RAISE(c->prov, R_OUTPUT_TOO_SMALL);
        return 0;
    }
    int rc = aesgen_ctr_crypt(&c->key, &c->ctr, out, in, inl);
    if (rc != AESGEN_OK) {
        RAISE_DATA(c->prov, R_AESGEN_FAILURE, "aesgen_ctr_crypt: %s", aesgen_status_string(rc));
        return 0;
    }
    *outl = inl;
    return 1;
}

static int update(void *vctx, unsigned char *out, size_t *outl, size_t outsize, const unsigned char *in,
                  size_t inl)
{
    cipher_ctx *c = vctx;
    if (!ready(c))
        return 0;
    if (c->mode == M_CTR)
        return ctr_crypt(c, out, outl, outsize, in, inl);

    /* Decryption with padding keeps the last whole block back for final. */
    size_t total = c->bufsz + inl;
    size_t keep = total % 16;
    if (keep == 0 && total > 0 && !c->enc && c->pad)
        keep = 16;
    size_t produce = total - keep;
    if (outsize < produce) {
        RAISE(c->prov, R_OUTPUT_TOO_SMALL);
        return 0;
    }
    if (produce == 0) {
        memcpy(c->buf + c->bufsz, in, inl);
        c->bufsz += inl;
        *outl = 0;
        return 1;
    }
    /* Complete the buffered block first. In place, callers advance out by what was
     * written and in by what was read, so out + 16 == in afterwards. */
    uint8_t *o = out;
    if (c->bufsz > 0) {
        size_t take = 16 - c->bufsz;
        uint8_t blk[16];
        memcpy(blk, c->buf, c->bufsz);
        memcpy(blk + c->bufsz, in, take);
        if (!blocks(c, o, blk, 16))
            return 0;
        in += take;
        inl -= take;
        o += 16;
        produce -= 16;
    }
    if (produce > 0 && !blocks(c, o, in, produce))
        return 0;
    memcpy(c->buf, in + produce, inl - produce);
    c->bufsz = inl - produce;
    *outl = (size_t)(o - out) + produce;
    return 1;
}

static int final(void *vctx, unsigned char *out, size_t *outl, size_t outsize)
{
    cipher_ctx *c = vctx;
    if (!ready(c))
        return 0;
    if (c->mode == M_CTR) {
        *outl = 0;
        return 1;
    }
    if (c->enc) {
        if (!c->pad) {
            if (c->bufsz != 0) {
                RAISE_DATA(c->prov, R_WRONG_FINAL_BLOCK_LENGTH, "%zu bytes left over", c->bufsz);
                return 0;
            }
            *outl = 0;
            return 1;
        }
        if (outsize < 16) {
            RAISE(c->prov, R_OUTPUT_TOO_SMALL);
            return 0;
        }
        uint8_t n = (uint8_t)(16 - c->bufsz);
        memset(c->buf + c->bufsz, n, n);
        if (!blocks(c, out, c->buf, 16))
            return 0;
        c->bufsz = 0;
        *outl = 16;
        return 1;
    }
    if (!c->pad) {
        if (c->bufsz != 0) {
            RAISE_DATA(c->prov, R_WRONG_FINAL_BLOCK_LENGTH, "%zu bytes left over", c->bufsz);
            return 0;
        }
        *outl = 0;
        return 1;
    }
    if (c->bufsz != 16) {
        RAISE_DATA(c->prov, R_WRONG_FINAL_BLOCK_LENGTH, "%zu bytes left over", c->bufsz);
        return 0;
    }
    uint8_t blk[16];
    if (!blocks(c, blk, c->buf, 16))
        return 0;
    /* Check the padding without branching on its bytes; only the verdict is public. */
    unsigned n = blk[15];
    unsigned bad = (unsigned)((n - 1u) >> 8) | (unsigned)((16u - n) >> 8); /* n == 0 or n > 16 */
    for (unsigned i = 0; i < 16; i++) {
        unsigned in_pad = (unsigned)(((15u - i) - n) >> 8) & 1u; /* i >= 16 - n */
        bad |= in_pad & (unsigned)(blk[i] != n);
    }
    if (bad != 0) {
        aesgen_memwipe(blk, sizeof(blk));
        RAISE(c->prov, R_BAD_DECRYPT);
        return 0;
    }
    if (outsize < 16 - n) {
        aesgen_memwipe(blk, sizeof(blk));
        RAISE(c->prov, R_OUTPUT_TOO_SMALL);
        return 0;
    }
    memcpy(out, blk, 16 - n);
    aesgen_memwipe(blk, sizeof(blk));
    c->bufsz = 0;
    *outl = 16 - n;
    return 1;
}

/* EVP_Cipher: the raw transform, whole blocks for ECB/CBC, no padding. */
static int cipher(void *vctx, unsigned char *out, size_t *outl, size_t outsize, const unsigned char *in,
                  size_t inl)
{
    cipher_ctx *c = vctx;
    if (!ready(c))
        return 0;
    if (c->mode == M_CTR)
        return ctr_crypt(c, out, outl, outsize, in, inl);
    if (inl % 16 != 0) {
        RAISE_DATA(c->prov, R_WRONG_FINAL_BLOCK_LENGTH, "length %zu not a multiple of 16", inl);
        return 0;
    }
    if (outsize < inl) {
        RAISE(c->prov, R_OUTPUT_TOO_SMALL);
        return 0;
    }
    if (!blocks(c, out, in, inl))
        return 0;
    *outl = inl;
    return 1;
}

/* ---- parameters ------------------------------------------------------------------------ */

/* A cipher's fixed parameters (get_params) as the default provider reports them; the
 * flags not named here are 0. */
static int set_cipher_params(OSSL_PARAM params[], unsigned mode, size_t keylen, size_t ivlen, size_t block,
                             int aead, int custom_iv)
{
    OSSL_PARAM *p;
    if ((p = OSSL_PARAM_locate(params, OSSL_CIPHER_PARAM_MODE)) != NULL && !OSSL_PARAM_set_uint(p, mode))
        return 0;
    if ((p = OSSL_PARAM_locate(params, OSSL_CIPHER_PARAM_KEYLEN)) != NULL && !OSSL_PARAM_set_size_t(p, keylen))
        return 0;
    if ((p = OSSL_PARAM_locate(params, OSSL_CIPHER_PARAM_IVLEN)) != NULL && !OSSL_PARAM_set_size_t(p, ivlen))
        return 0;
    if ((p = OSSL_PARAM_locate(params, OSSL_CIPHER_PARAM_BLOCK_SIZE)) != NULL && !OSSL_PARAM_set_size_t(p, block))
        return 0;
    const struct {
        const char *key;
        int value;
    } flags[] = {{OSSL_CIPHER_PARAM_AEAD, aead}, {OSSL_CIPHER_PARAM_CUSTOM_IV, custom_iv},
                 {OSSL_CIPHER_PARAM_CTS, 0}, {OSSL_CIPHER_PARAM_TLS1_MULTIBLOCK, 0},
                 {OSSL_CIPHER_PARAM_HAS_RAND_KEY, 0}};
    for (size_t i = 0; i < sizeof(flags) / sizeof(flags[0]); i++)
        if ((p = OSSL_PARAM_locate(params, flags[i].key)) != NULL && !OSSL_PARAM_set_int(p, flags[i].value))
            return 0;
    return 1;
}

static int get_params_common(OSSL_PARAM params[], enum mode mode, size_t keylen)
{
    return set_cipher_params(params, (unsigned)mode, keylen, mode == M_ECB ? 0 : 16, mode == M_CTR ? 1 : 16, 0, 0);
}

static const OSSL_PARAM cipher_gettable[] = {
    OSSL_PARAM_uint(OSSL_CIPHER_PARAM_MODE, NULL),
    OSSL_PARAM_size_t(OSSL_CIPHER_PARAM_KEYLEN, NULL),
    OSSL_PARAM_size_t(OSSL_CIPHER_PARAM_IVLEN, NULL),
    OSSL_PARAM_size_t(OSSL_CIPHER_PARAM_BLOCK_SIZE, NULL),
    OSSL_PARAM_int(OSSL_CIPHER_PARAM_AEAD, NULL),
    OSSL_PARAM_int(OSSL_CIPHER_PARAM_CUSTOM_IV, NULL),
    OSSL_PARAM_int(OSSL_CIPHER_PARAM_CTS, NULL),
    OSSL_PARAM_int(OSSL_CIPHER_PARAM_TLS1_MULTIBLOCK, NULL),
    OSSL_PARAM_int(OSSL_CIPHER_PARAM_HAS_RAND_KEY, NULL),
    OSSL_PARAM_END,
};

static const OSSL_PARAM *gettable_params(void *provctx)
{
    (void)provctx;
    return cipher_gettable;
}

static const OSSL_PARAM ctx_gettable[] = {
    OSSL_PARAM_size_t(OSSL_CIPHER_PARAM_KEYLEN, NULL),
    OSSL_PARAM_size_t(OSSL_CIPHER_PARAM_IVLEN, NULL),
    OSSL_PARAM_uint(OSSL_CIPHER_PARAM_PADDING, NULL),
    OSSL_PARAM_uint(OSSL_CIPHER_PARAM_NUM, NULL),
    OSSL_PARAM_octet_string(OSSL_CIPHER_PARAM_IV, NULL, 0),
    OSSL_PARAM_octet_string(OSSL_CIPHER_PARAM_UPDATED_IV, NULL, 0),
    OSSL_PARAM_END,
};

static const OSSL_PARAM *gettable_ctx_params(void *cctx, void *provctx)
{
    (void)cctx, (void)provctx;
    return ctx_gettable;
}

static const OSSL_PARAM ctx_settable[] = {
    OSSL_PARAM_size_t(OSSL_CIPHER_PARAM_KEYLEN, NULL),
    OSSL_PARAM_uint(OSSL_CIPHER_PARAM_PADDING, NULL),
    OSSL_PARAM_END,
};

static const OSSL_PARAM *settable_ctx_params(void *cctx, void *provctx)
{
    (void)cctx, (void)provctx;
    return ctx_settable;
}

static int set_iv_param(OSSL_PARAM *p, const uint8_t iv[16], size_t len)
{
    /* Octet string or (as the default provider also accepts) octet pointer. */
    if (OSSL_PARAM_set_octet_string(p, iv, len))
        return 1;
    return OSSL_PARAM_set_octet_ptr(p, iv, len);
}

static int get_ctx_params(void *vctx, OSSL_PARAM params[])
{
    cipher_ctx *c = vctx;
    OSSL_PARAM *p;
    if ((p = OSSL_PARAM_locate(params, OSSL_CIPHER_PARAM_KEYLEN)) != NULL && !OSSL_PARAM_set_size_t(p, c->keylen))
        return 0;
    if ((p = OSSL_PARAM_locate(params, OSSL_CIPHER_PARAM_IVLEN)) != NULL &&
        !OSSL_PARAM_set_size_t(p, ivlen_of(c)))
        return 0;
    if ((p = OSSL_PARAM_locate(params, OSSL_CIPHER_PARAM_PADDING)) != NULL &&
        !OSSL_PARAM_set_uint(p, (unsigned)c->pad))
        return 0;
    if ((p = OSSL_PARAM_locate(params, OSSL_CIPHER_PARAM_NUM)) != NULL &&
        !OSSL_PARAM_set_uint(p, c->mode == M_CTR ? (c->ctr.used % 16) : 0))
        return 0;
    if ((p = OSSL_PARAM_locate(params, OSSL_CIPHER_PARAM_IV)) != NULL && ivlen_of(c) != 0 &&
        !set_iv_param(p, c->oiv, 16))
        return 0;
    if ((p = OSSL_PARAM_locate(params, OSSL_CIPHER_PARAM_UPDATED_IV)) != NULL && ivlen_of(c) != 0) {
        /* CBC: the chaining value; CTR: the next counter block, which is what the
         * default provider reports too (it steps the counter past a partial block). */
        uint8_t v[16];
        memcpy(v, c->mode == M_CTR ? c->ctr.counter : c->iv, 16);
        if (!set_iv_param(p, v, 16))
            return 0;
    }
    return 1;
}

static int set_ctx_params(void *vctx, const OSSL_PARAM params[])
{
    cipher_ctx *c = vctx;
    const OSSL_PARAM *p;
    if (params == NULL)
        return 1;
    if ((p = OSSL_PARAM_locate_const(params, OSSL_CIPHER_PARAM_PADDING)) != NULL) {
        unsigned pad;
        if (!OSSL_PARAM_get_uint(p, &pad)) {
            RAISE_DATA(c->prov, R_BAD_PARAMETER, "%s", OSSL_CIPHER_PARAM_PADDING);
            return 0;
        }
        c->pad = pad != 0;
    }
    if ((p = OSSL_PARAM_locate_const(params, OSSL_CIPHER_PARAM_KEYLEN)) != NULL) {
        size_t kl;
        if (!OSSL_PARAM_get_size_t(p, &kl)) {
            RAISE_DATA(c->prov, R_BAD_PARAMETER, "%s", OSSL_CIPHER_PARAM_KEYLEN);
            return 0;
        }
        if (kl != c->keylen) {
            RAISE_DATA(c->prov, R_BAD_KEY_LENGTH, "key length %zu, this cipher takes %zu", kl, c->keylen);
            return 0;
        }
    }
    /* Unknown keys (libssl's tls-version, tls-mac-size, ...) are ignored, as provider-cipher(7) asks. */
    return 1;
}

/* ---- XTS ---------------------------------------------------------------------------------
 *
 * As the default provider's AES-XTS in OpenSSL 3.0: every update (and EVP_Cipher)
 * is one complete data unit of 16 bytes to 2^20 blocks, tweaked by the IV given at
 * init; a second update starts a new data unit with the same tweak (a new tweak
 * needs a re-init with an IV). Final writes nothing. The block size is 1 and the IV
 * is the 16-byte tweak, so the updated IV is the IV itself. */

#define XTS_MAX_UNIT ((size_t)1 << 24) /* 2^20 blocks: IEEE 1619-2018, SP 800-38E */

typedef struct {
    aesgen_xts_key key;  /* first: keeps the 8-byte alignment aesgen needs */
    prov_ctx *prov;
    size_t keylen;       /* 32 or 64: both halves */
    uint8_t iv[16];      /* the tweak */
    int enc;
    int key_set;
    int iv_set;
} xts_ctx;

static void *xts_new(void *provctx, size_t keylen)
{
    xts_ctx *c = OPENSSL_zalloc(sizeof(*c));
    if (c == NULL)
        return NULL;
    c->prov = provctx;
    c->keylen = keylen;
    return c;
}

static void xts_free(void *vctx)
{
    xts_ctx *c = vctx;
    if (c == NULL)
        return;
    aesgen_xts_wipe(&c->key);
    OPENSSL_clear_free(c, sizeof(*c));
}

static void *xts_dup(void *vctx)
{
    const xts_ctx *src = vctx;
    xts_ctx *c = OPENSSL_malloc(sizeof(*c));
    if (c == NULL)
        return NULL;
    /* An XTS key holds no pointer into itself (like aesgen_ctx): memcpy is a copy. */
    memcpy(c, src, sizeof(*c));
    return c;
}

static int xts_set_ctx_params(void *vctx, const OSSL_PARAM params[]);

static int xts_init(void *vctx, const unsigned char *key, size_t keylen, const unsigned char *iv, size_t ivlen,
                    const OSSL_PARAM params[], int enc)
{
    xts_ctx *c = vctx;
    if (key != NULL && keylen != c->keylen) {
        RAISE_DATA(c->prov, R_BAD_KEY_LENGTH, "key length %zu, expected %zu", keylen, c->keylen);
        return 0;
    }
    if (iv != NULL && ivlen != 16) {
        RAISE_DATA(c->prov, R_BAD_IV_LENGTH, "IV length %zu, expected 16", ivlen);
        return 0;
    }
    if (key != NULL) {
        /* aesgen refuses equal halves in both directions; the default provider only
         * when encrypting (docs/openssl-provider.md). A refused key leaves the context
         * without one, so that no later update runs on the previous key. */
        int rc = aesgen_xts_init(&c->key, key, keylen);
        if (rc != AESGEN_OK) {
            aesgen_xts_wipe(&c->key);
            c->key_set = 0;
            if (rc == AESGEN_ERR_WEAK_KEY)
                RAISE(c->prov, R_XTS_DUPLICATED_KEYS);
            else
                RAISE_DATA(c->prov, R_AESGEN_FAILURE, "aesgen_xts_init: %s", aesgen_status_string(rc));
            return 0;
        }
        c->key_set = 1;
    }
    if (iv != NULL) {
        memcpy(c->iv, iv, 16);
        c->iv_set = 1;
    }
    c->enc = enc;
    return xts_set_ctx_params(c, params);
}

static int xts_encrypt_init(void *vctx, const unsigned char *key, size_t keylen, const unsigned char *iv,
                            size_t ivlen, const OSSL_PARAM params[])
{
    return xts_init(vctx, key, keylen, iv, ivlen, params, 1);
}

static int xts_decrypt_init(void *vctx, const unsigned char *key, size_t keylen, const unsigned char *iv,
                            size_t ivlen, const OSSL_PARAM params[])
{
    return xts_init(vctx, key, keylen, iv, ivlen, params, 0);
}

/* One data unit: update and EVP_Cipher alike. */
static int xts_unit(void *vctx, unsigned char *out, size_t *outl, size_t outsize, const unsigned char *in,
                    size_t inl)
{
    xts_ctx *c = vctx;
    atomic_fetch_add_explicit(&c->prov->calls, 1, memory_order_relaxed);
    if (!c->key_set) {
        RAISE(c->prov, R_NO_KEY_SET);
        return 0;
    }
    if (!c->iv_set) {
        RAISE(c->prov, R_NO_IV_SET);
        return 0;
    }
    if (inl < 16) {
        RAISE_DATA(c->prov, R_XTS_UNIT_TOO_SHORT, "%zu bytes", inl);
        return 0;
    }
    if (inl > XTS_MAX_UNIT) {
        RAISE_DATA(c->prov, R_XTS_UNIT_TOO_LONG, "%zu bytes", inl);
        return 0;
    }
    if (out == NULL || in == NULL) {
        RAISE_DATA(c->prov, R_BAD_PARAMETER, "no %s buffer", out == NULL ? "output" : "input");
        return 0;
    }
    if (outsize < inl) {
        RAISE(c->prov, R_OUTPUT_TOO_SMALL);
        return 0;
    }
    int rc = c->enc ? aesgen_xts_encrypt(&c->key, c->iv, out, in, inl)
                    : aesgen_xts_decrypt(&c->key, c->iv, out, in, inl);
    if (rc != AESGEN_OK) {
        RAISE_DATA(c->prov, R_AESGEN_FAILURE, "aesgen_xts_%s: %s", c->enc ? "encrypt" : "decrypt",
                   aesgen_status_string(rc));
        return 0;
    }
    *outl = inl;
    return 1;
}

static int xts_final(void *vctx, unsigned char *out, size_t *outl, size_t outsize)
{
    xts_ctx *c = vctx;
    (void)out, (void)outsize;
    /* Every unit was complete at its update: nothing is left (nor checked, as the default provider). */
    atomic_fetch_add_explicit(&c->prov->calls, 1, memory_order_relaxed);
    *outl = 0;
    return 1;
}

static int xts_get_params(OSSL_PARAM params[], size_t keylen)
{
    return set_cipher_params(params, EVP_CIPH_XTS_MODE, keylen, 16, 1, 0, 1);
}

static int xts_get_ctx_params(void *vctx, OSSL_PARAM params[])
{
    xts_ctx *c = vctx;
    OSSL_PARAM *p;
    if ((p = OSSL_PARAM_locate(params, OSSL_CIPHER_PARAM_KEYLEN)) != NULL && !OSSL_PARAM_set_size_t(p, c->keylen))
        return 0;
    if ((p = OSSL_PARAM_locate(params, OSSL_CIPHER_PARAM_IVLEN)) != NULL && !OSSL_PARAM_set_size_t(p, 16))
        return 0;
    /* padding 1 and num 0: what the default provider reports for XTS, though neither applies. */
    if ((p = OSSL_PARAM_locate(params, OSSL_CIPHER_PARAM_PADDING)) != NULL && !OSSL_PARAM_set_uint(p, 1))
        return 0;
    if ((p = OSSL_PARAM_locate(params, OSSL_CIPHER_PARAM_NUM)) != NULL && !OSSL_PARAM_set_uint(p, 0))
        return 0;
    /* The tweak does not advance between units: IV and updated IV are both the one given. */
    if ((p = OSSL_PARAM_locate(params, OSSL_CIPHER_PARAM_IV)) != NULL && !set_iv_param(p, c->iv, 16))
        return 0;
    if ((p = OSSL_PARAM_locate(params, OSSL_CIPHER_PARAM_UPDATED_IV)) != NULL && !set_iv_param(p, c->iv, 16))
        return 0;
    return 1;
}

static const OSSL_PARAM xts_settable[] = {
    OSSL_PARAM_size_t(OSSL_CIPHER_PARAM_KEYLEN, NULL),
    OSSL_PARAM_END,
};

static const OSSL_PARAM *xts_settable_ctx_params(void *cctx, void *provctx)
{
    (void)cctx, (void)provctx;
    return xts_settable;
}

static int xts_set_ctx_params(void *vctx, const OSSL_PARAM params[])
{
    xts_ctx *c = vctx;
    const OSSL_PARAM *p;
    if (params == NULL)
        return 1;
    if ((p = OSSL_PARAM_locate_const(params, OSSL_CIPHER_PARAM_KEYLEN)) != NULL) {
        size_t kl;
        if (!OSSL_PARAM_get_size_t(p, &kl)) {
            RAISE_DATA(c->prov, R_BAD_PARAMETER, "%s", OSSL_CIPHER_PARAM_KEYLEN);
            return 0;
        }
        if (kl != c->keylen) {
            RAISE_DATA(c->prov, R_BAD_KEY_LENGTH, "key length %zu, this cipher takes %zu", kl, c->keylen);
            return 0;
        }
    }
    /* padding (set by EVP on every init) and unknown keys are ignored, as the default provider's XTS does. */
    return 1;
}

#define AESGEN_XTS(bits)                                                                         \
    static void *newctx_##bits##_xts(void *provctx)                                              \
    {                                                                                            \
        return xts_new(provctx, 2 * (bits / 8));                                                 \
    }                                                                                            \
    static int get_params_##bits##_xts(OSSL_PARAM params[])                                      \
    {                                                                                            \
        return xts_get_params(params, 2 * (bits / 8));                                           \
    }                                                                                            \
    static const OSSL_DISPATCH fns_##bits##_xts[] = {                                            \
        {OSSL_FUNC_CIPHER_NEWCTX, (void (*)(void))newctx_##bits##_xts},                         \
        {OSSL_FUNC_CIPHER_FREECTX, (void (*)(void))xts_free},                                    \
        {OSSL_FUNC_CIPHER_DUPCTX, (void (*)(void))xts_dup},                                      \
        {OSSL_FUNC_CIPHER_ENCRYPT_INIT, (void (*)(void))xts_encrypt_init},                       \
        {OSSL_FUNC_CIPHER_DECRYPT_INIT, (void (*)(void))xts_decrypt_init},                       \
        {OSSL_FUNC_CIPHER_UPDATE, (void (*)(void))xts_unit},                                     \
        {OSSL_FUNC_CIPHER_FINAL, (void (*)(void))xts_final},                                     \
        {OSSL_FUNC_CIPHER_CIPHER, (void (*)(void))xts_unit},                                     \
        {OSSL_FUNC_CIPHER_GET_PARAMS, (void (*)(void))get_params_##bits##_xts},                  \
        {OSSL_FUNC_CIPHER_GETTABLE_PARAMS, (void (*)(void))gettable_params},                     \
        {OSSL_FUNC_CIPHER_GET_CTX_PARAMS, (void (*)(void))xts_get_ctx_params},                   \
        {OSSL_FUNC_CIPHER_SET_CTX_PARAMS, (void (*)(void))xts_set_ctx_params},                   \
        {OSSL_FUNC_CIPHER_GETTABLE_CTX_PARAMS, (void (*)(void))gettable_ctx_params},             \
        {OSSL_FUNC_CIPHER_SETTABLE_CTX_PARAMS, (void (*)(void))xts_settable_ctx_params},         \
        {0, NULL}                                                                                \
    };

AESGEN_XTS(128)
AESGEN_XTS(256)

/* ---- GCM -------------------------------------------------------------------------------
 *
 * Through aesgen's streaming GCM, with the EVP semantics of the default provider's
 * GCM in OpenSSL 3.0: the IV length is set (1..128 bytes, default 12) before the IV;
 * AAD is update with out == NULL, in any number of calls before the text; updates
 * of 0 bytes do nothing (they do not end the AAD); final computes the tag
 * (encryption: read it afterwards as the "tag" parameter) or checks the tag set
 * before it (decryption). As with every streamed AEAD, decrypting updates release
 * plaintext before final has checked the tag: a caller must drop it when final fails.
 * After final the IV is used up: the next message needs a re-init with an IV.
 *
 * TLS 1.2 (RFC 5288) as the default provider does it: tlsivfixed gives the 4-byte
 * fixed part of the IV (encryption: the 8-byte invocation field starts at a random
 * value and counts up per record), tlsaad the 13-byte record header, after which
 * one update in place transforms a whole record: 8-byte explicit nonce, payload,
 * 16-byte tag, through aesgen's one-shot seal/open (open writes no plaintext of a
 * record whose tag is wrong). Not offered: IV generation for an encryption without
 * an IV outside TLS (refused instead). */

#define TLS_AAD_LEN 13      /* EVP_AEAD_TLS1_AAD_LEN */
#define TLS_FIXED_IV_LEN 4  /* EVP_GCM_TLS_FIXED_IV_LEN */
#define TLS_EXPLICIT_IV_LEN 8
#define TLS_TAG_LEN 16

#define GCM_IV_MAX 128 /* as the default provider */

/* A stream points at its key, so a copy of a context (dupctx) must keep the key
 * where it is: the key lives on the heap, shared by the copies, counted. */
typedef struct {
    aesgen_gcm_key key; /* first: 8-byte alignment */
    _Atomic unsigned refs;
} gcm_key_ref;

enum gcm_iv_state { GCM_IV_NONE, GCM_IV_BUFFERED, GCM_IV_STARTED, GCM_IV_FINISHED };

typedef struct {
    aesgen_gcm_stream st; /* first: 8-byte alignment */
    gcm_key_ref *key;     /* NULL: no key */
    prov_ctx *prov;
    size_t keylen;
    size_t ivlen;
    uint8_t iv[GCM_IV_MAX];
    uint8_t tag[16];      /* encryption: the tag of the last final; decryption: the expected one */
    size_t taglen;        /* decryption: length of the tag set (0: none) */
    int tag_ready;        /* encryption: tag holds this message's tag */
    uint8_t tls_aad[TLS_AAD_LEN];
    int tls_aad_set;      /* the next update is a TLS 1.2 record */
    int iv_gen;           /* tlsivfixed given: the invocation field is ours to count */
    uint64_t tls_records; /* records encrypted under this key */
    int enc;
    enum gcm_iv_state iv_state;
} gcm_ctx;

static void gcm_key_release(gcm_key_ref *k)
{
    if (k != NULL && atomic_fetch_sub_explicit(&k->refs, 1, memory_order_acq_rel) == 1) {
        aesgen_gcm_wipe(&k->key);
        OPENSSL_clear_free(k, sizeof(*k));
    }
}

/* SP 800-38D tag lengths, those aesgen_gcm_finish/verify take. */
static int gcm_taglen_ok(size_t n)
{
    return (n >= 12 && n <= 16) || n == 8 || n == 4;
}

static void *gcm_new(void *provctx, size_t keylen)
{
    gcm_ctx *c = OPENSSL_zalloc(sizeof(*c));
    if (c == NULL)
        return NULL;
    c->prov = provctx;
    c->keylen = keylen;
    c->ivlen = 12;
    return c;
}

static void gcm_free(void *vctx)
{
    gcm_ctx *c = vctx;
    if (c == NULL)
        return;
    aesgen_gcm_stream_wipe(&c->st);
    gcm_key_release(c->key);
    OPENSSL_clear_free(c, sizeof(*c));
}

static void *gcm_dup(void *vctx)
{
    const gcm_ctx *src = vctx;
    gcm_ctx *c = OPENSSL_malloc(sizeof(*c));
    if (c == NULL)
        return NULL;
    /* The stream is plain data plus a pointer to the shared key, which the copy now
     * holds a reference to as well. */
    memcpy(c, src, sizeof(*c));
    if (c->key != NULL)
        atomic_fetch_add_explicit(&c->key->refs, 1, memory_order_relaxed);
    return c;
}

static int gcm_set_ctx_params(void *vctx, const OSSL_PARAM params[]);

static int gcm_init(void *vctx, const unsigned char *key, size_t keylen, const unsigned char *iv, size_t ivlen,
                    const OSSL_PARAM params[], int enc)
{
    gcm_ctx *c = vctx;
    if (key != NULL && keylen != c->keylen) {
        RAISE_DATA(c->prov, R_BAD_KEY_LENGTH, "key length %zu, expected %zu", keylen, c->keylen);
        return 0;
    }
    if (iv != NULL && (ivlen == 0 || ivlen > GCM_IV_MAX)) {
        RAISE_DATA(c->prov, R_BAD_IV_LENGTH, "IV length %zu, GCM takes 1..%d", ivlen, GCM_IV_MAX);
        return 0;
    }
    if (key != NULL) {
        /* A key object only this context holds is set up again in place (a key per
         * message, as `openssl speed -aead` does, then costs no allocation and no 2 KiB
         * cleanse); one that copies of this context share stays theirs, and this
         * context takes a fresh one. */
        const int own = c->key != NULL && atomic_load_explicit(&c->key->refs, memory_order_acquire) == 1;
        gcm_key_ref *k = own ? c->key : OPENSSL_malloc(sizeof(*k));
        if (k == NULL)
            return 0;
        int rc = aesgen_gcm_init(&k->key, key, keylen);
        if (!own)
            gcm_key_release(c->key);
        c->key = NULL;
        if (rc != AESGEN_OK) {
            aesgen_gcm_wipe(&k->key);
            OPENSSL_clear_free(k, sizeof(*k));
            RAISE_DATA(c->prov, R_AESGEN_FAILURE, "aesgen_gcm_init: %s", aesgen_status_string(rc));
            return 0;
        }
        if (!own)
            atomic_init(&k->refs, 1);
        c->key = k;
        c->tls_records = 0;
        /* a stream on the old key cannot go on: restart it from the IV */
        if (c->iv_state == GCM_IV_STARTED)
            c->iv_state = GCM_IV_BUFFERED;
    }
    if (iv != NULL) {
        memcpy(c->iv, iv, ivlen);
        c->ivlen = ivlen;
        c->iv_state = GCM_IV_BUFFERED;
    }
    if (c->enc != enc && c->iv_state == GCM_IV_STARTED)
        c->iv_state = GCM_IV_BUFFERED; /* a stream runs in one direction */
    c->enc = enc;
    c->tag_ready = 0;
    return gcm_set_ctx_params(c, params);
}

static int gcm_encrypt_init(void *vctx, const unsigned char *key, size_t keylen, const unsigned char *iv,
                            size_t ivlen, const OSSL_PARAM params[])
{
    return gcm_init(vctx, key, keylen, iv, ivlen, params, 1);
}

static int gcm_decrypt_init(void *vctx, const unsigned char *key, size_t keylen, const unsigned char *iv,
                            size_t ivlen, const OSSL_PARAM params[])
{
    return gcm_init(vctx, key, keylen, iv, ivlen, params, 0);
}

/* Key and IV present and the message not finished; starts the stream on first use. */
static int gcm_ready(gcm_ctx *c)
{
    atomic_fetch_add_explicit(&c->prov->calls, 1, memory_order_relaxed);
    if (c->key == NULL) {
        RAISE(c->prov, R_NO_KEY_SET);
        return 0;
    }
    if (c->iv_state == GCM_IV_NONE) {
        RAISE_DATA(c->prov, R_NO_IV_SET, "aesgen does not generate GCM IVs: give one at init");
        return 0;
    }
    if (c->iv_state == GCM_IV_FINISHED) {
        RAISE(c->prov, R_GCM_FINISHED);
        return 0;
    }
    if (c->iv_state == GCM_IV_BUFFERED) {
        int rc = aesgen_gcm_start(&c->st, &c->key->key, c->enc ? AESGEN_ENCRYPT : AESGEN_DECRYPT, c->iv, c->ivlen);
        if (rc != AESGEN_OK) {
            RAISE_DATA(c->prov, R_AESGEN_FAILURE, "aesgen_gcm_start: %s", aesgen_status_string(rc));
            return 0;
        }
        c->iv_state = GCM_IV_STARTED;
    }
    return 1;
}

static int gcm_final_tag(gcm_ctx *c)
{
    int rc;
    if (c->enc) {
        rc = aesgen_gcm_finish(&c->st, c->tag, 16);
    } else {
        if (c->taglen == 0) {
            RAISE(c->prov, R_NO_TAG_SET);
            return 0;
        }
        rc = aesgen_gcm_verify(&c->st, c->tag, c->taglen);
    }
    /* The stream is done either way (aesgen refuses anything after finish or verify). */
    c->iv_state = GCM_IV_FINISHED;
    if (rc == AESGEN_ERR_AUTH) {
        RAISE(c->prov, R_BAD_TAG);
        return 0;
    }
    if (rc != AESGEN_OK) {
        RAISE_DATA(c->prov, R_AESGEN_FAILURE, "aesgen_gcm_%s: %s", c->enc ? "finish" : "verify",
                   aesgen_status_string(rc));
        return 0;
    }
    c->tag_ready = c->enc;
    return 1;
}

/* The 8-byte invocation field (the IV's last bytes), big-endian, plus one. */
static void tls_iv_next(gcm_ctx *c)
{
    for (size_t i = c->ivlen; i-- > c->ivlen - TLS_EXPLICIT_IV_LEN;)
        if (++c->iv[i] != 0)
            break;
}

/* One TLS 1.2 record in place: explicit nonce || payload || tag. */
static int gcm_tls_record(gcm_ctx *c, unsigned char *out, size_t *outl, const unsigned char *in, size_t len)
{
    int ok = 0;
    *outl = 0;
    atomic_fetch_add_explicit(&c->prov->calls, 1, memory_order_relaxed);
    if (c->key == NULL) {
        RAISE(c->prov, R_NO_KEY_SET);
        goto done;
    }
    if (!c->iv_gen) {
        RAISE_DATA(c->prov, R_NO_IV_SET, "TLS record without tlsivfixed");
        goto done;
    }
    if (out != in || len < TLS_EXPLICIT_IV_LEN + TLS_TAG_LEN) {
        RAISE_DATA(c->prov, R_BAD_PARAMETER, "TLS record: %s", out != in ? "not in place" : "shorter than 24 bytes");
        goto done;
    }
    /* Fail after 2^64 - 1 records under one key (FIPS 140 IG A.5), as the default provider. */
    if (c->enc && ++c->tls_records == 0) {
        RAISE_DATA(c->prov, R_BAD_PARAMETER, "too many TLS records under one key");
        goto done;
    }
    size_t plen = len - TLS_EXPLICIT_IV_LEN - TLS_TAG_LEN;
    /* The header's length field must be this record's (tlsaad gave the payload length). */
    if (((size_t)c->tls_aad[TLS_AAD_LEN - 2] << 8 | c->tls_aad[TLS_AAD_LEN - 1]) != plen) {
        RAISE_DATA(c->prov, R_BAD_PARAMETER, "TLS record of %zu payload bytes, the header says otherwise", plen);
        goto done;
    }
    uint8_t nonce[GCM_IV_MAX];
    int rc;
    if (c->enc) {
        memcpy(out, c->iv + c->ivlen - TLS_EXPLICIT_IV_LEN, TLS_EXPLICIT_IV_LEN);
        memcpy(nonce, c->iv, c->ivlen);
        tls_iv_next(c);
        rc = aesgen_gcm_seal(&c->key->key, nonce, c->ivlen, c->tls_aad, TLS_AAD_LEN, out + TLS_EXPLICIT_IV_LEN,
                             in + TLS_EXPLICIT_IV_LEN, plen, out + TLS_EXPLICIT_IV_LEN + plen, TLS_TAG_LEN);
    } else {
        memcpy(c->iv + c->ivlen - TLS_EXPLICIT_IV_LEN, in, TLS_EXPLICIT_IV_LEN);
        memcpy(nonce, c->iv, c->ivlen);
        rc = aesgen_gcm_open(&c->key->key, nonce, c->ivlen, c->tls_aad, TLS_AAD_LEN, out + TLS_EXPLICIT_IV_LEN,
                             in + TLS_EXPLICIT_IV_LEN, plen, in + TLS_EXPLICIT_IV_LEN + plen, TLS_TAG_LEN);
    }
    if (rc == AESGEN_ERR_AUTH) {
        RAISE(c->prov, R_BAD_TAG);
        goto done;
    }
    if (rc != AESGEN_OK) {
        RAISE_DATA(c->prov, R_AESGEN_FAILURE, "aesgen_gcm_%s: %s", c->enc ? "seal" : "open", aesgen_status_string(rc));
        goto done;
    }
    *outl = c->enc ? len : plen;
    ok = 1;
done:
    /* as the default provider: a record uses its header and IV up, success or not */
    c->tls_aad_set = 0;
    c->iv_state = GCM_IV_FINISHED;
    return ok;
}

static int gcm_update(void *vctx, unsigned char *out, size_t *outl, size_t outsize, const unsigned char *in,
                      size_t inl)
{
    gcm_ctx *c = vctx;
    if (inl == 0) { /* as the default provider: nothing, not even the end of the AAD */
        *outl = 0;
        return 1;
    }
    if (c->tls_aad_set) {
        if (outsize < inl) {
            RAISE(c->prov, R_OUTPUT_TOO_SMALL);
            return 0;
        }
        return gcm_tls_record(c, out, outl, in, inl);
    }
    if (!gcm_ready(c))
        return 0;
    if (in == NULL) {
        RAISE_DATA(c->prov, R_BAD_PARAMETER, "no input buffer");
        return 0;
    }
    int rc;
    if (out == NULL) {
        rc = aesgen_gcm_aad(&c->st, in, inl);
        if (rc == AESGEN_ERR_STATE) {
            RAISE(c->prov, R_GCM_AAD_AFTER_TEXT);
            return 0;
        }
    } else {
        if (outsize < inl) {
            RAISE(c->prov, R_OUTPUT_TOO_SMALL);
            return 0;
        }
        rc = aesgen_gcm_update(&c->st, out, in, inl);
    }
    if (rc != AESGEN_OK) {
        RAISE_DATA(c->prov, R_AESGEN_FAILURE, "aesgen_gcm_%s: %s", out == NULL ? "aad" : "update",
                   aesgen_status_string(rc));
        return 0;
    }
    *outl = inl; /* AAD counts as processed too, as the default provider reports */
    return 1;
}

static int gcm_final(void *vctx, unsigned char *out, size_t *outl, size_t outsize)
{
    gcm_ctx *c = vctx;
    (void)out, (void)outsize;
    if (!gcm_ready(c) || !gcm_final_tag(c))
        return 0;
    *outl = 0;
    return 1;
}

/* EVP_Cipher: in == NULL is final, out == NULL AAD, as the default provider. */
static int gcm_cipher(void *vctx, unsigned char *out, size_t *outl, size_t outsize, const unsigned char *in,
                      size_t inl)
{
    if (in == NULL)
        return gcm_final(vctx, out, outl, outsize);
    return gcm_update(vctx, out, outl, outsize, in, inl);
}

static int gcm_get_params(OSSL_PARAM params[], size_t keylen)
{
    return set_cipher_params(params, EVP_CIPH_GCM_MODE, keylen, 12, 1, 1, 1);
}

static int gcm_get_ctx_params(void *vctx, OSSL_PARAM params[])
{
    gcm_ctx *c = vctx;
    OSSL_PARAM *p;
    if ((p = OSSL_PARAM_locate(params, OSSL_CIPHER_PARAM_AEAD_TLS1_AAD_PAD)) != NULL &&
        !OSSL_PARAM_set_size_t(p, TLS_TAG_LEN))
        return 0;
    if ((p = OSSL_PARAM_locate(params, OSSL_CIPHER_PARAM_AEAD_TLS1_GET_IV_GEN)) != NULL) {
        /* The next invocation field (the last bytes of the IV, at most the IV), then count
         * up: the IV of the next message is the one returned here. */
        size_t n = p->data_size;
        if (!c->iv_gen || c->key == NULL || p->data == NULL || p->data_type != OSSL_PARAM_OCTET_STRING) {
            RAISE_DATA(c->prov, R_BAD_PARAMETER, "%s needs a key and tlsivfixed", OSSL_CIPHER_PARAM_AEAD_TLS1_GET_IV_GEN);
            return 0;
        }
        if (n == 0 || n > c->ivlen)
            n = c->ivlen;
        memcpy(p->data, c->iv + c->ivlen - n, n);
        p->return_size = n;
        /* the message to come runs on the IV before the increment */
        uint8_t cur[GCM_IV_MAX];
        memcpy(cur, c->iv, c->ivlen);
        tls_iv_next(c);
        int rc = aesgen_gcm_start(&c->st, &c->key->key, c->enc ? AESGEN_ENCRYPT : AESGEN_DECRYPT, cur, c->ivlen);
        if (rc != AESGEN_OK) {
            RAISE_DATA(c->prov, R_AESGEN_FAILURE, "aesgen_gcm_start: %s", aesgen_status_string(rc));
            return 0;
        }
        c->iv_state = GCM_IV_STARTED;
    }
    if ((p = OSSL_PARAM_locate(params, OSSL_CIPHER_PARAM_KEYLEN)) != NULL && !OSSL_PARAM_set_size_t(p, c->keylen))
        return 0;
    if ((p = OSSL_PARAM_locate(params, OSSL_CIPHER_PARAM_IVLEN)) != NULL && !OSSL_PARAM_set_size_t(p, c->ivlen))
        return 0;
    if ((p = OSSL_PARAM_locate(params, OSSL_CIPHER_PARAM_AEAD_TAGLEN)) != NULL &&
        !OSSL_PARAM_set_size_t(p, !c->enc && c->taglen != 0 ? c->taglen : 16))
        return 0;
    static const char *const ivs[] = {OSSL_CIPHER_PARAM_IV, OSSL_CIPHER_PARAM_UPDATED_IV};
    for (size_t i = 0; i < 2; i++)
        if ((p = OSSL_PARAM_locate(params, ivs[i])) != NULL) {
            /* The IV does not advance in GCM's EVP view: both are the IV given. */
            if (c->iv_state == GCM_IV_NONE) {
                RAISE(c->prov, R_NO_IV_SET);
                return 0;
            }
            if (!set_iv_param(p, c->iv, c->ivlen)) {
                RAISE_DATA(c->prov, R_BAD_IV_LENGTH, "buffer for %zu IV bytes too small", c->ivlen);
                return 0;
            }
        }
    if ((p = OSSL_PARAM_locate(params, OSSL_CIPHER_PARAM_AEAD_TAG)) != NULL) {
        if (!c->enc || !c->tag_ready) {
            RAISE_DATA(c->prov, R_NO_TAG_SET, "the tag is there after an encryption's final");
            return 0;
        }
        if (!gcm_taglen_ok(p->data_size)) {
            RAISE_DATA(c->prov, R_BAD_TAG_LENGTH, "%zu", p->data_size);
            return 0;
        }
        if (!OSSL_PARAM_set_octet_string(p, c->tag, p->data_size))
            return 0;
    }
    return 1;
}

static int gcm_set_ctx_params(void *vctx, const OSSL_PARAM params[])
{
    gcm_ctx *c = vctx;
    const OSSL_PARAM *p;
    if (params == NULL)
        return 1;
    if ((p = OSSL_PARAM_locate_const(params, OSSL_CIPHER_PARAM_AEAD_TLS1_AAD)) != NULL) {
        /* The 13-byte TLS 1.2 header; its length field counts the explicit nonce (and,
         * when decrypting, the tag), which the AAD must not: keep the payload length. */
        if (p->data_type != OSSL_PARAM_OCTET_STRING || p->data == NULL || p->data_size != TLS_AAD_LEN) {
            RAISE_DATA(c->prov, R_BAD_PARAMETER, "%s must be %d bytes", OSSL_CIPHER_PARAM_AEAD_TLS1_AAD, TLS_AAD_LEN);
            return 0;
        }
        const uint8_t *h = p->data;
        size_t len = (size_t)h[TLS_AAD_LEN - 2] << 8 | h[TLS_AAD_LEN - 1];
        size_t over = TLS_EXPLICIT_IV_LEN + (c->enc ? 0 : TLS_TAG_LEN);
        if (len < over) {
            RAISE_DATA(c->prov, R_BAD_PARAMETER, "TLS record length %zu below %zu", len, over);
            return 0;
        }
        len -= over;
        memcpy(c->tls_aad, h, TLS_AAD_LEN);
        c->tls_aad[TLS_AAD_LEN - 2] = (uint8_t)(len >> 8);
        c->tls_aad[TLS_AAD_LEN - 1] = (uint8_t)len;
        c->tls_aad_set = 1;
    }
    if ((p = OSSL_PARAM_locate_const(params, OSSL_CIPHER_PARAM_AEAD_TLS1_IV_FIXED)) != NULL) {
        /* fixed field >= 4 bytes, invocation field >= 8 */
        if (p->data_type != OSSL_PARAM_OCTET_STRING || p->data == NULL || p->data_size < TLS_FIXED_IV_LEN ||
            p->data_size + TLS_EXPLICIT_IV_LEN > c->ivlen) {
            RAISE_DATA(c->prov, R_BAD_IV_LENGTH, "%s of %zu bytes with an IV of %zu", OSSL_CIPHER_PARAM_AEAD_TLS1_IV_FIXED,
                       p->data_size, c->ivlen);
            return 0;
        }
        size_t fixed = p->data_size, rest = c->ivlen - fixed;
        if (c->enc) {
            /* a random start for the invocation field, as the default provider */
            unsigned char *e = NULL;
            size_t got = c_get_entropy != NULL && c->prov != NULL
                             ? c_get_entropy(c->prov->handle, &e, (int)(8 * rest), rest, rest)
                             : 0;
            if (got != rest || e == NULL) {
                if (e != NULL && c_cleanup_entropy != NULL)
                    c_cleanup_entropy(c->prov->handle, e, got);
                RAISE_DATA(c->prov, R_AESGEN_FAILURE, "no entropy from the core for the TLS invocation field");
                return 0;
            }
            memcpy(c->iv + fixed, e, rest);
            if (c_cleanup_entropy != NULL)
                c_cleanup_entropy(c->prov->handle, e, got);
        }
        memcpy(c->iv, p->data, fixed);
        c->iv_gen = 1;
        c->iv_state = GCM_IV_BUFFERED;
    }
    if ((p = OSSL_PARAM_locate_const(params, OSSL_CIPHER_PARAM_AEAD_TLS1_SET_IV_INV)) != NULL) {
        /* decryption: the peer's invocation field */
        if (p->data_type != OSSL_PARAM_OCTET_STRING || p->data == NULL || !c->iv_gen || c->key == NULL || c->enc ||
            p->data_size == 0 || p->data_size > c->ivlen) {
            RAISE_DATA(c->prov, R_BAD_PARAMETER, "%s: decryption after tlsivfixed only", OSSL_CIPHER_PARAM_AEAD_TLS1_SET_IV_INV);
            return 0;
        }
        memcpy(c->iv + c->ivlen - p->data_size, p->data, p->data_size);
        c->iv_state = GCM_IV_BUFFERED;
    }
    if ((p = OSSL_PARAM_locate_const(params, OSSL_CIPHER_PARAM_AEAD_IVLEN)) != NULL) {
        size_t n;
        if (!OSSL_PARAM_get_size_t(p, &n)) {
            RAISE_DATA(c->prov, R_BAD_PARAMETER, "%s", OSSL_CIPHER_PARAM_AEAD_IVLEN);
            return 0;
        }
        if (n == 0 || n > GCM_IV_MAX) {
            RAISE_DATA(c->prov, R_BAD_IV_LENGTH, "IV length %zu, GCM takes 1..%d", n, GCM_IV_MAX);
            return 0;
        }
        if (n != c->ivlen) { /* an IV (and a TLS fixed part) of the old length no longer applies */
            c->ivlen = n;
            c->iv_state = GCM_IV_NONE;
            c->iv_gen = 0;
        }
    }
    if ((p = OSSL_PARAM_locate_const(params, OSSL_CIPHER_PARAM_AEAD_TAG)) != NULL) {
        if (c->enc) {
            RAISE_DATA(c->prov, R_BAD_PARAMETER, "the tag is set only to decrypt");
            return 0;
        }
        if (p->data_type != OSSL_PARAM_OCTET_STRING || p->data == NULL) {
            RAISE_DATA(c->prov, R_BAD_PARAMETER, "%s: no tag bytes", OSSL_CIPHER_PARAM_AEAD_TAG);
            return 0;
        }
        if (!gcm_taglen_ok(p->data_size)) {
            RAISE_DATA(c->prov, R_BAD_TAG_LENGTH, "%zu (SP 800-38D: 4, 8, 12..16)", p->data_size);
            return 0;
        }
        memcpy(c->tag, p->data, p->data_size);
        c->taglen = p->data_size;
    }
    if ((p = OSSL_PARAM_locate_const(params, OSSL_CIPHER_PARAM_KEYLEN)) != NULL) {
        size_t kl;
        if (!OSSL_PARAM_get_size_t(p, &kl)) {
            RAISE_DATA(c->prov, R_BAD_PARAMETER, "%s", OSSL_CIPHER_PARAM_KEYLEN);
            return 0;
        }
        if (kl != c->keylen) {
            RAISE_DATA(c->prov, R_BAD_KEY_LENGTH, "key length %zu, this cipher takes %zu", kl, c->keylen);
            return 0;
        }
    }
    /* padding, tls-version, tls-mac-size and other unknown keys are ignored. */
    return 1;
}

static const OSSL_PARAM gcm_gettable[] = {
    OSSL_PARAM_size_t(OSSL_CIPHER_PARAM_KEYLEN, NULL),
    OSSL_PARAM_size_t(OSSL_CIPHER_PARAM_IVLEN, NULL),
    OSSL_PARAM_size_t(OSSL_CIPHER_PARAM_AEAD_TAGLEN, NULL),
    OSSL_PARAM_octet_string(OSSL_CIPHER_PARAM_IV, NULL, 0),
    OSSL_PARAM_octet_string(OSSL_CIPHER_PARAM_UPDATED_IV, NULL, 0),
    OSSL_PARAM_octet_string(OSSL_CIPHER_PARAM_AEAD_TAG, NULL, 0),
    OSSL_PARAM_size_t(OSSL_CIPHER_PARAM_AEAD_TLS1_AAD_PAD, NULL),
    OSSL_PARAM_octet_string(OSSL_CIPHER_PARAM_AEAD_TLS1_GET_IV_GEN, NULL, 0),
    OSSL_PARAM_END,
};

static const OSSL_PARAM *gcm_gettable_ctx_params(void *cctx, void *provctx)
{
    (void)cctx, (void)provctx;
    return gcm_gettable;
}

static const OSSL_PARAM gcm_settable[] = {
    OSSL_PARAM_size_t(OSSL_CIPHER_PARAM_AEAD_IVLEN, NULL),
    OSSL_PARAM_octet_string(OSSL_CIPHER_PARAM_AEAD_TAG, NULL, 0),
    OSSL_PARAM_size_t(OSSL_CIPHER_PARAM_KEYLEN, NULL),
    OSSL_PARAM_octet_string(OSSL_CIPHER_PARAM_AEAD_TLS1_AAD, NULL, 0),
    OSSL_PARAM_octet_string(OSSL_CIPHER_PARAM_AEAD_TLS1_IV_FIXED, NULL, 0),
    OSSL_PARAM_octet_string(OSSL_CIPHER_PARAM_AEAD_TLS1_SET_IV_INV, NULL, 0),
    OSSL_PARAM_END,
};

static const OSSL_PARAM *gcm_settable_ctx_params(void *cctx, void *provctx)
{
    (void)cctx, (void)provctx;
    return gcm_settable;
}

#define AESGEN_GCM(bits)                                                                         \
    static void *newctx_##bits##_gcm(void *provctx)                                              \
    {                                                                                            \
        return gcm_new(provctx, bits / 8);                                                       \
    }                                                                                            \
    static int get_params_##bits##_gcm(OSSL_PARAM params[])                                      \
    {                                                                                            \
        return gcm_get_params(params, bits / 8);                                                 \
    }                                                                                            \
    static const OSSL_DISPATCH fns_##bits##_gcm[] = {                                            \
        {OSSL_FUNC_CIPHER_NEWCTX, (void (*)(void))newctx_##bits##_gcm},                         \
        {OSSL_FUNC_CIPHER_FREECTX, (void (*)(void))gcm_free},                                    \
        {OSSL_FUNC_CIPHER_DUPCTX, (void (*)(void))gcm_dup},                                      \
        {OSSL_FUNC_CIPHER_ENCRYPT_INIT, (void (*)(void))gcm_encrypt_init},                       \
        {OSSL_FUNC_CIPHER_DECRYPT_INIT, (void (*)(void))gcm_decrypt_init},                       \
        {OSSL_FUNC_CIPHER_UPDATE, (void (*)(void))gcm_update},                                   \
        {OSSL_FUNC_CIPHER_FINAL, (void (*)(void))gcm_final},                                     \
        {OSSL_FUNC_CIPHER_CIPHER, (void (*)(void))gcm_cipher},                                   \
        {OSSL_FUNC_CIPHER_GET_PARAMS, (void (*)(void))get_params_##bits##_gcm},                  \
        {OSSL_FUNC_CIPHER_GETTABLE_PARAMS, (void (*)(void))gettable_params},                     \
        {OSSL_FUNC_CIPHER_GET_CTX_PARAMS, (void (*)(void))gcm_get_ctx_params},                   \
        {OSSL_FUNC_CIPHER_SET_CTX_PARAMS, (void (*)(void))gcm_set_ctx_params},                   \
        {OSSL_FUNC_CIPHER_GETTABLE_CTX_PARAMS, (void (*)(void))gcm_gettable_ctx_params},         \
        {OSSL_FUNC_CIPHER_SETTABLE_CTX_PARAMS, (void (*)(void))gcm_settable_ctx_params},         \
        {0, NULL}                                                                                \
    };

AESGEN_GCM(128)
AESGEN_GCM(192)
AESGEN_GCM(256)

/* ---- the algorithms ----------------------------------------------------------------- */

#define AESGEN_CIPHER(bits, lmode, umode)                                                        \
    static void *newctx_##bits##_##lmode(void *provctx)                                          \
    {                                                                                            \
        return ctx_new(provctx, M_##umode, bits / 8);                                            \
    }                                                                                            \
    static int get_params_##bits##_##lmode(OSSL_PARAM params[])                                  \
    {                                                                                            \
        return get_params_common(params, M_##umode, bits / 8);                                   \
    }                                                                                            \
    static const OSSL_DISPATCH fns_##bits##_##lmode[] = {                                        \
        {OSSL_FUNC_CIPHER_NEWCTX, (void (*)(void))newctx_##bits##_##lmode},                     \
        {OSSL_FUNC_CIPHER_FREECTX, (void (*)(void))ctx_free},                                    \
        {OSSL_FUNC_CIPHER_DUPCTX, (void (*)(void))ctx_dup},                                      \
        {OSSL_FUNC_CIPHER_ENCRYPT_INIT, (void (*)(void))encrypt_init},                           \
        {OSSL_FUNC_CIPHER_DECRYPT_INIT, (void (*)(void))decrypt_init},                           \
        {OSSL_FUNC_CIPHER_UPDATE, (void (*)(void))update},                                       \
        {OSSL_FUNC_CIPHER_FINAL, (void (*)(void))final},                                         \
        {OSSL_FUNC_CIPHER_CIPHER, (void (*)(void))cipher},                                       \
        {OSSL_FUNC_CIPHER_GET_PARAMS, (void (*)(void))get_params_##bits##_##lmode},              \
        {OSSL_FUNC_CIPHER_GETTABLE_PARAMS, (void (*)(void))gettable_params},                     \
        {OSSL_FUNC_CIPHER_GET_CTX_PARAMS, (void (*)(void))get_ctx_params},                       \
        {OSSL_FUNC_CIPHER_SET_CTX_PARAMS, (void (*)(void))set_ctx_params},                       \
        {OSSL_FUNC_CIPHER_GETTABLE_CTX_PARAMS, (void (*)(void))gettable_ctx_params},             \
        {OSSL_FUNC_CIPHER_SETTABLE_CTX_PARAMS, (void (*)(void))settable_ctx_params},             \
        {0, NULL} /* OpenSSL 3.0 has no OSSL_DISPATCH_END */                                     \
    };

AESGEN_CIPHER(128, ecb, ECB)
AESGEN_CIPHER(192, ecb, ECB)
AESGEN_CIPHER(256, ecb, ECB)
AESGEN_CIPHER(128, cbc, CBC)
AESGEN_CIPHER(192, cbc, CBC)
AESGEN_CIPHER(256, cbc, CBC)
AESGEN_CIPHER(128, ctr, CTR)
AESGEN_CIPHER(192, ctr, CTR)
AESGEN_CIPHER(256, ctr, CTR)

/* Names and aliases as the default provider registers them (openssl list -cipher-algorithms). */
static const OSSL_ALGORITHM ciphers[] = {
    {"AES-128-ECB:2.16.840.1.101.3.4.1.1", AESGEN_PROV_PROPS, fns_128_ecb, "aesgen AES-128-ECB"},
    {"AES-192-ECB:2.16.840.1.101.3.4.1.21", AESGEN_PROV_PROPS, fns_192_ecb, "aesgen AES-192-ECB"},
    {"AES-256-ECB:2.16.840.1.101.3.4.1.41", AESGEN_PROV_PROPS, fns_256_ecb, "aesgen AES-256-ECB"},
    {"AES-128-CBC:AES128:2.16.840.1.101.3.4.1.2", AESGEN_PROV_PROPS, fns_128_cbc, "aesgen AES-128-CBC"},
    {"AES-192-CBC:AES192:2.16.840.1.101.3.4.1.22", AESGEN_PROV_PROPS, fns_192_cbc, "aesgen AES-192-CBC"},
    {"AES-256-CBC:AES256:2.16.840.1.101.3.4.1.42", AESGEN_PROV_PROPS, fns_256_cbc, "aesgen AES-256-CBC"},
    {"AES-128-CTR", AESGEN_PROV_PROPS, fns_128_ctr, "aesgen AES-128-CTR"},
    {"AES-192-CTR", AESGEN_PROV_PROPS, fns_192_ctr, "aesgen AES-192-CTR"},
    {"AES-256-CTR", AESGEN_PROV_PROPS, fns_256_ctr, "aesgen AES-256-CTR"},
    {"AES-128-GCM:id-aes128-GCM:2.16.840.1.101.3.4.1.6", AESGEN_PROV_PROPS, fns_128_gcm, "aesgen AES-128-GCM"},
    {"AES-192-GCM:id-aes192-GCM:2.16.840.1.101.3.4.1.26", AESGEN_PROV_PROPS, fns_192_gcm, "aesgen AES-192-GCM"},
    {"AES-256-GCM:id-aes256-GCM:2.16.840.1.101.3.4.1.46", AESGEN_PROV_PROPS, fns_256_gcm, "aesgen AES-256-GCM"},
    {"AES-128-XTS:1.3.111.2.1619.0.1.1", AESGEN_PROV_PROPS, fns_128_xts, "aesgen AES-128-XTS"},
    {"AES-256-XTS:1.3.111.2.1619.0.1.2", AESGEN_PROV_PROPS, fns_256_xts, "aesgen AES-256-XTS"},
    {NULL, NULL, NULL, NULL},
};

/* ---- the provider ------------------------------------------------------------------- */

static const OSSL_ALGORITHM *query_operation(void *provctx, int operation_id, int *no_store)
{
    (void)provctx;
    *no_store = 0;
    return operation_id == OSSL_OP_CIPHER ? ciphers : NULL;
}

static const OSSL_PARAM prov_gettable[] = {
    OSSL_PARAM_utf8_ptr(OSSL_PROV_PARAM_NAME, NULL, 0),
    OSSL_PARAM_utf8_ptr(OSSL_PROV_PARAM_VERSION, NULL, 0),
    OSSL_PARAM_utf8_ptr(OSSL_PROV_PARAM_BUILDINFO, NULL, 0),
    OSSL_PARAM_int(OSSL_PROV_PARAM_STATUS, NULL),
    OSSL_PARAM_uint64("aesgen-calls", NULL),
    OSSL_PARAM_END,
};

static const OSSL_PARAM *prov_gettable_params(void *provctx)
{
    (void)provctx;
    return prov_gettable;
}

static int prov_get_params(void *provctx, OSSL_PARAM params[])
{
    prov_ctx *pc = provctx;
    OSSL_PARAM *p;
    if ((p = OSSL_PARAM_locate(params, OSSL_PROV_PARAM_NAME)) != NULL &&
        !OSSL_PARAM_set_utf8_ptr(p, "aesgen provider (libaesgen AES-ECB/CBC/CTR/XTS/GCM)"))
        return 0;
    if ((p = OSSL_PARAM_locate(params, OSSL_PROV_PARAM_VERSION)) != NULL &&
        !OSSL_PARAM_set_utf8_ptr(p, AESGEN_PROV_VERSION))
        return 0;
    if ((p = OSSL_PARAM_locate(params, OSSL_PROV_PARAM_BUILDINFO)) != NULL &&
        !OSSL_PARAM_set_utf8_ptr(p, aesgen_version_string()))
        return 0;
    if ((p = OSSL_PARAM_locate(params, OSSL_PROV_PARAM_STATUS)) != NULL && !OSSL_PARAM_set_int(p, 1))
        return 0;
    if ((p = OSSL_PARAM_locate(params, "aesgen-calls")) != NULL &&
        !OSSL_PARAM_set_uint64(p, atomic_load_explicit(&pc->calls, memory_order_relaxed)))
        return 0;
    return 1;
}

static const OSSL_ITEM *get_reason_strings(void *provctx)
{
    (void)provctx;
    return reason_strings;
}

static void teardown(void *provctx)
{
    OPENSSL_free(provctx);
}

static const OSSL_DISPATCH provider_fns[] = {
    {OSSL_FUNC_PROVIDER_TEARDOWN, (void (*)(void))teardown},
    {OSSL_FUNC_PROVIDER_GETTABLE_PARAMS, (void (*)(void))prov_gettable_params},
    {OSSL_FUNC_PROVIDER_GET_PARAMS, (void (*)(void))prov_get_params},
    {OSSL_FUNC_PROVIDER_QUERY_OPERATION, (void (*)(void))query_operation},
    {OSSL_FUNC_PROVIDER_GET_REASON_STRINGS, (void (*)(void))get_reason_strings},
    {0, NULL},
};

__attribute__((visibility("default"))) int OSSL_provider_init(const OSSL_CORE_HANDLE *handle,
                                                               const OSSL_DISPATCH *in,
                                                               const OSSL_DISPATCH **out, void **provctx)
{
    for (; in->function_id != 0; in++) {
        switch (in->function_id) {
        case OSSL_FUNC_CORE_NEW_ERROR:
            c_new_error = OSSL_FUNC_core_new_error(in);
            break;
        case OSSL_FUNC_CORE_SET_ERROR_DEBUG:
            c_set_error_debug = OSSL_FUNC_core_set_error_debug(in);
            break;
        case OSSL_FUNC_CORE_VSET_ERROR:
            c_vset_error = OSSL_FUNC_core_vset_error(in);
            break;
        case OSSL_FUNC_GET_ENTROPY:
            c_get_entropy = OSSL_FUNC_get_entropy(in);
            break;
        case OSSL_FUNC_CLEANUP_ENTROPY:
            c_cleanup_entropy = OSSL_FUNC_cleanup_entropy(in);
            break;
        default:
            break;
        }
    }
    prov_ctx *pc = OPENSSL_zalloc(sizeof(*pc));
    if (pc == NULL)
        return 0;
    pc->handle = handle;
    atomic_init(&pc->calls, 0);
    *provctx = pc;
    *out = provider_fns;
    return 1;
}
