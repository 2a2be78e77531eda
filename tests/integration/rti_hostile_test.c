/* A model-based hostile client (issue 37; doc/robustness.md "What an RTI withstands"):
 * several federates at once, some speaking raw frames (tests/integration/rti_harness.h),
 * some through libtempo, send every request kind with extreme values (0, ±1, +inf,
 * INT64_MIN, the federate's time and bound ± 1, lookahead 0 and huge, sends after a grant to
 * +inf, resigns and dropped connections mid-request, mutated frames) in a random order drawn
 * from a seed. A model of each raw federate's time state (doc/time.md) predicts the status of
 * every time-management request and checks every grant; after each step the RTI must still run
 * and answer a PING, and a fresh connection must get through its handshake.
 *
 * The seed is printed; TEMPO_HOSTILE_SEED=N replays a run (the values drawn also follow the
 * grants received, so a replay follows the same path as long as the RTI answers alike);
 * HOSTILE_SECONDS=S runs for S seconds (default 3: `make test`; `make fuzz` runs it longer).
 * Read tests/integration/rti_robust_test.c for the malformed-frame cases. */
#include <inttypes.h>
#include <stdarg.h>

#include "federate/libtempo/tempo.h"
#include "fom/fom.h"
#include "tests/check.h"
#include "tests/integration/rti_harness.h"

#define N_RAW        3 /* federates on raw frames */
#define N_LIB        2 /* federates on libtempo */
#define FEDERATION   "hostile"
#define PROBE_EVERY  16   /* steps between fresh probe connections */
#define ANSWER_MS    5000 /* longest wait for one answer of the RTI */
#define DEFAULT_SECS 3

static char *fom_text;
static struct rti_proc rti;
static uint64_t rng;
static fom_handle ic_step, p_dt, cls_sample, a_x; /* from fom/test.xml */

static uint64_t next_u64(void)
{
    rng ^= rng << 13; /* xorshift64 */
    rng ^= rng >> 7;
    rng ^= rng << 17;
    return rng;
}

static uint32_t pick(uint32_t n)
{
    return (uint32_t)(next_u64() % n);
}

/* ---- the model of a raw federate -------------------------------------------------------- */

struct rawfed {
    struct cli c;
    char name[32];
    int joined;
    int64_t T;          /* logical time from the last grant */
    int reg, con;       /* regulation and constrained enabled (as the RTI confirmed) */
    int con_pending;    /* ENABLE_CONSTRAINED accepted, CONSTRAINED_ENABLED not yet */
    int64_t L;          /* lookahead while regulating */
    int pending;        /* a time request is pending */
    uint32_t pkind;     /* its kind (WIRE_TR_*) */
    int64_t pt;         /* its time */
    uint32_t akind;     /* kind of the time request whose answer is awaited (0: none) */
    int64_t at;         /* its time */
    int granted;        /* that request was granted before its answer came (at once) */
    uint64_t value;     /* the value (a) of the last REPLY: a registered object's handle */
    uint64_t obj;       /* an object it registered (0: none) */
    int unpub;          /* it unpublished Step (its sends are then refused before time
                           management sees them: 4) */
    int wild;           /* it sent a mutated frame: the model no longer knows its state, so only
                           the checks that hold in any state are made (until it joins again) */
    int gen;            /* joins so far (names stay unique) */
    char trail[8][160]; /* its last requests and answers, printed when the model disagrees */
    unsigned ntrail;
};

static struct rawfed raws[N_RAW];

