/*
 * gcm.c -- AES-GCM (NIST SP 800-38D) from an AES encryption variant (its CTR loop)
 * and a GHASH variant, both generated and chosen by dispatch.
 *
 * The counter of GCM is inc32: only its low 32 bits count, wrapping without a
 * carry. With a 12-byte IV the counter is IV || 2.. and public, and never wraps
 * within the longest message, so the variant's CTR loop serves it.
 * With any other IV the counter comes from GHASH under the key and is secret: its
 * blocks are built in memory and ECB-encrypted, with no branch on their value.
 * The hash covers the AAD and the ciphertext, each zero-padded to whole blocks,
 * then their bit lengths; the tag is that hash XOR E_K(J0). Every check happens
 * before the first write.
 */
#include <stdint.h>
#include <string.h>

#include "aesgen_bytes.h"
#include "aesgen_internal.h"
#include "dispatch.h"

#define KEY_MAGIC 0x67636d6bu    /* "gcmk" */
#define STREAM_MAGIC 0x67636d73u /* "gcms" */
#define STATE_BYTES 64
#define MAX_TABLE_BYTES (AESGEN_GCM_KEY_BYTES - STATE_BYTES - AESGEN_MAX_SCHEDULE_BYTES)
#define MAX_TEXT_BYTES ((UINT64_C(1) << 36) - 32) /* 2^39 - 256 bits */
#define MAX_AAD_BYTES ((UINT64_C(1) << 61) - 1)
#define MAX_STITCH_BLOCKS 32 /* longest chunk of a stitched loop the one-shot seal stages the rest of */

typedef struct key_state {
    uint32_t magic;
    uint32_t key_bits;
    const aesgen_variant *aes;
    const aesgen_ghash_variant *ghash;
    uint32_t stitched; /* the AES variant's GCM functions read this GHASH variant's table */
} key_state;

_Static_assert(sizeof(key_state) <= STATE_BYTES, "GCM key state too large");
_Static_assert(MAX_TABLE_BYTES >= 24 * 32, "room for 32 powers of H and their packed Karatsuba half sums");

enum { PHASE_AAD, PHASE_TEXT, PHASE_DONE };

typedef struct stream_state {
    const aesgen_gcm_key *key;
    uint8_t y[16];        /* the GHASH accumulator */
    uint8_t counter[16];  /* the next counter block */
    uint8_t ek0[16];      /* E_K(J0), for the tag */
    uint8_t ks[16];       /* keystream of the current partial block */
    uint8_t pend[16];     /* bytes of a partial block waiting for GHASH */
    uint64_t aad_bytes, text_bytes;
    uint32_t ks_used;     /* keystream bytes used (16: none left) */
    uint32_t pend_used;
    uint32_t phase, dir, magic;
    uint32_t secret_counter; /* J0 came from GHASH (IV not 12 bytes) */
} stream_state;

_Static_assert(sizeof(stream_state) <= AESGEN_GCM_STREAM_BYTES, "aesgen_gcm_stream too small");

static const key_state *kstate(const aesgen_gcm_key *key)
{
    return (const key_state *)(const void *)key->opaque;
}

static const void *schedule(const aesgen_gcm_key *key)
{
    return (const unsigned char *)key->opaque + STATE_BYTES;
}

static const void *htable(const aesgen_gcm_key *key)
{
    return (const unsigned char *)key->opaque + STATE_BYTES + AESGEN_MAX_SCHEDULE_BYTES;
}

static int key_ready(const aesgen_gcm_key *key)
{
    if (key == NULL)
        return AESGEN_ERR_NULL;
    const key_state *st = kstate(key);
    return st->magic == KEY_MAGIC && st->aes != NULL && st->ghash != NULL ? AESGEN_OK : AESGEN_ERR_CONTEXT;
}

void aesgen_gcm_wipe(aesgen_gcm_key *key)
{
    if (key != NULL)
        aesgen_memwipe(key, sizeof *key);
}

void aesgen_gcm_stream_wipe(aesgen_gcm_stream *s)
{
    if (s != NULL)
        aesgen_memwipe(s, sizeof *s);
}

