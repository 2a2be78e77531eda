/* The FMU federate's set-up and shared steps: load the FMU, join, publish/subscribe through
 * the wiring, map reflections to FMU inputs, synchronise start and end, record the CSV.
 * Serves doc/guide.md (item 3), §5, §8 and the Awais thesis §3.3 (the FMU-federate). The algorithm
 * loops are in fmufed_jacobi.c, fmufed_de.c and fmufed_gs.c; read fmufed_impl.h first.
 */
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "federate/fmufed/fmufed_impl.h"
#include "federate/config/fedfile_master.h"
#include "fom/fom.h"

#define SYNC_START "tempo-start"
#define SYNC_END   "tempo-end"

int fmufed_fail(fmufed_ctx *c, int code, const char *fmt, ...)
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
    fmufed_ctx *c = ctx;
    for (size_t k = 0; k < r->n_values; k++) {
        for (size_t i = 0; i < c->n_in; i++) {
            fmufed_in *in = &c->in[i];
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
    fmufed_ctx *c = ctx;
    if (c->step_ic && i->interaction_class == c->step_ic &&
        (c->step_fwd_t == TP_NO_TIME || i->time > c->step_fwd_t))
        c->step_fwd_t = i->time;
}

static long file_index(const fmufed_ctx *c, const char *name)
{
    return fedfile_find(c->ff, name);
}

static void on_joined(void *ctx, tp_fed fed, const char *name)
{
    fmufed_ctx *c = ctx;
    long k = file_index(c, name);
    if (k >= 0 && k != c->idx && !c->seen[k]) {
        c->seen[k] = 1;
        c->joined++;
    }
}

static void on_resigned(void *ctx, tp_fed fed, const char *name, const char *reason)
{
    fmufed_ctx *c = ctx;
    long k = file_index(c, name);
    if (k < 0 || k == c->idx) return;
    if (c->seen[k]) {
        c->seen[k] = 0;
        c->joined--;
    }
    if (c->running && !c->peer_failed) {
        c->peer_failed = 1;
        snprintf(c->peer_msg, sizeof c->peer_msg, "federate %s left the federation before the end: %s",
                 name, reason ? reason : "no reason given");
    }
}

static void on_error(void *ctx, int code, const char *message)
{
    fmufed_ctx *c = ctx;
    if (!c->peer_failed) {
        c->peer_failed = 1;
        snprintf(c->peer_msg, sizeof c->peer_msg, "the RTI refused a request: %s (%s)",
                 message ? message : "", tp_strerror(code));
    }
}

static void on_log(void *ctx, tp_log_level level, const char *line)
{
    fmufed_ctx *c = ctx;
    if (level <= TP_LOG_WARN)
        fprintf(stderr, "tempo-fmu: %s: %s\n", c->fd->name, line);
}

int fmufed_check_peers(fmufed_ctx *c)
{
    if (c->peer_failed) return fmufed_fail(c, FMUFED_ERTI, "%s", c->peer_msg);
    return FMUFED_OK;
}

/* ---- shared steps ------------------------------------------------------------------------ */

double fmufed_seconds(const fmufed_ctx *c, tp_time t)
{
    /* With a whole number of ticks per second (1 ns: 1e9), dividing by it is correctly rounded:
     * 15e9 ticks give 15 exactly, where 15e9 * 1e-9 gives 15.000000000000002. */
    double tps = 1.0 / c->res, r = floor(tps + 0.5);
    if (r >= 1 && fabs(tps - r) <= 1e-9 * r) return (double)t / r;
    return (double)t * c->res;
}

static const char *req_name(tp_request_kind k)
{
    switch (k) {
    case TP_REQ_TAR: return "TAR";
    case TP_REQ_TARA: return "TARA";
    case TP_REQ_NER: return "NER";
    case TP_REQ_NERA: return "NERA";
    case TP_REQ_FQR: return "FQR";
    default: return "?";
    }
}

int fmufed_request(fmufed_ctx *c, tp_request_kind kind, tp_time t, tp_time *got)
{
    int rc;
    switch (kind) {
    case TP_REQ_TAR: rc = tp_time_advance_request(c->tp, t); break;
    case TP_REQ_TARA: rc = tp_time_advance_request_available(c->tp, t); break;
    case TP_REQ_NER: rc = tp_next_event_request(c->tp, t); break;
    case TP_REQ_NERA: rc = tp_next_event_request_available(c->tp, t); break;
    case TP_REQ_FQR: rc = tp_flush_queue_request(c->tp, t); break;
    default: return fmufed_fail(c, FMUFED_EUSAGE, "bad request kind %d", (int)kind);
    }
    c->st->requests++;
    if (rc != TP_OK)
        return fmufed_fail(c, FMUFED_ERTI, "%s(%.9g s): %s: %s", req_name(kind), t * c->res,
                           tp_strerror(rc), tp_last_error(c->tp));
    tp_time g = TP_NO_TIME;
    rc = tp_wait_grant(c->tp, &g, c->run_timeout_ms);
    if (rc == TP_TIMEOUT)
        return fmufed_fail(c, FMUFED_ERTI, "%s(%.9g s): no grant within %d ms (a peer is stuck?)",
                           req_name(kind), t * c->res, c->run_timeout_ms);
    if (rc != TP_OK)
        return fmufed_fail(c, FMUFED_ERTI, "%s(%.9g s): waiting for the grant: %s: %s",
                           req_name(kind), t * c->res, tp_strerror(rc), tp_last_error(c->tp));
    c->T = g;
    if (got) *got = g;
    return fmufed_check_peers(c);
}

int fmufed_integrate(fmufed_ctx *c, tp_time t_next)
{
    if (t_next <= c->T) return FMUFED_OK;
    double h = fmufed_seconds(c, t_next - c->T);
    fmu_inputs inp, *pin = NULL;
    fmi2ValueReference vr[c->n_in ? c->n_in : 1];
    double u[c->n_in ? c->n_in : 1], du[2 * (c->n_in ? c->n_in : 1)];
    int order = c->ff->algo.extrapolation;
    /* One order for all inputs (fmu_inputs has one): the lowest the histories allow. */
    for (size_t i = 0; i < c->n_in && order > 0; i++)
        if (c->in[i].hist.n - 1 < order) order = c->in[i].hist.n - 1;
    if (order > 0 && c->n_in > 0) {
        for (size_t i = 0; i < c->n_in; i++) {
            /* The polynomial through the newest samples (algorithms/extrap.h), evaluated at
             * the step start; c->T may lie before the newest sample (Gauss-Seidel commons: the
             * newest value belongs to the step's end), where it interpolates. */
            double d[EXTRAP_MAX_ORDER];
            extrap_eval(&c->in[i].hist, order, c->T, &u[i], NULL);
            extrap_derivs(&c->in[i].hist, order, c->T, c->res, d, NULL);
            vr[i] = c->in[i].vr;
            for (int k = 0; k < order; k++)
                du[i * (size_t)order + (size_t)k] = d[k];
        }
        inp = (fmu_inputs){.n = c->n_in, .vr = vr, .u = u, .order = order, .du = du};
        pin = &inp;
    }
    double reached = 0;
    int rc = fmu_step_do(c->fmu, h, pin, &reached);
    if (rc == FMU_STEP_TERMINATED)
        return fmufed_fail(c, FMUFED_EFMU, "the FMU terminated at %.9g s, before the end time",
                           reached);
    if (rc != FMU_STEP_OK)
        return fmufed_fail(c, FMUFED_EFMU, "step %.9g s -> %.9g s: %s: %s", c->T * c->res,
                           t_next * c->res, fmu_step_strerror(rc), fmu_step_errmsg(c->fmu));
    return FMUFED_OK;
}

int fmufed_publish(fmufed_ctx *c, tp_time ts)
{
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
            double v;
            int rc = fmu_step_get_real(c->fmu, 1, &c->out[m].vr, &v);
            if (rc != FMU_STEP_OK)
                return fmufed_fail(c, FMUFED_EFMU, "reading output \"%s\": %s",
                                   c->out[m].w->var, fmu_step_errmsg(c->fmu));
            tp_encode_float64(v, bytes[n]);
            vals[n] = (tp_value){.handle = c->out[m].attr, .data = bytes[n],
                                 .size = TP_FLOAT64_SIZE};
            n++;
        }
        int rc = tp_update(c->tp, c->out[k].obj, vals, n, ts);
        if (rc != TP_OK)
            return fmufed_fail(c, FMUFED_ERTI, "update of %s at %.9g s: %s: %s",
                               c->out[k].w->cls, ts * c->res, tp_strerror(rc),
                               tp_last_error(c->tp));
        c->st->updates++;
    }
    return FMUFED_OK;
}

