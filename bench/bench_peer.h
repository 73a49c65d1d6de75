/*
 * bench_peer.h -- the OpenSSL-with-AES-NI-masked row, run in a child
 * process (see bench_peer.c).
 */
#ifndef AESGEN_BENCH_PEER_H
#define AESGEN_BENCH_PEER_H

#include "bench.h"

typedef struct peer_info {
    char openssl_version[160];
    char ia32cap[64]; /* OPENSSL_ia32cap as the child saw it */
    char counter[16]; /* the child's counter kind */
} peer_info;

/* The hidden `--peer-only openssl` mode: serve commands on stdin. */
int peer_child_main(int counter_kind);

/* Start the child and make im a remote row for it; 0 on success, else err[]. */
int peer_spawn(impl *im, int counter_kind, peer_info *info, char *err, size_t errlen);
/* Stop the child (if any) and free the row's state (im->priv becomes NULL). */
void peer_stop(impl *im);
int peer_alive(const impl *im);
const char *peer_mask_value(void);

#endif /* AESGEN_BENCH_PEER_H */
