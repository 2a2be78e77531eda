/* An algorithm's state between steps as bytes, for checkpoints (doc/checkpoint.md, "A peer's
 * part"): a growing byte buffer and a bounded reader, little-endian, doubles as their IEEE 754
 * bits so that a restored value is the saved one bit for bit. The same encoding as the
 * checkpoint folder's codec (rti/proto/ckpt.h), written again here because algorithms/ uses
 * libc only (doc/contributing.md §1). Read algorithms/peer.c next (the peers' state).
 */
#ifndef TEMPO_ALGORITHMS_PSTATE_H
#define TEMPO_ALGORITHMS_PSTATE_H

#include <stddef.h>
#include <stdint.h>

/* A writer: zero-initialised means empty. A failed allocation sets bad and drops every later
 * put, so a caller checks bad once at the end. */
typedef struct pstate_buf {
    unsigned char *p; /* malloc'ed bytes (the owner frees them with free) */
    size_t n, cap;    /* bytes written, bytes allocated */
    int bad;          /* 1: out of memory, the bytes are incomplete */
} pstate_buf;

void pstate_put_u8(pstate_buf *b, uint8_t v);
void pstate_put_u32(pstate_buf *b, uint32_t v);
void pstate_put_i64(pstate_buf *b, int64_t v);
void pstate_put_f64(pstate_buf *b, double v);
/** n raw bytes preceded by their count (u32). */
void pstate_put_bytes(pstate_buf *b, const void *p, size_t n);

/* A reader over bytes it does not own. A read past the end returns 0 and sets bad. */
typedef struct pstate_rd {
    const unsigned char *p;
    size_t n, at; /* size, next byte */
    int bad;      /* 1: a read ran past the end (or a count did not fit) */
} pstate_rd;

uint8_t pstate_get_u8(pstate_rd *r);
uint32_t pstate_get_u32(pstate_rd *r);
int64_t pstate_get_i64(pstate_rd *r);
double pstate_get_f64(pstate_rd *r);
/** A counted byte string: *n receives its size and the return points into the reader's bytes
 *  (NULL and bad set when it runs past the end). */
const unsigned char *pstate_get_bytes(pstate_rd *r, size_t *n);

#endif
