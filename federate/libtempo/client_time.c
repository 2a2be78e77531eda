/* libtempo time management, client side: enable/disable regulation and constrained, lookahead,
 * the five time-advance requests, the blocking grant wait, the "who blocks whom" query, and a
 * local mirror of the bound table of doc/time.md so that bad calls fail before anything is
 * sent (the RTI's rti/tm/tm.c decides and checks again). Also tick/second conversions (§4).
 * Read rti/tm/tm.h for the authoritative rules; doc/time.md for worked examples. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "federate/libtempo/client_impl.h"
#include "rti/proto/bound.h"
#include "rti/proto/status.h"
#include "rti/proto/ticks.h"

/* The mirrored constants of API, wire and the bound table are one set of numbers: requests,
 * grants and status codes pass through unchanged. */
_Static_assert(TP_TIME_MAX == BOUND_TIME_MAX, "infinity differs between API and bound table");
_Static_assert(TP_NO_TIME == WIRE_TIME_NONE, "'no time' differs between API and wire");
_Static_assert(TP_REQ_NONE == (int)BOUND_REQ_NONE && TP_REQ_NONE == (int)WIRE_TR_NONE,
               "request kind NONE differs");
_Static_assert(TP_REQ_TAR == (int)BOUND_REQ_TAR && TP_REQ_TAR == (int)WIRE_TR_TAR,
               "request kind TAR differs");
_Static_assert(TP_REQ_TARA == (int)BOUND_REQ_TARA && TP_REQ_TARA == (int)WIRE_TR_TARA,
               "request kind TARA differs");
_Static_assert(TP_REQ_NER == (int)BOUND_REQ_NER && TP_REQ_NER == (int)WIRE_TR_NER,
               "request kind NER differs");
_Static_assert(TP_REQ_NERA == (int)BOUND_REQ_NERA && TP_REQ_NERA == (int)WIRE_TR_NERA,
               "request kind NERA differs");
_Static_assert(TP_REQ_FQR == (int)BOUND_REQ_FQR && TP_REQ_FQR == (int)WIRE_TR_FQR,
               "request kind FQR differs");
/* The RTI sends each refusal as the magnitude of the TP_E* code (rti/proto/status.h). */
_Static_assert(TP_EINVAL == -STATUS_EINVAL && TP_ESTATE == -STATUS_ESTATE &&
                   TP_EHANDLE == -STATUS_EHANDLE && TP_ENOTPUB == -STATUS_ENOTPUB &&
                   TP_ESIZE == -STATUS_ESIZE && TP_EFOM == -STATUS_EFOM,
               "declaration status codes differ between API and wire");
_Static_assert(TP_ETIME == -STATUS_ETIME && TP_EPENDING == -STATUS_EPENDING &&
                   TP_EBOUND == -STATUS_EBOUND && TP_EENABLED == -STATUS_EENABLED &&
                   TP_ENOTENABLED == -STATUS_ENOTENABLED,
               "time status codes differ between API and wire");
_Static_assert(TP_EREFUSED == -STATUS_EREFUSED && TP_EEXISTS == -STATUS_EEXISTS &&
                   TP_ENOTFOUND == -STATUS_ENOTFOUND && TP_EFOMDIFF == -STATUS_EFOMDIFF &&
                   TP_EAUTH == -STATUS_EAUTH && TP_ECKPT == -STATUS_ECKPT &&
                   TP_EPROTO == -STATUS_EPROTO && TP_ESYS == -STATUS_ESYS,
               "federation status codes differ between API and wire");

/* The bound of the federate's current state by the table of doc/time.md (rti/proto/bound.h),
 * before taking the "a promise is never withdrawn" maximum. For NER/NERA the true bound m + L
 * depends on queued messages the client cannot see; bound_row gives the granted-state bound,
 * a lower limit of it (the bound never goes down), so the local check is never stricter than
 * the RTI's. So is a regulator's first bound, which the RTI may raise to the promises made
 * to constrained federates (doc/time.md §2). */
