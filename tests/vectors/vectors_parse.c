/*
 * vectors_parse.c -- strict readers for the CAVP .rsp files and the
 * SP 800-38A example texts. Anything not understood is an error, so that a
 * parser which silently skips data cannot pass for one that reads it.
 */
#include "vectors_parse.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---------------------------------------------------------------- helpers */

static void set_err(char *err, size_t errlen, const char *fmt, ...)
{
    va_list ap;
    if (err == NULL || errlen == 0)
        return;
    va_start(ap, fmt);
    vsnprintf(err, errlen, fmt, ap);
    va_end(ap);
}

/* Read a whole file; the text is NUL-terminated. */
static int read_text(const char *path, char **text, size_t *len)
{
    FILE *f = fopen(path, "rb");
    char *buf = NULL;
    size_t n = 0, cap = 0;

    if (f == NULL)
        return VEC_ERR_OPEN;
    for (;;) {
        size_t got;
        if (cap - n < 4097) {
            size_t ncap = cap ? cap * 2 : 65536;
            char *nb = realloc(buf, ncap);
            if (nb == NULL) {
                free(buf);
                fclose(f);
                return VEC_ERR_MEMORY;
            }
            buf = nb;
            cap = ncap;
        }
        got = fread(buf + n, 1, cap - n - 1, f);
        n += got;
        if (got == 0)
            break;
    }
    if (ferror(f)) {
        free(buf);
        fclose(f);
        return VEC_ERR_OPEN;
    }
    fclose(f);
    buf[n] = '\0';
    *text = buf;
    *len = n;
    return VEC_OK;
}

typedef struct line_iter {
    const char *p;
    const char *end;
    unsigned lineno;
} line_iter;

static int is_space(char c)
{
    return c == ' ' || c == '\t' || c == '\r' || c == '\f' || c == '\v';
}

