/* libFuzzer target for the federation log reader (rti/flog/flog_read.c, doc/log.md,
 * doc/contributing.md §2.7). Each input is read twice: as it is, and with every checksum recomputed
 * (so that mutations reach the length and payload checks behind the CRC instead of stopping at it).
 * Beyond "no crash", it traps when a property fails: every record lies inside the input, not
 * before the previous one, record numbers count up from 1, every refusal says why, a reader
 * that failed stays failed, and frames inside records go through the wire decoder.
 * Corpus: tests/fuzz/corpus/flog_fuzz/ (logs written by tests/unit/tlog_cli_test.c). */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "rti/flog/flog.h"
#include "rti/proto/wire.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void put32(uint8_t *p, uint32_t v)
{
    for (int i = 0; i < 4; i++)
        p[i] = (uint8_t)(v >> (8 * i));
}
static uint32_t get32(const uint8_t *p)
{
    return (uint32_t)p[0] | ((uint32_t)p[1] << 8) | ((uint32_t)p[2] << 16) | ((uint32_t)p[3] << 24);
}

static void read_all(const uint8_t *data, size_t size)
{
    struct flog_reader r;
    struct flog_record rec;
    char err[FLOG_ERR_LEN];
    err[0] = '\0';
    int rc = flog_reader_init(&r, data, size, err, sizeof err);
    if (rc != FLOG_OK) {
        if (err[0] == '\0') __builtin_trap();
        return;
    }
    if (r.hdr.header_len > size ||
        r.hdr.federation + r.hdr.federation_len > (const char *)data + size ||
        r.hdr.fom + r.hdr.fom_len > (const char *)data + size)
        __builtin_trap();
    uint64_t prev_off = r.hdr.header_len, n = 0;
    for (;;) {
        err[0] = '\0';
        rc = flog_reader_next(&r, &rec, err, sizeof err);
        if (rc == 0) {
            if (r.off != size) __builtin_trap(); /* a clean end is the end of the input */
            return;
        }
        if (rc < 0) {
            if (err[0] == '\0') __builtin_trap();
            struct flog_record again;
            if (flog_reader_next(&r, &again, NULL, 0) != rc) __builtin_trap();
            return;
        }
        n++;
        /* in order (the two halves of a DELIVERED share an offset), before the position */
        if (rec.index != n || rec.offset < prev_off || rec.offset >= r.off || r.off > size)
            __builtin_trap();
        if (rec.payload < data || rec.payload + rec.payload_len > data + size) __builtin_trap();
        prev_off = rec.offset;
        if (rec.kind == FLOG_K_RECV || rec.kind == FLOG_K_SENT) {
            struct wire_msg m;
            char werr[256];
            werr[0] = '\0';
            if (wire_decode(rec.payload, rec.payload_len, &m, werr, sizeof werr) != WIRE_OK &&
                werr[0] == '\0')
                __builtin_trap();
        } else if (rec.kind == FLOG_K_TM_SEND) {
            for (uint32_t i = 0; i < rec.send.n; i++)
                (void)flog_tm_send_receiver(&rec.send, i);
            /* No pointer arithmetic on an empty (possibly NULL) list. */
            if (rec.send.n > 0 && ((const uint8_t *)rec.send.receivers < data ||
                                   4 * (size_t)rec.send.n >
                                       (size_t)(data + size - (const uint8_t *)rec.send.receivers)))
                __builtin_trap();
        } else if (rec.kind == FLOG_K_DECISION) {
            /* a coded reason (why != 0) is a static text, not in the data */
            /* An empty reason may be NULL: compare lengths, never offset a NULL pointer. */
            if (rec.dec.why == 0 && rec.dec.reason_len > 0 &&
                (rec.dec.reason < (const char *)data ||
                 rec.dec.reason_len > (size_t)((const char *)data + size - rec.dec.reason)))
                __builtin_trap();
            if (rec.dec.why != 0 && (!flog_why_text(rec.dec.why) || rec.dec.kind != TM_D_DELIVER))
                __builtin_trap();
        }
    }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    read_all(data, size);
    /* Second pass with valid checksums wherever the lengths allow computing them. */
    if (size < FLOG_FILE_PREFIX || size > (1u << 20)) return 0;
    uint8_t *c = malloc(size);
    if (!c) return 0;
    memcpy(c, data, size);
    uint32_t hlen = get32(c + 12);
    if (hlen >= FLOG_FILE_PREFIX && hlen <= size) {
        put32(c + 16, flog_crc32c(0, c + FLOG_FILE_PREFIX, hlen - FLOG_FILE_PREFIX));
        size_t off = hlen;
        while (size - off >= FLOG_BLOCK_PREFIX) { /* a block cut short needs no checksum */
            uint32_t blen = get32(c + off);
            if (blen > size - off - FLOG_BLOCK_PREFIX) break;
            put32(c + off + 4, flog_crc32c(0, c + off + FLOG_BLOCK_PREFIX, blen));
            off += FLOG_BLOCK_PREFIX + blen;
        }
    }
    read_all(c, size);
    free(c);
    return 0;
}
