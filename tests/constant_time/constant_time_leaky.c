/*
 * constant_time_leaky.c -- aesgen_ct_test --leaky: a deliberately leaky AES step (a
 * secret-indexed S-box load and a secret-dependent branch) that memcheck must
 * report, the test of the test (see constant_time_test.c).
 */
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <valgrind/memcheck.h>
#include <valgrind/valgrind.h>

#include "constant_time_test.h"

/* ------------------------------------------------------------------------ */
/* --leaky: a deliberately leaky AES step; memcheck must report it          */
/* ------------------------------------------------------------------------ */

static uint8_t g_sbox[256];
static volatile unsigned g_leak_sink;

static uint8_t rotl8(uint8_t x, unsigned s)
{
    return (uint8_t)((x << s) | (x >> (8 - s)));
}

/* The AES S-box from its definition (public computation, done once). */
static void build_sbox(void)
{
    uint8_t p = 1, q = 1;
    do {
        p = (uint8_t)(p ^ (p << 1) ^ ((p & 0x80) ? 0x1b : 0)); /* p *= 3 */
        q = (uint8_t)(q ^ (q << 1));                           /* q /= 3 */
        q = (uint8_t)(q ^ (q << 2));
        q = (uint8_t)(q ^ (q << 4));
        if (q & 0x80) {
            q ^= 0x09;
        }
        g_sbox[p] = (uint8_t)(q ^ rotl8(q, 1) ^ rotl8(q, 2) ^ rotl8(q, 3) ^ rotl8(q, 4) ^ 0x63);
    } while (p != 1);
    g_sbox[0] = 0x63;
}

/* AddRoundKey + SubBytes through a 256-byte table: the load address depends
 * on key ^ plaintext (the classic cache-timing leak). */
CT_NOINLINE static void leaky_subbytes(uint8_t out[16], const uint8_t key[16], const uint8_t in[16])
{
    int i;
    for (i = 0; i < 16; ++i) {
        out[i] = g_sbox[key[i] ^ in[i]];
    }
}

/* xtime with a branch on the top bit of a secret byte. The volatile store
 * keeps the compiler from turning the branch into branch-free code. */
CT_NOINLINE static void leaky_xtime(uint8_t s[16])
{
    int i;
    for (i = 0; i < 16; ++i) {
        if (s[i] & 0x80) {
            s[i] = (uint8_t)((s[i] << 1) ^ 0x1b);
            g_leak_sink = g_leak_sink + 1u;
        } else {
            s[i] = (uint8_t)(s[i] << 1);
        }
    }
}

int run_leaky(int under_memcheck)
{
    uint8_t key[16], pt[16], ks[16], kp[16], st[16], want[16];
    unsigned long e0, e1, e2;
    int i, ok = 1;

    build_sbox();
    if (g_sbox[0x00] != 0x63 || g_sbox[0x01] != 0x7c || g_sbox[0x53] != 0xed ||
        g_sbox[0xff] != 0x16) {
        printf("%s: --leaky: S-box construction is wrong\n", g_prog);
        return CT_EXIT_FAIL;
    }
    fill_random(key, 16);
    fill_random(pt, 16);
    for (i = 0; i < 16; ++i) {
        want[i] = g_sbox[key[i] ^ pt[i]];
    }

    /* Memcheck reports a load through an undefined address once and then
     * treats the loaded value as defined (to avoid cascades), so the branch
     * gets its own secret input rather than the S-box output. */
    secret_copy(ks, key, 16);
    secret_copy(kp, pt, 16);
    e0 = memcheck_errors();
    leaky_subbytes(st, ks, kp);
    e1 = memcheck_errors();
    PUBLIC(st, 16);
    if (memcmp(st, want, 16) != 0) {
        printf("%s: --leaky: the leaky SubBytes computed a wrong result\n", g_prog);
        return CT_EXIT_FAIL;
    }
    secret_copy(st, want, 16);
    leaky_xtime(st);
    e2 = memcheck_errors();
    PUBLIC(st, 16);

    for (i = 0; i < 16; ++i) {
        uint8_t x = want[i];
        want[i] = (uint8_t)((x << 1) ^ ((x & 0x80) ? 0x1b : 0));
    }
    if (memcmp(st, want, 16) != 0) {
        printf("%s: --leaky: the leaky xtime computed a wrong result\n", g_prog);
        return CT_EXIT_FAIL;
    }
    if (!under_memcheck) {
        printf("%s: --leaky ran natively (--allow-native): nothing was checked\n", g_prog);
        return CT_EXIT_DONE;
    }
    printf("%s: --leaky: memcheck errors: %lu at the secret-indexed S-box load, "
           "%lu at the secret-dependent branch\n", g_prog, e1 - e0, e2 - e1);
    if (e1 == e0) {
        printf("%s: --leaky: memcheck did NOT report the secret-indexed table load\n", g_prog);
        ok = 0;
    }
    if (e2 == e1) {
        printf("%s: --leaky: memcheck did NOT report the secret-dependent branch\n", g_prog);
        ok = 0;
    }
    if (!ok) {
        return CT_EXIT_FAIL;
    }
    /* The line run_constant_time.sh looks for; the exit status comes from valgrind. */
    printf("%s: --leaky: LEAKS REPORTED by memcheck (table load and branch), as intended\n", g_prog);
    return CT_EXIT_DONE;
}
