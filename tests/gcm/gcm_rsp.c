/* gcm_rsp.c -- the strict CAVP GCM reader (gcm_rsp.h). */
#include "gcm_rsp.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void set_err(char *err, size_t errlen, const char *fmt, ...)
{
    va_list ap;
    if (err == NULL || errlen == 0)
        return;
    va_start(ap, fmt);
    vsnprintf(err, errlen, fmt, ap);
    va_end(ap);
}

static int read_text(const char *path, char **text, size_t *len)
{
    FILE *f = fopen(path, "rb");
    char *buf = NULL;
    size_t n = 0, cap = 0;
    if (f == NULL)
        return GCM_RSP_ERR_OPEN;
    for (;;) {
        if (cap - n < 4097) {
            const size_t ncap = cap ? cap * 2 : 1u << 20;
            char *nb = realloc(buf, ncap);
            if (nb == NULL) {
                free(buf);
                fclose(f);
                return GCM_RSP_ERR_MEMORY;
            }
            buf = nb;
            cap = ncap;
        }
        const size_t got = fread(buf + n, 1, cap - n - 1, f);
        n += got;
        if (got == 0)
            break;
    }
    const int bad = ferror(f);
    fclose(f);
    if (bad) {
        free(buf);
        return GCM_RSP_ERR_OPEN;
    }
    buf[n] = '\0';
    *text = buf;
    *len = n;
    return GCM_RSP_OK;
}

static int is_blank(char c)
{
    return c == ' ' || c == '\t' || c == '\r' || c == '\f' || c == '\v';
}

static int hex_value(char c)
{
    if (c >= '0' && c <= '9')
        return c - '0';
    if (c >= 'a' && c <= 'f')
        return c - 'a' + 10;
    if (c >= 'A' && c <= 'F')
        return c - 'A' + 10;
    return -1;
}

/* ------------------------------------------------------------- the record */

enum { F_KEY, F_IV, F_PT, F_AAD, F_CT, F_TAG, F_COUNT };
static const char *const field_name[F_COUNT] = {"Key", "IV", "PT", "AAD", "CT", "Tag"};

typedef struct pending {
    int open;
    unsigned count, line;
    const char *val[F_COUNT]; /* hex text, NULL: not given */
    size_t vlen[F_COUNT];
    int fail;
} pending;

enum { H_KEY, H_IV, H_PT, H_AAD, H_TAG, H_COUNT };
static const char *const header_name[H_COUNT] = {"Keylen", "IVlen", "PTlen", "AADlen", "Taglen"};

typedef struct parser {
    gcm_file *out;
    int decrypt;
    long header[H_COUNT]; /* -1: not seen yet */
    unsigned next_count;  /* the Count the next record of the section must have */
    char *err;
    size_t errlen;
} parser;

static int append(parser *p, gcm_rec *r)
{
    gcm_file *f = p->out;
    if (f->n == f->cap) {
        const size_t ncap = f->cap ? f->cap * 2 : 1024;
        gcm_rec *nr = realloc(f->rec, ncap * sizeof *nr);
        if (nr == NULL)
            return GCM_RSP_ERR_MEMORY;
        f->rec = nr;
        f->cap = ncap;
    }
    f->rec[f->n++] = *r;
    return GCM_RSP_OK;
}

/* Decodes the hex of field k into dst (its length already checked). */
static void decode(const pending *q, int k, uint8_t *dst)
{
    for (size_t i = 0; i < q->vlen[k] / 2; i++)
        dst[i] = (uint8_t)(hex_value(q->val[k][2 * i]) << 4 | hex_value(q->val[k][2 * i + 1]));
}

