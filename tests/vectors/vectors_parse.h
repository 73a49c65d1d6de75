/*
 * vectors_parse.h -- test-vector records and the parsers of the known-answer test
 * harness (aesgen_vectors). Two formats are read:
 *
 *  - NIST CAVP response files (.rsp): "[ENCRYPT]" / "[DECRYPT]" sections of
 *    records "COUNT = n", "KEY = hex", "IV = hex", "PLAINTEXT = hex",
 *    "CIPHERTEXT = hex";
 *  - the SP 800-38A appendix F example texts (AES_ECB.txt, ...): titled
 *    examples "CBC-AES128 (Encryption)" with "Key is", "IV is",
 *    "Initial Counter is", "Plaintext is", "Ciphertext is" labels, each
 *    followed by lines of hex in groups.
 */
#ifndef AESGEN_TEST_VECTORS_H
#define AESGEN_TEST_VECTORS_H

#include <stddef.h>
#include <stdint.h>

enum vec_mode { VEC_ECB = 0, VEC_CBC = 1, VEC_CTR = 2 };
enum vec_dir { VEC_ENC = 0, VEC_DEC = 1 };

typedef struct vec_record {
    unsigned count;    /* COUNT (.rsp) or example number in the file (SP 800-38A) */
    unsigned line;     /* line of the file where the record starts */
    int dir;           /* VEC_ENC / VEC_DEC: the section the record is in */
    int mode;          /* SP 800-38A: mode named by the title; .rsp: -1 */
    unsigned key_bits; /* 8 * key_len */
    uint8_t key[32];
    size_t key_len;
    uint8_t iv[16]; /* CBC IV or CTR initial counter block */
    int has_iv;
    uint8_t *pt; /* plaintext, pt_len bytes (owned) */
    uint8_t *ct; /* ciphertext, ct_len bytes (owned) */
    size_t pt_len;
    size_t ct_len;
} vec_record;

typedef struct vec_file {
    vec_record *rec;
    size_t n;
    size_t cap;
} vec_file;

/* Parser results. */
#define VEC_OK 0
#define VEC_ERR_FORMAT (-1) /* the file is malformed; err says where and why */
#define VEC_ERR_OPEN (-2)   /* the file cannot be opened */
#define VEC_ERR_MEMORY (-3)

/*
 * Parse a whole file into *out (which must be zeroed). Every record is
 * checked for completeness: a key of 16, 24 or 32 bytes, plaintext and
 * ciphertext of the same non-zero length that is a multiple of 16, a 16-byte
 * IV where one is given; .rsp COUNTs must run 0, 1, 2, ... in each section.
 * On error *out may hold the records read so far; free it with vec_file_free.
 */
int vec_parse_rsp(const char *path, vec_file *out, char *err, size_t errlen);
int vec_parse_sp80038a(const char *path, vec_file *out, char *err, size_t errlen);

void vec_file_free(vec_file *f);

#endif /* AESGEN_TEST_VECTORS_H */
