#define _POSIX_C_SOURCE 200809L
/*
 * dispatch.c -- choosing a variant per key size and direction.
 *
 * The generated registry lists every variant with a preference rank (lower
 * wins). A variant is usable when the CPU has its features. The name
 * "software" restricts the choice to the constant-time software variants
 * (bitsliced: no AES instructions, no tables). Between equal
 * ranks, a software variant on the native word wins, then a narrower one,
 * then a wider one: 64-bit slices on x86-64, 32-bit slices on 32-bit ARM. A CPU
 * model listed in the generated per-CPU table (generator/cpus/) moves the ranks of
 * the backends its row names, e.g. ymm before zmm where zmm lowers the clock.
 * The environment, CPU model and features are read once, thread-safely;
 * aesgen_force_backend may change the choice at any time and affects later
 * aesgen_init calls only.
 */
#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "aesgen_internal.h"
#include "cpu_feature_names.h"
#include "dispatch.h"

#define NATIVE_WORD_BITS (UINTPTR_MAX > 0xffffffffu ? 64u : 32u)

static pthread_once_t init_once = PTHREAD_ONCE_INIT;
static uint32_t cpu_features;
static aesgen_cpu_id cpu_id;
static const aesgen_cpu_preference *cpu_preference; /* NULL: no row for this CPU */
static const char *env_backend;   /* canonical registry string, or NULL */
static int env_status = AESGEN_OK;

/* The forced backend: NULL until aesgen_force_backend is first called. */
static _Atomic(const char *) forced_backend;
static atomic_int forced_by_call;

/* Not a backend but a class: the best usable constant-time software variant
 * (bitsliced or fixsliced, word_bits != 0), never an AES-instruction one. */
static const char software_class[] = "software";

static int is_software(const aesgen_variant *v)
{
    return v->word_bits != 0;
}

/* The registry's own string for a backend name, or software_class (NULL if none). */
static const char *canonical_backend(const char *name)
{
    if (strcmp(name, software_class) == 0)
        return software_class;
    for (size_t i = 0; i < aesgen_registry_size; i++)
        if (strcmp(aesgen_registry[i]->backend, name) == 0)
            return aesgen_registry[i]->backend;
    return NULL;
}

static int usable_with(const aesgen_variant *v, uint32_t features)
{
    return (v->features & ~features) == 0;
}

static int in_backend(const aesgen_variant *v, const char *backend)
{
    return backend == software_class ? is_software(v) : strcmp(v->backend, backend) == 0;
}

static int backend_usable_with(const char *backend, uint32_t features)
{
    for (size_t i = 0; i < aesgen_registry_size; i++)
        if (in_backend(aesgen_registry[i], backend) && usable_with(aesgen_registry[i], features))
            return 1;
    return 0;
}

/* AESGEN_CPU_DISABLE=avx512f,vaes hides features from dispatch (tests use it
 * to run every tier on one machine). Returns the mask, or sets *bad. */
static uint32_t parse_disabled(const char *list, int *bad)
{
    uint32_t mask = 0;
    while (*list) {
        size_t n = strcspn(list, ",");
        size_t i = 0;
        for (; i < AESGEN_CPU_FEATURE_COUNT; i++)
            if (strlen(aesgen_cpu_feature_names[i].name) == n &&
                strncmp(aesgen_cpu_feature_names[i].name, list, n) == 0)
                break;
        if (n != 0 && i == AESGEN_CPU_FEATURE_COUNT)
            *bad = 1;
        else if (n != 0)
            mask |= aesgen_cpu_feature_names[i].bit;
        list += n + (list[n] == ',');
    }
    return mask;
}

static const char *const vendor_names[] = {"unknown", "intel", "amd"};

