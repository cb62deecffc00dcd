/*
 * sha256.h - SHA-256 (FIPS 180-4) of a byte string, as 64 lowercase hex
 * digits. Used for the content hash that makes `history add` idempotent; no
 * crypto library is linked for this one use.
 */
#ifndef FLYPROF_SHA256_H
#define FLYPROF_SHA256_H

#include <stddef.h>

/* out receives 64 hex digits + NUL. */
void fp_sha256_hex(const void *data, size_t len, char out[65]);

#endif
