/* tempo-fmu's transport (fmufed_tp.h): the peer exchange over libtempo. Set-up (join, declare,
 * enable time management, start and end sync points), the callbacks that map reflections to
 * inputs and notice peers leaving, and the exchange operations (publish, request, inputs,
 * token, idle). Serves doc/guide.md (item 3), doc/algorithms/port.md and the Awais thesis §3.3
 * (the FMU-federate). Read fmufed.c next (how the pieces are put together).
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "federate/config/fedfile_algo.h"
#include "federate/fmufed/fmufed_tp.h"
#include "federate/libtempo/tempo.h"
#include "fom/fom.h"

#define SYNC_START "tempo-start"
#define SYNC_END   "tempo-end"

/* The exchange's request kinds are libtempo's (algorithms/exchange.h). */
_Static_assert((int)PEER_CLOSE == (int)TP_REQ_TAR && (int)PEER_OPEN == (int)TP_REQ_TARA &&
                   (int)PEER_EVENT_CLOSE == (int)TP_REQ_NER &&
                   (int)PEER_EVENT_OPEN == (int)TP_REQ_NERA && (int)PEER_FLUSH == (int)TP_REQ_FQR,
               "peer_req mirrors tp_request_kind");
_Static_assert(PEER_NO_TIME == TP_NO_TIME, "PEER_NO_TIME mirrors TP_NO_TIME");

/* One input wire: FOM attribute -> model input i (wiring order). */
typedef struct tp_in {
    const fedfile_wire *w;
    tp_handle cls, attr;
    double next;    /* newest value received */
    tp_time next_t; /* its time stamp; TP_NO_TIME before the first */
    int fresh;      /* received since the last inputs() */
} tp_in;

/* One output wire: model output k -> FOM attribute of the object registered for its class. */
typedef struct tp_out {
    const fedfile_wire *w;
    tp_handle cls, attr;
    tp_object obj;
} tp_out;

struct fmufed_tp {
    const fedfile *ff;
    const fedfile_fed *fd;
    long idx; /* index of fd in ff->feds */
    tp_federate *tp;
    tp_in *in;
    size_t n_in;
    tp_out *out;
    size_t n_out;
    tp_handle step_ic;  /* StepForward interaction (gauss-seidel), 0 otherwise */
    tp_time step_fwd_t; /* newest StepForward time stamp received, TP_NO_TIME */
    tp_time T;          /* logical time granted, ticks */
    tp_time lookahead;  /* ticks */
    double res;         /* seconds per tick */
    int timeout_ms;     /* joins, enabling, start sync; < 0: none */
    int run_timeout_ms; /* grants, polling, end sync; < 0: none (the default) */
    int running;        /* 1 between the start and end syncs: a peer leaving is a failure */
    int peer_failed;    /* a peer resigned, or the RTI refused something */
    char peer_msg[512];
    size_t joined;           /* federates of the file seen joined (this one excluded) */
    char *seen;              /* ff->n_feds flags: seen joined */
    fmufed_stats *st;        /* counters, never NULL */
    struct timespec idle_t0; /* start of the current wait (idle attempt 0) */
    char *err;
    size_t errlen;
    /* Checkpoints (doc/checkpoint.md, "tempo-fmu's part"). */
    const fmufed_opts *opts; /* the schedule (ckpt_every, ckpt_at), ckpt_done; may be NULL */
    fmufed_tp_saver saver;   /* writes the part; NULL: this federate cannot save */
    void (*mark)(void *ctx); /* at each checkpoint instant; NULL: nothing */
    void *saver_ctx;
    int restore;             /* joined a restored federation */
    unsigned char *restored; /* the part the join handed back (malloc), NULL */
    size_t n_restored;
    tp_time mark_next;        /* the next checkpoint instant to mark, TP_NO_TIME: none left */
    tp_time ask_next;         /* the first federate: the next save to ask for, TP_NO_TIME: none */
    int save_open;            /* the first federate: a save it asked for has no outcome yet */
    char save_label[64];      /* that save's label */
    tp_time save_t;           /* and its time */
    struct timespec save_t0;  /* when this federate wrote its part of the save under way */
    tp_request_kind cur_kind; /* the request waited in (a save is made inside it) */
    tp_time cur_t;            /* and its time */
    int in_wait;              /* 1: inside that request's tp_wait_grant */
    int grant_seen;           /* 1: its grant came (the grant callback), in this wait */
    int resume_pending;       /* resumed from a part made with that request pending: the next
                                 request is it, already pending at the RTI (doc/checkpoint.md
                                 "When the save time is not reached"): wait, do not ask */
};

