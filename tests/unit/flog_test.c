/* Unit tests of the federation log writer and reader (rti/flog.h, doc/log.md, DESIGN.md §9):
 * round trip of every record kind with real wire frames, the header, cuts at every byte
 * offset, an unknown version, checksums, a write failure (file size limit) that stops logging
 * once and cleanly, CRC-32C against a reference, and the version 2 encodings (varint record
 * header, coded DELIVER decisions) with their corrupt forms. Files go to a private temporary
 * directory. */
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <unistd.h>

#include "rti/flog.h"
#include "rti/wire.h"
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

/* Encode a message into b (cleared first). */
static void frame(struct buf *b, const struct wire_msg *m)
{
    char err[256];
    buf_clear(b);
    int rc = wire_encode(b, m, 0, err, sizeof err);
    if (rc != WIRE_OK) fprintf(stderr, "wire_encode: %s\n", err);
    CHECK_INT_EQ(rc, WIRE_OK);
}

static const char *fom_text = "<fom name=\"t\"><time resolution=\"0.001\"/></fom>";

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
    CHECK_INT_EQ(flog_lost(l, 1, "connection reset"), FLOG_OK);
    CHECK_INT_EQ(flog_note(l, 0, "closing"), FLOG_OK);
    CHECK_INT_EQ(flog_flush(l), FLOG_OK);
    EXPECT(flog_records(l) == 7);
    CHECK_INT_EQ(flog_close(l, err, sizeof err), FLOG_OK);
    return 7;
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
    static const uint8_t kinds[] = {FLOG_K_JOINED, FLOG_K_RECV, FLOG_K_TM_SEND, FLOG_K_DECISION,
                                    FLOG_K_SENT,   FLOG_K_LOST, FLOG_K_NOTE};
    int count = 0;
    int64_t prev_wall = 0;
    while (flog_reader_next(&r, &rec, err, sizeof err) == 1) {
        CHECK_INT_EQ(rec.kind, kinds[count]);
        EXPECT(rec.seq == (uint64_t)count + 1 && rec.index == (uint64_t)count + 1);
        EXPECT(rec.wall_ns == prev_wall + 1000000 || count == 0);
        prev_wall = rec.wall_ns;
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
        if (rec.kind == FLOG_K_DECISION) {
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
    /* Record boundaries, from a full read. */
    size_t bounds[16];
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
        int at_boundary = bounds[expect] == cut;
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
    CHECK_STR_HAS(err, "knows version 2");
    p[8] = 1; /* version 1 (before DELIVER reason codes) is refused as a version too */
    CHECK_INT_EQ(flog_reader_init(&r, p, n, err, sizeof err), FLOG_EVERSION);
    CHECK_STR_HAS(err, "log format version 1 is not supported (this reader knows version 2)");
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
    size_t rec2 = 0;
    CHECK_INT_EQ(flog_reader_next(&r, &rec, err, sizeof err), 1);
    rec2 = r.off;
    p[rec2 + FLOG_REC_PREFIX + 2] ^= 0x40; /* record 2's stamp difference */
    CHECK_INT_EQ(flog_reader_next(&r, &rec, err, sizeof err), FLOG_ECRC);
    CHECK_STR_HAS(err, "record 2 at byte offset");
    CHECK_INT_EQ(flog_reader_next(&r, &rec, err, sizeof err), FLOG_ECRC); /* does not advance */
    p[rec2 + FLOG_REC_PREFIX + 2] ^= 0x40;
    /* An impossible length is corruption, not a cut. */
    uint8_t save = p[rec2 + 3];
    p[rec2 + 3] = 0x7f;
    CHECK_INT_EQ(flog_reader_next(&r, &rec, err, sizeof err), FLOG_ECORRUPT);
    CHECK_STR_HAS(err, "impossible");
    p[rec2 + 3] = save;
    CHECK_INT_EQ(flog_reader_next(&r, &rec, err, sizeof err), 1);
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
    snprintf(path, sizeof path, "%s/limited.tlog", dir);
    struct flog *l = NULL;
    struct flog_info info = {"big", NULL, 0, NULL, 0};
    CHECK_INT_EQ(flog_open(&l, path, &info, err, sizeof err), FLOG_OK);
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
    CHECK_INT_EQ(flog_kind_parse("tm_send"), FLOG_K_TM_SEND);
    CHECK_INT_EQ(flog_kind_parse("nope"), 0);
    CHECK_STR_EQ(flog_strerror(FLOG_ETRUNC), "FLOG_ETRUNC");
    CHECK_STR_EQ(flog_strerror(-99), "FLOG_E?");
}

/* Re-sign the body of the record at @p off (after a test changed it). */
static void resign_record(uint8_t *p, size_t off)
{
    uint32_t blen = (uint32_t)p[off] | (uint32_t)p[off + 1] << 8 | (uint32_t)p[off + 2] << 16 |
                    (uint32_t)p[off + 3] << 24;
    uint32_t c = flog_crc32c(0, p + off + 8, blen);
    for (int i = 0; i < 4; i++)
        p[off + 4 + i] = (uint8_t)(c >> (8 * i));
}

/* Version 2: a DELIVER's reason is written as a one-byte code when the engine's text ends
 * with a known delivery reason, in full otherwise; the reader gives the text back. */
static void test_deliver_why(void)
{
    char path[256], err[FLOG_ERR_LEN], text[128];
    snprintf(path, sizeof path, "%s/why.tlog", dir);
    struct flog *l = NULL;
    struct flog_info info = {"why", NULL, 0, NULL, 1};
    CHECK_INT_EQ(flog_open(&l, path, &info, err, sizeof err), FLOG_OK);
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
    /* a rule the table lacks while delivery reasons are off: its text is kept */
    tm_decision nr = {.kind = TM_D_DELIVER, .fed = 2, .time = 3, .reason = "", .rule = "new rule"};
    CHECK_INT_EQ(flog_decision(l, &nr), FLOG_OK);
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
    size_t first = r.off;
    for (unsigned c = 1; c < FLOG_WHY_COUNT; c++) {
        CHECK_INT_EQ(flog_reader_next(&r, &rec, err, sizeof err), 1);
        /* kind, req, tso, why, then time 10 (zigzag 20), sender, seq, token: 1 byte each */
        CHECK_INT_EQ(rec.payload_len, 8);
        CHECK_INT_EQ(rec.dec.kind, TM_D_DELIVER);
        CHECK_INT_EQ(rec.dec.why, c);
        EXPECT(rec.dec.time == 10 && rec.dec.tso == 1 && rec.dec.sender == 1 && rec.dec.seq == c &&
               rec.dec.token == 100 + c && rec.fed == 2);
        EXPECT(rec.dec.reason_len == strlen(flog_why_text(c)) &&
               memcmp(rec.dec.reason, flog_why_text(c), rec.dec.reason_len) == 0);
    }
    for (int i = 0; i < 5; i++) {
        const char *want = i < 3 ? plain[i] : i == 3 ? nr.rule : g.reason;
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
    resign_record(p, first);
    CHECK_INT_EQ(flog_reader_init(&r, p, n, err, sizeof err), FLOG_OK);
    CHECK_INT_EQ(flog_reader_next(&r, &rec, err, sizeof err), FLOG_ECORRUPT);
    CHECK_STR_HAS(err, "reason code 1 with decision kind 1");
    q[0] = TM_D_DELIVER;
    q[3] = FLOG_WHY_COUNT;
    resign_record(p, first);
    CHECK_INT_EQ(flog_reader_init(&r, p, n, err, sizeof err), FLOG_OK);
    CHECK_INT_EQ(flog_reader_next(&r, &rec, err, sizeof err), FLOG_ECORRUPT);
    CHECK_STR_HAS(err, "codes are 1..8");
    q[3] = 1;
    q[7] = 0x80; /* the token varint now runs off the end of the payload */
    resign_record(p, first);
    CHECK_INT_EQ(flog_reader_init(&r, p, n, err, sizeof err), FLOG_OK);
    CHECK_INT_EQ(flog_reader_next(&r, &rec, err, sizeof err), FLOG_ECORRUPT);
    CHECK_STR_HAS(err, "coded DELIVER payload");
    free(p);

    /* Every text of the table is one rti/tm.c really passes to deliver() (a text there that
     * is not in the table is only recorded in full, from the rule if reasons are off: no
     * loss, just bytes). */
    uint8_t *src = NULL;
    size_t sn = 0;
    CHECK_INT_EQ(flog_load_file("rti/tm.c", &src, &sn, err, sizeof err), FLOG_OK);
    if (src) {
        char *s = malloc(sn + 1);
        memcpy(s, src, sn);
        s[sn] = '\0';
        for (unsigned c = 1; c < FLOG_WHY_COUNT; c++) {
            snprintf(text, sizeof text, "\"%s\"", flog_why_text(c));
            CHECK(strstr(s, text) != NULL, "rti/tm.c has no %s", text);
        }
        free(s);
        free(src);
    }
}

/* Stamps for test_varint_header, one per record, in this order. */
static const int64_t stamps[] = {1000, 1000, 995, 1000 + 10000000000LL, INT64_MAX, INT64_MIN, 0};
static int stamp_i;
static int64_t list_clock(void *ctx)
{
    (void)ctx;
    return stamps[stamp_i++];
}

/* Version 2 record header: federate and stamp difference as varints, any values round trip
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
    size_t at[NR];
    for (int i = 0; i < NR; i++) {
        at[i] = r.off;
        CHECK_INT_EQ(flog_reader_next(&r, &rec, err, sizeof err), 1);
        CHECK(rec.wall_ns == stamps[i] && rec.fed == feds[i] && rec.seq == (uint64_t)i + 1 &&
                  rec.payload_len == 1 && rec.payload[0] == 'x',
              "record %d: wall %lld fed %u seq %llu", i + 1, (long long)rec.wall_ns, rec.fed,
              (unsigned long long)rec.seq);
    }
    CHECK_INT_EQ(flog_reader_next(&r, &rec, err, sizeof err), 0);
    /* record 2 is 8+1+1+1+1 bytes: kind, federate 127, difference 0, "x" */
    CHECK_INT_EQ((int)(at[2] - at[1]), 12);
    /* record 5 (federate UINT32_MAX: ff ff ff ff 0f) with a 33rd bit set in the federate */
    uint8_t *b = p + at[4] + FLOG_REC_PREFIX;
    CHECK_INT_EQ(b[5], 0x0f);
    b[5] = 0x1f;
    resign_record(p, at[4]);
    CHECK_INT_EQ(flog_reader_init(&r, p, n, err, sizeof err), FLOG_OK);
    int rc;
    while ((rc = flog_reader_next(&r, &rec, err, sizeof err)) == 1) {
    }
    CHECK_INT_EQ(rc, FLOG_ECORRUPT);
    CHECK_STR_HAS(err, "record 5 at byte offset");
    CHECK_STR_HAS(err, "federate varint");
    /* the same with the varint running off the end of the body: 6 continuation bytes */
    b[5] = 0xff;
    resign_record(p, at[4]);
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
    uint8_t body[64] = {(uint8_t)kind, 1, 0};
    if (plen) memcpy(body + 3, pl, plen);
    uint32_t blen = (uint32_t)(3 + plen), crc = flog_crc32c(0, body, blen);
    for (int i = 0; i < 4; i++) {
        img[n + i] = (uint8_t)(blen >> (8 * i));
        img[n + 4 + i] = (uint8_t)(crc >> (8 * i));
    }
    memcpy(img + n + FLOG_REC_PREFIX, body, blen);
    return n + FLOG_REC_PREFIX + blen;
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
    struct wire_msg m;
    wire_msg_init(&m, WIRE_REFLECT);
    m.a = 5;
    m.c = 1;
    m.time = 20;
    static uint8_t bytes[FLOG_AGAIN_MAX + 100];
    memset(bytes, 0x5a, sizeof bytes);
    struct wire_value v = {3, 8, bytes};
    m.nvalues = 1;
    m.values = &v;
    frame(&a, &m);
    m.a = 6; /* another object: another frame */
    frame(&b, &m);
    v.len = FLOG_AGAIN_MAX; /* the frame is larger than the cache */
    frame(&big, &m);
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
        uint32_t body = (uint32_t)p[rec.offset] | (uint32_t)p[rec.offset + 1] << 8 |
                        (uint32_t)p[rec.offset + 2] << 16 | (uint32_t)p[rec.offset + 3] << 24;
        if (body > 8) stored++; /* a SENT_AGAIN body is 3-4 bytes: kind and two varints */
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
    size_t m1 = add_record(img, hl, FLOG_K_SENT_AGAIN, NULL, 0);
    CHECK_INT_EQ(flog_reader_init(&r, img, m1, err, sizeof err), FLOG_OK);
    CHECK_INT_EQ(flog_reader_next(&r, &rec, err, sizeof err), FLOG_ECORRUPT);
    CHECK_STR_HAS(err, "SENT_AGAIN names no earlier SENT frame (0 kept");
    size_t m2 = add_record(img, hl, FLOG_K_SENT, a.data, a.len > 40 ? 40 : a.len);
    uint8_t too_far = 2; /* only one frame is kept */
    m2 = add_record(img, m2, FLOG_K_SENT_AGAIN, &too_far, 1);
    CHECK_INT_EQ(flog_reader_init(&r, img, m2, err, sizeof err), FLOG_OK);
    CHECK_INT_EQ(flog_reader_next(&r, &rec, err, sizeof err), 1);
    CHECK_INT_EQ(flog_reader_next(&r, &rec, err, sizeof err), FLOG_ECORRUPT);
    CHECK_STR_HAS(err, "SENT_AGAIN names no earlier SENT frame (1 kept");
    free(p);
    buf_fini(&a);
    buf_fini(&b);
    buf_fini(&big);
    buf_fini(&in);
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
    char cmd[512];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
    if (system(cmd) != 0) fprintf(stderr, "could not remove %s\n", dir);
    return check_summary();
}
