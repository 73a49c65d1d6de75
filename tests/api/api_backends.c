/*
 * api_backends.c -- aesgen_api_test: backends (names, support, forcing, selection),
 * the internal registry and aesgen_init_variants, and the modes that check the
 * environment variables AESGEN_BACKEND and AESGEN_CPU_DISABLE (separate CTest tests).
 */
#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "api_test.h"

/* ------------------------------------------------------------------------ */
/* Backends                                                                   */

static const char *auto_variant[3][2];

void record_automatic(void)
{
    for (int k = 0; k < 3; k++)
        for (int d = 0; d < 2; d++)
            auto_variant[k][d] = aesgen_selected_variant(128 + 64 * (unsigned)k, (aesgen_direction)d);
}

/* Every key size and direction reports `backend` (NULL: the automatic
 * choice recorded at start-up). */
static void check_selection(int line, const char *backend, const char *why)
{
    for (int k = 0; k < 3; k++) {
        unsigned bits = 128 + 64 * (unsigned)k;
        for (int d = 0; d < 2; d++) {
            const char *v = aesgen_selected_variant(bits, (aesgen_direction)d);
            const char *b = aesgen_selected_backend(bits, (aesgen_direction)d);
            if (backend == NULL) {
                ts_check_at(streq(v, auto_variant[k][d]), line,
                            "%s: AES-%u %s selects %s, automatic choice was %s", why, bits,
                            d ? "decrypt" : "encrypt", nn(v), nn(auto_variant[k][d]));
                continue;
            }
            ts_check_at(streq(b, backend), line, "%s: aesgen_selected_backend(%u, %d) is %s, not %s",
                        why, bits, d, nn(b), backend);
            const aesgen_variant *var = v ? aesgen_find_variant(v) : NULL;
            ts_check_at(var != NULL && streq(var->backend, backend) && var->key_bits == bits &&
                            var->direction == d,
                        line, "%s: aesgen_selected_variant(%u, %d) is %s, not a variant of %s", why,
                        bits, d, nn(v), backend);
        }
    }
}

