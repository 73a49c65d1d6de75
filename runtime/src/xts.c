/*
 * xts.c -- AES-XTS (IEEE 1619-2007, NIST SP 800-38E) over generated AES variants: the
 * data through the encryption or decryption variant's ECB loop, the tweak through the
 * encryption variant.
 *
 * Per data unit: T = E_K2(tweak); block j is whitened with T * alpha^j in GF(2^128)
 * (little-endian bytes, feedback 0x87) before and after E_K1 or D_K1. A variant with
 * an XTS loop (every hardware backend's) takes the unit's whole blocks in one call. For
 * the others the tweaks are doubled here, in 64-bit words with the carry turned into a
 * mask, never a branch (they are secret: they come from K2); a chunk of blocks is
 * whitened into the output buffer, goes through the variant's ECB loop in one call, in
 * place, and is whitened again. A final partial block uses ciphertext stealing;
 * decryption takes the last two tweaks in swapped order. The many-sector call encrypts a group of sector tweaks in
 * one ECB call, then runs the group through the variant's units loop in one call where it
 * has one (the x86-64 VAES loops with 32 registers, units a whole number of its
 * iterations), else the units one after another.
 */
#include <stdint.h>
#include <string.h>

#include "aesgen_bytes.h"
#include "aesgen_internal.h"
#include "dispatch.h"

#define KEY_MAGIC 0x78747366u /* "xtsf" */
#define STATE_BYTES 64
#define MAX_UNIT_BYTES ((size_t)1 << 24) /* 2^20 blocks (IEEE 1619) */
#define CHUNK_BLOCKS 64                  /* blocks per ECB call */
#define SECTOR_GROUP 64                  /* sector tweaks per ECB call */

typedef struct key_state {
    uint32_t magic;
    uint32_t key_bits;
    const aesgen_variant *enc; /* E_K1 for the data, E_K2 for the tweak */
    const aesgen_variant *dec; /* D_K1 */
} key_state;

_Static_assert(sizeof(key_state) <= STATE_BYTES, "XTS key state too large");
_Static_assert(STATE_BYTES + 3 * AESGEN_MAX_SCHEDULE_BYTES <= AESGEN_XTS_KEY_BYTES,
               "aesgen_xts_key too small for three schedules");

enum { RK_DATA_ENC, RK_DATA_DEC, RK_TWEAK };

static const key_state *kstate(const aesgen_xts_key *key)
{
    return (const key_state *)(const void *)key->opaque;
}

static void *schedule_at(aesgen_xts_key *key, int which)
{
    return (unsigned char *)key->opaque + STATE_BYTES + (size_t)which * AESGEN_MAX_SCHEDULE_BYTES;
}

static const void *schedule(const aesgen_xts_key *key, int which)
{
    return (const unsigned char *)key->opaque + STATE_BYTES + (size_t)which * AESGEN_MAX_SCHEDULE_BYTES;
}

static int key_ready(const aesgen_xts_key *key)
{
    if (key == NULL)
        return AESGEN_ERR_NULL;
    const key_state *st = kstate(key);
    return st->magic == KEY_MAGIC && st->enc != NULL && st->dec != NULL ? AESGEN_OK : AESGEN_ERR_CONTEXT;
}

void aesgen_xts_wipe(aesgen_xts_key *key)
{
    if (key != NULL)
        aesgen_memwipe(key, sizeof *key);
}

