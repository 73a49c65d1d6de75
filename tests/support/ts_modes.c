/* ts_modes.c -- the data operations, counter arithmetic and FIPS-197 answers (see ts_modes.h). */
#include "ts_modes.h"

const char *const ts_mode_name[TS_MODE_COUNT] = {"ECB-encrypt", "ECB-decrypt", "CBC-encrypt",
                                                 "CBC-decrypt", "CTR"};

int ts_mode_direction(int mode)
{
    return (mode == TS_MODE_ECB_DEC || mode == TS_MODE_CBC_DEC) ? AESGEN_DECRYPT : AESGEN_ENCRYPT;
}

int ts_mode_is_ecb(int mode) { return mode == TS_MODE_ECB_ENC || mode == TS_MODE_ECB_DEC; }

int ts_mode_is_cbc(int mode) { return mode == TS_MODE_CBC_ENC || mode == TS_MODE_CBC_DEC; }

int ts_crypt(int mode, const aesgen_ctx *ctx, uint8_t iv[16], aesgen_ctr *ctr, uint8_t *out,
             const uint8_t *in, size_t len)
{
    switch (mode) {
    case TS_MODE_ECB_ENC: return aesgen_ecb_encrypt(ctx, out, in, len);
    case TS_MODE_ECB_DEC: return aesgen_ecb_decrypt(ctx, out, in, len);
    case TS_MODE_CBC_ENC: return aesgen_cbc_encrypt(ctx, iv, out, in, len);
    case TS_MODE_CBC_DEC: return aesgen_cbc_decrypt(ctx, iv, out, in, len);
    default: return aesgen_ctr_crypt(ctx, ctr, out, in, len);
    }
}

void ts_ctr_add(uint8_t c[16], uint64_t n)
{
    unsigned carry = 0;
    for (int i = 15; i >= 0; i--) {
        const unsigned sum = (unsigned)c[i] + (unsigned)(n & 0xff) + carry;
        c[i] = (uint8_t)sum;
        carry = sum >> 8;
        n >>= 8;
    }
}

void ts_ctr_sub(uint8_t c[16], uint64_t n)
{
    unsigned borrow = 0;
    for (int i = 15; i >= 0; i--) {
        const unsigned sub = (unsigned)(n & 0xff) + borrow;
        borrow = (unsigned)c[i] < sub;
        c[i] = (uint8_t)((unsigned)c[i] - sub);
        n >>= 8;
    }
}

const uint8_t ts_fips197_key[32] = {
    0x00, 0x01, 0x02, 0x03, 0x04, 0x05, 0x06, 0x07, 0x08, 0x09, 0x0a, 0x0b, 0x0c, 0x0d, 0x0e, 0x0f,
    0x10, 0x11, 0x12, 0x13, 0x14, 0x15, 0x16, 0x17, 0x18, 0x19, 0x1a, 0x1b, 0x1c, 0x1d, 0x1e, 0x1f};

const uint8_t ts_fips197_pt[16] = {0x00, 0x11, 0x22, 0x33, 0x44, 0x55, 0x66, 0x77,
                                   0x88, 0x99, 0xaa, 0xbb, 0xcc, 0xdd, 0xee, 0xff};

const uint8_t ts_fips197_ct[3][16] = {
    {0x69, 0xc4, 0xe0, 0xd8, 0x6a, 0x7b, 0x04, 0x30, 0xd8, 0xcd, 0xb7, 0x80, 0x70, 0xb4, 0xc5, 0x5a},
    {0xdd, 0xa9, 0x7c, 0xa4, 0x86, 0x4c, 0xdf, 0xe0, 0x6e, 0xaf, 0x70, 0xa0, 0xec, 0x0d, 0x71, 0x91},
    {0x8e, 0xa2, 0xb7, 0xca, 0x51, 0x67, 0x45, 0xbf, 0xea, 0xfc, 0x49, 0x90, 0x4b, 0x49, 0x60, 0x89},
};