/* Reads "<tag><hex digits>h" at *s (e.g. "-family", "19h"): the number, or -1. */
static long hex_field(const char **s, const char *tag, unsigned long max)
{
    size_t n = strlen(tag);
    if (strncmp(*s, tag, n) != 0)
        return -1;
    const char *p = *s + n;
    size_t digits = strspn(p, "0123456789abcdef");
    if (digits == 0 || digits > 4 || p[digits] != 'h')
        return -1;
    unsigned long v = strtoul(p, NULL, 16);
    *s = p + digits + 1;
    return v <= max ? (long)v : -1;
}

/* AESGEN_CPU_ID=intel-family6h-model6ah (the spelling of aesgen_cpu_id_text and
 * of `aesgen tune`) or "unknown": the CPU model dispatch orders backends for. */
static int parse_cpu_id(const char *s, aesgen_cpu_id *id)
{
    memset(id, 0, sizeof *id);
    if (strcmp(s, "unknown") == 0)
        return 0;
    for (unsigned v = AESGEN_CPU_VENDOR_INTEL; v <= AESGEN_CPU_VENDOR_AMD; v++) {
        const char *p = s + strlen(vendor_names[v]);
        if (strncmp(s, vendor_names[v], strlen(vendor_names[v])) != 0)
            continue;
        long family = hex_field(&p, "-family", 0xffff);
        long model = family < 0 ? -1 : hex_field(&p, "-model", 0xff);
        if (model < 0 || *p != '\0')
            return -1;
        id->vendor = (uint8_t)v;
        id->family = (uint16_t)family;
        id->model = (uint8_t)model;
        return 0;
    }
    return -1;
}

const aesgen_cpu_preference *aesgen_cpu_preference_of(const aesgen_cpu_id *id)
{
    for (size_t i = 0; id->vendor != AESGEN_CPU_VENDOR_UNKNOWN && i < aesgen_cpu_models_size; i++) {
        const aesgen_cpu_model *m = &aesgen_cpu_models[i];
        if (m->vendor == id->vendor && m->family == id->family && m->model_first <= id->model &&
            id->model <= m->model_last)
            return m->preference;
    }
    return NULL;
}

static void init_dispatch(void)
{
    cpu_features = aesgen_detect_cpu_features();
    aesgen_detect_cpu_id(&cpu_id);
    const char *id_env = getenv("AESGEN_CPU_ID");
    if (id_env != NULL && id_env[0] != '\0' && parse_cpu_id(id_env, &cpu_id) != 0)
        env_status = AESGEN_ERR_BACKEND;
    cpu_preference = aesgen_cpu_preference_of(&cpu_id);
    const char *disable = getenv("AESGEN_CPU_DISABLE");
    if (disable != NULL) {
        int bad = 0;
        cpu_features &= ~parse_disabled(disable, &bad);
        if (bad)
            env_status = AESGEN_ERR_BACKEND;
    }
    const char *env = getenv("AESGEN_BACKEND");
    if (env != NULL && env[0] != '\0') {
        env_backend = canonical_backend(env);
        if (env_backend == NULL || !backend_usable_with(env_backend, cpu_features))
            env_status = AESGEN_ERR_BACKEND;
    }
}

static void ensure_init(void)
{
    pthread_once(&init_once, init_dispatch);
}

uint32_t aesgen_cpu_features(void)
{
    ensure_init();
    return cpu_features;
}

const aesgen_cpu_preference *aesgen_cpu_preference_active(void)
{
    ensure_init();
    return cpu_preference;
}

int aesgen_cpu_vendor(void)
{
    ensure_init();
    return cpu_id.vendor;
}

void aesgen_cpu_id_text(char *buf, size_t n)
{
    ensure_init();
    if (cpu_id.vendor == AESGEN_CPU_VENDOR_UNKNOWN)
        snprintf(buf, n, "unknown");
    else
        snprintf(buf, n, "%s-family%xh-model%02xh", vendor_names[cpu_id.vendor], (unsigned)cpu_id.family,
                 (unsigned)cpu_id.model);
}

unsigned aesgen_dispatch_rank(const aesgen_cpu_preference *pref, const char *backend, unsigned rank)
{
    for (size_t i = 0; pref != NULL && i < pref->nchanges; i++)
        if (strcmp(pref->changes[i].backend, backend) == 0)
            return (unsigned)((int)rank + pref->changes[i].delta);
    return rank;
}

