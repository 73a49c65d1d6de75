/*
 * sparc_t4_emulation_test.h -- what the files of aesgen_sparc_t4_emulation share (the
 * test is described in sparc_t4_emulation_test.c):
 *   sparc_t4_emulation_reference.c        the T4 AES opcodes computed byte-wise from FIPS-197, and
 *                         their start-up check against appendices A and B; VIS3's
 *                         xmulx/xmulxhi computed bit by bit
 *   sparc_t4_emulation_emulator.c         the emulator: decoding, the SIGILL handler, rewriting the
 *                         T4 functions to illtrap, the counts, the sabotages, and the
 *                         start-up check of the decoder against sparc_t4_emulation_probe.S
 *   sparc_t4_emulation_test.c  the test driver: every sparc64-t4 variant and every
 *                         __sparc64_vis3 GHASH variant against the portable reference,
 *                         the sabotage runs, main
 */
#ifndef AESGEN_SPARC_T4_EMULATION_H
#define AESGEN_SPARC_T4_EMULATION_H

#include <signal.h>
#include <stdint.h>

#define EXIT_PASS 0
#define EXIT_FAIL 1
#define EXIT_USAGE 2
#define EXIT_SKIP 77

/* ------------------------------------------------------------- sparc_t4_emulation_reference.c */

uint64_t load_be64(const uint8_t *p);
void store_be64(uint8_t *p, uint64_t v);

/* Builds the S-boxes and GF(2^8) tables the opcodes use; before anything else. */
void make_sbox(void);

/* One AES round opcode (op5 0..7: eround01, eround23, dround01, dround23, then the
 * _l forms) of round key k on the state hi:lo; the half it writes. */
uint64_t t4_round(unsigned op5, uint64_t k, uint64_t hi, uint64_t lo);

/* aes_kexpand0/1/2 (which = 0, 1, 2); rot = 0 leaves out RotWord (a sabotage). */
uint64_t t4_kexpand(int which, unsigned rcon_index, uint64_t x, uint64_t y, int rot);

/* FIPS-197 appendices A and B through the opcodes; prints a line, returns 1 when right. */
int check_reference_round(void);

/* The 128-bit carry-less product of x and y, bit by bit: the low half (xmulx) returned,
 * the high half (xmulxhi) in *hi. */
uint64_t clmul64_reference(uint64_t x, uint64_t y, uint64_t *hi);

/* That product against known answers and the library's own (different) carry-less
 * multiply; prints a line, returns 1 when right. */
int check_reference_clmul(void);

/* -------------------------------------------------------------- sparc_t4_emulation_emulator.c */

/* The kinds of emulated instructions: 0..7 the AES round forms by op5, then these
 * (K_XMULX, K_XMULXHI: VIS3's carry-less multiply, for the GHASH variants). */
enum { K_KEXPAND0 = 8, K_KEXPAND1, K_KEXPAND2, K_MOVXTOD, K_MOVDTOX, K_XMULX, K_XMULXHI, N_KINDS };
extern const char *const kind_name[N_KINDS];

enum { SAB_NONE, SAB_SWAP_HALVES, SAB_LAST_AS_MIDDLE, SAB_KEXPAND1_NO_ROT, SAB_MOVXTOD_SWAP32,
       SAB_MOVDTOX_LOW32, SAB_NO_WINDOW_WRITE, SAB_XMULX_NO_BIT63, SAB_XMULXHI_SHL1, N_SABOTAGE };
extern const char *const sabotage_name[N_SABOTAGE];

/* Counts, written by the SIGILL handler for every emulated instruction. */
typedef struct t4_counts {
    volatile sig_atomic_t emulated[N_KINDS], traps, window_writes;
} t4_counts;
extern t4_counts hot;

/* The fault the emulation makes (SAB_NONE: none). */
extern volatile sig_atomic_t sabotage;

#define ROUNDS_MASK 0xffu
#define MOVES_MASK (1u << K_MOVXTOD | 1u << K_MOVDTOX)
#define CLMUL_MASK (1u << K_XMULX | 1u << K_XMULXHI)
#define ALL_MASK ((1u << N_KINDS) - 1)

/* Instructions emulated so far, of the kinds in mask. */
unsigned long count(unsigned mask);

/* How often the instructions sabotage s breaks have run. */
unsigned long sabotage_exposure(int s);

/* Rewrites the T4 and VIS3 multiply words of the executable's T4 functions and of the
 * VIS3 GHASH's functions to illtrap; 1 on success. */
int rewrite_t4_code(void);

/* The SIGILL handler (SA_SIGINFO) that emulates the rewritten words. */
void on_sigill(int sig, siginfo_t *info, void *ctx);

/* The decoder against the assembler's encodings (sparc_t4_emulation_probe.S); 1 when right. */
int check_probe(void);

#endif
