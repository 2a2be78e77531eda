/* Randomized conformance test of rti/tm/tm.c against a deliberately simple reference model of
 * doc/time.md written here (doc/contributing.md §12). 2–8 federates make random requests,
 * lookaheads, sends, enables and resigns over many seeds. After every event the engine's
 * decisions (per federate, in order), return codes, times, bounds and GALTs must equal the
 * model's, and invariants hold: no TSO message below the receiver's time or out of
 * (ts, sender, seq) order, grants never decrease, no stall while everyone waits, and every
 * message is delivered, discarded or still queued. Usage: tm_random_test [runs] [steps] [seed].
 *
 * The model shares no code with tm.c: it keeps messages in unsorted arrays and scans them,
 * recomputes every bound from the tables after each change, finds the NER fixed point by the
 * naive iteration from +inf (O(N^2) per sweep), and grants one federate per recomputation.
 *
 * Promises (doc/time.md: a promise is never withdrawn). The model once derived the promise made to
 * a constrained federate from the kind of its last grant, as the engine did, so both agreed that
 * TAR(T) then TARA(T) promised only (T, non-strict), and the one invariant on the receiving side
 * checked "ts >= the receiver's time", which a message stamped T passes: the random runs were blind
 * to a late regulator sending into an instant already closed. Now the model keeps the promise as
 * the greatest of all promises made (from the history of grants, not the last state), and the
 * engine side checks every TSO delivery against the promises its own grants made (ts > T
 * after a TAR/NER grant at T, strictness included). */
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rti/tm/tm.h"
#include "tests/check.h"

#define MAXH 24   /* handles 1..MAXH-1 */
#define MAXQ 2048 /* messages queued per federate in the model */
#define LOGN 1024 /* decision text per federate per event */

/* ---- bounds, the model's own ------------------------------------------------------------ */

typedef struct {
    int64_t t; /* ticks, INT64_MAX = infinity */
    int s;     /* 1 strict */
} rb;

static const rb RINF = {INT64_MAX, 1};

static int rcmp(rb a, rb b)
{
    if (a.t < b.t) return -1;
    if (a.t > b.t) return 1;
    return a.s - b.s;
}
static rb rmin(rb a, rb b)
{
    return rcmp(a, b) <= 0 ? a : b;
}
static rb rmax(rb a, rb b)
{
    return rcmp(a, b) >= 0 ? a : b;
}
static rb rmk(int64_t t, int s)
{
    return t == INT64_MAX ? RINF : (rb){t, s};
}
static int64_t radd(int64_t a, int64_t l)
{
    return a == INT64_MAX ? a : a + l;
}

/* ---- the model -------------------------------------------------------------------------- */

struct rmsg {
    int64_t ts;
    int sender;
    uint64_t seq, token;
};

struct rfed {
    int joined;
    int64_t T;
    int reg, con, conp;
    int64_t L;
    int req; /* tm_req */
    int64_t rt;
    int lastk;    /* kind of the last grant, 0 before any */
    int regafter; /* regulation enabled after the last grant: L = 0 bound non-strict */
    int conat;    /* constrained completed after the last grant: stamped-T delivered at once */
    rb promise;   /* constrained: the greatest promise of its grants since it became
                     constrained (TAR/NER at t: (t, strict); TARA/NERA/FQR at t or enabling
                     at T: (t, non-strict)) */
    rb floor;     /* last bound (regulating only) */
    rb val;       /* bound being computed */
    rb galt;
    struct rmsg q[MAXQ];
    int nq;
    uint64_t seq;
};

struct model {
    struct rfed f[MAXH];
    char log[MAXH][LOGN]; /* decisions of this event per federate */
};

