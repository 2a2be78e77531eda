/* An FMU stepped in this process as a port slave (federate/fmu/fmu_slave.h). Inputs arrive as
 * polynomials about any point t0 (algorithms/port.h); fmu_step wants them about the step start,
 * so they are re-expanded there (shift_poly). Times are ticks at the port and seconds at the
 * FMU: the slave keeps its own tick count so that "the same instant" stays exact. */
#include "federate/fmu/fmu_slave.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct fmu_slave {
    char *name;
    fmu_step *fmu;
    size_t n_in, n_out;
    fmi2ValueReference *in_vr, *out_vr;
    int64_t t;                        /* current logical time, ticks */
    size_t nx;                        /* continuous states offered (ME), 0: none */
    long *out_state;                  /* n_out: the state output k is, -1 none (info) */
    double tick;                      /* seconds per tick */
    int64_t u_t0;                     /* expansion point of the inputs held, ticks */
    int u_order;                      /* their order; -1 before the first set_inputs */
    double *u_c;                      /* n_in * (PORT_MAX_ORDER + 1) coefficients about u_t0 */
    double *u_val, *u_der;            /* scratch: values and derivatives about the step start */
    double *in_f, *in_o;              /* n_in: input transformation (fmu_slave_opts), or NULL */
    unsigned char *in_on;             /* n_in: 1 where it is not the identity (others keep
                                         their bits, -0 included) */
    double *du_s;                     /* n_in scratch: du scaled by in_f (directional) */
    fmu_step_state *slot[PORT_SLOTS]; /* saved states, NULL when empty */
    int64_t slot_t[PORT_SLOTS];       /* their times, ticks */
    fmu_slave_record_fn *record;
    void *record_ctx;
    /* Discrete outputs (get_discrete): their output indices, last values and event times, and
     * the same per saved slot; discrete inputs (set_discrete): their input indices and the
     * values held since the last set_discrete (din_set 0: none yet). */
    size_t n_dout, n_din;
    size_t *dout, *din;
    double *dval, *slot_dval[PORT_SLOTS], *dinv;
    int64_t *dtime, *slot_dtime[PORT_SLOTS];
    int din_set;
    /* share_discrete in one process: the bus, this slave's member index on it, per discrete
     * input the member and discrete output feeding it; the values shared (n_dout); the round
     * posted and not yet collected. */
    fmu_slave_bus *bus;
    size_t bus_idx;
    size_t *src, *src_k;
    port_discrete *sh;
    int share_pending;
    int64_t share_t;
    int status;       /* first non-OK status since the last collect */
    int event_stop;   /* fmu_slave_set_event_stop */
    long sub_updates; /* steps whose sub-step outputs came from intermediate updates */
    char err[512];
    /* Typed ports (fmu_slave_opts kind_in / kind_out), all NULL when every port is Real:
     * kinds and names of the n_in inputs then n_out outputs, each input's Boolean flag and
     * map; the Real inputs compacted for fmu_step (n_rin of them). */
    unsigned char *kind, *is_bool;
    char **pname;
    long long **map;
    size_t *n_map, n_rin;
    fmi2ValueReference *rin_vr;
    double *rin_val, *rin_der;
};

/* Keep the first failure since the last collect; PORT_EVENT / TERMINATED only if no error. */
static int note(fmu_slave *s, int st, const char *fmt, ...)
{
    if (st == PORT_OK) return st;
    if (s->status == PORT_OK || (st < 0 && s->status > 0)) {
        s->status = st;
        if (fmt) {
            va_list ap;
            va_start(ap, fmt);
            vsnprintf(s->err, sizeof s->err, fmt, ap);
            va_end(ap);
        }
    }
    return st;
}

static int from_fmu(int rc)
{
    switch (rc) {
    case FMU_STEP_OK:
        return PORT_OK;
    case FMU_STEP_TERMINATED:
        return PORT_TERMINATED;
    case FMU_STEP_EDISCARD:
        return PORT_EDISCARD;
    case FMU_STEP_EUSAGE:
        return PORT_EUSAGE;
    default:
        return PORT_EFAIL;
    }
}

static int fail_fmu(fmu_slave *s, int rc, const char *what)
{
    return note(s, from_fmu(rc), "%s: %s", what, fmu_step_errmsg(s->fmu));
}

/* ---- typed ports (whole numbers and Float32, doc/federation.md "Whole numbers on the wire") */

/* Typed input i takes v: rounded, mapped, written by name. FMU_STEP_EUSAGE (noted) when v is
 * no integer. */
static int set_typed(fmu_slave *s, size_t i, double v)
{
    char text[40];
    if (s->kind[i] == FMU_SLAVE_FLOAT32) {
        snprintf(text, sizeof text, "%.9g", (double)(float)v);
    } else {
        double r = nearbyint(v);
        if (!isfinite(r) || fabs(r) > 9.2e18) {
            note(s, PORT_EFAIL, "setting input \"%s\": %.17g is no integer", s->pname[i], v);
            return FMU_STEP_EUSAGE;
        }
        long long iv = (long long)r;
        for (size_t k = 0; s->map[i] && k < s->n_map[i]; k++)
            if (s->map[i][2 * k] == iv) {
                iv = s->map[i][2 * k + 1];
                break;
            }
        if (s->is_bool[i])
            snprintf(text, sizeof text, "%s", iv != 0 ? "true" : "false");
        else
            snprintf(text, sizeof text, "%lld", iv);
    }
    int rc = fmu_step_set_text(s->fmu, s->pname[i], text);
    if (rc)
        note(s, from_fmu(rc), "setting input \"%s\" to %s: %s", s->pname[i], text,
             fmu_step_errmsg(s->fmu));
    return rc;
}

/* The inputs of *in as the FMU takes them: the typed ones set now, the Real ones left in *in
 * (compacted). Nothing to do when every input is Real. */
static int typed_inputs(fmu_slave *s, fmu_inputs *in)
{
    if (!s->kind) return FMU_STEP_OK;
    size_t n = 0, p = (size_t)in->order;
    for (size_t i = 0; i < s->n_in; i++) {
        if (s->kind[i] != FMU_SLAVE_REAL) {
            int rc = set_typed(s, i, s->u_val[i]);
            if (rc) return rc;
            continue;
        }
        s->rin_vr[n] = s->in_vr[i];
        s->rin_val[n] = s->u_val[i];
        for (size_t k = 0; k < p; k++)
            s->rin_der[n * p + k] = s->u_der[i * p + k];
        n++;
    }
    *in = (fmu_inputs){
        .n = n, .vr = s->rin_vr, .u = s->rin_val, .order = in->order, .du = p ? s->rin_der : NULL};
    return FMU_STEP_OK;
}