void test_backends(void)
{
    size_t n = aesgen_backend_count();
    const char *supported_names[64];
    size_t nsup = 0;
    CHECK(n >= 1, "aesgen_backend_count() is %zu", n);
    for (size_t i = 0; i < n; i++) {
        const char *name = aesgen_backend_name(i);
        CHECK(name != NULL && name[0] != '\0', "aesgen_backend_name(%zu) is NULL or empty", i);
        if (!name)
            continue;
        for (size_t j = 0; j < i; j++)
            CHECK(!streq(name, aesgen_backend_name(j)), "backends %zu and %zu are both named %s", j,
                  i, name);
        int s = aesgen_backend_supported(name);
        CHECK(s == 0 || s == 1, "aesgen_backend_supported(\"%s\") is %d, expected 0 or 1", name, s);
        if (s == 1 && nsup < 64)
            supported_names[nsup++] = name;
        printf("  backend %-16s %s\n", name, s == 1 ? "supported" : "not supported on this CPU");

        /* A prefix or an extension of a name is not a name. */
        char longer[128], shorter[128];
        snprintf(longer, sizeof longer, "%sx", name);
        snprintf(shorter, sizeof shorter, "%s", name);
        shorter[strlen(shorter) - 1] = '\0';
        int known_longer = 0, known_shorter = 0;
        for (size_t j = 0; j < n; j++) {
            known_longer |= streq(longer, aesgen_backend_name(j));
            known_shorter |= streq(shorter, aesgen_backend_name(j));
        }
        if (!known_longer)
            EXPECT_RC(aesgen_backend_supported(longer), AESGEN_ERR_BACKEND);
        if (!known_shorter)
            EXPECT_RC(aesgen_backend_supported(shorter), AESGEN_ERR_BACKEND);
    }
    CHECK(aesgen_backend_name(n) == NULL, "aesgen_backend_name(count) is not NULL");
    CHECK(aesgen_backend_name(n + 1) == NULL, "aesgen_backend_name(count + 1) is not NULL");
    CHECK(aesgen_backend_name(SIZE_MAX) == NULL, "aesgen_backend_name(SIZE_MAX) is not NULL");
    CHECK(nsup >= 1, "no backend is supported on this CPU");
    EXPECT_RC(aesgen_backend_supported("no-such-backend"), AESGEN_ERR_BACKEND);
    EXPECT_RC(aesgen_backend_supported(""), AESGEN_ERR_BACKEND);
    EXPECT_RC2(aesgen_backend_supported(NULL), AESGEN_ERR_BACKEND, AESGEN_ERR_NULL);

    /* Invalid key sizes and directions. */
    static const unsigned bad_bits[] = { 0, 1, 64, 127, 129, 160, 191, 193, 255, 257, 384, 512,
                                         UINT_MAX };
    for (size_t i = 0; i < sizeof bad_bits / sizeof bad_bits[0]; i++)
        for (int d = 0; d < 2; d++) {
            CHECK(aesgen_selected_variant(bad_bits[i], (aesgen_direction)d) == NULL,
                  "aesgen_selected_variant(%u, %d) is not NULL", bad_bits[i], d);
            CHECK(aesgen_selected_backend(bad_bits[i], (aesgen_direction)d) == NULL,
                  "aesgen_selected_backend(%u, %d) is not NULL", bad_bits[i], d);
        }
    for (unsigned bits = 128; bits <= 256; bits += 64) {
        static const int bad_dirs[] = { 2, 3, 255, INT_MAX };
        for (size_t i = 0; i < sizeof bad_dirs / sizeof bad_dirs[0]; i++) {
            CHECK(aesgen_selected_variant(bits, (aesgen_direction)bad_dirs[i]) == NULL,
                  "aesgen_selected_variant(%u, direction %d) is not NULL", bits, bad_dirs[i]);
            CHECK(aesgen_selected_backend(bits, (aesgen_direction)bad_dirs[i]) == NULL,
                  "aesgen_selected_backend(%u, direction %d) is not NULL", bits, bad_dirs[i]);
        }
    }
    {
        aesgen_ctx ctx;
        EXPECT_RC(aesgen_init(&ctx, key32, 16), AESGEN_OK);
        CHECK(aesgen_ctx_variant(&ctx, (aesgen_direction)2) == NULL,
              "aesgen_ctx_variant(ctx, direction 2) is not NULL");
        CHECK(aesgen_ctx_variant(NULL, AESGEN_ENCRYPT) == NULL,
              "aesgen_ctx_variant(NULL, encrypt) is not NULL");
        aesgen_wipe(&ctx);
    }

    check_selection(__LINE__, NULL, "before any aesgen_force_backend");

    /* Each supported backend: forced, reported for every key size, used by
     * new contexts, and correct. */
    for (size_t i = 0; i < nsup; i++) {
        const char *name = supported_names[i];
        char why[96];
        snprintf(why, sizeof why, "after aesgen_force_backend(\"%s\")", name);
        EXPECT_RC(aesgen_force_backend(name), AESGEN_OK);
        check_selection(__LINE__, name, why);
        for (size_t kl = 16; kl <= 32; kl += 8) {
            aesgen_ctx ctx;
            EXPECT_RC(aesgen_init(&ctx, key32, kl), AESGEN_OK);
            for (int d = 0; d < 2; d++) {
                const char *v = aesgen_ctx_variant(&ctx, (aesgen_direction)d);
                const aesgen_variant *var = v ? aesgen_find_variant(v) : NULL;
                CHECK(var != NULL && streq(var->backend, name),
                      "%s: aesgen_ctx_variant(AES-%zu, %d) is %s, not a variant of %s", why, kl * 8,
                      d, nn(v), name);
                CHECK(streq(v, aesgen_selected_variant((unsigned)kl * 8, (aesgen_direction)d)),
                      "%s: context variant %s differs from the selected one", why, nn(v));
            }
            aesgen_wipe(&ctx);
        }
        test_known_answers(name);
        test_ctr(name);

        /* A bogus name fails and changes nothing. */
        EXPECT_RC(aesgen_force_backend("no-such-backend"), AESGEN_ERR_BACKEND);
        snprintf(why, sizeof why, "after a failed force following \"%s\"", name);
        check_selection(__LINE__, name, why);
        EXPECT_RC(aesgen_force_backend(""), AESGEN_ERR_BACKEND);
        check_selection(__LINE__, name, why);
    }
    /* Backends that exist but cannot run here cannot be forced. */
    for (size_t i = 0; i < n; i++) {
        const char *name = aesgen_backend_name(i);
        if (name && aesgen_backend_supported(name) == 0 && nsup > 0) {
            EXPECT_RC(aesgen_force_backend(supported_names[0]), AESGEN_OK);
            EXPECT_RC(aesgen_force_backend(name), AESGEN_ERR_BACKEND);
            check_selection(__LINE__, supported_names[0], "after forcing an unsupported backend");
        }
    }

    /* Contexts already set up keep their variants. */
    if (nsup >= 2) {
        aesgen_ctx ctx;
        uint8_t pt[16] = { 0 }, c1[16], c2[16];
        EXPECT_RC(aesgen_force_backend(supported_names[0]), AESGEN_OK);
        EXPECT_RC(aesgen_init(&ctx, key32, 16), AESGEN_OK);
        const char *before = aesgen_ctx_variant(&ctx, AESGEN_ENCRYPT);
        EXPECT_RC(aesgen_ecb_encrypt(&ctx, c1, pt, 16), AESGEN_OK);
        EXPECT_RC(aesgen_force_backend(supported_names[1]), AESGEN_OK);
        const char *after = aesgen_ctx_variant(&ctx, AESGEN_ENCRYPT);
        CHECK(streq(before, after), "forcing %s changed the variant of an existing context (%s -> %s)",
              supported_names[1], nn(before), nn(after));
        EXPECT_RC(aesgen_ecb_encrypt(&ctx, c2, pt, 16), AESGEN_OK);
        CHECK(memcmp(c1, c2, 16) == 0, "existing context encrypts differently after a force");
        aesgen_wipe(&ctx);
    } else {
        printf("  note: one supported backend; \"contexts keep their variants\" not exercised\n");
    }

    /* NULL returns to the automatic choice; a bogus name then changes nothing. */
    EXPECT_RC(aesgen_force_backend(NULL), AESGEN_OK);
    check_selection(__LINE__, NULL, "after aesgen_force_backend(NULL)");
    EXPECT_RC(aesgen_force_backend("no-such-backend"), AESGEN_ERR_BACKEND);
    check_selection(__LINE__, NULL, "after a failed force in automatic mode");
}

