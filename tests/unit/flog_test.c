/* Unit tests of the federation log writer and reader (rti/flog/flog.h, doc/log.md):
 * round trip of every record kind with real wire frames, the header, cuts at every byte
 * offset, an unknown version, checksums, a write failure (file size limit) that stops logging
 * once and cleanly, CRC-32C against a reference, and the version 3 encodings (blocks with one
 * checksum, varint record header, coded decisions, DELIVERED records, the frame ring) with
 * their corrupt forms. Files go to a private temporary
 * directory. */
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <unistd.h>

#include "rti/flog/flog.h"
#include "rti/proto/wire.h"
#include "tests/check.h"

/* A check whose condition, printed by CHECK, says all. */
#define EXPECT(cond) CHECK(cond, "expected to hold")

static char dir[] = "/tmp/flog_test.XXXXXX";
static int64_t fake_now = 1700000000000000000LL;

/* Fake clock: every record 1 ms after the previous one. */
static int64_t tick_clock(void *ctx)
{
    (void)ctx;
    fake_now += 1000000;
    return fake_now;
}

/* Fake clock that stands still: every record 0 ns after the previous one, so that sizes do
 * not depend on how fast the test runs. */
static int64_t still_clock(void *ctx)
{
    (void)ctx;
    return 1700000000000000000LL;
}

/* Encode a message into b (cleared first). */
static void frame(struct buf *b, const struct wire_msg *m)
{
    char err[256];
    buf_clear(b);
    int rc = wire_encode(b, m, 0, err, sizeof err);
    if (rc != WIRE_OK) fprintf(stderr, "wire_encode: %s\n", err);
    CHECK_INT_EQ(rc, WIRE_OK);
}

/* Three REFLECT frames (from federate 1, stamped 20) of one value whose bytes are all
 * @p fill: for object 5 (a), for object 6 (b: other bytes), and for object 6 with a value
 * that makes the frame larger than the ring keeps (big: more than FLOG_AGAIN_MAX bytes). */
static void reflect_frames(struct buf *a, struct buf *b, struct buf *big, uint8_t fill)
{
    static uint8_t bytes[FLOG_AGAIN_MAX];
    memset(bytes, fill, sizeof bytes);
    struct wire_value v = {3, 8, bytes};
    struct wire_msg m;
    wire_msg_init(&m, WIRE_REFLECT);
    m.a = 5;
    m.c = 1;
    m.time = 20;
    m.nvalues = 1;
    m.values = &v;
    frame(a, &m);
    m.a = 6;
    frame(b, &m);
    v.len = FLOG_AGAIN_MAX;
    frame(big, &m);
}

static const char *fom_text = "<fom name=\"t\"><time resolution=\"0.001\"/></fom>";

/* The grant write_sample stores as its facts: an FQR row, GALT infinite, a negative T. */
static const tm_grant_facts sample_facts = {
    .row = TM_GROW_FQR, .asked = 15, .prev = -4, .galt = {TM_TIME_MAX, true}, .holder = 2};
static const tm_decision sample_fqr = {.kind = TM_D_GRANT,
                                       .fed = 1,
                                       .time = 12,
                                       .req = TM_REQ_FQR,
                                       .reason = "",
                                       .grant = &sample_facts};

/* Write a log with one record of every kind; returns the number of records. */
static int write_sample(const char *path, struct buf *fb)
{
    struct flog *l = NULL;
    char err[FLOG_ERR_LEN];
    struct flog_info info = {"fed one", fom_text, strlen(fom_text), "0.001", 1700000000000000000LL};
    CHECK_INT_EQ(flog_open(&l, path, &info, err, sizeof err), FLOG_OK);
    if (!l) return 0;
    flog_set_clock(l, tick_clock, NULL);
    CHECK_INT_EQ(flog_joined(l, 1, "alpha"), FLOG_OK);
    struct wire_msg m;
    wire_msg_init(&m, WIRE_TIME_REQUEST);
    m.req = 7;
    m.code = WIRE_TR_TAR;
    m.time = 10;
    frame(fb, &m);
    CHECK_INT_EQ(flog_frame(l, FLOG_K_RECV, 1, fb->data, fb->len), FLOG_OK);
    uint32_t recv[2] = {2, 3};
    CHECK_INT_EQ(flog_tm_send(l, 1, 10, recv, 2, 99), FLOG_OK);
    tm_decision d = {.kind = TM_D_GRANT,
                     .fed = 1,
                     .time = 10,
                     .req = TM_REQ_TAR,
                     .reason = "TAR(10): GALT (12, strict) > 10, held by B"};
    CHECK_INT_EQ(flog_decision(l, &d), FLOG_OK);
    wire_msg_init(&m, WIRE_TIME_GRANT);
    m.code = WIRE_TR_TAR;
    m.time = 10;
    frame(fb, &m);
    CHECK_INT_EQ(flog_frame(l, FLOG_K_SENT, 1, fb->data, fb->len), FLOG_OK);
    tm_decision dv = {.kind = TM_D_DELIVER,
                      .fed = 2,
                      .time = 10,
                      .tso = true,
                      .sender = 1,
                      .seq = 4,
                      .token = 99,
                      .reason = "",
                      .rule = DELIVERY_TAR};
    CHECK_INT_EQ(flog_delivered(l, &dv, fb->data, fb->len), FLOG_OK); /* two records */
    CHECK_INT_EQ(flog_lost(l, 1, "connection reset"), FLOG_OK);
    CHECK_INT_EQ(flog_note(l, 0, "closing"), FLOG_OK);
    /* Under one held stamp, as the RTI handles one frame: a grant stored as its fields, a
     * second message delivered to 4, then both messages to 3 in a row: one DELIVERED_AGAIN
     * with two pairs, four records for a reader. */
    flog_hold_stamp(l);
    CHECK_INT_EQ(flog_decision(l, &sample_fqr), FLOG_OK);
    struct wire_msg m2;
    wire_msg_init(&m2, WIRE_TIME_GRANT);
    m2.code = WIRE_TR_NER;
    m2.time = 20;
    struct buf f2 = {0};
    frame(&f2, &m2);
    tm_decision d2 = dv;
    d2.fed = 4;
    d2.token = 100;
    d2.seq = 5;
    d2.time = 11;
    CHECK_INT_EQ(flog_delivered(l, &d2, f2.data, f2.len), FLOG_OK);
    dv.fed = d2.fed = 3;
    CHECK_INT_EQ(flog_delivered(l, &dv, fb->data, fb->len), FLOG_OK);
    CHECK_INT_EQ(flog_delivered(l, &d2, f2.data, f2.len), FLOG_OK);
    flog_release_stamp(l);
    buf_fini(&f2);
    CHECK_INT_EQ(flog_flush(l), FLOG_OK);
    EXPECT(flog_records(l) == 16);
    CHECK_INT_EQ(flog_close(l, err, sizeof err), FLOG_OK);
    return 16;
}

/* Create the log DIR/@p file (its path into path[256]) of federation @p fed, started at
 * @p start, without a FOM; NULL, after a failed check, when it cannot be. */
static struct flog *open_test_log(const char *file, const char *fed, int64_t start, char *path)
{
    char err[FLOG_ERR_LEN];
    snprintf(path, 256, "%s/%s", dir, file);
    struct flog *l = NULL;
    struct flog_info info = {fed, NULL, 0, NULL, start};
    CHECK_INT_EQ(flog_open(&l, path, &info, err, sizeof err), FLOG_OK);
    return l;
}

static uint8_t *load(const char *path, size_t *n)
{
    uint8_t *p = NULL;
    char err[FLOG_ERR_LEN];
    CHECK_INT_EQ(flog_load_file(path, &p, n, err, sizeof err), FLOG_OK);
    return p;
}