/* Next line with leading and trailing white space (and a CR) removed. */
static int next_line(line_iter *it, const char **s, size_t *n)
{
    const char *b, *e, *nl;
    if (it->p >= it->end)
        return 0;
    b = it->p;
    nl = memchr(b, '\n', (size_t)(it->end - b));
    e = nl ? nl : it->end;
    it->p = nl ? nl + 1 : it->end;
    it->lineno++;
    while (b < e && is_space(*b))
        b++;
    while (e > b && is_space(e[-1]))
        e--;
    *s = b;
    *n = (size_t)(e - b);
    return 1;
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

typedef struct bytes {
    uint8_t *p;
    size_t n;
    size_t cap;
} bytes;

static void bytes_free(bytes *b)
{
    free(b->p);
    b->p = NULL;
    b->n = b->cap = 0;
}

/* Append the bytes of s[0..n) (an even number of hex digits, nothing else). */
static int hex_append(bytes *b, const char *s, size_t n)
{
    size_t i;
    if (n == 0 || n % 2 != 0)
        return VEC_ERR_FORMAT;
    for (i = 0; i < n; i++)
        if (hex_value(s[i]) < 0)
            return VEC_ERR_FORMAT;
    if (b->cap - b->n < n / 2) {
        size_t ncap = b->cap ? b->cap : 64;
        uint8_t *np;
        while (ncap - b->n < n / 2)
            ncap *= 2;
        np = realloc(b->p, ncap);
        if (np == NULL)
            return VEC_ERR_MEMORY;
        b->p = np;
        b->cap = ncap;
    }
    for (i = 0; i < n; i += 2)
        b->p[b->n++] = (uint8_t)(hex_value(s[i]) << 4 | hex_value(s[i + 1]));
    return VEC_OK;
}

/* A line made only of groups of hex digits separated by blanks. */
static int is_hex_groups(const char *s, size_t n)
{
    size_t i = 0, groups = 0;
    while (i < n) {
        size_t start;
        while (i < n && is_space(s[i]))
            i++;
        if (i >= n)
            break;
        start = i;
        while (i < n && !is_space(s[i])) {
            if (hex_value(s[i]) < 0)
                return 0;
            i++;
        }
        if ((i - start) % 2 != 0)
            return 0;
        groups++;
    }
    return groups > 0;
}

static int hex_groups_append(bytes *b, const char *s, size_t n)
{
    size_t i = 0;
    while (i < n) {
        size_t start;
        int rc;
        while (i < n && is_space(s[i]))
            i++;
        if (i >= n)
            break;
        start = i;
        while (i < n && !is_space(s[i]))
            i++;
        rc = hex_append(b, s + start, i - start);
        if (rc != VEC_OK)
            return rc;
    }
    return VEC_OK;
}

/* A line of only separator characters: ----, ####, ====, ****. */
static int is_separator(const char *s, size_t n)
{
    size_t i;
    for (i = 0; i < n; i++)
        if (s[i] != '-' && s[i] != '#' && s[i] != '=' && s[i] != '*')
            return 0;
    return 1;
}

static int str_is(const char *s, size_t n, const char *lit)
{
    return strlen(lit) == n && memcmp(s, lit, n) == 0;
}

static vec_record *new_record(vec_file *f)
{
    vec_record *r;
    if (f->n == f->cap) {
        size_t ncap = f->cap ? f->cap * 2 : 64;
        vec_record *nr = realloc(f->rec, ncap * sizeof *nr);
        if (nr == NULL)
            return NULL;
        f->rec = nr;
        f->cap = ncap;
    }
    r = &f->rec[f->n++];
    memset(r, 0, sizeof *r);
    r->mode = -1;
    return r;
}

void vec_file_free(vec_file *f)
{
    size_t i;
    for (i = 0; i < f->n; i++) {
        free(f->rec[i].pt);
        free(f->rec[i].ct);
    }
    free(f->rec);
    f->rec = NULL;
    f->n = f->cap = 0;
}

/* Completeness checks common to both formats. */
static int check_record(const vec_record *r, const char *path, char *err, size_t errlen)
{
    if (r->key_len != 16 && r->key_len != 24 && r->key_len != 32) {
        set_err(err, errlen, "%s:%u: record has no key of 16, 24 or 32 bytes (%zu bytes)",
                path, r->line, r->key_len);
        return VEC_ERR_FORMAT;
    }
    if (r->pt == NULL || r->ct == NULL) {
        set_err(err, errlen, "%s:%u: record lacks %s", path, r->line,
                r->pt == NULL ? "a plaintext" : "a ciphertext");
        return VEC_ERR_FORMAT;
    }
    if (r->pt_len != r->ct_len || r->pt_len == 0 || r->pt_len % 16 != 0) {
        set_err(err, errlen,
                "%s:%u: plaintext (%zu bytes) and ciphertext (%zu bytes) are not the same "
                "whole number of blocks",
                path, r->line, r->pt_len, r->ct_len);
        return VEC_ERR_FORMAT;
    }
    return VEC_OK;
}

/* --------------------------------------------------------- CAVP .rsp files */

/* Store one field of a record; returns NULL or what is wrong with it. */
static const char *rsp_field(vec_record *r, const char *name, size_t nlen, const char *val,
                             size_t vlen)
{
    bytes b = {NULL, 0, 0};
    const char *why = NULL;
    int is_key = str_is(name, nlen, "KEY"), is_iv = str_is(name, nlen, "IV");
    int is_pt = str_is(name, nlen, "PLAINTEXT"), is_ct = str_is(name, nlen, "CIPHERTEXT");

    if (!is_key && !is_iv && !is_pt && !is_ct)
        return "unknown field";
    if ((is_key && r->key_len != 0) || (is_iv && r->has_iv) || (is_pt && r->pt != NULL) ||
        (is_ct && r->ct != NULL))
        return "field repeated in one record";
    switch (hex_append(&b, val, vlen)) {
    case VEC_OK:
        break;
    case VEC_ERR_MEMORY:
        why = "out of memory";
        break;
    default:
        why = "value is not an even number of hex digits";
        break;
    }
    if (why == NULL && is_key) {
        if (b.n != 16 && b.n != 24 && b.n != 32) {
            why = "key is not 16, 24 or 32 bytes";
        } else {
            memcpy(r->key, b.p, b.n);
            r->key_len = b.n;
            r->key_bits = (unsigned)(8 * b.n);
        }
    } else if (why == NULL && is_iv) {
        if (b.n != 16) {
            why = "IV is not 16 bytes";
        } else {
            memcpy(r->iv, b.p, 16);
            r->has_iv = 1;
        }
    } else if (why == NULL) {
        if (is_pt) {
            r->pt = b.p;
            r->pt_len = b.n;
        } else {
            r->ct = b.p;
            r->ct_len = b.n;
        }
        return NULL; /* the record owns the bytes now */
    }
    bytes_free(&b);
    return why;
}

int vec_parse_rsp(const char *path, vec_file *out, char *err, size_t errlen)
{
    char *text = NULL;
    size_t len = 0, i;
    line_iter it;
    const char *s;
    size_t n;
    int section = -1, rc;
    unsigned next_count = 0;
    vec_record *cur = NULL;

    rc = read_text(path, &text, &len);
    if (rc == VEC_ERR_OPEN) {
        set_err(err, errlen, "%s: cannot open", path);
        return rc;
    }
    if (rc != VEC_OK) {
        set_err(err, errlen, "%s: out of memory", path);
        return rc;
    }
    it.p = text;
    it.end = text + len;
    it.lineno = 0;

    while (next_line(&it, &s, &n)) {
        const char *eq, *name_end, *val;
        size_t nlen, vlen;

        if (n == 0 || s[0] == '#')
            continue;
        if (s[0] == '[') {
            if (str_is(s, n, "[ENCRYPT]"))
                section = VEC_ENC;
            else if (str_is(s, n, "[DECRYPT]"))
                section = VEC_DEC;
            else {
                set_err(err, errlen, "%s:%u: unknown section %.*s", path, it.lineno, (int)n, s);
                rc = VEC_ERR_FORMAT;
                goto done;
            }
            next_count = 0;
            cur = NULL;
            continue;
        }
        eq = memchr(s, '=', n);
        if (eq == NULL) {
            set_err(err, errlen, "%s:%u: not a NAME = VALUE line: %.*s", path, it.lineno,
                    (int)n, s);
            rc = VEC_ERR_FORMAT;
            goto done;
        }
        name_end = eq;
        while (name_end > s && is_space(name_end[-1]))
            name_end--;
        nlen = (size_t)(name_end - s);
        val = eq + 1;
        while (val < s + n && is_space(*val))
            val++;
        vlen = (size_t)(s + n - val);

        if (str_is(s, nlen, "COUNT")) {
            unsigned long c = 0;
            size_t k;
            if (section < 0) {
                set_err(err, errlen, "%s:%u: COUNT outside [ENCRYPT]/[DECRYPT]", path, it.lineno);
                rc = VEC_ERR_FORMAT;
                goto done;
            }
            if (vlen == 0 || vlen > 9) {
                set_err(err, errlen, "%s:%u: bad COUNT", path, it.lineno);
                rc = VEC_ERR_FORMAT;
                goto done;
            }
            for (k = 0; k < vlen; k++) {
                if (val[k] < '0' || val[k] > '9') {
                    set_err(err, errlen, "%s:%u: bad COUNT", path, it.lineno);
                    rc = VEC_ERR_FORMAT;
                    goto done;
                }
                c = c * 10 + (unsigned long)(val[k] - '0');
            }
            if (c != next_count) {
                set_err(err, errlen, "%s:%u: COUNT = %lu where %u was expected", path,
                        it.lineno, c, next_count);
                rc = VEC_ERR_FORMAT;
                goto done;
            }
            next_count++;
            cur = new_record(out);
            if (cur == NULL) {
                set_err(err, errlen, "%s: out of memory", path);
                rc = VEC_ERR_MEMORY;
                goto done;
            }
            cur->count = (unsigned)c;
            cur->line = it.lineno;
            cur->dir = section;
            continue;
        }
        if (cur == NULL) {
            set_err(err, errlen, "%s:%u: %.*s before any COUNT", path, it.lineno, (int)nlen, s);
            rc = VEC_ERR_FORMAT;
            goto done;
        }
        {
            const char *why = rsp_field(cur, s, nlen, val, vlen);
            if (why != NULL) {
                set_err(err, errlen, "%s:%u: %s: %.*s", path, it.lineno, why, (int)n, s);
                rc = VEC_ERR_FORMAT;
                goto done;
            }
        }
    }

    for (i = 0; i < out->n; i++) {
        rc = check_record(&out->rec[i], path, err, errlen);
        if (rc != VEC_OK)
            goto done;
    }
    rc = VEC_OK;
done:
    free(text);
    return rc;
}

/* ---------------------------------------------------- SP 800-38A examples */

enum sp_target { T_NONE, T_KEY, T_IV, T_PT, T_CT, T_DISCARD };

typedef struct sp_example {
    int active;
    unsigned line;
    int mode, dir;
    unsigned bits;
    bytes key, iv, pt, ct;
    int seen[T_DISCARD + 1];
} sp_example;

/* "CBC-AES128 (Encryption)" and the like. */
static int sp_title(const char *s, size_t n, int *mode, unsigned *bits, int *dir)
{
    if (n != 23)
        return 0;
    if (memcmp(s, "ECB", 3) == 0)
        *mode = VEC_ECB;
    else if (memcmp(s, "CBC", 3) == 0)
        *mode = VEC_CBC;
    else if (memcmp(s, "CTR", 3) == 0)
        *mode = VEC_CTR;
    else
        return 0;
    if (memcmp(s + 3, "-AES", 4) != 0)
        return 0;
    if (memcmp(s + 7, "128", 3) == 0)
        *bits = 128;
    else if (memcmp(s + 7, "192", 3) == 0)
        *bits = 192;
    else if (memcmp(s + 7, "256", 3) == 0)
        *bits = 256;
    else
        return 0;
    if (memcmp(s + 10, " (Encryption)", 13) == 0)
        *dir = VEC_ENC;
    else if (memcmp(s + 10, " (Decryption)", 13) == 0)
        *dir = VEC_DEC;
    else
        return 0;
    return 1;
}

static void sp_example_clear(sp_example *e)
{
    bytes_free(&e->key);
    bytes_free(&e->iv);
    bytes_free(&e->pt);
    bytes_free(&e->ct);
    memset(e, 0, sizeof *e);
}

/* Move a finished example into the file. */
static int sp_finish(sp_example *e, const bytes *header_iv, vec_file *out, const char *path,
                     char *err, size_t errlen)
{
    vec_record *r;
    const bytes *iv;

    if (!e->active)
        return VEC_OK;
    if (e->key.n != e->bits / 8) {
        set_err(err, errlen, "%s:%u: example has a %zu-byte key, not %u bytes", path, e->line,
                e->key.n, e->bits / 8);
        return VEC_ERR_FORMAT;
    }
    iv = e->seen[T_IV] ? &e->iv : header_iv;
    if (e->mode != VEC_ECB && iv->n != 16) {
        set_err(err, errlen, "%s:%u: example has no 16-byte %s", path, e->line,
                e->mode == VEC_CTR ? "initial counter" : "IV");
        return VEC_ERR_FORMAT;
    }
    r = new_record(out);
    if (r == NULL) {
        set_err(err, errlen, "%s: out of memory", path);
        return VEC_ERR_MEMORY;
    }
    r->count = (unsigned)(out->n - 1); /* examples are numbered 0, 1, ... in file order */
    r->line = e->line;
    r->dir = e->dir;
    r->mode = e->mode;
    r->key_bits = e->bits;
    r->key_len = e->key.n;
    memcpy(r->key, e->key.p, e->key.n);
    if (e->mode != VEC_ECB) {
        memcpy(r->iv, iv->p, 16);
        r->has_iv = 1;
    }
    r->pt = e->pt.p;
    r->pt_len = e->pt.n;
    r->ct = e->ct.p;
    r->ct_len = e->ct.n;
    e->pt.p = NULL; /* now owned by the record */
    e->ct.p = NULL;
    sp_example_clear(e);
    return check_record(r, path, err, errlen);
}

int vec_parse_sp80038a(const char *path, vec_file *out, char *err, size_t errlen)
{
    char *text = NULL;
    size_t len = 0;
    line_iter it;
    const char *s;
    size_t n;
    int rc = VEC_OK;
    int target = T_NONE;
    bytes header_iv = {NULL, 0, 0}, discard = {NULL, 0, 0};
    sp_example ex;

    memset(&ex, 0, sizeof ex);
    rc = read_text(path, &text, &len);
    if (rc == VEC_ERR_OPEN) {
        set_err(err, errlen, "%s: cannot open", path);
        return rc;
    }
    if (rc != VEC_OK) {
        set_err(err, errlen, "%s: out of memory", path);
        return rc;
    }
    it.p = text;
    it.end = text + len;
    it.lineno = 0;

    while (next_line(&it, &s, &n)) {
        int mode, dir;
        unsigned bits;

        /* Blank and separator lines may sit anywhere, even inside hex data. */
        if (n == 0 || is_separator(s, n))
            continue;
        if (sp_title(s, n, &mode, &bits, &dir)) {
            rc = sp_finish(&ex, &header_iv, out, path, err, errlen);
            if (rc != VEC_OK)
                goto done;
            ex.active = 1;
            ex.line = it.lineno;
            ex.mode = mode;
            ex.dir = dir;
            ex.bits = bits;
            target = T_NONE;
            continue;
        }
        if (str_is(s, n, "Key is"))
            target = T_KEY;
        else if (str_is(s, n, "IV is") || str_is(s, n, "Initial Counter is"))
            target = T_IV;
        else if (str_is(s, n, "Plaintext is"))
            target = T_PT;
        else if (str_is(s, n, "Ciphertext is"))
            target = T_CT;
        else if (is_hex_groups(s, n)) {
            bytes *b;
            if (target == T_NONE) {
                set_err(err, errlen, "%s:%u: hex data without a label: %.*s", path, it.lineno,
                        (int)n, s);
                rc = VEC_ERR_FORMAT;
                goto done;
            }
            if (!ex.active)
                b = target == T_IV ? &header_iv : &discard; /* header: IV/counter, sample text */
            else if (target == T_KEY)
                b = &ex.key;
            else if (target == T_IV)
                b = &ex.iv;
            else if (target == T_PT)
                b = &ex.pt;
            else
                b = &ex.ct;
            rc = hex_groups_append(b, s, n);
            if (rc != VEC_OK) {
                set_err(err, errlen, "%s:%u: bad hex", path, it.lineno);
                goto done;
            }
            continue;
        } else {
            target = T_NONE; /* per-block trace lines and prose end a value */
            continue;
        }
        /* a label */
        if (ex.active) {
            if (ex.seen[target]) {
                set_err(err, errlen, "%s:%u: label repeated in one example: %.*s", path,
                        it.lineno, (int)n, s);
                rc = VEC_ERR_FORMAT;
                goto done;
            }
            ex.seen[target] = 1;
        } else if (target == T_IV && header_iv.n != 0) {
            set_err(err, errlen, "%s:%u: second IV in the header", path, it.lineno);
            rc = VEC_ERR_FORMAT;
            goto done;
        }
    }
    rc = sp_finish(&ex, &header_iv, out, path, err, errlen);
done:
    sp_example_clear(&ex);
    bytes_free(&header_iv);
    bytes_free(&discard);
    free(text);
    return rc;
}
