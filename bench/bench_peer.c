/*
 * bench_peer.c -- the OpenSSL-with-AES-NI-masked row.
 *
 * OpenSSL reads OPENSSL_ia32cap once, when the library initialises, so that
 * row cannot run in this process next to the default OpenSSL row. Instead
 * aesgen-bench re-executes itself (/proc/self/exe) with the mask in the
 * environment and a hidden `--peer-only openssl` flag; the child keeps its
 * keyed contexts and answers one command per line on stdin:
 *
 *   check OP BITS LEN        -> ok HASH          (FNV-1a 64 of the output
 *                                                 over the canonical input)
 *   run OP BITS LEN ITERS    -> ok NS COUNT SW   (one timed sample; COUNT
 *                                                 is -1 without a counter,
 *                                                 SW the involuntary context
 *                                                 switches during it)
 *   quit
 *
 * OP is any name of bench_op_name, gcm-seal and gcm-open (protocol 2) and
 * the XTS operations (protocol 3) included. For gcm-seal HASH covers
 * ciphertext || tag (LEN + 16 bytes); for gcm-open the child seals its own
 * message with its OpenSSL (bench_prepare, before the check and before every
 * sample, outside the timing), opens it and hashes the plaintext, and a call
 * whose tag check fails is an error. For xts-dec the check likewise decrypts
 * the child's own OpenSSL ciphertext (bench_prepare) and hashes the
 * plaintext; xts-sectors-enc is sent with LEN 262144 (bench_op_len).
 *
 * Errors are answered `err MESSAGE`. The parent sends a command and waits
 * for the answer, so the child's samples interleave with the parent's rows
 * on the same (pinned, inherited-affinity) CPU, never running beside them.
 */
#define _GNU_SOURCE
#include "bench.h"
#include "bench_peer.h"

#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <unistd.h>

#define NOAESNI_MASK "~0x200000200000000"

const char *peer_mask_value(void) { return NOAESNI_MASK; }

/* ---- child side ------------------------------------------------------- */

int peer_child_main(int counter_kind)
{
    char why[256];
    impl im;
    int kind = counter_setup(counter_kind, why, sizeof why);
    if (impl_openssl_create(&im, "openssl-noaesni") != 0) {
        printf("err OpenSSL set-up failed\n");
        return 1;
    }
    const char *cap = getenv("OPENSSL_ia32cap");
    printf("hello aesgen-bench-peer 3\n");
    printf("info openssl_version %s\n", impl_openssl_version());
    printf("info ia32cap %s\n", cap ? cap : "(unset)");
    printf("info counter %s\n", counter_kind_name(kind));
    printf("ready\n");
    fflush(stdout);

    uint8_t *buf = NULL;
    size_t cap_len = 0;
    char line[256];
    while (fgets(line, sizeof line, stdin)) {
        char cmd[16], opname[32];
        unsigned bits = 0;
        unsigned long long len = 0, iters = 0;
        int n = sscanf(line, "%15s %31s %u %llu %llu", cmd, opname, &bits, &len, &iters);
        if (n >= 1 && strcmp(cmd, "quit") == 0)
            break;
        int op = n >= 2 ? bench_op_from_name(opname) : -1;
        int k = n >= 3 ? bench_key_index(bits) : -1;
        if (n < 4 || op < 0 || k < 0 || len == 0 || len > (64ull << 20) || !im.key_ok[k] ||
            bench_op_na(op, k, (size_t)len)) {
            printf("err bad command\n");
            fflush(stdout);
            continue;
        }
        if (len > cap_len) {
            free(buf);
            buf = aligned_alloc(64, bench_buf_bytes((size_t)len));
            cap_len = buf ? (size_t)len : 0;
            if (!buf) {
                printf("err out of memory\n");
                fflush(stdout);
                continue;
            }
        }
        if (strcmp(cmd, "check") == 0) {
            int rc = im.reset(&im, k, op);
            rc |= bench_prepare(op, k, buf, (size_t)len);
            rc |= im.loop(&im, k, op, buf, (size_t)len, 1);
            rc |= im.reset(&im, k, op);
            if (rc)
                printf("err OpenSSL call failed\n");
            else
                printf("ok %016llx\n", (unsigned long long)bench_fnv64(
                                             buf, bench_out_bytes(op, (size_t)len)));
        } else if (strcmp(cmd, "run") == 0 && n == 5 && iters > 0) {
            bench_sample s;
            if (op == OP_GCM_OPEN && bench_prepare(op, k, buf, (size_t)len) != 0)
                printf("err OpenSSL failed to seal the message to open\n");
            else if (impl_sample(&im, k, op, buf, (size_t)len, iters, &s) != 0)
                printf("err OpenSSL call failed\n");
            else
                printf("ok %.1f %.0f %d\n", s.ns, s.count, s.preempted);
        } else {
            printf("err bad command\n");
        }
        fflush(stdout);
    }
    free(buf);
    impl_destroy(&im);
    return 0;
}

