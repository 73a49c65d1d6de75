/*
 * registry_test.c -- which variants a library's registry lists.
 *
 *   aesgen_registry_test <alternatives, comma-separated, or "-" for none>
 *
 * Linked to the library a product gets (aesgen_static), the argument is "-": every
 * registry entry must be the variant dispatch picks for its backend, key size and
 * direction on a CPU with its features. Linked to the tests' library (aesgen_internal),
 * the argument names the alternatives the build kept: exactly those entries must be
 * ones dispatch never picks, each losing to another variant of its backend.
 * Per-CPU preferences move whole backends, so the pick within a backend is the same
 * under every one of them; no preference is applied here.
 */
#include <stdio.h>
#include <string.h>

#include "aesgen_internal.h"

static int named(const char *list, const char *name)
{
    size_t n = strlen(name);
    for (const char *p = list; *p != '\0';) {
        const char *end = strchr(p, ',');
        size_t len = end ? (size_t)(end - p) : strlen(p);
        if (len == n && strncmp(p, name, n) == 0)
            return 1;
        p += len + (end != NULL);
    }
    return 0;
}

int main(int argc, char **argv)
{
    if (argc != 2) {
        fprintf(stderr, "usage: %s <alternatives,comma-separated|->\n", argv[0]);
        return 2;
    }
    const char *alternatives = strcmp(argv[1], "-") == 0 ? "" : argv[1];
    int failures = 0;
    size_t kept = 0;
    for (size_t i = 0; i < aesgen_registry_size; i++) {
        const aesgen_variant *v = aesgen_registry[i];
        const aesgen_variant *pick =
            aesgen_pick_variant_for(v->key_bits, v->direction, v->backend, v->features, NULL);
        int alternative = named(alternatives, v->name);
        kept += (size_t)alternative;
        if (alternative && pick == v) {
            printf("FAIL: %s is listed as an alternative but dispatch picks it\n", v->name);
            failures++;
        } else if (alternative && (pick == NULL || strcmp(pick->backend, v->backend) != 0)) {
            printf("FAIL: %s: no variant of its backend ranks before it\n", v->name);
            failures++;
        } else if (!alternative && pick != v) {
            printf("FAIL: %s is in the registry but dispatch picks %s instead\n", v->name,
                   pick ? pick->name : "nothing");
            failures++;
        }
    }
    /* every named alternative is in this registry */
    for (const char *p = alternatives; *p != '\0';) {
        const char *end = strchr(p, ',');
        size_t len = end ? (size_t)(end - p) : strlen(p);
        int found = 0;
        for (size_t i = 0; i < aesgen_registry_size; i++)
            found |= strlen(aesgen_registry[i]->name) == len && strncmp(aesgen_registry[i]->name, p, len) == 0;
        if (!found) {
            printf("FAIL: the alternative %.*s is not in the registry\n", (int)len, p);
            failures++;
        }
        p += len + (end != NULL);
    }
    printf("%zu registry entries, %zu of them alternatives: %s\n", aesgen_registry_size, kept,
           failures ? "FAILED" : "passed");
    return failures ? 1 : 0;
}
