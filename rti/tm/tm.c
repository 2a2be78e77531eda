/* Time management engine (doc/time.md, normative): per-federate bounds, GALT as the
 * greatest fixed point over all federates, grants per the request table, and time-stamp-
 * order queues. Pure code: events in, decisions out through the sink (doc/contributing.md §3).
 * Read rti/tm/tm.h for the contract and doc/time.md for the rules with examples; the bound
 * table is rti/proto/bound.h and the wording of reasons rti/tm/tm_reason.c.
 *
 * Divisions: 1. bounds and helpers  2. queues  3. federate table  4. bounds and the fixed
 * point  5. grants and the evaluation loop  6. events  7. queries  8. checkpoint. */
#include "rti/tm/tm.h"

#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rti/proto/ckpt.h"
#include "rti/proto/wire.h"
#include "rti/tm/tm_impl.h"
#include "rti/tm/tm_test.h"

/* The mirrored constants of engine, bound table and wire are one set of numbers: the server
 * passes request kinds and times through unchanged (rti/server/timesvc.c). */
_Static_assert(TM_TIME_MAX == BOUND_TIME_MAX, "infinity differs between tm and bound");
_Static_assert(TM_NO_TIME == WIRE_TIME_NONE, "'no time' differs between tm and wire");
_Static_assert(TM_REQ_NONE == (int)BOUND_REQ_NONE && TM_REQ_NONE == (int)WIRE_TR_NONE,
               "request kind NONE differs");
_Static_assert(TM_REQ_TAR == (int)BOUND_REQ_TAR && TM_REQ_TAR == (int)WIRE_TR_TAR,
               "request kind TAR differs");
_Static_assert(TM_REQ_TARA == (int)BOUND_REQ_TARA && TM_REQ_TARA == (int)WIRE_TR_TARA,
               "request kind TARA differs");
_Static_assert(TM_REQ_NER == (int)BOUND_REQ_NER && TM_REQ_NER == (int)WIRE_TR_NER,
               "request kind NER differs");
_Static_assert(TM_REQ_NERA == (int)BOUND_REQ_NERA && TM_REQ_NERA == (int)WIRE_TR_NERA,
               "request kind NERA differs");
_Static_assert(TM_REQ_FQR == (int)BOUND_REQ_FQR && TM_REQ_FQR == (int)WIRE_TR_FQR,
               "request kind FQR differs");

/* The allocator (tm_impl.h); tm_test_set_alloc swaps it for fault injection. */
void *(*tm_calloc)(size_t n, size_t size) = calloc;
void *(*tm_realloc)(void *p, size_t size) = realloc;

void tm_test_set_alloc(void *(*calloc_fn)(size_t n, size_t size),
                       void *(*realloc_fn)(void *p, size_t size))
{
    tm_calloc = calloc_fn ? calloc_fn : calloc;
    tm_realloc = realloc_fn ? realloc_fn : realloc;
}

/* ==== 1. bounds and helpers ================================================================ */

static const tm_bound INF = {TM_TIME_MAX, true}; /* the greatest pair: "nothing will come" */

tm_time tm_time_add(tm_time a, tm_time b)
{
    return bound_time_add(a, b);
}

int tm_bound_cmp(tm_bound a, tm_bound b)
{
    return bound_cmp(a, b);
}

/* Short names for the pair operations of rti/proto/bound.h, used throughout. */
static tm_bound mk(tm_time t, bool strict)
{
    return bound_make(t, strict);
}

static tm_bound bmin(tm_bound a, tm_bound b)
{
    return bound_min(a, b);
}
static tm_bound bmax(tm_bound a, tm_bound b)
{
    return bound_max(a, b);
}

/* "GALT > t": no TSO message with ts <= t can still arrive, i.e. GALT >= (t, strict). */
static bool above(tm_bound g, tm_time t)
{
    return tm_bound_cmp(g, mk(t, true)) >= 0;
}
/* "GALT >= t": none with ts < t can still arrive, i.e. GALT >= (t, non-strict). */
static bool at_or_above(tm_bound g, tm_time t)
{
    return tm_bound_cmp(g, mk(t, false)) >= 0;
}

/* ==== 2. queues ============================================================================ */

/* One queued TSO message. Nodes live inline in a per-receiver binary heap whose array only
 * grows (doubling), so a warm federation queues and delivers without allocating; this plays
 * the part of the free list of doc/contributing.md §8. */
struct qmsg {
    tm_time ts;     /* time stamp (ticks) */
    uint64_t rank;  /* order of ties between senders: the sender handle, or a keyed hash of it
                       in the tie-shuffling test mode (tm_set_tie_shuffle) */
    tm_fed sender;  /* sending federate */
    uint64_t seq;   /* sender's send sequence number */
    uint64_t token; /* server's payload handle */
};

struct queue {
    struct qmsg *a; /* heap array, a[0] is the next message in delivery order */
    size_t n;       /* messages queued */
    size_t cap;     /* slots allocated */
};

/* The delivery order (§5 further rules, tie rule in doc/time.md): time stamp, then sender
 * handle, then the sender's send sequence, so equal stamps from one sender keep their send
 * order and a replay of the same events delivers identically. */
static bool qless(const struct qmsg *x, const struct qmsg *y)
{
    if (x->ts != y->ts) return x->ts < y->ts;
    if (x->rank != y->rank) return x->rank < y->rank;
    if (x->sender != y->sender) return x->sender < y->sender;
    return x->seq < y->seq;
}

static int q_reserve(struct queue *q, size_t extra)
{
    if (q->n + extra <= q->cap) return 0;
    size_t cap = q->cap ? q->cap : 8;
    while (cap < q->n + extra)
        cap *= 2;
    struct qmsg *a = tm_realloc(q->a, cap * sizeof *a);
    if (!a) return -1;
    q->a = a;
    q->cap = cap;
    return 0;
}

/* O(log n). The caller reserved room with q_reserve (tm_send checks every receiver first);
 * should it not have, the queue grows here. @return 0, or -1 when it cannot grow (nothing
 * queued). No assert: tm_send runs on a client's frame (doc/contributing.md §6). */
static int q_push(struct queue *q, struct qmsg m)
{
    if (q->n >= q->cap && q_reserve(q, 1) != 0) return -1;
    size_t i = q->n++;
    while (i > 0) {
        size_t p = (i - 1) / 2;
        if (!qless(&m, &q->a[p])) break;
        q->a[i] = q->a[p];
        i = p;
    }
    q->a[i] = m;
    return 0;
}

/* O(log n). Removes the first message in delivery order into *out. @return false (and *out
 * untouched) when q is empty, so every drain is `while (q_pop(q, &m))`. */
static bool q_pop(struct queue *q, struct qmsg *out)
{
    if (q->n == 0) return false;
    struct qmsg top = q->a[0], last = q->a[--q->n];
    size_t i = 0, n = q->n;
    for (;;) {
        size_t c = 2 * i + 1;
        if (c >= n) break;
        if (c + 1 < n && qless(&q->a[c + 1], &q->a[c])) c++;
        if (!qless(&q->a[c], &last)) break;
        q->a[i] = q->a[c];
        i = c;
    }
    if (n > 0) q->a[i] = last;
    *out = top;
    return true;
}

/* Least incoming time stamp: TM_TIME_MAX when empty. */
static tm_time q_min(const struct queue *q)
{
    return q->n ? q->a[0].ts : TM_TIME_MAX;
}

/* ==== 3. federate table ==================================================================== */

