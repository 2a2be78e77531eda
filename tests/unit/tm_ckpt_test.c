/* Unit test of the engine's checkpoint (rti/tm/tm.h: tm_save, tm_restore; doc/checkpoint.md):
 * for random event scripts over four federates (regulation, constraint, every request kind,
 * TSO and RO sends, resigns), cut the script at every event, save, restore into a fresh state
 * and play the rest on both: the restored engine must make the same decisions (kinds,
 * federates, times, tokens, reasons), return the same codes and errors, and report the same
 * statuses as the one that never stopped. Bytes that tm_save did not write are refused.
 * Read rti/tm/tm.h first. */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rti/proto/ckpt.h"
#include "rti/tm/tm.h"
#include "tests/check.h"

#define NFED   4
#define NSTEPS 70

/* The decisions of one engine as text, one line each. */
struct trace {
    char *s;
    size_t n, cap;
};

static void trace_add(struct trace *t, const char *line)
{
    size_t k = strlen(line);
    if (t->n + k + 1 > t->cap) {
        size_t cap = t->cap ? 2 * t->cap : 4096;
        while (cap < t->n + k + 1)
            cap *= 2;
        char *s = realloc(t->s, cap);
        if (!s) abort(); /* a test's own allocation: nothing to recover */
        t->s = s;
        t->cap = cap;
    }
    memcpy(t->s + t->n, line, k + 1);
    t->n += k;
}

static void sink(void *ctx, const tm_decision *d)
{
    char line[512];
    snprintf(line, sizeof line,
             "k%d f%" PRIu32 " t%" PRId64 " r%d tso%d s%" PRIu32 " q%" PRIu64 " tok%" PRIu64
             " c%d %s\n",
             (int)d->kind, d->fed, d->time, (int)d->req, d->tso ? 1 : 0, d->sender, d->seq,
             d->token, d->code, d->reason);
    trace_add(ctx, line);
}

static uint64_t rng_next(uint64_t *s)
{
    uint64_t x = *s;
    x ^= x << 13;
    x ^= x >> 7;
    x ^= x << 17;
    return *s = x;
}

/* One event of a script, drawn from the seed; applied the same way to any engine. */
struct event {
    int op; /* 0 reg, 1 con, 2 request, 3 send, 4 modify lookahead, 5 resign+rejoin */
    tm_fed h;
    int a, b; /* op-specific small numbers */
    tm_fed rcv[NFED];
    size_t nrcv;
};

static void draw(uint64_t *seed, struct event *e)
{
    memset(e, 0, sizeof *e);
    uint64_t r = rng_next(seed);
    int p = (int)(r % 100);
    e->op = p < 6 ? 0 : p < 12 ? 1 : p < 55 ? 2 : p < 92 ? 3 : p < 96 ? 4 : 5;
    e->h = (tm_fed)(1 + (rng_next(seed) % NFED));
    e->a = (int)(rng_next(seed) % 6);
    e->b = (int)(rng_next(seed) % 4);
    for (tm_fed h = 1; h <= NFED; h++)
        if (rng_next(seed) % 2) e->rcv[e->nrcv++] = h;
}

/* Apply e; its return code and error text go to the trace too. */
static void apply(tm_state *st, struct trace *t, const struct event *e, uint64_t token)
{
    char err[TM_ERR_LEN] = "", line[TM_ERR_LEN + 32];
    tm_status s;
    tm_time T = 0, L = 0;
    if (tm_query(st, e->h, &s, NULL, 0) == TM_OK) {
        T = s.time;
        L = s.lookahead;
    }
    int rc = TM_OK;
    switch (e->op) {
    case 0:
        rc = tm_enable_regulation(st, e->h, e->b % 3, err, sizeof err);
        break;
    case 1:
        rc = tm_enable_constrained(st, e->h, err, sizeof err);
        break;
    case 2:
        rc = tm_request(st, e->h, (tm_req)(1 + e->b % 5), T + e->a, err, sizeof err);
        break;
    case 3: {
        /* mostly stamped at or above the bound, sometimes receive order, sometimes too early */
        tm_time ts = e->a == 5 ? TM_NO_TIME : T + L + e->a - (e->b == 0 ? 1 : 0);
        rc = tm_send(st, e->h, ts, e->rcv, e->nrcv, token, err, sizeof err);
        break;
    }
    case 4:
        rc = tm_modify_lookahead(st, e->h, e->b % 3, err, sizeof err);
        break;
    default: {
        rc = tm_resign(st, e->h, err, sizeof err);
        char name[8];
        snprintf(name, sizeof name, "F%" PRIu32, e->h);
        if (rc == TM_OK) rc = tm_join(st, e->h, name, err, sizeof err);
        break;
    }
    }
    snprintf(line, sizeof line, "rc %d %s\n", rc, err);
    trace_add(t, line);
}

