/*
 * sparc_t4_emulation_emulator.c -- aesgen_sparc_t4_emulation: the emulator of the T4 AES opcodes,
 * VIS3 moves and VIS3 carry-less multiplies (decoding, the SIGILL handler working on the
 * Linux rt signal frame), the rewriting of the T4 functions and of the VIS3 GHASH's
 * functions to illtrap, the counts and sabotages, and the
 * start-up check of the decoder against the assembler (sparc_t4_emulation_probe.S). See
 * sparc_t4_emulation_test.c.
 */
#define _GNU_SOURCE
#include <elf.h>
#include <link.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "sparc_t4_emulation_test.h"

/* ------------------------------------------------------------ the emulator */

/* 0..7: the AES round forms by op5, then K_KEXPAND0 .. K_XMULXHI */
const char *const kind_name[N_KINDS] = {
    "aes_eround01",   "aes_eround23",   "aes_dround01", "aes_dround23", "aes_eround01_l",
    "aes_eround23_l", "aes_dround01_l", "aes_dround23_l", "aes_kexpand0", "aes_kexpand1",
    "aes_kexpand2",   "movxtod",        "movdtox",      "xmulx",        "xmulxhi"};

const char *const sabotage_name[N_SABOTAGE] = {
    "none", "swap-halves", "last-as-middle", "kexpand1-no-rot", "movxtod-swap32", "movdtox-low32",
    "no-window-write", "xmulx-no-bit63", "xmulxhi-shl1"};

/* Counts, written for every emulated instruction. On SPARC the PLT is code
 * in the data segment, and qemu write-protects a page it has translated code
 * from: every write to that 8 KiB page then costs a host fault and a
 * retranslation. This alignment moves .bss, and so all the test's mutable
 * statics, off the PLT's page (the run is twenty times faster). It aligns the
 * executable's whole .bss, so it covers the other files' statics, and those of
 * tests/support, too (none of them is initialised to non-zero, so all are in .bss). */