int aesgen_gcm_init_variants(aesgen_gcm_key *key, const uint8_t *k, size_t key_len,
                             const aesgen_variant *aes, const aesgen_ghash_variant *ghash)
{
    if (key == NULL || k == NULL)
        return AESGEN_ERR_NULL;
    if (key_len != 16 && key_len != 24 && key_len != 32)
        return AESGEN_ERR_KEY_LENGTH;
    const unsigned key_bits = (unsigned)key_len * 8;
    if (aes == NULL) {
        if (aesgen_dispatch_status() != AESGEN_OK)
            return AESGEN_ERR_BACKEND;
        aes = aesgen_pick_variant(key_bits, AESGEN_ENCRYPT, aesgen_active_backend());
    }
    if (ghash == NULL)
        ghash = aesgen_pick_ghash_stitching(aes);
    if (aes == NULL || ghash == NULL || aes->key_bits != key_bits || aes->direction != AESGEN_ENCRYPT ||
        aes->ctr == NULL || !aesgen_variant_usable(aes) || !aesgen_ghash_usable(ghash) ||
        aes->schedule_bytes > AESGEN_MAX_SCHEDULE_BYTES || ghash->table_bytes > MAX_TABLE_BYTES)
        return AESGEN_ERR_BACKEND;

    aesgen_gcm_wipe(key);
    void *rk = (unsigned char *)key->opaque + STATE_BYTES;
    aes->setkey(rk, k);
    uint8_t h[16] = {0};
    aesgen_variant_ecb(aes, rk, h, h, 1);
    ghash->setkey((unsigned char *)key->opaque + STATE_BYTES + AESGEN_MAX_SCHEDULE_BYTES, h);
    aesgen_wipe16(h);
    key_state *st = (key_state *)(void *)key->opaque;
    st->key_bits = key_bits;
    st->aes = aes;
    st->ghash = ghash;
    st->stitched = aes->gcm_blocks != 0 && aes->gcm_table != NULL && ghash->table != NULL &&
                   strcmp(aes->gcm_table, ghash->table) == 0 && aes->align == 0 &&
                   aes->gcm_blocks <= MAX_STITCH_BLOCKS;
    st->magic = KEY_MAGIC;
    return AESGEN_OK;
}

int aesgen_gcm_init(aesgen_gcm_key *key, const uint8_t *k, size_t key_len)
{
    return aesgen_gcm_init_variants(key, k, key_len, NULL, NULL);
}

const char *aesgen_gcm_variant(const aesgen_gcm_key *key)
{
    return key_ready(key) == AESGEN_OK ? kstate(key)->aes->name : NULL;
}

unsigned aesgen_gcm_stitched(const aesgen_gcm_key *key)
{
    return key_ready(key) == AESGEN_OK && kstate(key)->stitched ? kstate(key)->aes->gcm_blocks : 0;
}

const char *aesgen_gcm_ghash(const aesgen_gcm_key *key)
{
    return key_ready(key) == AESGEN_OK ? kstate(key)->ghash->name : NULL;
}

/* ------------------------------------------------------------------------ */
/* The pieces                                                                 */

/* n > limit, for lengths that fit in 64 bits; a function so that a 32-bit size_t
 * does not make the test "always false" at compile time (and warn). */
static int exceeds(uint64_t n, uint64_t limit)
{
    return n > limit;
}

static int tag_length_ok(size_t n)
{
    return (n >= 12 && n <= 16) || n == 8 || n == 4;
}

/* The closing block of the hash: the bit lengths of the AAD and the text. */
static void lengths_block(uint8_t b[16], uint64_t aad_bytes, uint64_t text_bytes)
{
    aesgen_store_be64(b, aad_bytes * 8);
    aesgen_store_be64(b + 8, text_bytes * 8);
}

static size_t pad16(size_t n)
{
    return (n + 15) & ~(size_t)15;
}

/* tag = the full tag truncated to tag_len bytes; full is wiped. */
static void copy_tag(uint8_t *tag, size_t tag_len, uint8_t full[16])
{
    if (tag_len == 16)
        memcpy(tag, full, 16); /* a fixed-size copy: one store, no call */
    else
        memcpy(tag, full, tag_len);
    aesgen_wipe16(full);
}

/* The tag: the hash XOR E_K(J0), truncated to tag_len bytes. */
static void put_tag(uint8_t *tag, size_t tag_len, const uint8_t y[16], const uint8_t ek0[16])
{
    uint8_t full[16];
    aesgen_xor_words(full, y, ek0, 16);
    copy_tag(tag, tag_len, full);
}

/* y = GHASH over data (len bytes, the last block zero-padded). */
static void ghash_padded(const aesgen_gcm_key *key, uint8_t y[16], const uint8_t *data, size_t len)
{
    const aesgen_ghash_variant *g = kstate(key)->ghash;
    if (len >= 16)
        g->update(htable(key), y, data, len / 16);
    if (len % 16 != 0) {
        uint8_t last[16] = {0};
        memcpy(last, data + (len & ~(size_t)15), len % 16);
        g->update(htable(key), y, last, 1);
    }
}