/* Output k: a Real by value reference, a typed one by name. */
static int read_output(fmu_slave *s, size_t k, double *y)
{
    if (s->kind && s->kind[s->n_in + k] != FMU_SLAVE_REAL)
        return fmu_step_get_by_name(s->fmu, s->pname[s->n_in + k], y);
    return fmu_step_get_real(s->fmu, 1, &s->out_vr[k], y);
}

static int read_outputs(fmu_slave *s, double *y)
{
    if (!s->kind) return fmu_step_get_real(s->fmu, s->n_out, s->out_vr, y);
    for (size_t k = 0; k < s->n_out; k++) {
        int rc = read_output(s, k, &y[k]);
        if (rc) return rc;
    }
    return FMU_STEP_OK;
}

static int op_set_inputs(void *ctx, const port_poly *u)
{
    fmu_slave *s = ctx;
    if (!u || u->n != s->n_in || u->order < 0 || u->order > PORT_MAX_ORDER || (s->n_in && !u->c))
        return note(s, PORT_EUSAGE, "set_inputs: %zu inputs of order %d (expected %zu)",
                    u ? u->n : 0, u ? u->order : -1, s->n_in);
    size_t w = (size_t)u->order + 1;
    for (size_t i = 0; i < s->n_in; i++)
        memcpy(&s->u_c[i * (PORT_MAX_ORDER + 1)], &u->c[i * w], w * sizeof(double));
    s->u_t0 = u->t0;
    s->u_order = u->order;
    return PORT_OK;
}

/* The inputs' value and derivatives at t (ticks), from the Taylor coefficients about u_t0:
 * d^k u(t) = sum_{j >= k} c_j s^(j-k) / (j-k)!,  s = (t - u_t0) * tick. */
static void shift_poly(fmu_slave *s, int64_t t)
{
    int p = s->u_order;
    double ds = (double)(t - s->u_t0) * s->tick;
    for (size_t i = 0; i < s->n_in; i++) {
        const double *c = &s->u_c[i * (PORT_MAX_ORDER + 1)];
        for (int k = 0; k <= p; k++) {
            double sum = 0, term = 1; /* term = s^(j-k) / (j-k)! */
            for (int j = k; j <= p; j++) {
                sum += c[j] * term;
                term *= ds / (double)(j - k + 1);
            }
            if (k == 0)
                s->u_val[i] = sum;
            else
                s->u_der[i * (size_t)p + (size_t)(k - 1)] = sum;
        }
        if (s->kind && s->kind[i] != FMU_SLAVE_REAL) /* typed: held at the value given, c0 */
            s->u_val[i] = c[0];
    }
}

/* The discrete inputs set by set_discrete replace what the polynomial gives them: held values,
 * zero derivatives. */
static void hold_discrete_inputs(fmu_slave *s)
{
    if (!s->din_set) return;
    int p = s->u_order;
    for (size_t k = 0; k < s->n_din; k++) {
        s->u_val[s->din[k]] = s->dinv[k];
        for (int j = 1; j <= p; j++)
            s->u_der[s->din[k] * (size_t)p + (size_t)(j - 1)] = 0;
    }
}

/* The inputs as the FMU takes them: f u + o, derivatives f du (fmu_slave_opts in_factor). */
static void transform_inputs(fmu_slave *s)
{
    if (!s->in_f) return;
    int p = s->u_order;
    for (size_t i = 0; i < s->n_in; i++) {
        if (!s->in_on[i]) continue;
        s->u_val[i] = s->in_f[i] * s->u_val[i] + s->in_o[i];
        for (int k = 0; k < p; k++)
            s->u_der[i * (size_t)p + (size_t)k] *= s->in_f[i];
    }
}

/* After a step that ended at s->t: a discrete output whose value changed took its event time
 * from the step: s->t, which is the tick at or after the located event when the step stopped
 * at one, else the step's end (the change lies somewhere in the step). */
static int track_discrete(fmu_slave *s)
{
    if (!s->n_dout) return FMU_STEP_OK;
    for (size_t k = 0; k < s->n_dout; k++) {
        double v = 0;
        int rc = read_output(s, s->dout[k], &v);
        if (rc) return rc;
        if (v != s->dval[k] && !(isnan(v) && isnan(s->dval[k]))) s->dval[k] = v, s->dtime[k] = s->t;
    }
    return FMU_STEP_OK;
}

/* Event mode (fmu_slave_set_event_stop): the FMU stopped at its first event, `reached` s after
 * `before`. Carry it on, events ignored, to the next whole tick (at least one tick on, at most
 * t_to) so that the slave's time stays a tick count: the event lies in (old time, new time].
 * The carry is shorter than a tick; the inputs are held over it. */
static int event_to_tick(fmu_slave *s, int64_t t_to, double before, double reached)
{
    double dt = (reached - before) / s->tick; /* ticks from s->t to the event */
    int64_t tr = s->t + (int64_t)ceil(dt - 1e-6);
    if (tr <= s->t) tr = s->t + 1;
    if (tr > t_to) tr = t_to;
    double t_tick = port_seconds(s->tick, tr); /* the grid point, from the tick count */
    int rc = FMU_STEP_OK;
    if (t_tick > reached) {
        fmu_step_set_event_stop(s->fmu, 0);
        double r2 = reached;
        rc = fmu_step_to(s->fmu, t_tick, NULL, &r2);
        fmu_step_set_event_stop(s->fmu, 1);
    }
    if (rc == FMU_STEP_OK) s->t = tr;
    return rc == FMU_STEP_OK ? FMU_STEP_EVENT : rc;
}

