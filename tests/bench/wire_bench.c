/* Benchmark of the wire codec (rti/proto/wire.h): cost per frame of encoding,
 * splitting + decoding, and re-encoding a decoded UPDATE as a REFLECT (what the RTI does per
 * subscriber), for a 64-byte attribute value. Prints figures; never fails on timing.
 * Read doc/protocol.md for the frame format. */
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "rti/proto/wire.h"

enum { BATCH = 1000, ROUNDS = 2000 }; /* 2 million frames per measurement */

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

int main(void)
{
    static uint8_t payload[64];
    memset(payload, 0xab, sizeof payload);
    struct wire_value v = {7, sizeof payload, payload};
    struct wire_msg m, d;
    wire_msg_init(&m, WIRE_UPDATE);
    m.req = 1;
    m.a = 42;
    m.time = 1000;
    m.values = &v;
    m.nvalues = 1;
    struct buf out = {0}, fwd = {0};
    char err[256];
    volatile uint64_t sink = 0;

    double t0 = now_s();
    for (int r = 0; r < ROUNDS; r++) {
        buf_clear(&out);
        for (int i = 0; i < BATCH; i++) {
            m.time = i;
            if (wire_encode(&out, &m, 0, err, sizeof err) != WIRE_OK) {
                fprintf(stderr, "encode: %s\n", err);
                return 1;
            }
        }
    }
    double t_enc = now_s() - t0;
    size_t frame = out.len / BATCH;

    t0 = now_s();
    for (int r = 0; r < ROUNDS; r++) {
        size_t off = 0, flen;
        while (wire_split(out.data + off, out.len - off, 0, &flen, err, sizeof err) == 1) {
            if (wire_decode(out.data + off, flen, &d, err, sizeof err) != WIRE_OK) {
                fprintf(stderr, "decode: %s\n", err);
                return 1;
            }
            struct wire_value_iter it;
            struct wire_value x;
            wire_value_iter_init(&it, &d);
            while (wire_value_next(&it, &x))
                sink += x.len;
            off += flen;
        }
    }
    double t_dec = now_s() - t0;

    /* UPDATE -> REFLECT from the raw form, into a reused buffer. */
    buf_clear(&out);
    wire_encode(&out, &m, 0, err, sizeof err);
    wire_decode(out.data, out.len, &d, err, sizeof err);
    d.type = WIRE_REFLECT;
    d.req = 0;
    d.code = WIRE_ORDER_TSO;
    d.c = 3;
    t0 = now_s();
    for (int r = 0; r < ROUNDS; r++) {
        buf_clear(&fwd);
        for (int i = 0; i < BATCH; i++)
            if (wire_encode(&fwd, &d, 0, err, sizeof err) != WIRE_OK) {
                fprintf(stderr, "forward: %s\n", err);
                return 1;
            }
    }
    double t_fwd = now_s() - t0;

    double n = (double)BATCH * ROUNDS;
    printf("wire_bench: UPDATE frame of %zu bytes (one 64-byte value), %.0f frames each\n", frame,
           n);
    printf("  encode            %7.1f ns/frame  %6.2f Mframes/s\n", 1e9 * t_enc / n,
           n / t_enc / 1e6);
    printf("  split+decode+iter %7.1f ns/frame  %6.2f Mframes/s\n", 1e9 * t_dec / n,
           n / t_dec / 1e6);
    printf("  UPDATE->REFLECT   %7.1f ns/frame  %6.2f Mframes/s\n", 1e9 * t_fwd / n,
           n / t_fwd / 1e6);
    buf_fini(&out);
    buf_fini(&fwd);
    return sink == 0;
}
