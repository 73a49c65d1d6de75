/*
 * sparc_t4_emulation -- the sparc64-t4 variants' real machine code and C
 * wrappers, run under qemu-sparc64 with the T4 opcodes emulated.
 *
 *   aesgen_sparc_t4_emulation [--seed N] [--sabotage KIND|all]
 *
 * Why it exists: qemu-sparc64 (7.2, Debian 12) has no T4 AES opcodes and no
 * VIS3, so the cross suite never runs the sparc64-t4 variants; only the
 * generator's model executes their instruction streams. Under qemu 7.2,
 * movxtod/movdtox raise SIGILL, but the AES rounds (op3 0x19) do not trap:
 * the old decoder takes op3 0x19 for mulx and quietly multiplies integer
 * registers (so does aes_kexpand1; aes_kexpand0/2 trap). A SIGILL handler
 * alone cannot work, so the test first rewrites those words itself:
 *
 *   1. It finds the T4 functions (aesgen_*__sparc64_t4*, and the opcode probe
 *      t4_probe.S) in its own symbol table and replaces every AES round,
 *      key-expansion, movxtod and movdtox word with `illtrap N` (N indexes a
 *      table of the original words), before any of them runs.
 *   2. The SIGILL handler decodes the original word and performs it on the
 *      registers saved in the Linux rt signal frame (FP doubles in the
 *      fpu_save area, %g/%o in pt_regs, %l/%i in the spilled window), and
 *      so every rewritten instruction that follows, then resumes at nPC.
 *      The AES opcodes are computed by this file's byte-wise FIPS-197 code,
 *      with the meaning generator/aesgen/machine/sparc64.py gives them.
 *   3. Start-up checks: those opcodes against FIPS-197 appendices A and B;
 *      the decoder against the assembler (t4_probe.S: every form, both FP
 *      register banks, %l/%i/%o/%g operands).
 *   4. Every sparc64-t4 variant, called through its descriptor (the CPU
 *      feature check is bypassed), against the portable reference variant:
 *      FIPS-197 appendix C; ECB, CBC and CTR over 0..40 blocks (and 65, 97),
 *      out of place at input/output offsets 0..15 (the misaligned ones go
 *      through the wrappers' bounce buffers), in place, in two calls, CTR
 *      counters carrying out of the low 64 bits and wrapping at 2^128. Each
 *      call must emulate exactly 2*Nr AES instructions per block, which shows
 *      the T4 code (not something else) produced the output.
 *
 * What it proves: the assembled bytes (opcodes and register fields), the
 * loops, the C wrappers, the calling convention and register-window use,
 * all against OUR reading of the opcodes. What it does not prove: that T4
 * hardware gives the opcodes that meaning (the model's docstring cites the
 * Linux and OpenSSL users of them), timing or constant time, or behaviour
 * on a real kernel: the handler follows the Linux frame layout but has run
 * only under qemu. On a CPU with the T4 opcodes it skips (exit 77);
 * aesgen_crosscheck runs the variants natively there.
 *
 * --sabotage KIND breaks the emulation after the start-up checks and must
 * then see the comparisons fail (exit 0 when it does, or when the generated
 * code never runs the broken instruction): swap-halves, last-as-middle,
 * kexpand1-no-rot, movxtod-swap32, movdtox-low32, no-window-write, or all.
 *
 * Exit status: 0 pass, 1 failure, 2 bad usage, 77 skipped.
 */
#define _GNU_SOURCE
#include "aesgen_internal.h"

#include <elf.h>
#include <link.h>
#include <signal.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#if !defined(__sparc__) || !defined(__arch64__) || !defined(__linux__)
#error "sparc_t4_emulation is for 64-bit SPARC Linux (qemu-sparc64)"
#endif

#define EXIT_PASS 0
#define EXIT_FAIL 1
#define EXIT_USAGE 2
#define EXIT_SKIP 77

#define MAX_BLOCKS 97
#define GUARD 32        /* checked bytes on each side of every buffer */
#define MAX_SHOWN 10    /* mismatches printed per variant */
#define RK_FILL 0xA5

/* ------------------------------------------------------ bytes, randomness */

static uint64_t load_be64(const uint8_t *p)
{
    uint64_t v = 0;
    for (unsigned i = 0; i < 8; i++)
        v = v << 8 | p[i];
    return v;
}

static void store_be64(uint8_t *p, uint64_t v)
{
    for (unsigned i = 0; i < 8; i++)
        p[i] = (uint8_t)(v >> (56 - 8 * i));
}

static void from_hex(uint8_t *out, const char *hex, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        unsigned b = 0;
        for (unsigned j = 0; j < 2; j++) {
            const char c = hex[2 * i + j];
            b = b << 4 | (unsigned)(c <= '9' ? c - '0' : c - 'a' + 10);
        }
        out[i] = (uint8_t)b;
    }
}

static uint64_t rng_state;