/* One step from s->t to t_to with the inputs re-expanded at s->t. */
static int step_once(fmu_slave *s, int64_t t_to, port_step_result *res)
{
    fmu_inputs in = {.n = s->n_in, .vr = s->in_vr, .u = s->u_val, .order = 0, .du = NULL};
    const fmu_inputs *pin = NULL;
    if (s->n_in && s->u_order >= 0) {
        shift_poly(s, s->t);
        hold_discrete_inputs(s);
        transform_inputs(s);
        in.order = s->u_order;
        in.du = s->u_order ? s->u_der : NULL;
        pin = &in;
        int trc = typed_inputs(s, &in);
        if (trc) return trc;
    }
    /* The target is the tick count converted, never the FMU's time plus a step (doc/fmu.md). */
    double before = fmu_step_time(s->fmu), reached = before;
    int rc = fmu_step_to(s->fmu, port_seconds(s->tick, t_to), pin, &reached);
    if (rc == FMU_STEP_OK) {
        s->t = t_to;
    } else if (rc == FMU_STEP_TERMINATED) {
        /* The FMU stopped early: convert its time back, never past the target. */
        int64_t tr = s->t + (int64_t)((reached - before) / s->tick + 0.5);
        s->t = tr < t_to ? tr : t_to;
    } else if (rc == FMU_STEP_EVENT) {
        rc = event_to_tick(s, t_to, before, reached);
    }
    if (res) res->t_reached = s->t;
    if (rc == FMU_STEP_OK || rc == FMU_STEP_EVENT || rc == FMU_STEP_TERMINATED) {
        int d = track_discrete(s);
        if (d) return d;
    }
    return rc;
}

/* The step stopped early at an event (event mode): reported with the tick reached. */
static int step_event(fmu_slave *s, port_step_result *res)
{
    if (res) res->event = 1;
    return note(s, PORT_EVENT, "event before %lld ticks", (long long)s->t);
}

/* Outputs inside a step from the FMU's intermediate updates (FMI 3.0 co-simulation,
 * doc/fmu.md "FMI 3.0"): one fmi3DoStep over the whole step instead of n_sub, the outputs read
 * where the FMU calls back at a sub-step's end. Used only where it gives what the n_sub steps
 * give: the FMU has the callback, a fixed internal step that divides every sub-step (so its
 * internal steps end at the sub-steps' ends), no event stops, and inputs held over the step
 * (none, or of order 0: FMI 3.0 takes no input derivatives, and sub-steps would set the
 * inputs' values at every sub-step's start, which one step cannot). */
#define SUB_MAX 64 /* sub-steps read through intermediate updates (more: sub-steps) */
typedef struct {
    fmu_slave *s;
    int n;              /* sub-steps */
    double tk[SUB_MAX]; /* their ends (s) */
    unsigned char got[SUB_MAX];
    double *y_sub; /* n x n_out */
    int rc;        /* first failure of a read */
} sub_reads;

static int at_update(void *ctx, fmu_step *f, double t)
{
    sub_reads *r = ctx;
    for (int k = 0; k < r->n - 1; k++) {
        if (r->got[k] || !(fabs(t - r->tk[k]) <= 1e-9 * fmax(1.0, fabs(r->tk[k])))) continue;
        int g = fmu_step_get_real(f, r->s->n_out, r->s->out_vr, &r->y_sub[(size_t)k * r->s->n_out]);
        if (g && !r->rc) r->rc = g;
        r->got[k] = 1;
    }
    return 0;
}

/* Whether step t0 -> t_to in n_sub sub-steps may read its outputs through intermediate
 * updates; fills r->tk. */
static int updates_serve(fmu_slave *s, int64_t t0, int64_t t_to, int n_sub, sub_reads *r)
{
    const fmu_md *md = fmu_step_md(s->fmu);
    double h = md->cs.fixed_internal_step;
    if (n_sub < 2 || n_sub > SUB_MAX || !fmu_step_updates(s->fmu) || s->event_stop ||
        !md->cs.has_fixed_internal_step || !(h > 0) || (s->n_in && s->u_order > 0))
        return 0;
    double prev = port_seconds(s->tick, t0);
    for (int k = 1; k <= n_sub; k++) {
        int64_t tk = k == n_sub ? t_to : t0 + (int64_t)((double)(t_to - t0) * k / n_sub);
        r->tk[k - 1] = port_seconds(s->tick, tk);
        double m = (r->tk[k - 1] - prev) / h;
        if (!(m >= 0.5) || fabs(m - nearbyint(m)) > 1e-6) return 0;
        prev = r->tk[k - 1];
    }
    return 1;
}

static int op_step(void *ctx, int64_t t_to, int n_sub, double *y_sub, port_step_result *res)
{
    fmu_slave *s = ctx;
    if (res) *res = (port_step_result){.t_reached = s->t, .event = 0, .n_sub_done = 0};
    if (t_to <= s->t)
        return note(s, PORT_EUSAGE, "step to %lld ticks from %lld: not ahead", (long long)t_to,
                    (long long)s->t);
    if (n_sub < 1) n_sub = 1;
    int64_t t0 = s->t, span = t_to - t0;
    sub_reads r = {.s = s, .n = n_sub, .y_sub = y_sub};
    if (y_sub && updates_serve(s, t0, t_to, n_sub, &r)) {
        fmu_step_set_update_hook(s->fmu, at_update, &r);
        int rc = step_once(s, t_to, res);
        fmu_step_set_update_hook(s->fmu, NULL, NULL);
        if (rc != FMU_STEP_OK && rc != FMU_STEP_TERMINATED)
            return fail_fmu(s, rc == FMU_STEP_EVENT ? FMU_STEP_EUSAGE : rc, "step");
        if (r.rc) return fail_fmu(s, r.rc, "reading outputs at an intermediate update");
        for (int k = 0; k < n_sub - 1 && rc == FMU_STEP_OK; k++)
            if (!r.got[k])
                return note(s, PORT_EFAIL,
                            "the FMU made no intermediate update at the sub-step's end %.17g s "
                            "(its fixedInternalStepSize divides the sub-steps)",
                            r.tk[k]);
        int g =
            fmu_step_get_real(s->fmu, s->n_out, s->out_vr, &y_sub[(size_t)(n_sub - 1) * s->n_out]);
        if (g) return fail_fmu(s, g, "reading outputs");
        if (res) res->n_sub_done = n_sub;
        s->sub_updates++;
        return rc == FMU_STEP_TERMINATED ? note(s, PORT_TERMINATED, "the model terminated")
                                         : PORT_OK;
    }
    for (int k = 1; k <= n_sub; k++) {
        /* Sub-step ends computed from t0 so that they never drift: t0 + span * k / n_sub. */
        int64_t tk = k == n_sub ? t_to : t0 + (int64_t)((double)span * k / n_sub);
        if (tk <= s->t) continue;
        int rc = step_once(s, tk, res);
        if (rc != FMU_STEP_OK && rc != FMU_STEP_TERMINATED && rc != FMU_STEP_EVENT)
            return fail_fmu(s, rc, "step");
        if (y_sub) {
            int g = read_outputs(s, &y_sub[(size_t)(k - 1) * s->n_out]);
            if (g) return fail_fmu(s, g, "reading outputs");
        }
        if (res) res->n_sub_done = k;
        if (rc == FMU_STEP_TERMINATED) return note(s, PORT_TERMINATED, "the model terminated");
        if (rc == FMU_STEP_EVENT) return step_event(s, res);
    }
    return PORT_OK;
}

