/*
 * bench.h -- shared declarations of aesgen-bench (the benchmark program).
 *
 * The program measures "implementations" (rows): every aesgen backend,
 * OpenSSL EVP, OpenSSL with AES-NI masked (in a child process), BearSSL
 * ct64, RustCrypto aes 0.6 (soft backend), libgcrypt and intel-ipsec-mb
 * when they were found at configure time, over the same operations (ECB,
 * CTR, CBC, GCM, XTS), key sizes and message sizes.
 *
 * Files: aesgen_bench.c (main), bench_args.c (command line), bench_run.c
 * (set-up of a run), bench_measure.c (correctness check, measurement,
 * statistics), bench_report_text.c and bench_report_json.c (output),
 * bench_data.c (operations, test data, the GCM message layout, the XTS
 * keys and tweaks),
 * bench_impls.c (the aesgen rows, the table of optional peers, timing),
 * bench_openssl.c (the OpenSSL row and the reference every row is checked
 * against), bench_peer.c (the OpenSSL-masked child), bench_clock.c (clocks,
 * counters, pinning, machine facts) and peers/<peer>.c (one optional peer
 * library each, compiled only when CMake found it).
 */
#ifndef AESGEN_BENCH_H
#define AESGEN_BENCH_H

#include <stddef.h>
#include <stdint.h>

#if defined(__GNUC__)
#define BENCH_PRINTF(fmt_arg, first) __attribute__((format(printf, fmt_arg, first)))
#else
#define BENCH_PRINTF(fmt_arg, first)
#endif

/* ---- operations (bench_data.c) --------------------------------------- */

enum bench_op {
    OP_ECB_ENC = 0,
    OP_ECB_DEC,
    OP_CTR,
    OP_CBC_DEC,
    OP_CBC_ENC,
    OP_GCM_SEAL,
    OP_GCM_OPEN,
    OP_XTS_ENC,
    OP_XTS_DEC,
    OP_XTS_SECTORS_ENC,
    OP_CBC_STREAMS_ENC,
    OP_COUNT
};

#define NKEYS 3 /* 128, 192, 256 */

extern const char *const bench_op_name[OP_COUNT];    /* "ecb-enc", ... */
extern const unsigned bench_key_bits[NKEYS];          /* 128, 192, 256 */

int bench_op_is_decrypt(int op); /* ecb-dec, cbc-dec, gcm-open, xts-dec */
int bench_op_is_gcm(int op);
int bench_op_is_xts(int op); /* xts-enc, xts-dec, xts-sectors-enc */
int bench_op_from_name(const char *s); /* -1 if unknown */
int bench_key_index(unsigned bits);    /* -1 if not 128/192/256 */

/* Bytes one call of op covers when the row's size is `size`: the size, except
 * for operations of a fixed length (xts-sectors-enc), which have one size of
 * their own whatever --sizes says. */
size_t bench_op_len(int op, size_t size);
int bench_op_fixed_len(int op); /* 1: bench_op_len ignores the size */

/* cbc-enc-streams: one call is bench_cbc_streams independent CBC encryptions of the
 * row's size each (--streams, default 8), message i at buf + bench_stream_at(size, i)
 * (i * (size + --stream-gap): back to back by default, so 4 KiB messages share L1
 * sets), in place, with the IV bench_stream_iv(i) (the cbc-enc start IV with byte 0
 * XORed with i). Its length (bench_op_len) is streams * size: MB/s counts every
 * stream; bench_in_bytes is the span the messages cover. */
#define BENCH_MAX_STREAMS 64
#define BENCH_MAX_STREAM_GAP 65536
extern unsigned bench_cbc_streams;
extern size_t bench_stream_gap;
size_t bench_stream_at(size_t size, unsigned i);
void bench_stream_iv(unsigned i, uint8_t iv[16]);
/* Bytes of the buffer an operation of length len reads and writes (its text): len, but
 * the span of the messages for cbc-enc-streams. */
