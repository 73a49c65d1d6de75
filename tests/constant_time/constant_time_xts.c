/*
 * constant_time_xts.c -- aesgen_ct_test, XTS: every software backend's encryption and
 * decryption variants of AES-128 and AES-256 as the data and tweak ciphers, with the
 * XTS key and the data marked secret (the tweak input, a sector number, is public; the
 * tweaks made from it under key2 are secret). One data unit at every length around the
 * batch width, the 64-block chunk and ciphertext stealing, both directions, in place,
 * and the many-sector call. The halves check at set-up compares secret bytes; its
 * verdict is declared public through aesgen_declassify (constant_time_gcm.c).
 */
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "aesgen.h"
#include "aesgen_internal.h"
#include "constant_time_test.h"
#include "ts_report.h"

#define MAX_TEXT 1100 /* past one 64-block chunk */

static int xts_setup(const char *label, aesgen_xts_key *key, const uint8_t *k_public, size_t key_len,
                     const aesgen_variant *enc, const aesgen_variant *dec)
{
    uint8_t k[64];
    secret_copy(k, k_public, key_len);
    const int ok = check_ok(label, "aesgen_xts_init_variants", 0, aesgen_xts_init_variants(key, k, key_len, enc, dec));
    aesgen_memwipe(k, sizeof k);
    return ok;
}

/* One unit of len bytes, both directions, out of place and in place, against the same
 * library run on public inputs (ref). */
static void xts_unit(const char *label, const aesgen_xts_key *key, const aesgen_xts_key *ref, size_t len)
{
    uint8_t tweak[16], pt[MAX_TEXT], want[MAX_TEXT], in[MAX_TEXT], out[MAX_TEXT];
    const size_t nb = len / 16;
    fill_random(tweak, sizeof tweak);
    fill_random(pt, len);
    if (!check_ok(label, "aesgen_xts_encrypt (public inputs)", nb, aesgen_xts_encrypt(ref, tweak, want, pt, len)))
        return;
    secret_copy(in, pt, len);
    if (check_ok(label, "aesgen_xts_encrypt", nb, aesgen_xts_encrypt(key, tweak, out, in, len)))
        check_equal(label, "encrypt", nb, out, want, len);
    secret_copy(out, want, len);
    if (check_ok(label, "aesgen_xts_decrypt in place", nb, aesgen_xts_decrypt(key, tweak, out, out, len)))
        check_equal(label, "decrypt in place", nb, out, pt, len);
}

/* Three sectors of an odd unit length, against single-unit calls of the public key. */
static void xts_sectors(const char *label, const aesgen_xts_key *key, const aesgen_xts_key *ref)
{
    enum { UNIT = 35, COUNT = 3 };
    uint8_t pt[UNIT * COUNT], want[UNIT * COUNT], in[UNIT * COUNT], out[UNIT * COUNT], tweak[16] = {0};
    const uint64_t sector = 0x1234567890ull;
    fill_random(pt, sizeof pt);
    for (size_t i = 0; i < COUNT; i++) {
        for (size_t b = 0; b < 8; b++)
            tweak[b] = (uint8_t)((sector + i) >> (8 * b));
        if (!check_ok(label, "aesgen_xts_encrypt (public inputs)", i,
                      aesgen_xts_encrypt(ref, tweak, want + i * UNIT, pt + i * UNIT, UNIT)))
            return;
    }
    secret_copy(in, pt, sizeof pt);
    if (check_ok(label, "aesgen_xts_encrypt_sectors", COUNT,
                 aesgen_xts_encrypt_sectors(key, sector, UNIT, COUNT, out, in)))
        check_equal(label, "encrypt_sectors", COUNT, out, want, sizeof want);
    secret_copy(in, want, sizeof want);
    if (check_ok(label, "aesgen_xts_decrypt_sectors", COUNT,
                 aesgen_xts_decrypt_sectors(key, sector, UNIT, COUNT, out, in)))
        check_equal(label, "decrypt_sectors", COUNT, out, pt, sizeof pt);
}

/* One variant pair; returns 1 if memcheck complained. */
static int xts_target(const aesgen_variant *enc, const aesgen_variant *dec)
{
    char label[200];
    aesgen_xts_key key, ref;
    uint8_t k[64];
    const size_t key_len = 2 * key_len_of(enc->key_bits);
    const size_t w = 16 * (enc->batch_blocks > 1 ? enc->batch_blocks : 1);
    const size_t lens[] = {16, 17, 31, 32, 33, 47, w - 1, w, w + 1, w + 15, 1024 - 1, 1024, 1024 + 17, MAX_TEXT};
    const unsigned long errors_before = memcheck_errors();

    g_target_failures = 0;
    snprintf(label, sizeof label, "XTS: AES %s / %s", enc->name, dec->name);
    printf("%s\n", label);
    fill_random(k, key_len);
    if (!xts_setup(label, &key, k, key_len, enc, dec) ||
        !check_ok(label, "aesgen_xts_init_variants (public key)", 0,
                  aesgen_xts_init_variants(&ref, k, key_len, enc, dec)))
        return memcheck_errors() != errors_before;
    for (size_t i = 0; i < sizeof lens / sizeof lens[0]; i++)
        if (lens[i] >= 16 && lens[i] <= MAX_TEXT)
            xts_unit(label, &key, &ref, lens[i]);
    xts_sectors(label, &key, &ref);
    aesgen_xts_wipe(&key);
    aesgen_xts_wipe(&ref);
    if (g_target_failures != 0)
        printf("  %lu functional failure(s)\n", g_target_failures);
    if (memcheck_errors() != errors_before) {
        printf("  memcheck: %lu error(s) in this target\n", memcheck_errors() - errors_before);
        return 1;
    }
    if (g_target_failures == 0)
        printf("  ok\n");
    return 0;
}

/* The first encryption variant of each software backend and key size (128, 256), with
 * its backend's decryption partner. */
unsigned long run_xts_tests(size_t *ntargets)
{
    enum { MAX_SEEN = 64 };
    const aesgen_variant *seen[MAX_SEEN];
    size_t nseen = 0;
    unsigned long leaky = 0;
    *ntargets = 0;
    for (size_t i = 0; i < aesgen_registry_size; i++) {
        const aesgen_variant *enc = aesgen_registry[i];
        if (!is_software(enc) || enc->direction != AESGEN_ENCRYPT || enc->key_bits == 192 ||
            !name_matches(enc->name))
            continue;
        int again = 0;
        for (size_t j = 0; j < nseen && !again; j++)
            again = seen[j]->key_bits == enc->key_bits && strcmp(seen[j]->backend, enc->backend) == 0;
        const aesgen_variant *dec = software_partner(enc);
        if (again || nseen == MAX_SEEN || dec == NULL || strcmp(dec->backend, enc->backend) != 0)
            continue;
        seen[nseen++] = enc;
        leaky += (unsigned long)xts_target(enc, dec);
        ++*ntargets;
    }
    if (*ntargets == 0 && g_only == NULL)
        ts_fail("XTS: no software AES variant pair runs on this CPU");
    return leaky;
}
