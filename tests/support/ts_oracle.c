/* ts_oracle.c -- OpenSSL EVP as the reference AES (see ts_oracle.h). */
#include "ts_oracle.h"

#include <string.h>

#include <openssl/crypto.h>
#include <openssl/opensslv.h>

const EVP_CIPHER *ts_oracle_cipher(unsigned bits, int mode)
{
    switch (mode) {
    case TS_MODE_ECB_ENC:
    case TS_MODE_ECB_DEC:
        return bits == 128 ? EVP_aes_128_ecb() : bits == 192 ? EVP_aes_192_ecb() : EVP_aes_256_ecb();
    case TS_MODE_CBC_ENC:
    case TS_MODE_CBC_DEC:
        return bits == 128 ? EVP_aes_128_cbc() : bits == 192 ? EVP_aes_192_cbc() : EVP_aes_256_cbc();
    default:
        return bits == 128 ? EVP_aes_128_ctr() : bits == 192 ? EVP_aes_192_ctr() : EVP_aes_256_ctr();
    }
}

const char *ts_oracle_begin(EVP_CIPHER_CTX *x, unsigned bits, int mode, const uint8_t *key,
                            const uint8_t *iv)
{
    const int enc = ts_mode_direction(mode) == AESGEN_ENCRYPT;
    if (EVP_CipherInit_ex(x, ts_oracle_cipher(bits, mode), NULL, key, ts_mode_is_ecb(mode) ? NULL : iv,
                          enc) != 1)
        return "EVP_CipherInit_ex";
    if (EVP_CIPHER_CTX_set_padding(x, 0) != 1)
        return "EVP_CIPHER_CTX_set_padding";
    return NULL;
}

const char *ts_oracle_update(EVP_CIPHER_CTX *x, uint8_t *out, const uint8_t *in, size_t len)
{
    while (len) {
        int n = len > (1u << 24) ? (1 << 24) : (int)len, outl = -1;
        if (EVP_CipherUpdate(x, out, &outl, in, n) != 1)
            return "EVP_CipherUpdate";
        if (outl != n)
            return "EVP_CipherUpdate output length";
        out += n;
        in += n;
        len -= (size_t)n;
    }
    return NULL;
}

const char *ts_oracle_state(EVP_CIPHER_CTX *x, uint8_t iv[16], unsigned *num)
{
#if OPENSSL_VERSION_NUMBER >= 0x30000000L
    if (EVP_CIPHER_CTX_get_updated_iv(x, iv, 16) != 1)
        return "EVP_CIPHER_CTX_get_updated_iv";
    *num = (unsigned)EVP_CIPHER_CTX_get_num(x);
#else
    memcpy(iv, EVP_CIPHER_CTX_iv(x), 16);
    *num = (unsigned)EVP_CIPHER_CTX_num(x);
#endif
    return NULL;
}

const char *ts_oracle_ecb_block(EVP_CIPHER_CTX *x, unsigned bits, const uint8_t *key,
                                const uint8_t in[16], uint8_t out[16])
{
    const char *err = ts_oracle_begin(x, bits, TS_MODE_ECB_ENC, key, NULL);
    return err ? err : ts_oracle_update(x, out, in, 16);
}

const char *ts_oracle_oneshot(unsigned bits, int mode, const uint8_t *key, const uint8_t *iv,
                              uint8_t *out, const uint8_t *in, size_t len)
{
    EVP_CIPHER_CTX *x = EVP_CIPHER_CTX_new();
    if (x == NULL)
        return "EVP_CIPHER_CTX_new";
    const char *err = ts_oracle_begin(x, bits, mode, key, iv);
    if (err == NULL)
        err = ts_oracle_update(x, out, in, len);
    if (err == NULL) {
        uint8_t fin[16];
        int finl = -1;
        if (EVP_CipherFinal_ex(x, fin, &finl) != 1)
            err = "EVP_CipherFinal_ex";
        else if (finl != 0)
            err = "EVP_CipherFinal_ex output length";
    }
    EVP_CIPHER_CTX_free(x);
    return err;
}

const char *ts_oracle_version(void)
{
    return OpenSSL_version(OPENSSL_VERSION);
}
