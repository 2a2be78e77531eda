/* Unit tests of the wire codec (rti/proto/wire.h, doc/protocol.md): round trip of every message
 * type, batching, every truncation, oversized and garbage frames, field overruns, trailing
 * bytes. The expected layouts below are written from doc/protocol.md, independently of the
 * table in rti/proto/wire.c, so a change to either one shows here. Read rti/proto/wire.c next. */
#include <inttypes.h>
#include <stdint.h>
#include <string.h>

#include "rti/proto/ticks.h"
#include "rti/proto/wire.h"
#include "tests/check.h"

/* Field bits of the expected layouts. */
enum { REQ = 1, CODE = 2, A = 4, B = 8, C = 16, TIME = 32, TIME2 = 64, VAL = 128, HND = 256 };

struct expect {
    unsigned type;
    const char *name;
    int dir;
    unsigned fields;
    int nstr;      /* string slots */
    uint32_t code; /* a valid code for the type (when CODE) */
};

#define C2R WIRE_DIR_C2R
#define R2C WIRE_DIR_R2C
static const struct expect catalogue[] = {
    {WIRE_HELLO, "HELLO", C2R, CODE, 2, WIRE_VERSION},
    {WIRE_HELLO_OK, "HELLO_OK", R2C, CODE, 1, WIRE_VERSION},
    {WIRE_REPLY, "REPLY", R2C, REQ | CODE | A, 1, 77},
    {WIRE_ERROR, "ERROR", R2C, REQ | CODE | A, 1, 12},
    {WIRE_CREATE_FEDERATION, "CREATE_FEDERATION", C2R, REQ, 3, 0},
    {WIRE_DESTROY_FEDERATION, "DESTROY_FEDERATION", C2R, REQ, 2, 0},
    {WIRE_JOIN, "JOIN", C2R, REQ | CODE, 4, WIRE_JOIN_CREATE | WIRE_JOIN_RESTORE},
    {WIRE_JOIN_OK, "JOIN_OK", R2C, REQ | A | B | TIME, 2, 0},
    {WIRE_RESIGN, "RESIGN", C2R, REQ | CODE, 0, WIRE_RESIGN_KEEP_OBJECTS},
    {WIRE_FEDERATE_JOINED, "FEDERATE_JOINED", R2C, A, 1, 0},
    {WIRE_FEDERATE_RESIGNED, "FEDERATE_RESIGNED", R2C, A | CODE, 2, WIRE_REASON_DISCONNECTED},
    {WIRE_PUBLISH_OBJECT, "PUBLISH_OBJECT", C2R, REQ | A | HND, 0, 0},
    {WIRE_UNPUBLISH_OBJECT, "UNPUBLISH_OBJECT", C2R, REQ | A | HND, 0, 0},
    {WIRE_SUBSCRIBE_OBJECT, "SUBSCRIBE_OBJECT", C2R, REQ | A | HND, 0, 0},
    {WIRE_UNSUBSCRIBE_OBJECT, "UNSUBSCRIBE_OBJECT", C2R, REQ | A | HND, 0, 0},
    {WIRE_PUBLISH_INTERACTION, "PUBLISH_INTERACTION", C2R, REQ | A, 0, 0},
    {WIRE_UNPUBLISH_INTERACTION, "UNPUBLISH_INTERACTION", C2R, REQ | A, 0, 0},
    {WIRE_SUBSCRIBE_INTERACTION, "SUBSCRIBE_INTERACTION", C2R, REQ | A, 0, 0},
    {WIRE_UNSUBSCRIBE_INTERACTION, "UNSUBSCRIBE_INTERACTION", C2R, REQ | A, 0, 0},
    {WIRE_REGISTER_OBJECT, "REGISTER_OBJECT", C2R, REQ | A, 1, 0},
    {WIRE_DISCOVER, "DISCOVER", R2C, A | B | C, 1, 0},
    {WIRE_UPDATE, "UPDATE", C2R, REQ | A | TIME | VAL, 1, 0},
    {WIRE_REFLECT, "REFLECT", R2C, CODE | A | C | TIME | VAL, 1, WIRE_ORDER_TSO},
    {WIRE_DELETE_OBJECT, "DELETE_OBJECT", C2R, REQ | A | TIME, 1, 0},
    {WIRE_REMOVE_OBJECT, "REMOVE_OBJECT", R2C, CODE | A | C | TIME, 1, WIRE_ORDER_TSO},
    {WIRE_SEND_INTERACTION, "SEND_INTERACTION", C2R, REQ | A | TIME | VAL, 1, 0},
    {WIRE_RECEIVE_INTERACTION, "RECEIVE_INTERACTION", R2C, CODE | A | C | TIME | VAL, 1,
     WIRE_ORDER_RO},
    {WIRE_REQUEST_UPDATE, "REQUEST_UPDATE", C2R, REQ | CODE | A | HND, 0, WIRE_RU_CLASS},
    {WIRE_PROVIDE_UPDATE, "PROVIDE_UPDATE", R2C, A | C | HND, 0, 0},
    {WIRE_REGISTER_SYNC, "REGISTER_SYNC", C2R, REQ | HND, 2, 0},
    {WIRE_SYNC_REGISTERED, "SYNC_REGISTERED", R2C, REQ | CODE, 2, 3},
    {WIRE_ANNOUNCE_SYNC, "ANNOUNCE_SYNC", R2C, 0, 2, 0},
    {WIRE_ACHIEVE_SYNC, "ACHIEVE_SYNC", C2R, REQ, 1, 0},
    {WIRE_FEDERATION_SYNCED, "FEDERATION_SYNCED", R2C, 0, 1, 0},
    {WIRE_ENABLE_REGULATION, "ENABLE_REGULATION", C2R, REQ | TIME2, 0, 0},
    {WIRE_REGULATION_ENABLED, "REGULATION_ENABLED", R2C, CODE | TIME | TIME2, 0, 1},
    {WIRE_DISABLE_REGULATION, "DISABLE_REGULATION", C2R, REQ, 0, 0},
    {WIRE_ENABLE_CONSTRAINED, "ENABLE_CONSTRAINED", C2R, REQ, 0, 0},
    {WIRE_CONSTRAINED_ENABLED, "CONSTRAINED_ENABLED", R2C, TIME, 0, 0},
    {WIRE_DISABLE_CONSTRAINED, "DISABLE_CONSTRAINED", C2R, REQ, 0, 0},
    {WIRE_MODIFY_LOOKAHEAD, "MODIFY_LOOKAHEAD", C2R, REQ | TIME2, 0, 0},
    {WIRE_TIME_REQUEST, "TIME_REQUEST", C2R, REQ | CODE | TIME, 0, WIRE_TR_NERA},
    {WIRE_TIME_GRANT, "TIME_GRANT", R2C, CODE | TIME, 0, WIRE_TR_TARA},
    {WIRE_QUERY_TIME, "QUERY_TIME", C2R, REQ, 0, 0},
    {WIRE_TIME_STATUS, "TIME_STATUS", R2C, REQ | TIME | VAL, 0, 0},
    {WIRE_PING, "PING", WIRE_DIR_BOTH, REQ, 1, 0},
    {WIRE_PONG, "PONG", WIRE_DIR_BOTH, REQ, 1, 0},
    {WIRE_REQUEST_SAVE, "REQUEST_SAVE", C2R, REQ | TIME, 1, 0},
    {WIRE_INITIATE_SAVE, "INITIATE_SAVE", R2C, REQ | A | TIME | TIME2, 1, 0},
    {WIRE_SAVE_DONE, "SAVE_DONE", C2R, REQ | CODE | A, 3, WIRE_SAVE_FAILED},
    {WIRE_FEDERATION_SAVED, "FEDERATION_SAVED", R2C, REQ | CODE | TIME, 2, 35},
    {WIRE_RESTORE_FEDERATION, "RESTORE_FEDERATION", C2R, REQ, 3, 0},
    {WIRE_RESTORE_PART, "RESTORE_PART", R2C, REQ | CODE | TIME, 2, 1},
};
#define NCAT (sizeof catalogue / sizeof catalogue[0])