struct fed {
    tm_fed h;         /* handle */
    char name[64];    /* for reasons and errors */
    tm_time T;        /* logical time: the last grant (0 at join) */
    bool reg;         /* time regulating */
    bool con;         /* time constrained */
    bool con_pending; /* enable constrained asked, waiting for GALT >= T */
    tm_time L;        /* lookahead (ticks), meaningful when reg */
    tm_req req;       /* pending request, TM_REQ_NONE in the granted state */
    tm_time rt;       /* requested time of req */
    bool strict0;     /* at L = 0 the granted-state bound is (T, strict): last grant was
                         TAR/NER/FQR; false after TARA/NERA or enabling regulation */
    tm_bound promise; /* constrained: the greatest promise made to it since it became
                         constrained, "no TSO message below this will reach you": (T, strict)
                         after a TAR/NER grant at T, (T, non-strict) after TARA/NERA/FQR or
                         enabling. Cumulative: a later grant at the same T never lowers it
                         (TAR(T) then TARA(T) keeps (T, strict)). Meaningless when !con */
    bool avail;       /* constrained and granted by TARA/NERA/FQR or just enabled: a TSO
                         message stamped exactly T arriving now is delivered at once */
    tm_bound bound;   /* effective bound (valid when reg): never goes down while reg, it is
                         also the floor of the next computation */
    uint64_t seq;     /* sends made so far (the next send gets seq + 1) */
    unsigned mark;    /* duplicate-receiver check in tm_send */
    struct queue q;   /* TSO messages waiting for delivery to this federate */
    /* results of the last compute() */
    tm_bound floor; /* bound before this computation (scratch) */
    tm_bound galt;  /* min of the others' bounds */
    tm_fed holder;  /* whose bound that is, TM_NO_FED if none */
    tm_fed root;    /* root of the NER chain behind holder */
    tm_fed myroot;  /* root of this federate's own bound (itself unless NER-derived) */
    /* stall detection under polling (tm_stall_waits_for): a grant that leaves T unchanged
     * and follows no delivery makes no progress */
    uint64_t last_act;  /* st->act at its last join, request or send */
    uint64_t last_send; /* st->act at its last send (0: none yet): a stalled poller waits for
                           those that sent nothing since it began (tm_stall_waits_for) */
    uint32_t polls;     /* grants in a row at T without progress (0 after one with progress) */
    uint64_t poll_act;  /* last_act of the request whose grant began that run */
    bool got;           /* a message was delivered to it since its last grant */
};

struct tm_state {
    struct fed **f;        /* joined federates, sorted by handle */
    size_t n;              /* how many */
    size_t cap;            /* slots in f */
    uint32_t *idx;         /* handle -> position + 1 (0 = not joined) */
    size_t idxcap;         /* entries in idx */
    unsigned epoch;        /* for fed.mark */
    tm_fed u0;             /* from the last compute(): holder of the smallest bound (0 = none) */
    tm_fed h0;             /* holder of the smallest bound among the others than u0 (0 = none) */
    size_t nner;           /* federates with NER/NERA pending at the last compute() */
    tm_bound mu;           /* the smallest bound (INF when nobody regulates) */
    size_t cnt;            /* regulating federates whose own (not NER-derived) bound is mu */
    bool stale;            /* u0, h0 and the holder/root fields are out of date: a fast request
                              moved a federate off mu (holder_of() recomputes them on demand) */
    tm_sink sink;          /* decision sink, may be NULL */
    void *ctx;             /* its context */
    bool reasons;          /* format reason texts (tm_set_reasons); off: every reason is "" */
    uint64_t tie_seed;     /* tm_set_tie_shuffle: 0 off (ties between senders by handle) */
    bool quiet_deliveries; /* tm_set_delivery_reasons(false): DELIVER reasons are "" */
    bool quiet_grants;     /* tm_set_grant_reasons(false): GRANT reasons are "" */
    char why[320];         /* reason text of the decision being emitted */
    uint64_t act;          /* counts joins, requests and sends: the order of federates' acts */
};

static void seterr(char *err, size_t errlen, const char *fmt, ...)
{
    if (!err || errlen == 0) return;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(err, errlen, fmt, ap);
    va_end(ap);
}

static struct fed *find(const tm_state *st, tm_fed h)
{
    if (h == TM_NO_FED || h >= st->idxcap || st->idx[h] == 0) return NULL;
    return st->f[st->idx[h] - 1];
}

static const char *fname(const tm_state *st, tm_fed h)
{
    const struct fed *f = find(st, h);
    return f ? f->name : "nobody";
}

/* Does anyone read reason texts? Formatting one costs about as much as the rest of a
 * request (snprintf, and an O(N) holder lookup after fast requests), so the hot paths
 * (deliver, grant) build their texts only when this holds. */
static bool wants_reasons(const tm_state *st)
{
    return st->sink && st->reasons;
}

/* Emit one decision with a formatted reason ("" when reasons are off). */
static void emit(tm_state *st, tm_decision *d, const char *fmt, ...)
{
    if (!st->sink) return;
    st->why[0] = '\0';
    if (st->reasons) {
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(st->why, sizeof st->why, fmt, ap);
        va_end(ap);
    }
    d->reason = st->why;
    st->sink(st->ctx, d);
}

/* A refusal: the error text goes to the caller's buffer and, as TM_D_REFUSED, to the sink. */
static int refuse(tm_state *st, tm_fed h, int code, char *err, size_t errlen, const char *fmt, ...)
{
    char msg[TM_ERR_LEN];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    seterr(err, errlen, "%s", msg);
    tm_decision d = {.kind = TM_D_REFUSED, .fed = h, .time = TM_NO_TIME, .code = code};
    emit(st, &d, "%s", msg);
    return code;
}

/* ==== 4. bounds and the fixed point ======================================================== */

/* Bound of a regulating federate that is not waiting on NER/NERA (doc/time.md first table,
 * rti/proto/bound.h), before the floor is applied. */
static tm_bound table_bound(const struct fed *f)
{
    return bound_row((enum bound_req)f->req, f->rt, f->T, f->L, f->strict0);
}

static bool ner_pending(const struct fed *f)
{
    return f->reg && (f->req == TM_REQ_NER || f->req == TM_REQ_NERA);
}

/* Row "NER(R)/NERA(R) pending": m + L with m = min(R, earliest message f could still be
 * given) = min((R, ns), (LITS, ns), GALT_f) (clarification: nothing is in flight), m's
 * strictness kept, strict for NER at L = 0. The floor keeps the bound from going down
 * (clarification "a promise is never withdrawn"). Sets *derived when the value comes from
 * GALT_f rather than from f's own request, queue or floor. */
static tm_bound ner_bound(const struct fed *f, tm_bound lo, tm_bound galt, bool *derived)
{
    tm_time c = f->rt < q_min(&f->q) ? f->rt : q_min(&f->q);
    tm_bound own = mk(c, false);
    tm_bound m = bmin(own, galt);
    tm_bound v = mk(tm_time_add(m.t, f->L), m.strict || (f->req == TM_REQ_NER && f->L == 0));
    bool from_galt = tm_bound_cmp(galt, own) < 0;
    if (tm_bound_cmp(v, lo) < 0) {
        v = lo;
        from_galt = false;
    }
    if (derived) *derived = from_galt;
    return v;
}

/* GALT for everyone, as the greatest fixed point (clarification "the fixed point is the
 * greatest solution"). O(N), two passes:
 *   1. every regulating federate's value with GALT = +inf (NER ones) or its table bound
 *      (others), floor applied; u0 = the smallest (lowest handle on ties), mu its value.
 *      Iteration from +inf never goes below mu, so mu is final: it is the global minimum
 *      of the fixed point (doc/time.md proves it).
 *   2. hence GALT_j = mu for every j != u0, so each other NER value is its function of mu;
 *      GALT_u0 = the minimum over j != u0 of those final values.
 * This equals the naive iteration from +inf that the conformance test runs as reference. */
