/* Load and unload the aesgen provider many times, each time in a fresh library
 * context, using it once per round: the ASan and memcheck stages see any leak.
 *   provider_load_loop <module-dir> [rounds] */
#include <stdio.h>
#include <stdlib.h>

#include <openssl/err.h>
#include <openssl/evp.h>
#include <openssl/provider.h>

int main(int argc, char **argv)
{
    if (argc < 2) {
        fprintf(stderr, "usage: %s <directory holding aesgen.so> [rounds]\n", argv[0]);
        return 2;
    }
    int rounds = argc > 2 ? atoi(argv[2]) : 200;
    static const unsigned char key[16], iv[16], pt[40];
    for (int i = 0; i < rounds; i++) {
        OSSL_LIB_CTX *lib = OSSL_LIB_CTX_new();
        OSSL_PROVIDER *p = NULL;
        if (lib == NULL || !OSSL_PROVIDER_set_default_search_path(lib, argv[1]) ||
            (p = OSSL_PROVIDER_load(lib, "aesgen")) == NULL) {
            fprintf(stderr, "round %d: cannot load aesgen from %s\n", i, argv[1]);
            ERR_print_errors_fp(stderr);
            return 1;
        }
        EVP_CIPHER *c = EVP_CIPHER_fetch(lib, "AES-128-CBC", "provider=aesgen");
        EVP_CIPHER_CTX *ctx = EVP_CIPHER_CTX_new();
        unsigned char out[64];
        int ol = 0, fl = 0;
        if (c == NULL || ctx == NULL || !EVP_EncryptInit_ex2(ctx, c, key, iv, NULL) ||
            !EVP_EncryptUpdate(ctx, out, &ol, pt, sizeof pt) || !EVP_EncryptFinal_ex(ctx, out + ol, &fl) ||
            ol + fl != 48) {
            fprintf(stderr, "round %d: AES-128-CBC through aesgen failed\n", i);
            ERR_print_errors_fp(stderr);
            return 1;
        }
        EVP_CIPHER_CTX_free(ctx);
        EVP_CIPHER_free(c);
        if (!OSSL_PROVIDER_unload(p)) {
            fprintf(stderr, "round %d: unload failed\n", i);
            return 1;
        }
        OSSL_LIB_CTX_free(lib);
    }
    printf("provider_load_loop: %d rounds of load, use, unload\n", rounds);
    return 0;
}