static bound_pair table_bound(const tp_federate *f)
{
    return bound_row((enum bound_req)f->pending, f->pending_time, f->now, f->lookahead,
                     f->granted_strict != 0);
}

static bound_pair promised(const tp_federate *f)
{
    return bound_make(f->promised, f->promised_strict != 0);
}

/* Raise the remembered promise to the current state's bound. */
static void promise(tp_federate *f)
{
    if (f->regulation != TPI_ON) return;
    bound_pair b = bound_max(promised(f), table_bound(f));
    f->promised = b.t;
    f->promised_strict = b.strict;
}

int tpi_check_send_time(tp_federate *f, tp_time t, const char *what)
{
    if (f->regulation != TPI_ON)
        return TP_OK; /* not regulating: the RTI delivers it in receive order */
    bound_pair b = bound_max(table_bound(f), promised(f));
    if (bound_admits(b, t)) return TP_OK;
    return tpi_fail(f, TP_EBOUND,
                    "federate \"%s\": %s stamped %lld is below its bound %s%lld "
                    "(logical time %lld, lookahead %lld%s)",
                    f->name, what, (long long)t, b.strict ? "> " : ">= ", (long long)b.t,
                    (long long)f->now, (long long)f->lookahead,
                    f->pending == TP_REQ_TAR    ? ", TAR pending"
                    : f->pending == TP_REQ_TARA ? ", TARA pending"
                                                : "");
}

/* ---- callbacks' effect on the mirror (called by client_evoke.c) --------------------------- */

void tpi_on_grant(tp_federate *f, uint32_t kind, tp_time t)
{
    f->now = t;
    f->pending = TP_REQ_NONE;
    f->pending_time = TP_NO_TIME;
    /* L = 0 rows: strict after a TAR/NER/FQR grant, non-strict after TARA/NERA. */
    f->granted_strict = bound_strict_after((enum bound_req)kind);
    f->grants++;
    promise(f);
}

void tpi_on_regulation_enabled(tp_federate *f, tp_time t)
{
    f->regulation = TPI_ON;
    f->now = t;
    f->granted_strict = bound_strict_after(BOUND_REQ_NONE); /* non-strict after enabling */
    promise(f);
}

void tpi_on_regulation_bound(tp_federate *f, tp_time bound, int strict)
{
    if (f->regulation != TPI_ON) return;
    bound_pair b = bound_max(promised(f), bound_make(bound, strict != 0));
    f->promised = b.t;
    f->promised_strict = b.strict;
}

int tp_query_send_bound(tp_federate *f, tp_time *bound, int *strict)
{
    if (!f || !bound) return tpi_fail(f, TP_EINVAL, "tp_query_send_bound: NULL argument");
    if (f->regulation != TPI_ON)
        return tpi_fail(f, TP_ENOTENABLED,
                        "tp_query_send_bound: federate \"%s\" is not regulating (yet)", f->name);
    bound_pair b = bound_max(table_bound(f), promised(f));
    *bound = b.t;
    if (strict) *strict = b.strict;
    return TP_OK;
}

void tpi_on_constrained_enabled(tp_federate *f, tp_time t)
{
    f->constrained = TPI_ON;
    f->now = t;
}

void tpi_on_time_refused(tp_federate *f, uint32_t type)
{
    switch (type) {
    case WIRE_TIME_REQUEST:
        f->pending = TP_REQ_NONE;
        f->pending_time = TP_NO_TIME;
        f->promised = f->promised_before; /* the refused request promised nothing */
        f->promised_strict = f->promised_before_strict;
        break;
    case WIRE_ENABLE_REGULATION:
        if (f->regulation == TPI_ENABLING) f->regulation = TPI_OFF;
        break;
    case WIRE_ENABLE_CONSTRAINED:
        if (f->constrained == TPI_ENABLING) f->constrained = TPI_OFF;
        break;
    default:
        break;
    }
}

/* ---- enable / disable --------------------------------------------------------------------- */

static int send_simple(tp_federate *f, unsigned type, tp_time lookahead)
{
    struct wire_msg m;
    wire_msg_init(&m, type);
    if (lookahead != TP_NO_TIME) m.time2 = lookahead;
    return tpi_send(f, &m);
}