/* Messages up to this many bytes of padded AAD, padded text and lengths block are hashed
 * from one staging buffer, in one update call: one reduction per N blocks instead of one
 * per section (the AAD, the text and the lengths block each ending in its own). */
#define SHORT_MESSAGE_BYTES 512
/* A seal stages up to two chunks of the longest stitched loop (and 48 bytes of AAD and
 * lengths block): below two chunks the loop overlaps no hash with AES, and one CTR call
 * and one GHASH call are faster (512- and 768-byte seals on vaes512, Zen 5: 0.66x ->
 * 0.77-0.83x intel-ipsec-mb's speed); a text of exactly one chunk too, though the
 * stitched call would hash its lengths block (Zen 5, AES-128: 128 B on aesni 47 -> 60
 * ns, 256 B on vaes256 53 -> 61 ns, 512 B on vaes512 57 -> 60 ns). */
#define SEAL_SHORT_BYTES (16 * 2 * MAX_STITCH_BLOCKS + 64)

static int short_message(size_t aad_len, size_t len, size_t limit)
{
    return pad16(aad_len) + pad16(len) + 16 <= limit;
}

/* dst = src zero-padded to whole blocks: the last block zeroed (a fixed-size store), then
 * the bytes copied over it. src may be NULL when len is 0. */
static void copy_padded(uint8_t *dst, const uint8_t *src, size_t len)
{
    if (len == 0)
        return;
    memset(dst + ((len - 1) & ~(size_t)15), 0, 16);
    aesgen_copy_short(dst, src, len);
}

/* The keystream past the text (len bytes) in its last block zeroed again: the hash's
 * zero padding. A 16-byte store of the kept bytes rather than a variable-length memset
 * (a call into the C library). */
static void zero_past(uint8_t *text, size_t len)
{
    if (len % 16 == 0)
        return;
    uint8_t last[16] = {0};
    const size_t whole = len & ~(size_t)15;
    aesgen_copy_short(last, text + whole, len % 16);
    memcpy(text + whole, last, 16);
}

/* g = the AAD and the text, each zero-padded, then the lengths block: the hash input of a
 * short message, in its blocks (returned). */
static size_t stage_message(uint8_t *g, const uint8_t *aad, size_t aad_len, const uint8_t *text, size_t len)
{
    const size_t a = pad16(aad_len), t = pad16(len);
    copy_padded(g, aad, aad_len);
    copy_padded(g + a, text, len);
    lengths_block(g + a + t, aad_len, len);
    return (a + t) / 16 + 1;
}

/* y = GHASH over the AAD and the text, each zero-padded, then the lengths block: the hash
 * of a whole message (the one-shot calls). */
static void hash_message(const aesgen_gcm_key *key, uint8_t y[16], const uint8_t *aad, size_t aad_len,
                         const uint8_t *text, size_t len)
{
    const aesgen_ghash_variant *g = kstate(key)->ghash;
    if (short_message(aad_len, len, SHORT_MESSAGE_BYTES)) {
        uint8_t buf[SHORT_MESSAGE_BYTES];
        g->update(htable(key), y, buf, stage_message(buf, aad, aad_len, text, len));
        return;
    }
    uint8_t lengths[16];
    lengths_block(lengths, aad_len, len);
    ghash_padded(key, y, aad, aad_len);
    ghash_padded(key, y, text, len);
    g->update(htable(key), y, lengths, 1);
}

/* The pre-counter block J0 (SP 800-38D 7.1). */
static void pre_counter(const aesgen_gcm_key *key, const uint8_t *iv, size_t iv_len, uint8_t j0[16])
{
    if (iv_len == 12) {
        memcpy(j0, iv, 12);
        j0[12] = j0[13] = j0[14] = 0;
        j0[15] = 1;
        return;
    }
    uint8_t lengths[16];
    memset(j0, 0, 16);
    ghash_padded(key, j0, iv, iv_len);
    lengths_block(lengths, 0, iv_len);
    kstate(key)->ghash->update(htable(key), j0, lengths, 1);
}

/* counter's low 32 bits += n mod 2^32 (SP 800-38D's inc32, n times), the rest as it was;
 * bytes 8..15 written as one 8-byte store: the loops read a counter block as two 8-byte
 * halves, and a load spanning two stores waits for both to reach the cache. No branch
 * (the counter of an IV other than 12 bytes is secret). */
static void inc32(uint8_t counter[16], uint32_t n)
{
    const uint64_t lo = aesgen_load_be64(counter + 8);
    aesgen_store_be64(counter + 8, (lo & ~(uint64_t)0xffffffff) | (uint32_t)((uint32_t)lo + n));
}

#define SECRET_COUNTER_CHUNK 16

