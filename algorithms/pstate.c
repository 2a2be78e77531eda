/* The byte codec of algorithm states (algorithms/pstate.h, doc/checkpoint.md "A peer's part").
 * Little-endian, fixed widths, doubles by their bits. Read algorithms/peer.c next.
 */
#include <stdlib.h>
#include <string.h>

#include "algorithms/pstate.h"

static unsigned char *room(pstate_buf *b, size_t k)
{
    if (b->bad) return NULL;
    if (b->n + k > b->cap) {
        size_t cap = b->cap ? b->cap : 256;
        while (cap < b->n + k)
            cap *= 2;
        unsigned char *p = realloc(b->p, cap);
        if (!p) {
            b->bad = 1;
            return NULL;
        }
        b->p = p;
        b->cap = cap;
    }
    unsigned char *at = b->p + b->n;
    b->n += k;
    return at;
}

static void put_le(pstate_buf *b, uint64_t v, size_t k)
{
    unsigned char *at = room(b, k);
    for (size_t i = 0; at && i < k; i++)
        at[i] = (unsigned char)(v >> (8 * i));
}

void pstate_put_u8(pstate_buf *b, uint8_t v)
{
    put_le(b, v, 1);
}

void pstate_put_u32(pstate_buf *b, uint32_t v)
{
    put_le(b, v, 4);
}

void pstate_put_i64(pstate_buf *b, int64_t v)
{
    put_le(b, (uint64_t)v, 8);
}

void pstate_put_f64(pstate_buf *b, double v)
{
    uint64_t bits;
    memcpy(&bits, &v, sizeof bits);
    put_le(b, bits, 8);
}

void pstate_put_bytes(pstate_buf *b, const void *p, size_t n)
{
    if (n > UINT32_MAX) {
        b->bad = 1;
        return;
    }
    pstate_put_u32(b, (uint32_t)n);
    unsigned char *at = room(b, n);
    if (at && n) memcpy(at, p, n);
}

static uint64_t get_le(pstate_rd *r, size_t k)
{
    if (r->bad || r->n - r->at < k) {
        r->bad = 1;
        return 0;
    }
    uint64_t v = 0;
    for (size_t i = 0; i < k; i++)
        v |= (uint64_t)r->p[r->at + i] << (8 * i);
    r->at += k;
    return v;
}

uint8_t pstate_get_u8(pstate_rd *r)
{
    return (uint8_t)get_le(r, 1);
}

uint32_t pstate_get_u32(pstate_rd *r)
{
    return (uint32_t)get_le(r, 4);
}

int64_t pstate_get_i64(pstate_rd *r)
{
    return (int64_t)get_le(r, 8);
}

double pstate_get_f64(pstate_rd *r)
{
    uint64_t bits = get_le(r, 8);
    double v;
    memcpy(&v, &bits, sizeof v);
    return v;
}

const unsigned char *pstate_get_bytes(pstate_rd *r, size_t *n)
{
    size_t k = pstate_get_u32(r);
    *n = 0;
    if (r->bad || r->n - r->at < k) {
        r->bad = 1;
        return NULL;
    }
    const unsigned char *at = r->p + r->at;
    r->at += k;
    *n = k;
    return at;
}