/* Inputs set by set_inputs reach the FMU only at a step; outputs and output derivatives read
 * now must see them (direct feedthrough: an output derivative depends on the inputs'
 * derivatives), so values and derivatives are written first. */
static int apply_inputs_now(fmu_slave *s)
{
    if (!s->n_in || s->u_order < 0) return PORT_OK;
    shift_poly(s, s->t);
    hold_discrete_inputs(s);
    transform_inputs(s);
    fmu_inputs in = {.n = s->n_in,
                     .vr = s->in_vr,
                     .u = s->u_val,
                     .order = s->u_order,
                     .du = s->u_order ? s->u_der : NULL};
    int rc = typed_inputs(s, &in);
    if (!rc) rc = fmu_step_set_inputs(s->fmu, &in);
    return rc ? fail_fmu(s, rc, "setting inputs") : PORT_OK;
}

static int op_get_outputs(void *ctx, double *y)
{
    fmu_slave *s = ctx;
    int rc = apply_inputs_now(s);
    if (rc) return rc;
    rc = read_outputs(s, y);
    return rc ? fail_fmu(s, rc, "reading outputs") : PORT_OK;
}

static int op_get_output_derivs(void *ctx, int order, double *dy)
{
    fmu_slave *s = ctx;
    int rc = apply_inputs_now(s);
    if (rc) return rc;
    if (!s->kind)
        rc = fmu_step_get_output_derivs(s->fmu, s->n_out, s->out_vr, order, dy);
    else /* a typed output is piecewise constant: derivatives 0 */
        for (size_t k = 0; k < s->n_out && !rc; k++)
            if (s->kind[s->n_in + k] != FMU_SLAVE_REAL)
                dy[k] = 0;
            else
                rc = fmu_step_get_output_derivs(s->fmu, 1, &s->out_vr[k], order, &dy[k]);
    return rc ? fail_fmu(s, rc, "reading output derivatives") : PORT_OK;
}

static int op_save(void *ctx, int slot)
{
    fmu_slave *s = ctx;
    if (slot < 0 || slot >= PORT_SLOTS) return note(s, PORT_EUSAGE, "save: no slot %d", slot);
    if (!fmu_step_can_save(s->fmu))
        return note(s, PORT_EUNSUPPORTED, "the FMU cannot save its state");
    fmu_step_state *st = NULL;
    int rc = fmu_step_save(s->fmu, &st);
    if (rc) return fail_fmu(s, rc, "saving the state");
    fmu_step_state_free(s->fmu, s->slot[slot]);
    s->slot[slot] = st;
    s->slot_t[slot] = s->t;
    if (s->n_dout) {
        memcpy(s->slot_dval[slot], s->dval, s->n_dout * sizeof *s->dval);
        memcpy(s->slot_dtime[slot], s->dtime, s->n_dout * sizeof *s->dtime);
    }
    return PORT_OK;
}

static int op_restore(void *ctx, int slot)
{
    fmu_slave *s = ctx;
    if (slot < 0 || slot >= PORT_SLOTS || !s->slot[slot])
        return note(s, PORT_EUSAGE, "restore: slot %d holds no state", slot);
    int rc = fmu_step_restore(s->fmu, s->slot[slot]);
    if (rc) return fail_fmu(s, rc, "restoring the state");
    s->t = s->slot_t[slot];
    if (s->n_dout) {
        memcpy(s->dval, s->slot_dval[slot], s->n_dout * sizeof *s->dval);
        memcpy(s->dtime, s->slot_dtime[slot], s->n_dout * sizeof *s->dtime);
    }
    return PORT_OK;
}

static int op_record(void *ctx)
{
    fmu_slave *s = ctx;
    if (!s->record) return PORT_OK;
    /* The row shows the inputs last set, as the FMU will see them (set_inputs reaches the FMU
     * only at the next step otherwise). */
    int rc = apply_inputs_now(s);
    if (rc) return rc;
    rc = s->record(s->record_ctx, s->t);
    return rc ? note(s, PORT_EFAIL, "recording results failed") : PORT_OK;
}

static int unsupported(fmu_slave *s, const char *what)
{
    return note(s, PORT_EUNSUPPORTED, "%s is not offered by this slave", what);
}
/* The discrete outputs with the time of the step that last changed each (track_discrete). */
static int op_get_discrete(void *ctx, port_discrete *d)
{
    fmu_slave *s = ctx;
    if (!s->n_dout) return unsupported(s, "discrete outputs (none declared)");
    for (size_t k = 0; k < s->n_dout; k++)
        d[k] = (port_discrete){.v = s->dval[k], .t = s->dtime[k]};
    return PORT_OK;
}
/* Values for the discrete inputs, held from now on (over restores too) until the next call. */
static int op_set_discrete(void *ctx, size_t n, const port_discrete *d)
{
    fmu_slave *s = ctx;
    if (!s->n_din) return unsupported(s, "discrete inputs (none declared)");
    if (n != s->n_din || !d)
        return note(s, PORT_EUSAGE, "set_discrete: %zu values for %zu discrete inputs", n,
                    s->n_din);
    for (size_t k = 0; k < n; k++)
        s->dinv[k] = d[k].v;
    s->din_set = 1;
    return PORT_OK;
}
/* ---- the slave as a model-exchange evaluator (strong coupling) ------------------------------
 * The master's integrator owns the states: set_states moves the FMU to the master's time and
 * states, get_derivatives reads x' there with the inputs last set. The FMU's own integrator is
 * not used (it restarts from the states set should the slave be stepped afterwards). */