/* ------------------------------------------------------------------------ */
/* Internal API used by the other tests: registry and aesgen_init_variants    */

void test_internal(void)
{
    CHECK(aesgen_registry_size >= 1, "the registry is empty");
    CHECK(aesgen_find_variant(NULL) == NULL, "aesgen_find_variant(NULL) is not NULL");
    CHECK(aesgen_find_variant("no_such_variant") == NULL,
          "aesgen_find_variant(\"no_such_variant\") is not NULL");
    for (size_t i = 0; i < aesgen_registry_size; i++) {
        const aesgen_variant *v = aesgen_registry[i];
        CHECK(v != NULL && v->name != NULL && v->backend != NULL, "registry entry %zu incomplete", i);
        if (!v || !v->name || !v->backend)
            continue;
        CHECK(aesgen_find_variant(v->name) == v, "aesgen_find_variant(\"%s\") is not entry %zu",
              v->name, i);
        CHECK((v->key_bits == 128 || v->key_bits == 192 || v->key_bits == 256) && v->direction <= 1,
              "%s: key_bits %u, direction %u", v->name, (unsigned)v->key_bits,
              (unsigned)v->direction);
        CHECK(v->batch_blocks >= 1 && v->schedule_bytes <= AESGEN_MAX_SCHEDULE_BYTES,
              "%s: batch_blocks %u, schedule_bytes %u", v->name, (unsigned)v->batch_blocks,
              (unsigned)v->schedule_bytes);
        CHECK(v->setkey && v->ecb && v->cbc && (v->direction == 0) == (v->ctr != NULL),
              "%s: function pointers (ctr must be set exactly for encryption variants)", v->name);
        int listed = 0;
        for (size_t b = 0; b < aesgen_backend_count(); b++)
            listed |= streq(aesgen_backend_name(b), v->backend);
        CHECK(listed, "%s: its backend %s is not listed by aesgen_backend_name", v->name,
              v->backend);
    }

    /* aesgen_init_variants refuses a variant of the wrong key size or
     * direction, and changes nothing. */
    for (size_t i = 0; i < aesgen_registry_size; i++) {
        const aesgen_variant *v = aesgen_registry[i];
        if (!v || !aesgen_variant_usable(v))
            continue;
        aesgen_ctx ctx;
        size_t kl = v->key_bits / 8, wrong_kl = kl == 16 ? 32 : 16;
        const aesgen_variant *enc = v->direction == 0 ? v : NULL, *dec = v->direction == 1 ? v : NULL;
        EXPECT_RC(aesgen_init_variants(&ctx, key32, kl, enc, dec), AESGEN_OK);
        CHECK(streq(aesgen_ctx_variant(&ctx, (aesgen_direction)v->direction), v->name),
              "aesgen_init_variants did not install %s", v->name);
        fill(&ctx, sizeof ctx, 0x44);
        watch("context", &ctx, sizeof ctx);
        int rc = aesgen_init_variants(&ctx, key32, wrong_kl, enc, dec);
        CHECK(rc == AESGEN_ERR_BACKEND, "aesgen_init_variants(%zu-byte key, %s) returned %d (%s)",
              wrong_kl, v->name, rc, st(rc));
        rc = aesgen_init_variants(&ctx, key32, kl, dec, enc); /* swapped directions */
        CHECK(rc == AESGEN_ERR_BACKEND,
              "aesgen_init_variants with %s in the wrong direction slot returned %d (%s)", v->name,
              rc, st(rc));
        WATCH_CHECK("aesgen_init_variants with a mismatched variant");
    }
}