size_t bench_in_bytes(int op, size_t len);

/* Why no implementation can run op with key index k over len bytes (len 0:
 * whatever the length), e.g. AES-192 has no XTS; NULL when nothing stops it. */
const char *bench_op_na(int op, int k, size_t len);

/* ---- deterministic test data (bench_data.c) -------------------------- */

void bench_key(int k, uint8_t key[32]);                /* key bytes for key index k */
void bench_fill(uint8_t *buf, size_t len);             /* canonical message bytes */
uint64_t bench_fnv64(const uint8_t *p, size_t len);
/* Copy a string, truncating to fit dst[n] (n > 0). */
void bench_copy(char *dst, size_t n, const char *src);

/* The IV / initial counter block a row starts from (and returns to on
 * reset). ctr32 implementations (BearSSL) count only the last 32 bits, so
 * they get a start that does not wrap them; everyone else starts near a
 * 64-bit carry so the checks cross it. */
void bench_start_iv(int op, int ctr32, uint8_t iv[16]);

/* One-shot reference output by OpenSSL EVP in this process (fresh context,
 * in place on buf): 0 on success. For gcm-seal buf[0, len) becomes
 * ciphertext || tag in buf[0, len + 16); for gcm-open the reverse, and -1 if
 * the tag does not authenticate. XTS operations ignore iv and use the tweaks
 * of the XTS section below. In bench_openssl.c, beside the OpenSSL row. */
int bench_reference(int op, int k, const uint8_t iv[16], uint8_t *buf, size_t len);

/* ---- GCM messages (bench_data.c) ------------------------------------- *
 *
 * One gcm-seal or gcm-open call is one whole message, as a TLS record is:
 * the 12-byte IV below (the same every call; IV set-up is timed, key set-up
 * is not), the 16 bytes of AAD below, len bytes of text and a 16-byte tag.
 * What a row's loop sees in buf:
 *  - gcm-seal runs in place: plaintext in buf[0, len), ciphertext || tag out
 *    in buf[0, len + 16) (the tag right after the text, as in a record);
 *  - gcm-open cannot run in place call after call (the first call would
 *    destroy its own input), so bench_prepare puts one valid sealed message
 *    (ciphertext || tag, sealed by OpenSSL) at bench_open_input(buf, len),
 *    outside the timing, and every call opens that into buf[0, len). A call
 *    whose tag check fails fails the loop (and so the row). */
#define BENCH_GCM_IV_BYTES 12
#define BENCH_GCM_AAD_BYTES 16
#define BENCH_GCM_TAG_BYTES 16

extern const uint8_t bench_gcm_iv[BENCH_GCM_IV_BYTES];
extern const uint8_t bench_gcm_aad[BENCH_GCM_AAD_BYTES];

/* Bytes one call writes and the check compares: len (+ the tag for seal). */
size_t bench_out_bytes(int op, size_t len);
/* Bytes buf must hold for messages up to maxlen, any operation. */
size_t bench_buf_bytes(size_t maxlen);
/* Where gcm-open's input lives in buf (64-byte aligned after the output). */
uint8_t *bench_open_input(uint8_t *buf, size_t len);
/* Canonical plaintext into buf[0, len), and for gcm-open the sealed message
 * at bench_open_input; for xts-dec buf[0, len) is then OpenSSL's XTS
 * encryption of it (decrypted in place by the row); 0, or -1 if OpenSSL
 * failed. */
int bench_prepare(int op, int k, uint8_t *buf, size_t len);