static int op_get_states(void *ctx, double *x)
{
    fmu_slave *s = ctx;
    if (!s->nx) return unsupported(s, "get_states (not a model-exchange FMU with states)");
    int rc = fmu_step_get_states(s->fmu, s->nx, x);
    return rc ? fail_fmu(s, rc, "reading the states") : PORT_OK;
}
static int op_set_states(void *ctx, int64_t t, const double *x)
{
    fmu_slave *s = ctx;
    if (!s->nx) return unsupported(s, "set_states (not a model-exchange FMU with states)");
    int rc = fmu_step_set_time(s->fmu, port_seconds(s->tick, t));
    if (rc) return fail_fmu(s, rc, "setting the time");
    s->t = t;
    rc = fmu_step_set_states(s->fmu, s->nx, x);
    return rc ? fail_fmu(s, rc, "setting the states") : PORT_OK;
}
static int op_get_derivatives(void *ctx, double *dx)
{
    fmu_slave *s = ctx;
    if (!s->nx) return unsupported(s, "get_derivatives (not a model-exchange FMU with states)");
    int rc = apply_inputs_now(s);
    if (rc) return rc;
    rc = fmu_step_get_derivatives(s->fmu, s->nx, dx);
    return rc ? fail_fmu(s, rc, "reading the state derivatives") : PORT_OK;
}
/* dy = (dy/du) du at the current time, states and inputs: the FMU's directional derivatives
 * of the outputs with respect to the inputs (direct feedthrough; semi-implicit Newton). */
static int op_get_directional(void *ctx, const double *du, double *dy)
{
    fmu_slave *s = ctx;
    if (!fmu_step_has_directional(s->fmu) || !s->n_in || !s->n_out || s->kind)
        return unsupported(s, "directional derivatives");
    int rc = apply_inputs_now(s);
    if (rc) return rc;
    if (s->in_f) { /* d(f u + o) = f du */
        for (size_t i = 0; i < s->n_in; i++)
            s->du_s[i] = s->in_f[i] * du[i];
        du = s->du_s;
    }
    rc = fmu_step_get_directional(s->fmu, s->n_out, s->out_vr, s->n_in, s->in_vr, du, dy);
    return rc ? fail_fmu(s, rc, "reading directional derivatives") : PORT_OK;
}

static void take_shared(fmu_slave *s);

static int op_collect(void *ctx)
{
    fmu_slave *s = ctx;
    if (s->share_pending) take_shared(s);
    int st = s->status;
    s->status = PORT_OK;
    return st;
}

/* ---- slave to slave in one process (fmu_slave_bus) ----------------------------------------- */

typedef struct bus_member {
    int64_t t;              /* the round last shared, INT64_MIN before the first */
    size_t n;               /* values shared */
    const port_discrete *d; /* the sharing slave's buffer */
} bus_member;

struct fmu_slave_bus {
    size_t n;
    bus_member *m;
};

fmu_slave_bus *fmu_slave_bus_new(size_t n)
{
    fmu_slave_bus *b = calloc(1, sizeof *b);
    if (!b || !(b->m = calloc(n + 1, sizeof *b->m))) {
        free(b);
        return NULL;
    }
    b->n = n;
    for (size_t i = 0; i < n; i++)
        b->m[i].t = INT64_MIN;
    return b;
}

void fmu_slave_bus_free(fmu_slave_bus *b)
{
    if (!b) return;
    free(b->m);
    free(b);
}

int fmu_slave_join_bus(fmu_slave *s, fmu_slave_bus *b, size_t idx, const size_t *src,
                       const size_t *src_k)
{
    if (!b || idx >= b->n || (s->n_din && (!src || !src_k))) return PORT_EUSAGE;
    for (size_t k = 0; k < s->n_din; k++)
        if (src[k] >= b->n) return PORT_EUSAGE;
    size_t *a = calloc(s->n_din + 1, sizeof *a), *c = calloc(s->n_din + 1, sizeof *c);
    port_discrete *sh = calloc(s->n_dout + 1, sizeof *sh);
    if (!a || !c || !sh) {
        free(a), free(c), free(sh);
        return PORT_ENOMEM;
    }
    if (s->n_din) memcpy(a, src, s->n_din * sizeof *a), memcpy(c, src_k, s->n_din * sizeof *c);
    free(s->src), free(s->src_k), free(s->sh);
    s->src = a, s->src_k = c, s->sh = sh;
    s->bus = b, s->bus_idx = idx;
    return PORT_OK;
}

/* Publish now; the taking waits for collect, when every slave of the round has published. */
static int op_share_discrete(void *ctx, int64_t t)
{
    fmu_slave *s = ctx;
    if (!s->bus) return unsupported(s, "share_discrete (no bus joined)");
    for (size_t k = 0; k < s->n_dout; k++)
        s->sh[k] = (port_discrete){.v = s->dval[k], .t = s->dtime[k]};
    s->bus->m[s->bus_idx] = (bus_member){.t = t, .n = s->n_dout, .d = s->sh};
    s->share_pending = 1;
    s->share_t = t;
    return PORT_OK;
}

static void take_shared(fmu_slave *s)
{
    s->share_pending = 0;
    for (size_t k = 0; k < s->n_din; k++) {
        const bus_member *m = &s->bus->m[s->src[k]];
        if (m->t != s->share_t || s->src_k[k] >= m->n) {
            note(s, PORT_EUSAGE,
                 "discrete input %zu: slave %zu shared no value %zu in the round %lld", k,
                 s->src[k], s->src_k[k], (long long)s->share_t);
            return;
        }
    }
    for (size_t k = 0; k < s->n_din; k++)
        s->dinv[k] = s->bus->m[s->src[k]].d[s->src_k[k]].v;
    s->din_set = s->n_din > 0;
}

static const port_slave_ops fmu_slave_ops = {
    .version = PORT_OPS_VERSION,

    .set_inputs = op_set_inputs,
    .step = op_step,
    .get_outputs = op_get_outputs,
    .get_output_derivs = op_get_output_derivs,
    .get_discrete = op_get_discrete,
    .set_discrete = op_set_discrete,
    .share_discrete = op_share_discrete,
    .get_states = op_get_states,
    .set_states = op_set_states,
    .get_derivatives = op_get_derivatives,
    .get_directional = op_get_directional,
    .save = op_save,
    .restore = op_restore,
    .record = op_record,
    .collect = op_collect,
};