static void compute(tm_state *st)
{
    struct fed *u0 = NULL;
    tm_bound mu = INF;
    st->nner = 0;
    for (size_t i = 0; i < st->n; i++) {
        struct fed *f = st->f[i];
        f->myroot = f->h;
        if (f->req == TM_REQ_NER || f->req == TM_REQ_NERA) st->nner++;
        if (!f->reg) continue;
        f->floor = f->bound;
        /* Clarification "a promise is never withdrawn": the table value never takes the
         * bound below what it was (after TAR(T) at L = 0, TARA(T) keeps (T, strict)). */
        f->bound =
            ner_pending(f) ? ner_bound(f, f->floor, INF, NULL) : bmax(table_bound(f), f->floor);
        if (!u0 || tm_bound_cmp(f->bound, mu) < 0) {
            u0 = f;
            mu = f->bound;
        }
    }
    tm_bound g0 = INF; /* GALT of u0 */
    struct fed *h0 = NULL;
    for (size_t i = 0; i < st->n; i++) {
        struct fed *f = st->f[i];
        if (f == u0) {
            continue;
        }
        f->galt = mu;
        f->holder = u0 ? u0->h : TM_NO_FED;
        f->root = u0 ? u0->h : TM_NO_FED;
        if (!f->reg) continue;
        if (ner_pending(f)) {
            bool derived = false;
            f->bound = ner_bound(f, f->floor, mu, &derived);
            if (derived) f->myroot = u0->h;
        }
        if (!h0 || tm_bound_cmp(f->bound, g0) < 0) {
            h0 = f;
            g0 = f->bound;
        }
    }
    if (u0) {
        u0->galt = g0;
        u0->holder = h0 ? h0->h : TM_NO_FED;
        u0->root = h0 ? h0->myroot : TM_NO_FED;
    }
    st->u0 = u0 ? u0->h : TM_NO_FED;
    st->h0 = h0 ? h0->h : TM_NO_FED;
    st->mu = mu;
    st->cnt = 0; /* NER values derived from mu do not hold it up: count only own bounds */
    for (size_t i = 0; i < st->n; i++)
        if (st->f[i]->reg && st->f[i]->myroot == st->f[i]->h &&
            tm_bound_cmp(st->f[i]->bound, mu) == 0)
            st->cnt++;
    st->stale = false;
}

/* Who holds f's GALT and the root of its chain, as compute() defines them (u0 = the lowest
 * handle whose own, non-derived bound is mu; h0 = the lowest handle with the smallest bound
 * among the others), recomputed in O(N) when fast requests made the stored ones stale. */
static tm_fed holder_of(const tm_state *st, const struct fed *f, tm_fed *root)
{
    if (!st->stale) {
        if (root) *root = f->root;
        return f->holder;
    }
    const struct fed *u = NULL, *h = NULL;
    for (size_t i = 0; i < st->n; i++) {
        const struct fed *g = st->f[i];
        if (g->reg && !u && g->myroot == g->h && tm_bound_cmp(g->bound, st->mu) == 0) u = g;
    }
    if (u && u != f) {
        if (root) *root = u->h;
        return u->h;
    }
    for (size_t i = 0; i < st->n; i++) {
        const struct fed *g = st->f[i];
        if (g != f && g->reg && (!h || tm_bound_cmp(g->bound, h->bound) < 0)) h = g;
    }
    if (root) *root = !h ? TM_NO_FED : (h->myroot == h->h ? h->h : f->h);
    return h ? h->h : TM_NO_FED;
}

/* The common cases in O(1) instead of compute() + a scan of everyone (doc/time.md, "Cost": a
 * lock-step TAR cycle must cost O(N) per step, not O(N) per request). All GALT values follow
 * from mu, u0 and GALT_u0 (compute()); NER/NERA values depend only on their GALT.
 *  - A TAR/TARA request raises only the requester f's bound (granted rows never lower it).
 *    Nothing else changes when (a) f is not regulating; or (b) f holds neither mu (u0) nor
 *    GALT_u0 (h0), ties keeping their lower-handle holder; or (c) at least two other
 *    federates still hold exactly mu afterwards with their own bounds (not NER values
 *    derived from mu), so everyone's GALT stays mu. Then only f can become due, against
 *    GALT_f = mu. In case (c) the stored holders may name f, so they are marked stale and
 *    recomputed when read (holder_of()). In a lock-step cycle only the last two requests
 *    of a step take the full evaluation: O(N) per step.
 *  - A send changes no bound, and when nobody waits in NER/NERA nothing depends on queues
 *    (TAR/TARA grants and constrained-enables do not), so nothing becomes due.
 * Everything else takes the full evaluation. The randomized conformance test compares both
 * paths with its reference after every event. */
static bool try_grant(tm_state *st, struct fed *f);

static bool fast_request(tm_state *st, struct fed *f)
{
    if (!f->reg) {
        try_grant(st, f); /* (a) */
        return true;
    }
    tm_bound nb = bmax(table_bound(f), f->bound);
    bool at_mu = tm_bound_cmp(f->bound, st->mu) == 0;
    bool leaves = at_mu && tm_bound_cmp(nb, st->mu) > 0;
    size_t others_at_mu = st->cnt - (at_mu ? 1 : 0);
    if (!st->stale && f->h != st->u0 && f->h != st->h0) {
        /* (b) */
    } else if (others_at_mu >= 2) {
        /* (c): the stored holders may name f */
        if (f->h == st->u0 || f->h == st->h0) st->stale = true;
    } else {
        return false;
    }
    if (leaves) st->cnt--;
    f->bound = nb;
    try_grant(st, f);
    return true;
}

/* The largest promise made to a constrained federate (its `promise`: the greatest of all the
 * promises its grants and its enabling made, not the last one's). Deliveries happen only at
 * grants (or at T when avail), so nothing else has been promised. */
static tm_bound promised(const tm_state *st, tm_fed *who)
{
    tm_bound p = mk(INT64_MIN, false);
    *who = TM_NO_FED;
    for (size_t i = 0; i < st->n; i++) {
        const struct fed *f = st->f[i];
        if (!f->con) continue;
        if (*who == TM_NO_FED || tm_bound_cmp(f->promise, p) > 0) {
            p = f->promise;
            *who = f->h;
        }
    }
    return p;
}

/* ==== 5. grants and the evaluation loop ==================================================== */

static void deliver(tm_state *st, struct fed *r, struct qmsg m, bool tso, delivery_rule rule)
{
    tm_decision d = {.kind = TM_D_DELIVER,
                     .fed = r->h,
                     .time = m.ts,
                     .tso = tso,
                     .sender = m.sender,
                     .seq = m.seq,
                     .token = m.token,
                     .rule = rule};
    r->got = true;
    if (!st->sink) return;
    st->why[0] = '\0';
    if (st->reasons && !st->quiet_deliveries)
        tm_deliver_text(st->why, sizeof st->why, tso, m.ts, fname(st, m.sender), rule);
    d.reason = st->why;
    st->sink(st->ctx, &d);
}

/* Grant f's pending request at t following request-table row @p row. The decision carries
 * the facts of its reason (f's state before the grant); the holder is looked up, and the
 * text worded, only when someone reads them. @p queued: for NER/NERA, t is the smallest
 * queued time stamp. */