/* TSO deliveries and grants seen after the cuts: the scripts must exercise the engine. */
static long tso_seen, grants_seen;

static tm_state *fresh(struct trace *t)
{
    tm_state *st = NULL;
    char err[TM_ERR_LEN];
    CHECK_INT_EQ(tm_new(&st, sink, t, err, sizeof err), TM_OK);
    for (tm_fed h = 1; h <= NFED; h++) {
        char name[8];
        snprintf(name, sizeof name, "F%" PRIu32, h);
        CHECK_INT_EQ(tm_join(st, h, name, err, sizeof err), TM_OK);
        /* most start regulating and constrained, with lookaheads 0 and 1 */
        if (h < NFED) {
            CHECK_INT_EQ(tm_enable_regulation(st, h, (h - 1) % 2, err, sizeof err), TM_OK);
            CHECK_INT_EQ(tm_enable_constrained(st, h, err, sizeof err), TM_OK);
        }
    }
    return st;
}

/* Every federate's status line, appended to the trace. */
static void statuses(tm_state *st, struct trace *t)
{
    tm_status s[NFED];
    size_t n = tm_status_all(st, s, NFED);
    for (size_t i = 0; i < n && i < NFED; i++) {
        char line[600];
        tm_status_format(&s[i], st, line, sizeof line - 1);
        strcat(line, "\n");
        trace_add(t, line);
    }
}

/* Script of seed, cut after `cut` events: trace of the rest, restored vs. uninterrupted.
 * The saved bytes go to saved_out when it is not NULL. */
static void one_cut(uint64_t seed0, int cut, struct buf *saved_out)
{
    struct trace ta = {0}, tb = {0};
    tm_state *a = fresh(&ta);
    struct event ev[NSTEPS];
    uint64_t seed = seed0;
    for (int i = 0; i < NSTEPS; i++)
        draw(&seed, &ev[i]);
    for (int i = 0; i < cut; i++)
        apply(a, &ta, &ev[i], (uint64_t)i + 1);
    ta.n = 0; /* from here on: the decisions after the cut */
    struct buf b, b2;
    buf_init(&b);
    buf_init(&b2);
    char err[TM_ERR_LEN] = "";
    CHECK_INT_EQ(tm_save(a, &b, err, sizeof err), TM_OK);
    tm_state *r = NULL;
    int rc = tm_restore(&r, b.data, b.len, sink, &tb, err, sizeof err);
    CHECK(rc == TM_OK, "seed %" PRIu64 " cut %d: restore failed: %s", seed0, cut, err);
    CHECK(tb.n == 0, "restoring emits no decision");
    if (r) {
        /* the restored state saves to the same bytes */
        CHECK_INT_EQ(tm_save(r, &b2, err, sizeof err), TM_OK);
        CHECK(b2.len == b.len && memcmp(b.data, b2.data, b.len) == 0,
              "seed %" PRIu64 " cut %d: save of the restored state differs", seed0, cut);
        for (int i = cut; i < NSTEPS; i++) {
            apply(a, &ta, &ev[i], (uint64_t)i + 1);
            apply(r, &tb, &ev[i], (uint64_t)i + 1);
        }
        if (ta.s) {
            for (const char *q = ta.s; (q = strstr(q, "tso1")) != NULL; q++)
                tso_seen++;
            for (const char *q = ta.s; (q = strstr(q, "k1 f")) != NULL; q++)
                grants_seen++;
        }
        statuses(a, &ta);
        statuses(r, &tb);
        bool same = ta.n == tb.n && memcmp(ta.s, tb.s, ta.n) == 0;
        CHECK(same, "seed %" PRIu64 " cut %d: restored engine diverges", seed0, cut);
        if (!same)
            fprintf(stderr, "--- uninterrupted:\n%s--- restored:\n%s", ta.s ? ta.s : "",
                    tb.s ? tb.s : "");
    }
    if (saved_out) {
        buf_clear(saved_out);
        buf_append(saved_out, b.data, b.len);
    }
    tm_free(a);
    tm_free(r);
    buf_fini(&b);
    buf_fini(&b2);
    free(ta.s);
    free(tb.s);
}