static uint8_t tstat_bytes[2][WIRE_TSTAT_SIZE];
static const uint8_t blob_bytes[] = {0, 1, 2, 0xff, 0x80, 0};
static const double f64s[3] = {1.5, -2.25, 1e300};
static const uint32_t hlist[] = {3, 1, 4, 0xffffffffu};

/* Fill every field the expected layout carries with a distinct value. */
static void fill(struct wire_msg *m, const struct expect *e, struct wire_value vals[3])
{
    wire_msg_init(m, e->type);
    if (e->fields & REQ) m->req = 0x01020304u + e->type;
    if (e->fields & CODE) m->code = e->code;
    if (e->fields & A) m->a = 0x1122334455667788ull;
    if (e->fields & B) m->b = 0xfedcba9876543210ull;
    if (e->fields & C) m->c = 42;
    if (e->fields & TIME) m->time = -5 - (int64_t)e->type; /* negative: sign must survive */
    if (e->fields & TIME2) m->time2 = INT64_MAX;
    static const char *texts[] = {"first", "second string", "", "fourth"};
    for (int i = 0; i < e->nstr; i++)
        wire_str_set(&m->str[i], texts[i]);
    if (e->type == WIRE_HELLO) {
        wire_str_set(&m->str[0], WIRE_MAGIC);
        wire_str_set(&m->str[1], "wire_test 1.0");
    }
    if (e->nstr >= 1 && e->type != WIRE_HELLO && e->nstr == 1 && (e->fields & (VAL | TIME)) &&
        e->type != WIRE_TIME_STATUS && e->type != WIRE_REQUEST_SAVE &&
        e->type != WIRE_INITIATE_SAVE) {
        /* tag blobs may hold NUL bytes */
        m->str[0].ptr = (const char *)blob_bytes;
        m->str[0].len = sizeof blob_bytes;
    }
    if (e->type == WIRE_JOIN) {
        m->str[3].ptr = (const char *)blob_bytes; /* the secret is a blob */
        m->str[3].len = sizeof blob_bytes;
    }
    if (e->type == WIRE_SAVE_DONE || e->type == WIRE_RESTORE_PART) {
        m->str[1].ptr = (const char *)blob_bytes; /* a chunk of a part is a blob */
        m->str[1].len = sizeof blob_bytes;
    }
    if (e->type == WIRE_CREATE_FEDERATION || e->type == WIRE_DESTROY_FEDERATION ||
        e->type == WIRE_RESTORE_FEDERATION) {
        int k = e->type == WIRE_DESTROY_FEDERATION ? 1 : 2; /* the secret slot, a blob */
        m->str[k].ptr = (const char *)blob_bytes;
        m->str[k].len = sizeof blob_bytes;
    }
    if (e->fields & VAL) {
        if (e->type == WIRE_TIME_STATUS) {
            struct wire_tstat t = {7, 100, WIRE_TR_NER, 200, 150, 1, INT64_MAX, 0, 9, 180, 5, 0, 0};
            wire_tstat_pack(&t, tstat_bytes[0]);
            t.federate = 9;
            t.req_kind = WIRE_TR_NONE;
            t.req_time = WIRE_TIME_NONE;
            wire_tstat_pack(&t, tstat_bytes[1]);
            vals[0] = (struct wire_value){7, WIRE_TSTAT_SIZE, tstat_bytes[0]};
            vals[1] = (struct wire_value){9, WIRE_TSTAT_SIZE, tstat_bytes[1]};
            m->nvalues = 2;
        } else {
            vals[0] = (struct wire_value){5, sizeof f64s, (const uint8_t *)f64s};
            vals[1] = (struct wire_value){6, 0, NULL};
            vals[2] = (struct wire_value){0xabcdef01u, 3, (const uint8_t *)"xyz"};
            m->nvalues = 3;
        }
        m->values = vals;
    }
    if (e->fields & HND) {
        m->handles = hlist;
        m->nhandles = 4;
    }
}

static int str_same(const struct wire_str *x, const struct wire_str *y)
{
    return x->len == y->len && (x->len == 0 || memcmp(x->ptr, y->ptr, x->len) == 0);
}