/* ------------------------------------------------------------------------ */
/* AESGEN_BACKEND environment variable (separate CTest tests)                 */

int env_expect_error(void)
{
    const char *env = getenv("AESGEN_BACKEND");
    const char *mask = getenv("AESGEN_CPU_DISABLE"), *cpu = getenv("AESGEN_CPU_ID");
    aesgen_ctx ctx;
    CHECK((env != NULL && aesgen_backend_supported(env) < 0) || mask != NULL || cpu != NULL,
          "this mode needs AESGEN_BACKEND to name no backend (it is %s), AESGEN_CPU_DISABLE to name "
          "an unknown feature or AESGEN_CPU_ID to be malformed", nn(env));
    for (size_t kl = 16; kl <= 32; kl += 8) {
        fill(&ctx, sizeof ctx, 0x77);
        watch("context", &ctx, sizeof ctx);
        int rc = aesgen_init(&ctx, key32, kl);
        CHECK(rc == AESGEN_ERR_BACKEND,
              "AESGEN_BACKEND=%s: aesgen_init(%zu-byte key) returned %d (%s), expected %s", nn(env),
              kl, rc, st(rc), st(AESGEN_ERR_BACKEND));
        WATCH_CHECK("aesgen_init under a bogus AESGEN_BACKEND");
    }
    /* aesgen_force_backend overrides the variable. */
    for (size_t i = 0; i < aesgen_backend_count(); i++) {
        const char *name = aesgen_backend_name(i);
        if (name && aesgen_backend_supported(name) == 1) {
            EXPECT_RC(aesgen_force_backend(name), AESGEN_OK);
            int rc = aesgen_init(&ctx, key32, 16);
            CHECK(rc == AESGEN_OK,
                  "aesgen_force_backend(\"%s\") did not override AESGEN_BACKEND=%s: aesgen_init "
                  "returned %d (%s)",
                  name, nn(env), rc, st(rc));
            const char *v = aesgen_ctx_variant(&ctx, AESGEN_ENCRYPT);
            const aesgen_variant *var = v ? aesgen_find_variant(v) : NULL;
            CHECK(var && streq(var->backend, name), "forced %s, context uses %s", name, nn(v));
            aesgen_wipe(&ctx);
            break;
        }
    }
    return 0;
}

/* Automatic choice, e.g. with CPU features masked, must be this backend. */
void expect_dispatch(const char *name)
{
    CHECK(getenv("AESGEN_BACKEND") == NULL, "AESGEN_BACKEND is set; this mode tests automatic dispatch");
    aesgen_ctx ctx;
    for (size_t kl = 16; kl <= 32; kl += 8) {
        for (int d = 0; d < 2; d++) {
            const char *b = aesgen_selected_backend((unsigned)kl * 8, (aesgen_direction)d);
            CHECK(streq(b, name), "AES-%zu %s: dispatch picks %s, expected %s", kl * 8,
                  d ? "decrypt" : "encrypt", nn(b), name);
        }
        EXPECT_RC(aesgen_init(&ctx, key32, kl), AESGEN_OK);
        aesgen_wipe(&ctx);
    }
    test_known_answers(name);
}