int aesgen_xts_init_variants(aesgen_xts_key *key, const uint8_t *k, size_t key_len, const aesgen_variant *enc,
                             const aesgen_variant *dec)
{
    if (key == NULL || k == NULL)
        return AESGEN_ERR_NULL;
    if (key_len != 32 && key_len != 64)
        return AESGEN_ERR_KEY_LENGTH;
    const size_t half = key_len / 2;
    const unsigned key_bits = (unsigned)half * 8;
    if (enc == NULL || dec == NULL) {
        if (aesgen_dispatch_status() != AESGEN_OK)
            return AESGEN_ERR_BACKEND;
        if (enc == NULL)
            enc = aesgen_pick_variant(key_bits, AESGEN_ENCRYPT, aesgen_active_backend());
        if (dec == NULL)
            dec = aesgen_pick_variant(key_bits, AESGEN_DECRYPT, aesgen_active_backend());
    }
    if (enc == NULL || dec == NULL || enc->key_bits != key_bits || dec->key_bits != key_bits ||
        enc->direction != AESGEN_ENCRYPT || dec->direction != AESGEN_DECRYPT || !aesgen_variant_usable(enc) ||
        !aesgen_variant_usable(dec) || enc->schedule_bytes > AESGEN_MAX_SCHEDULE_BYTES ||
        dec->schedule_bytes > AESGEN_MAX_SCHEDULE_BYTES)
        return AESGEN_ERR_BACKEND;
    if (!aesgen_differs_public(k, k + half, half)) /* constant time */
        return AESGEN_ERR_WEAK_KEY;

    aesgen_xts_wipe(key);
    enc->setkey(schedule_at(key, RK_DATA_ENC), k);
    dec->setkey(schedule_at(key, RK_DATA_DEC), k);
    enc->setkey(schedule_at(key, RK_TWEAK), k + half);
    key_state *st = (key_state *)(void *)key->opaque;
    st->key_bits = key_bits;
    st->enc = enc;
    st->dec = dec;
    st->magic = KEY_MAGIC;
    return AESGEN_OK;
}

int aesgen_xts_init(aesgen_xts_key *key, const uint8_t *k, size_t key_len)
{
    return aesgen_xts_init_variants(key, k, key_len, NULL, NULL);
}

const char *aesgen_xts_variant(const aesgen_xts_key *key, aesgen_direction dir)
{
    if (key_ready(key) != AESGEN_OK)
        return NULL;
    return dir == AESGEN_DECRYPT ? kstate(key)->dec->name : kstate(key)->enc->name;
}

/* ------------------------------------------------------------------------ */
/* One data unit                                                              */

/* A tweak as two little-endian 64-bit words. */
typedef struct tweak {
    uint64_t lo, hi;
} tweak;

static tweak tweak_load(const uint8_t b[16])
{
    return (tweak){aesgen_load_le64(b), aesgen_load_le64(b + 8)};
}

static void tweak_store(uint8_t b[16], tweak t)
{
    aesgen_store_le64(b, t.lo);
    aesgen_store_le64(b + 8, t.hi);
}

/* t * alpha: a left shift of the 128-bit little-endian number, the bit shifted out
 * folded back as 0x87 through a mask. */
static tweak times_alpha(tweak t)
{
    const uint64_t feedback = (0 - (t.hi >> 63)) & 0x87;
    return (tweak){t.lo << 1 ^ feedback, t.hi << 1 | t.lo >> 63};
}

/* t * alpha^2, for two interleaved chains (even and odd blocks): the two bits shifted
 * out fold back as 0x87 and 0x87 * x = 0x10e, each through a mask. */
static tweak times_alpha2(tweak t)
{
    const uint64_t c = t.hi >> 62;
    const uint64_t feedback = ((0 - (c & 1)) & 0x87) ^ ((0 - (c >> 1)) & 0x10e);
    return (tweak){t.lo << 2 ^ feedback, t.hi << 2 | t.lo >> 62};
}

/* One block: its tweak into tw, out = in ^ tweak. */
static void whiten_block(uint8_t *out, const uint8_t *in, uint8_t *tw, tweak t)
{
    tweak_store(tw, t);
    aesgen_store_le64(out, aesgen_load_le64(in) ^ t.lo);
    aesgen_store_le64(out + 8, aesgen_load_le64(in + 8) ^ t.hi);
}

/* The tweaks of n blocks from t into tw, out = in ^ tweak; returns the tweak after them.
 * Two chains stepping by alpha^2, so consecutive doublings do not wait on each other. */
static tweak whiten_first(uint8_t *out, const uint8_t *in, uint8_t *tw, size_t n, tweak t)
{
    tweak even = t, odd = times_alpha(t);
    size_t i = 0;
    for (; i + 2 <= n; i += 2) {
        whiten_block(out + 16 * i, in + 16 * i, tw + 16 * i, even);
        whiten_block(out + 16 * i + 16, in + 16 * i + 16, tw + 16 * i + 16, odd);
        even = times_alpha2(even);
        odd = times_alpha2(odd);
    }
    if (i == n)
        return even;
    whiten_block(out + 16 * i, in + 16 * i, tw + 16 * i, even);
    return odd;
}

/* data ^= tw over n blocks, in native 64-bit words (XOR needs no byte order); the
 * buffers never overlap (tw is a local), so the compiler may use vectors. */
