/* ts_oracle_gcm.c -- OpenSSL EVP AES-GCM as the reference (see ts_oracle_gcm.h). */
#include "ts_oracle_gcm.h"

#include <string.h>

const EVP_CIPHER *ts_oracle_gcm_cipher(unsigned bits)
{
    return bits == 128 ? EVP_aes_128_gcm() : bits == 192 ? EVP_aes_192_gcm() : EVP_aes_256_gcm();
}

/* x set up for GCM in direction enc with the key and an IV of iv_len bytes. */
static const char *begin(EVP_CIPHER_CTX *x, int enc, unsigned bits, const uint8_t *key, const uint8_t *iv,
                         size_t iv_len)
{
    if (iv_len == 0 || iv_len > TS_ORACLE_GCM_MAX_IV)
        return "IV length (1..TS_ORACLE_GCM_MAX_IV)";
    if (EVP_CIPHER_CTX_reset(x) != 1)
        return "EVP_CIPHER_CTX_reset";
    if (EVP_CipherInit_ex(x, ts_oracle_gcm_cipher(bits), NULL, NULL, NULL, enc) != 1)
        return "EVP_CipherInit_ex (cipher)";
    if (EVP_CIPHER_CTX_ctrl(x, EVP_CTRL_GCM_SET_IVLEN, (int)iv_len, NULL) != 1)
        return "EVP_CTRL_GCM_SET_IVLEN";
    if (EVP_CipherInit_ex(x, NULL, NULL, key, iv, enc) != 1)
        return "EVP_CipherInit_ex (key, IV)";
    return NULL;
}

/* in -> out (out NULL: AAD) in calls of at most 2^24 bytes (int lengths); each text
 * call must give as many bytes as it takes. */
static const char *update(EVP_CIPHER_CTX *x, uint8_t *out, const uint8_t *in, size_t len)
{
    while (len != 0) {
        const int n = len > ((size_t)1 << 24) ? 1 << 24 : (int)len;
        int outl = -1;
        if (EVP_CipherUpdate(x, out, &outl, in, n) != 1)
            return out != NULL ? "EVP_CipherUpdate (text)" : "EVP_CipherUpdate (AAD)";
        if (out != NULL && outl != n)
            return "EVP_CipherUpdate output length";
        if (out != NULL)
            out += n;
        in += n;
        len -= (size_t)n;
    }
    return NULL;
}

const char *ts_oracle_gcm_seal(EVP_CIPHER_CTX *x, unsigned bits, const uint8_t *key, const uint8_t *iv,
                               size_t iv_len, const uint8_t *aad, size_t aad_len, uint8_t *out,
                               const uint8_t *in, size_t len, uint8_t tag[16])
{
    const char *e = begin(x, 1, bits, key, iv, iv_len);
    if (e == NULL && aad_len != 0)
        e = update(x, NULL, aad, aad_len);
    if (e == NULL && len != 0)
        e = update(x, out, in, len);
    if (e != NULL)
        return e;
    uint8_t last[16];
    int outl = -1;
    if (EVP_EncryptFinal_ex(x, last, &outl) != 1 || outl != 0)
        return "EVP_EncryptFinal_ex";
    if (EVP_CIPHER_CTX_ctrl(x, EVP_CTRL_GCM_GET_TAG, 16, tag) != 1)
        return "EVP_CTRL_GCM_GET_TAG";
    return NULL;
}

const char *ts_oracle_gcm_open(EVP_CIPHER_CTX *x, unsigned bits, const uint8_t *key, const uint8_t *iv,
                               size_t iv_len, const uint8_t *aad, size_t aad_len, uint8_t *out,
                               const uint8_t *in, size_t len, const uint8_t *tag, size_t tag_len,
                               int *authentic)
{
    if (tag_len == 0 || tag_len > 16)
        return "tag length (1..16)";
    const char *e = begin(x, 0, bits, key, iv, iv_len);
    if (e != NULL)
        return e;
    uint8_t t[16];
    memcpy(t, tag, tag_len);
    if (EVP_CIPHER_CTX_ctrl(x, EVP_CTRL_GCM_SET_TAG, (int)tag_len, t) != 1)
        return "EVP_CTRL_GCM_SET_TAG";
    if (aad_len != 0)
        e = update(x, NULL, aad, aad_len);
    if (e == NULL && len != 0)
        e = update(x, out, in, len);
    if (e != NULL)
        return e;
    uint8_t last[16];
    int outl = -1;
    *authentic = EVP_DecryptFinal_ex(x, last, &outl) > 0;
    if (*authentic && outl != 0)
        return "EVP_DecryptFinal_ex output length";
    return NULL;
}