/* The typed ports of o (kind_in / kind_out) copied; nothing when every port is Real. -1 out of
 * memory. s->n_in, n_out and fmu are not set yet: o's are used. */
static int typed_new(fmu_slave *s, const fmu_slave_opts *o)
{
    int any = 0;
    for (size_t i = 0; o->kind_in && i < o->n_in; i++)
        any |= o->kind_in[i] != FMU_SLAVE_REAL;
    for (size_t k = 0; o->kind_out && k < o->n_out; k++)
        any |= o->kind_out[k] != FMU_SLAVE_REAL;
    if (!any) return 0;
    size_t n = o->n_in + o->n_out + 1, ni = o->n_in + 1;
    if (!(s->kind = calloc(n, 1)) || !(s->pname = calloc(n, sizeof *s->pname)) ||
        !(s->is_bool = calloc(ni, 1)) || !(s->map = calloc(ni, sizeof *s->map)) ||
        !(s->n_map = calloc(ni, sizeof *s->n_map)) ||
        !(s->rin_vr = calloc(ni, sizeof *s->rin_vr)) ||
        !(s->rin_val = calloc(ni, sizeof(double))) ||
        !(s->rin_der = calloc(ni * PORT_MAX_ORDER, sizeof(double))))
        return -1;
    const fmu_md *md = fmu_step_md(o->fmu);
    for (size_t j = 0; j < o->n_in + o->n_out; j++) {
        int in = j < o->n_in;
        size_t k = in ? j : j - o->n_in;
        s->kind[j] = in ? (o->kind_in ? o->kind_in[k] : 0) : (o->kind_out ? o->kind_out[k] : 0);
        const char *name =
            in ? (o->in_name ? o->in_name[k] : NULL) : (o->out_name ? o->out_name[k] : NULL);
        if (s->kind[j] == FMU_SLAVE_REAL) continue;
        if (!name || !(s->pname[j] = strdup(name))) return -1;
        if (!in) continue;
        long v = fmu_md_find(md, name);
        s->is_bool[k] = v >= 0 && md->vars[v].type == FMU_T_BOOLEAN;
        size_t nm = o->in_map && o->in_n_map && o->in_map[k] ? o->in_n_map[k] : 0;
        if (nm && !(s->map[k] = malloc(2 * nm * sizeof **s->map))) return -1;
        if (nm) memcpy(s->map[k], o->in_map[k], 2 * nm * sizeof **s->map);
        s->n_map[k] = nm;
    }
    return 0;
}

int fmu_slave_new(const fmu_slave_opts *o, fmu_slave **out, port_slave *ps)
{
    *out = NULL;
    if (!o || !o->fmu || !(o->tick > 0) || (o->n_in && !o->in_vr) || (o->n_out && !o->out_vr))
        return PORT_EUSAGE;
    fmu_slave *s = calloc(1, sizeof *s);
    if (!s) return PORT_ENOMEM;
    size_t ni = o->n_in ? o->n_in : 1, no = o->n_out ? o->n_out : 1;
    s->name = strdup(o->name ? o->name : "slave");
    s->in_vr = calloc(ni, sizeof *s->in_vr);
    s->out_vr = calloc(no, sizeof *s->out_vr);
    s->u_c = calloc(ni * (PORT_MAX_ORDER + 1), sizeof(double));
    s->u_val = calloc(ni, sizeof(double));
    s->u_der = calloc(ni * PORT_MAX_ORDER, sizeof(double));
    s->out_state = calloc(no, sizeof *s->out_state);
    if (!s->name || !s->in_vr || !s->out_vr || !s->u_c || !s->u_val || !s->u_der || !s->out_state) {
        fmu_slave_free(s);
        return PORT_ENOMEM;
    }
    for (size_t k = 0; o->disc_out && k < o->n_out; k++)
        s->n_dout += o->disc_out[k] != 0;
    for (size_t k = 0; o->disc_in && k < o->n_in; k++)
        s->n_din += o->disc_in[k] != 0;
    size_t nd = s->n_dout + 1;
    int bad = !(s->dout = calloc(nd, sizeof *s->dout)) || !(s->dval = calloc(nd, sizeof(double))) ||
              !(s->dtime = calloc(nd, sizeof(int64_t))) ||
              !(s->din = calloc(s->n_din + 1, sizeof *s->din)) ||
              !(s->dinv = calloc(s->n_din + 1, sizeof(double)));
    for (int k = 0; k < PORT_SLOTS && !bad; k++)
        bad = !(s->slot_dval[k] = calloc(nd, sizeof(double))) ||
              !(s->slot_dtime[k] = calloc(nd, sizeof(int64_t)));
    if (bad) {
        fmu_slave_free(s);
        return PORT_ENOMEM;
    }
    for (size_t k = 0, j = 0; o->disc_out && k < o->n_out; k++)
        if (o->disc_out[k]) s->dout[j++] = k;
    for (size_t k = 0, j = 0; o->disc_in && k < o->n_in; k++)
        if (o->disc_in[k]) s->din[j++] = k;
    if (o->n_in) memcpy(s->in_vr, o->in_vr, o->n_in * sizeof *s->in_vr);
    if (o->n_in && (o->in_factor || o->in_offset)) {
        if (!(s->in_f = calloc(o->n_in, sizeof(double))) ||
            !(s->in_o = calloc(o->n_in, sizeof(double))) ||
            !(s->du_s = calloc(o->n_in, sizeof(double))) || !(s->in_on = calloc(o->n_in, 1))) {
            fmu_slave_free(s);
            return PORT_ENOMEM;
        }
        for (size_t k = 0; k < o->n_in; k++) {
            s->in_f[k] = o->in_factor ? o->in_factor[k] : 1;
            s->in_o[k] = o->in_offset ? o->in_offset[k] : 0;
            /* exactly the identity (not a tolerance): leave the value untouched */
            s->in_on[k] = s->in_f[k] != 1 || s->in_o[k] != 0;
            if (s->in_f[k] == 0) {
                fmu_slave_free(s);
                return PORT_EUSAGE;
            }
        }
    }
    if (o->n_out) memcpy(s->out_vr, o->out_vr, o->n_out * sizeof *s->out_vr);
    s->fmu = o->fmu;
    s->n_in = o->n_in;
    s->n_out = o->n_out;
    s->t = o->t_now;
    s->tick = o->tick;
    s->u_order = -1;
    s->record = o->record;
    s->record_ctx = o->record_ctx;
    if (typed_new(s, o)) {
        fmu_slave_free(s);
        return PORT_ENOMEM;
    }
    for (size_t k = 0; k < s->n_dout; k++) { /* the values at the start: no event yet */
        s->dtime[k] = INT64_MIN;
        if (read_output(s, s->dout[k], &s->dval[k])) {
            fmu_slave_free(s);
            return PORT_EUSAGE;
        }
    }
    int me = fmu_step_kind(o->fmu) == FMU_KIND_ME;
    s->nx = fmu_step_n_states(o->fmu);
    const fmu_md *md = fmu_step_md(o->fmu);
    for (size_t k = 0; k < o->n_out; k++) { /* an output that is a state: the same variable */
        s->out_state[k] = -1;
        for (size_t i = 0; i < s->nx && !(s->kind && s->kind[s->n_in + k]); i++)
            if (md->vars[md->state_index[i]].vr == o->out_vr[k]) s->out_state[k] = (long)i;
    }
    int maxd = 0;
    for (size_t j = 0, first = 1; j < o->n_out; j++) {
        if (s->kind && s->kind[s->n_in + j]) continue; /* typed: derivatives 0, any order */
        int d = fmu_step_deriv_order(o->fmu, o->out_vr[j]);
        if (first || d < maxd) maxd = d; /* the order every output offers */
        first = 0;
    }
    *ps = (port_slave){
        .ops = &fmu_slave_ops,
        .ctx = s,
        .info = {.name = s->name,
                 .n_in = o->n_in,
                 .n_out = o->n_out,
                 .n_state = s->nx,
                 .n_discrete = s->n_dout,
                 .can_save = fmu_step_can_save(o->fmu),
                 .max_output_deriv = maxd,
                 .has_state_derivs = s->nx > 0,
                 .has_directional =
                     fmu_step_has_directional(o->fmu) && o->n_in && o->n_out && !s->kind,
                 .is_me = me,
                 .out_state = s->nx ? s->out_state : NULL},
    };
    *out = s;
    return PORT_OK;
}

