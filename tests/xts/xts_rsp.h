/*
 * xts_rsp.h -- a strict reader of the NIST CAVP XTS response files
 * (XTSGenAES128.rsp, XTSGenAES256.rsp):
 *
 *   [ENCRYPT]                       (or [DECRYPT]; records follow their section)
 *
 *   COUNT = 1
 *   DataUnitLen = 200               (bits; need not be a multiple of 8 or of 128)
 *   Key = <hex>                     (key1 || key2: 32 or 64 bytes)
 *   i = <hex>                       (the tweak: 16 bytes)
 *   PT = <hex>                      (ceil(DataUnitLen / 8) bytes)
 *   CT = <hex>                      (the same; PT and CT in either order)
 *
 * Anything not understood is an error naming the line, so that a reader that skips
 * data cannot pass for one that reads it: every field exactly once per record, the
 * lengths checked against DataUnitLen, COUNT running 1, 2, 3, ... in each section.
 */
#ifndef AESGEN_XTS_RSP_H
#define AESGEN_XTS_RSP_H

#include <stddef.h>
#include <stdint.h>

typedef struct xts_rec {
    unsigned count, line;   /* COUNT, line of "COUNT =" */
    int decrypt;            /* in the [DECRYPT] section */
    unsigned long du_bits;  /* DataUnitLen */
    uint8_t key[64];
    size_t key_len;         /* 32 or 64 */
    uint8_t tweak[16];
    size_t len;             /* bytes of PT and CT: ceil(du_bits / 8) */
    uint8_t *pt, *ct;       /* in one allocation (pt) */
} xts_rec;

typedef struct xts_file {
    xts_rec *rec;
    size_t n, cap;
    size_t sections[2];     /* records in [ENCRYPT], [DECRYPT] */
} xts_file;

#define XTS_RSP_OK 0
#define XTS_RSP_ERR_FORMAT (-1) /* malformed; err says where and why */
#define XTS_RSP_ERR_OPEN (-2)   /* cannot be opened or read */
#define XTS_RSP_ERR_MEMORY (-3)

/* Reads a whole file into *out (zeroed by the caller). On error *out may hold the
 * records read so far; free it with xts_file_free. */
int xts_rsp_parse(const char *path, xts_file *out, char *err, size_t errlen);
void xts_file_free(xts_file *f);

#endif
