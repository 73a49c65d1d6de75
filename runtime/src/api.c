/*
 * api.c -- the public API: argument checks, context layout, byte-level CTR.
 *
 * Every check happens before the first write, so a failing call changes
 * nothing. Variants only ever see whole blocks and valid arguments.
 */
#include <stdint.h>
#include <string.h>

#include "aesgen_bytes.h"
#include "aesgen_internal.h"
#include "dispatch.h"

#define CTX_MAGIC 0x61657367u /* "aesg" */
#define CTR_MAGIC 0x63747221u /* "ctr!" */
#define STATE_BYTES 128

/* Context layout: state, then the encryption and decryption schedules. */
typedef struct ctx_state {
    uint32_t magic;
    uint32_t key_bits;
    const aesgen_variant *enc;
    const aesgen_variant *dec;
} ctx_state;

_Static_assert(sizeof(ctx_state) <= STATE_BYTES, "context state too large");
_Static_assert(STATE_BYTES + 2 * AESGEN_MAX_SCHEDULE_BYTES <= AESGEN_CTX_BYTES,
               "aesgen_ctx cannot hold two schedules");
/* In a 64-byte-aligned context each schedule starts a cache line; in any
 * context it is as aligned as the context (8 bytes at least). */
_Static_assert(STATE_BYTES % 64 == 0 && AESGEN_MAX_SCHEDULE_BYTES % 64 == 0,
               "schedules start at a multiple of 64 bytes into the context");

static ctx_state *state_of(aesgen_ctx *ctx)
{
    return (ctx_state *)(void *)ctx->opaque;
}

static const ctx_state *cstate_of(const aesgen_ctx *ctx)
{
    return (const ctx_state *)(const void *)ctx->opaque;
}

static void *schedule_of(aesgen_ctx *ctx, int direction)
{
    return (unsigned char *)ctx->opaque + STATE_BYTES + (size_t)direction * AESGEN_MAX_SCHEDULE_BYTES;
}

static const void *cschedule_of(const aesgen_ctx *ctx, int direction)
{
    return (const unsigned char *)ctx->opaque + STATE_BYTES + (size_t)direction * AESGEN_MAX_SCHEDULE_BYTES;
}

void aesgen_memwipe(void *p, size_t len)
{
    if (p == NULL || len == 0)
        return;
    memset(p, 0, len);
#if defined(__GNUC__)
    /* The compiler must assume the asm reads the zeroed memory. */
    __asm__ __volatile__("" : : "r"(p) : "memory");
#else
    volatile unsigned char *v = (volatile unsigned char *)p;
    for (size_t i = 0; i < len; i++)
        v[i] = 0;
#endif
}

void aesgen_wipe(aesgen_ctx *ctx)
{
    if (ctx != NULL)
        aesgen_memwipe(ctx, sizeof *ctx);
}

void aesgen_ctr_wipe(aesgen_ctr *ctr)
{
    if (ctr != NULL)
        aesgen_memwipe(ctr, sizeof *ctr);
}

static int check_variant(const aesgen_variant *v, unsigned key_bits, int direction)
{
    if (v->key_bits != key_bits || v->direction != direction || !aesgen_variant_usable(v) ||
        v->schedule_bytes > AESGEN_MAX_SCHEDULE_BYTES || (direction == AESGEN_ENCRYPT && v->ctr == NULL))
        return AESGEN_ERR_BACKEND;
    return AESGEN_OK;
}

int aesgen_init_variants(aesgen_ctx *ctx, const uint8_t *key, size_t key_len,
                         const aesgen_variant *enc, const aesgen_variant *dec)
{
    if (ctx == NULL || key == NULL)
        return AESGEN_ERR_NULL;
    if (key_len != 16 && key_len != 24 && key_len != 32)
        return AESGEN_ERR_KEY_LENGTH;
    const unsigned key_bits = (unsigned)key_len * 8;
    if ((enc == NULL || dec == NULL) && aesgen_dispatch_status() != AESGEN_OK)
        return AESGEN_ERR_BACKEND;
    /* One reading of the forced backend for both directions: a concurrent
     * aesgen_force_backend must not give a context two backends. */
    const char *backend = enc == NULL || dec == NULL ? aesgen_active_backend() : NULL;
    if (enc == NULL)
        enc = aesgen_pick_variant(key_bits, AESGEN_ENCRYPT, backend);
    if (dec == NULL)
        dec = aesgen_pick_variant(key_bits, AESGEN_DECRYPT, backend);
    if (enc == NULL || dec == NULL || check_variant(enc, key_bits, AESGEN_ENCRYPT) != AESGEN_OK ||
        check_variant(dec, key_bits, AESGEN_DECRYPT) != AESGEN_OK)
        return AESGEN_ERR_BACKEND;

    aesgen_wipe(ctx);
    enc->setkey(schedule_of(ctx, AESGEN_ENCRYPT), key);
    dec->setkey(schedule_of(ctx, AESGEN_DECRYPT), key);
    ctx_state *st = state_of(ctx);
    st->key_bits = key_bits;
    st->enc = enc;
    st->dec = dec;
    st->magic = CTX_MAGIC;
    return AESGEN_OK;
}

