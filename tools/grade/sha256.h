/* sha256.h: SHA-256 (FIPS 180-4), for the batch grader's resume keys. */
#ifndef MEMLAB_SHA256_H
#define MEMLAB_SHA256_H

#include <stddef.h>
#include <stdint.h>

typedef struct {
    uint32_t state[8];
    uint64_t length;            /* bytes hashed so far */
    unsigned char block[64];
    size_t used;                /* bytes waiting in block */
} sha256_context;

#define SHA256_HEX_SIZE 65      /* 64 hex digits and the NUL */

void sha256_start(sha256_context *context);
void sha256_add(sha256_context *context, const void *data, size_t size);
/* The digest as 64 lowercase hex digits. */
void sha256_finish(sha256_context *context, char hex[SHA256_HEX_SIZE]);

/* Adds a file's bytes; returns 0, or -1 when it cannot be read. */
int sha256_add_file(sha256_context *context, const char *path);

#endif