/* nblocks of keystream XOR in, counting in the low 32 bits of counter (inc32). */
static void gctr(const aesgen_gcm_key *key, int secret_counter, uint8_t counter[16], uint8_t *out,
                 const uint8_t *in, size_t nblocks)
{
    const aesgen_variant *v = kstate(key)->aes;
    if (secret_counter) {
        uint8_t ks[16 * SECRET_COUNTER_CHUNK];
        uint32_t c = aesgen_load_be32(counter + 12);
        while (nblocks != 0) {
            const size_t n = nblocks < SECRET_COUNTER_CHUNK ? nblocks : SECRET_COUNTER_CHUNK;
            /* the barrier keeps the compiler from counting the secret c up to c + n
             * and branching on it */
            for (size_t i = 0; i < n; i++) {
                memcpy(ks + 16 * i, counter, 12);
                aesgen_store_be32(ks + 16 * i + 12, c + aesgen_value_barrier32((uint32_t)i));
            }
            c += (uint32_t)n;
            aesgen_variant_ecb(v, schedule(key), ks, ks, n);
            for (size_t i = 0; i < 16 * n; i++)
                out[i] = in[i] ^ ks[i];
            out += 16 * n;
            in += 16 * n;
            nblocks -= n;
        }
        aesgen_store_be32(counter + 12, c);
        aesgen_memwipe(ks, sizeof ks);
        return;
    }
    /* A 12-byte IV's counter runs from 2 to at most 2^32 - 1 (MAX_TEXT_BYTES): its low
     * 32 bits never wrap, so counting the whole block is inc32. */
    aesgen_variant_ctr(v, schedule(key), out, in, nblocks, counter);
}

/* The whole chunks of nblocks through the AES variant's stitched GCM function (the CTR
 * keystream and the GHASH of the ciphertext in one pass), where the key has one and the
 * counter is public (a 12-byte IV: its low 64 bits never wrap, as the function needs);
 * returns the blocks done, 0 where it does not apply. before, after: NULL, or (sealing)
 * a block the function hashes before and after the text. */
static size_t stitched(const aesgen_gcm_key *key, int secret_counter, aesgen_direction dir, uint8_t y[16],
                       uint8_t counter[16], uint8_t *out, const uint8_t *in, size_t nblocks,
                       const uint8_t *before, const uint8_t *after)
{
    const key_state *ks = kstate(key);
    const aesgen_variant *v = ks->aes;
    if (!ks->stitched || secret_counter || nblocks < v->gcm_blocks)
        return 0;
    const size_t n = nblocks - nblocks % v->gcm_blocks;
    aesgen_gcm_hash hash;
    memcpy(hash.y, y, 16);
    hash.table = htable(key);
    hash.after = after;
    hash.before = before;
    (dir == AESGEN_ENCRYPT ? v->gcm_seal : v->gcm_open)(schedule(key), out, in, n, counter, &hash);
    memcpy(y, hash.y, 16);
    aesgen_memwipe(&hash, sizeof hash);
    inc32(counter, (uint32_t)n); /* which never wraps here */
    return n;
}

/* ------------------------------------------------------------------------ */
/* Streams                                                                    */

static stream_state *sstate(aesgen_gcm_stream *s)
{
    return (stream_state *)(void *)s->opaque;
}

static int stream_ready(aesgen_gcm_stream *s)
{
    if (s == NULL)
        return AESGEN_ERR_NULL;
    const stream_state *st = sstate(s);
    if (st->magic != STREAM_MAGIC || key_ready(st->key) != AESGEN_OK)
        return AESGEN_ERR_CONTEXT;
    return AESGEN_OK;
}

static int start(stream_state *st, const aesgen_gcm_key *key, aesgen_direction dir, const uint8_t *iv,
                 size_t iv_len)
{
    int rc = key_ready(key);
    if (rc != AESGEN_OK)
        return rc;
    if (iv == NULL)
        return AESGEN_ERR_NULL;
    if (iv_len == 0 || (dir != AESGEN_ENCRYPT && dir != AESGEN_DECRYPT))
        return AESGEN_ERR_LENGTH;
    memset(st, 0, sizeof *st);
    st->key = key;
    pre_counter(key, iv, iv_len, st->counter);
    aesgen_variant_ecb(kstate(key)->aes, schedule(key), st->ek0, st->counter, 1);
    inc32(st->counter, 1); /* inc32(J0): the first counter block of the text */
    st->ks_used = 16;
    st->phase = PHASE_AAD;
    st->dir = (uint32_t)dir;
    st->secret_counter = iv_len != 12;
    st->magic = STREAM_MAGIC;
    return AESGEN_OK;
}