int aesgen_init(aesgen_ctx *ctx, const uint8_t *key, size_t key_len)
{
    return aesgen_init_variants(ctx, key, key_len, NULL, NULL);
}

static int ctx_ready(const aesgen_ctx *ctx)
{
    if (ctx == NULL)
        return AESGEN_ERR_NULL;
    const ctx_state *st = cstate_of(ctx);
    if (st->magic != CTX_MAGIC || st->enc == NULL || st->dec == NULL)
        return AESGEN_ERR_CONTEXT;
    return AESGEN_OK;
}

int aesgen_ctx_cipher(const aesgen_ctx *ctx, int direction, const aesgen_variant **v, const void **rk)
{
    const int rc = ctx_ready(ctx);
    if (rc != AESGEN_OK)
        return rc;
    *v = direction == AESGEN_ENCRYPT ? cstate_of(ctx)->enc : cstate_of(ctx)->dec;
    *rk = cschedule_of(ctx, direction);
    return AESGEN_OK;
}

static int check_blocks(const aesgen_ctx *ctx, uint8_t *out, const uint8_t *in, size_t len)
{
    int rc = ctx_ready(ctx);
    if (rc != AESGEN_OK)
        return rc;
    rc = aesgen_check_buffers(out, in, len);
    if (rc != AESGEN_OK)
        return rc;
    return len % AESGEN_BLOCK_SIZE == 0 ? AESGEN_OK : AESGEN_ERR_LENGTH;
}

int aesgen_ecb_encrypt(const aesgen_ctx *ctx, uint8_t *out, const uint8_t *in, size_t len)
{
    int rc = check_blocks(ctx, out, in, len);
    if (rc == AESGEN_OK && len != 0)
        aesgen_variant_ecb(cstate_of(ctx)->enc, cschedule_of(ctx, AESGEN_ENCRYPT), out, in, len / 16);
    return rc;
}

int aesgen_ecb_decrypt(const aesgen_ctx *ctx, uint8_t *out, const uint8_t *in, size_t len)
{
    int rc = check_blocks(ctx, out, in, len);
    if (rc == AESGEN_OK && len != 0)
        aesgen_variant_ecb(cstate_of(ctx)->dec, cschedule_of(ctx, AESGEN_DECRYPT), out, in, len / 16);
    return rc;
}

static int cbc(const aesgen_ctx *ctx, int direction, uint8_t iv[16], uint8_t *out,
               const uint8_t *in, size_t len)
{
    int rc = check_blocks(ctx, out, in, len);
    if (rc != AESGEN_OK)
        return rc;
    if (iv == NULL)
        return AESGEN_ERR_NULL;
    if (len != 0) {
        const aesgen_variant *v = direction == AESGEN_ENCRYPT ? cstate_of(ctx)->enc : cstate_of(ctx)->dec;
        aesgen_variant_cbc(v, cschedule_of(ctx, direction), out, in, len / 16, iv);
    }
    return AESGEN_OK;
}

int aesgen_cbc_encrypt(const aesgen_ctx *ctx, uint8_t iv[16], uint8_t *out, const uint8_t *in, size_t len)
{
    return cbc(ctx, AESGEN_ENCRYPT, iv, out, in, len);
}

int aesgen_cbc_decrypt(const aesgen_ctx *ctx, uint8_t iv[16], uint8_t *out, const uint8_t *in, size_t len)
{
    return cbc(ctx, AESGEN_DECRYPT, iv, out, in, len);
}

int aesgen_ctr_init(aesgen_ctr *ctr, const uint8_t counter[16])
{
    if (ctr == NULL || counter == NULL)
        return AESGEN_ERR_NULL;
    memcpy(ctr->counter, counter, 16);
    memset(ctr->keystream, 0, sizeof ctr->keystream);
    ctr->used = 16;
    ctr->magic = CTR_MAGIC;
    return AESGEN_OK;
}

/* Any length: the rest of the previous call's keystream block first, then whole
 * blocks, then a last partial block whose keystream is kept for the next call. */
