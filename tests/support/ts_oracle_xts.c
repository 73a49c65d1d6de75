/* ts_oracle_xts.c -- OpenSSL EVP AES-XTS as the reference (see ts_oracle_xts.h). */
#include "ts_oracle_xts.h"

const EVP_CIPHER *ts_oracle_xts_cipher(unsigned bits)
{
    return bits == 128 ? EVP_aes_128_xts() : bits == 256 ? EVP_aes_256_xts() : NULL;
}

const char *ts_oracle_xts(EVP_CIPHER_CTX *x, unsigned bits, int enc, const uint8_t *key, const uint8_t tweak[16],
                          uint8_t *out, const uint8_t *in, size_t len)
{
    const EVP_CIPHER *c = ts_oracle_xts_cipher(bits);
    if (c == NULL)
        return "key size (128 or 256)";
    if (len < 16 || len > TS_ORACLE_XTS_MAX_UNIT)
        return "length (16..TS_ORACLE_XTS_MAX_UNIT)";
    if (EVP_CIPHER_CTX_reset(x) != 1)
        return "EVP_CIPHER_CTX_reset";
    if (EVP_CipherInit_ex(x, c, NULL, key, tweak, enc) != 1)
        return "EVP_CipherInit_ex";
    int outl = -1;
    if (EVP_CipherUpdate(x, out, &outl, in, (int)len) != 1)
        return "EVP_CipherUpdate";
    if (outl != (int)len)
        return "EVP_CipherUpdate output length";
    return NULL;
}