int aesgen_gcm_start(aesgen_gcm_stream *s, const aesgen_gcm_key *key, aesgen_direction dir,
                     const uint8_t *iv, size_t iv_len)
{
    if (s == NULL)
        return AESGEN_ERR_NULL;
    stream_state st;
    int rc = start(&st, key, dir, iv, iv_len);
    if (rc == AESGEN_OK)
        memcpy(sstate(s), &st, sizeof st);
    aesgen_memwipe(&st, sizeof st);
    return rc;
}

/* Hash bytes of the current section (AAD or ciphertext) through the pending block. */
static void absorb(stream_state *st, const uint8_t *data, size_t len)
{
    const aesgen_gcm_key *key = st->key;
    if (len == 0) /* data may be NULL then: no memcpy from it, no arithmetic on it */
        return;
    if (st->pend_used != 0) {
        const size_t n = len < 16 - st->pend_used ? len : 16 - st->pend_used;
        memcpy(st->pend + st->pend_used, data, n);
        st->pend_used += (uint32_t)n;
        data += n;
        len -= n;
        if (st->pend_used < 16)
            return;
        kstate(key)->ghash->update(htable(key), st->y, st->pend, 1);
        st->pend_used = 0;
    }
    if (len >= 16)
        kstate(key)->ghash->update(htable(key), st->y, data, len / 16);
    memcpy(st->pend, data + (len & ~(size_t)15), len % 16);
    st->pend_used = (uint32_t)(len % 16);
}

/* Close a section: its partial block, zero-padded, into the hash. */
static void close_section(stream_state *st)
{
    if (st->pend_used != 0) {
        memset(st->pend + st->pend_used, 0, 16 - st->pend_used);
        kstate(st->key)->ghash->update(htable(st->key), st->y, st->pend, 1);
        st->pend_used = 0;
    }
}

int aesgen_gcm_aad(aesgen_gcm_stream *s, const uint8_t *aad, size_t len)
{
    int rc = stream_ready(s);
    if (rc != AESGEN_OK)
        return rc;
    stream_state *st = sstate(s);
    if (st->phase != PHASE_AAD)
        return AESGEN_ERR_STATE;
    if (len != 0 && aad == NULL)
        return AESGEN_ERR_NULL;
    if (exceeds(len, MAX_AAD_BYTES - st->aad_bytes))
        return AESGEN_ERR_LENGTH;
    absorb(st, aad, len);
    st->aad_bytes += len;
    return AESGEN_OK;
}

/* out = in XOR keystream over len bytes, continuing the stream's keystream. */
static void keystream_xor(stream_state *st, uint8_t *out, const uint8_t *in, size_t len)
{
    const aesgen_gcm_key *key = st->key;
    while (len != 0 && st->ks_used < 16) {
        *out++ = *in++ ^ st->ks[st->ks_used++];
        len--;
    }
    if (len >= 16) {
        gctr(key, (int)st->secret_counter, st->counter, out, in, len / 16);
        out += len & ~(size_t)15;
        in += len & ~(size_t)15;
        len %= 16;
    }
    if (len != 0) {
        static const uint8_t zero[16];
        gctr(key, (int)st->secret_counter, st->counter, st->ks, zero, 1);
        for (st->ks_used = 0; st->ks_used < len; st->ks_used++)
            out[st->ks_used] = in[st->ks_used] ^ st->ks[st->ks_used];
    }
}

int aesgen_gcm_update(aesgen_gcm_stream *s, uint8_t *out, const uint8_t *in, size_t len)
{
    int rc = stream_ready(s);
    if (rc != AESGEN_OK)
        return rc;
    stream_state *st = sstate(s);
    if (st->phase == PHASE_DONE)
        return AESGEN_ERR_STATE;
    rc = aesgen_check_buffers(out, in, len);
    if (rc != AESGEN_OK)
        return rc;
    if (exceeds(len, MAX_TEXT_BYTES - st->text_bytes))
        return AESGEN_ERR_LENGTH;
    if (st->phase == PHASE_AAD) {
        close_section(st);
        st->phase = PHASE_TEXT;
    }
    if (len == 0)
        return AESGEN_OK;
    st->text_bytes += len;
    if (st->ks_used == 16 && st->pend_used == 0) { /* on a block boundary: the stitched loop */
        const size_t done = 16 * stitched(st->key, (int)st->secret_counter, (aesgen_direction)st->dir, st->y,
                                          st->counter, out, in, len / 16, NULL, NULL);
        out += done;
        in += done;
        len -= done;
    }
    /* the hash covers the ciphertext: the input when opening, the output when sealing */
    if (st->dir == AESGEN_DECRYPT)
        absorb(st, in, len);
    keystream_xor(st, out, in, len);
    if (st->dir == AESGEN_ENCRYPT)
        absorb(st, out, len);
    return AESGEN_OK;
}