int aesgen_variant_usable(const aesgen_variant *v)
{
    return v != NULL && usable_with(v, aesgen_cpu_features());
}

static int backend_usable(const char *backend)
{
    return backend_usable_with(backend, aesgen_cpu_features());
}

const aesgen_variant *aesgen_find_variant(const char *name)
{
    if (name == NULL)
        return NULL;
    for (size_t i = 0; i < aesgen_registry_size; i++)
        if (strcmp(aesgen_registry[i]->name, name) == 0)
            return aesgen_registry[i];
    return NULL;
}

int aesgen_dispatch_status(void)
{
    ensure_init();
    if (atomic_load(&forced_by_call))
        return AESGEN_OK;
    return env_status;
}

const char *aesgen_active_backend(void)
{
    ensure_init();
    if (atomic_load(&forced_by_call))
        return atomic_load(&forced_backend);
    return env_backend;
}

const aesgen_variant *aesgen_pick_variant_for(unsigned key_bits, int direction, const char *backend,
                                              uint32_t features, const aesgen_cpu_preference *pref)
{
    const aesgen_variant *best = NULL;
    unsigned best_score = UINT32_MAX;
    for (size_t i = 0; i < aesgen_registry_size; i++) {
        const aesgen_variant *v = aesgen_registry[i];
        if (v->key_bits != key_bits || v->direction != direction || !usable_with(v, features))
            continue;
        if (backend != NULL && !in_backend(v, backend))
            continue;
        unsigned width_fit = v->word_bits == 0 || v->word_bits == NATIVE_WORD_BITS ? 0u
                             : v->word_bits < NATIVE_WORD_BITS ? 1u : 2u;
        unsigned score = aesgen_dispatch_rank(pref, v->backend, v->rank) * 4u + width_fit;
        if (score < best_score) {
            best = v;
            best_score = score;
        }
    }
    return best;
}

/* The automatic picks (no forced backend) cannot change once the features and the
 * CPU's row are read, so each is computed once: a key set-up (aesgen_gcm_init per
 * message, say) then skips the registry walk. Two threads may both compute a slot;
 * they store the same pointer. */
static _Atomic(const aesgen_variant *) auto_pick[3][2];
static _Atomic(const aesgen_ghash_variant *) auto_ghash;

const aesgen_variant *aesgen_pick_variant(unsigned key_bits, int direction, const char *backend)
{
    if (backend != NULL || (key_bits != 128 && key_bits != 192 && key_bits != 256) ||
        (direction != 0 && direction != 1))
        return aesgen_pick_variant_for(key_bits, direction, backend, aesgen_cpu_features(),
                                       aesgen_cpu_preference_active());
    _Atomic(const aesgen_variant *) *slot = &auto_pick[(key_bits - 128) / 64][direction];
    const aesgen_variant *v = atomic_load_explicit(slot, memory_order_acquire);
    if (v == NULL) {
        v = aesgen_pick_variant_for(key_bits, direction, NULL, aesgen_cpu_features(),
                                    aesgen_cpu_preference_active());
        atomic_store_explicit(slot, v, memory_order_release);
    }
    return v;
}

const aesgen_ghash_variant *aesgen_find_ghash(const char *name)
{
    if (name == NULL)
        return NULL;
    for (size_t i = 0; i < aesgen_ghash_registry_size; i++)
        if (strcmp(aesgen_ghash_registry[i]->name, name) == 0)
            return aesgen_ghash_registry[i];
    return NULL;
}

int aesgen_ghash_usable(const aesgen_ghash_variant *g)
{
    return g != NULL && (g->features & ~aesgen_cpu_features()) == 0;
}

/* The GHASH variant with the lowest rank among those `features` can run and, unless
 * table is NULL, that write that table layout. */