static void test_round_trip(void)
{
    char path[256];
    snprintf(path, sizeof path, "%s/one.tlog", dir);
    struct buf fb = {0};
    int nrec = write_sample(path, &fb);
    size_t n = 0;
    uint8_t *p = load(path, &n);
    struct flog_reader r;
    char err[FLOG_ERR_LEN];
    CHECK_INT_EQ(flog_reader_init(&r, p, n, err, sizeof err), FLOG_OK);
    CHECK_INT_EQ(r.hdr.version, FLOG_VERSION);
    EXPECT(r.hdr.federation_len == 7 && memcmp(r.hdr.federation, "fed one", 7) == 0);
    EXPECT(r.hdr.resolution_len == 5 && memcmp(r.hdr.resolution, "0.001", 5) == 0);
    EXPECT(r.hdr.fom_len == strlen(fom_text) && memcmp(r.hdr.fom, fom_text, r.hdr.fom_len) == 0);
    EXPECT(r.hdr.start_wall_ns == 1700000000000000000LL);

    struct flog_record rec;
    static const uint8_t kinds[] = {
        FLOG_K_JOINED,   FLOG_K_RECV,     FLOG_K_TM_SEND,  FLOG_K_DECISION,
        FLOG_K_SENT,     FLOG_K_DECISION, FLOG_K_SENT,     FLOG_K_LOST,
        FLOG_K_NOTE,     FLOG_K_DECISION, FLOG_K_DECISION, FLOG_K_SENT,
        FLOG_K_DECISION, FLOG_K_SENT,     FLOG_K_DECISION, FLOG_K_SENT};
    int count = 0;
    int64_t prev_wall = 0;
    uint64_t run_offset = 0;
    while (flog_reader_next(&r, &rec, err, sizeof err) == 1) {
        CHECK_INT_EQ(rec.kind, kinds[count]);
        EXPECT(rec.seq == (uint64_t)count + 1 && rec.index == (uint64_t)count + 1);
        /* the two halves of a DELIVERED record share its stamp, as do the records written
         * under one held stamp (from the tenth) */
        int same = count == 6 || count > 9;
        EXPECT(count == 0 || rec.wall_ns == prev_wall + (same ? 0 : 1000000));
        prev_wall = rec.wall_ns;
        if (count == 9) { /* the grant kept as fields, worded as the engine words it */
            CHECK_INT_EQ(rec.dec.kind, TM_D_GRANT);
            const tm_grant_facts *g = &rec.dec.grant;
            CHECK_INT_EQ(g->row, TM_GROW_FQR);
            EXPECT(rec.fed == 1 && rec.dec.req == TM_REQ_FQR && rec.dec.time == 12 &&
                   g->asked == 15 && g->prev == -4 && g->galt.t == TM_TIME_MAX && g->galt.strict &&
                   g->holder == 2 && !g->queued && rec.dec.reason_len == 0);
            char got[256], want[256];
            flog_grant_text(got, sizeof got, &rec.dec, "alpha", "beta");
            tm_grant_text(want, sizeof want, &sample_fqr, "alpha", "beta");
            CHECK_STR_EQ(got,
                         "FQR(15) granted 12 = max(T -4, min(t, GALT inf)), GALT held by beta");
            CHECK_STR_EQ(got, want);
        }
        if (count >= 10) { /* 10, 11: message 100 to 4; 12-15: 99 then 100 to 3, one record */
            uint32_t to = count < 12 ? 4 : 3;
            int first = count < 12 ? 1 : count >= 14;
            EXPECT(rec.fed == to);
            if (rec.kind == FLOG_K_DECISION)
                EXPECT(rec.dec.kind == TM_D_DELIVER && rec.dec.token == (first ? 100u : 99u) &&
                       rec.dec.seq == (first ? 5u : 4u) && rec.dec.time == (first ? 11 : 10) &&
                       rec.dec.why == 1);
            else if (!first) /* the frame of 99 is fb; that of 100 a NER grant at 20 */
                EXPECT(rec.payload_len == fb.len && memcmp(rec.payload, fb.data, fb.len) == 0);
            else {
                struct wire_msg m;
                CHECK_INT_EQ(wire_decode(rec.payload, rec.payload_len, &m, err, sizeof err),
                             WIRE_OK);
                EXPECT(m.type == WIRE_TIME_GRANT && m.code == WIRE_TR_NER && m.time == 20);
            }
            if (count == 12) run_offset = rec.offset;
            if (count > 12) EXPECT(rec.offset == run_offset);
            count++;
            continue;
        }
        if (rec.kind == FLOG_K_RECV) {
            struct wire_msg m;
            CHECK_INT_EQ(wire_decode(rec.payload, rec.payload_len, &m, err, sizeof err), WIRE_OK);
            CHECK_INT_EQ(m.type, WIRE_TIME_REQUEST);
            EXPECT(m.time == 10 && m.req == 7 && rec.fed == 1);
        }
        if (rec.kind == FLOG_K_TM_SEND) {
            EXPECT(rec.send.ts == 10 && rec.send.token == 99 && rec.send.n == 2);
            CHECK_INT_EQ(flog_tm_send_receiver(&rec.send, 0), 2);
            CHECK_INT_EQ(flog_tm_send_receiver(&rec.send, 1), 3);
            CHECK_INT_EQ(flog_tm_send_receiver(&rec.send, 2), 0);
        }
        if (rec.kind == FLOG_K_DECISION && count == 5) {
            CHECK_INT_EQ(rec.dec.kind, TM_D_DELIVER);
            EXPECT(rec.fed == 2 && rec.dec.time == 10 && rec.dec.tso == 1 && rec.dec.sender == 1 &&
                   rec.dec.seq == 4 && rec.dec.token == 99 && rec.dec.why == 1 &&
                   rec.dec.reason_len == 18 &&
                   memcmp(rec.dec.reason, "ts <= t for TAR(t)", 18) == 0);
        }
        if (rec.kind == FLOG_K_SENT) { /* both: the grant frame, the second one delivered */
            EXPECT(rec.payload_len == fb.len && memcmp(rec.payload, fb.data, fb.len) == 0);
            EXPECT(rec.fed == (count == 6 ? 2u : 1u));
        }
        if (rec.kind == FLOG_K_DECISION && count == 3) {
            CHECK_INT_EQ(rec.dec.kind, TM_D_GRANT);
            CHECK_INT_EQ(rec.dec.req, TM_REQ_TAR);
            EXPECT(rec.dec.time == 10);
            EXPECT(rec.dec.reason_len == 42 &&
                   memcmp(rec.dec.reason, "TAR(10): GALT (12, strict) > 10, held by B", 42) == 0);
        }
        if (rec.kind == FLOG_K_JOINED)
            EXPECT(rec.payload_len == 5 && memcmp(rec.payload, "alpha", 5) == 0);
        count++;
    }
    CHECK_INT_EQ(count, nrec);
    CHECK_INT_EQ(flog_reader_next(&r, &rec, err, sizeof err), 0); /* stays at the end */
    free(p);
    buf_fini(&fb);
}

/* Cut the log at every length: records before the cut read, then a clear ETRUNC. */
static void test_every_cut(void)
{
    char path[256];
    snprintf(path, sizeof path, "%s/one.tlog", dir);
    size_t n = 0;
    uint8_t *p = load(path, &n);
    struct flog_reader r;
    char err[FLOG_ERR_LEN];
    CHECK_INT_EQ(flog_reader_init(&r, p, n, err, sizeof err), FLOG_OK);
    /* Record boundaries, from a full read (the two halves of a DELIVERED share one). */
    size_t bounds[64];
    int nb = 0;
    struct flog_record rec;
    bounds[nb++] = r.off;
    while (flog_reader_next(&r, &rec, err, sizeof err) == 1)
        bounds[nb++] = r.off;
    int bad = 0;
    for (size_t cut = 0; cut < n; cut++) {
        int rc = flog_reader_init(&r, p, cut, err, sizeof err);
        if (cut < bounds[0]) {
            if (rc != FLOG_ETRUNC || !strstr(err, "cut at byte offset")) bad++;
            continue;
        }
        if (rc != FLOG_OK) {
            bad++;
            continue;
        }
        int whole = 0;
        while ((rc = flog_reader_next(&r, &rec, err, sizeof err)) == 1)
            whole++;
        int expect = 0;
        while (expect + 1 < nb && bounds[expect + 1] <= cut)
            expect++;
        /* one block holds every record: only the header's end is a clean end before it */
        int at_boundary = cut == bounds[0];
        if (whole != expect) bad++;
        if (at_boundary ? rc != 0 : rc != FLOG_ETRUNC) bad++;
        if (!at_boundary) {
            char want[64];
            snprintf(want, sizeof want, "inside record %d", expect + 1);
            if (!strstr(err, want) || !strstr(err, "cut at byte offset")) bad++;
        }
    }
    CHECK_INT_EQ(bad, 0);
    /* One message, spelled out. */
    CHECK_INT_EQ(flog_reader_init(&r, p, bounds[2] + 3, err, sizeof err), FLOG_OK);
    CHECK_INT_EQ(flog_reader_next(&r, &rec, err, sizeof err), 1);
    CHECK_INT_EQ(flog_reader_next(&r, &rec, err, sizeof err), 1);
    CHECK_INT_EQ(flog_reader_next(&r, &rec, err, sizeof err), FLOG_ETRUNC);
    char want[128];
    snprintf(want, sizeof want, "log cut at byte offset %zu inside record 3", bounds[2] + 3);
    CHECK_STR_HAS(err, want);
    free(p);
}

