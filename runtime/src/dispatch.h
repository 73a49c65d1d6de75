/*
 * dispatch.h -- between the API layer, dispatch and CPU detection.
 */
#ifndef AESGEN_DISPATCH_H
#define AESGEN_DISPATCH_H

#include <stdint.h>

#include "aesgen_variant.h"

/* Features this CPU and OS provide (cpu.c); called once. */
uint32_t aesgen_detect_cpu_features(void);

/* The CPU model as cpuid reports it (cpu.c): vendor AESGEN_CPU_VENDOR_UNKNOWN
 * where the architecture or vendor has no entry in the per-CPU table. */
void aesgen_detect_cpu_id(aesgen_cpu_id *id);

/* AESGEN_OK, or AESGEN_ERR_BACKEND when AESGEN_BACKEND names a backend that
 * does not exist or cannot run here (and no aesgen_force_backend call has
 * overridden it). */
int aesgen_dispatch_status(void);

/* The forced backend (or class, "software"), NULL for automatic choice. Read it
 * once per decision: aesgen_force_backend may change it from another thread. */
const char *aesgen_active_backend(void);

/* The preferred usable variant for a key size and direction within `backend`
 * (NULL: any), or NULL. */
const aesgen_variant *aesgen_pick_variant(unsigned key_bits, int direction, const char *backend);

#endif /* AESGEN_DISPATCH_H */