/* ---- parent side ------------------------------------------------------ */

typedef struct remote_priv {
    pid_t pid;
    int wfd;
    FILE *rf;
    int alive;
    int same_counter;
} remote_priv;

static int remote_cmd(impl *im, const char *cmd, char *reply, size_t replylen)
{
    remote_priv *p = im->priv;
    if (!p->alive)
        return -1;
    size_t n = strlen(cmd);
    if (write(p->wfd, cmd, n) != (ssize_t)n || !fgets(reply, (int)replylen, p->rf)) {
        p->alive = 0;
        snprintf(reply, replylen, "peer process stopped answering");
        return -1;
    }
    reply[strcspn(reply, "\n")] = '\0';
    if (strncmp(reply, "ok ", 3) != 0)
        return -1;
    return 0;
}

static int remote_sample(impl *im, int k, int op, size_t len, uint64_t iters, bench_sample *s)
{
    remote_priv *p = im->priv;
    char cmd[128], reply[256];
    snprintf(cmd, sizeof cmd, "run %s %u %zu %llu\n", bench_op_name[op], bench_key_bits[k], len,
             (unsigned long long)iters);
    if (remote_cmd(im, cmd, reply, sizeof reply) != 0)
        return -1;
    double ns = 0, count = -1;
    int preempted = -1;
    if (sscanf(reply + 3, "%lf %lf %d", &ns, &count, &preempted) != 3)
        return -1;
    s->ns = ns;
    s->preempted = preempted;
    s->count = p->same_counter ? count : -1.0;
    return 0;
}

static int remote_check(impl *im, int k, int op, size_t len, uint64_t *hash)
{
    char cmd[128], reply[256];
    unsigned long long h = 0;
    snprintf(cmd, sizeof cmd, "check %s %u %zu\n", bench_op_name[op], bench_key_bits[k], len);
    if (remote_cmd(im, cmd, reply, sizeof reply) != 0)
        return -1;
    if (sscanf(reply + 3, "%llx", &h) != 1)
        return -1;
    *hash = (uint64_t)h;
    return 0;
}

static int remote_reset(impl *im, int k, int op)
{
    (void)im;
    (void)k;
    (void)op;
    return 0; /* the child resets after each check */
}

static int remote_loop(impl *im, int k, int op, uint8_t *buf, size_t len, uint64_t iters)
{
    (void)im;
    (void)k;
    (void)op;
    (void)buf;
    (void)len;
    (void)iters;
    return -1; /* never called: remote rows time themselves */
}