int tp_enable_regulation(tp_federate *f, tp_time lookahead)
{
    int r = tpi_check_joined(f);
    if (r < 0) return r;
    if (lookahead < 0)
        return tpi_fail(f, TP_EINVAL, "tp_enable_regulation: lookahead %lld is negative",
                        (long long)lookahead);
    if (f->regulation != TPI_OFF)
        return tpi_fail(f, TP_EENABLED, "tp_enable_regulation: federate \"%s\" is already %s",
                        f->name, f->regulation == TPI_ON ? "regulating" : "enabling regulation");
    if (f->pending != TP_REQ_NONE)
        return tpi_fail(f, TP_EPENDING,
                        "tp_enable_regulation: federate \"%s\" has a time "
                        "request for %lld pending",
                        f->name, (long long)f->pending_time);
    if ((r = send_simple(f, WIRE_ENABLE_REGULATION, lookahead)) < 0) return r;
    f->regulation = TPI_ENABLING;
    f->lookahead = lookahead;
    return TP_OK;
}

int tp_disable_regulation(tp_federate *f)
{
    int r = tpi_check_joined(f);
    if (r < 0) return r;
    if (f->regulation != TPI_ON)
        return tpi_fail(f, TP_ENOTENABLED,
                        "tp_disable_regulation: federate \"%s\" is not "
                        "regulating",
                        f->name);
    if ((r = send_simple(f, WIRE_DISABLE_REGULATION, TP_NO_TIME)) < 0) return r;
    f->regulation = TPI_OFF;
    f->promised = TP_NO_TIME;
    f->promised_strict = 0;
    return TP_OK;
}

int tp_enable_constrained(tp_federate *f)
{
    int r = tpi_check_joined(f);
    if (r < 0) return r;
    if (f->constrained != TPI_OFF)
        return tpi_fail(f, TP_EENABLED, "tp_enable_constrained: federate \"%s\" is already %s",
                        f->name, f->constrained == TPI_ON ? "constrained" : "enabling it");
    if (f->pending != TP_REQ_NONE)
        return tpi_fail(f, TP_EPENDING,
                        "tp_enable_constrained: federate \"%s\" has a time "
                        "request for %lld pending",
                        f->name, (long long)f->pending_time);
    if ((r = send_simple(f, WIRE_ENABLE_CONSTRAINED, TP_NO_TIME)) < 0) return r;
    f->constrained = TPI_ENABLING;
    return TP_OK;
}

int tp_disable_constrained(tp_federate *f)
{
    int r = tpi_check_joined(f);
    if (r < 0) return r;
    if (f->constrained != TPI_ON)
        return tpi_fail(f, TP_ENOTENABLED,
                        "tp_disable_constrained: federate \"%s\" is not "
                        "constrained",
                        f->name);
    if ((r = send_simple(f, WIRE_DISABLE_CONSTRAINED, TP_NO_TIME)) < 0) return r;
    f->constrained = TPI_OFF;
    return TP_OK;
}

static int regulation_on(tp_federate *f, const void *arg)
{
    (void)arg;
    return f->regulation != TPI_ENABLING;
}

static int constrained_on(tp_federate *f, const void *arg)
{
    (void)arg;
    return f->constrained != TPI_ENABLING;
}

int tp_wait_regulation_enabled(tp_federate *f, int timeout_ms)
{
    int r = tpi_check_joined(f);
    if (r < 0) return r;
    if (f->regulation == TPI_OFF)
        return tpi_fail(f, TP_ENOTENABLED,
                        "tp_wait_regulation_enabled: regulation was not "
                        "requested (or the RTI refused it: %s)",
                        f->err);
    r = tpi_wait_until(f, regulation_on, NULL, timeout_ms);
    if (r == TP_OK && f->regulation != TPI_ON)
        return TP_EREFUSED; /* f->err holds the RTI's reason */
    return r;
}

