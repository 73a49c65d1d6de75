/*
 * aesgen_clmul.h -- a constant-time 64 x 64 -> 128-bit carry-less multiply in plain C,
 * for the portable GHASH (generated code that has no carry-less multiply instruction).
 *
 * Integer multiplication with holes (BearSSL's bmul): each operand is split into four
 * classes of bits 4 apart, and ordinary multiplies of the classes leave every product
 * bit's carries in the 3-bit gaps above it, which a mask then drops. With 32-bit
 * operands a class has 8 bits, so a product position sums at most 8 terms and its carry
 * stays below the next class bit. No table, no branch: constant time wherever the
 * CPU's integer multiplier is (true of the x86-64, AArch64, POWER and RISC-V cores
 * aesgen targets; not of some small microcontrollers).
 *
 * Below it, the same 64 x 64 product by the instructions of RISC-V and SPARC, for
 * their GHASH variants (generator/aesgen/emit/c_ghash.py, PairIsa).
 */
#ifndef AESGEN_CLMUL_H
#define AESGEN_CLMUL_H

#include <stdint.h>

#if defined(__GNUC__)
#define AESGEN_CLMUL_CALLED __attribute__((noinline, unused)) /* unused: not every includer multiplies so */
#else
#define AESGEN_CLMUL_CALLED
#endif

/* The 64-bit carry-less product of two 32-bit words. */
static inline uint64_t aesgen_clmul32(uint32_t x, uint32_t y)
{
    const uint64_t x0 = x & 0x11111111u, x1 = x & 0x22222222u, x2 = x & 0x44444444u, x3 = x & 0x88888888u;
    const uint64_t y0 = y & 0x11111111u, y1 = y & 0x22222222u, y2 = y & 0x44444444u, y3 = y & 0x88888888u;
    uint64_t z0 = (x0 * y0) ^ (x1 * y3) ^ (x2 * y2) ^ (x3 * y1);
    uint64_t z1 = (x0 * y1) ^ (x1 * y0) ^ (x2 * y3) ^ (x3 * y2);
    uint64_t z2 = (x0 * y2) ^ (x1 * y1) ^ (x2 * y0) ^ (x3 * y3);
    uint64_t z3 = (x0 * y3) ^ (x1 * y2) ^ (x2 * y1) ^ (x3 * y0);
    z0 &= UINT64_C(0x1111111111111111);
    z1 &= UINT64_C(0x2222222222222222);
    z2 &= UINT64_C(0x4444444444444444);
    z3 &= UINT64_C(0x8888888888888888);
    return z0 | z1 | z2 | z3;
}

/* The 128-bit carry-less product of two 64-bit words: low half returned, high in *hi
 * (Karatsuba on the 32-bit halves: three products). Not inlined: a GHASH update makes a
 * dozen of them, and inlined they ran out of registers (x86-64, GCC 12: the portable
 * 4-block update was 19.6 KB and 374 MB/s; called, 4 KB and 605 MB/s). */
static AESGEN_CLMUL_CALLED uint64_t aesgen_clmul64(uint64_t x, uint64_t y, uint64_t *hi)
{
    const uint32_t xl = (uint32_t)x, xh = (uint32_t)(x >> 32);
    const uint32_t yl = (uint32_t)y, yh = (uint32_t)(y >> 32);
    const uint64_t lo = aesgen_clmul32(xl, yl), top = aesgen_clmul32(xh, yh);
    const uint64_t mid = aesgen_clmul32(xl ^ xh, yl ^ yh) ^ lo ^ top;
    *hi = top ^ (mid >> 32);
    return lo ^ (mid << 32);
}

#if defined(__riscv) && __riscv_xlen == 64
/* The same product by clmul and clmulh (Zbc, or Zbkc as the scalar crypto extensions
 * have it), enabled for these two instructions only: the dispatcher calls the GHASH
 * that uses this after it has seen the extension (AESGEN_CPU_RV_CLMUL). */
static inline uint64_t aesgen_clmul64_rv(uint64_t x, uint64_t y, uint64_t *hi)
{
    uint64_t lo, h;
    __asm__(".option push\n\t.option arch, +zbkc\n\t"
            "clmul %0, %2, %3\n\tclmulh %1, %2, %3\n\t.option pop"
            : "=&r"(lo), "=r"(h)
            : "r"(x), "r"(y));
    *hi = h;
    return lo;
}
#endif

#if defined(__sparc__) && defined(__arch64__)
/* The same product by VIS3's xmulx and xmulxhi (SPARC T3 and later; AESGEN_CPU_SPARC_VIS3),
 * spelled as words: GNU as takes the mnemonics only with -Av9d or later, which C compiles
 * are not given. Operands in fixed registers so the words can name them:
 *   0x8bb062a4  xmulx   %g1, %g4, %g5
 *   0x85b062c4  xmulxhi %g1, %g4, %g2 */
static inline uint64_t aesgen_clmul64_vis3(uint64_t x, uint64_t y, uint64_t *hi)
{
    register uint64_t g1 __asm__("g1") = x;
    register uint64_t g4 __asm__("g4") = y;
    register uint64_t g5 __asm__("g5");
    register uint64_t g2 __asm__("g2");
    __asm__(".word 0x8bb062a4\n\t.word 0x85b062c4" : "=&r"(g5), "=&r"(g2) : "r"(g1), "r"(g4));
    *hi = g2;
    return g5;
}
#endif

static inline uint64_t aesgen_bswap64(uint64_t v)
{
#if defined(__GNUC__) && !defined(__sparc__) /* SPARC has no byte swap: GCC calls libgcc */
    return __builtin_bswap64(v);
#else
    v = ((v & UINT64_C(0x00ff00ff00ff00ff)) << 8) | ((v >> 8) & UINT64_C(0x00ff00ff00ff00ff));
    v = ((v & UINT64_C(0x0000ffff0000ffff)) << 16) | ((v >> 16) & UINT64_C(0x0000ffff0000ffff));
    return (v << 32) | (v >> 32);
#endif
}

#endif /* AESGEN_CLMUL_H */