static void mlog(struct model *m, int h, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
static void mlog(struct model *m, int h, const char *fmt, ...)
{
    size_t n = strlen(m->log[h]);
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(m->log[h] + n, LOGN - n, fmt, ap);
    va_end(ap);
}

static int before(const struct rmsg *a, const struct rmsg *b)
{
    if (a->ts != b->ts) return a->ts < b->ts;
    if (a->sender != b->sender) return a->sender < b->sender;
    return a->seq < b->seq;
}

/* Index of the first message in delivery order, -1 if none. */
static int first(const struct rfed *f)
{
    int best = -1;
    for (int i = 0; i < f->nq; i++)
        if (best < 0 || before(&f->q[i], &f->q[best])) best = i;
    return best;
}

static struct rmsg take(struct rfed *f, int i)
{
    struct rmsg m = f->q[i];
    f->q[i] = f->q[--f->nq];
    return m;
}

static int avail(const struct rfed *f)
{
    return f->con && (f->lastk == TM_REQ_TARA || f->lastk == TM_REQ_NERA ||
                      f->lastk == TM_REQ_FQR || f->conat);
}

static rb granted_bound(const struct rfed *f)
{
    if (f->L > 0) return rmk(radd(f->T, f->L), 0);
    int strict = (f->lastk == TM_REQ_TAR || f->lastk == TM_REQ_NER || f->lastk == TM_REQ_FQR) &&
                 !f->regafter;
    return rmk(f->T, strict);
}

static int is_ner(const struct rfed *f)
{
    return f->reg && (f->req == TM_REQ_NER || f->req == TM_REQ_NERA);
}

static rb ner_value(const struct rfed *f, rb g)
{
    int i = first(f);
    int64_t c = f->rt;
    if (i >= 0 && f->q[i].ts < c) c = f->q[i].ts;
    rb m = rmin(rmk(c, 0), g);
    rb v = rmk(radd(m.t, f->L), m.s || (f->req == TM_REQ_NER && f->L == 0));
    return rmax(v, f->floor);
}

/* Every bound from the tables, NER ones by naive iteration from +inf, then every GALT. */
static void mcompute(struct model *m)
{
    for (int h = 1; h < MAXH; h++) {
        struct rfed *f = &m->f[h];
        if (!f->joined || !f->reg) continue;
        if (is_ner(f))
            f->val = RINF;
        else if (f->req == TM_REQ_TAR)
            f->val = rmax(f->floor, rmk(radd(f->rt, f->L), f->L == 0));
        else if (f->req == TM_REQ_TARA)
            f->val = rmax(f->floor, rmk(radd(f->rt, f->L), 0));
        else
            f->val = rmax(f->floor, granted_bound(f));
    }
    for (int changed = 1, sweeps = 0; changed; sweeps++) {
        CHECK(sweeps < 100, "reference fixed point did not converge");
        if (sweeps >= 100) break;
        changed = 0;
        for (int h = 1; h < MAXH; h++) {
            struct rfed *f = &m->f[h];
            if (!f->joined || !is_ner(f)) continue;
            rb g = RINF;
            for (int k = 1; k < MAXH; k++)
                if (k != h && m->f[k].joined && m->f[k].reg) g = rmin(g, m->f[k].val);
            rb v = ner_value(f, g);
            if (rcmp(v, f->val) != 0) {
                CHECK(rcmp(v, f->val) < 0, "reference iteration went up");
                f->val = v;
                changed = 1;
            }
        }
    }
    for (int h = 1; h < MAXH; h++) {
        struct rfed *f = &m->f[h];
        if (!f->joined) continue;
        f->galt = RINF;
        for (int k = 1; k < MAXH; k++)
            if (k != h && m->f[k].joined && m->f[k].reg) f->galt = rmin(f->galt, m->f[k].val);
    }
    for (int h = 1; h < MAXH; h++)
        if (m->f[h].joined && m->f[h].reg) m->f[h].floor = m->f[h].val;
}

static void mdeliver(struct model *m, int h, struct rmsg x, int tso)
{
    if (tso)
        mlog(m, h, "D%" PRIu64 "@%" PRId64 " ", x.token, x.ts);
    else
        mlog(m, h, "R%" PRIu64 " ", x.token);
}

static void mgrant(struct model *m, int h, int64_t t)
{
    struct rfed *f = &m->f[h];
    if (f->con) f->promise = rmax(f->promise, rmk(t, f->req == TM_REQ_TAR || f->req == TM_REQ_NER));
    f->lastk = f->req;
    f->regafter = 0;
    f->conat = 0;
    f->T = t;
    f->req = 0;
    mlog(m, h, "G%" PRId64 " ", t);
}

/* One grant or enable completion, if any is due. @return 1 if something happened. */
static int mstep(struct model *m)
{
    for (int h = 1; h < MAXH; h++) {
        struct rfed *f = &m->f[h];
        if (!f->joined) continue;
        if (f->conp && rcmp(f->galt, rmk(f->T, 0)) >= 0) {
            f->conp = 0;
            f->con = 1;
            f->conat = 1;
            f->promise = rmk(f->T, 0);
            mlog(m, h, "CE%" PRId64 " ", f->T);
            return 1;
        }
        if (!f->req) continue;
        if (!f->con) {
            mgrant(m, h, f->rt);
            return 1;
        }
        int64_t t = f->rt;
        int strict = f->req == TM_REQ_TAR || f->req == TM_REQ_NER;
        if (f->req == TM_REQ_NER || f->req == TM_REQ_NERA) {
            int i = first(f);
            if (i >= 0 && f->q[i].ts < t) t = f->q[i].ts;
        }
        if (rcmp(f->galt, rmk(t, strict)) < 0) continue;
        int only_t = f->req == TM_REQ_NER || f->req == TM_REQ_NERA;
        for (int i; (i = first(f)) >= 0 && (only_t ? f->q[i].ts == t : f->q[i].ts <= t);)
            mdeliver(m, h, take(f, i), 1);
        mgrant(m, h, t);
        return 1;
    }
    return 0;
}

static void mevaluate(struct model *m)
{
    do
        mcompute(m);
    while (mstep(m));
}

static void mflushall(struct model *m, int h, int tso)
{
    for (int i; (i = first(&m->f[h])) >= 0;)
        mdeliver(m, h, take(&m->f[h], i), tso);
}

static rb mpromise(const struct model *m)
{
    rb p = {INT64_MIN, 0};
    for (int h = 1; h < MAXH; h++)
        if (m->f[h].joined && m->f[h].con) p = rmax(p, m->f[h].promise);
    return p;
}

/* ---- the model's events: return the status the engine must return ---------------------- */

static int m_request(struct model *m, int h, int kind, int64_t t)
{
    struct rfed *f = &m->f[h];
    if (f->req || f->conp) return TM_EPENDING;
    if (t < f->T) return TM_ETIME;
    f->req = kind;
    f->rt = t;
    if (kind == TM_REQ_FQR && f->con) {
        mcompute(m);
        mflushall(m, h, 1);
        int64_t g = t < f->galt.t ? t : f->galt.t;
        mgrant(m, h, g > f->T ? g : f->T);
    }
    mevaluate(m);
    return TM_OK;
}

static int m_send(struct model *m, int h, int64_t ts, const int *rcv, int n, uint64_t token)
{
    struct rfed *s = &m->f[h];
    int tso = ts != TM_NO_TIME && s->reg;
    if (tso && rcmp(rmk(ts, 0), s->floor) < 0) return TM_EBOUND;
    struct rmsg x = {ts, h, ++s->seq, token};
    for (int i = 0; i < n; i++) {
        struct rfed *r = &m->f[rcv[i]];
        if (!tso || !r->con)
            mdeliver(m, rcv[i], x, 0);
        else if (!r->req && avail(r) && ts == r->T)
            mdeliver(m, rcv[i], x, 1);
        else
            r->q[r->nq++] = x;
    }
    mevaluate(m);
    return TM_OK;
}

static int m_enable_reg(struct model *m, int h, int64_t L)
{
    struct rfed *f = &m->f[h];
    if (f->reg) return TM_EENABLED;
    if (f->req) return TM_EPENDING;
    rb p = mpromise(m);
    f->reg = 1;
    f->L = L;
    f->regafter = 1;
    f->floor = rmax(rmk(radd(f->T, L), 0), p);
    mlog(m, h, "RE%" PRId64 " ", f->T);
    mevaluate(m);
    return TM_OK;
}

static int m_disable_reg(struct model *m, int h)
{
    if (!m->f[h].reg) return TM_ENOTENABLED;
    m->f[h].reg = 0;
    m->f[h].L = 0;
    mevaluate(m);
    return TM_OK;
}

static int m_lookahead(struct model *m, int h, int64_t L)
{
    if (!m->f[h].reg) return TM_ENOTENABLED;
    m->f[h].L = L;
    mevaluate(m);
    return TM_OK;
}

static int m_enable_con(struct model *m, int h)
{
    struct rfed *f = &m->f[h];
    if (f->con || f->conp) return TM_EENABLED;
    if (f->req) return TM_EPENDING;
    f->conp = 1;
    mevaluate(m);
    return TM_OK;
}

static int m_disable_con(struct model *m, int h)
{
    struct rfed *f = &m->f[h];
    if (!f->con && !f->conp) return TM_ENOTENABLED;
    f->con = f->conp = 0;
    f->conat = 0;
    mflushall(m, h, 0);
    mevaluate(m);
    return TM_OK;
}

static void m_resign(struct model *m, int h)
{
    struct rfed *f = &m->f[h];
    for (int i; (i = first(f)) >= 0;) {
        struct rmsg x = take(f, i);
        mlog(m, h, "X%" PRIu64 " ", x.token);
    }
    memset(f, 0, sizeof *f);
    mevaluate(m);
}

static void m_join(struct model *m, int h)
{
    memset(&m->f[h], 0, sizeof m->f[h]);
    m->f[h].joined = 1;
    m->f[h].floor = RINF;
    mevaluate(m);
}

/* What the runs exercised, printed at the end so that a weak generator shows. */
static long n_grant[6], n_tso, n_ro, n_discard, n_refused[16];

/* ---- the engine side: decisions per federate, plus invariant checks --------------------- */

struct run {
    tm_state *st;
    struct model m;
    char log[MAXH][LOGN];         /* engine decisions of this event per federate */
    int64_t now[MAXH];            /* engine time per federate, from grants */
    int con[MAXH];                /* constrained, as told by decisions and the driver */
    rb promised[MAXH];            /* what the grants told each constrained federate: no TSO
                                     message below this will come (from decisions only) */
    struct rmsg last[MAXH];       /* last TSO delivered to each federate (order checks) */
    int last_step[MAXH];          /* event in which it was delivered */
    struct rmsg from[MAXH][MAXH]; /* last TSO from each sender to each receiver */
    long sent_copies, delivered, discarded;
    unsigned seed;
    int mix; /* 0: every service; 1: no NER/NERA (the engine's fast path); 2: TAR only */
    int step;
    int bad; /* failures in this run (stop early) */
};

static void eng_log(struct run *r, int h, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
static void eng_log(struct run *r, int h, const char *fmt, ...)
{
    size_t n = strlen(r->log[h]);
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(r->log[h] + n, LOGN - n, fmt, ap);
    va_end(ap);
}

/* Order checks start again at time t (after an FQR grant or enabling constrained). */
static void restart(struct run *r, int h, int64_t t)
{
    r->last[h] = (struct rmsg){t, 0, 0, 0};
    r->last_step[h] = -1;
    memset(r->from[h], 0, sizeof r->from[h]);
}

#define RFAIL(r, ...)                                                                              \
    do {                                                                                           \
        (r)->bad++;                                                                                \
        CHECK(0, __VA_ARGS__);                                                                     \
    } while (0)

static void eng_sink(void *ctx, const tm_decision *d)
{
    struct run *r = ctx;
    int h = (int)d->fed;
    if (d->kind == TM_D_REFUSED) {
        n_refused[-d->code & 15]++;
        return;
    }
    if (h <= 0 || h >= MAXH) {
        RFAIL(r, "seed %u step %d: decision for handle %d", r->seed, r->step, h);
        return;
    }
    switch (d->kind) {
    case TM_D_GRANT:
        /* Invariant: grants never decrease. */
        if (d->time < r->now[h])
            RFAIL(r, "seed %u step %d: grant %" PRId64 " below time %" PRId64 " of %d", r->seed,
                  r->step, d->time, r->now[h], h);
        r->now[h] = d->time;
        if (r->con[h])
            r->promised[h] =
                rmax(r->promised[h], rmk(d->time, d->req == TM_REQ_TAR || d->req == TM_REQ_NER));
        n_grant[d->req % 6]++;
        if (d->req == TM_REQ_FQR) /* the flush may pass later time stamps: restart at g */
            restart(r, h, d->time);
        eng_log(r, h, "G%" PRId64 " ", d->time);
        break;
    case TM_D_DELIVER:
        r->delivered++;
        if (d->tso) {
            struct rmsg x = {d->time, (int)d->sender, d->seq, d->token};
            int snd = x.sender > 0 && x.sender < MAXH ? x.sender : 0;
            /* Invariants: no TSO message below the receiver's time; time stamps never go
             * back; within one batch the full (ts, sender, seq) order; from one sender,
             * (ts, seq) order. Across events the tie order may differ: messages stamped T
             * that arrive after a TARA/NERA/FQR grant at T are delivered at once (§5). */
            if (d->time < r->now[h])
                RFAIL(r, "seed %u step %d: TSO ts %" PRId64 " delivered to %d at time %" PRId64,
                      r->seed, r->step, d->time, h, r->now[h]);
            /* Invariant: no TSO message below a promise a grant made (after TAR(T) or NER
             * granted T, nothing stamped T; later grants at T do not reopen it). */
            if (r->con[h] && rcmp(rmk(d->time, 0), r->promised[h]) < 0)
                RFAIL(r,
                      "seed %u step %d: TSO ts %" PRId64 " delivered to %d, promised (%" PRId64
                      ", %s)",
                      r->seed, r->step, d->time, h, r->promised[h].t,
                      r->promised[h].s ? "strict" : "non-strict");
            if (x.ts < r->last[h].ts ||
                (r->last_step[h] == r->step && r->last[h].sender && !before(&r->last[h], &x)))
                RFAIL(r,
                      "seed %u step %d: TSO (%" PRId64 ", %d, %" PRIu64
                      ") to %d out of order after (%" PRId64 ", %d, %" PRIu64 ")",
                      r->seed, r->step, x.ts, x.sender, x.seq, h, r->last[h].ts, r->last[h].sender,
                      r->last[h].seq);
            struct rmsg *pf = &r->from[h][snd];
            if (pf->seq && (x.ts < pf->ts || (x.ts == pf->ts && x.seq <= pf->seq)))
                RFAIL(r,
                      "seed %u step %d: TSO from %d to %d: (%" PRId64 ", %" PRIu64
                      ") after (%" PRId64 ", %" PRIu64 ")",
                      r->seed, r->step, snd, h, x.ts, x.seq, pf->ts, pf->seq);
            *pf = x;
            r->last[h] = x;
            r->last_step[h] = r->step;
            n_tso++;
            eng_log(r, h, "D%" PRIu64 "@%" PRId64 " ", d->token, d->time);
        } else {
            n_ro++;
            eng_log(r, h, "R%" PRIu64 " ", d->token);
        }
        break;
    case TM_D_DISCARD:
        r->discarded++;
        n_discard++;
        eng_log(r, h, "X%" PRIu64 " ", d->token);
        break;
    case TM_D_REG_ENABLED:
        eng_log(r, h, "RE%" PRId64 " ", d->time);
        break;
    case TM_D_CON_ENABLED:
        restart(r, h, d->time);
        r->con[h] = 1;
        r->promised[h] = rmk(d->time, 0);
        eng_log(r, h, "CE%" PRId64 " ", d->time);
        break;
    default:
        break;
    }
}

/* Compare this event's decisions, codes and the status of everyone, then clear the logs. */
static void compare(struct run *r, const char *what, int got, int want)
{
    struct model *m = &r->m;
    if (got != want)
        RFAIL(r, "seed %u step %d: %s returned %s, model says %s", r->seed, r->step, what,
              tm_strerror(got), tm_strerror(want));
    for (int h = 1; h < MAXH; h++) {
        if (strcmp(r->log[h], m->log[h]) != 0)
            RFAIL(r, "seed %u step %d: %s: federate %d got \"%s\", model \"%s\"", r->seed, r->step,
                  what, h, r->log[h], m->log[h]);
        r->log[h][0] = m->log[h][0] = 0;
        if (!m->f[h].joined) continue;
        tm_status s;
        if (tm_query(r->st, (tm_fed)h, &s, NULL, 0) != TM_OK) {
            RFAIL(r, "seed %u step %d: federate %d unknown to the engine", r->seed, r->step, h);
            continue;
        }
        const struct rfed *f = &m->f[h];
        rb eb = {s.bound.t, s.bound.strict}, eg = {s.galt.t, s.galt.strict};
        if (s.time != f->T || (int)s.req != f->req || s.galt.t != f->galt.t ||
            rcmp(eg, f->galt) != 0 || (f->reg && rcmp(eb, f->floor) != 0) ||
            s.constrained != (f->con != 0) || (int)s.queued != f->nq)
            RFAIL(r,
                  "seed %u step %d: %s: federate %d engine T %" PRId64 " req %d bound (%" PRId64
                  ",%d) galt (%" PRId64 ",%d) q %zu; model T %" PRId64 " req %d bound (%" PRId64
                  ",%d) galt (%" PRId64 ",%d) q %d",
                  r->seed, r->step, what, h, s.time, s.req, s.bound.t, s.bound.strict, s.galt.t,
                  s.galt.strict, s.queued, f->T, f->req, f->floor.t, f->floor.s, f->galt.t,
                  f->galt.s, f->nq);
    }
    /* Who blocks whom: the holder is another regulating federate whose bound is the GALT. */
    for (int h = 1; h < MAXH; h++) {
        tm_status s, hs;
        if (!m->f[h].joined || tm_query(r->st, (tm_fed)h, &s, NULL, 0) != TM_OK) continue;
        if (s.galt.t == TM_TIME_MAX) {
            if (s.galt_holder != TM_NO_FED &&
                (tm_query(r->st, s.galt_holder, &hs, NULL, 0) || hs.bound.t != TM_TIME_MAX))
                RFAIL(r, "seed %u step %d: %d has GALT inf but holder %u", r->seed, r->step, h,
                      s.galt_holder);
            continue;
        }
        if (s.galt_holder == (tm_fed)h || tm_query(r->st, s.galt_holder, &hs, NULL, 0) ||
            !hs.regulating || tm_bound_cmp(hs.bound, s.galt) != 0 || s.galt_root == TM_NO_FED)
            RFAIL(r, "seed %u step %d: %d's GALT (%" PRId64 ",%d) holder %u root %u", r->seed,
                  r->step, h, s.galt.t, s.galt.strict, s.galt_holder, s.galt_root);
    }
    /* Invariant: when everyone waits, something must be due (the model and engine agree on
     * the state, so check it once, on the engine's statuses). */
    int joined = 0, blocked = 0;
    for (int h = 1; h < MAXH; h++) {
        if (!m->f[h].joined) continue;
        joined++;
        tm_status s;
        if (tm_query(r->st, (tm_fed)h, &s, NULL, 0) == TM_OK && s.blocked) blocked++;
    }
    if (joined > 0 && blocked == joined)
        RFAIL(r, "seed %u step %d: stall: all %d federates wait", r->seed, r->step, joined);
}

/* ---- the driver ------------------------------------------------------------------------- */

static unsigned rnd(unsigned *s)
{
    *s = *s * 1103515245u + 12345u;
    return (*s >> 8) & 0xffffff;
}

static int pick_joined(struct run *r, unsigned *s)
{
    int hs[MAXH], n = 0;
    for (int h = 1; h < MAXH; h++)
        if (r->m.f[h].joined) hs[n++] = h;
    return n ? hs[rnd(s) % (unsigned)n] : 0;
}

static int count_joined(const struct run *r)
{
    int n = 0;
    for (int h = 1; h < MAXH; h++)
        n += r->m.f[h].joined;
    return n;
}

static void do_join(struct run *r, int h)
{
    char err[TM_ERR_LEN];
    m_join(&r->m, h);
    r->now[h] = 0;
    restart(r, h, 0);
    compare(r, "join", tm_join(r->st, (tm_fed)h, NULL, err, sizeof err), TM_OK);
}

static void one_event(struct run *r, unsigned *s, int *next_handle, uint64_t *token)
{
    char err[TM_ERR_LEN], what[96];
    int h = pick_joined(r, s);
    if (!h) return;
    struct rfed *f = &r->m.f[h];
    unsigned a = rnd(s) % 100;
    if (a < 40) { /* a time request, now and then an illegal one */
        static const int kinds[] = {TM_REQ_TAR, TM_REQ_TAR,  TM_REQ_TARA, TM_REQ_TARA, TM_REQ_NER,
                                    TM_REQ_NER, TM_REQ_NERA, TM_REQ_NERA, TM_REQ_FQR};
        static const int64_t steps[] = {0, 0, 1, 1, 1, 2, 3, 5, 8};
        int kind = kinds[rnd(s) % 9];
        if (r->mix == 1 && (kind == TM_REQ_NER || kind == TM_REQ_NERA))
            kind = kind == TM_REQ_NER ? TM_REQ_TAR : TM_REQ_TARA;
        if (r->mix == 2) kind = TM_REQ_TAR;
        int64_t t = f->T + steps[rnd(s) % 9];
        if (rnd(s) % 20 == 0) t = f->T - 1;
        snprintf(what, sizeof what, "%s(%" PRId64 ") by %d", tm_req_name((tm_req)kind), t, h);
        int want = m_request(&r->m, h, kind, t);
        compare(r, what, tm_request(r->st, (tm_fed)h, (tm_req)kind, t, err, sizeof err), want);
    } else if (a < 80) { /* a send, now and then below the bound or receive-order */
        int rcv[MAXH], n = 0;
        for (int k = 1; k < MAXH; k++)
            if (r->m.f[k].joined && (k != h || rnd(s) % 4 == 0) && rnd(s) % 3 != 0 &&
                r->m.f[k].nq < MAXQ - 1)
                rcv[n++] = k;
        int64_t base = f->reg ? f->floor.t : f->T;
        static const int64_t offs[] = {-1, 0, 0, 0, 1, 1, 2, 3, 6};
        int64_t ts = base == INT64_MAX ? f->T : base + offs[rnd(s) % 9];
        if (rnd(s) % 25 == 0) ts = TM_NO_TIME;
        uint64_t tok = ++*token;
        snprintf(what, sizeof what, "send ts %" PRId64 " by %d to %d receivers", ts, h, n);
        tm_fed er[MAXH];
        for (int i = 0; i < n; i++)
            er[i] = (tm_fed)rcv[i];
        int want = m_send(&r->m, h, ts, rcv, n, tok);
        int got = tm_send(r->st, (tm_fed)h, ts, er, (size_t)n, tok, err, sizeof err);
        if (got == TM_OK) r->sent_copies += n;
        compare(r, what, got, want);
    } else if (a < 86) {
        int64_t L = (rnd(s) % 2) ? 0 : (int64_t)(rnd(s) % 4);
        snprintf(what, sizeof what, "%s regulation of %d (L %" PRId64 ")",
                 f->reg ? "disable" : "enable", h, L);
        if (f->reg && rnd(s) % 3 != 0) {          /* keep most federates regulating */
            int want = m_enable_reg(&r->m, h, L); /* enabling twice: refused */
            compare(r, what, tm_enable_regulation(r->st, (tm_fed)h, L, err, sizeof err), want);
        } else if (f->reg) {
            int want = m_disable_reg(&r->m, h);
            compare(r, what, tm_disable_regulation(r->st, (tm_fed)h, err, sizeof err), want);
        } else {
            int want = m_enable_reg(&r->m, h, L);
            compare(r, what, tm_enable_regulation(r->st, (tm_fed)h, L, err, sizeof err), want);
        }
    } else if (a < 92) {
        int on = f->con || f->conp;
        snprintf(what, sizeof what, "%s constrained of %d", on ? "disable" : "enable", h);
        if (on && rnd(s) % 3 != 0) {           /* disable less often than asked */
            int want = m_enable_con(&r->m, h); /* enabling twice: refused */
            compare(r, what, tm_enable_constrained(r->st, (tm_fed)h, err, sizeof err), want);
        } else if (on) {
            r->con[h] = 0; /* its queue is now delivered RO: no promise holds */
            int want = m_disable_con(&r->m, h);
            compare(r, what, tm_disable_constrained(r->st, (tm_fed)h, err, sizeof err), want);
        } else {
            int want = m_enable_con(&r->m, h);
            compare(r, what, tm_enable_constrained(r->st, (tm_fed)h, err, sizeof err), want);
        }
    } else if (a < 96) {
        int64_t L = (int64_t)(rnd(s) % 4);
        snprintf(what, sizeof what, "lookahead of %d to %" PRId64, h, L);
        int want = m_lookahead(&r->m, h, L);
        compare(r, what, tm_modify_lookahead(r->st, (tm_fed)h, L, err, sizeof err), want);
    } else if (a < 98 && count_joined(r) > 2) {
        snprintf(what, sizeof what, "resign of %d", h);
        m_resign(&r->m, h);
        compare(r, what, tm_resign(r->st, (tm_fed)h, err, sizeof err), TM_OK);
    } else if (*next_handle < MAXH && count_joined(r) < 8) {
        /* a late joiner (at most 8 at a time), usually regulating and constrained */
        int nh = (*next_handle)++;
        do_join(r, nh);
        if (rnd(s) % 4 != 0) {
            int64_t L = (rnd(s) % 2) ? 0 : (int64_t)(rnd(s) % 4);
            int want = m_enable_reg(&r->m, nh, L);
            compare(r, "late regulation",
                    tm_enable_regulation(r->st, (tm_fed)nh, L, err, sizeof err), want);
        }
        if (rnd(s) % 4 != 0) {
            int want = m_enable_con(&r->m, nh);
            compare(r, "late constrained",
                    tm_enable_constrained(r->st, (tm_fed)nh, err, sizeof err), want);
        }
    }
}

static int one_run(unsigned seed, int steps)
{
    static struct run r; /* large: keep it off the stack */
    memset(&r, 0, sizeof r);
    r.seed = seed;
    unsigned s = seed * 2654435761u + 1;
    char err[TM_ERR_LEN];
    if (tm_new(&r.st, eng_sink, &r, err, sizeof err) != TM_OK) {
        RFAIL(&r, "tm_new: %s", err);
        return 1;
    }
    int n = 2 + (int)(rnd(&s) % 7); /* 2..8 federates */
    r.mix = seed % 10 == 0 ? 2 : (seed % 3 == 0 ? 1 : 0);
    int next = 1;
    uint64_t token = 0;
    for (int i = 0; i < n; i++)
        do_join(&r, next++);
    for (int h = 1; h <= n; h++) { /* most regulate and are constrained */
        if (rnd(&s) % 5 != 0) {
            int64_t L = (rnd(&s) % 2) ? 0 : (int64_t)(rnd(&s) % 4);
            int want = m_enable_reg(&r.m, h, L);
            compare(&r, "setup regulation",
                    tm_enable_regulation(r.st, (tm_fed)h, L, err, sizeof err), want);
        }
        if (rnd(&s) % 5 != 0) {
            int want = m_enable_con(&r.m, h);
            compare(&r, "setup constrained",
                    tm_enable_constrained(r.st, (tm_fed)h, err, sizeof err), want);
        }
    }
    for (r.step = 0; r.step < steps && r.bad == 0; r.step++)
        one_event(&r, &s, &next, &token);
    /* No silent loss: every copy sent was delivered, discarded, or is still queued. */
    long queued = 0;
    for (int h = 1; h < MAXH; h++)
        if (r.m.f[h].joined) {
            tm_status st;
            if (tm_query(r.st, (tm_fed)h, &st, NULL, 0) == TM_OK) queued += (long)st.queued;
        }
    if (r.bad == 0 && r.delivered + r.discarded + queued != r.sent_copies)
        RFAIL(&r, "seed %u: %ld copies sent, %ld delivered + %ld discarded + %ld queued", seed,
              r.sent_copies, r.delivered, r.discarded, queued);
    tm_free(r.st);
    return r.bad;
}

int main(int argc, char **argv)
{
    int runs = argc > 1 ? atoi(argv[1]) : 10000;
    int steps = argc > 2 ? atoi(argv[2]) : 150;
    unsigned seed0 = argc > 3 ? (unsigned)strtoul(argv[3], NULL, 10) : 1;
    int failing = 0;
    for (int i = 0; i < runs && failing < 5; i++) {
        check_case_begin(); /* one case per randomized run (tests/check.h) */
        int bad = one_run(seed0 + (unsigned)i, steps);
        check_case_end(!bad);
        if (bad) {
            failing++;
            fprintf(stderr, "run with seed %u failed (rerun: %s 1 %d %u)\n", seed0 + i, argv[0],
                    steps, seed0 + i);
        }
    }
    printf("%d randomized runs of %d events, %d failing\n", runs, steps, failing);
    printf("grants: TAR %ld TARA %ld NER %ld NERA %ld FQR %ld; TSO deliveries %ld, RO %ld, "
           "discards %ld\n",
           n_grant[1], n_grant[2], n_grant[3], n_grant[4], n_grant[5], n_tso, n_ro, n_discard);
    printf("refusals: ETIME %ld EPENDING %ld EBOUND %ld EENABLED %ld ENOTENABLED %ld\n",
           n_refused[-TM_ETIME], n_refused[-TM_EPENDING], n_refused[-TM_EBOUND],
           n_refused[-TM_EENABLED], n_refused[-TM_ENOTENABLED]);
    /* The generator must reach every service, or a pass means little. */
    for (int k = 1; k <= 5 && runs >= 100; k++)
        CHECK(n_grant[k] > 0, "no %s grant in %d runs", tm_req_name((tm_req)k), runs);
    CHECK(failing == 0, "%d runs failed", failing);
    return check_summary();
}