int tp_wait_constrained_enabled(tp_federate *f, int timeout_ms)
{
    int r = tpi_check_joined(f);
    if (r < 0) return r;
    if (f->constrained == TPI_OFF)
        return tpi_fail(f, TP_ENOTENABLED,
                        "tp_wait_constrained_enabled: constrained was not "
                        "requested (or the RTI refused it)");
    r = tpi_wait_until(f, constrained_on, NULL, timeout_ms);
    if (r == TP_OK && f->constrained != TPI_ON) return TP_EREFUSED;
    return r;
}

int tp_modify_lookahead(tp_federate *f, tp_time lookahead)
{
    int r = tpi_check_joined(f);
    if (r < 0) return r;
    if (lookahead < 0)
        return tpi_fail(f, TP_EINVAL, "tp_modify_lookahead: lookahead %lld is negative",
                        (long long)lookahead);
    if (f->regulation != TPI_ON)
        return tpi_fail(f, TP_ENOTENABLED,
                        "tp_modify_lookahead: federate \"%s\" is not "
                        "regulating",
                        f->name);
    if ((r = send_simple(f, WIRE_MODIFY_LOOKAHEAD, lookahead)) < 0) return r;
    promise(f); /* the old lookahead's bound stays promised */
    f->lookahead = lookahead;
    return TP_OK;
}

int tp_query_lookahead(tp_federate *f, tp_time *out)
{
    if (!f || !out) return tpi_fail(f, TP_EINVAL, "tp_query_lookahead: NULL argument");
    if (f->regulation == TPI_OFF)
        return tpi_fail(f, TP_ENOTENABLED,
                        "tp_query_lookahead: federate \"%s\" is not "
                        "regulating",
                        f->name);
    *out = f->lookahead;
    return TP_OK;
}

int tp_query_logical_time(tp_federate *f, tp_time *out)
{
    if (!f || !out) return tpi_fail(f, TP_EINVAL, "tp_query_logical_time: NULL argument");
    *out = f->now;
    return TP_OK;
}

/* ---- time-advance requests ---------------------------------------------------------------- */

static const char *const req_names[] = {"none", "TAR", "TARA", "NER", "NERA", "FQR"};

static int time_request(tp_federate *f, tp_request_kind kind, tp_time t)
{
    int r = tpi_check_joined(f);
    if (r < 0) return r;
    const char *name = req_names[kind];
    if (t == TP_NO_TIME) return tpi_fail(f, TP_EINVAL, "%s: TP_NO_TIME is not a time", name);
    if (f->pending != TP_REQ_NONE)
        return tpi_fail(f, TP_EPENDING,
                        "%s(%lld): federate \"%s\" already has %s(%lld) "
                        "pending",
                        name, (long long)t, f->name, req_names[f->pending],
                        (long long)f->pending_time);
    if (f->regulation == TPI_ENABLING || f->constrained == TPI_ENABLING)
        return tpi_fail(f, TP_EPENDING,
                        "%s(%lld): federate \"%s\" is waiting for %s to be "
                        "enabled",
                        name, (long long)t, f->name,
                        f->regulation == TPI_ENABLING ? "regulation" : "constrained");
    /* "a request time must be >= the federate's logical time" (doc/time.md). */
    if (t < f->now)
        return tpi_fail(f, TP_ETIME,
                        "%s(%lld): below the logical time %lld of federate "
                        "\"%s\"",
                        name, (long long)t, (long long)f->now, f->name);
    struct wire_msg m;
    wire_msg_init(&m, WIRE_TIME_REQUEST);
    m.code = (uint32_t)kind; /* tp_request_kind and wire_time_kind share their numbers */
    m.time = t;
    if ((r = tpi_send(f, &m)) < 0) return r;
    f->promised_before = f->promised;
    f->promised_before_strict = f->promised_strict;
    f->pending = kind;
    f->pending_time = t;
    promise(f);
    /* Sent at once: a request is the end of a step, and the RTI can act on it only once
     * it has it. */
    r = tpi_flush(f);
    /* A part armed at an open grant waits for a closing grant; asking an open request again,
     * the federate will see none before the next instant: its part is made now, this
     * request pending (tpi_after_open_request, doc/checkpoint.md "The cut"). */
    if (r >= 0 && f->save_armed && (kind == TP_REQ_NERA || kind == TP_REQ_TARA))
        tpi_after_open_request(f);
    return r;
}