int fmufed_apply_inputs(fmufed_ctx *c, tp_time shift)
{
    for (size_t i = 0; i < c->n_in; i++) {
        fmufed_in *in = &c->in[i];
        if (!in->fresh) continue;
        in->fresh = 0;
        int rc = fmu_step_set_real(c->fmu, 1, &in->vr, &in->next);
        if (rc != FMU_STEP_OK)
            return fmufed_fail(c, FMUFED_EFMU, "setting input \"%s\" to %.17g: %s", in->w->var,
                               in->next, fmu_step_errmsg(c->fmu));
        tp_time ts = in->next_t == TP_NO_TIME ? c->T : in->next_t - shift;
        if (extrap_push(&in->hist, ts, in->next) != EXTRAP_OK) {
            /* An older stamp than the newest sample cannot happen in TSO order; restart the
             * history rather than fit a polynomial across it. */
            extrap_reset(&in->hist);
            extrap_push(&in->hist, ts, in->next);
        }
    }
    return FMUFED_OK;
}

int fmufed_record(fmufed_ctx *c, tp_time t)
{
    if (!c->csv) return FMUFED_OK;
    for (size_t k = 0; k < c->n_rec; k++) {
        int rc = fmu_step_get_by_name(c->fmu, c->rec_names[k], &c->rec[k]);
        if (rc != FMU_STEP_OK)
            return fmufed_fail(c, FMUFED_EFMU, "reading recorded variable \"%s\": %s",
                               c->rec_names[k], fmu_step_errmsg(c->fmu));
    }
    char e[RES_ERRLEN];
    if (res_write_row(c->csv, fmufed_seconds(c, t), c->rec, e, sizeof e) != RES_OK)
        return fmufed_fail(c, FMUFED_EIO, "%s", e);
    c->st->t_final = fmufed_seconds(c, t);
    if (c->progress && (t >= c->progress_next || t >= c->ff->algo.t_end)) {
        c->progress(c->progress_ctx, fmufed_seconds(c, t));
        tp_time span = c->ff->algo.t_end - c->ff->algo.t_start, pct = span / 100 ? span / 100 : 1;
        c->progress_next = t + pct;
    }
    return FMUFED_OK;
}