/* The full 16-byte tag of what the stream has seen; the stream is done. */
static void final_tag(stream_state *st, uint8_t full[16])
{
    close_section(st);
    uint8_t lengths[16];
    lengths_block(lengths, st->aad_bytes, st->text_bytes);
    kstate(st->key)->ghash->update(htable(st->key), st->y, lengths, 1);
    aesgen_xor_words(full, st->y, st->ek0, 16);
    st->phase = PHASE_DONE;
}

int aesgen_gcm_finish(aesgen_gcm_stream *s, uint8_t *tag, size_t tag_len)
{
    int rc = stream_ready(s);
    if (rc != AESGEN_OK)
        return rc;
    stream_state *st = sstate(s);
    if (st->phase == PHASE_DONE || st->dir != AESGEN_ENCRYPT)
        return AESGEN_ERR_STATE;
    if (tag == NULL)
        return AESGEN_ERR_NULL;
    if (!tag_length_ok(tag_len))
        return AESGEN_ERR_LENGTH;
    uint8_t full[16];
    final_tag(st, full);
    copy_tag(tag, tag_len, full);
    return AESGEN_OK;
}

int aesgen_gcm_verify(aesgen_gcm_stream *s, const uint8_t *tag, size_t tag_len)
{
    int rc = stream_ready(s);
    if (rc != AESGEN_OK)
        return rc;
    stream_state *st = sstate(s);
    if (st->phase == PHASE_DONE || st->dir != AESGEN_DECRYPT)
        return AESGEN_ERR_STATE;
    if (tag == NULL)
        return AESGEN_ERR_NULL;
    if (!tag_length_ok(tag_len))
        return AESGEN_ERR_LENGTH;
    uint8_t full[16];
    final_tag(st, full);
    const int differs = aesgen_differs_public(full, tag, tag_len);
    aesgen_wipe16(full);
    return differs ? AESGEN_ERR_AUTH : AESGEN_OK;
}

/* ------------------------------------------------------------------------ */
/* One-shot                                                                   */

static int check_message(const aesgen_gcm_key *key, const uint8_t *iv, size_t iv_len, const uint8_t *aad,
                         size_t aad_len, const uint8_t *out, const uint8_t *in, size_t len,
                         const uint8_t *tag, size_t tag_len)
{
    int rc = key_ready(key);
    if (rc != AESGEN_OK)
        return rc;
    if (iv == NULL || tag == NULL || (aad_len != 0 && aad == NULL))
        return AESGEN_ERR_NULL;
    rc = aesgen_check_buffers(out, in, len);
    if (rc != AESGEN_OK)
        return rc;
    if (iv_len == 0 || !tag_length_ok(tag_len) || exceeds(len, MAX_TEXT_BYTES) ||
        exceeds(aad_len, MAX_AAD_BYTES))
        return AESGEN_ERR_LENGTH;
    return AESGEN_OK;
}

/* Short messages with a 12-byte IV (TLS and QUIC records, the common case) take one AES
 * call and one GHASH call, through one staging buffer laid out as the hash input (the
 * AAD, the text, the lengths block, after 16 bytes of headroom). The 16 bytes before
 * the text (the AAD's last block, or the headroom) are lent to J0: one CTR call from
 * J0 gives E_K(J0) (that block's output XOR its input) and the text's keystream
 * together. */
#define HEADROOM 16

/* blocks blocks from in to out by CTR from J0 = IV || 1 (the text counts from inc32(J0)
 * and never wraps here). */
static void ctr_j0(const aesgen_gcm_key *key, const uint8_t iv[12], uint8_t *out, const uint8_t *in,
                   size_t blocks)
{
    /* J0 written as two 8-byte halves: the CTR loops read it so, and a load spanning
     * two stores stalls */
    uint8_t counter[16];
    memcpy(counter, iv, 8);
    aesgen_store_be64(counter + 8, (uint64_t)aesgen_load_be32(iv + 8) << 32 | 1);
    const aesgen_variant *v = kstate(key)->aes;
    if (v->ctr_low64 && v->align == 0) /* the low 64 bits, at most 2^64 - 2^32 + 1, never wrap here */
        v->ctr(schedule(key), out, in, blocks, counter);
    else
        aesgen_variant_ctr(v, schedule(key), out, in, blocks, counter);
}

/* In place (a seal): the lent block saved, zeroed for the call and put back, each by
 * one 16-byte move (the loop's load then forwards from the zeroing store, and GHASH's
 * from the restoring one). */
