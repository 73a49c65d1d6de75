/*
 * api_cpu_table.c -- the per-CPU dispatch table (generated/cpu_preferences.c from
 * generator/cpus/): every row is well formed, every model finds its row, and with
 * every feature present dispatch orders the row's backends as the row says, for
 * every key size, direction and the GHASH. The published facts are also checked by
 * name, so a row that goes missing or changes fails here.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "api_test.h"

static int is_aes_backend(const char *b)
{
    for (size_t i = 0; i < aesgen_registry_size; i++)
        if (strcmp(aesgen_registry[i]->backend, b) == 0)
            return 1;
    return 0;
}

static int is_ghash_backend(const char *b)
{
    for (size_t i = 0; i < aesgen_ghash_registry_size; i++)
        if (strcmp(aesgen_ghash_registry[i]->backend, b) == 0)
            return 1;
    return 0;
}

/* The first backend in "a > b > c" that is_kind accepts, into out; 0 if none. */
static int first_listed(const char *prefer, int (*is_kind)(const char *), char *out, size_t n)
{
    const char *p = prefer;
    while (*p) {
        size_t len = strcspn(p, " >");
        if (len > 0 && len < n) {
            memcpy(out, p, len);
            out[len] = '\0';
            if (is_kind(out))
                return 1;
        }
        p += len;
        p += strspn(p, " >");
    }
    return 0;
}

static const aesgen_cpu_preference *row_of(const char *id_text)
{
    unsigned v, family, model;
    char vendor[8];
    aesgen_cpu_id id = {0, 0, 0};
    if (sscanf(id_text, "%7[a-z]-family%xh-model%xh", vendor, &family, &model) == 3) {
        v = strcmp(vendor, "intel") == 0 ? AESGEN_CPU_VENDOR_INTEL
            : strcmp(vendor, "amd") == 0 ? AESGEN_CPU_VENDOR_AMD : AESGEN_CPU_VENDOR_UNKNOWN;
        id.vendor = (uint8_t)v;
        id.family = (uint16_t)family;
        id.model = (uint8_t)model;
    }
    return aesgen_cpu_preference_of(&id);
}

/* With every feature, the row's first AES backend serves every key size and
 * direction it has variants for, and its first GHASH backend is the GHASH. */
static void check_order(const aesgen_cpu_preference *p, const char *what)
{
    char want[64];
    if (first_listed(p->prefer, is_aes_backend, want, sizeof want)) {
        for (unsigned kb = 128; kb <= 256; kb += 64)
            for (int d = 0; d < 2; d++) {
                const aesgen_variant *got = aesgen_pick_variant_for(kb, d, NULL, ~0u, p);
                const aesgen_variant *own = aesgen_pick_variant_for(kb, d, want, ~0u, NULL);
                if (own == NULL)
                    continue;
                CHECK(got != NULL && streq(got->backend, want), "%s (%s): AES-%u %s picks %s, the row prefers %s",
                      what, p->prefer, kb, d ? "dec" : "enc", got ? got->backend : "(none)", want);
            }
    }
    if (first_listed(p->prefer, is_ghash_backend, want, sizeof want)) {
        const aesgen_ghash_variant *g = aesgen_pick_ghash_for(~0u, p);
        CHECK(g != NULL && streq(g->backend, want), "%s (%s): GHASH picks %s, the row prefers %s", what,
              p->prefer, g ? g->backend : "(none)", want);
    }
}

/* A published fact by CPU id: with every feature, AES-128 encryption and the GHASH
 * come from these backends (where this build has them). */
static void check_fact(const char *id, const char *aes, const char *ghash)
{
    const aesgen_cpu_preference *p = row_of(id);
    if (!is_aes_backend(aes))
        return; /* another architecture's build */
    const aesgen_variant *v = aesgen_pick_variant_for(128, 0, NULL, ~0u, p);
    const aesgen_ghash_variant *g = aesgen_pick_ghash_for(~0u, p);
    CHECK(v != NULL && streq(v->backend, aes), "%s: AES-128 picks %s, expected %s", id, v ? v->backend : "(none)",
          aes);
    CHECK(g != NULL && streq(g->backend, ghash), "%s: GHASH picks %s, expected %s", id, g ? g->backend : "(none)",
          ghash);
}

