/* TLS through the aesgen provider, in one process over an in-memory connection (a BIO
 * pair): OpenSSL's libssl with aesgen and the default provider loaded and aesgen
 * preferred (default properties "?provider=aesgen", as docs/openssl-provider.md
 * configures it). For TLS 1.3 with TLS_AES_128_GCM_SHA256 and TLS_AES_256_GCM_SHA384
 * and TLS 1.2 with ECDHE-ECDSA-AES128-GCM-SHA256 and ECDHE-ECDSA-AES256-GCM-SHA384:
 * a handshake, then 16 MiB from client to server and the same back, compared byte for
 * byte. The records went through aesgen: its call counter (the provider parameter
 * aesgen-calls) grows by at least one seal and one open per full record each way.
 *   provider_tls <module-dir>
 * AESGEN_DIFFERENTIAL_QUICK=1 (the memcheck stage) moves 1 MiB each way instead. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <openssl/err.h>
#include <openssl/evp.h>
#include <openssl/provider.h>
#include <openssl/ssl.h>
#include <openssl/x509.h>

#define RECORD 16384

static int failures;

#define FAIL(...)                                                                                       \
    do {                                                                                                \
        fprintf(stderr, "FAIL: " __VA_ARGS__);                                                          \
        fputc('\n', stderr);                                                                            \
        ERR_print_errors_fp(stderr);                                                                    \
        failures++;                                                                                     \
    } while (0)

static uint64_t calls(OSSL_PROVIDER *p)
{
    uint64_t n = 0;
    OSSL_PARAM params[] = {OSSL_PARAM_uint64("aesgen-calls", &n), OSSL_PARAM_END};
    if (!OSSL_PROVIDER_get_params(p, params))
        FAIL("the provider does not answer aesgen-calls");
    return n;
}

/* A self-signed P-256 certificate for the server, made here. */
static int make_cert(EVP_PKEY **key, X509 **cert)
{
    *key = EVP_PKEY_Q_keygen(NULL, NULL, "EC", "P-256");
    *cert = X509_new();
    X509_NAME *name = X509_NAME_new();
    int ok = *key && *cert && name && X509_set_version(*cert, 2) &&
             ASN1_INTEGER_set(X509_get_serialNumber(*cert), 1) && X509_gmtime_adj(X509_getm_notBefore(*cert), 0) &&
             X509_gmtime_adj(X509_getm_notAfter(*cert), 3600) &&
             X509_NAME_add_entry_by_txt(name, "CN", MBSTRING_ASC, (const unsigned char *)"localhost", -1, -1, 0) &&
             X509_set_subject_name(*cert, name) && X509_set_issuer_name(*cert, name) &&
             X509_set_pubkey(*cert, *key) && X509_sign(*cert, *key, EVP_sha256()) > 0;
    X509_NAME_free(name);
    return ok;
}

/* Whether an SSL call that returned rc only waits for the peer. */
static int waits(SSL *s, int rc)
{
    int e = SSL_get_error(s, rc);
    return e == SSL_ERROR_WANT_READ || e == SSL_ERROR_WANT_WRITE;
}

static int handshake(SSL *client, SSL *server)
{
    int cdone = 0, sdone = 0;
    for (int i = 0; i < 1000 && !(cdone && sdone); i++) {
        if (!cdone) {
            int rc = SSL_do_handshake(client);
            if (rc == 1)
                cdone = 1;
            else if (!waits(client, rc))
                return 0;
        }
        if (!sdone) {
            int rc = SSL_do_handshake(server);
            if (rc == 1)
                sdone = 1;
            else if (!waits(server, rc))
                return 0;
        }
    }
    return cdone && sdone;
}

/* len bytes from `from` to `to`, one record at a time, the reader draining the pair. */
static int transfer(SSL *from, SSL *to, const uint8_t *data, uint8_t *got, size_t len)
{
    size_t sent = 0, recvd = 0;
    while (recvd < len) {
        if (sent < len) {
            size_t n = len - sent < RECORD ? len - sent : RECORD;
            int rc = SSL_write(from, data + sent, (int)n);
            if (rc > 0)
                sent += (size_t)rc;
            else if (!waits(from, rc))
                return 0;
        }
        for (;;) {
            int rc = SSL_read(to, got + recvd, (int)(len - recvd < RECORD ? len - recvd : RECORD));
            if (rc > 0) {
                recvd += (size_t)rc;
                continue;
            }
            if (!waits(to, rc))
                return 0;
            break;
        }
    }
    return 1;
}