void fmu_slave_free(fmu_slave *s)
{
    if (!s) return;
    for (int k = 0; k < PORT_SLOTS; k++)
        fmu_step_state_free(s->fmu, s->slot[k]);
    free(s->name);
    free(s->in_vr);
    free(s->out_vr);
    free(s->u_c);
    free(s->u_val);
    free(s->u_der);
    free(s->in_f);
    free(s->in_o);
    free(s->du_s);
    free(s->in_on);
    free(s->out_state);
    free(s->dout);
    free(s->din);
    free(s->dval);
    free(s->dtime);
    free(s->dinv);
    free(s->src);
    free(s->src_k);
    free(s->sh);
    for (size_t k = 0; s->pname && k < s->n_in + s->n_out; k++)
        free(s->pname[k]);
    for (size_t k = 0; s->map && k < s->n_in; k++)
        free(s->map[k]);
    free(s->pname), free(s->map), free(s->n_map), free(s->kind), free(s->is_bool);
    free(s->rin_vr), free(s->rin_val), free(s->rin_der);
    for (int k = 0; k < PORT_SLOTS; k++)
        free(s->slot_dval[k]), free(s->slot_dtime[k]);
    free(s);
}

const char *fmu_slave_errmsg(const fmu_slave *s)
{
    return s->err;
}
int64_t fmu_slave_time(const fmu_slave *s)
{
    return s->t;
}

void fmu_slave_set_event_stop(fmu_slave *s, int on)
{
    s->event_stop = on;
    fmu_step_set_event_stop(s->fmu, on);
}

/* ---- checkpoints (doc/checkpoint.md "The slave role's part") ----------------------------- */

#define SLAVE_CKPT_MAGIC   0x314c5346u /* "FSL1" little-endian */
#define SLAVE_CKPT_VERSION 1u

/* The FMU's current state as counted bytes. */
static int put_fmu_state(fmu_slave *s, pstate_buf *b)
{
    unsigned char *bytes = NULL;
    size_t n = 0;
    int rc = fmu_step_serialize(s->fmu, &bytes, &n);
    if (rc) return fail_fmu(s, rc, "serializing the state");
    pstate_put_bytes(b, bytes, n);
    free(bytes);
    return PORT_OK;
}

int fmu_slave_ckpt_save(fmu_slave *s, pstate_buf *b)
{
    if (!fmu_step_can_serialize(s->fmu))
        return note(s, PORT_EUNSUPPORTED,
                    "the FMU cannot serialize its state (canGetAndSetFMUstate and "
                    "canSerializeFMUstate are needed)");
    pstate_put_u32(b, SLAVE_CKPT_MAGIC);
    pstate_put_u32(b, SLAVE_CKPT_VERSION);
    pstate_put_i64(b, s->t);
    pstate_put_u32(b, (uint32_t)s->n_in);
    pstate_put_u32(b, (uint32_t)s->n_out);
    pstate_put_u32(b, (uint32_t)s->n_dout);
    pstate_put_u32(b, (uint32_t)s->n_din);
    pstate_put_i64(b, s->u_t0);
    pstate_put_u8(b, (uint8_t)(s->u_order + 1)); /* 0: no inputs set yet */
    for (size_t i = 0; s->u_order >= 0 && i < s->n_in; i++)
        for (int k = 0; k <= s->u_order; k++)
            pstate_put_f64(b, s->u_c[i * (PORT_MAX_ORDER + 1) + (size_t)k]);
    for (size_t k = 0; k < s->n_dout; k++) {
        pstate_put_f64(b, s->dval[k]);
        pstate_put_i64(b, s->dtime[k]);
    }
    pstate_put_u8(b, (uint8_t)(s->din_set ? 1 : 0));
    for (size_t k = 0; k < s->n_din; k++)
        pstate_put_f64(b, s->dinv[k]);
    int rc = put_fmu_state(s, b); /* the current state first: restarts ME once, here */
    uint8_t mask = 0;
    for (int k = 0; k < PORT_SLOTS; k++)
        if (s->slot[k]) mask |= (uint8_t)(1u << k);
    pstate_put_u8(b, mask);
    fmu_step_state *cur = NULL;
    if (rc == PORT_OK && mask) {
        int src = fmu_step_save(s->fmu, &cur);
        if (src) rc = fail_fmu(s, src, "keeping the state while the slots are written");
    }
    for (int k = 0; rc == PORT_OK && k < PORT_SLOTS; k++) {
        if (!s->slot[k]) continue;
        pstate_put_i64(b, s->slot_t[k]);
        for (size_t j = 0; j < s->n_dout; j++) {
            pstate_put_f64(b, s->slot_dval[k][j]);
            pstate_put_i64(b, s->slot_dtime[k][j]);
        }
        int src = fmu_step_restore(s->fmu, s->slot[k]);
        if (src) rc = fail_fmu(s, src, "restoring a saved slot to write it");
        if (rc == PORT_OK) rc = put_fmu_state(s, b);
    }
    if (cur) {
        int src = fmu_step_restore(s->fmu, cur);
        if (src && rc == PORT_OK) rc = fail_fmu(s, src, "restoring the current state");
        fmu_step_state_free(s->fmu, cur);
    }
    if (rc == PORT_OK && b->bad) rc = note(s, PORT_ENOMEM, "out of memory");
    return rc;
}