/* Compare every field of a decoded message with the original. */
static void compare(const struct wire_msg *got, const struct wire_msg *want, const char *name)
{
    CHECK(got->type == want->type, "%s: type", name);
    CHECK(got->req == want->req, "%s: req %u vs %u", name, got->req, want->req);
    CHECK(got->code == want->code, "%s: code", name);
    CHECK(got->a == want->a && got->b == want->b && got->c == want->c, "%s: handles", name);
    int64_t wt = want->time, wt2 = want->time2;
    CHECK(got->time == wt, "%s: time %" PRId64 " vs %" PRId64, name, got->time, wt);
    CHECK(got->time2 == wt2, "%s: time2", name);
    for (int i = 0; i < WIRE_MAX_STRS; i++)
        CHECK(str_same(&got->str[i], &want->str[i]), "%s: str%d", name, i);
    CHECK(got->nvalues == want->nvalues, "%s: nvalues %u vs %u", name, got->nvalues, want->nvalues);
    CHECK(got->values == NULL, "%s: decoded values must be in raw form", name);
    struct wire_value_iter it;
    struct wire_value v;
    uint32_t n = 0;
    wire_value_iter_init(&it, got);
    while (wire_value_next(&it, &v)) {
        const struct wire_value *w = &want->values[n];
        CHECK(v.handle == w->handle && v.len == w->len &&
                  (v.len == 0 || memcmp(v.data, w->data, v.len) == 0),
              "%s: value %u", name, n);
        n++;
    }
    CHECK(n == want->nvalues, "%s: iterated %u values", name, n);
    CHECK(got->nhandles == want->nhandles, "%s: nhandles", name);
    for (uint32_t i = 0; i < want->nhandles; i++)
        CHECK(wire_msg_handle(got, i) == want->handles[i], "%s: handle %u", name, i);
    CHECK(wire_msg_handle(got, got->nhandles) == 0, "%s: handle out of range", name);
}

static void test_catalogue(void)
{
    CHECK_INT_EQ(NCAT, WIRE_TYPE_END - 1);
    for (size_t i = 0; i < NCAT; i++) {
        const struct expect *e = &catalogue[i];
        CHECK_STR_EQ(wire_type_name(e->type), e->name);
        CHECK_INT_EQ(wire_type_dir(e->type), e->dir);
    }
    CHECK_STR_EQ(wire_type_name(0), "UNKNOWN");
    CHECK_STR_EQ(wire_type_name(WIRE_TYPE_END), "UNKNOWN");
    CHECK_STR_EQ(wire_type_name(65535), "UNKNOWN");
    CHECK_INT_EQ(wire_type_dir(0), 0);
    CHECK_STR_EQ(wire_strerror(WIRE_ETRUNC), "WIRE_ETRUNC");
    CHECK_STR_EQ(wire_strerror(-99), "WIRE_E?");
}

/* Every type: encode → split → decode → compare; re-encode the decoded (raw) form and get
 * the same bytes; header fields as documented. */
static void test_round_trip(void)
{
    for (size_t i = 0; i < NCAT; i++) {
        const struct expect *e = &catalogue[i];
        struct wire_msg m, d;
        struct wire_value vals[3];
        struct buf out = {0}, again = {0};
        char err[256] = "";
        fill(&m, e, vals);
        int rc = wire_encode(&out, &m, 0, err, sizeof err);
        CHECK(rc == WIRE_OK, "%s: encode %d %s", e->name, rc, err);
        if (rc) continue;
        CHECK(out.len >= WIRE_HEADER_SIZE, "%s: frame size", e->name);
        uint32_t body = (uint32_t)out.data[0] | (uint32_t)out.data[1] << 8 |
                        (uint32_t)out.data[2] << 16 | (uint32_t)out.data[3] << 24;
        CHECK_INT_EQ(body + WIRE_HEADER_SIZE, out.len);
        CHECK_INT_EQ(out.data[4] | out.data[5] << 8, e->type);
        CHECK_INT_EQ(out.data[6] | out.data[7] << 8, 0);
        size_t flen = 0;
        CHECK_INT_EQ(wire_split(out.data, out.len, 0, &flen, err, sizeof err), 1);
        CHECK_INT_EQ(flen, out.len);
        rc = wire_decode(out.data, flen, &d, err, sizeof err);
        CHECK(rc == WIRE_OK, "%s: decode %d %s", e->name, rc, err);
        compare(&d, &m, e->name);
        d.type = m.type;
        rc = wire_encode(&again, &d, 0, err, sizeof err);
        CHECK(rc == WIRE_OK && again.len == out.len && memcmp(again.data, out.data, out.len) == 0,
              "%s: re-encoding the decoded form gives the same bytes (%d %s)", e->name, rc, err);
        buf_fini(&out);
        buf_fini(&again);
    }
}