static void whiten_again(uint8_t *restrict data, const uint8_t *restrict tw, size_t n)
{
    for (size_t i = 0; i < 16 * n; i += 8) {
        uint64_t a, b;
        memcpy(&a, data + i, 8);
        memcpy(&b, tw + i, 8);
        a ^= b;
        memcpy(data + i, &a, 8);
    }
}

/* Whether the variant's XTS loop takes these buffers: it has one, and they have the
 * alignment it needs (the SPARC loops move 8 bytes at a time); the tweak buffers here
 * are aligned for every variant. */
static int loop_takes(const aesgen_variant *v, const void *out, const void *in)
{
    return v->xts != NULL && (v->align == 0 || ((uintptr_t)out | (uintptr_t)in) % v->align == 0);
}

/* Whether the variant's units loop takes these sectors: it has one, each unit is a whole
 * number of its iterations (no stealing), and the loop would take the buffers. */
static int units_take(const aesgen_variant *v, size_t unit_len, const void *out, const void *in)
{
    return v->xts_units != NULL && unit_len % (16 * (size_t)v->xts_units_blocks) == 0 && loop_takes(v, out, in);
}

/* One block: out = E or D (in ^ t) ^ t. */
static void one_block(const aesgen_variant *v, const void *rk, uint8_t out[16], const uint8_t in[16], tweak t)
{
    _Alignas(16) uint8_t tb[16], b[16];
    if (loop_takes(v, b, in)) {
        tweak_store(tb, t);
        v->xts(rk, b, in, 1, tb);
    } else {
        whiten_first(b, in, tb, 1, t);
        aesgen_variant_ecb(v, rk, b, b, 1);
        whiten_again(b, tb, 1);
    }
    memcpy(out, b, 16);
    aesgen_wipe16(tb);
    aesgen_wipe16(b);
}

/* A data unit of len >= 16 bytes whose encrypted tweak is in et[] (as the tweak's ECB
 * call left it: the loop reads it from there, no copy in between; it is left advanced). */
static void unit(const aesgen_xts_key *key, aesgen_direction dir, uint8_t et[16], uint8_t *out, const uint8_t *in,
                 size_t len)
{
    const aesgen_variant *v = dir == AESGEN_ENCRYPT ? kstate(key)->enc : kstate(key)->dec;
    const void *rk = schedule(key, dir == AESGEN_ENCRYPT ? RK_DATA_ENC : RK_DATA_DEC);
    const size_t tail = len % 16;
    const size_t whole = len / 16 - (tail != 0); /* the last whole block goes with a stolen tail */
    _Alignas(16) uint8_t tw[16 * CHUNK_BLOCKS];
    size_t used = 0, done = 0;
    if (whole > 0 && loop_takes(v, out, in)) { /* the variant's own XTS loop */
        v->xts(rk, out, in, whole, et);
        done = whole;
    }
    tweak t = tweak_load(et);
    while (done < whole) {
        const size_t n = whole - done < CHUNK_BLOCKS ? whole - done : CHUNK_BLOCKS;
        used = n > used ? n : used;
        uint8_t *o = out + 16 * done;
        t = whiten_first(o, in + 16 * done, tw, n, t);
        aesgen_variant_ecb(v, rk, o, o, n);
        whiten_again(o, tw, n);
        done += n;
    }
    if (used != 0)
        aesgen_memwipe(tw, 16 * used);
    if (tail == 0)
        return;
    /* Ciphertext stealing over the last whole block (at b) and the tail after it. The
     * tweaks of the two: t (block m-1) and t * alpha (block m); decryption takes them
     * in swapped order. The tail's input is read before anything is written. */
    const uint8_t *bin = in + 16 * whole;
    uint8_t *bout = out + 16 * whole;
    const tweak first = dir == AESGEN_ENCRYPT ? t : times_alpha(t);
    const tweak second = dir == AESGEN_ENCRYPT ? times_alpha(t) : t;
    _Alignas(16) uint8_t head[16], last[16];
    one_block(v, rk, head, bin, first);   /* its first `tail` bytes become the tail's output */
    memcpy(last, bin + 16, tail);         /* the tail, padded with the stolen bytes */
    memcpy(last + tail, head + tail, 16 - tail);
    one_block(v, rk, last, last, second);
    memcpy(bout + 16, head, tail);
    memcpy(bout, last, 16);
    aesgen_wipe16(head);
    aesgen_wipe16(last);
}

