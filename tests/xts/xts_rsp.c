/* xts_rsp.c -- the strict CAVP XTS reader (xts_rsp.h). */
#include "xts_rsp.h"

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
        return XTS_RSP_ERR_OPEN;
    for (;;) {
        if (cap - n < 4097) {
            const size_t ncap = cap ? cap * 2 : 1u << 20;
            char *nb = realloc(buf, ncap);
            if (nb == NULL) {
                free(buf);
                fclose(f);
                return XTS_RSP_ERR_MEMORY;
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
        return XTS_RSP_ERR_OPEN;
    }
    buf[n] = '\0';
    *text = buf;
    *len = n;
    return XTS_RSP_OK;
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

enum { F_DU, F_KEY, F_I, F_PT, F_CT, F_COUNT };
static const char *const field_name[F_COUNT] = {"DataUnitLen", "Key", "i", "PT", "CT"};

typedef struct pending {
    int open;
    unsigned count, line;
    const char *val[F_COUNT];
    size_t vlen[F_COUNT];
} pending;

typedef struct parser {
    xts_file *out;
    int section;         /* -1 none yet, 0 [ENCRYPT], 1 [DECRYPT] */
    unsigned next_count; /* the COUNT the next record of the section must have */
    char *err;
    size_t errlen;
} parser;

static void decode(const pending *q, int k, uint8_t *dst)
{
    for (size_t i = 0; i < q->vlen[k] / 2; i++)
        dst[i] = (uint8_t)(hex_value(q->val[k][2 * i]) << 4 | hex_value(q->val[k][2 * i + 1]));
}

static int finish_record(parser *p, pending *q)
{
    xts_rec r;
    if (!q->open)
        return XTS_RSP_OK;
    q->open = 0;
    memset(&r, 0, sizeof r);
    r.count = q->count;
    r.line = q->line;
    r.decrypt = p->section;
    for (int k = 0; k < F_COUNT; k++)
        if (q->val[k] == NULL) {
            set_err(p->err, p->errlen, "line %u: record COUNT = %u has no %s", q->line, q->count, field_name[k]);
            return XTS_RSP_ERR_FORMAT;
        }
    /* DataUnitLen: decimal, 1..2^24 * 8 */
    unsigned long du = 0;
    for (size_t i = 0; i < q->vlen[F_DU]; i++) {
        const char c = q->val[F_DU][i];
        if (c < '0' || c > '9' || i >= 9) {
            set_err(p->err, p->errlen, "line %u: DataUnitLen = %.*s is not a number", q->line, (int)q->vlen[F_DU],
                    q->val[F_DU]);
            return XTS_RSP_ERR_FORMAT;
        }
        du = du * 10 + (unsigned long)(c - '0');
    }
    if (q->vlen[F_DU] == 0 || du == 0) {
        set_err(p->err, p->errlen, "line %u: DataUnitLen missing or 0", q->line);
        return XTS_RSP_ERR_FORMAT;
    }
    for (int k = F_KEY; k < F_COUNT; k++) {
        for (size_t i = 0; i < q->vlen[k]; i++)
            if (hex_value(q->val[k][i]) < 0) {
                set_err(p->err, p->errlen, "line %u: %s is not hex", q->line, field_name[k]);
                return XTS_RSP_ERR_FORMAT;
            }
        if (q->vlen[k] % 2 != 0) {
            set_err(p->err, p->errlen, "line %u: %s has an odd number of hex digits", q->line, field_name[k]);
            return XTS_RSP_ERR_FORMAT;
        }
    }
    r.du_bits = du;
    r.key_len = q->vlen[F_KEY] / 2;
    r.len = (du + 7) / 8;
    if (r.key_len != 32 && r.key_len != 64) {
        set_err(p->err, p->errlen, "line %u: a %zu-byte key", q->line, r.key_len);
        return XTS_RSP_ERR_FORMAT;
    }
    if (q->vlen[F_I] != 32) {
        set_err(p->err, p->errlen, "line %u: i has %zu hex digits, not 32", q->line, q->vlen[F_I]);
        return XTS_RSP_ERR_FORMAT;
    }
    for (int k = F_PT; k <= F_CT; k++)
        if (q->vlen[k] != 2 * r.len) {
            set_err(p->err, p->errlen, "line %u: record COUNT = %u: %s has %zu hex digits, DataUnitLen = %lu", q->line,
                    q->count, field_name[k], q->vlen[k], du);
            return XTS_RSP_ERR_FORMAT;
        }
    r.pt = malloc(2 * r.len);
    if (r.pt == NULL)
        return XTS_RSP_ERR_MEMORY;
    r.ct = r.pt + r.len;
    decode(q, F_KEY, r.key);
    decode(q, F_I, r.tweak);
    decode(q, F_PT, r.pt);
    decode(q, F_CT, r.ct);
    xts_file *f = p->out;
    if (f->n == f->cap) {
        const size_t ncap = f->cap ? f->cap * 2 : 1024;
        xts_rec *nr = realloc(f->rec, ncap * sizeof *nr);
        if (nr == NULL) {
            free(r.pt);
            return XTS_RSP_ERR_MEMORY;
        }
        f->rec = nr;
        f->cap = ncap;
    }
    f->rec[f->n++] = r;
    f->sections[p->section]++;
    return XTS_RSP_OK;
}

int xts_rsp_parse(const char *path, xts_file *out, char *err, size_t errlen)
{
    char *text;
    size_t len;
    int rc = read_text(path, &text, &len);
    if (rc != XTS_RSP_OK) {
        set_err(err, errlen, "%s: %s", path, rc == XTS_RSP_ERR_OPEN ? "cannot read" : "out of memory");
        return rc;
    }
    parser p;
    pending q;
    memset(&p, 0, sizeof p);
    memset(&q, 0, sizeof q);
    p.out = out;
    p.section = -1;
    p.err = err;
    p.errlen = errlen;

    const char *cur = text, *end = text + len;
    unsigned lineno = 0;
    while (rc == XTS_RSP_OK && cur < end) {
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
            if (rc != XTS_RSP_OK)
                continue;
            int sec = -1;
            if (n == 9 && memcmp(b, "[ENCRYPT]", 9) == 0)
                sec = 0;
            else if (n == 9 && memcmp(b, "[DECRYPT]", 9) == 0)
                sec = 1;
            if (sec < 0 || sec <= p.section) {
                set_err(err, errlen, "line %u: unexpected section header %.*s", lineno, (int)n, b);
                rc = XTS_RSP_ERR_FORMAT;
                continue;
            }
            p.section = sec;
            p.next_count = 1;
            continue;
        }
        const char *eq = memchr(b, '=', n);
        if (eq == NULL) {
            set_err(err, errlen, "line %u: not understood: %.40s", lineno, b);
            rc = XTS_RSP_ERR_FORMAT;
            continue;
        }
        const char *ne = eq, *v = eq + 1;
        while (ne > b && is_blank(ne[-1]))
            ne--;
        while (v < e && is_blank(*v))
            v++;
        const size_t name_len = (size_t)(ne - b), vlen = (size_t)(e - v);
        if (name_len == 5 && memcmp(b, "COUNT", 5) == 0) {
            rc = finish_record(&p, &q);
            if (rc != XTS_RSP_OK)
                continue;
            if (p.section < 0) {
                set_err(err, errlen, "line %u: a record before [ENCRYPT] or [DECRYPT]", lineno);
                rc = XTS_RSP_ERR_FORMAT;
                continue;
            }
            unsigned long c = 0;
            size_t i = 0;
            for (; i < vlen && v[i] >= '0' && v[i] <= '9' && i < 9; i++)
                c = c * 10 + (unsigned long)(v[i] - '0');
            if (vlen == 0 || i != vlen || c != p.next_count) {
                set_err(err, errlen, "line %u: COUNT = %.*s where %u was due", lineno, (int)vlen, v, p.next_count);
                rc = XTS_RSP_ERR_FORMAT;
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
            rc = XTS_RSP_ERR_FORMAT;
        } else if (!q.open) {
            set_err(err, errlen, "line %u: %s outside a record", lineno, field_name[k]);
            rc = XTS_RSP_ERR_FORMAT;
        } else if (q.val[k] != NULL) {
            set_err(err, errlen, "line %u: %s given twice", lineno, field_name[k]);
            rc = XTS_RSP_ERR_FORMAT;
        } else {
            q.val[k] = v;
            q.vlen[k] = vlen;
        }
    }
    if (rc == XTS_RSP_OK)
        rc = finish_record(&p, &q);
    free(text);
    return rc;
}

void xts_file_free(xts_file *f)
{
    for (size_t i = 0; i < f->n; i++)
        free(f->rec[i].pt);
    free(f->rec);
    memset(f, 0, sizeof *f);
}