/* ---- set-up ------------------------------------------------------------------------------ */

int fmufed_open_fmu(fmufed_ctx *c)
{
    const fedfile_fed *fd = c->fd;
    size_t np = fd->n_params;
    const char **names = calloc(np + 1, sizeof *names);
    char **vals = calloc(np + 1, sizeof *vals);
    int rc = FMUFED_OK;
    if (!names || !vals) {
        rc = fmufed_fail(c, FMUFED_ENOMEM, "out of memory");
        goto out;
    }
    for (size_t k = 0; k < np; k++) {
        const fedfile_param *p = &fd->params[k];
        char buf[64];
        const char *s = buf;
        switch (p->kind) {
        case FEDFILE_REAL: snprintf(buf, sizeof buf, "%.17g", p->real); break;
        case FEDFILE_INTEGER: snprintf(buf, sizeof buf, "%lld", p->integer); break;
        case FEDFILE_BOOLEAN: s = p->integer ? "true" : "false"; break;
        default: s = p->string ? p->string : ""; break;
        }
        names[k] = p->name;
        if (!(vals[k] = strdup(s))) {
            rc = fmufed_fail(c, FMUFED_ENOMEM, "out of memory");
            goto out;
        }
    }
    fmu_step_opts o = {0};
    o.rtol = fd->solver.rtol;
    o.atol = fd->solver.atol;
    o.solver = fd->solver.method == FEDFILE_METHOD_ADAMS ? FMU_SOLVER_ADAMS : FMU_SOLVER_BDF;
    o.max_step = fd->solver.max_step;
    o.has_start = 1;
    o.start_time = c->ff->algo.start;
    o.has_stop = 1;
    o.stop_time = c->ff->algo.end;
    o.n_params = np;
    o.param_names = names;
    o.param_values = (const char *const *)vals;
    o.instance_name = fd->name;
    char e[FMUFED_ERRLEN];
    int frc = fmu_step_open(fd->fmu, &o, &c->fmu, e, sizeof e);
    if (frc != FMU_STEP_OK) {
        rc = fmufed_fail(c, FMUFED_EFMU, "%s: %s", fd->fmu, e);
        goto out;
    }
    if (fedfile_check_fmu(c->ff, (size_t)c->idx, fmu_step_md(c->fmu), e, sizeof e) != FEDFILE_OK)
        rc = fmufed_fail(c, FMUFED_EFMU, "%s", e);
out:
    for (size_t k = 0; vals && k < np; k++)
        free(vals[k]);
    free(vals);
    free(names);
    return rc;
}