static void grant(tm_state *st, struct fed *f, tm_time t, tm_grant_row row, bool queued)
{
    tm_req k = f->req;
    tm_grant_facts g = {
        .row = row, .asked = f->rt, .prev = f->T, .galt = f->galt, .queued = queued};
    tm_decision d = {
        .kind = TM_D_GRANT, .fed = f->h, .time = t, .req = k, .reason = st->why, .grant = &g};
    st->why[0] = '\0';
    if (wants_reasons(st)) {
        /* FQR computed its GALT afresh (flush_grant), so its holder is current */
        g.holder = row == TM_GROW_FQR ? f->holder : holder_of(st, f, NULL);
        if (!st->quiet_grants)
            tm_grant_text(st->why, sizeof st->why, &d, f->name, fname(st, g.holder));
    }
    /* Progress: a later time, or a message delivered since the last grant. Without either,
     * a polling federate (FQR, or TARA at its own time) is waiting for someone. */
    if (t > f->T || f->got) {
        f->polls = 0;
    } else if (f->polls++ == 0) {
        f->poll_act = f->last_act;
    }
    f->got = false;
    f->T = t;
    f->req = TM_REQ_NONE;
    f->rt = TM_NO_TIME;
    /* Granted-state bound at L = 0 (first table): strict after TAR/NER/FQR. */
    f->strict0 = bound_strict_after((enum bound_req)k);
    /* TARA/NERA rows: "messages stamped t that arrive later are delivered at once"; after
     * FQR the GALT may be (g, non-strict), so messages stamped g may still come too. */
    f->avail = f->con && (k == TM_REQ_TARA || k == TM_REQ_NERA || k == TM_REQ_FQR);
    /* The promise this grant makes (strict unless avail) joins the earlier ones: after TAR(t)
     * a TARA(t) or NERA(t) grant must not reopen the instant t (doc/time.md §2). */
    if (f->con) f->promise = bmax(f->promise, mk(t, !f->avail));
    if (st->sink) st->sink(st->ctx, &d);
}

/* What the grant rule decides for one pending request, before anything is done: whether it
 * is due, the time granted, the row followed, and what is delivered first (every queued TSO
 * message stamped <= time, under rule `rule`). Computed by grant_decide, acted on by
 * grant_act. */
struct grant_decision {
    bool due;           /* false: the request waits (nothing else below is meaningful) */
    tm_time time;       /* the time granted */
    tm_grant_row row;   /* the request-table row followed */
    bool queued;        /* NER/NERA: time is the smallest queued time stamp */
    delivery_rule rule; /* rule of the deliveries before the grant; DELIVERY_NONE: none */
};

/* The grant rule (doc/time.md second table) applied to f's pending request against the GALT
 * of the last compute(). Pure: changes nothing. Clarification "delivery may happen as soon
 * as ... or only at the grant": we deliver at the grant, in queue order (grant_act). */
static struct grant_decision grant_decide(const struct fed *f)
{
    struct grant_decision no = {.due = false};
    tm_time t = f->rt;
    if (!f->con) {
        /* Clarification: "a federate that is not constrained is granted any request at
         * once" - at its requested time, FQR included (no GALT limit without TSO). */
        return (struct grant_decision){true, t, TM_GROW_AT_ONCE, false, DELIVERY_NONE};
    }
    switch (f->req) {
    case TM_REQ_TAR: /* row TAR(t): TAG(t) once GALT > t; deliver all ts <= t first */
        if (!above(f->galt, t)) return no;
        return (struct grant_decision){true, t, TM_GROW_TAR, false, DELIVERY_TAR};
    case TM_REQ_TARA: /* row TARA(t): TAG(t) once GALT >= t */
        if (!at_or_above(f->galt, t)) return no;
        return (struct grant_decision){true, t, TM_GROW_TAR, false, DELIVERY_TARA};
    case TM_REQ_NER:
    case TM_REQ_NERA: {
        /* rows NER/NERA(t): T' = smallest queued ts if <= t, else t; TAG(T') once GALT > T'
         * (NER) or >= T' (NERA), delivering every message stamped T' (nothing queued is
         * below T', so "stamped <= T'" is the same set). */
        tm_time lits = q_min(&f->q);
        tm_time g = lits <= t ? lits : t;
        bool ok = f->req == TM_REQ_NER ? above(f->galt, g) : at_or_above(f->galt, g);
        if (!ok) return no;
        return (struct grant_decision){true, g, TM_GROW_NER, lits <= t, DELIVERY_NER};
    }
    default:
        return no; /* FQR is granted inside tm_request and never waits */
    }
}

/* Act on a due decision: the deliveries it names, in queue order, then the grant. */
static void grant_act(tm_state *st, struct fed *f, struct grant_decision g)
{
    struct qmsg m;
    if (g.rule != DELIVERY_NONE)
        while (f->q.n && q_min(&f->q) <= g.time && q_pop(&f->q, &m))
            deliver(st, f, m, true, g.rule);
    grant(st, f, g.time, g.row, g.queued);
}

/* Grant f if its pending request is due. @return true if it was granted. */
static bool try_grant(tm_state *st, struct fed *f)
{
    struct grant_decision g = grant_decide(f);
    if (g.due) grant_act(st, f, g);
    return g.due;
}

/* Bring the federation to a stable state after an event: compute the fixed point, complete
 * enables and grant due requests, and repeat while anything changed (a grant can raise a
 * bound: FQR, non-constrained NER). Usually two passes: O(N) per event. */
static void evaluate(tm_state *st)
{
    for (;;) {
        compute(st);
        bool progress = false;
        for (size_t i = 0; i < st->n; i++) {
            struct fed *f = st->f[i];
            char b1[40], b2[24];
            /* Clarification: "enabling time-constrained completes once GALT >= T". */
            if (f->con_pending && at_or_above(f->galt, f->T)) {
                f->con_pending = false;
                f->con = true;
                f->avail = true;
                f->promise = mk(f->T, false); /* earlier promises lapsed while unconstrained */
                tm_decision d = {.kind = TM_D_CON_ENABLED, .fed = f->h, .time = f->T};
                emit(st, &d, "constrained enabled: GALT %s >= T %s, held by %s",
                     tm_btxt(b1, f->galt), tm_ttxt(b2, f->T), fname(st, f->holder));
                progress = true;
            }
            if (f->req != TM_REQ_NONE && try_grant(st, f)) progress = true;
        }
        if (!progress) return;
    }
}

/* ==== 6. events ============================================================================ */

int tm_new(tm_state **out, tm_sink sink, void *ctx, char *err, size_t errlen)
{
    if (!out) {
        seterr(err, errlen, "tm_new: out is NULL");
        return TM_EINVAL;
    }
    tm_state *st = tm_calloc(1, sizeof *st);
    if (!st) {
        seterr(err, errlen, "tm_new: out of memory");
        return TM_ENOMEM;
    }
    st->sink = sink;
    st->ctx = ctx;
    st->reasons = true;
    *out = st;
    return TM_OK;
}

void tm_free(tm_state *st)
{
    if (!st) return;
    for (size_t i = 0; i < st->n; i++) {
        free(st->f[i]->q.a);
        free(st->f[i]);
    }
    free(st->f);
    free(st->idx);
    free(st);
}

/* The tie order of sender h: h itself, or in the shuffling test mode a bijective mix of h and
 * the seed (splitmix64's finaliser), so every seed orders the senders differently while one
 * sender's messages keep their sequence order. */
static uint64_t tie_rank(const tm_state *st, tm_fed h)
{
    if (!st->tie_seed) return h;
    uint64_t z = (uint64_t)h + st->tie_seed * 0x9e3779b97f4a7c15ull;
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
}

void tm_set_tie_shuffle(tm_state *st, uint64_t seed)
{
    st->tie_seed = seed;
}

void tm_set_reasons(tm_state *st, bool on)
{
    st->reasons = on;
}

void tm_set_delivery_reasons(tm_state *st, bool on)
{
    st->quiet_deliveries = !on;
}

void tm_set_grant_reasons(tm_state *st, bool on)
{
    st->quiet_grants = !on;
}

static void reindex(tm_state *st, size_t from)
{
    for (size_t i = from; i < st->n; i++)
        st->idx[st->f[i]->h] = (uint32_t)(i + 1);
}