int peer_spawn(impl *im, int counter_kind, peer_info *info, char *err, size_t errlen)
{
    memset(im, 0, sizeof *im);
    memset(info, 0, sizeof *info);
    snprintf(im->name, sizeof im->name, "openssl-noaesni");
    im->kind = IMPL_REMOTE;
    im->reset = remote_reset;
    im->loop = remote_loop;
    im->remote_sample = remote_sample;
    im->remote_check = remote_check;

    remote_priv *p = calloc(1, sizeof *p);
    if (!p) {
        snprintf(err, errlen, "out of memory");
        return -1;
    }
    im->priv = p;
    p->wfd = -1;
    if (errlen)
        err[0] = '\0';
    int to_child[2], from_child[2];
    if (pipe(to_child) != 0) {
        snprintf(err, errlen, "pipe: %s", strerror(errno));
        peer_stop(im);
        return -1;
    }
    if (pipe(from_child) != 0) {
        snprintf(err, errlen, "pipe: %s", strerror(errno));
        close(to_child[0]);
        close(to_child[1]);
        peer_stop(im);
        return -1;
    }
    signal(SIGPIPE, SIG_IGN);
    fflush(stdout);
    fflush(stderr);
    pid_t pid = fork();
    if (pid < 0) {
        snprintf(err, errlen, "fork: %s", strerror(errno));
        close(to_child[0]);
        close(to_child[1]);
        close(from_child[0]);
        close(from_child[1]);
        peer_stop(im);
        return -1;
    }
    if (pid == 0) {
        static char a0[] = "aesgen-bench", a1[] = "--peer-only", a2[] = "openssl",
                    a3[] = "--counter";
        char a4[16];
        snprintf(a4, sizeof a4, "%s", counter_kind_name(counter_kind));
        char *argv[] = {a0, a1, a2, a3, a4, NULL};
        dup2(to_child[0], 0);
        dup2(from_child[1], 1);
        close(to_child[0]);
        close(to_child[1]);
        close(from_child[0]);
        close(from_child[1]);
        setenv("OPENSSL_ia32cap", NOAESNI_MASK, 1);
        execv("/proc/self/exe", argv);
        fprintf(stderr, "aesgen-bench: peer: cannot execute /proc/self/exe: %s\n",
                strerror(errno));
        _exit(127);
    }
    close(to_child[0]);
    close(from_child[1]);
    p->pid = pid;
    p->wfd = to_child[1];
    p->rf = fdopen(from_child[0], "r");
    if (!p->rf) {
        snprintf(err, errlen, "fdopen: %s", strerror(errno));
        close(from_child[0]);
        peer_stop(im);
        return -1;
    }
    p->alive = 1;

    char line[512];
    int hello = 0, ready = 0;
    while (fgets(line, sizeof line, p->rf)) {
        line[strcspn(line, "\n")] = '\0';
        if (strncmp(line, "hello aesgen-bench-peer ", 24) == 0)
            hello = 1;
        else if (strncmp(line, "info openssl_version ", 21) == 0)
            bench_copy(info->openssl_version, sizeof info->openssl_version, line + 21);
        else if (strncmp(line, "info ia32cap ", 13) == 0)
            bench_copy(info->ia32cap, sizeof info->ia32cap, line + 13);
        else if (strncmp(line, "info counter ", 13) == 0)
            bench_copy(info->counter, sizeof info->counter, line + 13);
        else if (strcmp(line, "ready") == 0) {
            ready = 1;
            break;
        } else if (strncmp(line, "err ", 4) == 0) {
            snprintf(err, errlen, "peer: %s", line + 4);
            break;
        }
    }
    if (!hello || !ready) {
        if (!err[0])
            snprintf(err, errlen, "peer process did not start (see stderr)");
        p->alive = 0;
        peer_stop(im);
        return -1;
    }
    p->same_counter = strcmp(info->counter, counter_kind_name(counter_kind)) == 0 &&
                      counter_kind != CNT_NONE;
    snprintf(im->desc, sizeof im->desc,
             "%s EVP in a child process started with OPENSSL_ia32cap=%s (AES-NI and PCLMULQDQ "
             "masked): ECB and CBC enc run vpaes (SSSE3 vector permute), CTR and CBC dec run "
             "bsaes (bitsliced, 8 blocks; OpenSSL takes a scalar path for short inputs); GCM "
             "(from OpenSSL 3.0's sources) runs bsaes CTR with the table-based AES_encrypt for "
             "single blocks and the 4-bit-table GHASH (gcm_ghash_4bit), so not constant time; "
             "XTS (same call pattern as the openssl row) as OpenSSL's own dispatch picks it "
             "without AES-NI",
             info->openssl_version, info->ia32cap);
    for (int k = 0; k < NKEYS; k++)
        im->key_ok[k] = 1;
    for (int op = 0; op < OP_COUNT; op++)
        im->op_ok[op] = op != OP_CBC_STREAMS_ENC;
    snprintf(im->op_note[OP_CBC_STREAMS_ENC], sizeof im->op_note[OP_CBC_STREAMS_ENC],
             "OpenSSL has no call for independent CBC messages");
    return 0;
}

void peer_stop(impl *im)
{
    remote_priv *p = im->priv;
    if (!p)
        return;
    if (p->alive) {
        static const char q[] = "quit\n";
        if (write(p->wfd, q, sizeof q - 1) < 0) {
            /* the child is gone already */
        }
    }
    if (p->wfd >= 0)
        close(p->wfd);
    p->wfd = -1;
    if (p->rf)
        fclose(p->rf);
    p->rf = NULL;
    if (p->pid > 0) {
        int st;
        waitpid(p->pid, &st, 0);
    }
    /* Frees the row's state: a row whose peer failed to start is dropped by the
     * caller without another call, so the state must not outlive this one. */
    free(p);
    im->priv = NULL;
}

int peer_alive(const impl *im)
{
    const remote_priv *p = im->priv;
    return p && p->alive;
}
