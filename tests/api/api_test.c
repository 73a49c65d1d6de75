/*
 * aesgen_api_test -- every error path and documented contract of aesgen.h.
 *
 *   aesgen_api_test                          the whole suite
 *   aesgen_api_test --env-expect-error       run with AESGEN_BACKEND naming no
 *                                            backend, AESGEN_CPU_DISABLE naming no
 *                                            feature or a malformed AESGEN_CPU_ID:
 *                                            aesgen_init must fail
 *   aesgen_api_test --env-expect-backend B   run with AESGEN_BACKEND=B: B must
 *                                            be selected (or, if B cannot run
 *                                            here, aesgen_init must fail)
 *   aesgen_api_test --env-expect-software L  run with AESGEN_BACKEND=software: the
 *                                            software class must resolve to the first
 *                                            backend of the list L (a,b,...) that
 *                                            aesgen_backend_supported says runs here
 *   aesgen_api_test --expect-dispatch B      automatic dispatch (typically under
 *                                            AESGEN_CPU_DISABLE) must pick B for
 *                                            every key size and direction
 *   aesgen_api_test --expect-cpu-row         run with AESGEN_CPU_ID=<cpu id>: dispatch
 *                                            must report that CPU and follow its row
 *
 * Every check prints "FAIL (line N): ..." when it does not hold (N: the line of
 * the check in its api_*.c file); the program carries on and exits 1 if any
 * check failed, 0 otherwise. The checks are in the files api_test.h lists.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "api_test.h"

/* ------------------------------------------------------------------------ */

int main(int argc, char **argv)
{
    setvbuf(stdout, NULL, _IOLBF, 0);
    if (argc == 2 && strcmp(argv[1], "--env-expect-error") == 0) {
        printf("aesgen_api_test: AESGEN_BACKEND=%s must be refused\n", nn(getenv("AESGEN_BACKEND")));
        env_expect_error();
    } else if (argc == 3 && strcmp(argv[1], "--env-expect-backend") == 0) {
        printf("aesgen_api_test: AESGEN_BACKEND=%s must be selected\n",
               nn(getenv("AESGEN_BACKEND")));
        env_expect_backend(argv[2]);
    } else if (argc == 3 && strcmp(argv[1], "--env-expect-software") == 0) {
        printf("aesgen_api_test: AESGEN_BACKEND=software must select the best of %s\n", argv[2]);
        env_expect_software(argv[2]);
    } else if (argc == 3 && strcmp(argv[1], "--expect-dispatch") == 0) {
        printf("aesgen_api_test: AESGEN_CPU_DISABLE=%s, dispatch must pick %s\n",
               nn(getenv("AESGEN_CPU_DISABLE")), argv[2]);
        expect_dispatch(argv[2]);
    } else if (argc == 2 && strcmp(argv[1], "--expect-cpu-row") == 0) {
        printf("aesgen_api_test: AESGEN_CPU_ID=%s, dispatch must follow its row\n", nn(getenv("AESGEN_CPU_ID")));
        expect_cpu_row();
    } else if (argc == 1) {
        const char *env = getenv("AESGEN_BACKEND");
        printf("aesgen_api_test: aesgen %s\n", nn(aesgen_version_string()));
        if (env && *env)
            printf("  note: AESGEN_BACKEND=%s is set; \"automatic\" below means that backend\n", env);
        record_automatic();
        test_version();
        test_status_strings();
        test_known_answers("automatic");
        test_init();
        test_null_pointers();
        test_lengths();
        test_overlap();
        test_uninitialised();
        test_wipe();
        test_differs_public();
        test_ctr("automatic");
        test_backends();
        test_internal();
        test_cpu_table();
    } else {
        fprintf(stderr,
                "usage: %s [--env-expect-error | --env-expect-backend NAME | --env-expect-software LIST |\n"
                "          --expect-dispatch NAME | --expect-cpu-row]\n",
                argv[0]);
        return 2;
    }
    printf("%s: %lu checks, %lu failed\n", ts_failures ? "FAILED" : "PASS", ts_checks, ts_failures);
    return ts_failures ? 1 : 0;
}
