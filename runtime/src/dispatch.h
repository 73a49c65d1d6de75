/*
 * dispatch.h -- between the API layer, dispatch and CPU detection.
 */
#ifndef AESGEN_DISPATCH_H
#define AESGEN_DISPATCH_H

#include <stdint.h>

#include "aesgen_variant.h"

/* Features this CPU and OS provide (cpu.c); called once. */
uint32_t aesgen_detect_cpu_features(void);

/* AESGEN_OK, or AESGEN_ERR_BACKEND when AESGEN_BACKEND names a backend that
 * does not exist or cannot run here (and no aesgen_force_backend call has
 * overridden it). */
int aesgen_dispatch_status(void);

/* The preferred usable variant for a key size and direction within the
 * forced backend (if any), or NULL. */
const aesgen_variant *aesgen_pick_variant(unsigned key_bits, int direction);

#endif /* AESGEN_DISPATCH_H */