static void test_random_cuts(void)
{
    for (uint64_t seed = 1; seed <= 25; seed++) {
        check_case_begin();
        for (int cut = 0; cut <= NSTEPS; cut += 1)
            one_cut(seed * 0x9e3779b97f4a7c15ull, cut, NULL);
        check_case_end(1);
    }
    CHECK(tso_seen > 2000 && grants_seen > 5000,
          "the scripts exercise queues and grants (%ld TSO deliveries, %ld grants)", tso_seen,
          grants_seen);
}

/* Every proper prefix of a saved state, and the state with a byte added, is refused. */
static void test_refuses_bad_bytes(void)
{
    struct buf b;
    buf_init(&b);
    one_cut(7, 40, &b);
    CHECK(b.len > 40, "a state with federates and queues was saved (%zu bytes)", b.len);
    char err[TM_ERR_LEN];
    for (size_t n = 0; n < b.len; n++) {
        tm_state *r = NULL;
        int rc = tm_restore(&r, b.data, n, NULL, NULL, err, sizeof err);
        CHECK(rc == TM_EINVAL && r == NULL, "prefix of %zu bytes refused (rc %d)", n, rc);
        tm_free(r);
    }
    buf_append(&b, "x", 1);
    tm_state *r = NULL;
    CHECK_INT_EQ(tm_restore(&r, b.data, b.len, NULL, NULL, err, sizeof err), TM_EINVAL);
    CHECK_STR_HAS(err, "1 bytes left");
    /* a newer version */
    b.data[4] = 9;
    CHECK_INT_EQ(tm_restore(&r, b.data, b.len, NULL, NULL, err, sizeof err), TM_EINVAL);
    CHECK_STR_HAS(err, "version 9");
    b.data[0] ^= 1;
    CHECK_INT_EQ(tm_restore(&r, b.data, b.len, NULL, NULL, err, sizeof err), TM_EINVAL);
    CHECK_STR_HAS(err, "bad magic");
    buf_fini(&b);
}

/* A state written by hand after the layout of doc/checkpoint.md ("The time management
 * state"), independent of tm_save: federates A (1) and B (2), both regulating (L = 1) and
 * constrained; A at T = 4 with TAR(6) pending and one TSO message from B stamped 5 queued;
 * B granted at 5. `v` selects a variant that breaks one of the engine's invariants. */