int tp_time_advance_request(tp_federate *f, tp_time t)
{
    return time_request(f, TP_REQ_TAR, t);
}

int tp_time_advance_request_available(tp_federate *f, tp_time t)
{
    return time_request(f, TP_REQ_TARA, t);
}

int tp_next_event_request(tp_federate *f, tp_time t)
{
    return time_request(f, TP_REQ_NER, t);
}

int tp_next_event_request_available(tp_federate *f, tp_time t)
{
    return time_request(f, TP_REQ_NERA, t);
}

int tp_flush_queue_request(tp_federate *f, tp_time t)
{
    return time_request(f, TP_REQ_FQR, t);
}

static int granted(tp_federate *f, const void *arg)
{
    return f->grants != *(const int *)arg || f->pending == TP_REQ_NONE;
}

int tp_wait_grant(tp_federate *f, tp_time *t, int timeout_ms)
{
    int r = tpi_check_joined(f);
    if (r < 0) return r;
    if (f->pending == TP_REQ_NONE)
        return tpi_fail(f, TP_ESTATE,
                        "tp_wait_grant: federate \"%s\" has no time request "
                        "pending",
                        f->name);
    int before = f->grants;
    r = tpi_wait_until(f, granted, &before, timeout_ms);
    if (r == TP_OK && f->grants == before)
        return TP_EREFUSED; /* the request was refused: f->err has the RTI's reason */
    if (r == TP_OK && t) *t = f->now;
    return r;
}

/* ---- queries -------------------------------------------------------------------------------- */

struct status_ctx {
    tp_time_status *out; /* caller array */
    size_t cap;          /* its entries */
    size_t n;            /* records in the reply */
    tp_fed want;         /* also copy this federate's record into *mine (0: none) */
    tp_time_status mine; /* that record */
    unsigned polls;      /* that record's grants in a row without progress */
    tp_fed waits_for;    /* and whom it waits for when stalled (0 none) */
    int found;           /* 1 when it was in the reply */
};

static int status_reply(tp_federate *f, const struct wire_msg *m, void *arg)
{
    struct status_ctx *sc = arg;
    if (m->type != WIRE_TIME_STATUS) {
        int code = tpi_rti_code(m->code);
        return tpi_fail(f, code < 0 ? code : TP_EPROTO,
                        "query time status: %s from the RTI: "
                        "%.*s",
                        wire_type_name(m->type), (int)m->str[0].len,
                        m->str[0].ptr ? m->str[0].ptr : "");
    }
    struct wire_value_iter it;
    struct wire_value v;
    wire_value_iter_init(&it, m);
    sc->n = 0;
    while (wire_value_next(&it, &v)) {
        struct wire_tstat ts;
        char why[160];
        if (wire_tstat_unpack(v.data, v.len, &ts, why, sizeof why) < 0)
            return tpi_fail(f, TP_EPROTO, "query time status: record %zu: %s", sc->n, why);
        tp_time_status o = {
            .federate = (tp_fed)ts.federate,
            .time = ts.time,
            .pending = ts.req_kind <= WIRE_TR_FQR ? (tp_request_kind)ts.req_kind : TP_REQ_NONE,
            .pending_time = ts.req_time,
            .bound = ts.bound,
            .bound_strict = ts.bound_strict,
            .galt = ts.galt,
            .galt_strict = ts.galt_strict,
            .galt_holder = (tp_fed)ts.holder,
            .galt_root = (tp_fed)ts.root,
            .lits = ts.lits,
        };
        if (sc->n < sc->cap) sc->out[sc->n] = o;
        if (sc->want && o.federate == sc->want) {
            sc->mine = o;
            sc->polls = ts.polls;
            sc->waits_for = (tp_fed)ts.waits_for;
            sc->found = 1;
        }
        sc->n++;
    }
    return TP_OK;
}