static int check_unit(const aesgen_xts_key *key, const uint8_t *tweak_in, const uint8_t *out, const uint8_t *in,
                      size_t len)
{
    int rc = key_ready(key);
    if (rc != AESGEN_OK)
        return rc;
    if (tweak_in == NULL)
        return AESGEN_ERR_NULL;
    if (len < 16 || len > MAX_UNIT_BYTES)
        return AESGEN_ERR_LENGTH;
    return aesgen_check_buffers(out, in, len);
}

static int crypt_unit(const aesgen_xts_key *key, aesgen_direction dir, const uint8_t tweak_in[16], uint8_t *out,
                      const uint8_t *in, size_t len)
{
    const int rc = check_unit(key, tweak_in, out, in, len);
    if (rc != AESGEN_OK)
        return rc;
    _Alignas(16) uint8_t t[16];
    aesgen_variant_ecb(kstate(key)->enc, schedule(key, RK_TWEAK), t, tweak_in, 1);
    unit(key, dir, t, out, in, len);
    aesgen_wipe16(t);
    return AESGEN_OK;
}

int aesgen_xts_encrypt(const aesgen_xts_key *key, const uint8_t tweak[16], uint8_t *out, const uint8_t *in,
                       size_t len)
{
    return crypt_unit(key, AESGEN_ENCRYPT, tweak, out, in, len);
}

int aesgen_xts_decrypt(const aesgen_xts_key *key, const uint8_t tweak[16], uint8_t *out, const uint8_t *in,
                       size_t len)
{
    return crypt_unit(key, AESGEN_DECRYPT, tweak, out, in, len);
}

/* ------------------------------------------------------------------------ */
/* Many sectors                                                               */

static int crypt_sectors(const aesgen_xts_key *key, aesgen_direction dir, uint64_t sector, size_t unit_len,
                         size_t count, uint8_t *out, const uint8_t *in)
{
    int rc = key_ready(key);
    if (rc != AESGEN_OK)
        return rc;
    if (count == 0)
        return AESGEN_OK;
    if (unit_len < 16 || unit_len > MAX_UNIT_BYTES || count > SIZE_MAX / unit_len ||
        (uint64_t)(count - 1) > UINT64_MAX - sector)
        return AESGEN_ERR_LENGTH;
    rc = aesgen_check_buffers(out, in, count * unit_len);
    if (rc != AESGEN_OK)
        return rc;
    const aesgen_variant *v = dir == AESGEN_ENCRYPT ? kstate(key)->enc : kstate(key)->dec;
    const void *rk = schedule(key, dir == AESGEN_ENCRYPT ? RK_DATA_ENC : RK_DATA_DEC);
    _Alignas(16) uint8_t t[16 * SECTOR_GROUP]; /* also the loops' tweak buffers: aligned for every one */
    size_t used = 0;
    for (size_t done = 0; done < count;) {
        const size_t n = count - done < SECTOR_GROUP ? count - done : SECTOR_GROUP;
        for (size_t i = 0; i < n; i++) { /* plain64: the sector number, little-endian */
            aesgen_store_le64(t + 16 * i, sector + done + i);
            aesgen_store_le64(t + 16 * i + 8, 0);
        }
        used = n > used ? n : used;
        aesgen_variant_ecb(kstate(key)->enc, schedule(key, RK_TWEAK), t, t, n);
        uint8_t *dst = out + done * unit_len;
        const uint8_t *src = in + done * unit_len;
        if (units_take(v, unit_len, dst, src)) /* the group in one call of the units loop */
            v->xts_units(rk, dst, src, unit_len / 16, t, n);
        else
            for (size_t i = 0; i < n; i++)
                unit(key, dir, t + 16 * i, dst + i * unit_len, src + i * unit_len, unit_len);
        done += n;
    }
    aesgen_memwipe(t, 16 * used);
    return AESGEN_OK;
}

int aesgen_xts_encrypt_sectors(const aesgen_xts_key *key, uint64_t sector, size_t unit_len, size_t count,
                               uint8_t *out, const uint8_t *in)
{
    return crypt_sectors(key, AESGEN_ENCRYPT, sector, unit_len, count, out, in);
}

int aesgen_xts_decrypt_sectors(const aesgen_xts_key *key, uint64_t sector, size_t unit_len, size_t count,
                               uint8_t *out, const uint8_t *in)
{
    return crypt_sectors(key, AESGEN_DECRYPT, sector, unit_len, count, out, in);
}