static void encode(struct buf *b, int v)
{
    buf_clear(b);
    ckpt_put_u32(b, 0x54534d54u);
    ckpt_put_u32(b, 1);
    ckpt_put_u8(b, 1); /* reasons */
    ckpt_put_u8(b, 0);
    ckpt_put_u8(b, 0);
    ckpt_put_u64(b, 0); /* tie seed */
    ckpt_put_u64(b, 9); /* act */
    ckpt_put_u32(b, 2);
    /* A */
    ckpt_put_u32(b, 1);
    ckpt_put_str(b, "A");
    ckpt_put_i64(b, 4);
    ckpt_put_u8(b, 1);
    ckpt_put_u8(b, v == 3 ? 0 : 1); /* constrained */
    ckpt_put_u8(b, v == 2 ? 1 : 0); /* constrained pending */
    ckpt_put_i64(b, 1);
    ckpt_put_u8(b, TM_REQ_TAR);
    ckpt_put_i64(b, v == 1 ? 3 : 6); /* requested time (3 < T: broken) */
    ckpt_put_u8(b, 1);               /* strict0 */
    ckpt_put_i64(b, 4);              /* promise (4, strict) */
    ckpt_put_u8(b, 1);
    ckpt_put_u8(b, 0);  /* avail */
    ckpt_put_i64(b, 7); /* bound (7, non-strict) = 6 + L */
    ckpt_put_u8(b, 0);
    ckpt_put_u64(b, 0); /* sends */
    ckpt_put_u64(b, 8);
    ckpt_put_u64(b, 0);
    ckpt_put_u32(b, 0);
    ckpt_put_u64(b, 0);
    ckpt_put_u8(b, 0);
    ckpt_put_u32(b, 1);              /* one queued message */
    ckpt_put_i64(b, v == 4 ? 3 : 5); /* stamped 5 (3 < T: broken) */
    ckpt_put_u32(b, 2);              /* from B */
    ckpt_put_u64(b, 1);              /* B's first send */
    ckpt_put_u64(b, 77);             /* token */
    /* B */
    ckpt_put_u32(b, 2);
    ckpt_put_str(b, "B");
    ckpt_put_i64(b, 5);
    ckpt_put_u8(b, 1);
    ckpt_put_u8(b, 1);
    ckpt_put_u8(b, 0);
    ckpt_put_i64(b, 1);
    ckpt_put_u8(b, TM_REQ_NONE);
    ckpt_put_i64(b, TM_NO_TIME);
    ckpt_put_u8(b, 1);
    ckpt_put_i64(b, 5);
    ckpt_put_u8(b, 1);
    ckpt_put_u8(b, 0);
    ckpt_put_i64(b, 6);
    ckpt_put_u8(b, 0);
    ckpt_put_u64(b, 1);
    ckpt_put_u64(b, 9);
    ckpt_put_u64(b, 9);
    ckpt_put_u32(b, 0);
    ckpt_put_u64(b, 0);
    ckpt_put_u8(b, 0);
    ckpt_put_u32(b, 0);
}

static void test_documented_layout(void)
{
    struct buf b;
    buf_init(&b);
    encode(&b, 0);
    struct trace t = {0};
    tm_state *st = NULL;
    char err[TM_ERR_LEN] = "";
    CHECK(tm_restore(&st, b.data, b.len, sink, &t, err, sizeof err) == TM_OK, "restore: %s", err);
    if (st) {
        tm_status s;
        CHECK_INT_EQ(tm_query(st, 1, &s, NULL, 0), TM_OK);
        CHECK_STR_EQ(s.name, "A");
        CHECK_INT_EQ(s.time, 4);
        CHECK_INT_EQ(s.req, TM_REQ_TAR);
        CHECK_INT_EQ(s.req_time, 6);
        CHECK_INT_EQ(s.lookahead, 1);
        CHECK_INT_EQ((long)s.queued, 1);
        CHECK_INT_EQ(s.lits, 5);
        CHECK_INT_EQ(s.galt.t, 6); /* B's bound (6, non-strict): TAR(6) must wait */
        /* B asks TAR(7): its bound goes to 8, A's GALT passes 6, A gets the message and 6 */
        CHECK_INT_EQ(tm_request(st, 2, TM_REQ_TAR, 7, err, sizeof err), TM_OK);
        CHECK(t.s && strstr(t.s, "k2 f1 t5 r0 tso1 s2 q1 tok77") != NULL,
              "the queued message is delivered to A: %s", t.s ? t.s : "(nothing)");
        CHECK(t.s && strstr(t.s, "k1 f1 t6 r1") != NULL, "A is granted 6");
        tm_free(st);
    }
    free(t.s);
    /* each broken invariant is refused, naming the record */
    const char *why[] = {"", "pending request and requested time disagree",
                         "constrained and constrained-pending at once",
                         "TSO messages queued for a federate that is not constrained",
                         "stamped in the receiver's past"};
    for (int v = 1; v <= 4; v++) {
        encode(&b, v);
        st = NULL;
        CHECK_INT_EQ(tm_restore(&st, b.data, b.len, NULL, NULL, err, sizeof err), TM_EINVAL);
        CHECK(strstr(err, why[v]) && strstr(err, "record 0 (handle 1)"), "variant %d: %s", v, err);
        tm_free(st);
    }
    buf_fini(&b);
}

int main(void)
{
    test_documented_layout();
    test_random_cuts();
    test_refuses_bad_bytes();
    return check_summary();
}