/* A field the type does not carry is refused by the encoder (no silent loss). */
static void test_strict_encode(void)
{
    struct buf out = {0};
    char err[256];
    for (size_t i = 0; i < NCAT; i++) {
        const struct expect *e = &catalogue[i];
        struct wire_msg m;
        struct wire_value vals[3];
        static const uint32_t one = 1;
        struct wire_value v1 = {1, 0, NULL};
        if (!(e->fields & REQ)) {
            fill(&m, e, vals);
            m.req = 5;
            CHECK(wire_encode(&out, &m, 0, err, sizeof err) == WIRE_EFIELD, "%s req", e->name);
        }
        if (!(e->fields & A)) {
            fill(&m, e, vals);
            m.a = 5;
            CHECK(wire_encode(&out, &m, 0, err, sizeof err) == WIRE_EFIELD, "%s a", e->name);
        }
        if (!(e->fields & TIME)) {
            fill(&m, e, vals);
            m.time = 5;
            CHECK(wire_encode(&out, &m, 0, err, sizeof err) == WIRE_EFIELD, "%s time", e->name);
        }
        if (!(e->fields & HND)) {
            fill(&m, e, vals);
            m.handles = &one;
            m.nhandles = 1;
            CHECK(wire_encode(&out, &m, 0, err, sizeof err) == WIRE_EFIELD, "%s hnd", e->name);
        }
        if (!(e->fields & VAL)) {
            fill(&m, e, vals);
            m.values = &v1;
            m.nvalues = 1;
            CHECK(wire_encode(&out, &m, 0, err, sizeof err) == WIRE_EFIELD, "%s val", e->name);
        }
        if (e->nstr < WIRE_MAX_STRS) {
            fill(&m, e, vals);
            wire_str_set(&m.str[e->nstr], "extra");
            CHECK(wire_encode(&out, &m, 0, err, sizeof err) == WIRE_EFIELD, "%s str", e->name);
            CHECK_STR_HAS(err, "carries no str");
        }
    }
    CHECK_INT_EQ(out.len, 0); /* nothing was appended by a refused message */
    struct wire_msg m;
    wire_msg_init(&m, WIRE_TIME_REQUEST);
    m.code = 9;
    CHECK_INT_EQ(wire_encode(&out, &m, 0, err, sizeof err), WIRE_EFIELD);
    CHECK_STR_HAS(err, "code 9");
    /* JOIN code: bits 0 (create), 1 (keep objects on connection loss) and 2 (rejoin a
     * restored federation), nothing else. */
    wire_msg_init(&m, WIRE_JOIN);
    m.code = WIRE_JOIN_KEEP_OBJECTS | WIRE_JOIN_RESTORE;
    CHECK_INT_EQ(wire_encode(&out, &m, 0, err, sizeof err), WIRE_OK);
    out.len = 0;
    m.code = 8;
    CHECK_INT_EQ(wire_encode(&out, &m, 0, err, sizeof err), WIRE_EFIELD);
    CHECK_STR_HAS(err, "code 8");
    wire_msg_init(&m, WIRE_ACHIEVE_SYNC);
    m.str[0].ptr = "a\0b";
    m.str[0].len = 3;
    CHECK_INT_EQ(wire_encode(&out, &m, 0, err, sizeof err), WIRE_EFIELD);
    CHECK_STR_HAS(err, "NUL");
    wire_msg_init(&m, WIRE_HELLO);
    wire_str_set(&m.str[0], "TMP0");
    CHECK_INT_EQ(wire_encode(&out, &m, 0, err, sizeof err), WIRE_EFIELD);
    CHECK_STR_HAS(err, "magic");
    wire_msg_init(&m, 0);
    CHECK_INT_EQ(wire_encode(&out, &m, 0, err, sizeof err), WIRE_ETYPE);
    wire_msg_init(&m, WIRE_UPDATE);
    m.nvalues = 2; /* no array */
    CHECK_INT_EQ(wire_encode(&out, &m, 0, err, sizeof err), WIRE_EUSAGE);
    wire_msg_init(&m, WIRE_PING);
    m.flags = 1;
    CHECK_INT_EQ(wire_encode(&out, &m, 0, err, sizeof err), WIRE_EFLAGS);
    /* TIME_STATUS values must be packed records. */
    struct wire_value bad = {1, 3, (const uint8_t *)"abc"};
    wire_msg_init(&m, WIRE_TIME_STATUS);
    m.values = &bad;
    m.nvalues = 1;
    CHECK_INT_EQ(wire_encode(&out, &m, 0, err, sizeof err), WIRE_EFIELD);
    CHECK_STR_HAS(err, "values[0].len 3");
    /* Over the frame limit: refused and the buffer is unchanged. */
    static char big[300];
    memset(big, 'x', sizeof big);
    wire_msg_init(&m, WIRE_PING);
    m.str[0].ptr = big;
    m.str[0].len = sizeof big;
    CHECK_INT_EQ(wire_encode(&out, &m, 256, err, sizeof err), WIRE_ETOOBIG);
    CHECK_STR_HAS(err, "over the limit 256");
    CHECK_INT_EQ(out.len, 0);
    m.str[0].len = 256 - WIRE_HEADER_SIZE - 8; /* req + len: exactly at the limit */
    CHECK_INT_EQ(wire_encode(&out, &m, 256, err, sizeof err), WIRE_OK);
    CHECK_INT_EQ(out.len, 256);
    CHECK_INT_EQ(wire_encode(NULL, &m, 0, err, sizeof err), WIRE_EUSAGE);
    /* A raw value form that disagrees with nvalues is refused, not half-encoded. */
    static const uint8_t raw[] = {1, 0, 0, 0, 2, 0, 0, 0, 'h', 'i'}; /* one value, "hi" */
    size_t before = out.len;
    wire_msg_init(&m, WIRE_UPDATE);
    m.values_raw = raw;
    m.values_raw_len = sizeof raw;
    m.nvalues = 2;
    CHECK_INT_EQ(wire_encode(&out, &m, 0, err, sizeof err), WIRE_EUSAGE);
    CHECK_STR_HAS(err, "raw values hold 1 values");
    m.nvalues = 1;
    m.values_raw_len = sizeof raw + 0; /* exact: accepted */
    CHECK_INT_EQ(wire_encode(&out, &m, 0, err, sizeof err), WIRE_OK);
    m.values_raw_len = sizeof raw - 1; /* cut value: refused */
    CHECK_INT_EQ(wire_encode(&out, &m, 0, err, sizeof err), WIRE_EUSAGE);
    CHECK_INT_EQ(out.len, before + 8 + 4 + 8 + 8 + 4 + 4 + sizeof raw);
    buf_fini(&out);
}