int tm_join(tm_state *st, tm_fed h, const char *name, char *err, size_t errlen)
{
    if (h == TM_NO_FED || h >= TM_MAX_HANDLE)
        return refuse(st, h, TM_EUNKNOWN, err, errlen,
                      "join: federate handle %" PRIu32 " outside 1..%u", h, TM_MAX_HANDLE - 1);
    if (find(st, h))
        return refuse(st, h, TM_EEXISTS, err, errlen,
                      "join: federate handle %" PRIu32 " (%s) already joined", h, fname(st, h));
    if (h >= st->idxcap) {
        size_t cap = st->idxcap ? st->idxcap : 16;
        while (cap <= h)
            cap *= 2;
        uint32_t *idx = tm_realloc(st->idx, cap * sizeof *idx);
        if (!idx) goto nomem;
        memset(idx + st->idxcap, 0, (cap - st->idxcap) * sizeof *idx);
        st->idx = idx;
        st->idxcap = cap;
    }
    if (st->n == st->cap) {
        size_t cap = st->cap ? 2 * st->cap : 8;
        struct fed **f = tm_realloc(st->f, cap * sizeof *f);
        if (!f) goto nomem;
        st->f = f;
        st->cap = cap;
    }
    struct fed *f = tm_calloc(1, sizeof *f);
    if (!f) goto nomem;
    f->h = h;
    if (name)
        snprintf(f->name, sizeof f->name, "%s", name);
    else
        snprintf(f->name, sizeof f->name, "fed%" PRIu32, h);
    f->rt = TM_NO_TIME;
    f->bound = INF;
    f->galt = INF;
    f->last_act = ++st->act;
    size_t pos = st->n;
    while (pos > 0 && st->f[pos - 1]->h > h)
        pos--;
    memmove(st->f + pos + 1, st->f + pos, (st->n - pos) * sizeof *st->f);
    st->f[pos] = f;
    st->n++;
    reindex(st, pos);
    evaluate(st); /* GALT values of the newcomer */
    return TM_OK;
nomem:
    return refuse(st, h, TM_ENOMEM, err, errlen, "join: out of memory for federate %" PRIu32, h);
}

/* The refusal of an event naming a federate that is not joined (TM_EUNKNOWN). */
static int unknown(tm_state *st, tm_fed h, const char *op, char *err, size_t errlen)
{
    return refuse(st, h, TM_EUNKNOWN, err, errlen, "%s: unknown federate handle %" PRIu32, op, h);
}

int tm_resign(tm_state *st, tm_fed h, char *err, size_t errlen)
{
    struct fed *f = find(st, h);
    if (!f) return unknown(st, h, "resign", err, errlen);
    /* No silent data loss: every message still queued for it is reported. */
    struct qmsg m;
    while (q_pop(&f->q, &m)) {
        tm_decision d = {.kind = TM_D_DISCARD,
                         .fed = h,
                         .time = m.ts,
                         .sender = m.sender,
                         .seq = m.seq,
                         .token = m.token};
        emit(st, &d, "%s resigned with this message queued", f->name);
    }
    size_t pos = st->idx[h] - 1;
    st->idx[h] = 0;
    free(f->q.a);
    free(f);
    memmove(st->f + pos, st->f + pos + 1, (st->n - pos - 1) * sizeof *st->f);
    st->n--;
    reindex(st, pos);
    evaluate(st); /* its bound vanished: those waiting on it may go on */
    return TM_OK;
}

int tm_enable_regulation(tm_state *st, tm_fed h, tm_time L, char *err, size_t errlen)
{
    struct fed *f = find(st, h);
    if (!f) return unknown(st, h, "enable regulation", err, errlen);
    char b1[24], b2[40], b3[40], b4[40];
    if (L < 0)
        return refuse(st, h, TM_ELOOKAHEAD, err, errlen,
                      "enable regulation: %s: negative lookahead %s", f->name, tm_ttxt(b1, L));
    if (f->reg)
        return refuse(st, h, TM_EENABLED, err, errlen,
                      "enable regulation: %s is already time-regulating", f->name);
    if (f->req != TM_REQ_NONE)
        return refuse(st, h, TM_EPENDING, err, errlen, "enable regulation: %s has %s(%s) pending",
                      f->name, tm_req_name(f->req), tm_ttxt(b1, f->rt));
    /* Clarification "enabling regulation mid-run": logical time kept, bound starts at
     * max(T + L non-strict, the largest promise to a constrained federate). */
    tm_fed who;
    tm_bound p = promised(st, &who);
    tm_bound own = mk(tm_time_add(f->T, L), false);
    f->reg = true;
    f->L = L;
    f->strict0 = false; /* first table: "T non-strict ... after enabling regulation" */
    f->bound = bmax(own, p);
    tm_decision d = {.kind = TM_D_REG_ENABLED, .fed = h, .time = f->T};
    if (who == TM_NO_FED)
        emit(st, &d, "regulation enabled at T %s, bound %s = T+L (no constrained federate)",
             tm_ttxt(b1, f->T), tm_btxt(b2, f->bound));
    else
        emit(st, &d, "regulation enabled at T %s, bound %s = max(T+L %s, promise %s to %s)",
             tm_ttxt(b1, f->T), tm_btxt(b2, f->bound), tm_btxt(b3, own), tm_btxt(b4, p),
             fname(st, who));
    evaluate(st);
    return TM_OK;
}

int tm_disable_regulation(tm_state *st, tm_fed h, char *err, size_t errlen)
{
    struct fed *f = find(st, h);
    if (!f) return unknown(st, h, "disable regulation", err, errlen);
    if (!f->reg)
        return refuse(st, h, TM_ENOTENABLED, err, errlen,
                      "disable regulation: %s is not time-regulating", f->name);
    f->reg = false;
    f->L = 0;
    f->bound = INF;
    evaluate(st);
    return TM_OK;
}

int tm_modify_lookahead(tm_state *st, tm_fed h, tm_time L, char *err, size_t errlen)
{
    struct fed *f = find(st, h);
    if (!f) return unknown(st, h, "modify lookahead", err, errlen);
    char b1[24];
    if (!f->reg)
        return refuse(st, h, TM_ENOTENABLED, err, errlen,
                      "modify lookahead: %s is not time-regulating", f->name);
    if (L < 0)
        return refuse(st, h, TM_ELOOKAHEAD, err, errlen,
                      "modify lookahead: %s: negative lookahead %s", f->name, tm_ttxt(b1, L));
    /* The bound is a floor (a promise is never withdrawn): a smaller L takes effect as T
     * advances past the old T + L. */
    f->L = L;
    evaluate(st);
    return TM_OK;
}

int tm_enable_constrained(tm_state *st, tm_fed h, char *err, size_t errlen)
{
    struct fed *f = find(st, h);
    if (!f) return unknown(st, h, "enable constrained", err, errlen);
    char b1[24];
    if (f->con || f->con_pending)
        return refuse(st, h, TM_EENABLED, err, errlen, "enable constrained: %s is already %s",
                      f->name, f->con ? "time-constrained" : "enabling time-constrained");
    if (f->req != TM_REQ_NONE)
        return refuse(st, h, TM_EPENDING, err, errlen, "enable constrained: %s has %s(%s) pending",
                      f->name, tm_req_name(f->req), tm_ttxt(b1, f->rt));
    f->con_pending = true;
    evaluate(st);
    return TM_OK;
}