static void run_suite(OSSL_PROVIDER *aesgen, EVP_PKEY *key, X509 *cert, int tls13, const char *suite,
                      const uint8_t *data, uint8_t *got, size_t len)
{
    SSL_CTX *sctx = SSL_CTX_new(TLS_server_method()), *cctx = SSL_CTX_new(TLS_client_method());
    SSL *server = NULL, *client = NULL;
    BIO *cb = NULL, *sb = NULL;
    int v = tls13 ? TLS1_3_VERSION : TLS1_2_VERSION;
    if (!sctx || !cctx || !SSL_CTX_use_certificate(sctx, cert) || !SSL_CTX_use_PrivateKey(sctx, key) ||
        !SSL_CTX_set_min_proto_version(sctx, v) || !SSL_CTX_set_max_proto_version(sctx, v) ||
        !SSL_CTX_set_min_proto_version(cctx, v) || !SSL_CTX_set_max_proto_version(cctx, v) ||
        !(tls13 ? SSL_CTX_set_ciphersuites(sctx, suite) && SSL_CTX_set_ciphersuites(cctx, suite)
                : SSL_CTX_set_cipher_list(sctx, suite) && SSL_CTX_set_cipher_list(cctx, suite)) ||
        (server = SSL_new(sctx)) == NULL || (client = SSL_new(cctx)) == NULL ||
        !BIO_new_bio_pair(&cb, 4 * RECORD, &sb, 4 * RECORD)) {
        FAIL("%s: set-up", suite);
        goto done;
    }
    SSL_set_bio(client, cb, cb);
    SSL_set_bio(server, sb, sb);
    SSL_set_connect_state(client);
    SSL_set_accept_state(server);
    if (!handshake(client, server)) {
        FAIL("%s: handshake", suite);
        goto done;
    }
    const char *cname = SSL_get_cipher_name(client), *sname = SSL_get_cipher_name(server);
    const char *want = tls13 ? suite : NULL; /* TLS 1.2 names differ in spelling: check the version */
    if (SSL_version(client) != v || SSL_version(server) != v || (want && (strcmp(cname, want) || strcmp(sname, want))))
        FAIL("%s: negotiated %s / %s, %s", suite, cname, sname, SSL_get_version(client));
    uint64_t before = calls(aesgen);
    memset(got, 0, len);
    if (!transfer(client, server, data, got, len) || memcmp(got, data, len) != 0)
        FAIL("%s: client to server: %zu bytes did not arrive intact", suite, len);
    memset(got, 0, len);
    if (!transfer(server, client, data, got, len) || memcmp(got, data, len) != 0)
        FAIL("%s: server to client: %zu bytes did not arrive intact", suite, len);
    uint64_t used = calls(aesgen) - before, records = len / RECORD;
    /* Each direction: a seal at the sender and an open at the receiver per record. */
    if (used < 4 * records)
        FAIL("%s: aesgen-calls grew by %llu for %llu records each way: the records did not go through aesgen",
             suite, (unsigned long long)used, (unsigned long long)records);
    printf("  %-32s %s, %zu bytes each way intact; aesgen-calls +%llu (%llu records each way)\n", cname,
           SSL_get_version(client), len, (unsigned long long)used, (unsigned long long)records);
done:
    SSL_free(client);
    SSL_free(server);
    SSL_CTX_free(cctx);
    SSL_CTX_free(sctx);
}

int main(int argc, char **argv)
{
    if (argc != 2) {
        fprintf(stderr, "usage: %s <directory holding aesgen.so>\n", argv[0]);
        return 2;
    }
    const char *q = getenv("AESGEN_DIFFERENTIAL_QUICK");
    size_t len = (q != NULL && strcmp(q, "0") != 0 ? 1 : 16) << 20;
    OSSL_PROVIDER *aesgen = NULL, *dflt = NULL;
    if (!OSSL_PROVIDER_set_default_search_path(NULL, argv[1]) || (aesgen = OSSL_PROVIDER_load(NULL, "aesgen")) == NULL ||
        (dflt = OSSL_PROVIDER_load(NULL, "default")) == NULL || !EVP_set_default_properties(NULL, "?provider=aesgen")) {
        FAIL("cannot load aesgen from %s and the default provider", argv[1]);
        return 1;
    }
    EVP_PKEY *key = NULL;
    X509 *cert = NULL;
    uint8_t *data = malloc(len), *got = malloc(len);
    if (!make_cert(&key, &cert) || !data || !got) {
        FAIL("certificate or buffers");
        return 1;
    }
    uint64_t x = 0x9e3779b97f4a7c15u;
    for (size_t i = 0; i < len; i++) {
        x ^= x << 13, x ^= x >> 7, x ^= x << 17;
        data[i] = (uint8_t)x;
    }
    printf("provider_tls: libssl with aesgen preferred, over a BIO pair\n");
    run_suite(aesgen, key, cert, 1, "TLS_AES_128_GCM_SHA256", data, got, len);
    run_suite(aesgen, key, cert, 1, "TLS_AES_256_GCM_SHA384", data, got, len);
    run_suite(aesgen, key, cert, 0, "ECDHE-ECDSA-AES128-GCM-SHA256", data, got, len);
    run_suite(aesgen, key, cert, 0, "ECDHE-ECDSA-AES256-GCM-SHA384", data, got, len);
    free(data);
    free(got);
    X509_free(cert);
    EVP_PKEY_free(key);
    OSSL_PROVIDER_unload(dflt);
    OSSL_PROVIDER_unload(aesgen);
    printf("provider_tls: %s\n", failures ? "FAILED" : "PASS");
    return failures ? 1 : 0;
}