/* Several frames in one buffer, split one by one, also when they arrive byte by byte. */
static void test_batching(void)
{
    struct buf out = {0};
    char err[256];
    struct wire_msg m, d;
    struct wire_value vals[3];
    const unsigned types[] = {WIRE_UPDATE, WIRE_TIME_REQUEST, WIRE_PING, WIRE_REFLECT, WIRE_JOIN};
    for (size_t k = 0; k < 5; k++)
        for (size_t i = 0; i < NCAT; i++)
            if (catalogue[i].type == types[k]) {
                fill(&m, &catalogue[i], vals);
                CHECK_INT_EQ(wire_encode(&out, &m, 0, err, sizeof err), WIRE_OK);
            }
    size_t off = 0, n = 0, flen = 0;
    while (wire_split(out.data + off, out.len - off, 0, &flen, err, sizeof err) == 1) {
        CHECK(wire_decode(out.data + off, flen, &d, err, sizeof err) == WIRE_OK, "frame %zu: %s", n,
              err);
        CHECK(n < 5 && d.type == types[n], "frame %zu type %u", n, d.type);
        off += flen;
        n++;
    }
    CHECK_INT_EQ(n, 5);
    CHECK_INT_EQ(off, out.len);
    /* Arriving one byte at a time through a receive buffer, as a connection sees it. */
    struct buf in = {0};
    n = 0;
    for (size_t i = 0; i < out.len; i++) {
        buf_append(&in, out.data + i, 1);
        int rc;
        while ((rc = wire_split(in.data, in.len, 0, &flen, err, sizeof err)) == 1) {
            CHECK(wire_decode(in.data, flen, &d, err, sizeof err) == WIRE_OK, "%s", err);
            CHECK(d.type == types[n], "stream frame %zu", n);
            buf_consume(&in, flen);
            n++;
        }
        CHECK(rc == 0, "split rc %d", rc);
    }
    CHECK_INT_EQ(n, 5);
    CHECK_INT_EQ(in.len, 0);
    buf_fini(&in);
    buf_fini(&out);
}

/* Every proper prefix of every frame: the splitter waits, the decoder refuses. The same with a
 * header rewritten to claim the shorter body: the decoder names the truncated field. */
static void test_truncation(void)
{
    char err[256];
    int refused = 0, total = 0;
    for (size_t i = 0; i < NCAT; i++) {
        struct wire_msg m, d;
        struct wire_value vals[3];
        struct buf out = {0};
        fill(&m, &catalogue[i], vals);
        if (wire_encode(&out, &m, 0, err, sizeof err) != WIRE_OK) continue;
        uint8_t copy[512];
        CHECK(out.len <= sizeof copy, "frame fits");
        for (size_t k = 0; k < out.len && out.len <= sizeof copy; k++) {
            size_t flen = 0;
            total += 2;
            CHECK(wire_split(out.data, k, 0, &flen, err, sizeof err) == 0, "%s split %zu",
                  catalogue[i].name, k);
            /* An exactly sized copy, so that ASan catches any read past the prefix. */
            uint8_t *exact = malloc(k ? k : 1);
            memcpy(exact, out.data, k);
            int rc = wire_decode(exact, k, &d, err, sizeof err);
            free(exact);
            refused += rc == WIRE_ETRUNC;
            CHECK(rc == WIRE_ETRUNC, "%s: prefix %zu gave %d", catalogue[i].name, k, rc);
            if (k < WIRE_HEADER_SIZE) {
                refused++;
                continue;
            }
            memcpy(copy, out.data, k);
            uint32_t body = (uint32_t)(k - WIRE_HEADER_SIZE);
            copy[0] = (uint8_t)body;
            copy[1] = (uint8_t)(body >> 8);
            copy[2] = copy[3] = 0;
            exact = malloc(k);
            memcpy(exact, copy, k);
            rc = wire_decode(exact, k, &d, err, sizeof err);
            free(exact);
            refused += rc == WIRE_ETRUNC;
            CHECK(rc == WIRE_ETRUNC && strstr(err, "offset") != NULL,
                  "%s: body cut to %u gave %d (%s)", catalogue[i].name, body, rc, err);
        }
        buf_fini(&out);
    }
    CHECK_INT_EQ(refused, total);
    CHECK(total > 1000, "%d truncations tried", total);
}

static void put32(uint8_t *p, uint32_t v)
{
    for (int i = 0; i < 4; i++)
        p[i] = (uint8_t)(v >> (8 * i));
}

static void header(uint8_t *p, uint32_t body, uint16_t type, uint16_t flags)
{
    put32(p, body);
    p[4] = (uint8_t)type;
    p[5] = (uint8_t)(type >> 8);
    p[6] = (uint8_t)flags;
    p[7] = (uint8_t)(flags >> 8);
}

static void test_oversized(void)
{
    uint8_t h[8];
    size_t flen = 12345;
    char err[256] = "";
    header(h, (1u << 20) - 8 + 1, WIRE_UPDATE, 0); /* one byte over the default 1 MiB */
    CHECK_INT_EQ(wire_split(h, 8, 0, &flen, err, sizeof err), WIRE_ETOOBIG);
    CHECK_STR_HAS(err, "over the limit");
    CHECK_STR_HAS(err, "UPDATE");
    CHECK_INT_EQ(flen, 12345);
    header(h, (1u << 20) - 8, WIRE_UPDATE, 0); /* exactly the limit: wait for the body */
    CHECK_INT_EQ(wire_split(h, 8, 0, &flen, err, sizeof err), 0);
    CHECK_INT_EQ(flen, 1u << 20); /* the size is known from the header alone */
    header(h, 0xffffffffu, 999, 0);
    CHECK_INT_EQ(wire_split(h, 8, 0, &flen, err, sizeof err), WIRE_ETOOBIG);
    header(h, 200, WIRE_PING, 0); /* a configured smaller limit */
    CHECK_INT_EQ(wire_split(h, 8, 128, &flen, err, sizeof err), WIRE_ETOOBIG);
    CHECK_INT_EQ(wire_split(h, 8, 4096, &flen, err, sizeof err), 0);
    CHECK_INT_EQ(flen, 208);
    CHECK_INT_EQ(wire_split(h, 7, 128, &flen, err, sizeof err), 0); /* header incomplete */
    CHECK_INT_EQ(flen, 208);                                        /* so no size yet */
    /* doc/protocol.md §1: a configured limit below 64 bytes is raised to 64. */
    header(h, 56, WIRE_PING, 0); /* a 64-byte frame */
    CHECK_INT_EQ(wire_split(h, 8, 10, &flen, err, sizeof err), 0);
    CHECK_INT_EQ(flen, 64);
    header(h, 57, WIRE_PING, 0); /* 65 bytes: over the raised limit */
    CHECK_INT_EQ(wire_split(h, 8, 10, &flen, err, sizeof err), WIRE_ETOOBIG);
    CHECK_INT_EQ(wire_split(NULL, 0, 0, &flen, err, sizeof err), 0);
}