static void ctr_from_j0(const aesgen_gcm_key *key, const uint8_t iv[12], uint8_t *text, size_t t,
                        uint8_t ek0[16])
{
    uint8_t *const slot = text - 16;
    uint8_t saved[16];
    memcpy(saved, slot, 16);
    memset(slot, 0, 16);
    ctr_j0(key, iv, slot, slot, 1 + t / 16);
    memcpy(ek0, slot, 16);
    memcpy(slot, saved, 16);
}

/* From the staged text `in` into another buffer (an open): the lent block is read only. */
static void ctr_from_j0_into(const aesgen_gcm_key *key, const uint8_t iv[12], uint8_t *out, const uint8_t *in,
                             size_t t, uint8_t ek0[16])
{
    ctr_j0(key, iv, out - 16, in - 16, 1 + t / 16);
    aesgen_xor_words(ek0, out - 16, in - 16, 16);
}

static void seal_short(const aesgen_gcm_key *key, const uint8_t *iv, const uint8_t *aad, size_t aad_len,
                       uint8_t *out, const uint8_t *in, size_t len, uint8_t *tag, size_t tag_len)
{
    _Alignas(16) uint8_t buf[HEADROOM + SEAL_SHORT_BYTES];
    uint8_t *const g = buf + HEADROOM, *const text = g + pad16(aad_len);
    uint8_t y[16] = {0}, ek0[16];
    memset(buf, 0, HEADROOM);
    const size_t n = stage_message(g, aad, aad_len, in, len);
    ctr_from_j0(key, iv, text, pad16(len), ek0);
    aesgen_copy_short(out, text, len);
    zero_past(text, len);
    kstate(key)->ghash->update(htable(key), y, g, n);
    put_tag(tag, tag_len, y, ek0);
    aesgen_wipe16(ek0);
}

/* The staged ciphertext is decrypted into a second buffer, so that the CTR call and its
 * hash, which do not depend on each other, overlap (one after the other in one buffer,
 * 64- and 256-byte opens took 1.06x and 1.14x as long on Zen 5); the plaintext is copied
 * out only when the tag matches and wiped either way. */
static int open_short(const aesgen_gcm_key *key, const uint8_t *iv, const uint8_t *aad, size_t aad_len,
                      uint8_t *out, const uint8_t *in, size_t len, const uint8_t *tag, size_t tag_len)
{
    _Alignas(16) uint8_t buf[HEADROOM + SHORT_MESSAGE_BYTES], plain[HEADROOM + SHORT_MESSAGE_BYTES];
    uint8_t *const g = buf + HEADROOM, *const text = plain + HEADROOM;
    uint8_t y[16] = {0}, ek0[16], full[16];
    memset(buf, 0, HEADROOM);
    const size_t n = stage_message(g, aad, aad_len, in, len);
    ctr_from_j0_into(key, iv, text, g + pad16(aad_len), pad16(len), ek0);
    kstate(key)->ghash->update(htable(key), y, g, n);
    aesgen_xor_words(full, y, ek0, 16);
    const int differs = aesgen_differs_public(full, tag, tag_len);
    if (!differs)
        aesgen_copy_short(out, text, len);
    for (size_t i = 0; i < len + 16; i += 16) /* the plaintext, and E_K(J0) masked before it */
        aesgen_wipe16(plain + i);
    aesgen_wipe16(ek0);
    aesgen_wipe16(full);
    return differs ? AESGEN_ERR_AUTH : AESGEN_OK;
}

/* A message with a 12-byte IV whose text holds at least one chunk of the variant's
 * stitched loop: the AAD's hash, the text's whole chunks in one pass, then what is left
 * (fewer than a chunk of blocks and a partial block) staged as in seal_short: one CTR
 * call and one GHASH call with the lengths block. A text of whole chunks leaves nothing:
 * the stitched call hashes the lengths block too (y kept in its register; a separate
 * one-block GHASH call cost about a quarter of a 1 KiB seal on vaes512, Zen 5). An AAD of
 * up to 16 bytes goes into the stitched call too, hashed while its first chunk's rounds
 * run (its own GHASH call cost 6-7 ns of a 1 or 2 KiB seal there). E_K(J0) comes after
 * the stitched call, which it does not depend on, so that it overlaps the loop's last
 * hash. */
