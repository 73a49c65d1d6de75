/*
 * A product's use of aesgen, built by tests/consumer against an installed tree, through
 * pkg-config, or with aesgen as a subproject: the FIPS-197 appendix C example vectors
 * (AES-128/192/256) encrypted and decrypted through the public API only.
 */
#include <aesgen.h>
#include <stdio.h>
#include <string.h>

static const char *const expected[3] = {
    "69c4e0d86a7b0430d8cdb78070b4c55a", /* C.1 AES-128 */
    "dda97ca4864cdfe06eaf70a0ec0d7191", /* C.2 AES-192 */
    "8ea2b7ca516745bfeafc49904b496089", /* C.3 AES-256 */
};

static void hex(char out[33], const uint8_t in[16])
{
    for (int i = 0; i < 16; i++)
        snprintf(out + 2 * i, 3, "%02x", in[i]);
}

int main(void)
{
    uint8_t key[32], plain[16], block[16];
    for (int i = 0; i < 32; i++)
        key[i] = (uint8_t)i;                       /* 000102...1f */
    for (int i = 0; i < 16; i++)
        plain[i] = (uint8_t)(i * 0x11);            /* 00112233...ff */

    int failures = 0;
    for (int k = 0; k < 3; k++) {
        const size_t key_len = 16 + 8 * (size_t)k;
        aesgen_ctx ctx;
        int rc = aesgen_init(&ctx, key, key_len);
        if (rc != AESGEN_OK) {
            printf("AES-%zu: aesgen_init failed: %s\n", key_len * 8, aesgen_status_string(rc));
            failures++;
            continue;
        }
        char got[33];
        rc = aesgen_ecb_encrypt(&ctx, block, plain, sizeof block);
        hex(got, block);
        const int enc_ok = rc == AESGEN_OK && strcmp(got, expected[k]) == 0;
        rc = aesgen_ecb_decrypt(&ctx, block, block, sizeof block);
        const int dec_ok = rc == AESGEN_OK && memcmp(block, plain, 16) == 0;
        printf("AES-%zu: %s %s, decrypts %s (%s)\n", key_len * 8, got, enc_ok ? "ok" : "WRONG",
               dec_ok ? "ok" : "WRONG", aesgen_ctx_variant(&ctx, AESGEN_ENCRYPT));
        failures += !enc_ok + !dec_ok;
        aesgen_wipe(&ctx);
    }
    /* the header compiled against and the library loaded must be the same release */
    char header_version[32];
    snprintf(header_version, sizeof header_version, "%d.%d.%d", AESGEN_VERSION_MAJOR, AESGEN_VERSION_MINOR,
             AESGEN_VERSION_PATCH);
    if (strcmp(aesgen_version_string(), header_version) != 0) {
        printf("library version %s, header version %s\n", aesgen_version_string(), header_version);
        failures++;
    }
    const char *backend = aesgen_selected_backend(128, AESGEN_ENCRYPT);
    const char *variant = aesgen_selected_variant(128, AESGEN_ENCRYPT);
    printf("aesgen %s, backend %s\n", aesgen_version_string(), backend ? backend : "(none)");
    printf("variant: %s\n", variant ? variant : "(none)");
    printf("backends:");
    for (size_t i = 0; i < aesgen_backend_count(); i++)
        printf(" %s", aesgen_backend_name(i));
    printf("\n");
    printf("FIPS-197 C.1 C.2 C.3: %s\n", failures ? "FAILED" : "passed");
    return failures ? 1 : 0;
}