/* Hand-made bad frames, each with the reason it must give. */
static void test_garbage(void)
{
    uint8_t f[128];
    struct wire_msg d;
    char err[256];

    header(f, 0, 0, 0);
    CHECK_INT_EQ(wire_decode(f, 8, &d, err, sizeof err), WIRE_ETYPE);
    CHECK_STR_HAS(err, "unknown message type 0");
    header(f, 0, 4242, 0);
    CHECK_INT_EQ(wire_decode(f, 8, &d, err, sizeof err), WIRE_ETYPE);
    CHECK_STR_HAS(err, "4242");
    header(f, 4, WIRE_QUERY_TIME, 0x8000);
    put32(f + 8, 1);
    CHECK_INT_EQ(wire_decode(f, 12, &d, err, sizeof err), WIRE_EFLAGS);
    CHECK_STR_HAS(err, "flags");

    /* UPDATE: req, a, time, str0 (tag), values. A values count that cannot fit. */
    header(f, 4 + 8 + 8 + 4 + 4, WIRE_UPDATE, 0);
    memset(f + 8, 0, 24);
    put32(f + 32, 1000);
    CHECK_INT_EQ(wire_decode(f, 36, &d, err, sizeof err), WIRE_ETRUNC);
    CHECK_STR_HAS(err, "values.count 1000");
    CHECK_STR_HAS(err, "offset 32");
    /* One value whose length overruns the frame. */
    header(f, 4 + 8 + 8 + 4 + 4 + 8 + 2, WIRE_UPDATE, 0);
    put32(f + 32, 1);
    put32(f + 36, 7);
    put32(f + 40, 4000);
    CHECK_INT_EQ(wire_decode(f, 46, &d, err, sizeof err), WIRE_ETRUNC);
    CHECK_STR_HAS(err, "values[0].len 4000");
    /* The tag's length overruns. */
    header(f, 4 + 8 + 8 + 4, WIRE_UPDATE, 0);
    put32(f + 28, 0x7fffffffu);
    CHECK_INT_EQ(wire_decode(f, 32, &d, err, sizeof err), WIRE_ETRUNC);
    CHECK_STR_HAS(err, "str0 length 2147483647");
    /* SUBSCRIBE_OBJECT: req, a, handles; the handle count overruns. */
    header(f, 4 + 8 + 4 + 4, WIRE_SUBSCRIBE_OBJECT, 0);
    memset(f + 8, 0, 12);
    put32(f + 20, 2);
    CHECK_INT_EQ(wire_decode(f, 28, &d, err, sizeof err), WIRE_ETRUNC);
    CHECK_STR_HAS(err, "handles.count 2");
    /* Trailing bytes inside the announced body. */
    header(f, 4 + 3, WIRE_QUERY_TIME, 0);
    memset(f + 8, 0, 7);
    CHECK_INT_EQ(wire_decode(f, 15, &d, err, sizeof err), WIRE_ETRAIL);
    CHECK_STR_HAS(err, "3 trailing bytes");
    /* More bytes given than the header announces. */
    header(f, 4, WIRE_QUERY_TIME, 0);
    CHECK_INT_EQ(wire_decode(f, 13, &d, err, sizeof err), WIRE_ETRAIL);
    /* A text slot holding NUL; a code out of range; a bad magic. */
    header(f, 4 + 4 + 3, WIRE_ACHIEVE_SYNC, 0);
    put32(f + 8, 1);
    put32(f + 12, 3);
    memcpy(f + 16, "a\0b", 3);
    CHECK_INT_EQ(wire_decode(f, 19, &d, err, sizeof err), WIRE_EFIELD);
    CHECK_STR_HAS(err, "NUL");
    header(f, 4 + 4 + 8, WIRE_TIME_REQUEST, 0);
    put32(f + 8, 1);
    put32(f + 12, 6);
    memset(f + 16, 0, 8);
    CHECK_INT_EQ(wire_decode(f, 24, &d, err, sizeof err), WIRE_EFIELD);
    CHECK_STR_HAS(err, "code 6");
    header(f, 4 + 4 + 4 + 4, WIRE_HELLO, 0);
    put32(f + 8, 1);
    put32(f + 12, 4);
    memcpy(f + 16, "XMPO", 4);
    put32(f + 20, 0);
    CHECK_INT_EQ(wire_decode(f, 24, &d, err, sizeof err), WIRE_EFIELD);
    CHECK_STR_HAS(err, "magic");
    /* TIME_STATUS value of the wrong size. */
    header(f, 4 + 8 + 4 + 8 + 2, WIRE_TIME_STATUS, 0);
    memset(f + 8, 0, 12);
    put32(f + 20, 1);
    put32(f + 24, 1);
    put32(f + 28, 2);
    CHECK_INT_EQ(wire_decode(f, 34, &d, err, sizeof err), WIRE_EFIELD);
    CHECK_STR_HAS(err, "is not 82 (or 70)");
    CHECK_INT_EQ(wire_decode(f, 34, NULL, err, sizeof err), WIRE_EUSAGE);
    CHECK_INT_EQ(wire_decode(NULL, 0, &d, err, sizeof err), WIRE_ETRUNC);
    /* Error buffers may be absent. */
    CHECK_INT_EQ(wire_decode(f, 3, &d, NULL, 0), WIRE_ETRUNC);
}