/* ---- XTS data units (bench_data.c) ---------------------------------- *
 *
 * The XTS key of key index k is key1 || key2, 2 x 16 bytes (AES-128-XTS) or
 * 2 x 32 bytes (AES-256-XTS), halves different; AES-192 has no XTS.
 *  - xts-enc and xts-dec: one call is one data unit of the row's size with
 *    the tweak below (the same every call; tweak set-up, i.e. encrypting it
 *    with key2, is timed, key set-up is not), in place. xts-dec is checked by
 *    decrypting OpenSSL's ciphertext of the canonical plaintext
 *    (bench_prepare) back to that plaintext.
 *  - xts-sectors-enc: one call is BENCH_XTS_SECTORS_BYTES of consecutive sectors
 *    of bench_xts_sector_bytes (--sector-bytes, default 4096: 64 sectors), sector i
 *    with the tweak BENCH_XTS_FIRST_SECTOR + i as a 16-byte little-endian number
 *    (dm-crypt's plain64), in place. The first sector is 2^32 - 32, so the tweaks
 *    cross a 32-bit carry. */
#define BENCH_XTS_SECTORS_BYTES ((size_t)262144)
extern size_t bench_xts_sector_bytes;
#define BENCH_XTS_FIRST_SECTOR 0xffffffe0ull
#define BENCH_XTS_MAX_UNIT ((size_t)1 << 24) /* 2^20 blocks (IEEE 1619) */

extern const uint8_t bench_xts_tweak[16];

/* The XTS key of key index k into key[64]; returns its length (32 or 64),
 * 0 when key size k has no XTS. */
size_t bench_xts_key(int k, uint8_t key[64]);
/* A sector number as a 16-byte little-endian tweak. */
void bench_xts_sector_tweak(uint64_t sector, uint8_t tweak[16]);

/* ---- clocks and counters (bench_clock.c) ----------------------------- */

enum counter_kind { CNT_NONE = 0, CNT_PERF, CNT_TSC };

/* Try the wanted counter (-1: perf cycles, else TSC, else none). Returns the
 * kind in use; why[] says what failed on the way (may be empty). */
int counter_setup(int want, char *why, size_t whylen);
int counter_kind_now(void);
const char *counter_kind_name(int kind); /* "perf", "tsc", "none" */
const char *counter_unit(int kind);      /* "cycles", "TSC ticks", "ns" */
uint64_t counter_read(void);            /* 0 with CNT_NONE */
double now_ns(void);                    /* CLOCK_MONOTONIC */
long involuntary_switches(void);        /* of this thread so far, -1 if unknown */

/* Pin the process to one CPU: cpu < 0 picks the CPU we run on. Writes a
 * one-line description; returns the CPU pinned to, or -1. */
int pin_to_cpu(int cpu, char *desc, size_t desclen);

/* Busy warm-up for ms milliseconds; estimates the TSC rate (MHz, 0 if no
 * TSC) and a core clock (MHz from a chain of dependent register adds, 0
 * where not supported). */
void clock_warmup(double ms, double *tsc_mhz, double *core_mhz);

void machine_cpu_model(char *out, size_t n);
void machine_kernel(char *out, size_t n);
const char *machine_compiler(void);

/* ---- implementations (bench_impls.c) --------------------------------- */

enum impl_kind {
    IMPL_AESGEN = 0,
    IMPL_OPENSSL,
    IMPL_BEARSSL,
    IMPL_REMOTE,
    IMPL_RUSTCRYPTO,
    IMPL_GCRYPT,
    IMPL_IPSECMB
};

typedef struct bench_sample {
    double ns;    /* wall time of the sample */
    double count; /* counter units over the sample, < 0 if none */
    int preempted; /* involuntary context switches during the sample (-1: unknown) */
} bench_sample;

typedef struct impl impl;
struct impl {
    char name[80];  /* "aesgen-portable64", "openssl", "aesgen-" + a variant name, ... */
    char desc[768]; /* what it runs, honestly */
    int kind;
    int ctr32;                 /* CTR counts only the last 32 bits */
    int key_ok[NKEYS];         /* key set up */
    char key_note[NKEYS][160]; /* why not (or "") */
    int op_ok[OP_COUNT];       /* supports the operation */
    char op_note[OP_COUNT][160]; /* why not (or "": "not offered") */
    char variant[NKEYS][2][96]; /* aesgen: variants serving enc/dec */
    const char *variant_info[NKEYS][2]; /* aesgen: their descriptors' info (or NULL) */
    /* aesgen software variants: their operation-issue bound in bytes per core cycle
     * (aesgen_variant.core_ops, issue_per_cycle); 0 for AES instructions and peers. */
    double issue_bpc[NKEYS][2];
    void *priv;