static AESGEN_NOINLINE void ctr_bytes(const aesgen_variant *v, const void *rk, aesgen_ctr *ctr, uint8_t *out,
                                      const uint8_t *in, size_t len)
{
    while (len != 0 && ctr->used < 16) {
        *out++ = *in++ ^ ctr->keystream[ctr->used++];
        len--;
    }
    if (len >= 16) {
        aesgen_variant_ctr(v, rk, out, in, len / 16, ctr->counter);
        out += len & ~(size_t)15;
        in += len & ~(size_t)15;
        len &= 15;
    }
    if (len != 0) {
        static const uint8_t zero[16];
        aesgen_variant_ctr(v, rk, ctr->keystream, zero, 1, ctr->counter);
        for (ctr->used = 0; ctr->used < len; ctr->used++)
            out[ctr->used] = in[ctr->used] ^ ctr->keystream[ctr->used];
    }
}

int aesgen_ctr_crypt(const aesgen_ctx *ctx, aesgen_ctr *ctr, uint8_t *out, const uint8_t *in, size_t len)
{
    int rc = ctx_ready(ctx);
    if (rc != AESGEN_OK)
        return rc;
    if (ctr == NULL)
        return AESGEN_ERR_NULL;
    if (ctr->magic != CTR_MAGIC || ctr->used > 16)
        return AESGEN_ERR_CONTEXT;
    rc = aesgen_check_buffers(out, in, len);
    if (rc != AESGEN_OK || len == 0)
        return rc;

    const aesgen_variant *v = cstate_of(ctx)->enc;
    const void *rk = cschedule_of(ctx, AESGEN_ENCRYPT);
    /* whole blocks on a block boundary: packets, and every call of a whole-block
     * stream; kept free of the byte handling so that short messages stay cheap */
    if (ctr->used == 16 && len % 16 == 0)
        aesgen_variant_ctr(v, rk, out, in, len / 16, ctr->counter);
    else
        ctr_bytes(v, rk, ctr, out, in, len);
    return AESGEN_OK;
}

const char *aesgen_ctx_variant(const aesgen_ctx *ctx, aesgen_direction dir)
{
    if (ctx_ready(ctx) != AESGEN_OK)
        return NULL;
    if (dir == AESGEN_ENCRYPT)
        return cstate_of(ctx)->enc->name;
    if (dir == AESGEN_DECRYPT)
        return cstate_of(ctx)->dec->name;
    return NULL;
}

/* Whether a and b differ: an OR of XORs, then the one-bit verdict made public (a GCM tag
 * check, the XTS halves check: the API answers it). */
int aesgen_differs_public(const uint8_t *a, const uint8_t *b, size_t n)
{
    /* 8 bytes at a time, then bytes: the loop bounds depend on n alone (public) */
    uint64_t d = 0;
    size_t i = 0;
    for (; i + 8 <= n; i += 8)
        d |= aesgen_load_le64(a + i) ^ aesgen_load_le64(b + i);
    for (; i < n; i++)
        d |= (uint64_t)(a[i] ^ b[i]);
    d |= d >> 32;
    d = (d & 0xffffffffu) + 0xffffffffu; /* bit 32 set when d != 0, without a branch */
    int differs = (int)(d >> 32);
    aesgen_declassify(&differs, sizeof differs);
    return differs;
}

#if defined(__GNUC__) || defined(__clang__)
__attribute__((weak))
#endif
void aesgen_declassify(const void *p, size_t len)
{
    (void)p;
    (void)len;
}

const char *aesgen_status_string(int status)
{
    switch (status) {
    case AESGEN_OK:
        return "success";
    case AESGEN_ERR_NULL:
        return "a required pointer is NULL";
    case AESGEN_ERR_KEY_LENGTH:
        return "key length must be 16, 24 or 32 bytes (XTS: 32 or 64)";
    case AESGEN_ERR_LENGTH:
        return "length out of range for the mode (ECB/CBC: a multiple of 16; XTS: 16 to 2^24 per unit; "
               "CBC streams: at most 256 messages), or the buffer does not fit in memory";
    case AESGEN_ERR_OVERLAP:
        return "input and output overlap without being the same buffer";
    case AESGEN_ERR_CONTEXT:
        return "context or stream is not initialised";
    case AESGEN_ERR_BACKEND:
        return "backend unknown or not supported on this CPU";
    case AESGEN_ERR_AUTH:
        return "the tag does not authenticate the message";
    case AESGEN_ERR_STATE:
        return "call out of order for this GCM stream";
    case AESGEN_ERR_WEAK_KEY:
        return "the two halves of the XTS key are equal";
    default:
        return "unknown status code";
    }
}

#define AESGEN_STR2(x) #x
#define AESGEN_STR(x) AESGEN_STR2(x)

const char *aesgen_version_string(void)
{
    return AESGEN_STR(AESGEN_VERSION_MAJOR) "." AESGEN_STR(AESGEN_VERSION_MINOR) "." AESGEN_STR(AESGEN_VERSION_PATCH);
}