int fmu_slave_ckpt_restore(fmu_slave *s, pstate_rd *d)
{
    uint32_t magic = pstate_get_u32(d), version = pstate_get_u32(d);
    if (d->bad || magic != SLAVE_CKPT_MAGIC || version != SLAVE_CKPT_VERSION)
        return note(s, PORT_EUSAGE, "resuming: the slave's state is not one it wrote");
    int64_t t = pstate_get_i64(d);
    uint32_t n_in = pstate_get_u32(d), n_out = pstate_get_u32(d);
    uint32_t n_dout = pstate_get_u32(d), n_din = pstate_get_u32(d);
    if (d->bad || n_in != s->n_in || n_out != s->n_out || n_dout != s->n_dout || n_din != s->n_din)
        return note(s, PORT_EUSAGE,
                    "resuming: the slave's state has %u inputs, %u outputs, %u and %u discrete "
                    "ones; this wiring %zu, %zu, %zu and %zu",
                    n_in, n_out, n_dout, n_din, s->n_in, s->n_out, s->n_dout, s->n_din);
    int64_t u_t0 = pstate_get_i64(d);
    int order = (int)pstate_get_u8(d) - 1;
    if (order > PORT_MAX_ORDER) return note(s, PORT_EUSAGE, "resuming: inputs of order %d", order);
    /* Read everything into scratch first: nothing is changed before the bytes are known
     * whole (the slots' FMU states are checked by fmu_step_deserialize as they go). */
    size_t nu = order >= 0 ? s->n_in * (size_t)(order + 1) : 0;
    double *u = calloc(nu + 1, sizeof *u), *dv = calloc(s->n_dout + s->n_din + 1, sizeof *dv);
    int64_t *dt = calloc(s->n_dout + 1, sizeof *dt);
    if (!u || !dv || !dt) {
        free(u), free(dv), free(dt);
        return note(s, PORT_ENOMEM, "out of memory");
    }
    for (size_t k = 0; k < nu; k++)
        u[k] = pstate_get_f64(d);
    for (size_t k = 0; k < s->n_dout; k++) {
        dv[k] = pstate_get_f64(d);
        dt[k] = pstate_get_i64(d);
    }
    int din_set = pstate_get_u8(d);
    for (size_t k = 0; k < s->n_din; k++)
        dv[s->n_dout + k] = pstate_get_f64(d);
    size_t n_cur = 0;
    const unsigned char *cur = pstate_get_bytes(d, &n_cur);
    uint8_t mask = pstate_get_u8(d);
    int rc = PORT_OK;
    if (d->bad || din_set > 1 || mask >= (1u << PORT_SLOTS))
        rc = note(s, PORT_EUSAGE, "resuming: the slave's state is truncated or damaged");
    for (int k = 0; rc == PORT_OK && k < PORT_SLOTS; k++) {
        if (!(mask & (1u << k))) continue;
        int64_t st = pstate_get_i64(d);
        for (size_t j = 0; j < s->n_dout; j++) {
            s->slot_dval[k][j] = pstate_get_f64(d);
            s->slot_dtime[k][j] = pstate_get_i64(d);
        }
        size_t n = 0;
        const unsigned char *p = pstate_get_bytes(d, &n);
        if (d->bad) {
            rc = note(s, PORT_EUSAGE, "resuming: saved slot %d is truncated", k);
            break;
        }
        int frc = fmu_step_deserialize(s->fmu, p, n);
        fmu_step_state *snap = NULL;
        if (!frc) frc = fmu_step_save(s->fmu, &snap);
        if (frc) {
            rc = note(s, PORT_EUSAGE, "resuming: saved slot %d: %s", k, fmu_step_errmsg(s->fmu));
            break;
        }
        fmu_step_state_free(s->fmu, s->slot[k]);
        s->slot[k] = snap;
        s->slot_t[k] = st;
    }
    if (rc == PORT_OK && fmu_step_deserialize(s->fmu, cur, n_cur))
        rc = note(s, PORT_EUSAGE, "resuming: %s", fmu_step_errmsg(s->fmu));
    if (rc == PORT_OK) {
        s->t = t;
        s->u_t0 = u_t0;
        s->u_order = order;
        for (size_t i = 0; order >= 0 && i < s->n_in; i++)
            memcpy(&s->u_c[i * (PORT_MAX_ORDER + 1)], &u[i * (size_t)(order + 1)],
                   (size_t)(order + 1) * sizeof *u);
        if (s->n_dout) {
            memcpy(s->dval, dv, s->n_dout * sizeof *dv);
            memcpy(s->dtime, dt, s->n_dout * sizeof *dt);
        }
        if (s->n_din) memcpy(s->dinv, dv + s->n_dout, s->n_din * sizeof *dv);
        s->din_set = din_set;
    }
    free(u), free(dv), free(dt);
    return rc;
}

long fmu_slave_sub_updates(const fmu_slave *s)
{
    return s->sub_updates;
}