/* Decoding into a caller-supplied array, and the values of several value lengths. */
static void test_values_helpers(void)
{
    struct wire_value vals[3], got[2];
    struct wire_msg m, d;
    struct buf out = {0};
    char err[256];
    for (size_t i = 0; i < NCAT; i++)
        if (catalogue[i].type == WIRE_SEND_INTERACTION) fill(&m, &catalogue[i], vals);
    CHECK_INT_EQ(wire_encode(&out, &m, 0, err, sizeof err), WIRE_OK);
    CHECK_INT_EQ(wire_decode(out.data, out.len, &d, err, sizeof err), WIRE_OK);
    CHECK_INT_EQ(wire_msg_values(&d, got, 2), 3); /* three values, two stored */
    CHECK_INT_EQ(got[0].handle, 5);
    CHECK_INT_EQ(got[0].len, sizeof f64s);
    double x;
    memcpy(&x, got[0].data + 8, sizeof x);
    CHECK_NEAR(x, -2.25, 0.0);
    CHECK_INT_EQ(got[1].handle, 6);
    CHECK_INT_EQ(got[1].len, 0);
    CHECK_INT_EQ(wire_msg_values(&m, got, 2), 3); /* encode form too */
    CHECK_INT_EQ(got[1].handle, 6);
    buf_fini(&out);

    char small[4];
    struct wire_str s;
    wire_str_set(&s, "abcdef");
    CHECK_INT_EQ(wire_str_copy(&s, small, sizeof small), -1);
    CHECK_STR_EQ(small, "abc");
    char big[16];
    CHECK_INT_EQ(wire_str_copy(&s, big, sizeof big), 0);
    CHECK_STR_EQ(big, "abcdef");
    CHECK(wire_str_eq(&s, "abcdef") && !wire_str_eq(&s, "abcde") && !wire_str_eq(&s, NULL),
          "wire_str_eq");
    wire_str_set(&s, NULL);
    CHECK(s.len == 0 && wire_str_eq(&s, ""), "empty string");
}

static void test_tstat(void)
{
    struct wire_tstat t = {3,
                           -1,
                           WIRE_TR_FQR,
                           INT64_MIN,
                           INT64_MAX,
                           1,
                           77,
                           0,
                           0xffffffffffull,
                           -9,
                           0x0102030405060708ull,
                           5,
                           0x0a0b0c0d0e0full};
    struct wire_tstat u;
    uint8_t p[WIRE_TSTAT_SIZE];
    char err[128];
    CHECK_INT_EQ(WIRE_TSTAT_SIZE, 82); /* doc/protocol.md §4: 8+8+4+8+8+1+8+1+8+8+8+4+8 */
    wire_tstat_pack(&t, p);
    CHECK_INT_EQ(wire_tstat_unpack(p, sizeof p, &u, err, sizeof err), WIRE_OK);
    CHECK(u.federate == 3 && u.time == -1 && u.req_kind == WIRE_TR_FQR && u.req_time == INT64_MIN &&
              u.bound == INT64_MAX && u.bound_strict == 1 && u.galt == 77 && u.galt_strict == 0 &&
              u.holder == 0xffffffffffull && u.lits == -9 && u.root == 0x0102030405060708ull &&
              u.polls == 5 && u.waits_for == 0x0a0b0c0d0e0full,
          "tstat round trip");
    CHECK(p[70] == 5 && p[74] == 0x0f && p[79] == 0x0a, "polls at 70, waits_for at 74");
    /* An older RTI's 70-byte record reads with polls and waits_for 0. */
    CHECK_INT_EQ(wire_tstat_unpack(p, WIRE_TSTAT_SIZE_OLD, &u, err, sizeof err), WIRE_OK);
    CHECK(u.root == 0x0102030405060708ull && u.polls == 0 && u.waits_for == 0, "70-byte record");
    /* The documented byte positions: lits at 54 (i64 LE), root at 62 (u64 LE). */
    CHECK(p[54] == 0xf7 && p[61] == 0xff, "lits -9 at offset 54, little-endian");
    CHECK(p[62] == 0x08 && p[69] == 0x01, "root at offset 62, little-endian");
    CHECK_INT_EQ(wire_tstat_unpack(p, sizeof p - 1, &u, err, sizeof err), WIRE_EFIELD);
    CHECK_STR_HAS(err, "81 bytes");
    p[36] = 2; /* bound_strict at offset 8+8+4+8+8 */
    CHECK_INT_EQ(wire_tstat_unpack(p, sizeof p, &u, err, sizeof err), WIRE_EFIELD);
    CHECK_STR_HAS(err, "strict");
    p[36] = 1;
    p[16] = 6; /* pending request kind at offset 16: 0..5 are known (doc/protocol.md §4) */
    CHECK_INT_EQ(wire_tstat_unpack(p, sizeof p, &u, err, sizeof err), WIRE_EFIELD);
}

static void test_hex_sample(void)
{
    char out[WIRE_HEX_BUFSZ];
    const uint8_t b[] = {'T', 'M', 0x00, 0xff, '\n'};
    wire_hex_sample(b, sizeof b, out, sizeof out);
    CHECK_STR_EQ(out, "len=5 hex=54 4d 00 ff 0a ascii=TM...");
    uint8_t big[100];
    for (int i = 0; i < 100; i++)
        big[i] = (uint8_t)(0xf0 + i % 16);
    wire_hex_sample(big, sizeof big, out, sizeof out);
    CHECK_STR_HAS(out, "len=100 hex=f0 f1");
    CHECK_STR_HAS(out, "(+36 more)");
    /* 64 bytes shown: 64 hex pairs, 63 separators. */
    const char *h = strstr(out, "hex=") + 4, *a = strstr(out, " ascii=");
    CHECK_INT_EQ(a - h, 64 * 3 - 1);
    uint8_t worst[64];
    memset(worst, 0xff, sizeof worst);
    wire_hex_sample(worst, SIZE_MAX, out, sizeof out); /* the longest possible line fits */
    CHECK_STR_HAS(out, "more)");
    char tiny[8];
    wire_hex_sample(b, sizeof b, tiny, sizeof tiny);
    CHECK_STR_EQ(tiny, "len=5 h");
    wire_hex_sample(NULL, 0, out, sizeof out);
    CHECK_STR_EQ(out, "len=0 hex= ascii=");
}

/* Randomized round trips: random fields, string lengths, value lists and handle lists for
 * random types, many frames batched per buffer, split and decoded back; every field must come
 * back. Deterministic (fixed seed). */