static int var_vr(fmufed_ctx *c, const char *var, fmi2ValueReference *vr)
{
    const fmu_md *md = fmu_step_md(c->fmu);
    long k = fmu_md_find(md, var);
    if (k < 0) return fmufed_fail(c, FMUFED_EFMU, "the FMU has no variable \"%s\"", var);
    *vr = md->vars[k].vr;
    return FMUFED_OK;
}

/* Resolve the wiring to FMU value references and FOM handles. */
static int resolve_wiring(fmufed_ctx *c)
{
    const fedfile_fed *fd = c->fd;
    c->n_in = fd->n_inputs;
    c->n_out = fd->n_outputs;
    c->in = calloc(c->n_in + 1, sizeof *c->in);
    c->out = calloc(c->n_out + 1, sizeof *c->out);
    if (!c->in || !c->out) return fmufed_fail(c, FMUFED_ENOMEM, "out of memory");
    for (size_t i = 0; i < c->n_in; i++) {
        fmufed_in *in = &c->in[i];
        in->w = &fd->inputs[i];
        in->next_t = TP_NO_TIME;
        int rc = var_vr(c, in->w->var, &in->vr);
        if (rc) return rc;
        if ((rc = tp_object_class(c->tp, in->w->cls, &in->cls)) != TP_OK ||
            (rc = tp_attribute(c->tp, in->cls, in->w->attr, &in->attr)) != TP_OK)
            return fmufed_fail(c, FMUFED_ERTI, "inputs[\"%s\"]: %s.%s: %s", in->w->var,
                               in->w->cls, in->w->attr, tp_last_error(c->tp));
    }
    for (size_t k = 0; k < c->n_out; k++) {
        fmufed_out *o = &c->out[k];
        o->w = &fd->outputs[k];
        int rc = var_vr(c, o->w->var, &o->vr);
        if (rc) return rc;
        if ((rc = tp_object_class(c->tp, o->w->cls, &o->cls)) != TP_OK ||
            (rc = tp_attribute(c->tp, o->cls, o->w->attr, &o->attr)) != TP_OK)
            return fmufed_fail(c, FMUFED_ERTI, "outputs[\"%s\"]: %s.%s: %s", o->w->var,
                               o->w->cls, o->w->attr, tp_last_error(c->tp));
        if (c->ff->algo.kind == FEDFILE_ALG_JACOBI_DE)
            o->q = fedfile_quantum_of(c->ff, fd, o->w->var);
    }
    return FMUFED_OK;
}

/* Publish, subscribe and register one object per published class. */
static int declare(fmufed_ctx *c)
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
    if (c->ff->algo.kind == FEDFILE_ALG_GAUSS_SEIDEL) {
        int rc = tp_interaction_class(c->tp, "StepForward", &c->step_ic);
        topo_role role = c->ff->gs_plan ? c->ff->gs_plan->role[c->idx] : TOPO_ROLE_AUTO;
        if (rc == TP_OK && role == TOPO_ROLE_SINK)
            rc = tp_publish_interaction_class(c->tp, c->step_ic);
        if (rc == TP_OK && role == TOPO_ROLE_SOURCE)
            rc = tp_subscribe_interaction_class(c->tp, c->step_ic);
        if (rc != TP_OK)
            return fmufed_fail(c, FMUFED_ERTI, "interaction StepForward: %s: %s",
                               tp_strerror(rc), tp_last_error(c->tp));
    }
    return FMUFED_OK;
}