int tm_disable_constrained(tm_state *st, tm_fed h, char *err, size_t errlen)
{
    struct fed *f = find(st, h);
    if (!f) return unknown(st, h, "disable constrained", err, errlen);
    if (!f->con && !f->con_pending)
        return refuse(st, h, TM_ENOTENABLED, err, errlen,
                      "disable constrained: %s is not time-constrained", f->name);
    f->con = false;
    f->con_pending = false;
    f->avail = false;
    /* No silent loss: what waited in TSO order is now receive order, delivered at once. */
    struct qmsg m;
    while (q_pop(&f->q, &m))
        deliver(st, f, m, false, DELIVERY_UNCONSTRAINED);
    evaluate(st);
    return TM_OK;
}

/* FQR(t) of a constrained federate (row FQR): flush everything queued, then grant
 * max(T, min(t, time of GALT)) at once; the flushed time stamps do not lower the grant. */
static void flush_grant(tm_state *st, struct fed *f, tm_time t)
{
    compute(st); /* GALT with f keeping its granted-state bound */
    struct qmsg m;
    while (q_pop(&f->q, &m))
        deliver(st, f, m, true, DELIVERY_FQR);
    tm_time g = t < f->galt.t ? t : f->galt.t;
    if (g < f->T) g = f->T;
    grant(st, f, g, TM_GROW_FQR, false);
}

int tm_request(tm_state *st, tm_fed h, tm_req kind, tm_time t, char *err, size_t errlen)
{
    struct fed *f = find(st, h);
    if (!f) return unknown(st, h, "time request", err, errlen);
    char b1[24], b2[24];
    if (kind < TM_REQ_TAR || kind > TM_REQ_FQR)
        return refuse(st, h, TM_EINVAL, err, errlen, "time request: %s: bad request kind %d",
                      f->name, (int)kind);
    const char *kn = tm_req_name(kind);
    if (f->req != TM_REQ_NONE)
        return refuse(st, h, TM_EPENDING, err, errlen, "%s(%s): %s already has %s(%s) pending", kn,
                      tm_ttxt(b1, t), f->name, tm_req_name(f->req), tm_ttxt(b2, f->rt));
    if (f->con_pending)
        return refuse(st, h, TM_EPENDING, err, errlen,
                      "%s(%s): %s is still enabling time-constrained", kn, tm_ttxt(b1, t), f->name);
    /* Further rules: a request time must be >= the federate's logical time (= is legal). */
    if (t < f->T)
        return refuse(st, h, TM_ETIME, err, errlen,
                      "%s(%s): %s requested below its logical time %s", kn, tm_ttxt(b1, t), f->name,
                      tm_ttxt(b2, f->T));
    f->req = kind;
    f->rt = t;
    f->last_act = ++st->act;
    if ((kind == TM_REQ_TAR || kind == TM_REQ_TARA) && fast_request(st, f)) return TM_OK;
    if (kind == TM_REQ_FQR && f->con) flush_grant(st, f, t); /* FQR never waits */
    evaluate(st);
    return TM_OK;
}

int tm_send(tm_state *st, tm_fed h, tm_time ts, const tm_fed *rcv, size_t n, uint64_t token,
            char *err, size_t errlen)
{
    struct fed *s = find(st, h);
    if (!s) return unknown(st, h, "send", err, errlen);
    char b1[24], b2[40], b3[24];
    if (n > 0 && !rcv)
        return refuse(st, h, TM_EINVAL, err, errlen, "send from %s: receivers is NULL", s->name);
    /* §5: messages from a non-regulating sender (or without a time stamp) are RO; so are
     * those to a non-constrained receiver, decided per receiver below. */
    bool tso = ts != TM_NO_TIME && s->reg;
    /* Further rules: a regulating federate's send below its bound is refused; while a
     * request is pending the bound is the pending request's (clarification). No TSO send is
     * ever admitted at +inf (doc/time.md §2): (TM_TIME_MAX, non-strict) is infinity itself,
     * so a federate granted +inf would otherwise send into the instant it holds. */
    if (tso && ts == TM_TIME_MAX)
        return refuse(st, h, TM_EBOUND, err, errlen,
                      "send from %s stamped +inf refused: a regulating federate never sends at "
                      "+inf (its bound %s admits nothing there)",
                      s->name, tm_btxt(b2, s->bound));
    if (tso && !bound_admits(s->bound, ts))
        return refuse(st, h, TM_EBOUND, err, errlen,
                      "send from %s stamped %s is below its bound %s (%s%s%s)", s->name,
                      tm_ttxt(b1, ts), tm_btxt(b2, s->bound),
                      s->req ? tm_req_name(s->req) : "granted at T", s->req ? " pending" : "",
                      s->L == 0 ? ", lookahead 0" : "");
    /* Validate every receiver and reserve queue room before changing anything. */
    st->epoch++;
    for (size_t i = 0; i < n; i++) {
        struct fed *r = find(st, rcv[i]);
        if (!r)
            return refuse(st, h, TM_EUNKNOWN, err, errlen,
                          "send from %s: unknown receiver handle %" PRIu32, s->name, rcv[i]);
        if (r->mark == st->epoch)
            return refuse(st, h, TM_EINVAL, err, errlen, "send from %s: receiver %s listed twice",
                          s->name, r->name);
        r->mark = st->epoch;
        /* The engine's invariant (GALT_r >= r's promise and ts >= the sender's bound >= GALT_r)
         * says no TSO message reaches a constrained federate's past. It is checked here, on
         * the input, and refused rather than asserted: a message a client sends must never
         * stop the RTI (doc/robustness.md); tm_fault_test and the conformance runs check
         * the invariant itself. */
        if (tso && r->con && !(ts > r->T || (ts == r->T && r->avail)))
            return refuse(st, h, TM_EBOUND, err, errlen,
                          "send from %s stamped %s would reach the past of %s (granted %s%s)",
                          s->name, tm_ttxt(b1, ts), r->name, tm_ttxt(b3, r->T),
                          r->avail ? ", messages at it still accepted" : "");
        if (tso && r->con && q_reserve(&r->q, 1) != 0)
            return refuse(st, h, TM_ENOMEM, err, errlen,
                          "send from %s: out of memory queueing for %s", s->name, r->name);
    }
    struct qmsg m = {
        .ts = ts, .rank = tie_rank(st, h), .sender = h, .seq = ++s->seq, .token = token};
    s->last_act = s->last_send = ++st->act;
    for (size_t i = 0; i < n; i++) {
        struct fed *r = find(st, rcv[i]);
        if (!tso) {
            deliver(st, r, m, false, DELIVERY_RO_SENDER);
        } else if (!r->con) {
            deliver(st, r, m, false, DELIVERY_RO_RECEIVER);
        } else if (r->req == TM_REQ_NONE && r->avail && ts == r->T) {
            /* Rows TARA/NERA (and FQR): messages stamped T that arrive after the grant are
             * delivered at once. */
            deliver(st, r, m, true, DELIVERY_AVAIL);
        } else if (q_push(&r->q, m) != 0) {
            /* Room was reserved above, so this cannot happen; if it did, the payload is
             * reported (no silent loss) and the server frees it. */
            tm_decision d = {.kind = TM_D_DISCARD,
                             .fed = r->h,
                             .time = ts,
                             .sender = h,
                             .seq = m.seq,
                             .token = token};
            emit(st, &d, "no queue room for %s", r->name);
        }
    }
    if (st->nner > 0)
        evaluate(st); /* a queued message may complete a NER/NERA; else nothing is due */
    return TM_OK;
}

/* ==== 7. queries =========================================================================== */