static int finish_record(parser *p, pending *q)
{
    gcm_rec r;
    if (!q->open)
        return GCM_RSP_OK;
    q->open = 0;
    memset(&r, 0, sizeof r);
    r.count = q->count;
    r.line = q->line;
    r.key_bits = (unsigned)p->header[H_KEY];
    r.iv_bits = (unsigned)p->header[H_IV];
    r.pt_bits = (unsigned)p->header[H_PT];
    r.aad_bits = (unsigned)p->header[H_AAD];
    r.tag_bits = (unsigned)p->header[H_TAG];
    r.fail = q->fail;
    r.has_pt = q->val[F_PT] != NULL;

    for (int k = 0; k < F_COUNT; k++)
        if (q->val[k] == NULL && k != F_PT) {
            set_err(p->err, p->errlen, "line %u: record Count = %u has no %s", q->line, q->count,
                    field_name[k]);
            return GCM_RSP_ERR_FORMAT;
        }
    if (!p->decrypt && (q->fail || !r.has_pt)) {
        set_err(p->err, p->errlen, "line %u: encryption record Count = %u %s", q->line, q->count,
                q->fail ? "is marked FAIL" : "has no PT");
        return GCM_RSP_ERR_FORMAT;
    }
    if (p->decrypt && q->fail == r.has_pt) {
        set_err(p->err, p->errlen, "line %u: decryption record Count = %u has %s", q->line,
                q->count, q->fail ? "both PT and FAIL" : "neither PT nor FAIL");
        return GCM_RSP_ERR_FORMAT;
    }
    /* lengths (hex digits / 2) against the section header (bits) */
    static const struct {
        int field, header;
    } match[] = {{F_KEY, H_KEY}, {F_IV, H_IV}, {F_PT, H_PT}, {F_AAD, H_AAD}, {F_CT, H_PT}, {F_TAG, H_TAG}};
    for (size_t i = 0; i < sizeof match / sizeof match[0]; i++) {
        const int k = match[i].field;
        if (q->val[k] == NULL)
            continue;
        if ((unsigned long)q->vlen[k] * 4 != (unsigned long)p->header[match[i].header]) {
            set_err(p->err, p->errlen, "line %u: record Count = %u: %s has %zu hex digits, [%s = %ld]",
                    q->line, q->count, field_name[k], q->vlen[k], header_name[match[i].header],
                    p->header[match[i].header]);
            return GCM_RSP_ERR_FORMAT;
        }
    }
    r.key_len = q->vlen[F_KEY] / 2;
    if (r.key_len != 16 && r.key_len != 24 && r.key_len != 32) {
        set_err(p->err, p->errlen, "line %u: a %zu-byte key", q->line, r.key_len);
        return GCM_RSP_ERR_FORMAT;
    }
    if (q->vlen[F_TAG] == 0 || q->vlen[F_IV] == 0) {
        set_err(p->err, p->errlen, "line %u: an empty IV or Tag", q->line);
        return GCM_RSP_ERR_FORMAT;
    }
    r.iv_len = q->vlen[F_IV] / 2;
    r.pt_len = r.has_pt ? q->vlen[F_PT] / 2 : 0;
    r.aad_len = q->vlen[F_AAD] / 2;
    r.ct_len = q->vlen[F_CT] / 2;
    r.tag_len = q->vlen[F_TAG] / 2;
    /* one allocation for the variable fields (at least one byte, so never NULL) */
    r.data = malloc(r.iv_len + r.pt_len + r.aad_len + r.ct_len + r.tag_len + 1);
    if (r.data == NULL)
        return GCM_RSP_ERR_MEMORY;
    r.iv = r.data;
    r.pt = r.iv + r.iv_len;
    r.aad = r.pt + r.pt_len;
    r.ct = r.aad + r.aad_len;
    r.tag = r.ct + r.ct_len;
    decode(q, F_KEY, r.key);
    decode(q, F_IV, r.iv);
    if (r.has_pt)
        decode(q, F_PT, r.pt);
    decode(q, F_AAD, r.aad);
    decode(q, F_CT, r.ct);
    decode(q, F_TAG, r.tag);
    if (append(p, &r) != GCM_RSP_OK) {
        free(r.data);
        return GCM_RSP_ERR_MEMORY;
    }
    if (r.fail)
        p->out->fail_records++;
    return GCM_RSP_OK;
}

/* "[Name = number]" */
static int header_line(parser *p, unsigned lineno, const char *s, size_t n)
{
    char name[32];
    size_t i = 1, j = 0;
    while (i < n && s[i] != ' ' && s[i] != '=' && s[i] != ']' && j + 1 < sizeof name)
        name[j++] = s[i++];
    name[j] = '\0';
    while (i < n && s[i] == ' ')
        i++;
    if (i >= n || s[i] != '=' || s[n - 1] != ']') {
        set_err(p->err, p->errlen, "line %u: malformed section header", lineno);
        return GCM_RSP_ERR_FORMAT;
    }
    i++;
    while (i < n && s[i] == ' ')
        i++;
    long v = 0;
    size_t digits = 0;
    while (i < n && s[i] >= '0' && s[i] <= '9' && digits < 9) {
        v = v * 10 + (s[i++] - '0');
        digits++;
    }
    while (i < n && s[i] == ' ')
        i++;
    if (digits == 0 || i != n - 1) {
        set_err(p->err, p->errlen, "line %u: section header %s without a number", lineno, name);
        return GCM_RSP_ERR_FORMAT;
    }
    for (int h = 0; h < H_COUNT; h++)
        if (strcmp(name, header_name[h]) == 0) {
            if (v % 8 != 0) {
                set_err(p->err, p->errlen, "line %u: [%s = %ld] is not whole bytes", lineno, name, v);
                return GCM_RSP_ERR_FORMAT;
            }
            p->header[h] = v;
            p->next_count = 0; /* a new section: Count starts again */
            return GCM_RSP_OK;
        }
    set_err(p->err, p->errlen, "line %u: unknown section header [%s]", lineno, name);
    return GCM_RSP_ERR_FORMAT;
}

