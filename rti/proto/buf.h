/* Growable byte buffer used for outgoing frame batches and incoming stream bytes.
 * Serves doc/protocol.md (one codec, batched writes) and doc/contributing.md §8 (reused
 * per-connection buffers: the storage only grows, so a warm connection does not allocate). Read
 * rti/proto/wire.h next: wire_encode() appends frames to a struct buf. */
#ifndef TEMPO_RTI_BUF_H
#define TEMPO_RTI_BUF_H

#include <stddef.h>
#include <stdint.h>

/* A caller-owned byte buffer. All-zero is a valid empty buffer (same as buf_init()). */
struct buf {
    uint8_t *data; /* heap storage, NULL until the first append; owned by the buffer */
    size_t len;    /* bytes in use, data[0 .. len) */
    size_t cap;    /* bytes allocated; len <= cap */
};

/** Make @p b an empty buffer without allocating.
 *  @param b  buffer to initialise (not NULL). */
void buf_init(struct buf *b);

/** Release the storage of @p b and leave it empty (reusable). Accepts NULL.
 *  @see buf_init */
void buf_fini(struct buf *b);

/** Ensure room for @p extra more bytes past len (amortised doubling; never shrinks).
 *  @param b      buffer (not NULL)
 *  @param extra  bytes that will be appended
 *  @return 0, or -1 when the allocation fails or len + extra overflows size_t (b unchanged). */
int buf_reserve(struct buf *b, size_t extra);

/** Append @p n bytes from @p p (p may be NULL when n == 0).
 *  @return 0, or -1 on allocation failure (b unchanged). */
int buf_append(struct buf *b, const void *p, size_t n);

/** Drop the first @p n bytes (e.g. frames already handled or written); n > len drops all.
 *  Cost O(len - n) (memmove); call it once per batch, not once per frame. */
void buf_consume(struct buf *b, size_t n);

/** Set len to 0, keeping the storage for reuse. */
void buf_clear(struct buf *b);

#endif