static void fill(const tm_state *st, const struct fed *f, tm_status *o)
{
    o->fed = f->h;
    o->name = f->name;
    o->time = f->T;
    o->regulating = f->reg;
    o->constrained = f->con;
    o->constrained_pending = f->con_pending;
    o->lookahead = f->reg ? f->L : 0;
    o->req = f->req;
    o->req_time = f->req ? f->rt : TM_NO_TIME;
    o->bound = f->reg ? f->bound : INF;
    o->galt = f->galt;
    o->galt_holder = holder_of(st, f, &o->galt_root);
    o->lits = q_min(&f->q);
    o->queued = f->q.n;
    o->blocked = f->req != TM_REQ_NONE || f->con_pending;
    o->polls = f->polls;
    o->stalled = f->req == TM_REQ_NONE && f->polls >= TM_STALL_POLLS;
}

int tm_query(const tm_state *st, tm_fed h, tm_status *out, char *err, size_t errlen)
{
    const struct fed *f = find(st, h);
    if (!f) {
        seterr(err, errlen, "query: unknown federate handle %" PRIu32, h);
        return TM_EUNKNOWN;
    }
    fill(st, f, out);
    return TM_OK;
}

size_t tm_count(const tm_state *st)
{
    return st->n;
}

size_t tm_status_all(const tm_state *st, tm_status *out, size_t cap)
{
    for (size_t i = 0; i < st->n && i < cap; i++)
        fill(st, st->f[i], &out[i]);
    return st->n;
}

size_t tm_stall_waits_for(const tm_state *st, tm_fed h, tm_fed *out, size_t cap)
{
    const struct fed *f = find(st, h);
    if (!f || f->req != TM_REQ_NONE || f->polls < TM_STALL_POLLS) return 0;
    size_t n = 0;
    for (size_t i = 0; i < st->n; i++) {
        const struct fed *g = st->f[i];
        /* Only a send counts, not a request: a peer that took the poller's update with a
         * request of its own and stopped before answering is the one waited for. */
        if (g == f || g->req != TM_REQ_NONE || g->con_pending || g->last_send >= f->poll_act)
            continue;
        if (n < cap) out[n] = g->h;
        n++;
    }
    return n;
}

int tm_status_format(const tm_status *s, const tm_state *st, char *buf, size_t len)
{
    char t[24], rt[24], b[40], g[40], l[24];
    char req[48] = "granted";
    if (s->req) snprintf(req, sizeof req, "%s(%s)", tm_req_name(s->req), tm_ttxt(rt, s->req_time));
    int n = snprintf(
        buf, len, "%s t=%s %s%s%s bound %s GALT %s held by %s (root %s) LITS %s queued %zu",
        s->name, tm_ttxt(t, s->time), req, s->regulating ? " reg" : "",
        s->constrained ? " con" : (s->constrained_pending ? " con-pending" : ""),
        s->regulating ? tm_btxt(b, s->bound) : "none", tm_btxt(g, s->galt),
        s->galt_holder ? fname(st, s->galt_holder) : "nobody",
        s->galt_root ? fname(st, s->galt_root) : "nobody", tm_ttxt(l, s->lits), s->queued);
    if (!s->stalled || n < 0) return n;
    /* A polling federate granted again and again at one time waits as surely as a pending
     * request: say so, and for whom (those that did nothing since it began polling). */
    tm_fed w[8];
    size_t nw = tm_stall_waits_for(st, s->fed, w, 8);
    size_t at = (size_t)n < len ? (size_t)n : (len ? len - 1 : 0);
    n += snprintf(buf + at, len - at,
                  "; stalled: %" PRIu32 " grants at t=%s without progress, "
                  "waits for %s",
                  s->polls, t, nw ? "" : "nobody (every other federate sent since, or waits)");
    for (size_t i = 0; i < nw && i < 8; i++) {
        at = (size_t)n < len ? (size_t)n : (len ? len - 1 : 0);
        n += snprintf(buf + at, len - at, "%s%s", i ? ", " : "", fname(st, w[i]));
    }
    if (nw > 8) {
        at = (size_t)n < len ? (size_t)n : (len ? len - 1 : 0);
        n += snprintf(buf + at, len - at, " and %zu more", nw - 8);
    }
    return n;
}

/* ==== 8. checkpoint ======================================================================== */

/* The engine's part of a checkpoint (doc/checkpoint.md, "Time management state"): every
 * federate's inputs to the rules, its queue in delivery order, and the counters the stall
 * detection reads. What compute() derives (GALT, holders, mu) is not stored: tm_restore
 * recomputes it, which gives the values the last evaluate() left (the fixed point is a
 * function of the stored bounds and requests). */
#define TM_CKPT_MAGIC   0x54534d54u /* "TMST" little-endian */
#define TM_CKPT_VERSION 1u

static int put_bound(struct buf *b, tm_bound v)
{
    return ckpt_put_i64(b, v.t) | ckpt_put_u8(b, v.strict ? 1 : 0);
}

static tm_bound get_bound(struct ckpt_dec *d)
{
    tm_time t = ckpt_get_i64(d);
    uint8_t s = ckpt_get_u8(d);
    if (s > 1) d->bad = true;
    return mk(t, s == 1);
}

static int put_bool(struct buf *b, bool v)
{
    return ckpt_put_u8(b, v ? 1 : 0);
}

static bool get_bool(struct ckpt_dec *d)
{
    uint8_t v = ckpt_get_u8(d);
    if (v > 1) d->bad = true;
    return v == 1;
}

void tm_map_tokens(tm_state *st, uint64_t (*fn)(void *ctx, uint64_t token), void *ctx)
{
    if (!st || !fn) return;
    /* in place: the heap order depends on (ts, rank, sender, seq), never on the token */
    for (size_t i = 0; i < st->n; i++)
        for (size_t k = 0; k < st->f[i]->q.n; k++)
            st->f[i]->q.a[k].token = fn(ctx, st->f[i]->q.a[k].token);
}

int tm_save(const tm_state *st, struct buf *b, char *err, size_t errlen)
{
    if (!st || !b) {
        seterr(err, errlen, "tm_save: state or buffer is NULL");
        return TM_EINVAL;
    }
    int rc = ckpt_put_u32(b, TM_CKPT_MAGIC) | ckpt_put_u32(b, TM_CKPT_VERSION);
    rc |= put_bool(b, st->reasons) | put_bool(b, st->quiet_deliveries) |
          put_bool(b, st->quiet_grants);
    rc |= ckpt_put_u64(b, st->tie_seed) | ckpt_put_u64(b, st->act);
    rc |= ckpt_put_u32(b, (uint32_t)st->n);
    for (size_t i = 0; i < st->n && rc == 0; i++) {
        const struct fed *f = st->f[i];
        rc |= ckpt_put_u32(b, f->h) | ckpt_put_str(b, f->name) | ckpt_put_i64(b, f->T);
        rc |= put_bool(b, f->reg) | put_bool(b, f->con) | put_bool(b, f->con_pending);
        rc |= ckpt_put_i64(b, f->L) | ckpt_put_u8(b, (uint8_t)f->req) | ckpt_put_i64(b, f->rt);
        rc |= put_bool(b, f->strict0) | put_bound(b, f->promise) | put_bool(b, f->avail);
        rc |= put_bound(b, f->bound) | ckpt_put_u64(b, f->seq);
        rc |= ckpt_put_u64(b, f->last_act) | ckpt_put_u64(b, f->last_send);
        rc |= ckpt_put_u32(b, f->polls) | ckpt_put_u64(b, f->poll_act) | put_bool(b, f->got);
        /* the queue in delivery order: pop a copy so the live heap is untouched */
        rc |= ckpt_put_u32(b, (uint32_t)f->q.n);
        struct queue q = {.a = NULL, .n = 0, .cap = 0};
        if (f->q.n && q_reserve(&q, f->q.n) != 0) {
            free(q.a);
            seterr(err, errlen, "tm_save: out of memory copying the queue of %s", f->name);
            return TM_ENOMEM;
        }
        if (f->q.n) memcpy(q.a, f->q.a, f->q.n * sizeof *q.a);
        q.n = f->q.n;
        struct qmsg m;
        while (rc == 0 && q_pop(&q, &m))
            rc |= ckpt_put_i64(b, m.ts) | ckpt_put_u32(b, m.sender) | ckpt_put_u64(b, m.seq) |
                  ckpt_put_u64(b, m.token);
        free(q.a);
    }
    if (rc != 0) {
        seterr(err, errlen, "tm_save: out of memory for %zu federates", st->n);
        return TM_ENOMEM;
    }
    return TM_OK;
}