int gcm_rsp_parse(const char *path, int decrypt, gcm_file *out, char *err, size_t errlen)
{
    char *text;
    size_t len;
    int rc = read_text(path, &text, &len);
    if (rc != GCM_RSP_OK) {
        set_err(err, errlen, "%s: %s", path, rc == GCM_RSP_ERR_OPEN ? "cannot read" : "out of memory");
        return rc;
    }
    parser p;
    pending q;
    memset(&p, 0, sizeof p);
    memset(&q, 0, sizeof q);
    p.out = out;
    p.decrypt = decrypt;
    p.err = err;
    p.errlen = errlen;
    for (int h = 0; h < H_COUNT; h++)
        p.header[h] = -1;

    const char *cur = text, *end = text + len;
    unsigned lineno = 0;
    rc = GCM_RSP_OK;
    while (rc == GCM_RSP_OK && cur < end) {
        const char *nl = memchr(cur, '\n', (size_t)(end - cur));
        const char *b = cur, *e = nl ? nl : end;
        cur = nl ? nl + 1 : end;
        lineno++;
        while (b < e && is_blank(*b))
            b++;
        while (e > b && is_blank(e[-1]))
            e--;
        const size_t n = (size_t)(e - b);
        if (n == 0) {
            rc = finish_record(&p, &q);
            continue;
        }
        if (b[0] == '#')
            continue;
        if (b[0] == '[') {
            rc = finish_record(&p, &q);
            if (rc == GCM_RSP_OK)
                rc = header_line(&p, lineno, b, n);
            continue;
        }
        if (n == 4 && memcmp(b, "FAIL", 4) == 0) {
            if (!q.open || q.fail) {
                set_err(err, errlen, "line %u: FAIL outside a record or twice", lineno);
                rc = GCM_RSP_ERR_FORMAT;
            } else if (!decrypt) {
                set_err(err, errlen, "line %u: FAIL in an encryption file", lineno);
                rc = GCM_RSP_ERR_FORMAT;
            }
            q.fail = 1;
            continue;
        }
        /* "Name = value" (the value may be empty) */
        const char *eq = memchr(b, '=', n);
        if (eq == NULL) {
            set_err(err, errlen, "line %u: not understood: %.40s", lineno, b);
            rc = GCM_RSP_ERR_FORMAT;
            continue;
        }
        const char *ne = eq, *v = eq + 1;
        while (ne > b && is_blank(ne[-1]))
            ne--;
        while (v < e && is_blank(*v))
            v++;
        const size_t name_len = (size_t)(ne - b), vlen = (size_t)(e - v);
        if (name_len == 5 && memcmp(b, "Count", 5) == 0) {
            rc = finish_record(&p, &q);
            if (rc != GCM_RSP_OK)
                continue;
            for (int h = 0; h < H_COUNT; h++)
                if (p.header[h] < 0) {
                    set_err(err, errlen, "line %u: a record before [%s = ...]", lineno, header_name[h]);
                    rc = GCM_RSP_ERR_FORMAT;
                    break;
                }
            if (rc != GCM_RSP_OK)
                continue;
            unsigned long c = 0;
            size_t i = 0;
            for (; i < vlen && v[i] >= '0' && v[i] <= '9' && i < 9; i++)
                c = c * 10 + (unsigned long)(v[i] - '0');
            if (vlen == 0 || i != vlen || c != p.next_count) {
                set_err(err, errlen, "line %u: Count = %.*s where %u was due", lineno, (int)vlen, v,
                        p.next_count);
                rc = GCM_RSP_ERR_FORMAT;
                continue;
            }
            p.next_count++;
            memset(&q, 0, sizeof q);
            q.open = 1;
            q.count = (unsigned)c;
            q.line = lineno;
            continue;
        }
        int k = 0;
        while (k < F_COUNT && !(strlen(field_name[k]) == name_len && memcmp(b, field_name[k], name_len) == 0))
            k++;
        if (k == F_COUNT) {
            set_err(err, errlen, "line %u: unknown field %.*s", lineno, (int)name_len, b);
            rc = GCM_RSP_ERR_FORMAT;
        } else if (!q.open) {
            set_err(err, errlen, "line %u: %s outside a record", lineno, field_name[k]);
            rc = GCM_RSP_ERR_FORMAT;
        } else if (q.val[k] != NULL) {
            set_err(err, errlen, "line %u: %s given twice", lineno, field_name[k]);
            rc = GCM_RSP_ERR_FORMAT;
        } else {
            for (size_t i = 0; i < vlen; i++)
                if (hex_value(v[i]) < 0) {
                    set_err(err, errlen, "line %u: %s is not hex", lineno, field_name[k]);
                    rc = GCM_RSP_ERR_FORMAT;
                    break;
                }
            if (rc == GCM_RSP_OK && vlen % 2 != 0) {
                set_err(err, errlen, "line %u: %s has an odd number of hex digits", lineno, field_name[k]);
                rc = GCM_RSP_ERR_FORMAT;
            }
            q.val[k] = v;
            q.vlen[k] = vlen;
        }
    }
    if (rc == GCM_RSP_OK)
        rc = finish_record(&p, &q);
    free(text);
    return rc;
}

void gcm_file_free(gcm_file *f)
{
    for (size_t i = 0; i < f->n; i++)
        free(f->rec[i].data);
    free(f->rec);
    memset(f, 0, sizeof *f);
}