static void seal_stitched(const aesgen_gcm_key *key, const uint8_t *iv, const uint8_t *aad, size_t aad_len,
                          uint8_t *out, const uint8_t *in, size_t len, uint8_t *tag, size_t tag_len)
{
    const aesgen_variant *v = kstate(key)->aes;
    _Alignas(16) uint8_t rest[16 * MAX_STITCH_BLOCKS + 16]; /* what is left, and the lengths block */
    uint8_t y[16] = {0}, j0[16], counter[16], ek0[16];
    memcpy(j0, iv, 12);
    aesgen_store_be32(j0 + 12, 1);
    /* inc32(J0), written as two 8-byte halves: the loop reads it so, and a load spanning
     * a 16-byte store and a byte store into it waits for both to reach the cache (a 512-
     * to 1,024-byte seal 1.15x slower on Zen 5 in one of two compilations) */
    memcpy(counter, iv, 8);
    aesgen_store_be64(counter + 8, (uint64_t)aesgen_load_be32(iv + 8) << 32 | 2);
    uint8_t short_aad[16] = {0}; /* zero-padded */
    if (aad_len > 16)
        ghash_padded(key, y, aad, aad_len);
    else if (aad_len != 0)
        aesgen_copy_short(short_aad, aad, aad_len);
    const int whole = len % (16 * (size_t)v->gcm_blocks) == 0;
    uint8_t lengths[16];
    lengths_block(lengths, aad_len, len);
    const size_t done = 16 * stitched(key, 0, AESGEN_ENCRYPT, y, counter, out, in, len / 16,
                                      aad_len != 0 && aad_len <= 16 ? short_aad : NULL, whole ? lengths : NULL);
    aesgen_variant_ecb(v, schedule(key), ek0, j0, 1);
    if (!whole) {
        const size_t left = len - done, padded = pad16(left);
        copy_padded(rest, in + done, left);
        memcpy(rest + padded, lengths, 16);
        gctr(key, 0, counter, rest, rest, padded / 16);
        aesgen_copy_short(out + done, rest, left);
        zero_past(rest, left);
        kstate(key)->ghash->update(htable(key), y, rest, padded / 16 + 1);
    }
    put_tag(tag, tag_len, y, ek0);
    aesgen_wipe16(ek0);
    aesgen_wipe16(y);
}

int aesgen_gcm_seal(const aesgen_gcm_key *key, const uint8_t *iv, size_t iv_len, const uint8_t *aad,
                    size_t aad_len, uint8_t *out, const uint8_t *in, size_t len, uint8_t *tag, size_t tag_len)
{
    int rc = check_message(key, iv, iv_len, aad, aad_len, out, in, len, tag, tag_len);
    if (rc != AESGEN_OK)
        return rc;
    const size_t chunks = iv_len == 12 && kstate(key)->stitched ? len / 16 / kstate(key)->aes->gcm_blocks : 0;
    if (iv_len == 12 && chunks < 2 && short_message(aad_len, len, SEAL_SHORT_BYTES)) {
        seal_short(key, iv, aad, aad_len, out, in, len, tag, tag_len);
        return AESGEN_OK;
    }
    if (chunks != 0) {
        seal_stitched(key, iv, aad, aad_len, out, in, len, tag, tag_len);
        return AESGEN_OK;
    }
    stream_state st;
    start(&st, key, AESGEN_ENCRYPT, iv, iv_len);
    if (len != 0)
        keystream_xor(&st, out, in, len);
    hash_message(key, st.y, aad, aad_len, out, len);
    put_tag(tag, tag_len, st.y, st.ek0);
    aesgen_memwipe(&st, sizeof st);
    return AESGEN_OK;
}

int aesgen_gcm_open(const aesgen_gcm_key *key, const uint8_t *iv, size_t iv_len, const uint8_t *aad,
                    size_t aad_len, uint8_t *out, const uint8_t *in, size_t len, const uint8_t *tag,
                    size_t tag_len)
{
    int rc = check_message(key, iv, iv_len, aad, aad_len, out, in, len, tag, tag_len);
    if (rc != AESGEN_OK)
        return rc;
    if (iv_len == 12 && short_message(aad_len, len, SHORT_MESSAGE_BYTES))
        return open_short(key, iv, aad, aad_len, out, in, len, tag, tag_len);
    stream_state st;
    start(&st, key, AESGEN_DECRYPT, iv, iv_len);
    /* authenticate first: the hash of the ciphertext as given, then the tag */
    hash_message(key, st.y, aad, aad_len, in, len);
    uint8_t full[16];
    aesgen_xor_words(full, st.y, st.ek0, 16);
    const int differs = aesgen_differs_public(full, tag, tag_len);
    aesgen_wipe16(full);
    if (differs) {
        aesgen_memwipe(&st, sizeof st);
        return AESGEN_ERR_AUTH;
    }
    if (len != 0)
        keystream_xor(&st, out, in, len);
    aesgen_memwipe(&st, sizeof st);
    return AESGEN_OK;
}