static const aesgen_ghash_variant *best_ghash(uint32_t features, const aesgen_cpu_preference *pref,
                                              const char *table)
{
    const aesgen_ghash_variant *best = NULL;
    unsigned best_rank = UINT32_MAX;
    for (size_t i = 0; i < aesgen_ghash_registry_size; i++) {
        const aesgen_ghash_variant *g = aesgen_ghash_registry[i];
        unsigned rank = aesgen_dispatch_rank(pref, g->backend, g->rank);
        if ((g->features & ~features) == 0 && rank < best_rank &&
            (table == NULL || (g->table != NULL && strcmp(g->table, table) == 0))) {
            best = g;
            best_rank = rank;
        }
    }
    return best;
}

/* GHASH is chosen on its own (a carry-less multiply instruction is constant time
 * whatever the AES backend): the usable one with the lowest rank. */
const aesgen_ghash_variant *aesgen_pick_ghash_for(uint32_t features, const aesgen_cpu_preference *pref)
{
    return best_ghash(features, pref, NULL);
}

const aesgen_ghash_variant *aesgen_pick_ghash(void)
{
    const aesgen_ghash_variant *g = atomic_load_explicit(&auto_ghash, memory_order_acquire);
    if (g == NULL) {
        g = aesgen_pick_ghash_for(aesgen_cpu_features(), aesgen_cpu_preference_active());
        atomic_store_explicit(&auto_ghash, g, memory_order_release);
    }
    return g;
}

const aesgen_ghash_variant *aesgen_pick_ghash_stitching(const aesgen_variant *aes)
{
    const aesgen_ghash_variant *best = aesgen_pick_ghash();
    if (aes == NULL || aes->gcm_table == NULL || best == NULL ||
        (best->table != NULL && strcmp(best->table, aes->gcm_table) == 0))
        return best;
    const aesgen_ghash_variant *match =
        best_ghash(aesgen_cpu_features(), aesgen_cpu_preference_active(), aes->gcm_table);
    return match != NULL ? match : best;
}

int aesgen_force_backend(const char *name)
{
    const char *canon = NULL;
    if (name != NULL) {
        canon = canonical_backend(name);
        if (canon == NULL || !backend_usable(canon))
            return AESGEN_ERR_BACKEND;
    }
    ensure_init();
    atomic_store(&forced_backend, canon);
    atomic_store(&forced_by_call, 1);
    return AESGEN_OK;
}

size_t aesgen_backend_count(void)
{
    size_t n = 0;
    while (aesgen_backend_name(n) != NULL)
        n++;
    return n;
}

/* Backends in registry order, each once (at its first variant; the linker
 * may or may not merge equal strings, so compare contents). */
const char *aesgen_backend_name(size_t index)
{
    for (size_t i = 0; i < aesgen_registry_size; i++) {
        const char *b = aesgen_registry[i]->backend;
        size_t first = 0;
        while (strcmp(aesgen_registry[first]->backend, b) != 0)
            first++;
        if (first == i && index-- == 0)
            return b;
    }
    return NULL;
}

int aesgen_backend_supported(const char *name)
{
    const char *canon = name != NULL ? canonical_backend(name) : NULL;
    if (canon == NULL)
        return AESGEN_ERR_BACKEND;
    return backend_usable(canon);
}

static const aesgen_variant *selected(unsigned key_bits, aesgen_direction dir)
{
    if ((key_bits != 128 && key_bits != 192 && key_bits != 256) ||
        (dir != AESGEN_ENCRYPT && dir != AESGEN_DECRYPT) || aesgen_dispatch_status() != AESGEN_OK)
        return NULL;
    return aesgen_pick_variant(key_bits, (int)dir, aesgen_active_backend());
}

const char *aesgen_selected_variant(unsigned key_bits, aesgen_direction dir)
{
    const aesgen_variant *v = selected(key_bits, dir);
    return v ? v->name : NULL;
}

const char *aesgen_selected_backend(unsigned key_bits, aesgen_direction dir)
{
    const aesgen_variant *v = selected(key_bits, dir);
    return v ? v->backend : NULL;
}
