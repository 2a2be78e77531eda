/* Growable byte buffer (rti/proto/buf.h): the output batch of a connection and its input stream.
 * doc/protocol.md; doc/contributing.md §8 (storage is reused, it only grows).
 * Read rti/proto/wire.c next. */
#include "rti/proto/buf.h"

#include <stdlib.h>
#include <string.h>

void buf_init(struct buf *b)
{
    b->data = NULL;
    b->len = 0;
    b->cap = 0;
}

void buf_fini(struct buf *b)
{
    if (!b) return;
    free(b->data);
    buf_init(b);
}

int buf_reserve(struct buf *b, size_t extra)
{
    if (extra > SIZE_MAX - b->len) return -1;
    size_t need = b->len + extra;
    if (need <= b->cap) return 0;
    size_t cap = b->cap ? b->cap : 256;
    while (cap < need) {
        if (cap > SIZE_MAX / 2) {
            cap = need;
            break;
        }
        cap *= 2;
    }
    uint8_t *p = realloc(b->data, cap);
    if (!p) return -1;
    b->data = p;
    b->cap = cap;
    return 0;
}

int buf_append(struct buf *b, const void *p, size_t n)
{
    if (n == 0) return 0;
    if (buf_reserve(b, n) != 0) return -1;
    memcpy(b->data + b->len, p, n);
    b->len += n;
    return 0;
}

void buf_consume(struct buf *b, size_t n)
{
    if (n >= b->len) {
        b->len = 0;
        return;
    }
    memmove(b->data, b->data + n, b->len - n);
    b->len -= n;
}

void buf_clear(struct buf *b)
{
    b->len = 0;
}