void test_cpu_table(void)
{
    CHECK(aesgen_cpu_models_size >= 1, "the per-CPU table is empty");
    for (size_t i = 0; i < aesgen_cpu_models_size; i++) {
        const aesgen_cpu_model *m = &aesgen_cpu_models[i];
        const aesgen_cpu_preference *p = m->preference;
        char what[96];
        snprintf(what, sizeof what, "row %zu (vendor %u family %xh models %02xh..%02xh)", i, (unsigned)m->vendor,
                 (unsigned)m->family, (unsigned)m->model_first, (unsigned)m->model_last);
        CHECK(m->vendor != AESGEN_CPU_VENDOR_UNKNOWN && m->model_first <= m->model_last, "%s: bad identity", what);
        CHECK(p != NULL && p->name && p->prefer && p->why && p->source && (p->nchanges == 0) == (p->changes == NULL),
              "%s: incomplete preference", what);
        if (p == NULL || p->prefer == NULL)
            continue;
        for (size_t c = 0; c < p->nchanges; c++)
            CHECK(is_aes_backend(p->changes[c].backend) || is_ghash_backend(p->changes[c].backend),
                  "%s: moves %s, which is no backend of this library", what, p->changes[c].backend);
        /* Both ends of the range find this row or an earlier, more specific one. */
        for (int end = 0; end < 2; end++) {
            aesgen_cpu_id id = {m->vendor, m->family, end ? m->model_last : m->model_first};
            const aesgen_cpu_preference *found = aesgen_cpu_preference_of(&id);
            int earlier = 0;
            for (size_t j = 0; j <= i; j++)
                earlier |= found == aesgen_cpu_models[j].preference;
            CHECK(found != NULL && earlier, "%s: model %02xh finds %s", what, (unsigned)id.model,
                  found ? found->name : "no row");
        }
        check_order(p, what);
    }
    aesgen_cpu_id unknown = {AESGEN_CPU_VENDOR_UNKNOWN, 6, 0x6a};
    CHECK(aesgen_cpu_preference_of(&unknown) == NULL, "an unknown vendor has a row");
    CHECK(aesgen_dispatch_rank(NULL, "vaes512", 123) == 123, "no row changes a rank");

    /* The published facts (generator/cpus/published.toml). */
    check_fact("intel-family6h-model6ah", "vaes256-avx512vl", "ghash-vpclmul256"); /* Ice Lake server */
    check_fact("intel-family6h-model8ch", "vaes256-avx512vl", "ghash-vpclmul256"); /* Tiger Lake */
    check_fact("intel-family6h-model55h", "vaes256-avx512vl", "ghash-vpclmul256"); /* Skylake-SP */
    check_fact("amd-family19h-model11h", "vaes512", "ghash-vpclmul512");           /* Zen 4 */
    check_fact("amd-family1ah-model02h", "vaes512", "ghash-vpclmul512");           /* Zen 5 */
    check_fact("amd-family17h-model31h", "vaes512", "ghash-vpclmul512");           /* no row: targets' ranks */
}

/* Under AESGEN_CPU_ID: the id is the one dispatch reports, its row is the active one,
 * and what dispatch selects is the pick under this CPU's features and that row. */
void expect_cpu_row(void)
{
    const char *env = getenv("AESGEN_CPU_ID");
    char text[64];
    aesgen_cpu_id_text(text, sizeof text);
    CHECK(env != NULL && streq(text, env), "AESGEN_CPU_ID is %s, dispatch reports %s", nn(env), text);
    const aesgen_cpu_preference *p = aesgen_cpu_preference_active();
    CHECK(p == row_of(text), "the active row is not the table's row for %s", text);
    printf("  %s: %s\n", text, p ? p->prefer : "no row (the targets' ranks)");
    for (unsigned kb = 128; kb <= 256; kb += 64)
        for (int d = 0; d < 2; d++) {
            const aesgen_variant *want = aesgen_pick_variant_for(kb, d, NULL, aesgen_cpu_features(), p);
            const char *got = aesgen_selected_variant(kb, (aesgen_direction)d);
            CHECK(want != NULL && streq(got, want->name), "AES-%u %s: selected %s, the row gives %s", kb,
                  d ? "dec" : "enc", nn(got), want ? want->name : "(none)");
        }
    CHECK(aesgen_pick_ghash() == aesgen_pick_ghash_for(aesgen_cpu_features(), p),
          "the GHASH pick ignores the row");
}