static void note(struct rawfed *f, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void note(struct rawfed *f, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(f->trail[f->ntrail++ % 8], sizeof f->trail[0], fmt, ap);
    va_end(ap);
}

/* The model disagreed with the RTI about f: what led there. */
static void print_trail(const struct rawfed *f)
{
    unsigned n = f->ntrail < 8 ? f->ntrail : 8;
    fprintf(stderr, "  last %u events of %s:\n", n, f->name);
    for (unsigned i = f->ntrail - n; i < f->ntrail; i++)
        fprintf(stderr, "    %s\n", f->trail[i % 8]);
}
static tp_federate *libs[N_LIB];
static int lib_gen[N_LIB];
static long n_steps, n_refused, n_closed, n_grants, n_probes;

/* Apply one frame the RTI sent to f to the model, checking what the time rules say of it. */
static void model_frame(struct rawfed *f, const struct wire_msg *m)
{
    if (m->type == WIRE_TIME_GRANT || m->type == WIRE_REGULATION_ENABLED ||
        m->type == WIRE_CONSTRAINED_ENABLED)
        note(f, "<- %s %" PRId64 " (pending %d)", wire_type_name(m->type), m->time, f->pending);
    switch (m->type) {
    case WIRE_TIME_GRANT: {
        /* The grant of the pending request, or else of the one whose answer is awaited
         * (granted at once: its grant comes before the REPLY). */
        uint32_t kind = f->pending ? f->pkind : f->akind;
        int64_t t = f->pending ? f->pt : f->at;
        n_grants++;
        CHECK(f->wild || f->pending || f->akind,
              "%s: a grant (%" PRId64 ") with no request pending", f->name, m->time);
        CHECK(m->time >= f->T, "%s: grant %" PRId64 " below its time %" PRId64, f->name, m->time,
              f->T);
        if (f->wild)
            kind = 0;
        else if (kind == WIRE_TR_TAR || kind == WIRE_TR_TARA)
            CHECK(m->time == t, "%s: TAR/TARA(%" PRId64 ") granted %" PRId64, f->name, t, m->time);
        else if (kind)
            CHECK(m->time <= t, "%s: NER/NERA/FQR(%" PRId64 ") granted %" PRId64, f->name, t,
                  m->time);
        if (!f->pending) f->granted = 1;
        f->T = m->time;
        f->pending = 0;
        break;
    }
    case WIRE_REGULATION_ENABLED:
        f->reg = 1;
        break;
    case WIRE_CONSTRAINED_ENABLED:
        f->con = 1;
        f->con_pending = 0;
        break;
    default:
        break;
    }
}

static void raw_lost(struct rawfed *f)
{
    cli_close(&f->c);
    f->joined = 0;
    n_closed++;
}

/* Read what has arrived for f into the model without waiting. */
static void raw_drain(struct rawfed *f)
{
    struct wire_msg m;
    int r;
    while (f->joined && (r = cli_next(&f->c, &m, 0)) != 0) {
        if (r < 0) {
            raw_lost(f);
            return;
        }
        model_frame(f, &m);
    }
}

/* Send m with a request id and wait for its answer, feeding every other frame to the model.
 * @return the status, or -1 when the RTI closed the connection (then f is not joined). */
static long raw_call(struct rawfed *f, struct wire_msg *m, char *why, size_t whylen)
{
    m->req = f->c.next_req++;
    uint32_t req = m->req;
    f->granted = 0;
    why[0] = '\0';
    note(f, "-> %s code %u time %" PRId64 " time2 %" PRId64, wire_type_name(m->type), m->code,
         m->time, m->time2);
    if (cli_send(&f->c, m) != 0) {
        raw_lost(f);
        return -1;
    }
    int64_t end = rti_now_ms() + ANSWER_MS;
    for (;;) {
        struct wire_msg r;
        int left = (int)(end - rti_now_ms());
        int got = cli_next(&f->c, &r, left > 0 ? left : 0);
        if (got < 0) {
            raw_lost(f);
            return -1;
        }
        CHECK(got == 1, "%s: no answer to %s within %d ms", f->name, wire_type_name(m->type),
              ANSWER_MS);
        if (got == 0) {
            raw_lost(f);
            return -1;
        }
        if ((r.type == WIRE_REPLY || r.type == WIRE_ERROR || r.type == WIRE_SYNC_REGISTERED ||
             r.type == WIRE_TIME_STATUS || r.type == WIRE_PONG) &&
            r.req == req) {
            if (r.type == WIRE_REPLY || r.type == WIRE_ERROR || r.type == WIRE_SYNC_REGISTERED)
                wire_str_copy(&r.str[r.type == WIRE_SYNC_REGISTERED ? 1 : 0], why, whylen);
            f->value = r.type == WIRE_REPLY ? r.a : 0;
            long code = (r.type == WIRE_TIME_STATUS || r.type == WIRE_PONG) ? 0 : (long)r.code;
            note(f, "<- answer %ld", code);
            if (code) n_refused++;
            return code;
        }
        model_frame(f, &r);
    }
}

static int raw_join(struct rawfed *f, int k)
{
    snprintf(f->name, sizeof f->name, "raw%d_%d", k, f->gen++);
    if (cli_connect(&f->c, rti.port) != 0 || cli_hello(&f->c) != 0) {
        cli_close(&f->c);
        return -1;
    }
    int64_t h = cli_join(&f->c, FEDERATION, f->name, fom_text, WIRE_JOIN_CREATE, NULL, NULL, 0);
    CHECK(h > 0, "%s joins (%" PRId64 ")", f->name, h);
    if (h <= 0) {
        cli_close(&f->c);
        return -1;
    }
    f->joined = 1;
    f->wild = 0;
    f->unpub = 0;
    f->T = 0;
    f->reg = f->con = f->con_pending = f->pending = 0;
    f->L = 0;
    f->obj = 0;
    char why[256];
    struct wire_msg m;
    wire_msg_init(&m, WIRE_PUBLISH_INTERACTION);
    m.a = ic_step;
    raw_call(f, &m, why, sizeof why);
    wire_msg_init(&m, WIRE_SUBSCRIBE_INTERACTION);
    m.a = ic_step;
    if (f->joined) raw_call(f, &m, why, sizeof why);
    uint32_t attrs[1] = {a_x};
    wire_msg_init(&m, WIRE_PUBLISH_OBJECT);
    m.a = cls_sample;
    m.nhandles = 1;
    m.handles = attrs;
    if (f->joined) raw_call(f, &m, why, sizeof why);
    return f->joined ? 0 : -1;
}

/* ---- extreme values ------------------------------------------------------------------------ */

/* A time around something that matters to f: 0, ±1, the ends of the range, its time and its
 * bound ± 1, the pending request's time ± 1, +inf - 1. */
static int64_t pick_time(int64_t T, int64_t L, int64_t pt)
{
    int64_t b = L > INT64_MAX - T ? INT64_MAX : T + L;
    int64_t around[] = {T, b, pt, 0};
    switch (pick(12)) {
    case 0:
        return 0;
    case 1:
        return pick(2) ? 1 : -1;
    case 2:
        return INT64_MAX;
    case 3:
        return INT64_MAX - 1;
    case 4:
        return INT64_MIN; /* "no time stamp" on the wire */
    case 5:
        return INT64_MIN + 1;
    case 6:
        return (int64_t)(next_u64() >> 1) - (int64_t)(next_u64() >> 1);
    default: {
        int64_t c = around[pick(4)];
        int64_t d = (int64_t)pick(3) - 1;
        if (c == INT64_MAX && d > 0) return c;
        if (c == INT64_MIN && d < 0) return c;
        return c + d;
    }
    }
}

static int64_t pick_lookahead(void)
{
    static const int64_t v[] = {
        0, 0, 1, 2, 1000, INT64_MAX, INT64_MAX - 1, -1, INT64_MIN, (int64_t)1 << 40};
    return v[pick(sizeof v / sizeof v[0])];
}

/* ---- one step of a raw federate ----------------------------------------------------------- */

/* What the time rules (doc/time.md, rti/tm/tm.h) answer in a federate's state. The RTI
 * handles a request either before or after frames already on their way to it (another
 * federate's request in flight may grant this one's pending request first), so each check
 * accepts the answer for the state before the call (*pre*) or for the state its other frames
 * left (*post*: only the pending request and the time move; regulation and constrained change
 * only by this federate's own calls). */
struct tstate {
    int64_t T;
    int reg, con, con_pending, pending;
};

static struct tstate state_of(const struct rawfed *f)
{
    return (struct tstate){f->T, f->reg, f->con, f->con_pending, f->pending};
}

static long want_of(int op, struct tstate s, int64_t t, int64_t L)
{
    switch (op) {
    case 0: /* TIME_REQUEST: tm_request's checks, in its order */
        if (s.pending || s.con_pending) return STATUS_EPENDING;
        return t < s.T ? STATUS_ETIME : STATUS_OK;
    case 1: /* ENABLE_REGULATION: tm_enable_regulation */
        if (L < 0) return STATUS_EINVAL;
        if (s.reg) return STATUS_EENABLED;
        return s.pending ? STATUS_EPENDING : STATUS_OK;
    case 2: /* MODIFY_LOOKAHEAD */
        if (!s.reg) return STATUS_ENOTENABLED;
        return L < 0 ? STATUS_EINVAL : STATUS_OK;
    case 3: /* DISABLE_REGULATION */
        return s.reg ? STATUS_OK : STATUS_ENOTENABLED;
    case 4: /* ENABLE_CONSTRAINED */
        if (s.con || s.con_pending) return STATUS_EENABLED;
        return s.pending ? STATUS_EPENDING : STATUS_OK;
    case 5: /* DISABLE_CONSTRAINED */
        return s.con || s.con_pending ? STATUS_OK : STATUS_ENOTENABLED;
    default:
        return STATUS_OK; /* QUERY_TIME */
    }
}

static const char *const op_names[] = {
    "TIME_REQUEST",       "ENABLE_REGULATION",   "MODIFY_LOOKAHEAD", "DISABLE_REGULATION",
    "ENABLE_CONSTRAINED", "DISABLE_CONSTRAINED", "QUERY_TIME"};

static void raw_time_step(struct rawfed *f, int op)
{
    static const unsigned types[] = {WIRE_TIME_REQUEST,       WIRE_ENABLE_REGULATION,
                                     WIRE_MODIFY_LOOKAHEAD,   WIRE_DISABLE_REGULATION,
                                     WIRE_ENABLE_CONSTRAINED, WIRE_DISABLE_CONSTRAINED,
                                     WIRE_QUERY_TIME};
    struct wire_msg m;
    char why[512];
    int64_t L = pick_lookahead();
    int64_t t = pick_time(f->T, f->L, f->pending ? f->pt : f->T);
    uint32_t kind = WIRE_TR_TAR + pick(5);
    wire_msg_init(&m, types[op]);
    if (op == 0) {
        m.code = kind;
        m.time = t;
        f->akind = kind;
        f->at = t;
    } else if (op == 1 || op == 2) {
        m.time2 = L;
    }
    struct tstate pre = state_of(f);
    long got = raw_call(f, &m, why, sizeof why);
    f->akind = 0;
    if (got < 0) return;
    struct tstate post = pre;
    post.T = f->T;
    post.pending = f->pending;
    post.con_pending = f->con_pending && !f->con;
    post.con = f->con || pre.con;
    long w1 = want_of(op, pre, t, L), w2 = want_of(op, post, t, L);
    /* a grant of this very request came before its answer: it was accepted (in whatever
     * state the frames before it left: an enable of constrained may have completed first) */
    if (op == 0 && f->granted) w1 = w2 = STATUS_OK;
    CHECK(f->wild || got == w1 || got == w2,
          "%s: %s (kind %u, time %" PRId64 ", lookahead %" PRId64 ") at T %" PRId64
          " answered %ld, the model wants %ld or %ld (%s; model: reg %d con %d con_pending %d "
          "pending %d %u(%" PRId64 "))",
          f->name, op_names[op], kind, t, L, pre.T, got, w1, w2, why, pre.reg, pre.con,
          pre.con_pending, pre.pending, f->pkind, f->pt);
    if (!f->wild && got != w1 && got != w2) print_trail(f);
    if (got != STATUS_OK) return;
    switch (op) {
    case 0:
        if (!f->granted) {
            f->pending = 1;
            f->pkind = kind;
            f->pt = t;
        }
        break;
    case 1:
    case 2:
        f->L = L;
        break;
    case 3:
        f->reg = 0;
        f->L = 0;
        break;
    case 4:
        if (!f->con) f->con_pending = 1;
        break;
    case 5:
        /* a pending request of a federate no longer constrained was granted at once; its
         * grant came before this answer (model_frame) */
        f->con = f->con_pending = 0;
        break;
    default:
        break;
    }
}

/* A time-stamped (or not) interaction or update at an interesting time: a regulating sender
 * may never send at +inf nor below its time. */
static void raw_send_step(struct rawfed *f, int update)
{
    struct wire_msg m;
    char why[512];
    uint8_t dt[8] = {0};
    struct wire_value v = {.handle = update ? a_x : p_dt, .len = 8, .data = dt};
    int64_t ts = pick_time(f->T, f->L, f->pending ? f->pt : f->T);
    if (update && !f->obj) {
        wire_msg_init(&m, WIRE_REGISTER_OBJECT);
        m.a = cls_sample;
        if (raw_call(f, &m, why, sizeof why) == 0) f->obj = f->value;
        return;
    }
    wire_msg_init(&m, update ? WIRE_UPDATE : WIRE_SEND_INTERACTION);
    m.a = update ? f->obj : ic_step;
    m.time = ts;
    m.nvalues = 1;
    m.values = &v;
    long got = raw_call(f, &m, why, sizeof why);
    if (got < 0) return;
    if (f->wild || (f->unpub && !update)) return;
    if (f->reg && ts == INT64_MAX)
        CHECK(got == STATUS_EBOUND, "%s: a send at +inf answered %ld, want 22 (%s)", f->name, got,
              why);
    if (f->reg && ts != WIRE_TIME_NONE && ts < f->T)
        CHECK(got == STATUS_EBOUND,
              "%s: a send at %" PRId64 " below its time %" PRId64 " answered %ld, want 22 (%s)",
              f->name, ts, f->T, got, why);
    if (!f->reg && !update)
        CHECK(got == STATUS_OK, "%s: a receive-order send answered %ld (%s)", f->name, got, why);
}

/* A synchronization point with a tag, achieved or not; a REQUEST_UPDATE; a DELETE at a time. */
static void raw_misc_step(struct rawfed *f)
{
    struct wire_msg m;
    char why[512], label[32];
    static uint8_t tag[4096];
    switch (pick(4)) {
    case 0:
        snprintf(label, sizeof label, "sp%u", pick(8));
        wire_msg_init(&m, WIRE_REGISTER_SYNC);
        wire_str_set(&m.str[0], label);
        m.str[1].ptr = (const char *)tag;
        m.str[1].len = pick(2) ? 0 : pick(sizeof tag);
        raw_call(f, &m, why, sizeof why);
        break;
    case 1:
        snprintf(label, sizeof label, "sp%u", pick(8));
        wire_msg_init(&m, WIRE_ACHIEVE_SYNC);
        wire_str_set(&m.str[0], label);
        raw_call(f, &m, why, sizeof why);
        break;
    case 2:
        wire_msg_init(&m, WIRE_DELETE_OBJECT);
        m.a = pick(2) ? f->obj : pick(20);
        m.time = pick_time(f->T, f->L, f->T);
        if (raw_call(f, &m, why, sizeof why) == 0) f->obj = 0;
        break;
    default: {
        uint32_t h[1] = {a_x};
        wire_msg_init(&m, WIRE_REQUEST_UPDATE);
        m.code = WIRE_RU_CLASS;
        m.a = cls_sample;
        m.nhandles = 1;
        m.handles = h;
        raw_call(f, &m, why, sizeof why);
        break;
    }
    }
}

/* Leave in the middle of things: RESIGN (either action) with a request pending, or drop the
 * connection without a word; or send a frame with one byte changed (the RTI may refuse it or
 * close the connection, never more). */
static void raw_leave_step(struct rawfed *f)
{
    struct wire_msg m;
    char why[256];
    switch (pick(3)) {
    case 0:
        wire_msg_init(&m, WIRE_RESIGN);
        m.code = pick(2) ? WIRE_RESIGN_KEEP_OBJECTS : WIRE_RESIGN_DELETE_OBJECTS;
        if (raw_call(f, &m, why, sizeof why) >= 0) {
            cli_close(&f->c);
            f->joined = 0;
        }
        break;
    case 1:
        raw_lost(f);
        break;
    default: {
        wire_msg_init(&m, WIRE_TIME_REQUEST);
        m.req = f->c.next_req++;
        m.code = WIRE_TR_TAR;
        m.time = f->T;
        buf_clear(&f->c.out);
        char err[200];
        if (wire_encode(&f->c.out, &m, 0, err, sizeof err) != WIRE_OK) return;
        size_t at = pick((uint32_t)f->c.out.len);
        f->c.out.data[at] ^= (uint8_t)(1u << pick(8));
        if (cli_write(&f->c, f->c.out.data, f->c.out.len) != 0) raw_lost(f);
        /* from now on the model does not know what the RTI made of it */
        f->wild = 1;
        struct wire_msg r;
        int got;
        while ((got = cli_next(&f->c, &r, 20)) == 1)
            model_frame(f, &r);
        /* a changed length leaves the RTI waiting for the rest of a frame (until
         * --frame-ms): the stream is out of step, so this connection ends here */
        raw_lost(f);
        break;
    }
    }
}

/* Declarations undone and done again: UNPUBLISH / UNSUBSCRIBE / PUBLISH / SUBSCRIBE of Step,
 * or of the object class with attribute handles from the FOM's and beyond it. */
static void raw_decl_step(struct rawfed *f)
{
    static const unsigned types[] = {WIRE_UNPUBLISH_INTERACTION,   WIRE_PUBLISH_INTERACTION,
                                     WIRE_UNSUBSCRIBE_INTERACTION, WIRE_SUBSCRIBE_INTERACTION,
                                     WIRE_SUBSCRIBE_OBJECT,        WIRE_UNSUBSCRIBE_OBJECT};
    unsigned type = types[pick(6)];
    struct wire_msg m;
    char why[256];
    uint32_t h[2] = {a_x, pick(2) ? 0 : pick(100000)};
    wire_msg_init(&m, type);
    m.a = type == WIRE_SUBSCRIBE_OBJECT || type == WIRE_UNSUBSCRIBE_OBJECT ? cls_sample : ic_step;
    if (type == WIRE_SUBSCRIBE_OBJECT || type == WIRE_UNSUBSCRIBE_OBJECT) {
        m.nhandles = 1 + pick(2);
        m.handles = h;
    }
    long got = raw_call(f, &m, why, sizeof why);
    if (got == 0 && type == WIRE_UNPUBLISH_INTERACTION) f->unpub = 1;
    if (got == 0 && type == WIRE_PUBLISH_INTERACTION) f->unpub = 0;
}

/* A stranger: a fresh connection that creates, destroys or joins federations with names that
 * exist, do not, are empty or too long, and FOMs that are right, broken or absent; the
 * status is checked where the rules fix it. */
static void stranger_step(void)
{
    struct cli c;
    if (cli_connect(&c, rti.port) != 0 || cli_hello(&c) != 0) {
        cli_close(&c);
        return;
    }
    static const char *names[] = {FEDERATION, "probe", "s1", "s2", "", "x"};
    char longname[200];
    memset(longname, 'n', sizeof longname - 1);
    longname[sizeof longname - 1] = '\0';
    const char *name = pick(8) ? names[pick(6)] : longname;
    const char *fom = pick(4) ? fom_text : (pick(2) ? "<fom" : "");
    struct wire_msg m;
    char why[512];
    long st;
    switch (pick(3)) {
    case 0:
        wire_msg_init(&m, WIRE_CREATE_FEDERATION);
        wire_str_set(&m.str[0], name);
        wire_str_set(&m.str[1], fom);
        st = cli_call(&c, &m, NULL, why, sizeof why);
        if (!name[0] || strlen(name) > 127)
            CHECK(st == STATUS_EINVAL, "CREATE_FEDERATION of a bad name answered %ld (%s)", st,
                  why);
        else if (strcmp(name, "probe") == 0)
            CHECK(st == STATUS_EEXISTS, "CREATE_FEDERATION of a live federation answered %ld (%s)",
                  st, why);
        break;
    case 1:
        wire_msg_init(&m, WIRE_DESTROY_FEDERATION);
        wire_str_set(&m.str[0], name);
        st = cli_call(&c, &m, NULL, why, sizeof why);
        if (strcmp(name, "probe") == 0)
            CHECK(st == STATUS_EREFUSED,
                  "DESTROY_FEDERATION of a joined federation answered %ld "
                  "(%s)",
                  st, why);
        break;
    default: {
        const char *who = pick(2) ? "probe" : name;
        int64_t h = cli_join(&c, name, who, fom, pick(4), NULL, why, sizeof why);
        /* the probe's federation and name: the FOM is compared first, then the name */
        if (strcmp(name, "probe") == 0 && strcmp(who, "probe") == 0)
            CHECK(h == (fom[0] == '<' && fom[1] == 'f' && !fom[4] ? -STATUS_EFOM : -STATUS_EEXISTS),
                  "JOIN of probe/probe answered %" PRId64 " (%s)", h, why);
        if (!name[0] || strlen(name) > 127)
            CHECK(h == -STATUS_EINVAL, "JOIN with a bad name answered %" PRId64 " (%s)", h, why);
        break;
    }
    }
    cli_close(&c);
}

static void raw_step(int k)
{
    struct rawfed *f = &raws[k];
    if (!f->joined) {
        raw_join(f, k);
        return;
    }
    raw_drain(f);
    if (!f->joined) return;
    uint32_t op = pick(22);
    if (op < 9)
        raw_time_step(f, (int)pick(7));
    else if (op < 15)
        raw_send_step(f, op == 14);
    else if (op < 18)
        raw_misc_step(f);
    else if (op < 19)
        raw_decl_step(f);
    else if (op < 20)
        stranger_step();
    else
        raw_leave_step(f);
}

/* ---- one step of a libtempo federate -------------------------------------------------------- */

/* The library's log lines (refusals it is told of) would fill the test's output. */
static void quiet_log(void *ctx, tp_log_level level, const char *line)
{
    (void)ctx;
    (void)level;
    (void)line;
}

static void lib_step(int k)
{
    tp_federate *f = libs[k];
    if (!f) {
        char name[32], err[512];
        snprintf(name, sizeof name, "lib%d_%d", k, lib_gen[k]++);
        tp_join_options o = {.rti = rti.addr,
                             .federation = FEDERATION,
                             .federate = name,
                             .fom_text = fom_text,
                             .create = 1,
                             .resign_action = pick(2) ? TP_KEEP_OBJECTS : TP_DELETE_OBJECTS,
                             .timeout_ms = ANSWER_MS};
        tp_callbacks cb = {.log = quiet_log};
        int rc = tp_join(&o, &cb, NULL, &libs[k], err, sizeof err);
        CHECK(rc == TP_OK, "%s joins through libtempo: %s", name, err);
        if (rc == TP_OK) {
            tp_publish_interaction_class(libs[k], ic_step);
            tp_subscribe_interaction_class(libs[k], ic_step);
        }
        return;
    }
    tp_evoke(f, 0);
    tp_time now = 0, L = 0;
    tp_query_logical_time(f, &now);
    if (tp_query_lookahead(f, &L) != TP_OK) L = 0;
    tp_time t = pick_time(now, L, now);
    uint8_t dt[8] = {0};
    tp_value v = {.handle = p_dt, .data = dt, .size = 8};
    int rc = TP_OK;
    switch (pick(12)) {
    case 0:
        rc = tp_time_advance_request(f, t);
        break;
    case 1:
        rc = tp_time_advance_request_available(f, t);
        break;
    case 2:
        rc = tp_next_event_request(f, t);
        break;
    case 3:
        rc = tp_next_event_request_available(f, t);
        break;
    case 4:
        rc = tp_flush_queue_request(f, t);
        break;
    case 5:
        rc = pick(2) ? tp_enable_regulation(f, pick_lookahead()) : tp_disable_regulation(f);
        break;
    case 6:
        rc = pick(2) ? tp_enable_constrained(f) : tp_disable_constrained(f);
        break;
    case 7:
        rc = tp_modify_lookahead(f, pick_lookahead());
        break;
    case 8: {
        tp_time bound;
        int regulating = tp_query_send_bound(f, &bound, NULL) == TP_OK;
        rc = tp_send_interaction(f, ic_step, &v, 1, t);
        if (regulating && t == TP_TIME_MAX)
            CHECK(rc == TP_EBOUND, "libtempo federate %d: a send at +inf returned %s", k,
                  tp_strerror(rc));
        break;
    }
    case 9: {
        tp_time got;
        rc = tp_wait_grant(f, &got, pick(2) ? 0 : 5);
        break;
    }
    case 10: {
        tp_time_status st[16];
        size_t n = 0;
        rc = tp_query_time_status(f, st, 16, &n);
        break;
    }
    default: /* resign mid-request (or not), either action */
        tp_resign(f, pick(2) ? TP_KEEP_OBJECTS : TP_DELETE_OBJECTS);
        tp_federate_free(f);
        libs[k] = NULL;
        return;
    }
    if (rc == TP_ECLOSED) { /* the RTI dropped it (it must then say why in the log) */
        tp_federate_free(f);
        libs[k] = NULL;
        n_closed++;
    }
}

/* ---- liveness ------------------------------------------------------------------------------ */

static struct cli probe;

/* Is the RTI running and answering? A PING on the probe connection, and every PROBE_EVERY
 * steps a fresh connection through its handshake. */
static int rti_answers(long step)
{
    if (!rti_alive(&rti)) return 0;
    struct wire_msg m;
    wire_msg_init(&m, WIRE_PING);
    m.req = probe.next_req++;
    uint32_t req = m.req;
    if (cli_send(&probe, &m) != 0) return 0;
    int64_t end = rti_now_ms() + ANSWER_MS;
    for (;;) {
        int left = (int)(end - rti_now_ms());
        if (cli_next(&probe, &m, left > 0 ? left : 0) != 1) return 0;
        if (m.type == WIRE_PONG && m.req == req) break;
    }
    if (step % PROBE_EVERY == 0) {
        struct cli fresh;
        int ok = cli_connect(&fresh, rti.port) == 0 && cli_hello(&fresh) == 0;
        cli_close(&fresh);
        n_probes++;
        if (!ok) return 0;
    }
    return 1;
}

int main(void)
{
    const char *secs_env = getenv("HOSTILE_SECONDS");
    long secs = secs_env ? strtol(secs_env, NULL, 10) : DEFAULT_SECS;
    if (secs <= 0) secs = DEFAULT_SECS;
    rti_watchdog((unsigned)secs + 120);
    const char *seed_env = getenv("TEMPO_HOSTILE_SEED");
    uint64_t seed =
        seed_env ? strtoull(seed_env, NULL, 10) : (uint64_t)time(NULL) ^ (uint64_t)getpid();
    if (seed == 0) seed = 1;
    rng = seed;
    printf("rti_hostile_test: seed %" PRIu64 " (TEMPO_HOSTILE_SEED=%" PRIu64 " replays), %ld s\n",
           seed, seed, secs);
    fflush(stdout);

    fom_text = h_slurp("fom/test.xml");
    struct fom *fom = NULL;
    CHECK(fom_text &&
              fom_parse_mem(fom_text, strlen(fom_text), "test.xml", &fom, NULL, 0) == FOM_OK,
          "fom/test.xml parses");
    if (!fom) return check_summary();
    ic_step = fom_inter_find(fom, "Step");
    p_dt = fom_param_find(fom, ic_step, "dt");
    cls_sample = fom_class_find(fom, "Sample");
    a_x = fom_attr_find(fom, cls_sample, "x");
    fom_free(fom);

    const char *extra[] = {"--log-level", "warn", NULL};
    CHECK(rti_start(&rti, extra, "rti_hostile_test") == 0, "tempo-rti starts");
    if (!rti.pid) return check_summary();
    /* the probe joins a federation of its own: a connection that never joins is closed after
     * --handshake-ms */
    CHECK(cli_connect(&probe, rti.port) == 0 && cli_hello(&probe) == 0 &&
              cli_join(&probe, "probe", "probe", fom_text, WIRE_JOIN_CREATE, NULL, NULL, 0) > 0,
          "probe connects and joins");

    check_case_begin();
    int64_t end = rti_now_ms() + secs * 1000;
    int alive = 1;
    while (alive && rti_now_ms() < end) {
        uint32_t who = pick(N_RAW + N_LIB);
        if (who < N_RAW)
            raw_step((int)who);
        else
            lib_step((int)(who - N_RAW));
        n_steps++;
        alive = rti_answers(n_steps);
        CHECK(alive, "the RTI is alive and answering after step %ld (seed %" PRIu64 ")", n_steps,
              seed);
    }
    check_case_end(alive);
    printf("rti_hostile_test: %ld steps, %ld refusals, %ld grants checked, %ld connections "
           "dropped, %ld fresh probes (seed %" PRIu64 ")\n",
           n_steps, n_refused, n_grants, n_closed, n_probes, seed);
    CHECK(n_steps >= 50, "at least 50 steps ran (%ld)", n_steps);
    CHECK(n_grants > 0, "some grants were checked against the model");

    for (int k = 0; k < N_RAW; k++)
        cli_close(&raws[k].c);
    for (int k = 0; k < N_LIB; k++)
        tp_federate_free(libs[k]);
    cli_close(&probe);
    CHECK(rti_stop(&rti, 5000) == 0, "the RTI stops cleanly (exit 0) after the run");
    free(fom_text);
    return check_summary();
}