static uint64_t rnd(void) /* splitmix64 */
{
    uint64_t z = (rng_state += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
}

static void rnd_bytes(uint8_t *p, size_t n)
{
    while (n > 0) {
        uint64_t r = rnd();
        for (unsigned i = 0; i < 8 && n > 0; i++, n--)
            *p++ = (uint8_t)(r >> (8 * i));
    }
}

/* -------------------------------------------- the reference round (FIPS-197) */

/* State bytes in FIPS-197 order: byte r + 4c is row r, column c. */
static uint8_t sbox[256], inv_sbox[256];
static uint8_t mul[15][256]; /* mul[c][x] = c * x in GF(2^8), for the (Inv)MixColumns coefficients */

static uint8_t gmul(uint8_t a, uint8_t b)
{
    uint8_t p = 0;
    while (b) {
        if (b & 1)
            p ^= a;
        a = (uint8_t)(a << 1 ^ (a & 0x80 ? 0x1b : 0));
        b >>= 1;
    }
    return p;
}

static uint8_t rotl8(uint8_t x, unsigned n)
{
    return (uint8_t)(x << n | x >> (8 - n));
}

/* From the definition (inverse in GF(2^8), then the affine map), so no
 * table to mistype; appendix B checks it. */
static void make_sbox(void)
{
    for (unsigned x = 0; x < 256; x++) {
        uint8_t inv = 1, base = (uint8_t)x;
        for (unsigned e = 254; e; e >>= 1, base = gmul(base, base))
            if (e & 1)
                inv = gmul(inv, base);
        const uint8_t s = inv ^ rotl8(inv, 1) ^ rotl8(inv, 2) ^ rotl8(inv, 3) ^ rotl8(inv, 4) ^ 0x63;
        sbox[x] = s;
        inv_sbox[s] = (uint8_t)x;
        for (unsigned c = 0; c < 15; c++)
            mul[c][x] = gmul((uint8_t)c, (uint8_t)x);
    }
}

static void sub_bytes(uint8_t s[16], const uint8_t box[256])
{
    for (unsigned i = 0; i < 16; i++)
        s[i] = box[s[i]];
}

static void shift_rows(uint8_t s[16], int inverse)
{
    uint8_t t[16];
    for (unsigned c = 0; c < 4; c++)
        for (unsigned r = 0; r < 4; r++)
            t[r + 4 * c] = s[r + 4 * ((inverse ? c + 4 - r : c + r) % 4)];
    memcpy(s, t, 16);
}

static void mix_columns(uint8_t s[16], int inverse)
{
    static const uint8_t fwd[4] = {2, 3, 1, 1}, inv[4] = {14, 11, 13, 9};
    const uint8_t *m = inverse ? inv : fwd;
    for (unsigned c = 0; c < 4; c++) {
        uint8_t a[4];
        memcpy(a, s + 4 * c, 4);
        for (unsigned r = 0; r < 4; r++)
            s[r + 4 * c] = mul[m[(4 - r) % 4]][a[0]] ^ mul[m[(5 - r) % 4]][a[1]] ^
                           mul[m[(6 - r) % 4]][a[2]] ^ mul[m[(7 - r) % 4]][a[3]];
    }
}

/* One T4 AES opcode as the generator's model defines it. The state is hi:lo
 * (bytes 0-7, 8-15 in memory order, as big-endian doubles). op5 (bits 8:5 of
 * the word): bit 0 the half written (round01: bytes 0-7, round23: 8-15),
 * bit 1 decryption, bit 2 the last round (_l: no (Inv)MixColumns).
 *   eround: MixColumns(ShiftRows(SubBytes(s))) XOR k, that half
 *   dround: InvMixColumns(InvSubBytes(InvShiftRows(s)) XOR k in that half), that half */
static uint64_t t4_round(unsigned op5, uint64_t k, uint64_t hi, uint64_t lo)
{
    uint8_t s[16];
    const unsigned half = (op5 & 1) * 8;
    store_be64(s, hi);
    store_be64(s + 8, lo);
    if (!(op5 & 2)) {
        sub_bytes(s, sbox);
        shift_rows(s, 0);
        if (!(op5 & 4))
            mix_columns(s, 0);
        return load_be64(s + half) ^ k;
    }
    shift_rows(s, 1);
    sub_bytes(s, inv_sbox);
    store_be64(s + half, load_be64(s + half) ^ k);
    if (!(op5 & 4))
        mix_columns(s, 1);
    return load_be64(s + half);
}

static uint32_t sub_word(uint32_t w)
{
    return (uint32_t)sbox[w >> 24] << 24 | (uint32_t)sbox[(w >> 16) & 0xff] << 16 |
           (uint32_t)sbox[(w >> 8) & 0xff] << 8 | sbox[w & 0xff];
}

/* aes_kexpand0/1/2 x, y (kexpand1: x, y, rcon index), as the model defines
 * them: two new schedule words from the two Nk words back (x) and the word
 * before them (the second word of y). kexpand1 applies SubWord(RotWord())
 * and the round constant, kexpand0 SubWord() (AES-256's middle step),
 * kexpand2 nothing. rot = 0 leaves out RotWord (a sabotage). */
static uint64_t t4_kexpand(int which, unsigned rcon_index, uint64_t x, uint64_t y, int rot)
{
    static const uint8_t rcon[10] = {0x01, 0x02, 0x04, 0x08, 0x10, 0x20, 0x40, 0x80, 0x1b, 0x36};
    uint32_t t = (uint32_t)y;
    if (which == 1)
        t = sub_word(rot ? t << 8 | t >> 24 : t) ^ (uint32_t)rcon[rcon_index] << 24;
    else if (which == 0)
        t = sub_word(t);
    const uint32_t w0 = (uint32_t)(x >> 32) ^ t, w1 = (uint32_t)x ^ w0;
    return (uint64_t)w0 << 32 | w1;
}

/* ------------------------------------------------------------- reporting */

static struct {
    char subject[160];
    unsigned long cases, failed;
    unsigned shown;
    int case_ok;
} R;

static unsigned long total_cases, total_failed;
static int stop_at_first_failure; /* sabotage runs: one detection is enough */

static void subject_begin(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(R.subject, sizeof R.subject, fmt, ap);
    va_end(ap);
    R.cases = R.failed = 0;
    R.shown = 0;
}

static int subject_end(const char *what)
{
    printf("%s %s: %lu cases%s%s\n", R.failed ? "FAIL" : "ok  ", R.subject, R.cases, what[0] ? ", " : "",
           what);
    if (R.failed)
        printf("     %lu of %lu cases differ\n", R.failed, R.cases);
    total_cases += R.cases;
    total_failed += R.failed;
    return R.failed == 0;
}

static void case_begin(void)
{
    R.cases++;
    R.case_ok = 1;
}

static void case_end(void)
{
    if (!R.case_ok)
        R.failed++;
}

static int mismatch_begin(void)
{
    R.case_ok = 0;
    if (R.shown++ < MAX_SHOWN)
        return 1;
    if (R.shown == MAX_SHOWN + 1)
        printf("  (%s: further mismatches are counted, not shown)\n", R.subject);
    return 0;
}

static void mismatch(const char *cs, const char *fmt, ...)
{
    va_list ap;
    if (!mismatch_begin())
        return;
    printf("MISMATCH %s: %s: ", R.subject, cs);
    va_start(ap, fmt);
    vprintf(fmt, ap);
    va_end(ap);
    printf("\n");
}

static void print_hex(const uint8_t *p, size_t n)
{
    for (size_t i = 0; i < n; i++)
        printf("%02x", p[i]);
}

static int same(const char *cs, const char *what, const uint8_t *expected, const uint8_t *got, size_t n)
{
    if (n == 0 || memcmp(expected, got, n) == 0)
        return 1;
    if (!mismatch_begin())
        return 0;
    size_t i = 0;
    while (expected[i] == got[i])
        i++;
    const size_t from = i - i % 16, len = n - from < 16 ? n - from : 16;
    printf("MISMATCH %s: %s: %s differs from byte %lu (block %lu)\n    expected ", R.subject, cs, what,
           (unsigned long)i, (unsigned long)(i / 16));
    print_hex(expected + from, len);
    printf("\n    got      ");
    print_hex(got + from, len);
    printf("\n");
    return 0;
}

/* ------------------------------------------------------------ the emulator */

/* 0..7: the AES round forms by op5 */
enum { K_KEXPAND0 = 8, K_KEXPAND1, K_KEXPAND2, K_MOVXTOD, K_MOVDTOX, N_KINDS };
static const char *const kind_name[N_KINDS] = {
    "aes_eround01",   "aes_eround23",   "aes_dround01", "aes_dround23", "aes_eround01_l",
    "aes_eround23_l", "aes_dround01_l", "aes_dround23_l", "aes_kexpand0", "aes_kexpand1",
    "aes_kexpand2",   "movxtod",        "movdtox"};

enum { SAB_NONE, SAB_SWAP_HALVES, SAB_LAST_AS_MIDDLE, SAB_KEXPAND1_NO_ROT, SAB_MOVXTOD_SWAP32,
       SAB_MOVDTOX_LOW32, SAB_NO_WINDOW_WRITE, N_SABOTAGE };
static const char *const sabotage_name[N_SABOTAGE] = {
    "none", "swap-halves", "last-as-middle", "kexpand1-no-rot", "movxtod-swap32", "movdtox-low32",
    "no-window-write"};

/* Counts, written for every emulated instruction. On SPARC the PLT is code
 * in the data segment, and qemu write-protects a page it has translated code
 * from: every write to that 8 KiB page then costs a host fault and a
 * retranslation. This alignment moves .bss, and so all the test's mutable
 * statics, off the PLT's page (the run is twenty times faster). */
static _Alignas(8192) struct {
    volatile sig_atomic_t emulated[N_KINDS], traps, window_writes;
} hot;
static volatile sig_atomic_t sabotage;

/* A rewritten instruction: its address and original word. */
typedef struct {
    uintptr_t addr;
    uint32_t word;
} patch;

static patch *patches;
static size_t n_patches;

/* The kind of a T4 word, -1 for any other instruction, -2 for an op3 0x19
 * form this emulator does not know (DES, Camellia). Verified against
 * `sparc64-linux-gnu-as -Av9e` + objdump. op 2 and
 *   op3 0x19: rd | rs1 | rs3 or imm5 (bits 13:9) | op5 (bits 8:5) | rs2;
 *     op5 0..7 the AES rounds (rs1 k, rs2 hi, rs3 lo): eround01, eround23,
 *     dround01, dround23, then the _l forms; op5 8 aes_kexpand1 (imm5: rcon index);
 *   op3 0x36 (IMPDEP1), opf (bits 13:5): 0x130 aes_kexpand0, 0x131 aes_kexpand2,
 *     0x118 movxtod and 0x110 movdtox (both with rs1 0). */
static int t4_kind(uint32_t w)
{
    if (w >> 30 != 2)
        return -1;
    const unsigned op3 = (w >> 19) & 0x3f, op5 = (w >> 5) & 0xf, opf = (w >> 5) & 0x1ff;
    const unsigned rs1 = (w >> 14) & 0x1f, imm5 = (w >> 9) & 0x1f;
    if (op3 == 0x19)
        return op5 < 8 ? (int)op5 : op5 == 8 && imm5 < 10 ? K_KEXPAND1 : -2;
    if (op3 != 0x36)
        return -1;
    if (opf == 0x130)
        return K_KEXPAND0;
    if (opf == 0x131)
        return K_KEXPAND2;
    if (opf == 0x118 && rs1 == 0)
        return K_MOVXTOD;
    if (opf == 0x110 && rs1 == 0)
        return K_MOVDTOX;
    return -1;
}

#define FPRS_DL 1u
#define FPRS_DU 2u
#define FPRS_FEF 4u

/* A 5-bit double-register field: bit 0 is bit 5 of the register number. */
static unsigned dreg(unsigned field)
{
    return (field & 0x1e) | (field & 1) << 5;
}

/* Double %fN is singles N and N+1 of the frame's FP area (big-endian). */
static uint64_t fp_get(const __siginfo_fpu_t *f, unsigned field)
{
    uint64_t v;
    memcpy(&v, &f->si_float_regs[dreg(field)], 8);
    return v;
}

static void fp_put(__siginfo_fpu_t *f, unsigned field, uint64_t v)
{
    memcpy(&f->si_float_regs[dreg(field)], &v, 8);
}

/* Integer registers 0-15 (%g, %o) are in pt_regs; 16-31 (%l, %i) in the
 * interrupted window, in the frame's stackf once flushw has spilled every
 * window: returning from the handler then refills them from there, with
 * what we wrote. */
static uint64_t int_get(const struct sigcontext *sc, const uint64_t *win, unsigned r)
{
    if (r < 16)
        return r == 0 ? 0 : sc->sigc_regs.u_regs[r];
    __asm__ __volatile__("flushw" ::: "memory");
    return win[r - 16];
}

static void int_put(struct sigcontext *sc, uint64_t *win, unsigned r, uint64_t v)
{
    if (r == 0)
        return;
    if (r < 16) {
        sc->sigc_regs.u_regs[r] = v;
        return;
    }
    __asm__ __volatile__("flushw" ::: "memory");
    hot.window_writes++;
    if (sabotage != SAB_NO_WINDOW_WRITE)
        win[r - 16] = v;
}

static void emulate(uint32_t w, struct sigcontext *sc, uint64_t *win)
{
    __siginfo_fpu_t *f = sc->sigc_fpu_save;
    const unsigned rd = (w >> 25) & 0x1f, rs1 = (w >> 14) & 0x1f, rs2 = w & 0x1f;
    const int kind = t4_kind(w);
    if (kind == K_MOVXTOD) {
        uint64_t v = int_get(sc, win, rs2);
        if (sabotage == SAB_MOVXTOD_SWAP32)
            v = v << 32 | v >> 32;
        fp_put(f, rd, v);
    } else if (kind == K_MOVDTOX) {
        uint64_t v = fp_get(f, rs2);
        if (sabotage == SAB_MOVDTOX_LOW32)
            v &= 0xffffffffu;
        int_put(sc, win, rd, v);
    } else if (kind >= K_KEXPAND0) {
        fp_put(f, rd, t4_kexpand(kind - K_KEXPAND0, (w >> 9) & 0x1f, fp_get(f, rs1), fp_get(f, rs2),
                                 sabotage != SAB_KEXPAND1_NO_ROT));
    } else {
        unsigned op5 = (unsigned)kind;
        if (sabotage == SAB_SWAP_HALVES)
            op5 ^= 1;
        if (sabotage == SAB_LAST_AS_MIDDLE)
            op5 &= 3;
        fp_put(f, rd, t4_round(op5, fp_get(f, rs1), fp_get(f, rs2), fp_get(f, (w >> 9) & 0x1f)));
    }
    hot.emulated[kind]++;
}

static void die(const char *msg)
{
    if (write(2, msg, strlen(msg)) < 0)
        _exit(EXIT_FAIL);
    _exit(EXIT_FAIL);
}

/* The Linux rt signal frame (qemu's is the same): struct sparc_stackf -- the
 * interrupted window's 8 locals and 8 ins, then 8 argument words -- right
 * before the siginfo, which begins the struct sigcontext of <signal.h>. */
#define STACKF_BYTES 192

/* The rewritten instruction at pc, or NULL. */
static const patch *patch_at(uintptr_t pc)
{
    const uint32_t w = *(const uint32_t *)pc;
    const size_t i = (size_t)(w & 0x3fffff) - 1; /* illtrap N: patch N-1 */
    return w >> 22 == 0 && i < n_patches && patches[i].addr == pc ? &patches[i] : NULL;
}

static void on_sigill(int sig, siginfo_t *info, void *ctx)
{
    (void)sig;
    struct sigcontext *sc = ctx;
    const patch *p = patch_at(sc->sigc_regs.tpc);
    if (p == NULL)
        die("aesgen_sparc_t4_emulation: SIGILL at an instruction this test did not rewrite\n");
    if (sc->sigc_fpu_save == NULL)
        die("aesgen_sparc_t4_emulation: the signal frame carries no FP state\n");
    hot.traps++;
    /* This and every rewritten instruction after it, in program order (PC
     * to nPC, so a delay slot is followed correctly), in one trap: a round
     * trip through qemu's signal delivery costs far more than a round. */
    do {
        emulate(p->word, sc, (uint64_t *)(void *)((char *)info - STACKF_BYTES));
        sc->sigc_regs.tpc = sc->sigc_regs.tnpc;
        sc->sigc_regs.tnpc += 4;
    } while ((p = patch_at(sc->sigc_regs.tpc)) != NULL);
    /* Restore both FP banks from the frame, whatever the handler touched. */
    sc->sigc_fpu_save->si_fprs |= FPRS_FEF | FPRS_DL | FPRS_DU;
}

#define ROUNDS_MASK 0xffu
#define MOVES_MASK (1u << K_MOVXTOD | 1u << K_MOVDTOX)
#define ALL_MASK ((1u << N_KINDS) - 1)

/* Instructions emulated so far, of the kinds in mask. */
static unsigned long count(unsigned mask)
{
    unsigned long n = 0;
    for (unsigned k = 0; k < N_KINDS; k++)
        if (mask >> k & 1)
            n += (unsigned long)hot.emulated[k];
    return n;
}

/* ------------------------------------------------ rewriting the T4 functions */

static uintptr_t load_bias;

static int first_object(struct dl_phdr_info *info, size_t size, void *data)
{
    (void)size;
    (void)data;
    load_bias = info->dlpi_addr; /* the executable comes first */
    return 1;
}

static int is_t4_function(const char *name)
{
    return strcmp(name, "t4emu_probe") == 0 ||
           (strncmp(name, "aesgen_", 7) == 0 && strstr(name, "__sparc64_t4") != NULL);
}

/* Replaces the T4 words of [start, start+size) with illtrap; returns how many,
 * or -1 (message printed). */
static long rewrite_function(const char *name, uintptr_t start, size_t size)
{
    const uintptr_t page = (uintptr_t)sysconf(_SC_PAGESIZE);
    const uintptr_t lo = start & ~(page - 1), hi = (start + size + page - 1) & ~(page - 1);
    long n = 0;
    if (mprotect((void *)lo, hi - lo, PROT_READ | PROT_WRITE | PROT_EXEC) != 0) {
        perror("aesgen_sparc_t4_emulation: mprotect");
        return -1;
    }
    for (uintptr_t a = start; a + 4 <= start + size; a += 4) {
        uint32_t w;
        memcpy(&w, (const void *)a, 4);
        const int kind = t4_kind(w);
        if (kind == -1)
            continue;
        if (kind == -2) {
            printf("FAIL %s+%lu: %08x is an op3 0x19 form the emulator does not know\n", name,
                   (unsigned long)(a - start), w);
            return -1;
        }
        patch *grown = realloc(patches, (n_patches + 1) * sizeof *patches);
        if (grown == NULL || n_patches + 1 >= 0x3fffff) {
            printf("FAIL out of memory or illtrap numbers\n");
            return -1;
        }
        patches = grown;
        patches[n_patches] = (patch){a, w};
        const uint32_t trap = (uint32_t)++n_patches; /* illtrap n_patches */
        memcpy((void *)a, &trap, 4);
        n++;
    }
    __builtin___clear_cache((char *)start, (char *)(start + size));
    if (mprotect((void *)lo, hi - lo, PROT_READ | PROT_EXEC) != 0) {
        perror("aesgen_sparc_t4_emulation: mprotect");
        return -1;
    }
    return n;
}

/* Finds the T4 functions in the executable's own symbol table (the assembly
 * entry points are hidden: no dynamic symbol, but a .symtab entry with a
 * size) and rewrites them. Returns 1 on success. */
static int rewrite_t4_code(void)
{
    FILE *fp = fopen("/proc/self/exe", "rb");
    unsigned char *buf = NULL;
    long len = -1;
    if (fp != NULL && fseek(fp, 0, SEEK_END) == 0)
        len = ftell(fp);
    if (len > 0 && fseek(fp, 0, SEEK_SET) == 0 && (buf = malloc((size_t)len)) != NULL &&
        fread(buf, 1, (size_t)len, fp) != (size_t)len) {
        free(buf);
        buf = NULL;
    }
    if (fp != NULL)
        fclose(fp);
    Elf64_Ehdr eh;
    if (buf == NULL || (size_t)len < sizeof eh) {
        free(buf);
        printf("FAIL cannot read /proc/self/exe\n");
        return 0;
    }
    memcpy(&eh, buf, sizeof eh);
    if (memcmp(eh.e_ident, ELFMAG, SELFMAG) != 0 || eh.e_ident[EI_CLASS] != ELFCLASS64 ||
        eh.e_shentsize != sizeof(Elf64_Shdr) || eh.e_shoff + (uint64_t)eh.e_shnum * sizeof(Elf64_Shdr) > (uint64_t)len) {
        printf("FAIL /proc/self/exe is not the ELF64 file expected\n");
        free(buf);
        return 0;
    }
    dl_iterate_phdr(first_object, NULL);

    unsigned functions = 0;
    long words = 0;
    for (unsigned s = 0; s < eh.e_shnum; s++) {
        Elf64_Shdr sym, str;
        memcpy(&sym, buf + eh.e_shoff + s * sizeof sym, sizeof sym);
        if (sym.sh_type != SHT_SYMTAB || sym.sh_link >= eh.e_shnum)
            continue;
        memcpy(&str, buf + eh.e_shoff + sym.sh_link * sizeof str, sizeof str);
        if (sym.sh_offset + sym.sh_size > (uint64_t)len || str.sh_offset + str.sh_size > (uint64_t)len)
            continue;
        for (uint64_t k = 0; k < sym.sh_size / sizeof(Elf64_Sym); k++) {
            Elf64_Sym e;
            memcpy(&e, buf + sym.sh_offset + k * sizeof e, sizeof e);
            if (ELF64_ST_TYPE(e.st_info) != STT_FUNC || e.st_size == 0 || e.st_name >= str.sh_size ||
                memchr(buf + str.sh_offset + e.st_name, '\0', str.sh_size - e.st_name) == NULL)
                continue;
            const char *name = (const char *)buf + str.sh_offset + e.st_name;
            if (!is_t4_function(name))
                continue;
            const long n = rewrite_function(name, load_bias + (uintptr_t)e.st_value, (size_t)e.st_size);
            if (n < 0) {
                free(buf);
                return 0;
            }
            functions++;
            words += n;
        }
    }
    free(buf);
    printf("     rewrote %ld T4 instructions to illtrap in %u functions\n", words, functions);
    if (words == 0) {
        printf("FAIL no T4 instructions found (is the executable stripped?)\n");
        return 0;
    }
    return 1;
}

/* --------------------------------------------------------- start-up checks */

/* FIPS-197 appendix B (AES-128): round 1 step by step, the last round, and
 * the whole cipher and inverse cipher as chains of T4 rounds. */
static int check_reference_round(void)
{
    static const char *const rk_hex[11] = {
        "2b7e151628aed2a6abf7158809cf4f3c", "a0fafe1788542cb123a339392a6c7605",
        "f2c295f27a96b9435935807a7359f67f", "3d80477d4716fe3e1e237e446d7a883b",
        "ef44a541a8525b7fb671253bdb0bad00", "d4d1c6f87c839d87caf2b8bc11f915bc",
        "6d88a37a110b3efddbf98641ca0093fd", "4e54f70e5f5fc9f384a64fb24ea6dc4f",
        "ead27321b58dbad2312bf5607f8d292f", "ac7766f319fadc2128d12941575c006e",
        "d014f9a8c9ee2589e13f0cc8b6630ca6"};
    uint8_t rk[11][16], in[16], out[16], s[16], want[16];
    int ok = 1;
    for (unsigned r = 0; r < 11; r++)
        from_hex(rk[r], rk_hex[r], 16);
    from_hex(in, "3243f6a8885a308d313198a2e0370734", 16);
    from_hex(out, "3925841d02dc09fbdc118597196a0b32", 16);

    /* Round 1 (start, after SubBytes, ShiftRows, MixColumns); round 10. */
    static const struct {
        const char *from, *to, *what;
        int step; /* 0 SubBytes, 1 ShiftRows, 2 MixColumns */
    } steps[] = {
        {"193de3bea0f4e22b9ac68d2ae9f84808", "d42711aee0bf98f1b8b45de51e415230", "round 1 SubBytes", 0},
        {"d42711aee0bf98f1b8b45de51e415230", "d4bf5d30e0b452aeb84111f11e2798e5", "round 1 ShiftRows", 1},
        {"d4bf5d30e0b452aeb84111f11e2798e5", "046681e5e0cb199a48f8d37a2806264c", "round 1 MixColumns", 2},
        {"eb40f21e592e38848ba113e71bc342d2", "e9098972cb31075f3d327d94af2e2cb5", "round 10 SubBytes", 0},
        {"e9098972cb31075f3d327d94af2e2cb5", "e9317db5cb322c723d2e895faf090794", "round 10 ShiftRows", 1},
    };
    for (size_t i = 0; i < sizeof steps / sizeof steps[0]; i++) {
        uint8_t from[16], to[16], t[16];
        from_hex(from, steps[i].from, 16);
        from_hex(to, steps[i].to, 16);
        memcpy(t, from, 16);
        if (steps[i].step == 0)
            sub_bytes(t, sbox);
        else if (steps[i].step == 1)
            shift_rows(t, 0);
        else
            mix_columns(t, 0);
        ok &= memcmp(t, to, 16) == 0;
        if (steps[i].step == 0) /* and back */
            sub_bytes(t, inv_sbox);
        else if (steps[i].step == 1)
            shift_rows(t, 1);
        else
            mix_columns(t, 1);
        ok &= memcmp(t, from, 16) == 0;
        if (!ok) {
            printf("FAIL reference round: FIPS-197 appendix B, %s (or its inverse)\n", steps[i].what);
            return 0;
        }
    }

    /* The cipher as T4 rounds: after round 1 appendix B's round-2 start. */
    uint64_t hi, lo, h2, l2;
    for (unsigned i = 0; i < 16; i++)
        s[i] = in[i] ^ rk[0][i];
    hi = load_be64(s);
    lo = load_be64(s + 8);
    for (unsigned r = 1; r <= 10; r++) {
        const unsigned last = r == 10 ? 4 : 0;
        h2 = t4_round(0 | last, load_be64(rk[r]), hi, lo);
        l2 = t4_round(1 | last, load_be64(rk[r] + 8), hi, lo);
        hi = h2;
        lo = l2;
        if (r == 1) {
            from_hex(want, "a49c7ff2689f352b6b5bea43026a5049", 16);
            ok &= hi == load_be64(want) && lo == load_be64(want + 8);
        }
    }
    ok &= hi == load_be64(out) && lo == load_be64(out + 8);
    if (!ok) {
        printf("FAIL reference round: the eround chain does not give FIPS-197 appendix B\n");
        return 0;
    }
    /* The inverse cipher as T4 rounds, on the encryption keys in reverse. */
    hi = load_be64(out) ^ load_be64(rk[10]);
    lo = load_be64(out + 8) ^ load_be64(rk[10] + 8);
    for (int r = 9; r >= 0; r--) {
        const unsigned last = r == 0 ? 4 : 0;
        h2 = t4_round(2 | last, load_be64(rk[r]), hi, lo);
        l2 = t4_round(3 | last, load_be64(rk[r] + 8), hi, lo);
        hi = h2;
        lo = l2;
    }
    if (hi != load_be64(in) || lo != load_be64(in + 8)) {
        printf("FAIL reference round: the dround chain does not invert FIPS-197 appendix B\n");
        return 0;
    }

    /* Appendix A: the key expansions as chains of kexpand, one double (two
     * words) each: D[j] = op(D[j - Nk/2], D[j - 1]), op kexpand1 at the start
     * of every Nk words, kexpand0 halfway for Nk = 8, else kexpand2. */
    static const struct {
        const char *key, *last;
    } a[3] = {{"2b7e151628aed2a6abf7158809cf4f3c", "d014f9a8c9ee2589e13f0cc8b6630ca6"},
              {"8e73b0f7da0e6452c810f32b809079e562f8ead2522c6b7b", "e98ba06f448c773c8ecc720401002202"},
              {"603deb1015ca71be2b73aef0857d77811f352c073b6108d72d9810a30914dff4",
               "fe4890d1e6188d0b046df344706c631e"}};
    for (unsigned i = 0; i < 3; i++) {
        const unsigned nk2 = 2 + i, ndoubles = 2 * (11 + 2 * i); /* Nk/2; 4*(Nr+1) words */
        uint64_t d[30];
        uint8_t key[32];
        from_hex(key, a[i].key, 4 * 2 * nk2);
        for (unsigned j = 0; j < nk2; j++)
            d[j] = load_be64(key + 8 * j);
        for (unsigned j = nk2; j < ndoubles; j++) {
            const int which = j % nk2 == 0 ? 1 : nk2 == 4 && j % nk2 == 2 ? 0 : 2;
            d[j] = t4_kexpand(which, j / nk2 - 1, d[j - nk2], d[j - 1], 1);
        }
        from_hex(want, a[i].last, 16);
        if (d[ndoubles - 2] != load_be64(want) || d[ndoubles - 1] != load_be64(want + 8)) {
            printf("FAIL reference round: the kexpand chain does not give FIPS-197 appendix A.%u\n", i + 1);
            return 0;
        }
    }
    printf("ok   reference opcodes: FIPS-197 appendix B (round 1 and 10 steps, cipher and inverse as T4 "
           "rounds), appendix A (key expansions as kexpand chains)\n");
    return 1;
}

void t4emu_probe(const uint64_t in[4], uint64_t out[15]);

/* The decoder against the assembler's encodings (t4_probe.S). */
static int check_probe(void)
{
    uint64_t in[4], out[15], want[15];
    unsigned long before[N_KINDS];
    in[0] = 0xa0fafe1788542cb1ull; /* appendix B: k1 hi, round-1 state, and a pattern */
    in[1] = 0x193de3bea0f4e22bull;
    in[2] = 0x9ac68d2ae9f84808ull;
    in[3] = 0xfedcba9876543210ull;
    for (unsigned op5 = 0; op5 < 8; op5++)
        want[op5] = t4_round(op5, in[0], in[1], in[2]);
    want[8] = want[0];
    want[9] = want[3];
    want[10] = in[3];
    want[11] = 0;
    want[12] = t4_kexpand(1, 7, in[0], in[1], 1);
    want[13] = t4_kexpand(0, 0, in[0], in[1], 1);
    want[14] = t4_kexpand(2, 0, in[0], in[1], 1);
    for (unsigned k = 0; k < N_KINDS; k++)
        before[k] = (unsigned long)hot.emulated[k];
    memset(out, 0x5a, sizeof out);
    t4emu_probe(in, out);
    int ok = 1;
    for (unsigned i = 0; i < 15; i++)
        if (out[i] != want[i]) {
            printf("FAIL opcode probe: out[%u] = %016llx, expected %016llx (%s)\n", i, (unsigned long long)out[i],
                   (unsigned long long)want[i],
                   i < 8 ? kind_name[i] : i < 10 ? "destination = source" : i < 12 ? "moves" : "kexpand");
            ok = 0;
        }
    static const unsigned expected_count[N_KINDS] = {2, 1, 1, 2, 1, 1, 1, 1, 1, 1, 1, 4, 3};
    for (unsigned k = 0; k < N_KINDS; k++)
        if ((unsigned long)hot.emulated[k] - before[k] != expected_count[k]) {
            printf("FAIL opcode probe: %lu %s emulated, expected %u\n", (unsigned long)hot.emulated[k] - before[k],
                   kind_name[k], expected_count[k]);
            ok = 0;
        }
    if (ok)
        printf("ok   opcode probe: every form, both FP banks, destination = source, moves through "
               "%%l %%i %%o %%g\n");
    return ok;
}

/* ------------------------------------------------------ variants against ref */

/* A region: GUARD bytes, up to 15 bytes of offset, the data, GUARD bytes. */
#define REGION_BYTES (GUARD + 16 + 16 * (size_t)MAX_BLOCKS + GUARD)

static uint8_t *region_in, *region_out, *src, *expected;

static uint8_t pattern(size_t i)
{
    return (uint8_t)(i * 131u + 7u);
}

static void region_fill(uint8_t *r, size_t used)
{
    for (size_t i = 0; i < used; i++)
        r[i] = pattern(i);
}

static void region_intact(const char *cs, const char *which, const uint8_t *r, size_t lo, size_t hi, size_t used)
{
    for (size_t i = 0; i < used; i++)
        if ((i < lo || i >= hi) && r[i] != pattern(i)) {
            mismatch(cs, "%s: the byte at data%+ld was overwritten", which, (long)i - (long)lo);
            return;
        }
}

static uint8_t *alloc64(size_t n)
{
    void *p = aligned_alloc(64, (n + 63) / 64 * 64);
    if (p == NULL) {
        fprintf(stderr, "aesgen_sparc_t4_emulation: out of memory\n");
        exit(EXIT_FAIL);
    }
    return p;
}

static unsigned width_fit(const aesgen_variant *v)
{
    return v->word_bits == 0 || v->word_bits == 64 ? 0u : v->word_bits < 64 ? 1u : 2u;
}

/* The feature-free variant dispatch would prefer (as aesgen_crosscheck). */
static const aesgen_variant *reference_for(unsigned key_bits, int direction)
{
    const aesgen_variant *best = NULL;
    unsigned long best_score = 0;
    for (size_t i = 0; i < aesgen_registry_size; i++) {
        const aesgen_variant *v = aesgen_registry[i];
        if (v->key_bits != key_bits || v->direction != direction || v->features != 0 || !aesgen_variant_usable(v))
            continue;
        const unsigned long score = (unsigned long)v->rank * 4u + width_fit(v);
        if (best == NULL || score < best_score) {
            best = v;
            best_score = score;
        }
    }
    return best;
}

enum { ECB, CBC, CTR };
static const char *const mode_name[] = {"ECB", "CBC", "CTR"};

typedef struct {
    const aesgen_variant *v, *ref;
    uint8_t *rk_v, *rk_r;
    unsigned key_index, rounds;
} subject;

static void run(const aesgen_variant *v, const uint8_t *rk, int mode, uint8_t *out, const uint8_t *in, size_t n,
                uint8_t iv[16])
{
    if (mode == ECB)
        v->ecb(rk, out, in, n);
    else if (mode == CBC)
        v->cbc(rk, out, in, n, iv);
    else
        v->ctr(rk, out, in, n, iv);
}

/* FIPS-197 appendix C: key 00 01 .., plaintext 00 11 .. ff, one ECB block. */
static void known_answer(const subject *t)
{
    static const char *const ct_hex[3] = {"69c4e0d86a7b0430d8cdb78070b4c55a", "dda97ca4864cdfe06eaf70a0ec0d7191",
                                          "8ea2b7ca516745bfeafc49904b496089"};
    const aesgen_variant *vs[2] = {t->v, t->ref};
    uint8_t key[32], pt[16], ct[16], out[16];
    for (unsigned i = 0; i < 32; i++)
        key[i] = (uint8_t)i;
    for (unsigned i = 0; i < 16; i++)
        pt[i] = (uint8_t)(i * 0x11);
    from_hex(ct, ct_hex[(t->v->key_bits - 128) / 64], 16);
    for (unsigned j = 0; j < 2; j++) {
        case_begin();
        vs[j]->setkey(j ? t->rk_r : t->rk_v, key);
        vs[j]->ecb(j ? t->rk_r : t->rk_v, out, t->v->direction ? ct : pt, 1);
        same(j ? "FIPS-197 appendix C, the reference" : "FIPS-197 appendix C", "block",
             t->v->direction ? pt : ct, out, 16);
        case_end();
    }
}

/* One case: n random blocks through the variant (in place, or from in_off to
 * out_off; in two calls when split > 0) against the reference in one call. */
static void variant_case(const subject *t, int mode, size_t n, size_t in_off, size_t out_off, int in_place,
                         size_t split, const uint8_t iv0[16], const char *note)
{
    if (stop_at_first_failure && R.failed)
        return;
    const size_t len = 16 * n, used_in = GUARD + in_off + len + GUARD, used_out = GUARD + out_off + len + GUARD;
    uint8_t iv_ref[16], iv_var[16];
    char cs[256];
    int at = snprintf(cs, sizeof cs, "%s key#%u, %lu blocks, ", mode_name[mode], t->key_index, (unsigned long)n);
    at += in_place ? snprintf(cs + at, sizeof cs - (size_t)at, "in place at +%lu", (unsigned long)in_off)
                   : snprintf(cs + at, sizeof cs - (size_t)at, "in +%lu out +%lu", (unsigned long)in_off,
                              (unsigned long)out_off);
    if (split)
        at += snprintf(cs + at, sizeof cs - (size_t)at, ", two calls %lu+%lu", (unsigned long)split,
                       (unsigned long)(n - split));
    if (mode != ECB) {
        at += snprintf(cs + at, sizeof cs - (size_t)at, ", %s ", mode == CBC ? "iv" : "counter");
        for (unsigned i = 0; i < 16; i++)
            at += snprintf(cs + at, sizeof cs - (size_t)at, "%02x", iv0[i]);
    }
    if (note[0])
        snprintf(cs + at, sizeof cs - (size_t)at, " (%s)", note);

    case_begin();
    rnd_bytes(src, len);
    memcpy(iv_ref, iv0, 16);
    unsigned long before = count(ALL_MASK);
    run(t->ref, t->rk_r, mode, expected, src, n, iv_ref);
    if (count(ALL_MASK) != before)
        mismatch(cs, "the reference variant ran T4 instructions");

    region_fill(region_in, used_in);
    uint8_t *in = region_in + GUARD + in_off, *out = in;
    memcpy(in, src, len);
    if (!in_place) {
        region_fill(region_out, used_out);
        out = region_out + GUARD + out_off;
    }
    memcpy(iv_var, iv0, 16);
    before = count(ROUNDS_MASK);
    if (split) {
        run(t->v, t->rk_v, mode, out, in, split, iv_var);
        run(t->v, t->rk_v, mode, out + 16 * split, in + 16 * split, n - split, iv_var);
    } else {
        run(t->v, t->rk_v, mode, out, in, n, iv_var);
    }
    const unsigned long ran = count(ROUNDS_MASK) - before, want = 2ul * t->rounds * n;
    if (ran != want)
        mismatch(cs, "%lu AES rounds emulated, expected %lu (2 per round and block)", ran, want);

    same(cs, "output", expected, out, len);
    if (mode != ECB)
        same(cs, mode == CBC ? "IV after the call" : "counter after the call", iv_ref, iv_var, 16);
    if (in_place) {
        region_intact(cs, "buffer", region_in, GUARD + in_off, GUARD + in_off + len, used_in);
    } else {
        region_intact(cs, "output buffer", region_out, GUARD + out_off, GUARD + out_off + len, used_out);
        region_intact(cs, "input buffer", region_in, GUARD + in_off, GUARD + in_off + len, used_in);
        same(cs, "input (must be unchanged)", src, in, len);
    }
    case_end();
}

/* Counter whose low 64 bits carry after `after` blocks; wrap128: the high
 * half is all ones too, so the whole counter wraps to 0 there. */
static void carry_counter(uint8_t c[16], int wrap128, size_t after)
{
    rnd_bytes(c, 8);
    if (wrap128)
        memset(c, 0xff, 8);
    store_be64(c + 8, (uint64_t)0 - (uint64_t)after);
}

/* Every case for one key. full = 0: the short matrix of sabotage runs. */
static void variant_key_cases(const subject *t, int full)
{
    const int modes = t->v->direction == 0 ? 3 : 2;
    const int k = (int)t->key_index;
    uint8_t iv[16];

    for (size_t n = 0; n <= 40; n++)
        for (int m = 0; m < modes; m++) {
            const struct {
                size_t in_off, out_off;
                int in_place;
            } pl[4] = {{0, 0, 0}, {1 + n % 15, (3 + 5 * n) % 16, 0}, {0, 0, 1}, {1 + (7 * n) % 15, 0, 1}};
            for (unsigned p = 0; p < 4; p++) {
                if (k > 0 && p >= 2)
                    continue;
                rnd_bytes(iv, 16);
                variant_case(t, m, n, pl[p].in_off, pl[p].out_off, pl[p].in_place, 0, iv, "");
            }
        }
    if (!full)
        return;

    if (k == 0) {
        /* Every offset pair at 3 blocks; in place at every offset, also across
         * the wrappers' 32-block bounce buffer. */
        static const size_t in_place_counts[] = {1, 2, 3, 33, 40};
        for (size_t a = 0; a < 16; a++)
            for (int m = 0; m < modes; m++) {
                for (size_t b = 0; b < 16; b++) {
                    rnd_bytes(iv, 16);
                    variant_case(t, m, 3, a, b, 0, 0, iv, "");
                }
                for (unsigned i = 0; i < sizeof in_place_counts / sizeof in_place_counts[0]; i++) {
                    rnd_bytes(iv, 16);
                    variant_case(t, m, in_place_counts[i], a, a, 1, 0, iv, "");
                }
            }
        static const size_t large[] = {65, MAX_BLOCKS};
        for (unsigned i = 0; i < 2; i++)
            for (int m = 0; m < modes; m++) {
                rnd_bytes(iv, 16);
                variant_case(t, m, large[i], 0, 0, 0, 0, iv, "");
                rnd_bytes(iv, 16);
                variant_case(t, m, large[i], 5, 11, 0, 0, iv, "");
                rnd_bytes(iv, 16);
                variant_case(t, m, large[i], 13, 13, 1, 0, iv, "");
            }
    }

    /* Two calls: the IV or counter must chain through the wrappers. */
    static const size_t splits[] = {1, 8, 31, 32, 39};
    for (int m = CBC; m < modes; m++)
        for (unsigned i = 0; i < sizeof splits / sizeof splits[0]; i++) {
            rnd_bytes(iv, 16);
            variant_case(t, m, 40, 3, 9, 0, splits[i], iv, "");
            rnd_bytes(iv, 16);
            variant_case(t, m, 40, 8, 8, 1, splits[i], iv, "");
        }

    /* CTR: the low 64 bits carry (the wrappers split the call there) at
     * several blocks of every count, and the whole counter wraps. */
    if (modes == 3 && k != 1)
        for (size_t n = 1; n <= 40; n++) {
            const size_t afters[5] = {1, 2, n / 2, n - 1, n};
            for (unsigned i = 0; i < 5; i++) {
                const size_t after = afters[i];
                unsigned seen = 0;
                while (seen < i && afters[seen] != after)
                    seen++;
                if (after == 0 || after > n || seen < i)
                    continue;
                for (int wrap = 0; wrap < 2; wrap++) {
                    char note[48];
                    snprintf(note, sizeof note, "%s after block %lu", wrap ? "128-bit wrap" : "64-bit carry",
                             (unsigned long)after);
                    carry_counter(iv, wrap, after);
                    if ((after + (size_t)wrap) % 2)
                        variant_case(t, CTR, n, 1 + n % 15, 2, 0, 0, iv, note);
                    else
                        variant_case(t, CTR, n, 0, 0, n % 2, 0, iv, note);
                }
            }
        }
}

static int check_variant(const aesgen_variant *v, int full)
{
    const aesgen_variant *ref = reference_for(v->key_bits, v->direction);
    subject t = {v, ref, NULL, NULL, 0, v->key_bits / 32 + 6};
    uint8_t key[32];
    const unsigned long rounds0 = count(ROUNDS_MASK), moves0 = count(MOVES_MASK);

    if (ref == NULL) {
        printf("FAIL %s: no feature-free variant to compare with\n", v->name);
        total_failed++;
        return 0;
    }
    subject_begin("%s vs %s", v->name, ref->name);
    t.rk_v = alloc64(AESGEN_MAX_SCHEDULE_BYTES);
    t.rk_r = alloc64(AESGEN_MAX_SCHEDULE_BYTES);
    known_answer(&t);
    for (unsigned k = 0; k < (full ? 3u : 1u); k++) {
        t.key_index = k;
        if (k == 0)
            for (unsigned i = 0; i < 32; i++)
                key[i] = (uint8_t)i;
        else if (k == 1)
            memset(key, 0xff, sizeof key);
        else
            rnd_bytes(key, sizeof key);
        memset(t.rk_v, RK_FILL, AESGEN_MAX_SCHEDULE_BYTES);
        v->setkey(t.rk_v, key);
        ref->setkey(t.rk_r, key);
        case_begin();
        for (size_t i = v->schedule_bytes; i < AESGEN_MAX_SCHEDULE_BYTES; i++)
            if (t.rk_v[i] != RK_FILL) {
                mismatch("setkey", "wrote byte %lu, beyond schedule_bytes %lu", (unsigned long)i,
                         (unsigned long)v->schedule_bytes);
                break;
            }
        case_end();
        variant_key_cases(&t, full);
    }
    free(t.rk_v);
    free(t.rk_r);
    char what[200];
    snprintf(what, sizeof what, "%lu AES rounds and %lu moves emulated", count(ROUNDS_MASK) - rounds0,
             count(MOVES_MASK) - moves0);
    return subject_end(what);
}

/* Every sparc64-t4 variant (failures go to total_failed); returns how many. */
static int check_all_variants(int full)
{
    int n = 0;
    for (size_t i = 0; i < aesgen_registry_size; i++) {
        const aesgen_variant *v = aesgen_registry[i];
        if (strcmp(v->backend, "sparc64-t4") != 0)
            continue;
        n++;
        if (!check_variant(v, full) && stop_at_first_failure)
            break;
    }
    return n;
}

/* -------------------------------------------------------------------- main */

/* How often the instructions a sabotage breaks have run. */
static unsigned long sabotage_exposure(int s)
{
    switch (s) {
    case SAB_SWAP_HALVES:
        return count(ROUNDS_MASK);
    case SAB_LAST_AS_MIDDLE:
        return count(0xf0u); /* the _l forms */
    case SAB_KEXPAND1_NO_ROT:
        return count(1u << K_KEXPAND1);
    case SAB_MOVXTOD_SWAP32:
        return count(1u << K_MOVXTOD);
    case SAB_MOVDTOX_LOW32:
        return count(1u << K_MOVDTOX);
    default:
        return (unsigned long)hot.window_writes;
    }
}

static void usage(void)
{
    fprintf(stderr, "usage: aesgen_sparc_t4_emulation [--seed N] [--sabotage KIND|all]\n");
}

int main(int argc, char **argv)
{
    int sab_from = 0, sab_to = -1; /* sabotage kinds to run, none by default */
    rng_state = 0x7434656d75ull;   /* "t4emu" */
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--seed") == 0 && i + 1 < argc) {
            char *end;
            rng_state = strtoull(argv[++i], &end, 0);
            if (*end != '\0') {
                usage();
                return EXIT_USAGE;
            }
        } else if (strcmp(argv[i], "--sabotage") == 0 && i + 1 < argc) {
            const char *kind = argv[++i];
            sab_from = sab_to = -1;
            if (strcmp(kind, "all") == 0) {
                sab_from = 1;
                sab_to = N_SABOTAGE - 1;
            }
            for (int s = 1; s < N_SABOTAGE; s++)
                if (strcmp(kind, sabotage_name[s]) == 0)
                    sab_from = sab_to = s;
            if (sab_from < 0) {
                usage();
                return EXIT_USAGE;
            }
        } else {
            usage();
            return EXIT_USAGE;
        }
    }
    setvbuf(stdout, NULL, _IOLBF, 0);

    if (aesgen_cpu_features() & AESGEN_CPU_SPARC_AES) {
        printf("skipped: this CPU has the T4 opcodes; aesgen_crosscheck runs the sparc64-t4 variants natively\n");
        return EXIT_SKIP;
    }
    make_sbox();
    if (!check_reference_round())
        return EXIT_FAIL;

    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_sigaction = on_sigill;
    sa.sa_flags = SA_SIGINFO;
    sigemptyset(&sa.sa_mask);
    if (!rewrite_t4_code() || sigaction(SIGILL, &sa, NULL) != 0 || !check_probe())
        return EXIT_FAIL;
    unsigned long by_probe[N_KINDS];
    for (unsigned k = 0; k < N_KINDS; k++)
        by_probe[k] = (unsigned long)hot.emulated[k];

    region_in = alloc64(REGION_BYTES);
    region_out = alloc64(REGION_BYTES);
    src = alloc64(16 * (size_t)MAX_BLOCKS);
    expected = alloc64(16 * (size_t)MAX_BLOCKS);

    if (sab_from > 0) {
        /* Each sabotage must make the comparisons fail. */
        int all_detected = 1;
        stop_at_first_failure = 1;
        for (int s = sab_from; s <= sab_to; s++) {
            const unsigned long before = sabotage_exposure(s);
            sabotage = s;
            total_failed = total_cases = 0;
            printf("---- sabotage %s: the comparisons must fail\n", sabotage_name[s]);
            check_all_variants(0);
            sabotage = SAB_NONE;
            if (total_failed == 0 && sabotage_exposure(s) == before) {
                printf("ok   sabotage %s: not applicable, the generated code never ran the instructions it breaks\n",
                       sabotage_name[s]);
                continue;
            }
            printf("%s sabotage %s %s\n", total_failed ? "ok  " : "FAIL", sabotage_name[s],
                   total_failed ? "detected" : "NOT detected: the test cannot see this fault");
            all_detected &= total_failed != 0;
        }
        sabotage = SAB_NONE;
        printf("%s: %s\n", all_detected ? "PASS" : "FAIL",
               all_detected ? "every sabotage was detected" : "a sabotage went unnoticed");
        return all_detected ? EXIT_PASS : EXIT_FAIL;
    }

    const int variants = check_all_variants(1);
    int ok = variants > 0;
    if (variants == 0)
        printf("FAIL no sparc64-t4 variants in the registry\n");
    /* Every round form must have run; the others depend on what the generator emits. */
    printf("     %lu SIGILL traps in all\n", (unsigned long)hot.traps);
    printf("     emulated in the generated code:");
    for (unsigned k = 0; k < N_KINDS; k++)
        printf(" %s %lu%s", kind_name[k], (unsigned long)hot.emulated[k] - by_probe[k], k + 1 < N_KINDS ? "," : "\n");
    for (unsigned k = 0; k < 8; k++)
        if ((unsigned long)hot.emulated[k] == by_probe[k]) {
            printf("FAIL %s never ran in the generated code\n", kind_name[k]);
            ok = 0;
        }
    ok &= total_failed == 0;
    printf("%s: %d sparc64-t4 variants, %lu cases compared, %lu differ\n", ok ? "PASS" : "FAIL", variants,
           total_cases, total_failed);
    return ok ? EXIT_PASS : EXIT_FAIL;
}