static uint64_t get_u32(const uint8_t *p)
{
    return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

/* Re-sign the block whose prefix is at @p off (after a test changed it). */
static void resign_block(uint8_t *p, size_t off)
{
    uint32_t blen = (uint32_t)get_u32(p + off);
    uint32_t c = flog_crc32c(0, p + off + FLOG_BLOCK_PREFIX, blen);
    for (int i = 0; i < 4; i++)
        p[off + 4 + i] = (uint8_t)(c >> (8 * i));
}

/* The varint (record length) at p. */
static uint64_t get_varint_at(const uint8_t *p)
{
    uint64_t v = 0;
    for (int i = 0; i < 10; i++) {
        v |= (uint64_t)(p[i] & 0x7f) << (7 * i);
        if (!(p[i] & 0x80)) break;
    }
    return v;
}

static void test_version_magic_crc(void)
{
    char path[256];
    snprintf(path, sizeof path, "%s/one.tlog", dir);
    size_t n = 0;
    uint8_t *p = load(path, &n);
    struct flog_reader r;
    struct flog_record rec;
    char err[FLOG_ERR_LEN];
    p[8] = 9; /* version 9 */
    CHECK_INT_EQ(flog_reader_init(&r, p, n, err, sizeof err), FLOG_EVERSION);
    CHECK_STR_HAS(err, "version 9 is not supported");
    CHECK_STR_HAS(err, "knows versions 3 to 4");
    p[8] = 2; /* version 2 (a checksum per record) is refused as a version too */
    CHECK_INT_EQ(flog_reader_init(&r, p, n, err, sizeof err), FLOG_EVERSION);
    CHECK_STR_HAS(err, "log format version 2 is not supported (this reader knows versions 3 to 4)");
    /* Refused as a version even when the rest is short or damaged. */
    CHECK_INT_EQ(flog_reader_init(&r, p, 10, err, sizeof err), FLOG_EVERSION);
    p[8] = FLOG_VERSION;
    p[0] = 'X';
    CHECK_INT_EQ(flog_reader_init(&r, p, n, err, sizeof err), FLOG_EMAGIC);
    CHECK_STR_HAS(err, "not a Tempo federation log");
    p[0] = 'T';
    p[30] ^= 1; /* inside the header (start wall time) */
    CHECK_INT_EQ(flog_reader_init(&r, p, n, err, sizeof err), FLOG_ECRC);
    CHECK_STR_HAS(err, "file header: checksum");
    p[30] ^= 1;
    CHECK_INT_EQ(flog_reader_init(&r, p, n, err, sizeof err), FLOG_OK);
    size_t blk = r.off, rec2 = 0;
    CHECK_INT_EQ(flog_reader_next(&r, &rec, err, sizeof err), 1);
    rec2 = r.off;
    /* A damaged byte anywhere in a block: its first record already fails. */
    p[rec2 + 3] ^= 0x40; /* record 2's stamp difference */
    CHECK_INT_EQ(flog_reader_init(&r, p, n, err, sizeof err), FLOG_OK);
    CHECK_INT_EQ(flog_reader_next(&r, &rec, err, sizeof err), FLOG_ECRC);
    char want[96];
    snprintf(want, sizeof want, "block at byte offset %zu (record 1 on): checksum", blk);
    CHECK_STR_HAS(err, want);
    CHECK_INT_EQ(flog_reader_next(&r, &rec, err, sizeof err), FLOG_ECRC); /* does not advance */
    p[rec2 + 3] ^= 0x40;
    /* An impossible length is corruption, not a cut (the block re-signed to get there). */
    uint8_t save = p[rec2];
    p[rec2] = 1; /* a 1-byte body */
    resign_block(p, blk);
    CHECK_INT_EQ(flog_reader_init(&r, p, n, err, sizeof err), FLOG_OK);
    CHECK_INT_EQ(flog_reader_next(&r, &rec, err, sizeof err), 1);
    CHECK_INT_EQ(flog_reader_next(&r, &rec, err, sizeof err), FLOG_ECORRUPT);
    CHECK_STR_HAS(err, "record 2 at byte offset");
    CHECK_STR_HAS(err, "impossible");
    p[rec2] = save;
    /* A record longer than what is left of its block, which is whole. */
    uint8_t lsave[4];
    memcpy(lsave, p + blk, 4);
    uint32_t shorter = (uint32_t)(rec2 + 2 - blk - FLOG_BLOCK_PREFIX);
    for (int i = 0; i < 4; i++)
        p[blk + i] = (uint8_t)(shorter >> (8 * i));
    resign_block(p, blk);
    CHECK_INT_EQ(flog_reader_init(&r, p, n, err, sizeof err), FLOG_OK);
    CHECK_INT_EQ(flog_reader_next(&r, &rec, err, sizeof err), 1);
    CHECK_INT_EQ(flog_reader_next(&r, &rec, err, sizeof err), FLOG_ECORRUPT);
    CHECK_STR_HAS(err, "overrun its block");
    memcpy(p + blk, lsave, 4);
    resign_block(p, blk);
    CHECK_INT_EQ(flog_reader_init(&r, p, n, err, sizeof err), FLOG_OK);
    CHECK_INT_EQ(flog_reader_next(&r, &rec, err, sizeof err), 1);
    CHECK_INT_EQ(flog_reader_next(&r, &rec, err, sizeof err), 1);
    /* An impossible block length. */
    uint8_t bsave = p[blk + 3];
    p[blk + 3] = 0xff;
    CHECK_INT_EQ(flog_reader_init(&r, p, n, err, sizeof err), FLOG_OK);
    CHECK_INT_EQ(flog_reader_next(&r, &rec, err, sizeof err), FLOG_ECORRUPT);
    CHECK_STR_HAS(err, "block at byte offset");
    CHECK_STR_HAS(err, "is impossible");
    p[blk + 3] = bsave;
    free(p);
    CHECK_INT_EQ(flog_reader_init(&r, NULL, 0, err, sizeof err), FLOG_ETRUNC);
    CHECK_INT_EQ(flog_reader_init(&r, (const uint8_t *)"hello world", 11, err, sizeof err),
                 FLOG_EMAGIC);
}

static void test_open_errors_and_dir(void)
{
    char path[256], got[512], err[FLOG_ERR_LEN];
    struct flog *l = NULL;
    struct flog_info info = {"a/b c", NULL, 0, NULL, 0};
    snprintf(path, sizeof path, "%s/one.tlog", dir);
    CHECK_INT_EQ(flog_open(&l, path, &info, err, sizeof err), FLOG_EIO); /* exists */
    CHECK_STR_HAS(err, "one.tlog");
    EXPECT(l == NULL);
    CHECK_INT_EQ(flog_open(&l, "/nonexistent-dir/x.tlog", &info, err, sizeof err), FLOG_EIO);
    CHECK_STR_HAS(err, "/nonexistent-dir/x.tlog");
    CHECK_INT_EQ(flog_open(NULL, path, &info, err, sizeof err), FLOG_EUSAGE);
    CHECK_INT_EQ(flog_open_dir(&l, dir, &info, got, sizeof got, err, sizeof err), FLOG_OK);
    CHECK_STR_HAS(got, "/a_b_c-");
    CHECK_STR_HAS(got, ".tlog");
    struct flog *l2 = NULL;
    char got2[512];
    CHECK_INT_EQ(flog_open_dir(&l2, dir, &info, got2, sizeof got2, err, sizeof err), FLOG_OK);
    EXPECT(strcmp(got, got2) != 0); /* same second, same process: a fresh name */
    CHECK_INT_EQ(flog_close(l2, err, sizeof err), FLOG_OK);
    CHECK_INT_EQ(flog_close(l, err, sizeof err), FLOG_OK);
    /* A header-only log reads as zero records; defaults are filled in. */
    size_t n = 0;
    uint8_t *p = load(got, &n);
    struct flog_reader r;
    struct flog_record rec;
    CHECK_INT_EQ(flog_reader_init(&r, p, n, err, sizeof err), FLOG_OK);
    EXPECT(r.hdr.resolution_len == 5 && memcmp(r.hdr.resolution, "1e-09", 5) == 0);
    EXPECT(r.hdr.fom_len == 0 && r.hdr.start_wall_ns > 1600000000000000000LL);
    CHECK_INT_EQ(flog_reader_next(&r, &rec, err, sizeof err), 0);
    free(p);
    unlink(got);
    unlink(got2);
    /* NULL writer: every call is a no-op, so a server may call them unconditionally. */
    CHECK_INT_EQ(flog_joined(NULL, 1, "x"), FLOG_STOPPED);
    CHECK_INT_EQ(flog_frame(NULL, FLOG_K_RECV, 1, (const uint8_t *)"", 0), FLOG_STOPPED);
    CHECK_INT_EQ(flog_flush(NULL), FLOG_STOPPED);
    CHECK_INT_EQ(flog_close(NULL, err, sizeof err), FLOG_OK);
    CHECK_STR_EQ(flog_error(NULL), "");
}

/* A write failure (file size limit, as a full disk would) stops logging once, cleanly. */
static void test_write_failure(void)
{
    char path[256], err[FLOG_ERR_LEN];
    struct flog *l = open_test_log("limited.tlog", "big", 0, path);
    if (!l) return;
    struct rlimit old, lim;
    getrlimit(RLIMIT_FSIZE, &old);
    lim = old;
    lim.rlim_cur = 100000;
    void (*prev)(int) = signal(SIGXFSZ, SIG_IGN);
    setrlimit(RLIMIT_FSIZE, &lim);
    static uint8_t blob[30000];
    int first_err = 0, stopped = 0, ok = 0;
    for (int i = 0; i < 20; i++) {
        int rc = flog_note(l, 1, NULL);
        rc = flog_frame(l, FLOG_K_RECV, 1, blob, sizeof blob);
        if (rc == FLOG_OK)
            ok++;
        else if (rc == FLOG_EIO)
            first_err++;
        else if (rc == FLOG_STOPPED)
            stopped++;
    }
    setrlimit(RLIMIT_FSIZE, &old);
    signal(SIGXFSZ, prev);
    CHECK_INT_EQ(first_err, 1);
    EXPECT(ok >= 2 && stopped >= 1 && ok + first_err + stopped == 20);
    CHECK_STR_HAS(flog_error(l), "write failed");
    CHECK_STR_HAS(flog_error(l), "limited.tlog");
    CHECK_INT_EQ(flog_flush(l), FLOG_STOPPED);
    /* every kind of record call is refused once stopped, a delivery's pair and a grant too */
    uint64_t before = flog_records(l);
    tm_decision dv = {.kind = TM_D_DELIVER,
                      .fed = 2,
                      .time = 1,
                      .tso = true,
                      .sender = 1,
                      .seq = 1,
                      .token = 5,
                      .reason = "",
                      .rule = DELIVERY_TAR};
    flog_hold_stamp(l);
    CHECK_INT_EQ(flog_delivered(l, &dv, blob, 10), FLOG_STOPPED);
    dv.fed = 3;
    CHECK_INT_EQ(flog_delivered(l, &dv, blob, 10), FLOG_STOPPED);
    flog_release_stamp(l);
    CHECK_INT_EQ(flog_decision(l, &sample_fqr), FLOG_STOPPED);
    CHECK_INT_EQ(flog_records(l), before);
    CHECK_INT_EQ(flog_close(l, err, sizeof err), FLOG_EIO);
    CHECK_STR_HAS(err, "logging stopped");
    /* What reached the disk reads up to its last complete record. */
    size_t n = 0;
    uint8_t *p = load(path, &n);
    struct flog_reader r;
    struct flog_record rec;
    CHECK_INT_EQ(flog_reader_init(&r, p, n, err, sizeof err), FLOG_OK);
    int whole = 0, rc;
    while ((rc = flog_reader_next(&r, &rec, err, sizeof err)) == 1)
        whole++;
    EXPECT(whole >= 1 && (rc == 0 || rc == FLOG_ETRUNC));
    free(p);
}

static void test_misc(void)
{
    /* CRC-32C check value, both paths, and both against a bit-at-a-time reference on
     * buffers of every length 0..200 at odd offsets. */
    EXPECT(flog_crc32c(0, "123456789", 9) == 0xE3069283u);
    EXPECT(flog_crc32c_soft(0, "123456789", 9) == 0xE3069283u);
    EXPECT(flog_crc32c(flog_crc32c(0, "1234", 4), "56789", 5) == 0xE3069283u);
    static uint8_t buf[256];
    uint32_t seed = 12345;
    for (size_t i = 0; i < sizeof buf; i++)
        buf[i] = (uint8_t)((seed = seed * 1103515245u + 12345u) >> 16);
    int crc_bad = 0;
    for (size_t n = 0; n <= 200; n++) {
        uint32_t ref = 0xFFFFFFFFu;
        for (size_t i = 0; i < n; i++) {
            ref ^= buf[3 + i];
            for (int k = 0; k < 8; k++)
                ref = (ref & 1u) ? 0x82F63B78u ^ (ref >> 1) : ref >> 1;
        }
        ref = ~ref;
        if (flog_crc32c(0, buf + 3, n) != ref || flog_crc32c_soft(0, buf + 3, n) != ref) crc_bad++;
    }
    CHECK_INT_EQ(crc_bad, 0);
    CHECK_STR_EQ(flog_kind_name(FLOG_K_DECISION), "DECISION");
    CHECK_STR_EQ(flog_kind_name(0), "?");
    CHECK_STR_EQ(flog_kind_name(99), "?");
}

/* A DELIVER's reason is written as a one-byte code when the engine's text ends
 * with a known delivery reason, in full otherwise; the reader gives the text back. */
static void test_deliver_why(void)
{
    char path[256], err[FLOG_ERR_LEN], text[128];
    struct flog *l = open_test_log("why.tlog", "why", 1, path);
    for (unsigned c = 1; c < FLOG_WHY_COUNT; c++) {
        snprintf(text, sizeof text, "TSO message ts 10 from A: %s", flog_why_text(c));
        CHECK_INT_EQ(flog_why_code(text), c);
        tm_decision d = {.kind = TM_D_DELIVER,
                         .fed = 2,
                         .time = 10,
                         .tso = true,
                         .sender = 1,
                         .seq = c,
                         .token = 100 + c,
                         .reason = text};
        CHECK_INT_EQ(flog_decision(l, &d), FLOG_OK);
    }
    /* not coded: an unknown why, a why not after ": ", an empty reason, a GRANT */
    static const char *const plain[] = {"RO message ts 3 from A: a new reason",
                                        "RO message ts 3 from Axts <= t for TAR(t)", ""};
    for (int i = 0; i < 3; i++) {
        tm_decision d = {
            .kind = TM_D_DELIVER, .fed = 2, .time = 3, .sender = 1, .reason = plain[i]};
        CHECK_INT_EQ(flog_decision(l, &d), FLOG_OK);
    }
    tm_decision g = {.kind = TM_D_GRANT,
                     .fed = 2,
                     .time = 3,
                     .req = TM_REQ_TAR,
                     .reason = "TAR(3): x: ts <= t for TAR(t)"};
    CHECK_INT_EQ(flog_decision(l, &g), FLOG_OK);
    /* a coded delivery with extreme field values */
    tm_decision x = {.kind = TM_D_DELIVER,
                     .fed = UINT32_MAX,
                     .time = INT64_MIN,
                     .sender = UINT32_MAX,
                     .seq = UINT64_MAX,
                     .token = UINT64_MAX - 1,
                     .reason = "RO message ts none from B: receiver not time-constrained"};
    CHECK_INT_EQ(flog_decision(l, &x), FLOG_OK);
    x.time = -5;
    x.tso = true;
    CHECK_INT_EQ(flog_decision(l, &x), FLOG_OK);
    CHECK_INT_EQ(flog_close(l, err, sizeof err), FLOG_OK);
    CHECK_INT_EQ(flog_why_code(NULL), 0);
    EXPECT(flog_why_text(0) == NULL && flog_why_text(FLOG_WHY_COUNT) == NULL);

    size_t n = 0;
    uint8_t *p = load(path, &n);
    struct flog_reader r;
    struct flog_record rec;
    CHECK_INT_EQ(flog_reader_init(&r, p, n, err, sizeof err), FLOG_OK);
    size_t blk = r.off;
    for (unsigned c = 1; c < FLOG_WHY_COUNT; c++) {
        CHECK_INT_EQ(flog_reader_next(&r, &rec, err, sizeof err), 1);
        /* kind, req, tso, why, then time 10 (zigzag 20), sender, seq, token, code 0: 1 byte
         * each */
        CHECK_INT_EQ(rec.payload_len, 9);
        CHECK_INT_EQ(rec.dec.kind, TM_D_DELIVER);
        CHECK_INT_EQ(rec.dec.why, c);
        EXPECT(rec.dec.time == 10 && rec.dec.tso == 1 && rec.dec.sender == 1 && rec.dec.seq == c &&
               rec.dec.token == 100 + c && rec.fed == 2);
        EXPECT(rec.dec.reason_len == strlen(flog_why_text(c)) &&
               memcmp(rec.dec.reason, flog_why_text(c), rec.dec.reason_len) == 0);
    }
    for (int i = 0; i < 4; i++) {
        const char *want = i < 3 ? plain[i] : g.reason;
        CHECK_INT_EQ(flog_reader_next(&r, &rec, err, sizeof err), 1);
        CHECK_INT_EQ(rec.dec.why, 0);
        EXPECT(rec.dec.reason_len == strlen(want) &&
               memcmp(rec.dec.reason, want, rec.dec.reason_len) == 0);
    }
    for (int i = 0; i < 2; i++) {
        CHECK_INT_EQ(flog_reader_next(&r, &rec, err, sizeof err), 1);
        CHECK_INT_EQ(rec.dec.why, 7);
        EXPECT(rec.fed == UINT32_MAX && rec.dec.time == (i ? -5 : INT64_MIN) && rec.dec.tso == i &&
               rec.dec.sender == UINT32_MAX && rec.dec.seq == UINT64_MAX &&
               rec.dec.token == UINT64_MAX - 1);
        EXPECT(rec.dec.reason_len == strlen(flog_why_text(7)) &&
               memcmp(rec.dec.reason, flog_why_text(7), rec.dec.reason_len) == 0);
    }
    CHECK_INT_EQ(flog_reader_next(&r, &rec, err, sizeof err), 0);

    /* A code on another decision kind, an unknown code, or a code with text is corrupt. */
    /* the first record's payload (its header is of varints: found by the reader) */
    CHECK_INT_EQ(flog_reader_init(&r, p, n, err, sizeof err), FLOG_OK);
    CHECK_INT_EQ(flog_reader_next(&r, &rec, err, sizeof err), 1);
    uint8_t *q = p + (rec.payload - p);
    q[0] = TM_D_GRANT;
    resign_block(p, blk);
    CHECK_INT_EQ(flog_reader_init(&r, p, n, err, sizeof err), FLOG_OK);
    CHECK_INT_EQ(flog_reader_next(&r, &rec, err, sizeof err), FLOG_ECORRUPT);
    CHECK_STR_HAS(err, "reason code 1 with decision kind 1");
    q[0] = TM_D_DELIVER;
    q[3] = FLOG_WHY_COUNT;
    resign_block(p, blk);
    CHECK_INT_EQ(flog_reader_init(&r, p, n, err, sizeof err), FLOG_OK);
    CHECK_INT_EQ(flog_reader_next(&r, &rec, err, sizeof err), FLOG_ECORRUPT);
    CHECK_STR_HAS(err, "codes are 1..8");
    q[3] = 1;
    q[8] = 0x80; /* the code varint now runs off the end of the payload */
    resign_block(p, blk);
    CHECK_INT_EQ(flog_reader_init(&r, p, n, err, sizeof err), FLOG_OK);
    CHECK_INT_EQ(flog_reader_next(&r, &rec, err, sizeof err), FLOG_ECORRUPT);
    CHECK_STR_HAS(err, "DECISION payload: a field at payload byte");
    q[8] = 0;
    resign_block(p, blk);
    CHECK_INT_EQ(flog_reader_init(&r, p, n, err, sizeof err), FLOG_OK);
    CHECK_INT_EQ(flog_reader_next(&r, &rec, err, sizeof err), 1);
    free(p);

    /* The log's codes are the engine's delivery rules (rti/proto/delivery.h): one table, each
     * rule worded. */
    for (unsigned c = 1; c < FLOG_WHY_COUNT; c++)
        CHECK(flog_why_text(c) != NULL && flog_why_text(c) == delivery_rule_text(c),
              "code %u is not the delivery rule's text", c);
}

/* Stamps for test_varint_header, one per record, in this order. */
static const int64_t stamps[] = {1000, 1000, 995, 1000 + 10000000000LL, INT64_MAX, INT64_MIN, 0};
static int stamp_i;
static int64_t list_clock(void *ctx)
{
    (void)ctx;
    return stamps[stamp_i++];
}

/* Record header: federate and stamp difference as varints, any values round trip
 * (a clock that goes back, jumps, the extremes); an overlong varint is corruption. */
static void test_varint_header(void)
{
    char path[256], err[FLOG_ERR_LEN];
    snprintf(path, sizeof path, "%s/varint.tlog", dir);
    static const uint32_t feds[] = {0, 127, 128, 16384, UINT32_MAX, 1, 2};
    enum { NR = (int)(sizeof stamps / sizeof stamps[0]) };
    struct flog *l = NULL;
    struct flog_info info = {"v", NULL, 0, NULL, 990};
    CHECK_INT_EQ(flog_open(&l, path, &info, err, sizeof err), FLOG_OK);
    stamp_i = 0;
    flog_set_clock(l, list_clock, NULL);
    for (int i = 0; i < NR; i++)
        CHECK_INT_EQ(flog_note(l, feds[i], "x"), FLOG_OK);
    CHECK_INT_EQ(flog_close(l, err, sizeof err), FLOG_OK);
    size_t n = 0;
    uint8_t *p = load(path, &n);
    struct flog_reader r;
    struct flog_record rec;
    CHECK_INT_EQ(flog_reader_init(&r, p, n, err, sizeof err), FLOG_OK);
    size_t blk = r.off, at[NR];
    for (int i = 0; i < NR; i++) {
        at[i] = r.off;
        CHECK_INT_EQ(flog_reader_next(&r, &rec, err, sizeof err), 1);
        CHECK(rec.wall_ns == stamps[i] && rec.fed == feds[i] && rec.seq == (uint64_t)i + 1 &&
                  rec.payload_len == 1 && rec.payload[0] == 'x',
              "record %d: wall %lld fed %u seq %llu", i + 1, (long long)rec.wall_ns, rec.fed,
              (unsigned long long)rec.seq);
    }
    CHECK_INT_EQ(flog_reader_next(&r, &rec, err, sizeof err), 0);
    /* record 2 is 1+1+1+1+1 bytes: length 4, kind, federate 127, difference 0, "x" */
    CHECK_INT_EQ((int)(at[2] - at[1]), 5);
    /* record 5 (federate UINT32_MAX: ff ff ff ff 0f) with a 33rd bit set in the federate */
    uint8_t *b = p + at[4] + 1;
    CHECK_INT_EQ(b[5], 0x0f);
    b[5] = 0x1f;
    resign_block(p, blk);
    CHECK_INT_EQ(flog_reader_init(&r, p, n, err, sizeof err), FLOG_OK);
    int rc;
    while ((rc = flog_reader_next(&r, &rec, err, sizeof err)) == 1) {
    }
    CHECK_INT_EQ(rc, FLOG_ECORRUPT);
    CHECK_STR_HAS(err, "record 5 at byte offset");
    CHECK_STR_HAS(err, "federate varint");
    /* the same with the varint running off the end of the body: 6 continuation bytes */
    b[5] = 0xff;
    resign_block(p, blk);
    CHECK_INT_EQ(flog_reader_init(&r, p, n, err, sizeof err), FLOG_OK);
    while ((rc = flog_reader_next(&r, &rec, err, sizeof err)) == 1) {
    }
    CHECK_INT_EQ(rc, FLOG_ECORRUPT);
    CHECK_STR_HAS(err, "federate varint");
    free(p);
}

/* Append one handmade record (kind, federate 1, wall delta 0, payload) to a log image. */
static size_t add_record(uint8_t *img, size_t n, unsigned kind, const uint8_t *pl, size_t plen)
{
    img[n] = (uint8_t)(3 + plen); /* payloads here are < 125 bytes: a 1-byte varint */
    img[n + 1] = (uint8_t)kind;
    img[n + 2] = 1;
    img[n + 3] = 0;
    if (plen) memcpy(img + n + 4, pl, plen);
    return n + 4 + plen;
}

/* Close the handmade block whose prefix is at @p blk and whose records end at @p end. */
static size_t seal_block(uint8_t *img, size_t blk, size_t end)
{
    uint32_t len = (uint32_t)(end - blk - FLOG_BLOCK_PREFIX);
    for (int i = 0; i < 4; i++)
        img[blk + i] = (uint8_t)(len >> (8 * i));
    resign_block(img, blk);
    return end;
}

/* A log image of @p n bytes whose record after the first @p good ones is refused as corrupt
 * with a message holding @p want. */
static void check_corrupt(const uint8_t *img, size_t n, int good, const char *want)
{
    struct flog_reader r;
    struct flog_record rec;
    char err[FLOG_ERR_LEN];
    CHECK_INT_EQ(flog_reader_init(&r, img, n, err, sizeof err), FLOG_OK);
    for (int i = 0; i < good; i++)
        CHECK_INT_EQ(flog_reader_next(&r, &rec, err, sizeof err), 1);
    CHECK_INT_EQ(flog_reader_next(&r, &rec, err, sizeof err), FLOG_ECORRUPT);
    CHECK_STR_HAS(err, want);
}

/* A frame queued for several receivers (one update reflected to N subscribers) is stored once
 * and then as SENT_AGAIN records of a few bytes naming it among the recent SENT frames, which
 * the reader hands back as SENT records with the same frame (doc/log.md). A frame too large
 * for the ring is stored in full each time; a SENT_AGAIN naming no kept frame is corrupt. */
static void test_sent_again(void)
{
    char path[256], err[FLOG_ERR_LEN];
    snprintf(path, sizeof path, "%s/again.tlog", dir);
    struct flog *l = NULL;
    struct flog_info info = {"fan", fom_text, strlen(fom_text), "0.001", 1700000000000000000LL};
    CHECK_INT_EQ(flog_open(&l, path, &info, err, sizeof err), FLOG_OK);
    if (!l) return;
    struct buf a = {0}, b = {0}, big = {0}, in = {0};
    reflect_frames(&a, &b, &big, 0x5a);
    struct wire_msg m;
    wire_msg_init(&m, WIRE_TIME_REQUEST);
    m.req = 1;
    m.code = WIRE_TR_TAR;
    m.time = 20;
    frame(&in, &m);
    /* expected (kind, federate, frame) per record, as the reader must return them */
    struct {
        uint32_t fed;
        const struct buf *f;
        unsigned kind;
    } want[] = {{2, &a, FLOG_K_SENT},   {2, &b, FLOG_K_SENT},   {3, &a, FLOG_K_SENT},
                {3, &b, FLOG_K_SENT},   {1, &in, FLOG_K_RECV},  {4, &a, FLOG_K_SENT},
                {2, &big, FLOG_K_SENT}, {3, &big, FLOG_K_SENT}, {4, &b, FLOG_K_SENT},
                {5, &a, FLOG_K_SENT}};
    size_t nwant = sizeof want / sizeof want[0];
    for (size_t i = 0; i < nwant; i++)
        CHECK_INT_EQ(flog_frame(l, want[i].kind, want[i].fed, want[i].f->data, want[i].f->len),
                     FLOG_OK);
    CHECK_INT_EQ(flog_close(l, err, sizeof err), FLOG_OK);
    size_t n = 0;
    uint8_t *p = load(path, &n);
    struct flog_reader r;
    CHECK_INT_EQ(flog_reader_init(&r, p, n, err, sizeof err), FLOG_OK);
    struct flog_record rec;
    size_t got = 0, stored = 0;
    while (flog_reader_next(&r, &rec, err, sizeof err) == 1 && got < nwant) {
        CHECK_INT_EQ(rec.kind, want[got].kind);
        CHECK_INT_EQ(rec.fed, want[got].fed);
        CHECK(rec.payload_len == want[got].f->len &&
                  memcmp(rec.payload, want[got].f->data, rec.payload_len) == 0,
              "record %zu: the frame differs from the one written", got + 1);
        uint64_t body = get_varint_at(p + rec.offset);
        if (body > 8) stored++; /* a SENT_AGAIN body is 4 bytes: kind and three varints */
        got++;
    }
    CHECK_INT_EQ(got, nwant);
    /* stored in full: a and b to 2; in (a RECV); big to 2 and again to 3 (too large for the
     * ring). Repeats, interleaved as deliveries at grants are: a and b to 3, a to 4, b to 4,
     * a to 5. */
    CHECK_INT_EQ(stored, 5);

    /* hand-made corrupt records after a valid header */
    static uint8_t img[4096];
    uint32_t hl = r.hdr.header_len;
    memcpy(img, p, hl);
    size_t m1 = seal_block(img, hl, add_record(img, hl + 8, FLOG_K_SENT_AGAIN, NULL, 0));
    check_corrupt(img, m1, 0, "SENT_AGAIN names no earlier frame (0 kept");
    size_t m2 = add_record(img, hl + 8, FLOG_K_SENT, a.data, a.len > 40 ? 40 : a.len);
    uint8_t too_far = 2; /* only one frame is kept */
    m2 = seal_block(img, hl, add_record(img, m2, FLOG_K_SENT_AGAIN, &too_far, 1));
    check_corrupt(img, m2, 1, "SENT_AGAIN names no earlier frame (1 kept");
    free(p);
    buf_fini(&a);
    buf_fini(&b);
    buf_fini(&big);
    buf_fini(&in);
}

/* A delivery and the frame sent for it are one DELIVERED record, the fan-out of one
 * time-stamped message a DELIVERED_AGAIN of a few bytes naming the first; the reader returns
 * a DECISION and a SENT for each, exactly as flog_decision + flog_frame would have written
 * them. Checked: fields and frames back, the token picks the repeat but fields and bytes must
 * match too, large frames and uncoded rules are stored in full, record counts, corrupt forms. */
static void test_delivered(void)
{
    char path[256], err[FLOG_ERR_LEN];
    struct flog *l = open_test_log("delivered.tlog", "dlv", 1700000000000000000LL, path);
    if (!l) return;
    flog_set_clock(l, still_clock, NULL); /* stored sizes below count a 1-byte wall delta */
    struct buf a = {0}, b = {0}, big = {0};
    reflect_frames(&a, &b, &big, 0x33);
    struct want {
        uint32_t to;
        int64_t time;
        uint32_t sender;
        uint64_t seq, token;
        delivery_rule rule; /* DELIVERY_NONE: a reason text without a code */
        const struct buf *f;
        int stored; /* 1: expect the record stored in full (not a _AGAIN) */
    } w[] = {
        {2, 20, 1, 7, 500, DELIVERY_TAR, &a, 1},
        {3, 20, 1, 7, 500, DELIVERY_TAR, &a, 0},           /* same message, same bytes */
        {2, 20, 4, 9, 600, DELIVERY_TARA, &b, 1},          /* another message */
        {4, 20, 1, 7, 500, DELIVERY_TARA, &a, 0},          /* back to the first: named */
        {5, 20, 1, 8, 500, DELIVERY_TAR, &a, 1},           /* token reused, another seq */
        {6, 20, 1, 8, 500, DELIVERY_TAR, &b, 1},           /* same message, other bytes */
        {2, -3, 2, 1, 700, DELIVERY_RO_RECEIVER, &big, 1}, /* too large: */
        {3, -3, 2, 1, 700, DELIVERY_RO_RECEIVER, &big, 1}, /* in full again */
        {4, 20, 1, 7, 500, DELIVERY_NONE, &a, 1},          /* no code: a DECISION and a SENT */
    };
    size_t nw = sizeof w / sizeof w[0];
    for (size_t i = 0; i < nw; i++) {
        tm_decision d = {.kind = TM_D_DELIVER,
                         .fed = w[i].to,
                         .time = w[i].time,
                         .tso = i % 2 == 0,
                         .sender = w[i].sender,
                         .seq = w[i].seq,
                         .token = w[i].token,
                         .reason = w[i].rule ? "" : "TSO message ts 20 from A: a new reason",
                         .rule = w[i].rule};
        CHECK_INT_EQ(flog_delivered(l, &d, w[i].f->data, w[i].f->len), FLOG_OK);
    }
    tm_decision g = {.kind = TM_D_GRANT, .fed = 2, .time = 20, .reason = ""};
    CHECK_INT_EQ(flog_delivered(l, &g, a.data, a.len), FLOG_EUSAGE);
    CHECK_INT_EQ(flog_delivered(NULL, &g, a.data, a.len), FLOG_STOPPED);
    EXPECT(flog_records(l) == 2 * nw);
    CHECK_INT_EQ(flog_close(l, err, sizeof err), FLOG_OK);

    size_t n = 0;
    uint8_t *p = load(path, &n);
    struct flog_reader r;
    struct flog_record rec;
    CHECK_INT_EQ(flog_reader_init(&r, p, n, err, sizeof err), FLOG_OK);
    size_t blk = r.off;
    for (size_t i = 0; i < nw; i++) {
        CHECK_INT_EQ(flog_reader_next(&r, &rec, err, sizeof err), 1);
        CHECK_INT_EQ(rec.kind, FLOG_K_DECISION);
        CHECK_INT_EQ(rec.index, 2 * i + 1);
        CHECK(rec.fed == w[i].to && rec.dec.kind == TM_D_DELIVER && rec.dec.time == w[i].time &&
                  rec.dec.tso == (i % 2 == 0) && rec.dec.sender == w[i].sender &&
                  rec.dec.seq == w[i].seq && rec.dec.token == w[i].token,
              "delivery %zu: fields differ", i);
        const char *why =
            w[i].rule ? delivery_rule_text(w[i].rule) : "TSO message ts 20 from A: a new reason";
        CHECK(rec.dec.reason_len == strlen(why) && memcmp(rec.dec.reason, why, strlen(why)) == 0,
              "delivery %zu: reason %.*s", i, (int)rec.dec.reason_len, rec.dec.reason);
        uint64_t body = get_varint_at(p + rec.offset);
        CHECK(w[i].stored ? body > 20 : body <= 6, "delivery %zu: stored body of %llu bytes", i,
              (unsigned long long)body);
        uint64_t off = rec.offset;
        int64_t wall = rec.wall_ns;
        CHECK_INT_EQ(flog_reader_next(&r, &rec, err, sizeof err), 1);
        CHECK_INT_EQ(rec.kind, FLOG_K_SENT);
        CHECK_INT_EQ(rec.index, 2 * i + 2);
        CHECK(rec.fed == w[i].to && rec.payload_len == w[i].f->len &&
                  memcmp(rec.payload, w[i].f->data, rec.payload_len) == 0,
              "delivery %zu: the frame differs", i);
        EXPECT(w[i].rule ? rec.offset == off && rec.wall_ns == wall : rec.offset > off);
    }
    CHECK_INT_EQ(flog_reader_next(&r, &rec, err, sizeof err), 0);

    /* hand-made corrupt records */
    static uint8_t img[4096];
    uint32_t hl = r.hdr.header_len;
    memcpy(img, p, hl);
    uint8_t again[2] = {1 << 1 | 1, 1}; /* TAR, TSO, the newest frame */
    /* a DELIVERED_AGAIN naming a frame a SENT stored (no message fields) */
    size_t e = add_record(img, hl + 8, FLOG_K_SENT, a.data, a.len > 40 ? 40 : a.len);
    e = seal_block(img, hl, add_record(img, e, FLOG_K_DELIVERED_AGAIN, again, 2));
    check_corrupt(img, e, 1,
                  "DELIVERED_AGAIN pair at payload byte 0 names frame 1 back, which no DELIVERED "
                  "stored");
    /* ... naming nothing */
    e = seal_block(img, hl, add_record(img, hl + 8, FLOG_K_DELIVERED_AGAIN, again, 2));
    check_corrupt(img, e, 0,
                  "DELIVERED_AGAIN pair at payload byte 0 names no earlier frame (0 kept");
    /* a DELIVERED without a reason code, or with a varint cut by its end, or empty */
    uint8_t nocode[5] = {0 << 1 | 1, 40, 1, 7, 9};
    e = seal_block(img, hl, add_record(img, hl + 8, FLOG_K_DELIVERED, nocode, 5));
    check_corrupt(img, e, 0, "DELIVERED payload: reason code 0 with decision kind 2");
    nocode[0] = 2 << 1;
    nocode[4] = 0x80;
    e = seal_block(img, hl, add_record(img, hl + 8, FLOG_K_DELIVERED, nocode, 5));
    check_corrupt(img, e, 0, "DELIVERED payload: a varint at payload byte 5");
    e = seal_block(img, hl, add_record(img, hl + 8, FLOG_K_DELIVERED, NULL, 0));
    check_corrupt(img, e, 0, "DELIVERED payload is empty");
    /* a coded DECISION with text after its fields */
    uint8_t coded[10] = {TM_D_DELIVER, 0, 1, 1, 40, 1, 7, 9, 0, 'x'};
    e = seal_block(img, hl, add_record(img, hl + 8, FLOG_K_DECISION, coded, 10));
    check_corrupt(img, e, 0, "1 bytes of text after reason code 1");
    /* a cut inside the stored DELIVERED: the block is short, the record says where */
    CHECK_INT_EQ(flog_reader_init(&r, p, blk + 8 + 20, err, sizeof err), FLOG_OK);
    CHECK_INT_EQ(flog_reader_next(&r, &rec, err, sizeof err), FLOG_ETRUNC);
    CHECK_STR_HAS(err, "inside record 1 (which starts at");
    free(p);
    buf_fini(&a);
    buf_fini(&b);
    buf_fini(&big);
}

/* flog_hold_stamp: the records until the matching release share the stamp read at the hold
 * (holds nest); after it, each record reads the clock again. */
static void test_hold_stamp(void)
{
    char path[256], err[FLOG_ERR_LEN];
    struct flog *l = open_test_log("hold.tlog", "hold", 1700000000000000000LL, path);
    if (!l) return;
    flog_set_clock(l, tick_clock, NULL); /* +1 ms per reading */
    CHECK_INT_EQ(flog_note(l, 0, "a"), FLOG_OK);
    flog_hold_stamp(l);
    CHECK_INT_EQ(flog_note(l, 0, "b"), FLOG_OK);
    flog_hold_stamp(l);
    CHECK_INT_EQ(flog_note(l, 0, "c"), FLOG_OK);
    flog_release_stamp(l);
    CHECK_INT_EQ(flog_note(l, 0, "d"), FLOG_OK);
    flog_release_stamp(l);
    flog_release_stamp(l); /* one too many: nothing */
    CHECK_INT_EQ(flog_note(l, 0, "e"), FLOG_OK);
    flog_hold_stamp(NULL);
    flog_release_stamp(NULL);
    CHECK_INT_EQ(flog_close(l, err, sizeof err), FLOG_OK);
    size_t n = 0;
    uint8_t *p = load(path, &n);
    struct flog_reader r;
    struct flog_record rec;
    CHECK_INT_EQ(flog_reader_init(&r, p, n, err, sizeof err), FLOG_OK);
    int64_t w[5] = {0};
    for (int i = 0; i < 5; i++) {
        CHECK_INT_EQ(flog_reader_next(&r, &rec, err, sizeof err), 1);
        w[i] = rec.wall_ns;
    }
    EXPECT(w[1] == w[0] + 1000000 && w[2] == w[1] && w[3] == w[1] && w[4] == w[3] + 1000000);
    free(p);
}

/* Deliveries of recent messages to one receiver under one held stamp (its deliveries at a
 * grant) are one DELIVERED_AGAIN record of (flags, distance) pairs while its body stays below
 * 128 bytes; another receiver, another stamp, a flush, or no hold start a new record. The
 * reader returns a DECISION and a SENT per pair, all at the record's offset. */
static void test_runs(void)
{
    char path[256], err[FLOG_ERR_LEN];
    struct flog *l = open_test_log("runs.tlog", "runs", 1700000000000000000LL, path);
    if (!l) return;
    flog_set_clock(l, tick_clock, NULL);
    enum { NMSG = 4, NDLV = 200 };
    struct buf f[NMSG] = {{0}};
    tm_decision d[NMSG];
    for (int i = 0; i < NMSG; i++) {
        struct wire_msg m;
        wire_msg_init(&m, WIRE_TIME_GRANT);
        m.time = 100 + i;
        frame(&f[i], &m);
        d[i] = (tm_decision){.kind = TM_D_DELIVER,
                             .fed = 1,
                             .time = 100 + i,
                             .tso = i % 2,
                             .sender = 9,
                             .seq = (uint64_t)i + 1,
                             .token = 1000 + (uint64_t)i,
                             .reason = "",
                             .rule = i % 2 ? DELIVERY_TAR : DELIVERY_TARA};
    }
    /* plan: receiver and stamp of every delivery; a new stamp, a flush or no hold where said */
    struct step {
        uint32_t to;
        int msg;
        int brk; /* 0 none; 1 new stamp before it; 2 flush before it; 3 no hold */
    } plan[NDLV];
    int np = 0;
    for (int i = 0; i < NMSG; i++) /* stored in full: one DELIVERED each, to receiver 1 */
        plan[np++] = (struct step){1, i, 0};
    for (int i = 0; i < 3; i++) /* to 2: one record of three pairs */
        plan[np++] = (struct step){2, i, 0};
    plan[np++] = (struct step){3, 0, 0}; /* to 3: a new record */
    plan[np++] = (struct step){3, 1, 1}; /* a new stamp: a new record */
    plan[np++] = (struct step){3, 2, 2}; /* after a flush: a new record */
    plan[np++] = (struct step){3, 3, 3}; /* without a hold: a record each */
    plan[np++] = (struct step){3, 0, 3};
    for (; np < NDLV; np++) /* to 4: far more pairs than one record holds */
        plan[np] = (struct step){4, np % NMSG, 0};
    int held = 0;
    for (int i = 0; i < np; i++) {
        if (plan[i].brk == 1 || plan[i].brk == 3) {
            if (held) flog_release_stamp(l);
            held = 0;
        }
        if (plan[i].brk == 2) CHECK_INT_EQ(flog_flush(l), FLOG_OK);
        if (plan[i].brk != 3 && !held) {
            flog_hold_stamp(l);
            held = 1;
        }
        tm_decision x = d[plan[i].msg];
        x.fed = plan[i].to;
        CHECK_INT_EQ(flog_delivered(l, &x, f[plan[i].msg].data, f[plan[i].msg].len), FLOG_OK);
    }
    if (held) flog_release_stamp(l);
    EXPECT(flog_records(l) == 2u * (uint64_t)np);
    CHECK_INT_EQ(flog_close(l, err, sizeof err), FLOG_OK);

    size_t n = 0;
    uint8_t *p = load(path, &n);
    struct flog_reader r;
    struct flog_record rec;
    CHECK_INT_EQ(flog_reader_init(&r, p, n, err, sizeof err), FLOG_OK);
    uint64_t offs[NDLV];
    int bad = 0;
    for (int i = 0; i < np; i++) {
        const tm_decision *w = &d[plan[i].msg];
        CHECK_INT_EQ(flog_reader_next(&r, &rec, err, sizeof err), 1);
        if (rec.kind != FLOG_K_DECISION || rec.fed != plan[i].to || rec.dec.token != w->token ||
            rec.dec.seq != w->seq || rec.dec.time != w->time || rec.dec.tso != w->tso ||
            rec.dec.sender != 9 || rec.dec.why != (unsigned)w->rule ||
            rec.index != 2u * (uint64_t)i + 1)
            bad++;
        offs[i] = rec.offset;
        CHECK_INT_EQ(flog_reader_next(&r, &rec, err, sizeof err), 1);
        const struct buf *fw = &f[plan[i].msg];
        if (rec.kind != FLOG_K_SENT || rec.fed != plan[i].to || rec.offset != offs[i] ||
            rec.payload_len != fw->len || memcmp(rec.payload, fw->data, fw->len) != 0)
            bad++;
    }
    CHECK_INT_EQ(bad, 0);
    CHECK_INT_EQ(flog_reader_next(&r, &rec, err, sizeof err), 0);
    /* the records as stored: 4 in full, then one for the three to 2 */
    for (int i = 1; i < 4; i++)
        EXPECT(offs[i] != offs[i - 1]);
    EXPECT(offs[4] != offs[3] && offs[5] == offs[4] && offs[6] == offs[4]);
    for (int i = 7; i < 12; i++) /* 3 gets five records: new receiver, stamp, flush, no hold */
        EXPECT(offs[i] != offs[i - 1]);
    int records4 = 1, longest = 0, run = 1;
    for (int i = 13; i < np; i++) {
        if (offs[i] != offs[i - 1]) {
            records4++;
            run = 0;
        }
        run++;
        if (run > longest) longest = run;
    }
    /* a pair is 2 bytes and the body stays below 128: 62 pairs a record (3 header bytes) */
    CHECK_INT_EQ(longest, 62);
    CHECK_INT_EQ(records4, (np - 12 + 61) / 62);
    free(p);
    for (int i = 0; i < NMSG; i++)
        buf_fini(&f[i]);
}

/* A DELIVERED_AGAIN with a bad pair anywhere is refused whole, before any of its records is
 * returned; a GRANTED record is checked field by field and refused in a version 3 log. */
static void test_corrupt_pairs_and_grants(void)
{
    char path[256], err[FLOG_ERR_LEN];
    struct buf fb = {0};
    snprintf(path, sizeof path, "%s/pairs.tlog", dir);
    write_sample(path, &fb);
    buf_fini(&fb);
    size_t n = 0;
    uint8_t *p = load(path, &n);
    struct flog_reader r;
    CHECK_INT_EQ(flog_reader_init(&r, p, n, err, sizeof err), FLOG_OK);
    static uint8_t img[4096];
    uint32_t hl = r.hdr.header_len;
    memcpy(img, p, hl);
    /* one DELIVERED stores a frame; then pairs naming it (distance 1) or beyond it */
    uint8_t dl[8] = {1 << 1 | 1, 40, 1, 7, 9, 0xAA, 0xBB, 0xCC};
    size_t base = add_record(img, hl + 8, FLOG_K_DELIVERED, dl, sizeof dl);
    uint8_t good2[4] = {3, 1, 2, 1};
    size_t e = seal_block(img, hl, add_record(img, base, FLOG_K_DELIVERED_AGAIN, good2, 4));
    CHECK_INT_EQ(flog_reader_init(&r, img, e, err, sizeof err), FLOG_OK);
    struct flog_record rec;
    int got = 0, rc;
    while ((rc = flog_reader_next(&r, &rec, err, sizeof err)) == 1)
        got++;
    CHECK_INT_EQ(rc, 0);
    CHECK_INT_EQ(got, 6); /* the DELIVERED's two, then two per pair */
    img[8] = 3;           /* the same as a version 3 log: read as it is (only GRANTED is new) */
    CHECK_INT_EQ(flog_reader_init(&r, img, e, err, sizeof err), FLOG_OK);
    for (got = 0; (rc = flog_reader_next(&r, &rec, err, sizeof err)) == 1;)
        got++;
    CHECK_INT_EQ(rc, 0);
    CHECK_INT_EQ(got, 6);
    img[8] = FLOG_VERSION;
    uint8_t far2[4] = {3, 1, 3, 2}; /* second pair: 2 back, only 1 kept */
    e = seal_block(img, hl, add_record(img, base, FLOG_K_DELIVERED_AGAIN, far2, 4));
    check_corrupt(img, e, 2,
                  "DELIVERED_AGAIN pair at payload byte 2 names no earlier frame (1 kept");
    uint8_t code0[4] = {3, 1, 0, 1}; /* second pair: reason code 0 */
    e = seal_block(img, hl, add_record(img, base, FLOG_K_DELIVERED_AGAIN, code0, 4));
    check_corrupt(img, e, 2, "DELIVERED_AGAIN payload byte 2: reason code 0");
    uint8_t cut3[3] = {3, 1, 3}; /* second pair without its distance */
    e = seal_block(img, hl, add_record(img, base, FLOG_K_DELIVERED_AGAIN, cut3, 3));
    check_corrupt(img, e, 2, "DELIVERED_AGAIN pair at payload byte 2 names no earlier frame");
    e = seal_block(img, hl, add_record(img, base, FLOG_K_DELIVERED_AGAIN, NULL, 0));
    check_corrupt(img, e, 2, "DELIVERED_AGAIN payload is empty");

    /* GRANTED: u8 req, u8 row | queued << 3 | strict << 4, varints time, asked, galt, holder
     * (then prev for FQR) */
    uint8_t g[8] = {TM_REQ_TAR, TM_GROW_TAR | 16, 20, 0, 4, 2};
    e = seal_block(img, hl, add_record(img, hl + 8, FLOG_K_GRANTED, g, 6));
    CHECK_INT_EQ(flog_reader_init(&r, img, e, err, sizeof err), FLOG_OK);
    CHECK_INT_EQ(flog_reader_next(&r, &rec, err, sizeof err), 1);
    EXPECT(rec.kind == FLOG_K_DECISION && rec.dec.kind == TM_D_GRANT && rec.dec.time == 10 &&
           rec.dec.grant.asked == 10 && rec.dec.grant.galt.t == 12 && rec.dec.grant.galt.strict &&
           rec.dec.grant.holder == 2 && rec.dec.grant.prev == TM_NO_TIME);
    char why[128];
    flog_grant_text(why, sizeof why, &rec.dec, "A", "B");
    CHECK_STR_EQ(why, "TAR(10): GALT (12, strict) > 10, held by B");
    g[1] = 5; /* no row 5 */
    e = seal_block(img, hl, add_record(img, hl + 8, FLOG_K_GRANTED, g, 6));
    check_corrupt(img, e, 0, "GRANTED payload: request 1, row 5, flags 0x05");
    g[1] = TM_GROW_TAR | 32; /* an unknown flag */
    e = seal_block(img, hl, add_record(img, hl + 8, FLOG_K_GRANTED, g, 6));
    check_corrupt(img, e, 0, "flags 0x22");
    g[1] = TM_GROW_TAR;
    g[0] = 6; /* no request 6 */
    e = seal_block(img, hl, add_record(img, hl + 8, FLOG_K_GRANTED, g, 6));
    check_corrupt(img, e, 0, "GRANTED payload: request 6");
    g[0] = TM_REQ_TAR;
    e = seal_block(img, hl, add_record(img, hl + 8, FLOG_K_GRANTED, g, 7)); /* a byte more */
    check_corrupt(img, e, 0, "or 1 bytes after the fields are impossible");
    g[1] = TM_GROW_FQR; /* FQR needs prev, absent */
    e = seal_block(img, hl, add_record(img, hl + 8, FLOG_K_GRANTED, g, 6));
    check_corrupt(img, e, 0, "GRANTED payload: a field at payload byte 6");
    g[1] = TM_GROW_TAR;
    g[3] = 0x80; /* asked: a varint cut by the end */
    e = seal_block(img, hl, add_record(img, hl + 8, FLOG_K_GRANTED, g, 4));
    check_corrupt(img, e, 0, "GRANTED payload: a field at payload byte 4");
    g[3] = 0;
    e = seal_block(img, hl, add_record(img, hl + 8, FLOG_K_GRANTED, g, 6));
    img[8] = 3; /* the same record in a version 3 log (the version is not checksummed) */
    check_corrupt(img, e, 0, "GRANTED record in a version 3 log");
    free(p);
}

/* The engine's own reason texts (reasons on) against the texts words from the GRANTED
 * records of the same grants: every field the wording needs survives the log, for every
 * row, over a random federation of three regulating and constrained federates and one that
 * is neither. */
struct engine_log {
    struct flog *l;
    char (*why)[256];
    int n, cap;
    int rows[5];
};

static void engine_sink(void *ctx, const tm_decision *d)
{
    struct engine_log *e = ctx;
    if (d->kind != TM_D_GRANT) return;
    CHECK_INT_EQ(flog_decision(e->l, d), FLOG_OK);
    if (e->n < e->cap) snprintf(e->why[e->n++], sizeof e->why[0], "%s", d->reason);
    if (d->grant && d->grant->row <= TM_GROW_FQR) e->rows[d->grant->row]++;
}

static void test_grants_from_engine(void)
{
    char path[256], err[FLOG_ERR_LEN];
    struct engine_log e = {.cap = 4000};
    e.why = calloc((size_t)e.cap, sizeof *e.why);
    e.l = open_test_log("engine.tlog", "engine", 1700000000000000000LL, path);
    tm_state *st = NULL;
    CHECK_INT_EQ(tm_new(&st, engine_sink, &e, err, sizeof err), TM_OK);
    if (!e.l || !st || !e.why) return;
    static const char *const names[] = {"", "ann", "bob", "cy", "dee"};
    for (tm_fed h = 1; h <= 4; h++)
        CHECK_INT_EQ(tm_join(st, h, names[h], err, sizeof err), TM_OK);
    for (tm_fed h = 1; h <= 3; h++) {
        CHECK_INT_EQ(tm_enable_regulation(st, h, h - 1, err, sizeof err), TM_OK);
        CHECK_INT_EQ(tm_enable_constrained(st, h, err, sizeof err), TM_OK);
    }
    unsigned seed = 12345;
    uint64_t token = 1;
    for (int i = 0; i < 20000 && e.n < e.cap; i++) {
        seed = seed * 1103515245u + 12345u;
        unsigned x = seed >> 8;
        tm_fed h = 1 + x % 4;
        tm_status s;
        if (tm_query(st, h, &s, err, sizeof err) != TM_OK) continue;
        if (x / 4 % 3 == 0 && s.regulating) { /* a time-stamped message to everyone else */
            tm_fed to[3];
            size_t k = 0;
            for (tm_fed o = 1; o <= 4; o++)
                if (o != h) to[k++] = o;
            tm_time ts = tm_time_add(s.bound.t, (x >> 4) % 3 + (s.bound.strict ? 1 : 0));
            tm_send(st, h, ts, to, k, token++, err, sizeof err);
        } else if (s.req == TM_REQ_NONE) {
            tm_req k = (tm_req)(1 + (x >> 6) % 5);
            tm_request(st, h, k, s.time + (x >> 9) % 4, err, sizeof err);
        }
    }
    tm_free(st);
    CHECK_INT_EQ(flog_close(e.l, err, sizeof err), FLOG_OK);
    for (int row = TM_GROW_AT_ONCE; row <= TM_GROW_FQR; row++)
        CHECK(e.rows[row] > 10, "row %d: %d grants", row, e.rows[row]);

    size_t n = 0;
    uint8_t *p = load(path, &n);
    struct flog_reader r;
    struct flog_record rec;
    CHECK_INT_EQ(flog_reader_init(&r, p, n, err, sizeof err), FLOG_OK);
    int i = 0, bad = 0;
    while (flog_reader_next(&r, &rec, err, sizeof err) == 1) {
        char again[256];
        flog_grant_text(again, sizeof again, &rec.dec, names[rec.fed],
                        rec.dec.grant.holder ? names[rec.dec.grant.holder] : NULL);
        if (i >= e.n || rec.dec.grant.row == 0 || strcmp(again, e.why[i]) != 0) {
            if (bad++ < 3)
                fprintf(stderr, "grant %d: the engine said \"%s\", the log words \"%s\"\n", i,
                        i < e.n ? e.why[i] : "(none)", again);
        }
        i++;
    }
    CHECK_INT_EQ(bad, 0);
    CHECK_INT_EQ(i, e.n);
    free(p);
    free(e.why);
}

/* The annotated example of doc/log.md §1.3, read from the document itself: its bytes are a
 * log this reader takes, with the records the text says (so the document stays true). */
static void test_doc_example(void)
{
    FILE *f = fopen("doc/log.md", "r");
    CHECK(f != NULL, "doc/log.md opens (the tests run from the repository root)");
    if (!f) return;
    static uint8_t img[1024];
    size_t n = 0;
    int in = 0, bad = 0;
    char line[512];
    while (fgets(line, sizeof line, f)) {
        if (strncmp(line, "0000  54 45 4d 50", 17) == 0) in = 1; /* "TEMPO": the example */
        if (!in) continue;
        if (strncmp(line, "```", 3) == 0) break; /* the end of the example's block */
        unsigned off;
        int used = 0;
        if (sscanf(line, "%4x  %n", &off, &used) != 1 || used != 6) continue; /* a note line */
        if (off != n) bad++;
        /* hex pairs separated by one space; two spaces end them (the annotation) */
        for (const char *c = line + 6; n < sizeof img; c += 3) {
            unsigned v;
            if (sscanf(c, "%2x", &v) != 1 || c[2] == '\0' || c[-1] != ' ') break;
            img[n++] = (uint8_t)v;
            if (c[2] != ' ' || c[3] == ' ') break;
        }
    }
    fclose(f);
    CHECK_INT_EQ(bad, 0);
    CHECK_INT_EQ(n, 0x99);
    struct flog_reader r;
    struct flog_record rec;
    char err[FLOG_ERR_LEN];
    CHECK_INT_EQ(flog_reader_init(&r, img, n, err, sizeof err), FLOG_OK);
    static const uint8_t kinds[] = {FLOG_K_JOINED,  FLOG_K_SENT,     FLOG_K_SENT, FLOG_K_DECISION,
                                    FLOG_K_TM_SEND, FLOG_K_DECISION, FLOG_K_SENT, FLOG_K_DECISION,
                                    FLOG_K_SENT,    FLOG_K_DECISION};
    int count = 0, rc;
    while ((rc = flog_reader_next(&r, &rec, err, sizeof err)) == 1 && count < 10) {
        CHECK_INT_EQ(rec.kind, kinds[count]);
        if (count == 5 || count == 6) CHECK_INT_EQ(rec.offset, 0x75);
        if (count == 9) {
            char why[128];
            flog_grant_text(why, sizeof why, &rec.dec, "B", "A");
            CHECK_STR_EQ(why, "TAR(10): GALT (12, strict) > 10, held by A");
            CHECK_INT_EQ(rec.offset, 0x8f);
        }
        count++;
    }
    CHECK_INT_EQ(rc, 0);
    CHECK_INT_EQ(count, 10);
}

int main(void)
{
    if (!mkdtemp(dir)) {
        perror("mkdtemp");
        return 1;
    }
    test_round_trip();
    test_every_cut();
    test_version_magic_crc();
    test_open_errors_and_dir();
    test_write_failure();
    test_misc();
    test_deliver_why();
    test_varint_header();
    test_sent_again();
    test_delivered();
    test_hold_stamp();
    test_runs();
    test_corrupt_pairs_and_grants();
    test_grants_from_engine();
    test_doc_example();
    char cmd[512];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
    if (system(cmd) != 0) fprintf(stderr, "could not remove %s\n", dir);
    return check_summary();
}