static int fmufed_fail(fmufed_tp *c, int code, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
static int fmufed_fail(fmufed_tp *c, int code, const char *fmt, ...)
{
    if (!c->err || !c->errlen) return code;
    int n = snprintf(c->err, c->errlen, "federate %s: ", c->fd ? c->fd->name : "?");
    if (n < 0 || (size_t)n >= c->errlen) return code;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(c->err + n, c->errlen - (size_t)n, fmt, ap);
    va_end(ap);
    return code;
}

/* ---- callbacks (run inside tp_evoke) ----------------------------------------------------- */

static void on_reflect(void *ctx, const tp_reflection *r)
{
    fmufed_tp *c = ctx;
    for (size_t k = 0; k < r->n_values; k++) {
        for (size_t i = 0; i < c->n_in; i++) {
            tp_in *in = &c->in[i];
            if (in->cls != r->object_class || in->attr != r->values[k].handle) continue;
            double v;
            if (tp_decode_float64(r->values[k].data, r->values[k].size, &v) != TP_OK) {
                if (!c->peer_failed)
                    snprintf(c->peer_msg, sizeof c->peer_msg,
                             "input \"%s\" (%s.%s): received %zu bytes, expected a float64",
                             in->w->var, in->w->cls, in->w->attr, r->values[k].size);
                c->peer_failed = 1;
                continue;
            }
            /* Time-stamp order per sender and one publisher per attribute: stamps only grow.
             * The newest value wins; the algorithms check its stamp against the step. */
            in->next = v;
            in->next_t = r->time;
            in->fresh = 1;
            c->st->reflections++;
        }
    }
}

static void on_receive(void *ctx, const tp_interaction *i)
{
    fmufed_tp *c = ctx;
    if (c->step_ic && i->interaction_class == c->step_ic &&
        (c->step_fwd_t == TP_NO_TIME || i->time > c->step_fwd_t))
        c->step_fwd_t = i->time;
}

static long file_index(const fmufed_tp *c, const char *name)
{
    return fedfile_find(c->ff, name);
}

static void on_joined(void *ctx, tp_fed fed, const char *name)
{
    fmufed_tp *c = ctx;
    long k = file_index(c, name);
    if (k >= 0 && k != c->idx && !c->seen[k]) {
        c->seen[k] = 1;
        c->joined++;
    }
}

static void on_resigned(void *ctx, tp_fed fed, const char *name, const char *reason)
{
    fmufed_tp *c = ctx;
    long k = file_index(c, name);
    if (k < 0 || k == c->idx) return;
    if (c->seen[k]) {
        c->seen[k] = 0;
        c->joined--;
    }
    if (c->running && !c->peer_failed) {
        c->peer_failed = 1;
        snprintf(c->peer_msg, sizeof c->peer_msg,
                 "federate %s left the federation before the end: %s", name,
                 reason ? reason : "no reason given");
    }
}

static void save_refused(fmufed_tp *c, int code, const char *message);

static void on_error(void *ctx, int code, const char *message)
{
    fmufed_tp *c = ctx;
    /* The RTI refused the save this federate asked for (no checkpoint folder, the folder
     * exists): that save fails, the run goes on (doc/checkpoint.md). */
    if (message && strstr(message, "REQUEST_SAVE")) {
        if (c->save_open) save_refused(c, code, message);
        return;
    }
    if (!c->peer_failed) {
        c->peer_failed = 1;
        snprintf(c->peer_msg, sizeof c->peer_msg, "the RTI refused a request: %s (%s)",
                 message ? message : "", tp_strerror(code));
    }
}

/* ---- checkpoints (doc/checkpoint.md, "tempo-fmu's part") --------------------------------- */

/* The first checkpoint instant after t (ticks), before the end: the next multiple of
 * ckpt_every past the start, or the next ckpt_at; TP_NO_TIME when none is left. */
static tp_time plan_next(const fmufed_tp *c, tp_time t)
{
    const fmufed_opts *o = c->opts;
    tp_time best = TP_NO_TIME, t0 = c->ff->algo.t_start, end = c->ff->algo.t_end;
    if (!o) return best;
    if (o->ckpt_every > 0) {
        tp_time k = t < t0 ? 1 : (t - t0) / o->ckpt_every + 1;
        if (k <= (end - t0) / o->ckpt_every) best = t0 + k * o->ckpt_every;
    }
    for (size_t i = 0; i < o->n_ckpt_at; i++) {
        tp_time a = o->ckpt_at[i];
        if (a > t && a > t0 && a < end && (best == TP_NO_TIME || a < best)) best = a;
    }
    return best < end ? best : TP_NO_TIME;
}

static void on_grant(void *ctx, tp_time time)
{
    fmufed_tp *c = ctx;
    (void)time;
    c->grant_seen = 1;
}

int fmufed_tp_save_pending(const fmufed_tp *c)
{
    return c->in_wait && !c->grant_seen;
}

static int on_save(void *ctx, const char *label, tp_time time, void **bytes, size_t *n, char *why,
                   size_t why_size)
{
    fmufed_tp *c = ctx;
    clock_gettime(CLOCK_MONOTONIC, &c->save_t0);
    if (!c->saver) {
        snprintf(why, why_size, "federate %s cannot save before its run started", c->fd->name);
        return TP_ESTATE;
    }
    pstate_buf b = {0};
    if (c->saver(c->saver_ctx, label, time, &b, why, why_size) != 0) {
        free(b.p);
        return TP_ESTATE;
    }
    if (b.bad) {
        free(b.p);
        snprintf(why, why_size, "federate %s: out of memory", c->fd->name);
        return TP_ENOMEM;
    }
    *bytes = b.p;
    *n = b.n;
    return TP_OK;
}

static int on_restore(void *ctx, const char *label, tp_time time, const void *bytes, size_t n,
                      char *why, size_t why_size)
{
    fmufed_tp *c = ctx;
    free(c->restored);
    c->restored = malloc(n ? n : 1);
    if (!c->restored) {
        snprintf(why, why_size, "federate %s: out of memory", c->fd->name);
        return TP_ENOMEM;
    }
    if (n) memcpy(c->restored, bytes, n);
    c->n_restored = n;
    return TP_OK;
}

static void on_saved(void *ctx, const char *label, int status, const char *detail)
{
    fmufed_tp *c = ctx;
    if (!c->save_open || strcmp(label, c->save_label) != 0) return;
    struct timespec now;
    clock_gettime(CLOCK_MONOTONIC, &now);
    double dt = (double)(now.tv_sec - c->save_t0.tv_sec) +
                (double)(now.tv_nsec - c->save_t0.tv_nsec) * 1e-9;
    c->save_open = 0;
    c->ask_next = plan_next(c, c->save_t);
    if (c->opts && c->opts->ckpt_done)
        c->opts->ckpt_done(c->opts->ckpt_ctx, label, tp_time_to_seconds(c->tp, c->save_t), status,
                           detail ? detail : "", dt);
}

static void save_refused(fmufed_tp *c, int code, const char *message)
{
    c->save_open = 0;
    c->ask_next = plan_next(c, c->save_t);
    if (c->opts && c->opts->ckpt_done)
        c->opts->ckpt_done(c->opts->ckpt_ctx, c->save_label, tp_time_to_seconds(c->tp, c->save_t),
                           code < 0 ? code : TP_EREFUSED, message, 0.0);
}

/* The first federate asks for the next save before each time request, once the previous one
 * has its outcome: at a time past its own (the others are at most one lookahead ahead, and
 * the RTI asks each for its part at its first grant at or past that time). A flush (FQR,
 * Gauss-Seidel) leaves the logical time where it is, and the step a federate is at is the
 * time it flushes for: there the save is asked at the logical time itself once the step
 * reaches the instant, and the RTI asks every federate at its next grant, wherever its
 * algorithm is (doc/checkpoint.md "Gauss-Seidel"). */
static int ask_save(fmufed_tp *c, tp_request_kind kind, tp_time t)
{
    if (c->idx != 0 || c->save_open) return FMUFED_OK;
    /* Gauss-Seidel (the one method whose steps are flushes) */
    int flushes = (c->ff->algo.needs & FEDFILE_NEEDS_GS_PLAN) != 0;
    while (c->ask_next != TP_NO_TIME && c->ask_next <= c->T) /* passed instants */
        c->ask_next = plan_next(c, c->ask_next);
    if (c->ask_next == TP_NO_TIME) return FMUFED_OK;
    if (flushes && (kind != TP_REQ_FQR || t < c->ask_next)) return FMUFED_OK; /* not there */
    tp_time when = flushes ? c->T : c->ask_next;
    snprintf(c->save_label, sizeof c->save_label, "ckpt-%lld", (long long)c->ask_next);
    int rc = tp_request_save(c->tp, c->save_label, when);
    if (rc != TP_OK)
        return fmufed_fail(c, FMUFED_ERTI, "asking for save %s at %.9g s: %s: %s", c->save_label,
                           when * c->res, tp_strerror(rc), tp_last_error(c->tp));
    c->save_open = 1;
    c->save_t = c->ask_next;
    return FMUFED_OK;
}

/* After a request: mark every checkpoint instant the federate's step reached (its grant, or
 * for a flush the step it flushes for). */
static void mark_instants(fmufed_tp *c, tp_time pos)
{
    if (c->mark_next == TP_NO_TIME || pos < c->mark_next) return;
    if (c->mark) c->mark(c->saver_ctx);
    c->mark_next = plan_next(c, pos);
}

void fmufed_tp_set_saver(fmufed_tp *c, fmufed_tp_saver saver, void (*mark)(void *ctx), void *ctx)
{
    c->saver = saver;
    c->mark = mark;
    c->saver_ctx = ctx;
}

/* Layout: i64 T (the grant before the one the save is made in), i64 StepForward stamp, u32
 * n_in, n_in x (f64 value, i64 stamp, u8 fresh), u32 n_out, n_out x i64 object handle, i64 x 4
 * counters (steps, updates, reflections, requests), i64 the next instant to mark once the
 * request the save is made in has returned (as mark_instants will leave it), u8 1 when that
 * request is still pending (fmufed_tp_save_pending). */
void fmufed_tp_state_save(const fmufed_tp *c, int64_t granted, pstate_buf *b)
{
    pstate_put_i64(b, c->T);
    pstate_put_i64(b, c->step_fwd_t);
    pstate_put_u32(b, (uint32_t)c->n_in);
    for (size_t i = 0; i < c->n_in; i++) {
        pstate_put_f64(b, c->in[i].next);
        pstate_put_i64(b, c->in[i].next_t);
        pstate_put_u8(b, (uint8_t)c->in[i].fresh);
    }
    pstate_put_u32(b, (uint32_t)c->n_out);
    for (size_t k = 0; k < c->n_out; k++)
        pstate_put_i64(b, (int64_t)c->out[k].obj);
    pstate_put_i64(b, c->st->steps);
    pstate_put_i64(b, c->st->updates);
    pstate_put_i64(b, c->st->reflections);
    pstate_put_i64(b, c->st->requests);
    int pending = fmufed_tp_save_pending(c);
    tp_time pos = c->cur_kind == TP_REQ_FQR ? c->cur_t : granted, next = c->mark_next;
    if (!pending && next != TP_NO_TIME && pos >= next) next = plan_next(c, pos);
    pstate_put_i64(b, next);
    pstate_put_u8(b, (uint8_t)pending);
}

int fmufed_tp_state_restore(fmufed_tp *c, pstate_rd *d)
{
    tp_time T = pstate_get_i64(d), fwd = pstate_get_i64(d);
    size_t n_in = pstate_get_u32(d);
    if (d->bad || n_in != c->n_in)
        return fmufed_fail(c, FMUFED_EUSAGE, "resuming: the part has %zu inputs, the file %zu",
                           n_in, c->n_in);
    for (size_t i = 0; i < c->n_in; i++) {
        c->in[i].next = pstate_get_f64(d);
        c->in[i].next_t = pstate_get_i64(d);
        c->in[i].fresh = pstate_get_u8(d) != 0;
    }
    size_t n_out = pstate_get_u32(d);
    if (d->bad || n_out != c->n_out)
        return fmufed_fail(c, FMUFED_EUSAGE, "resuming: the part has %zu outputs, the file %zu",
                           n_out, c->n_out);
    for (size_t k = 0; k < c->n_out; k++)
        c->out[k].obj = (tp_object)pstate_get_i64(d);
    c->st->steps = (long)pstate_get_i64(d);
    c->st->updates = (long)pstate_get_i64(d);
    c->st->reflections = (long)pstate_get_i64(d);
    c->st->requests = (long)pstate_get_i64(d);
    tp_time mark_next = pstate_get_i64(d);
    int pending = pstate_get_u8(d);
    if (d->bad || pending > 1)
        return fmufed_fail(c, FMUFED_EUSAGE, "resuming: the exchange's state is truncated");
    tp_time now = TP_NO_TIME;
    tp_query_logical_time(c->tp, &now);
    /* The part was written inside the grant that brought the federate to `now`, before the
     * exchange took it: its time is the previous grant's. */
    if (T > now)
        return fmufed_fail(c, FMUFED_EUSAGE,
                           "resuming: the part was saved at %.9g s, after the time the RTI "
                           "restored the federate at (%.9g s)",
                           T * c->res, now * c->res);
    c->T = now;
    T = now;
    c->step_fwd_t = fwd;
    /* The instants marked before the save (for a flush the step, not the grant, says which)
     * and asked for: the next one after the save's. */
    c->mark_next = mark_next;
    c->ask_next = mark_next;
    c->resume_pending = pending;
    return FMUFED_OK;
}

int fmufed_tp_restored(const fmufed_tp *c, const unsigned char **bytes, size_t *n)
{
    *bytes = c->restored;
    *n = c->n_restored;
    return c->restored != NULL;
}

static void on_log(void *ctx, tp_log_level level, const char *line)
{
    fmufed_tp *c = ctx;
    if (level <= TP_LOG_WARN) fprintf(stderr, "tempo-fmu: %s: %s\n", c->fd->name, line);
}

static int fmufed_check_peers(fmufed_tp *c)
{
    if (c->peer_failed) return fmufed_fail(c, FMUFED_ERTI, "%s", c->peer_msg);
    return FMUFED_OK;
}

/* ---- the exchange operations (algorithms/exchange.h) ---------------------------------- */

/* Transport failures are the federation's: PORT_ELOST (fmufed.c maps it to FMUFED_ERTI). */
static int lost(int rc)
{
    return rc == FMUFED_OK ? PORT_OK : rc == FMUFED_ENOMEM ? PORT_ENOMEM : PORT_ELOST;
}

static const char *req_name(tp_request_kind k)
{
    switch (k) {
    case TP_REQ_TAR:
        return "TAR";
    case TP_REQ_TARA:
        return "TARA";
    case TP_REQ_NER:
        return "NER";
    case TP_REQ_NERA:
        return "NERA";
    case TP_REQ_FQR:
        return "FQR";
    default:
        return "?";
    }
}

static int fmufed_request(fmufed_tp *c, tp_request_kind kind, tp_time t, tp_time *got)
{
    int rc = FMUFED_OK;
    if (c->resume_pending) {
        /* The request the part was made in is pending at the restored RTI: its save was
         * asked for and it was counted before the save; wait for its grant. */
        c->resume_pending = 0;
        c->cur_kind = kind;
        c->cur_t = t;
        goto wait;
    }
    rc = ask_save(c, kind, t);
    if (rc != FMUFED_OK) return rc;
    c->cur_kind = kind;
    c->cur_t = t;
    switch (kind) {
    case TP_REQ_TAR:
        rc = tp_time_advance_request(c->tp, t);
        break;
    case TP_REQ_TARA:
        rc = tp_time_advance_request_available(c->tp, t);
        break;
    case TP_REQ_NER:
        rc = tp_next_event_request(c->tp, t);
        break;
    case TP_REQ_NERA:
        rc = tp_next_event_request_available(c->tp, t);
        break;
    case TP_REQ_FQR:
        rc = tp_flush_queue_request(c->tp, t);
        break;
    default:
        return fmufed_fail(c, FMUFED_EUSAGE, "bad request kind %d", (int)kind);
    }
    c->st->requests++;
    if (rc != TP_OK)
        return fmufed_fail(c, FMUFED_ERTI, "%s(%.9g s): %s: %s", req_name(kind), t * c->res,
                           tp_strerror(rc), tp_last_error(c->tp));
wait:;
    tp_time g = TP_NO_TIME;
    c->in_wait = 1;
    c->grant_seen = 0;
    rc = tp_wait_grant(c->tp, &g, c->run_timeout_ms);
    /* A refused save request comes back once from the next wait (and to on_error): that save
     * failed, the request waited for is still pending. */
    for (int k = 0; k < 4 && rc != TP_OK && rc != TP_TIMEOUT &&
                    strstr(tp_last_error(c->tp), "an earlier REQUEST_SAVE");
         k++) {
        if (c->save_open) save_refused(c, rc, tp_last_error(c->tp));
        rc = tp_wait_grant(c->tp, &g, c->run_timeout_ms);
        /* the grant came in with the refusal: the logical time is the grant */
        if (rc == TP_ESTATE) rc = tp_query_logical_time(c->tp, &g);
    }
    c->in_wait = 0;
    if (rc == TP_TIMEOUT)
        return fmufed_fail(c, FMUFED_ERTI, "%s(%.9g s): no grant within %d ms (a peer is stuck?)",
                           req_name(kind), t * c->res, c->run_timeout_ms);
    if (rc != TP_OK)
        return fmufed_fail(c, FMUFED_ERTI, "%s(%.9g s): waiting for the grant: %s: %s",
                           req_name(kind), t * c->res, tp_strerror(rc), tp_last_error(c->tp));
    c->T = g;
    if (got) *got = g;
    mark_instants(c, kind == TP_REQ_FQR ? t : g);
    return fmufed_check_peers(c);
}

static int x_request(void *ctx, peer_req kind, int64_t t, int64_t *granted)
{
    return lost(fmufed_request(ctx, (tp_request_kind)kind, t, granted));
}

static int x_publish(void *ctx, int64_t ts, const double *y)
{
    fmufed_tp *c = ctx;
    for (size_t k = 0; k < c->n_out; k++) {
        /* One update per object: gather every output of this object's class. */
        int first = 1;
        for (size_t m = 0; m < k && first; m++)
            first = c->out[m].obj != c->out[k].obj;
        if (!first) continue;
        tp_value vals[c->n_out];
        unsigned char bytes[c->n_out][TP_FLOAT64_SIZE];
        size_t n = 0;
        for (size_t m = k; m < c->n_out; m++) {
            if (c->out[m].obj != c->out[k].obj) continue;
            tp_encode_float64(y[m], bytes[n]);
            vals[n] =
                (tp_value){.handle = c->out[m].attr, .data = bytes[n], .size = TP_FLOAT64_SIZE};
            n++;
        }
        int rc = tp_update(c->tp, c->out[k].obj, vals, n, ts);
        if (rc != TP_OK)
            return lost(fmufed_fail(c, FMUFED_ERTI, "update of %s at %.9g s: %s: %s",
                                    c->out[k].w->cls, ts * c->res, tp_strerror(rc),
                                    tp_last_error(c->tp)));
        c->st->updates++;
    }
    return PORT_OK;
}

static int x_inputs(void *ctx, peer_input *in)
{
    fmufed_tp *c = ctx;
    for (size_t i = 0; i < c->n_in; i++) {
        in[i] = (peer_input){.v = c->in[i].next, .t = c->in[i].next_t, .fresh = c->in[i].fresh};
        c->in[i].fresh = 0;
    }
    return PORT_OK;
}

static int x_token_send(void *ctx, int64_t ts)
{
    fmufed_tp *c = ctx;
    int sr = tp_send_interaction(c->tp, c->step_ic, NULL, 0, ts);
    if (sr != TP_OK)
        return lost(fmufed_fail(c, FMUFED_ERTI, "StepForward at %.9g s: %s: %s", ts * c->res,
                                tp_strerror(sr), tp_last_error(c->tp)));
    return PORT_OK;
}

static int64_t x_token_time(void *ctx)
{
    return ((fmufed_tp *)ctx)->step_fwd_t;
}

static long elapsed_ms(const struct timespec *t0)
{
    struct timespec now;
    clock_gettime(CLOCK_MONOTONIC, &now);
    return (now.tv_sec - t0->tv_sec) * 1000 + (now.tv_nsec - t0->tv_nsec) / 1000000;
}

/* Polls of a step made back to back before the first nap: each is already a round trip to the
 * RTI, and the peer awaited is usually that close (doc/performance.md "Peer methods over
 * TCP": a Gauss-Seidel step 1170 -> 467 us, CPU 601 -> 261 us against napping from the first
 * poll on). */
#define X_IDLE_EAGER 4

/* FQR never waits, so between polls the peer, after X_IDLE_EAGER polls at once, sleeps (50 µs
 * doubling to 2 ms) rather than spin; as an in-process task it lets the other tasks run
 * instead (they are what it waits for). The run's time limit counts from the first poll of the
 * step. */
static int x_idle(void *ctx, int attempt, int64_t t, const char *waiting_for)
{
    fmufed_tp *c = ctx;
    if (attempt == 0) clock_gettime(CLOCK_MONOTONIC, &c->idle_t0);
    if (c->run_timeout_ms >= 0 && elapsed_ms(&c->idle_t0) > c->run_timeout_ms)
        return lost(fmufed_fail(c, FMUFED_ERTI, "no %s for step %.9g s within %d ms", waiting_for,
                                t * c->res, c->run_timeout_ms));
    if (tp_inproc_yield()) return PORT_OK;
    if (attempt < X_IDLE_EAGER) return PORT_OK; /* the flush itself is a round trip's wait */
    useconds_t nap = 50;
    for (int k = X_IDLE_EAGER; k < attempt && nap < 2000; k++)
        nap *= 2;
    usleep(nap);
    return PORT_OK;
}

static const peer_exchange_ops tp_exchange_ops = {
    .publish = x_publish,
    .request = x_request,
    .inputs = x_inputs,
    .token_send = x_token_send,
    .token_time = x_token_time,
    .idle = x_idle,
};

/* ---- set-up ------------------------------------------------------------------------------ */

/* Resolve the wiring to FOM handles. */
static int resolve_wiring(fmufed_tp *c)
{
    const fedfile_fed *fd = c->fd;
    c->n_in = fd->n_inputs;
    c->n_out = fd->n_outputs;
    c->in = calloc(c->n_in + 1, sizeof *c->in);
    c->out = calloc(c->n_out + 1, sizeof *c->out);
    if (!c->in || !c->out) return fmufed_fail(c, FMUFED_ENOMEM, "out of memory");
    for (size_t i = 0; i < c->n_in; i++) {
        tp_in *in = &c->in[i];
        in->w = &fd->inputs[i];
        in->next_t = TP_NO_TIME;
        int rc;
        if ((rc = tp_object_class(c->tp, in->w->cls, &in->cls)) != TP_OK ||
            (rc = tp_attribute(c->tp, in->cls, in->w->attr, &in->attr)) != TP_OK)
            return fmufed_fail(c, FMUFED_ERTI, "inputs[\"%s\"]: %s.%s: %s", in->w->var, in->w->cls,
                               in->w->attr, tp_last_error(c->tp));
    }
    for (size_t k = 0; k < c->n_out; k++) {
        tp_out *o = &c->out[k];
        o->w = &fd->outputs[k];
        int rc;
        if ((rc = tp_object_class(c->tp, o->w->cls, &o->cls)) != TP_OK ||
            (rc = tp_attribute(c->tp, o->cls, o->w->attr, &o->attr)) != TP_OK)
            return fmufed_fail(c, FMUFED_ERTI, "outputs[\"%s\"]: %s.%s: %s", o->w->var, o->w->cls,
                               o->w->attr, tp_last_error(c->tp));
    }
    return FMUFED_OK;
}

/* Publish, subscribe and register one object per published class. */
static int declare(fmufed_tp *c)
{
    tp_handle attrs[(c->n_in > c->n_out ? c->n_in : c->n_out) + 1];
    for (size_t k = 0; k < c->n_out; k++) {
        size_t n = 0;
        int first = 1;
        for (size_t m = 0; m < k && first; m++)
            first = c->out[m].cls != c->out[k].cls;
        if (!first) {
            for (size_t m = 0; m < k; m++)
                if (c->out[m].cls == c->out[k].cls) c->out[k].obj = c->out[m].obj;
            continue;
        }
        for (size_t m = k; m < c->n_out; m++)
            if (c->out[m].cls == c->out[k].cls) attrs[n++] = c->out[m].attr;
        int rc = tp_publish_object_class(c->tp, c->out[k].cls, attrs, n);
        char oname[512];
        snprintf(oname, sizeof oname, "%s.%s", c->fd->name, c->out[k].w->cls);
        if (rc == TP_OK) rc = tp_register_object(c->tp, c->out[k].cls, oname, &c->out[k].obj);
        if (rc != TP_OK)
            return fmufed_fail(c, FMUFED_ERTI, "publishing %s: %s: %s", c->out[k].w->cls,
                               tp_strerror(rc), tp_last_error(c->tp));
    }
    for (size_t i = 0; i < c->n_in; i++) {
        int first = 1;
        for (size_t m = 0; m < i && first; m++)
            first = c->in[m].cls != c->in[i].cls;
        if (!first) continue;
        size_t n = 0;
        for (size_t m = i; m < c->n_in; m++) {
            int dup = 0;
            for (size_t q = 0; q < n; q++)
                dup |= attrs[q] == c->in[m].attr;
            if (c->in[m].cls == c->in[i].cls && !dup) attrs[n++] = c->in[m].attr;
        }
        int rc = tp_subscribe_object_class(c->tp, c->in[i].cls, attrs, n);
        if (rc != TP_OK)
            return fmufed_fail(c, FMUFED_ERTI, "subscribing %s: %s: %s", c->in[i].w->cls,
                               tp_strerror(rc), tp_last_error(c->tp));
    }
    if (c->ff->algo.needs & FEDFILE_NEEDS_GS_PLAN) {
        int rc = tp_interaction_class(c->tp, "StepForward", &c->step_ic);
        topo_role role = c->ff->gs_plan ? c->ff->gs_plan->role[c->idx] : TOPO_ROLE_AUTO;
        if (rc == TP_OK && role == TOPO_ROLE_SINK)
            rc = tp_publish_interaction_class(c->tp, c->step_ic);
        if (rc == TP_OK && role == TOPO_ROLE_SOURCE)
            rc = tp_subscribe_interaction_class(c->tp, c->step_ic);
        if (rc != TP_OK)
            return fmufed_fail(c, FMUFED_ERTI, "interaction StepForward: %s: %s", tp_strerror(rc),
                               tp_last_error(c->tp));
    }
    return FMUFED_OK;
}

/* Evoke until every other federate of the file has joined. */
static int wait_all_joined(fmufed_tp *c)
{
    struct timespec t0, now;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    while (c->joined + 1 < c->ff->n_feds) {
        int rc = tp_evoke(c->tp, 100);
        if (rc < 0)
            return fmufed_fail(c, FMUFED_ERTI, "waiting for the others to join: %s: %s",
                               tp_strerror(rc), tp_last_error(c->tp));
        char who[128];
        if (fmufed_abandoned(who, sizeof who)) /* in process: another one failed */
            return fmufed_fail(c, FMUFED_ERTI, FMUFED_FOLLOWED " %s failed at its start",
                               who[0] ? who : "?");
        clock_gettime(CLOCK_MONOTONIC, &now);
        long ms = (now.tv_sec - t0.tv_sec) * 1000 + (now.tv_nsec - t0.tv_nsec) / 1000000;
        if (c->timeout_ms >= 0 && ms > c->timeout_ms) {
            char miss[256] = "";
            for (size_t k = 0; k < c->ff->n_feds; k++)
                if ((long)k != c->idx && !c->seen[k] && strlen(miss) + 64 < sizeof miss)
                    snprintf(miss + strlen(miss), sizeof miss - strlen(miss), "%s%s",
                             miss[0] ? ", " : "", c->ff->feds[k].name);
            return fmufed_fail(c, FMUFED_ERTI, "not joined after %d ms: %s", c->timeout_ms, miss);
        }
    }
    return FMUFED_OK;
}

/* Start: the first federate of the file registers the point once all have joined; every
 * federate achieves it only after declaring and enabling time management, so nobody advances
 * before everyone is subscribed and regulating. */
static int sync_point(fmufed_tp *c, const char *label)
{
    if (c->idx == 0) {
        int rc = wait_all_joined(c);
        if (rc) return rc;
        rc = tp_register_sync(c->tp, label, NULL, 0, NULL, 0);
        if (rc != TP_OK)
            return fmufed_fail(c, FMUFED_ERTI, "registering sync point %s: %s: %s", label,
                               tp_strerror(rc), tp_last_error(c->tp));
    }
    int abandoned = 0;
    int rc = fmufed_sync(c->tp, label, c->timeout_ms, &abandoned);
    char who[128];
    if (abandoned && fmufed_abandoned(who, sizeof who))
        return fmufed_fail(c, FMUFED_ERTI, FMUFED_FOLLOWED " %s failed at its start",
                           who[0] ? who : "?");
    if (rc == TP_TIMEOUT)
        return fmufed_fail(c, FMUFED_ERTI, "sync point %s not reached by all within %d ms", label,
                           c->timeout_ms);
    if (rc != TP_OK)
        return fmufed_fail(c, FMUFED_ERTI, "sync point %s: %s: %s", label, tp_strerror(rc),
                           tp_last_error(c->tp));
    return fmufed_check_peers(c);
}

static int join(fmufed_tp *c, const fmufed_opts *o)
{
    const fedfile *ff = c->ff;
    char addr[600];
    if (o && o->rti)
        snprintf(addr, sizeof addr, "%s", o->rti);
    else if (ff->rti_unix)
        snprintf(addr, sizeof addr, "unix:%s", ff->rti_unix);
    else if (ff->rti_port > 0)
        snprintf(addr, sizeof addr, "%s:%d", ff->rti_host ? ff->rti_host : "127.0.0.1",
                 ff->rti_port);
    else
        return fmufed_fail(c, FMUFED_EUSAGE, "%s gives no RTI port: pass --rti HOST:PORT",
                           ff->path);
    char *fom_text = NULL;
    char e[FMUFED_ERRLEN];
    if (!ff->fom && fedfile_fom_xml(ff, &fom_text, e, sizeof e) != FEDFILE_OK)
        return fmufed_fail(c, FMUFED_EUSAGE, "generating the FOM: %s", e);
    /* Check the wiring against the FOM first (attributes exist and are float64, StepForward for
     * gauss-seidel), so that a mismatch is refused at start with the file's JSON path rather
     * than at the first update. */
    struct fom *fom = NULL;
    int frc = ff->fom
                  ? fom_parse_file(ff->fom, &fom, e, sizeof e)
                  : fom_parse_mem(fom_text, strlen(fom_text), "generated FOM", &fom, e, sizeof e);
    if (frc == FOM_OK && fedfile_check_fom(ff, fom, e, sizeof e) != FEDFILE_OK) frc = -1;
    fom_free(fom);
    if (frc != FOM_OK) {
        free(fom_text);
        return fmufed_fail(c, FMUFED_EUSAGE, "%s", e);
    }
    tp_callbacks cb = {.grant = on_grant,
                       .reflect = on_reflect,
                       .receive = on_receive,
                       .federate_joined = on_joined,
                       .federate_resigned = on_resigned,
                       .error = on_error,
                       .log = on_log,
                       .save = on_save,
                       .restore = on_restore,
                       .saved = on_saved};
    tp_join_options jo = {.rti = addr,
                          .federation = ff->federation,
                          .federate = c->fd->name,
                          .fom_path = ff->fom,
                          .fom_text = fom_text,
                          .create = 1,
                          .timeout_ms = c->timeout_ms > 0 ? c->timeout_ms : 0,
                          .restore = c->restore};
    int rc = tp_join(&jo, &cb, c, &c->tp, e, sizeof e);
    free(fom_text);
    if (rc != TP_OK)
        return fmufed_fail(c, FMUFED_ERTI, "%s %s at %s: %s: %s",
                           c->restore ? "rejoining the restored federation" : "joining",
                           ff->federation, addr, tp_strerror(rc), e);
    if (c->restore && !c->restored)
        return fmufed_fail(c, FMUFED_ERTI, "rejoining %s: the RTI handed back no part",
                           ff->federation);
    return FMUFED_OK;
}

static int enable_time(fmufed_tp *c)
{
    int rc = tp_enable_regulation(c->tp, c->lookahead);
    if (rc == TP_OK) rc = tp_wait_regulation_enabled(c->tp, c->timeout_ms);
    if (rc == TP_OK) rc = tp_enable_constrained(c->tp);
    if (rc == TP_OK) rc = tp_wait_constrained_enabled(c->tp, c->timeout_ms);
    if (rc != TP_OK)
        return fmufed_fail(c, FMUFED_ERTI, "enabling time management: %s: %s", tp_strerror(rc),
                           tp_last_error(c->tp));
    tp_time t = 0;
    tp_query_logical_time(c->tp, &t);
    if (t > c->ff->algo.t_start)
        return fmufed_fail(c, FMUFED_ERTI,
                           "logical time is %.9g s after enabling time management, past the "
                           "start %.9g s (the federation already ran?)",
                           t * c->res, c->ff->algo.t_start * c->res);
    c->T = t;
    return FMUFED_OK;
}

/* ---- the transport's life ------------------------------------------------------------- */

int fmufed_tp_start(const fedfile *ff, size_t idx, const fmufed_opts *opts, int64_t lookahead,
                    fmufed_stats *st, char *err, size_t errlen, fmufed_tp **out)
{
    fmufed_tp *c = calloc(1, sizeof *c);
    *out = c;
    if (!c) {
        if (err && errlen) snprintf(err, errlen, "federate %s: out of memory", ff->feds[idx].name);
        return FMUFED_ENOMEM;
    }
    *c = (fmufed_tp){.ff = ff,
                     .fd = &ff->feds[idx],
                     .idx = (long)idx,
                     .err = err,
                     .errlen = errlen,
                     .st = st,
                     .step_fwd_t = TP_NO_TIME,
                     .res = ff->resolution,
                     .lookahead = lookahead,
                     .opts = opts,
                     .restore = opts && opts->restore};
    c->mark_next = plan_next(c, ff->algo.t_start);
    c->ask_next = c->mark_next;
    /* Starting a federation takes longer the more federates it has (hundreds of processes on
     * two cores): a minute, plus half a second per federate. */
    c->timeout_ms = opts && opts->timeout_ms ? opts->timeout_ms : 60000 + 500 * (int)ff->n_feds;
    /* Peers may compute long between grants; a dead peer is resigned by the RTI, which ends
     * any wait, so by default the run itself has no time limit. */
    c->run_timeout_ms = opts && opts->timeout_ms ? opts->timeout_ms : -1;
    if ((ff->algo.needs & FEDFILE_NEEDS_GS_PLAN) && !ff->gs_plan)
        return fmufed_fail(c, FMUFED_EUSAGE, "gauss-seidel without a topology plan");
    c->seen = calloc(ff->n_feds, 1);
    if (!c->seen) return fmufed_fail(c, FMUFED_ENOMEM, "out of memory");
    int rc;
    if ((rc = join(c, opts)) || (rc = resolve_wiring(c))) return rc;
    if (c->restore) { /* declarations and time management came back from the RTI */
        if (c->ff->algo.needs & FEDFILE_NEEDS_GS_PLAN &&
            tp_interaction_class(c->tp, "StepForward", &c->step_ic) != TP_OK)
            return fmufed_fail(c, FMUFED_ERTI, "interaction StepForward: %s", tp_last_error(c->tp));
        return FMUFED_OK;
    }
    if ((rc = declare(c)) || (rc = enable_time(c))) return rc;
    return FMUFED_OK;
}

int fmufed_tp_sync_start(fmufed_tp *c)
{
    int rc;
    c->running = 1;
    if (c->restore) return fmufed_check_peers(c); /* tempo-end came back with the RTI's part */
    if ((rc = sync_point(c, SYNC_START))) return rc;
    /* The end point is registered now, while everybody is certainly joined. */
    if (c->idx == 0 && tp_register_sync(c->tp, SYNC_END, NULL, 0, NULL, 0) != TP_OK)
        return fmufed_fail(c, FMUFED_ERTI, "registering sync point %s: %s", SYNC_END,
                           tp_last_error(c->tp));
    return FMUFED_OK;
}

peer_exchange fmufed_tp_exchange(fmufed_tp *t)
{
    return (peer_exchange){.ops = &tp_exchange_ops, .ctx = t};
}

int64_t fmufed_tp_time(fmufed_tp *t)
{
    return t->T;
}

int fmufed_tp_finish(fmufed_tp *c)
{
    int rc = tp_sync(c->tp, SYNC_END, c->run_timeout_ms);
    if (rc != TP_OK)
        return fmufed_fail(c, FMUFED_ERTI, "sync point %s: %s: %s", SYNC_END, tp_strerror(rc),
                           tp_last_error(c->tp));
    c->running = 0;
    rc = tp_resign(c->tp, TP_DELETE_OBJECTS);
    if (rc != TP_OK)
        return fmufed_fail(c, FMUFED_ERTI, "resign: %s: %s", tp_strerror(rc), tp_last_error(c->tp));
    return FMUFED_OK;
}

void fmufed_tp_free(fmufed_tp *c)
{
    if (!c) return;
    tp_federate_free(c->tp);
    free(c->in);
    free(c->out);
    free(c->seen);
    free(c->restored);
    free(c);
}