/* Evoke until every other federate of the file has joined. */
static int wait_all_joined(fmufed_ctx *c)
{
    struct timespec t0, now;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    while (c->joined + 1 < c->ff->n_feds) {
        int rc = tp_evoke(c->tp, 100);
        if (rc < 0)
            return fmufed_fail(c, FMUFED_ERTI, "waiting for the others to join: %s: %s",
                               tp_strerror(rc), tp_last_error(c->tp));
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
static int sync_point(fmufed_ctx *c, const char *label)
{
    if (c->idx == 0) {
        int rc = wait_all_joined(c);
        if (rc) return rc;
        rc = tp_register_sync(c->tp, label, NULL, 0, NULL, 0);
        if (rc != TP_OK)
            return fmufed_fail(c, FMUFED_ERTI, "registering sync point %s: %s: %s", label,
                               tp_strerror(rc), tp_last_error(c->tp));
    }
    int rc = tp_sync(c->tp, label, c->timeout_ms);
    if (rc == TP_TIMEOUT)
        return fmufed_fail(c, FMUFED_ERTI, "sync point %s not reached by all within %d ms", label,
                           c->timeout_ms);
    if (rc != TP_OK)
        return fmufed_fail(c, FMUFED_ERTI, "sync point %s: %s: %s", label, tp_strerror(rc),
                           tp_last_error(c->tp));
    return fmufed_check_peers(c);
}

static int join(fmufed_ctx *c, const fmufed_opts *o)
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
    int frc = ff->fom ? fom_parse_file(ff->fom, &fom, e, sizeof e)
                      : fom_parse_mem(fom_text, strlen(fom_text), "generated FOM", &fom, e, sizeof e);
    if (frc == FOM_OK && fedfile_check_fom(ff, fom, e, sizeof e) != FEDFILE_OK) frc = -1;
    fom_free(fom);
    if (frc != FOM_OK) {
        free(fom_text);
        return fmufed_fail(c, FMUFED_EUSAGE, "%s", e);
    }
    tp_callbacks cb = {.reflect = on_reflect, .receive = on_receive,
                       .federate_joined = on_joined, .federate_resigned = on_resigned,
                       .error = on_error, .log = on_log};
    tp_join_options jo = {.rti = addr, .federation = ff->federation, .federate = c->fd->name,
                          .fom_path = ff->fom, .fom_text = fom_text, .create = 1,
                          .timeout_ms = c->timeout_ms > 0 ? c->timeout_ms : 0};
    int rc = tp_join(&jo, &cb, c, &c->tp, e, sizeof e);
    free(fom_text);
    if (rc != TP_OK)
        return fmufed_fail(c, FMUFED_ERTI, "joining %s at %s: %s: %s", ff->federation, addr,
                           tp_strerror(rc), e);
    return FMUFED_OK;
}

static int enable_time(fmufed_ctx *c)
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

int fmufed_open_csv(fmufed_ctx *c, const fmufed_opts *o)
{
    const fedfile_fed *fd = c->fd;
    const char *dir = o && o->output ? o->output : c->ff->output;
    if (!dir) return FMUFED_OK;
    if (fd->n_record) {
        c->n_rec = fd->n_record;
        c->rec_names = (const char *const *)fd->record;
    } else {
        static const char *none[1];
        c->n_rec = fd->n_outputs;
        const char **names = malloc((fd->n_outputs + 1) * sizeof *names);
        if (!names) return fmufed_fail(c, FMUFED_ENOMEM, "out of memory");
        for (size_t k = 0; k < fd->n_outputs; k++)
            names[k] = fd->outputs[k].var;
        c->rec_names = fd->n_outputs ? names : none;
        if (!fd->n_outputs) free(names);
    }
    c->rec = calloc(c->n_rec + 1, sizeof *c->rec);
    if (!c->rec) return fmufed_fail(c, FMUFED_ENOMEM, "out of memory");
    char e[RES_ERRLEN];
    if (res_open(&c->csv, dir, fd->name, c->n_rec, c->rec_names, e, sizeof e) != RES_OK)
        return fmufed_fail(c, FMUFED_EIO, "%s", e);
    snprintf(c->st->csv, sizeof c->st->csv, "%s", res_path(c->csv));
    return FMUFED_OK;
}

static int run_algorithm(fmufed_ctx *c)
{
    switch (c->ff->algo.kind) {
    case FEDFILE_ALG_JACOBI_NAIVE: return fmufed_jacobi_run(c, 1);
    case FEDFILE_ALG_JACOBI: return fmufed_jacobi_run(c, 0);
    case FEDFILE_ALG_JACOBI_DE: return fmufed_de_run(c);
    case FEDFILE_ALG_GAUSS_SEIDEL: return fmufed_gs_run(c);
    case FEDFILE_ALG_DEFECT_CONTROL:
        return fmufed_fail(c, FMUFED_EUSAGE, "method \"defect-control\" is run by a master "
                           "(doc/algorithms/defect-control.md), not by tempo-fmu");
    case FEDFILE_ALG_WR:
    case FEDFILE_ALG_SEMI:
    case FEDFILE_ALG_MASTER_JACOBI: break; /* the slave role: fmufed_run hands over at once */
    }
    return fmufed_fail(c, FMUFED_EUSAGE, "unknown algorithm %d", (int)c->ff->algo.kind);
}

int fmufed_run(const fedfile *ff, const char *name, const fmufed_opts *opts,
               fmufed_stats *stats, char *err, size_t errlen)
{
    if (ff && fedfile_is_master(ff)) return fmufed_slave_run(ff, name, opts, stats, err, errlen);
    fmufed_stats dummy;
    fmufed_ctx c = {.ff = ff, .err = err, .errlen = errlen, .st = stats ? stats : &dummy,
                    .step_fwd_t = TP_NO_TIME};
    memset(c.st, 0, sizeof *c.st);
    if (err && errlen) err[0] = '\0';
    if (!ff || !name) {
        if (err && errlen) snprintf(err, errlen, "fmufed_run: NULL file or name");
        return FMUFED_EUSAGE;
    }
    c.idx = fedfile_find(ff, name);
    if (c.idx < 0) {
        if (err && errlen)
            snprintf(err, errlen, "%s: no federate named \"%s\" in the file", ff->path, name);
        return FMUFED_EUSAGE;
    }
    c.fd = &ff->feds[c.idx];
    c.res = ff->resolution;
    if (opts) {
        c.progress = opts->progress;
        c.progress_ctx = opts->progress_ctx;
    }
    c.progress_next = TP_NO_TIME;
    c.timeout_ms = opts && opts->timeout_ms ? opts->timeout_ms : 60000;
    /* Peers may compute long between grants; a dead peer is resigned by the RTI, which ends
     * any wait, so by default the run itself has no time limit. */
    c.run_timeout_ms = opts && opts->timeout_ms ? opts->timeout_ms : -1;
    c.lookahead = ff->algo.kind == FEDFILE_ALG_JACOBI_NAIVE ? ff->algo.t_lookahead : 0;
    if (ff->algo.kind == FEDFILE_ALG_GAUSS_SEIDEL && !ff->gs_plan)
        return fmufed_fail(&c, FMUFED_EUSAGE, "gauss-seidel without a topology plan");
    int rc;
    c.seen = calloc(ff->n_feds, 1);
    if (!c.seen) {
        rc = fmufed_fail(&c, FMUFED_ENOMEM, "out of memory");
        goto out;
    }
    if ((rc = fmufed_open_fmu(&c)) || (rc = join(&c, opts)) || (rc = resolve_wiring(&c)) ||
        (rc = declare(&c)) || (rc = enable_time(&c)) || (rc = fmufed_open_csv(&c, opts)))
        goto out;
    c.running = 1;
    if ((rc = sync_point(&c, SYNC_START))) goto out;
    /* The end point is registered now, while everybody is certainly joined. */
    if (c.idx == 0 && tp_register_sync(c.tp, SYNC_END, NULL, 0, NULL, 0) != TP_OK) {
        rc = fmufed_fail(&c, FMUFED_ERTI, "registering sync point %s: %s", SYNC_END,
                         tp_last_error(c.tp));
        goto out;
    }
    /* A start after 0: TARA opens it, so that the first exchange may be stamped there. */
    if (c.T < ff->algo.t_start && (rc = fmufed_request(&c, TP_REQ_TARA, ff->algo.t_start, NULL)))
        goto out;
    if ((rc = run_algorithm(&c))) goto out;
    rc = tp_sync(c.tp, SYNC_END, c.run_timeout_ms);
    if (rc != TP_OK) {
        rc = fmufed_fail(&c, FMUFED_ERTI, "sync point %s: %s: %s", SYNC_END, tp_strerror(rc),
                         tp_last_error(c.tp));
        goto out;
    }
    c.running = 0;
    rc = tp_resign(c.tp, TP_DELETE_OBJECTS);
    if (rc != TP_OK) {
        rc = fmufed_fail(&c, FMUFED_ERTI, "resign: %s: %s", tp_strerror(rc), tp_last_error(c.tp));
        goto out;
    }
    rc = FMUFED_OK;
out:
    if (c.csv) {
        char e[RES_ERRLEN];
        if (res_close(c.csv, e, sizeof e) != RES_OK && rc == FMUFED_OK)
            rc = fmufed_fail(&c, FMUFED_EIO, "%s", e);
    }
    if (c.rec_names && c.rec_names != (const char *const *)c.fd->record && c.fd->n_outputs)
        free((void *)c.rec_names);
    free(c.rec);
    tp_federate_free(c.tp);
    fmu_step_close(c.fmu);
    free(c.in);
    free(c.out);
    free(c.seen);
    return rc;
}