static uint64_t rng = 0x2545f4914f6cdd1dull;
static uint64_t rnd(void)
{
    rng ^= rng << 13;
    rng ^= rng >> 7;
    rng ^= rng << 17;
    return rng;
}

enum { RR_BATCH = 16, RR_ROUNDS = 400 };
struct rr_msg {
    struct wire_msg m;
    char str[WIRE_MAX_STRS][40];
    struct wire_value vals[5];
    uint8_t vbytes[5][WIRE_TSTAT_SIZE];
    uint32_t handles[6];
};

static void rr_fill(struct rr_msg *r, const struct expect *e)
{
    struct wire_msg *m = &r->m;
    wire_msg_init(m, e->type);
    if (e->fields & REQ) m->req = (uint32_t)rnd();
    if (e->fields & CODE) m->code = e->code;
    if (e->fields & A) m->a = rnd();
    if (e->fields & B) m->b = rnd();
    if (e->fields & C) m->c = rnd();
    if (e->fields & TIME) m->time = (int64_t)rnd();
    if (e->fields & TIME2) m->time2 = (int64_t)(rnd() >> 1);
    for (int i = 0; i < e->nstr; i++) {
        uint32_t n = (uint32_t)(rnd() % sizeof r->str[i]);
        for (uint32_t k = 0; k < n; k++)
            r->str[i][k] = (char)(1 + rnd() % 255); /* no NUL */
        m->str[i].ptr = r->str[i];
        m->str[i].len = n;
    }
    if (e->type == WIRE_HELLO) wire_str_set(&m->str[0], WIRE_MAGIC);
    if (e->fields & VAL) {
        m->nvalues = (uint32_t)(rnd() % 6);
        for (uint32_t i = 0; i < m->nvalues; i++) {
            uint32_t n =
                e->type == WIRE_TIME_STATUS ? WIRE_TSTAT_SIZE : (uint32_t)(rnd() % WIRE_TSTAT_SIZE);
            for (uint32_t k = 0; k < n; k++)
                r->vbytes[i][k] = (uint8_t)rnd();
            r->vals[i] = (struct wire_value){(uint32_t)rnd(), n, n ? r->vbytes[i] : NULL};
        }
        m->values = r->vals;
    }
    if (e->fields & HND) {
        m->nhandles = (uint32_t)(rnd() % 7);
        for (uint32_t i = 0; i < m->nhandles; i++)
            r->handles[i] = (uint32_t)rnd();
        m->handles = r->handles;
    }
}

/* Field-by-field equality without counting checks (the random test checks once per round). */
static int same_msg(const struct wire_msg *got, const struct wire_msg *want)
{
    if (got->type != want->type || got->req != want->req || got->code != want->code ||
        got->a != want->a || got->b != want->b || got->c != want->c || got->time != want->time ||
        got->time2 != want->time2 || got->nvalues != want->nvalues ||
        got->nhandles != want->nhandles || got->values)
        return 0;
    for (int i = 0; i < WIRE_MAX_STRS; i++)
        if (!str_same(&got->str[i], &want->str[i])) return 0;
    struct wire_value_iter it;
    struct wire_value v;
    uint32_t n = 0;
    wire_value_iter_init(&it, got);
    while (wire_value_next(&it, &v)) {
        const struct wire_value *w = &want->values[n++];
        if (v.handle != w->handle || v.len != w->len ||
            (v.len && memcmp(v.data, w->data, v.len) != 0))
            return 0;
    }
    if (n != want->nvalues) return 0;
    for (uint32_t i = 0; i < want->nhandles; i++)
        if (wire_msg_handle(got, i) != want->handles[i]) return 0;
    return 1;
}

static void test_random_round_trips(void)
{
    static struct rr_msg batch[RR_BATCH];
    struct buf out = {0};
    char err[256] = "";
    int frames = 0;
    for (int round = 0; round < RR_ROUNDS; round++) {
        buf_clear(&out);
        int bad = 0;
        for (int i = 0; i < RR_BATCH; i++) {
            rr_fill(&batch[i], &catalogue[rnd() % NCAT]);
            bad += wire_encode(&out, &batch[i].m, 0, err, sizeof err) != WIRE_OK;
        }
        size_t off = 0, flen;
        int i = 0;
        while (wire_split(out.data + off, out.len - off, 0, &flen, err, sizeof err) == 1) {
            struct wire_msg d;
            int rc = wire_decode(out.data + off, flen, &d, err, sizeof err);
            bad += rc != WIRE_OK || i >= RR_BATCH || !same_msg(&d, &batch[i].m);
            off += flen;
            i++;
            frames++;
        }
        CHECK(bad == 0 && i == RR_BATCH && off == out.len, "round %d: %d bad of %d frames (%s)",
              round, bad, i, err);
    }
    CHECK_INT_EQ(frames, RR_BATCH * RR_ROUNDS);
    buf_fini(&out);
}

/* doc/time.md "Seconds from ticks": a whole number of ticks per second divides (correctly
 * rounded), so decimal times come out as the nearest double to the decimal; the plain product
 * does not (15e9 * 1e-9 is 15.000000000000002, 3e8 * 1e-9 is 0.30000000000000004). */
static void test_ticks_seconds(void)
{
    CHECK(ticks_seconds(1e-9, 15000000000) == 15.0, "15e9 ns: %.17g",
          ticks_seconds(1e-9, 15000000000));
    CHECK(ticks_seconds(1e-9, 300000000) == 0.3, "3e8 ns: %.17g", ticks_seconds(1e-9, 300000000));
    CHECK(ticks_seconds(1e-3, 99999) == 99.999, "99999 ms: %.17g", ticks_seconds(1e-3, 99999));
    CHECK(ticks_seconds(0.3, 2) == 0.6, "2 ticks of 0.3 s (not whole per second): %.17g",
          ticks_seconds(0.3, 2));
}

int main(void)
{
    test_ticks_seconds();
    test_catalogue();
    test_round_trip();
    test_strict_encode();
    test_batching();
    test_truncation();
    test_oversized();
    test_garbage();
    test_values_helpers();
    test_tstat();
    test_hex_sample();
    test_random_round_trips();
    return check_summary();
}