    /* Return the (key, op) state to the start IV / counter. */
    int (*reset)(impl *im, int k, int op);
    /* iters calls of op on buf[0..len) in place (gcm-open: from
     * bench_open_input, see above); 0 on success, -1 if any call failed. */
    int (*loop)(impl *im, int k, int op, uint8_t *buf, size_t len, uint64_t iters);
    /* Remote rows only: one timed sample, and one check returning a hash. */
    int (*remote_sample)(impl *im, int k, int op, size_t len, uint64_t iters,
                         bench_sample *s);
    int (*remote_check)(impl *im, int k, int op, size_t len, uint64_t *hash);
    /* Free what priv points to (priv itself is freed by impl_destroy); NULL
     * when there is nothing. */
    void (*release)(impl *im);
};

/* What every *_create starts with: im cleared and named, its kind and functions set,
 * priv_bytes of zeroed private state (64-byte aligned) in im->priv. Returns im->priv,
 * NULL when out of memory. */
void *impl_init(impl *im, const char *name, int kind, size_t priv_bytes,
                int (*reset)(impl *, int, int),
                int (*loop)(impl *, int, int, uint8_t *, size_t, uint64_t),
                void (*release)(impl *));

int impl_openssl_create(impl *im, const char *name);
int impl_aesgen_create(impl *im, const char *backend); /* forces the backend */
int impl_aesgen_variant_create(impl *im, const char *variant); /* one variant alone */
const char *impl_openssl_version(void);

/* Free what *_create allocated (not remote rows: see peer_stop). */
void impl_destroy(impl *im);

/* One timed sample of a local or remote implementation. */
int impl_sample(impl *im, int k, int op, uint8_t *buf, size_t len,
                uint64_t iters, bench_sample *s);

/* ---- optional peer libraries ----------------------------------------- */

/* What bench/peers/<peer>.c defines. CMake compiles that file only when it
 * found the library, so only the peer table refers to these. */
typedef struct bench_peer_lib {
    int (*create)(impl *im);      /* 0 on success */
    const char *(*version)(void); /* for the JSON; NULL when unknown */
} bench_peer_lib;

extern const bench_peer_lib bench_peer_bearssl;    /* peers/bearssl.c */
extern const bench_peer_lib bench_peer_rustcrypto; /* peers/rustcrypto.c */
/* version: "libgcrypt 1.10.1; hwflist intel-aesni:..." (initialises
 * libgcrypt), NULL when libgcrypt fails to initialise. */
extern const bench_peer_lib bench_peer_gcrypt;     /* peers/gcrypt.c */
extern const bench_peer_lib bench_peer_ipsecmb;    /* peers/ipsecmb.c */

/* Every optional peer the program knows, in row order, built in or not:
 * --peers and the JSON name them all. */
enum bench_peer_id {
    PEER_BEARSSL = 0,
    PEER_RUSTCRYPTO,
    PEER_GCRYPT,
    PEER_IPSECMB,
    PEER_COUNT
};

typedef struct bench_peer {
    const char *name;          /* in --peers and in its "left out" note */
    const char *json_key;      /* its version's key in the JSON "machine" object */
    const char *missing;       /* why it may not be built in (for --peers) */
    const bench_peer_lib *lib; /* NULL: not built in */
} bench_peer;

extern const bench_peer bench_peers[PEER_COUNT]; /* bench_impls.c */

#endif /* AESGEN_BENCH_H */
