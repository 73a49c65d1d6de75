/*
 * gcm_rsp.h -- a strict reader of the NIST CAVP GCM response files
 * (gcmEncryptExtIV*.rsp, gcmDecrypt*.rsp):
 *
 *   [Keylen = 128]  [IVlen = 96]  [PTlen = 0]  [AADlen = 0]  [Taglen = 128]   (bits)
 *
 *   Count = 0
 *   Key = <hex>
 *   IV = <hex>
 *   PT = <hex, possibly empty>      (decryption files: absent in FAIL records)
 *   AAD = <hex, possibly empty>
 *   CT = <hex, possibly empty>
 *   Tag = <hex>
 *   FAIL                            (decryption files: the tag must be rejected)
 *
 * Anything not understood is an error naming the line, so that a reader that skips
 * data cannot pass for one that reads it. Every record is checked against its
 * section's lengths, Count runs 0, 1, 2, ... in each section, an encryption file
 * has no FAIL record and every record a PT, a decryption record has exactly one of
 * PT and FAIL.
 */
#ifndef AESGEN_GCM_RSP_H
#define AESGEN_GCM_RSP_H

#include <stddef.h>
#include <stdint.h>

typedef struct gcm_rec {
    unsigned count, line;                                      /* Count, line of "Count =" */
    unsigned key_bits, iv_bits, pt_bits, aad_bits, tag_bits;   /* the section's header */
    uint8_t key[32];
    size_t key_len, iv_len, pt_len, aad_len, ct_len, tag_len;  /* bytes */
    uint8_t *iv, *pt, *aad, *ct, *tag;                         /* in one allocation (data) */
    int has_pt;                                                /* PT given */
    int fail;                                                  /* a FAIL record */
    uint8_t *data;
} gcm_rec;

typedef struct gcm_file {
    gcm_rec *rec;
    size_t n, cap;
    size_t fail_records; /* records marked FAIL */
} gcm_file;

#define GCM_RSP_OK 0
#define GCM_RSP_ERR_FORMAT (-1) /* malformed; err says where and why */
#define GCM_RSP_ERR_OPEN (-2)   /* cannot be opened or read */
#define GCM_RSP_ERR_MEMORY (-3)

/* Reads a whole file into *out (zeroed by the caller); decrypt: a gcmDecrypt file.
 * On error *out may hold the records read so far; free it with gcm_file_free. */
int gcm_rsp_parse(const char *path, int decrypt, gcm_file *out, char *err, size_t errlen);
void gcm_file_free(gcm_file *f);

#endif