_Alignas(8192) t4_counts hot;
volatile sig_atomic_t sabotage;

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
 *     0x118 movxtod and 0x110 movdtox (both with rs1 0), 0x115 xmulx and 0x116
 *     xmulxhi (rd, rs1, rs2 integer registers). */
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
    if (opf == 0x115)
        return K_XMULX;
    if (opf == 0x116)
        return K_XMULXHI;
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
    } else if (kind == K_XMULX || kind == K_XMULXHI) {
        uint64_t hi;
        const uint64_t lo = clmul64_reference(int_get(sc, win, rs1), int_get(sc, win, rs2), &hi);
        uint64_t v = kind == K_XMULX ? lo : hi;
        if (kind == K_XMULX && sabotage == SAB_XMULX_NO_BIT63)
            v &= ~(UINT64_C(1) << 63);
        if (kind == K_XMULXHI && sabotage == SAB_XMULXHI_SHL1)
            v <<= 1;
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

void on_sigill(int sig, siginfo_t *info, void *ctx)
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

/* Instructions emulated so far, of the kinds in mask. */
unsigned long count(unsigned mask)
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

/* The functions to rewrite: the T4 ones, the probe, and every function of the VIS3 GHASH
 * variants. Those are static C functions (ghash__sparc64_vis3_x4_setkey, _update, and
 * whatever helpers the compiler did not inline: ghash_blocks, ghash_tail, ghash_powers,
 * ... whose names other GHASH variants share), so they are found by the file their
 * local symbols belong to (the STT_FILE symbol before them, e.g.
 * ghash__sparc64_vis3_x4.c), as well as by name.
 *
 * The xmulx/xmulxhi words are rewritten like the T4 ones, although qemu 7.2 already
 * raises SIGILL on them and the handler could take the original word at the PC: that
 * would depend on what the emulator in use does with VIS3 (a qemu that implements
 * xmulx, or a CPU with VIS3 but not the T4 opcodes, would run them natively and the
 * emulation would silently drop out), while the rewritten words trap everywhere, the
 * handler keeps accepting only words it rewrote, and every word is accounted for
 * below: a T4 or VIS3 multiply word outside the rewritten functions fails the test. */
static int is_t4_function(const char *name, int in_vis3_file)
{
    return strcmp(name, "t4emu_probe") == 0 || in_vis3_file || strstr(name, "__sparc64_vis3") != NULL ||
           (strncmp(name, "aesgen_", 7) == 0 && strstr(name, "__sparc64_t4") != NULL);
}

/* How many words of [start, start+size) the emulator would take (t4_kind != -1). */
static long count_t4_words(uintptr_t start, size_t size)
{
    long n = 0;
    for (uintptr_t a = start; a + 4 <= start + size; a += 4) {
        uint32_t w;
        memcpy(&w, (const void *)a, 4);
        n += t4_kind(w) != -1;
    }
    return n;
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
int rewrite_t4_code(void)
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

    unsigned functions = 0, vis3_functions = 0;
    long words = 0, vis3_words = 0;
    for (unsigned s = 0; s < eh.e_shnum; s++) {
        Elf64_Shdr sym, str;
        memcpy(&sym, buf + eh.e_shoff + s * sizeof sym, sizeof sym);
        if (sym.sh_type != SHT_SYMTAB || sym.sh_link >= eh.e_shnum)
            continue;
        memcpy(&str, buf + eh.e_shoff + sym.sh_link * sizeof str, sizeof str);
        if (sym.sh_offset + sym.sh_size > (uint64_t)len || str.sh_offset + str.sh_size > (uint64_t)len)
            continue;
        int in_vis3_file = 0; /* the local symbols of a VIS3 GHASH variant's file */
        for (uint64_t k = 0; k < sym.sh_size / sizeof(Elf64_Sym); k++) {
            Elf64_Sym e;
            memcpy(&e, buf + sym.sh_offset + k * sizeof e, sizeof e);
            if (e.st_name >= str.sh_size ||
                memchr(buf + str.sh_offset + e.st_name, '\0', str.sh_size - e.st_name) == NULL)
                continue;
            const char *name = (const char *)buf + str.sh_offset + e.st_name;
            if (ELF64_ST_TYPE(e.st_info) == STT_FILE)
                in_vis3_file = strstr(name, "__sparc64_vis3") != NULL;
            if (ELF64_ST_TYPE(e.st_info) != STT_FUNC || e.st_size == 0 || e.st_shndx == SHN_UNDEF)
                continue;
            const uintptr_t start = load_bias + (uintptr_t)e.st_value;
            const int vis3 = ELF64_ST_BIND(e.st_info) == STB_LOCAL && in_vis3_file;
            if (!is_t4_function(name, vis3)) {
                const long stray = count_t4_words(start, (size_t)e.st_size);
                if (stray != 0) {
                    printf("FAIL %s: %ld T4 or VIS3 multiply words in a function this test does not rewrite\n",
                           name, stray);
                    free(buf);
                    return 0;
                }
                continue;
            }
            const long n = rewrite_function(name, start, (size_t)e.st_size);
            if (n < 0) {
                free(buf);
                return 0;
            }
            functions++;
            words += n;
            if (vis3 || strstr(name, "__sparc64_vis3") != NULL) {
                vis3_functions++;
                vis3_words += n;
            }
        }
    }
    free(buf);
    printf("     rewrote %ld T4 and VIS3 instructions to illtrap in %u functions (%ld in the %u functions "
           "of the VIS3 GHASH variants)\n",
           words, functions, vis3_words, vis3_functions);
    if (words == 0) {
        printf("FAIL no T4 instructions found (is the executable stripped?)\n");
        return 0;
    }
    return 1;
}

void t4emu_probe(const uint64_t in[4], uint64_t out[22]);

/* The decoder against the assembler's encodings (sparc_t4_emulation_probe.S). */
int check_probe(void)
{
    uint64_t in[4], out[22], want[22], hi;
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
    want[15] = clmul64_reference(in[3], in[0], &want[16]);
    clmul64_reference(want[15], want[16], &want[17]);
    want[18] = clmul64_reference(want[17], in[3], &hi);
    want[19] = clmul64_reference(in[1], in[0], &hi);
    clmul64_reference(in[1], want[18], &want[20]);
    want[21] = 0;
    for (unsigned k = 0; k < N_KINDS; k++)
        before[k] = (unsigned long)hot.emulated[k];
    memset(out, 0x5a, sizeof out);
    t4emu_probe(in, out);
    int ok = 1;
    for (unsigned i = 0; i < 22; i++)
        if (out[i] != want[i]) {
            printf("FAIL opcode probe: out[%u] = %016llx, expected %016llx (%s)\n", i, (unsigned long long)out[i],
                   (unsigned long long)want[i],
                   i < 8    ? kind_name[i]
                   : i < 10 ? "destination = source"
                   : i < 12 ? "moves"
                   : i < 15 ? "kexpand"
                            : "xmulx/xmulxhi");
            ok = 0;
        }
    static const unsigned expected_count[N_KINDS] = {2, 1, 1, 2, 1, 1, 1, 1, 1, 1, 1, 4, 3, 4, 3};
    for (unsigned k = 0; k < N_KINDS; k++)
        if ((unsigned long)hot.emulated[k] - before[k] != expected_count[k]) {
            printf("FAIL opcode probe: %lu %s emulated, expected %u\n", (unsigned long)hot.emulated[k] - before[k],
                   kind_name[k], expected_count[k]);
            ok = 0;
        }
    if (ok)
        printf("ok   opcode probe: every form, both FP banks, destination = source, moves and "
               "xmulx/xmulxhi through %%l %%i %%o %%g\n");
    return ok;
}

/* How often the instructions a sabotage breaks have run. */
unsigned long sabotage_exposure(int s)
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
    case SAB_XMULX_NO_BIT63:
        return count(1u << K_XMULX);
    case SAB_XMULXHI_SHL1:
        return count(1u << K_XMULXHI);
    default:
        return (unsigned long)hot.window_writes;
    }
}