/* One QUERY_TIME round trip into @p sc. */
static int query_status(tp_federate *f, struct status_ctx *sc)
{
    struct wire_msg m;
    wire_msg_init(&m, WIRE_QUERY_TIME);
    m.req = tpi_req(f);
    int r = tpi_send(f, &m);
    return r < 0 ? r : tpi_wait_reply(f, m.req, status_reply, sc);
}

int tp_query_time_status(tp_federate *f, tp_time_status *out, size_t cap, size_t *n)
{
    int r = tpi_check_joined(f);
    if (r < 0) return r;
    if (!n || (cap && !out)) return tpi_fail(f, TP_EINVAL, "tp_query_time_status: NULL argument");
    struct status_ctx sc = {.out = out, .cap = cap};
    r = query_status(f, &sc);
    *n = sc.n;
    return r;
}

int tp_query_galt(tp_federate *f, tp_time *galt, int *strict)
{
    int r = tpi_check_joined(f);
    if (r < 0) return r;
    if (!galt) return tpi_fail(f, TP_EINVAL, "tp_query_galt: galt is NULL");
    struct status_ctx sc = {.want = f->handle}; /* any number of federates, nothing stored */
    if ((r = query_status(f, &sc)) < 0) return r;
    if (!sc.found)
        return tpi_fail(f, TP_EPROTO,
                        "tp_query_galt: the RTI's status has no record for federate "
                        "\"%s\" (handle %u) among its %zu records",
                        f->name, f->handle, sc.n);
    *galt = sc.mine.galt;
    if (strict) *strict = sc.mine.galt_strict;
    return TP_OK;
}

int tp_query_lits(tp_federate *f, tp_time *lits)
{
    int r = tpi_check_joined(f);
    if (r < 0) return r;
    if (!lits) return tpi_fail(f, TP_EINVAL, "tp_query_lits: lits is NULL");
    struct status_ctx sc = {.want = f->handle};
    if ((r = query_status(f, &sc)) < 0) return r;
    if (!sc.found)
        return tpi_fail(f, TP_EPROTO,
                        "tp_query_lits: the RTI's status has no record for federate "
                        "\"%s\" (handle %u) among its %zu records",
                        f->name, f->handle, sc.n);
    *lits = sc.mine.lits;
    return TP_OK;
}

int tp_query_stall(tp_federate *f, tp_fed who, unsigned *polls, tp_fed *waits_for)
{
    int r = tpi_check_joined(f);
    if (r < 0) return r;
    if (!polls) return tpi_fail(f, TP_EINVAL, "tp_query_stall: polls is NULL");
    struct status_ctx sc = {.want = who ? who : f->handle};
    if ((r = query_status(f, &sc)) < 0) return r;
    if (!sc.found)
        return tpi_fail(f, TP_EHANDLE,
                        "tp_query_stall: the RTI's status has no record for federate handle %u "
                        "among its %zu records",
                        sc.want, sc.n);
    *polls = sc.polls;
    if (waits_for) *waits_for = sc.waits_for;
    return TP_OK;
}

/* ---- conversions (doc/time.md: seconds only at the API boundary) -------------------------- */

tp_time tp_time_from_seconds(const tp_federate *f, double seconds)
{
    double res = f && f->resolution > 0 ? f->resolution : 1e-9;
    if (isnan(seconds)) return TP_NO_TIME;
    double ticks = round(seconds / res);
    if (ticks >= 9.2233720368547758e18) return TP_TIME_MAX;
    if (ticks <= -9.2233720368547758e18) return -TP_TIME_MAX;
    return (tp_time)ticks;
}

double tp_time_to_seconds(const tp_federate *f, tp_time t)
{
    double res = f && f->resolution > 0 ? f->resolution : 1e-9;
    if (t == TP_TIME_MAX) return INFINITY;
    if (t == TP_NO_TIME) return NAN;
    return ticks_seconds(res, t); /* doc/time.md "Seconds from ticks" */
}
