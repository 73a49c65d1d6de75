/* gcm_gf128.c -- bit-serial GF(2^128) of SP 800-38D (gcm_gf128.h). */
#include "gcm_gf128.h"

#include <string.h>

void gf128_mul(uint8_t z[16], const uint8_t x[16], const uint8_t y[16])
{
    uint8_t acc[16] = {0}, v[16];
    memcpy(v, y, 16);
    for (unsigned i = 0; i < 128; i++) {
        if ((x[i / 8] >> (7 - i % 8)) & 1)
            for (unsigned k = 0; k < 16; k++)
                acc[k] ^= v[k];
        const unsigned lsb = v[15] & 1;
        for (unsigned k = 15; k > 0; k--)
            v[k] = (uint8_t)(v[k] >> 1 | v[k - 1] << 7);
        v[0] >>= 1;
        if (lsb)
            v[0] ^= 0xe1; /* R = 11100001 || 0^120 */
    }
    memcpy(z, acc, 16);
}

void gf128_inv(uint8_t z[16], const uint8_t x[16])
{
    /* x^(2^128 - 2): exponent bits 127..1 are one, bit 0 is zero */
    uint8_t r[16] = {0x80}; /* the unit: bit 0 set */
    for (int i = 127; i >= 0; i--) {
        gf128_mul(r, r, r);
        if (i != 0)
            gf128_mul(r, r, x);
    }
    memcpy(z, r, 16);
}

void gf128_ghash(uint8_t y[16], const uint8_t h[16], const uint8_t *data, size_t len)
{
    for (size_t at = 0; at < len; at += 16) {
        const size_t n = len - at < 16 ? len - at : 16;
        for (size_t k = 0; k < n; k++)
            y[k] ^= data[at + k];
        gf128_mul(y, y, h);
    }
}

static void length_block(uint8_t b[16], uint64_t bits_hi, uint64_t bits_lo)
{
    for (int k = 0; k < 8; k++) {
        b[7 - k] = (uint8_t)(bits_hi >> (8 * k));
        b[15 - k] = (uint8_t)(bits_lo >> (8 * k));
    }
}

void gf128_j0(uint8_t j0[16], const uint8_t h[16], const uint8_t *iv, size_t iv_len)
{
    uint8_t l[16];
    memset(j0, 0, 16);
    gf128_ghash(j0, h, iv, iv_len);
    length_block(l, 0, (uint64_t)iv_len * 8);
    gf128_ghash(j0, h, l, 16);
}

int gf128_iv_for_j0(uint8_t *iv, size_t iv_len, const uint8_t h[16], const uint8_t target[16])
{
    static const uint8_t zero[16];
    if (iv_len < 16 || memcmp(h, zero, 16) == 0)
        return 0;
    /* J0 = X1 * H^n + rest, n = the blocks hashed (the IV's, then the length) */
    const size_t n = (iv_len + 15) / 16 + 1;
    uint8_t rest[16], hn[16], inv[16], x1[16];
    memset(iv, 0, 16);
    gf128_j0(rest, h, iv, iv_len); /* with X1 = 0 */
    memcpy(hn, h, 16);
    for (size_t i = 1; i < n; i++)
        gf128_mul(hn, hn, h);
    gf128_inv(inv, hn);
    for (unsigned k = 0; k < 16; k++)
        x1[k] = (uint8_t)(target[k] ^ rest[k]);
    gf128_mul(x1, x1, inv);
    memcpy(iv, x1, 16);
    uint8_t check[16];
    gf128_j0(check, h, iv, iv_len);
    return memcmp(check, target, 16) == 0;
}