/* Read one federate's record into a new struct fed; NULL and err filled on any fault. */
static struct fed *load_fed(tm_state *st, struct ckpt_dec *d, size_t i, char *err, size_t errlen)
{
    struct fed *f = tm_calloc(1, sizeof *f);
    if (!f) {
        seterr(err, errlen, "tm_restore: out of memory for federate %zu", i);
        return NULL;
    }
    f->h = ckpt_get_u32(d);
    ckpt_get_str(d, f->name, sizeof f->name);
    f->T = ckpt_get_i64(d);
    f->reg = get_bool(d);
    f->con = get_bool(d);
    f->con_pending = get_bool(d);
    f->L = ckpt_get_i64(d);
    uint8_t req = ckpt_get_u8(d);
    f->req = (tm_req)req;
    f->rt = ckpt_get_i64(d);
    f->strict0 = get_bool(d);
    f->promise = get_bound(d);
    f->avail = get_bool(d);
    f->bound = get_bound(d);
    f->seq = ckpt_get_u64(d);
    f->last_act = ckpt_get_u64(d);
    f->last_send = ckpt_get_u64(d);
    f->polls = ckpt_get_u32(d);
    f->poll_act = ckpt_get_u64(d);
    f->got = get_bool(d);
    uint32_t nq = ckpt_get_u32(d);
    const char *bad = NULL;
    if (d->bad)
        bad = "record truncated or malformed";
    else if (f->h == TM_NO_FED || f->h >= TM_MAX_HANDLE)
        bad = "handle out of range";
    else if (req > TM_REQ_FQR)
        bad = "unknown request kind";
    else if (f->L < 0)
        bad = "negative lookahead";
    else if (f->T < 0 && f->T != TM_NO_TIME)
        bad = "negative logical time";
    else if ((uint64_t)nq > (d->n - d->off) / 28u)
        bad = "queue longer than the bytes that follow";
    /* The engine's own invariants: a state that breaks them was not written by tm_save. */
    else if ((f->req == TM_REQ_NONE) != (f->rt == TM_NO_TIME) ||
             (f->req != TM_REQ_NONE && f->rt < f->T))
        bad = "pending request and requested time disagree";
    else if (f->con && f->con_pending)
        bad = "constrained and constrained-pending at once";
    else if (f->reg && tm_bound_cmp(f->bound, mk(f->T, false)) < 0)
        bad = "bound below the federate's logical time";
    else if (nq > 0 && !f->con)
        bad = "TSO messages queued for a federate that is not constrained";
    if (!bad && nq && q_reserve(&f->q, nq) != 0) {
        free(f);
        seterr(err, errlen, "tm_restore: out of memory for the queue of federate %zu", i);
        return NULL;
    }
    for (uint32_t k = 0; !bad && k < nq; k++) {
        struct qmsg m;
        m.ts = ckpt_get_i64(d);
        m.sender = ckpt_get_u32(d);
        m.seq = ckpt_get_u64(d);
        m.token = ckpt_get_u64(d);
        m.rank = tie_rank(st, m.sender);
        if (d->bad)
            bad = "queued message truncated";
        else if (m.ts < f->T || (m.ts == f->T && !f->avail && f->req == TM_REQ_NONE) ||
                 m.sender == TM_NO_FED || m.sender >= TM_MAX_HANDLE || m.ts == TM_TIME_MAX)
            bad = "queued message stamped in the receiver's past or from no sender";
        if (!bad) q_push(&f->q, m); /* room reserved above */
    }
    if (bad) {
        seterr(err, errlen, "tm_restore: federate record %zu (handle %" PRIu32 "): %s", i, f->h,
               bad);
        free(f->q.a);
        free(f);
        return NULL;
    }
    f->galt = INF;
    return f;
}

int tm_restore(tm_state **out, const uint8_t *p, size_t n, tm_sink sink, void *ctx, char *err,
               size_t errlen)
{
    if (!out || (!p && n)) {
        seterr(err, errlen, "tm_restore: out or bytes is NULL");
        return TM_EINVAL;
    }
    struct ckpt_dec d;
    ckpt_dec_init(&d, p, n);
    uint32_t magic = ckpt_get_u32(&d), version = ckpt_get_u32(&d);
    if (d.bad || magic != TM_CKPT_MAGIC) {
        seterr(err, errlen, "tm_restore: not a time-management state (bad magic)");
        return TM_EINVAL;
    }
    if (version != TM_CKPT_VERSION) {
        seterr(err, errlen, "tm_restore: state version %" PRIu32 ", this build reads %u", version,
               TM_CKPT_VERSION);
        return TM_EINVAL;
    }
    tm_state *st = NULL;
    int rc = tm_new(&st, sink, ctx, err, errlen);
    if (rc != TM_OK) return rc;
    st->reasons = get_bool(&d);
    st->quiet_deliveries = get_bool(&d);
    st->quiet_grants = get_bool(&d);
    st->tie_seed = ckpt_get_u64(&d);
    st->act = ckpt_get_u64(&d);
    uint32_t nf = ckpt_get_u32(&d);
    if (d.bad || nf >= TM_MAX_HANDLE) {
        seterr(err, errlen, "tm_restore: header truncated or federate count out of range");
        tm_free(st);
        return TM_EINVAL;
    }
    tm_fed last = TM_NO_FED;
    for (uint32_t i = 0; i < nf; i++) {
        struct fed *f = load_fed(st, &d, i, err, errlen);
        if (!f) {
            tm_free(st);
            return TM_EINVAL;
        }
        if (f->h <= last) {
            seterr(err, errlen,
                   "tm_restore: federate record %" PRIu32 " (handle %" PRIu32
                   "): handles not in increasing order",
                   i, f->h);
            free(f->q.a);
            free(f);
            tm_free(st);
            return TM_EINVAL;
        }
        last = f->h;
        /* the table grows as tm_join grows it */
        if (f->h >= st->idxcap) {
            size_t cap = st->idxcap ? st->idxcap : 16;
            while (cap <= f->h)
                cap *= 2;
            uint32_t *idx = tm_realloc(st->idx, cap * sizeof *idx);
            if (idx) {
                memset(idx + st->idxcap, 0, (cap - st->idxcap) * sizeof *idx);
                st->idx = idx;
                st->idxcap = cap;
            }
        }
        if (st->n == st->cap && f->h < st->idxcap) {
            size_t cap = st->cap ? 2 * st->cap : 8;
            struct fed **fa = tm_realloc(st->f, cap * sizeof *fa);
            if (fa) {
                st->f = fa;
                st->cap = cap;
            }
        }
        if (f->h >= st->idxcap || st->n == st->cap) {
            seterr(err, errlen, "tm_restore: out of memory for federate %" PRIu32, f->h);
            free(f->q.a);
            free(f);
            tm_free(st);
            return TM_ENOMEM;
        }
        st->f[st->n++] = f;
        st->idx[f->h] = (uint32_t)st->n;
    }
    if (d.off != d.n) {
        seterr(err, errlen, "tm_restore: %zu bytes left after the last federate", d.n - d.off);
        tm_free(st);
        return TM_EINVAL;
    }
    compute(st); /* derived values; a saved state was stable, so nothing is due */
    *out = st;
    return TM_OK;
}