int env_expect_backend(const char *name)
{
    const char *env = getenv("AESGEN_BACKEND");
    aesgen_ctx ctx;
    int s = aesgen_backend_supported(name);
    CHECK(streq(env, name), "AESGEN_BACKEND is %s, this mode expects %s", nn(env), name);
    CHECK(s == 0 || s == 1, "AESGEN_BACKEND names %s, which this library does not have", name);
    if (s == 0) {
        /* It exists but cannot run here: aesgen_init must refuse. */
        printf("  note: backend %s cannot run on this CPU; checking that aesgen_init refuses it\n",
               name);
        for (size_t kl = 16; kl <= 32; kl += 8) {
            fill(&ctx, sizeof ctx, 0x77);
            watch("context", &ctx, sizeof ctx);
            int rc = aesgen_init(&ctx, key32, kl);
            CHECK(rc == AESGEN_ERR_BACKEND,
                  "AESGEN_BACKEND=%s (unsupported here): aesgen_init returned %d (%s), expected %s",
                  name, rc, st(rc), st(AESGEN_ERR_BACKEND));
            WATCH_CHECK("aesgen_init under an unsupported AESGEN_BACKEND");
        }
        return 0;
    }
    if (s != 1)
        return 0;
    check_selection(__LINE__, name, "with AESGEN_BACKEND set");
    for (size_t kl = 16; kl <= 32; kl += 8) {
        EXPECT_RC(aesgen_init(&ctx, key32, kl), AESGEN_OK);
        for (int d = 0; d < 2; d++) {
            const char *v = aesgen_ctx_variant(&ctx, (aesgen_direction)d);
            const aesgen_variant *var = v ? aesgen_find_variant(v) : NULL;
            CHECK(var != NULL && streq(var->backend, name),
                  "AESGEN_BACKEND=%s: AES-%zu context uses %s", name, kl * 8, nn(v));
        }
        aesgen_wipe(&ctx);
    }
    test_known_answers(name);
    /* A call to aesgen_force_backend overrides the variable. */
    for (size_t i = 0; i < aesgen_backend_count(); i++) {
        const char *other = aesgen_backend_name(i);
        if (other && !streq(other, name) && aesgen_backend_supported(other) == 1) {
            EXPECT_RC(aesgen_force_backend(other), AESGEN_OK);
            check_selection(__LINE__, other, "aesgen_force_backend over AESGEN_BACKEND");
            break;
        }
    }
    return 0;
}

/* AESGEN_BACKEND=software: every context gets the best usable software
 * (bitsliced) variant, the same one aesgen_force_backend("software") picks.
 * `ladder` lists the software backends best first (the documented order); the
 * expected one is the first this process can run, as the runtime's CPU view
 * says (under valgrind, say, that view lacks AVX-512 even where the CPU has it). */
int env_expect_software(const char *ladder)
{
    aesgen_ctx ctx;
    char expect[64] = "";
    for (const char *p = ladder; *p != '\0' && expect[0] == '\0';) {
        const char *end = strchr(p, ',');
        const size_t len = end ? (size_t)(end - p) : strlen(p);
        char name[64];
        snprintf(name, sizeof name, "%.*s", (int)len, p);
        if (aesgen_backend_supported(name) == 1)
            snprintf(expect, sizeof expect, "%s", name);
        p += len + (end != NULL);
    }
    printf("  the first of %s this CPU runs: %s\n", ladder, expect[0] ? expect : "(none)");
    CHECK(expect[0] != '\0', "no backend of the software ladder %s runs here", ladder);
    CHECK(streq(getenv("AESGEN_BACKEND"), "software"), "AESGEN_BACKEND is %s, this mode expects software",
          nn(getenv("AESGEN_BACKEND")));
    CHECK(aesgen_backend_supported("software") == 1, "the software class is not supported");
    for (size_t kl = 16; kl <= 32; kl += 8) {
        EXPECT_RC(aesgen_init(&ctx, key32, kl), AESGEN_OK);
        for (int d = 0; d < 2; d++) {
            const char *v = aesgen_ctx_variant(&ctx, (aesgen_direction)d);
            const aesgen_variant *var = v ? aesgen_find_variant(v) : NULL;
            CHECK(var != NULL && var->word_bits != 0 && streq(var->backend, expect),
                  "AESGEN_BACKEND=software: AES-%zu %s uses %s, expected a %s variant", kl * 8,
                  d ? "decryption" : "encryption", nn(v), expect);
        }
        aesgen_wipe(&ctx);
    }
    test_known_answers("software");
    EXPECT_RC(aesgen_force_backend("software"), AESGEN_OK);
    CHECK(streq(aesgen_selected_backend(128, AESGEN_ENCRYPT), expect),
          "aesgen_force_backend(\"software\") selects %s", nn(aesgen_selected_backend(128, AESGEN_ENCRYPT)));
    EXPECT_RC(aesgen_force_backend(NULL), AESGEN_OK);
    return 0;
}
