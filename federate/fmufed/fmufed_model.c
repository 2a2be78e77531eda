/* One federate's FMU as a port_slave (fmufed_model.h): open it as the federation file says,
 * map the wiring to value references, and run each port operation on the FMU at once.
 * doc/algorithms/port.md; read fmufed_rec.c next.
 */
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "algorithms/exchange.h"
#include "federate/config/fedfile_algo.h"
#include "federate/config/fedfile_balance.h"
#include "federate/config/fedfile_master.h"
#include "federate/fmu/fmu_step.h"
#include "federate/fmufed/fmufed.h"
#include "federate/fmufed/fmufed_model.h"
#include "federate/fmufed/fmufed_rec.h"
#include "federate/msproto/msproto_child.h"
#include "federate/run/run_check.h"

struct fmufed_model {
    const fedfile *ff;
    const fedfile_fed *fd;
    fmu_step *fmu;
    double tick; /* seconds per tick */
    int64_t T;   /* the FMU's time, ticks */
    size_t n_in, n_out, n_rec;
    fmi2ValueReference *vr_in;  /* n_in */
    fmi2ValueReference *vr_out; /* n_out */
    double *u0;                 /* n_in start values */
    unsigned char *disc;        /* n_in + n_out (inputs first): VK_* of each wired variable;
                                   all but VK_REAL are set and read by name (doc/federation.md,
                                   "Whole numbers on the wire") */
    fmi2ValueReference *vr_pin; /* the Real inputs' references, for poly */
    const char **rec_names;     /* n_rec */
    double *rec;                /* n_rec; NaN in a String column */
    char **rec_copy;            /* n_rec: a String column's last text (malloc), else NULL */
    const char **rec_text;      /* n_rec: rec_copy[k] for String columns, else NULL; NULL
                                   when no column is a String */
    int max_deriv;              /* the lowest output derivative order over the outputs */
    fmu_inputs poly;            /* inputs of the next step when has_poly */
    double *pu, *pdu;           /* n_in and n_in * PORT_MAX_ORDER */
    int has_poly;
    fmufed_row_fn row;
    void *row_ctx;
    int64_t rows_seen; /* rows asked for so far (record_every steps) */
    int64_t row_next;  /* ticks: the next row due (record_every seconds); INT64_MIN first */
    int status;        /* first failure since the last collect */
    char *err;
    size_t errlen;
};

static int fail(fmufed_model *m, int code, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
static int fail(fmufed_model *m, int code, const char *fmt, ...)
{
    if (m->status == PORT_OK) m->status = code;
    if (!m->err || !m->errlen) return code;
    int n = snprintf(m->err, m->errlen, "federate %s: ", m->fd->name);
    if (n < 0 || (size_t)n >= m->errlen) return code;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(m->err + n, m->errlen - (size_t)n, fmt, ap);
    va_end(ap);
    return code;
}

/* ---- the port operations --------------------------------------------------------------- */

/* How a wired variable is exchanged: a Real (Float64) by value reference; a whole number
 * (Integer, Boolean, Enumeration, FMI 3.0's sized integers) or a Float32 by name. */
enum { VK_REAL = 0, VK_WHOLE, VK_FLOAT32 };

/* A discrete input takes the value rounded to the nearest integer; a Boolean is true when
 * that is not 0; a Float32 the value rounded to single precision. */
static int set_discrete_input(fmufed_model *m, size_t i, double v)
{
    char text[32];
    const fmu_var *var =
        &fmu_step_md(m->fmu)->vars[fmu_md_find(fmu_step_md(m->fmu), m->fd->inputs[i].var)];
    if (m->disc[i] == VK_FLOAT32) {
        snprintf(text, sizeof text, "%.9g", (double)(float)v);
        if (fmu_step_set_text(m->fmu, var->name, text) != FMU_STEP_OK)
            return fail(m, PORT_EFAIL, "setting input \"%s\" to %s: %s", var->name, text,
                        fmu_step_errmsg(m->fmu));
        return PORT_OK;
    }
    double r = nearbyint(v);
    if (!isfinite(r) || fabs(r) > 9.2e18)
        return fail(m, PORT_EFAIL, "setting input \"%s\": %.17g is no integer", var->name, v);
    long long iv = (long long)r;
    const fedfile_wire *in = &m->fd->inputs[i];
    for (size_t k = 0; k < in->n_map; k++) /* the transform's map, after the rounding */
        if (in->map[2 * k] == iv) {
            iv = in->map[2 * k + 1];
            break;
        }
    if (var->type == FMU_T_BOOLEAN)
        snprintf(text, sizeof text, "%s", iv != 0 ? "true" : "false");
    else
        snprintf(text, sizeof text, "%lld", iv);
    if (fmu_step_set_text(m->fmu, var->name, text) != FMU_STEP_OK)
        return fail(m, PORT_EFAIL, "setting input \"%s\" to %s: %s", var->name, text,
                    fmu_step_errmsg(m->fmu));
    return PORT_OK;
}

/* Output k: a Real by reference, a discrete one by name as a number. */
static int get_output(fmufed_model *m, size_t k, double *y)
{
    int rc = m->disc[m->n_in + k] ? fmu_step_get_by_name(m->fmu, m->fd->outputs[k].var, y)
                                  : fmu_step_get_real(m->fmu, 1, &m->vr_out[k], y);
    return rc == FMU_STEP_OK ? PORT_OK
                             : fail(m, PORT_EFAIL, "reading output \"%s\": %s",
                                    m->fd->outputs[k].var, fmu_step_errmsg(m->fmu));
}

static int set_inputs(void *ctx, const port_poly *u)
{
    fmufed_model *m = ctx;
    if (u->n != m->n_in || u->order < 0 || u->order > PORT_MAX_ORDER)
        return fail(m, PORT_EUSAGE, "set_inputs: %zu inputs of order %d (expected %zu)", u->n,
                    u->order, m->n_in);
    size_t w = (size_t)u->order + 1;
    /* The FMU takes factor * u + offset (the input's "transform", doc/federation.md); the
     * identity leaves the value's bits alone. */
    if (u->order == 0) {
        m->has_poly = 0;
        for (size_t i = 0; i < m->n_in; i++) {
            const fedfile_wire *in = &m->fd->inputs[i];
            double v = in->transformed ? in->factor * u->c[i] + in->offset : u->c[i];
            if (m->disc[i]) {
                int rc = set_discrete_input(m, i, v);
                if (rc) return rc;
                continue;
            }
            if (fmu_step_set_real(m->fmu, 1, &m->vr_in[i], &v) != FMU_STEP_OK)
                return fail(m, PORT_EFAIL, "setting input \"%s\" to %.17g: %s", in->var, v,
                            fmu_step_errmsg(m->fmu));
        }
        return PORT_OK;
    }
    size_t n = 0; /* the Real inputs go with the step; discrete ones are set now, held */
    for (size_t i = 0; i < m->n_in; i++) {
        const fedfile_wire *in = &m->fd->inputs[i];
        double f = in->transformed ? in->factor : 1;
        double v = in->transformed ? f * u->c[i * w] + in->offset : u->c[i * w];
        if (m->disc[i]) {
            int rc = set_discrete_input(m, i, v);
            if (rc) return rc;
            continue;
        }
        m->vr_pin[n] = m->vr_in[i];
        m->pu[n] = v;
        for (size_t k = 1; k < w; k++)
            m->pdu[n * (size_t)u->order + k - 1] = f * u->c[i * w + k];
        n++;
    }
    m->poly = (fmu_inputs){.n = n, .vr = m->vr_pin, .u = m->pu, .order = u->order, .du = m->pdu};
    m->has_poly = 1;
    return PORT_OK;
}

static int step(void *ctx, int64_t t_to, int n_sub, double *y_sub, port_step_result *res)
{
    fmufed_model *m = ctx;
    if (res) *res = (port_step_result){.t_reached = m->T};
    if (t_to <= m->T) return PORT_OK;
    /* The FMU's time is the tick count converted, never a sum of step sizes (doc/fmu.md). */
    double reached = 0;
    int rc =
        fmu_step_to(m->fmu, port_seconds(m->tick, t_to), m->has_poly ? &m->poly : NULL, &reached);
    m->has_poly = 0;
    if (rc == FMU_STEP_TERMINATED)
        return fail(m, PORT_TERMINATED, "the FMU terminated at %.9g s, before the end time",
                    reached);
    if (rc != FMU_STEP_OK)
        return fail(m, rc == FMU_STEP_EDISCARD ? PORT_EDISCARD : PORT_EFAIL,
                    "step %.9g s -> %.9g s: %s: %s", port_seconds(m->tick, m->T),
                    port_seconds(m->tick, t_to), fmu_step_strerror(rc), fmu_step_errmsg(m->fmu));
    m->T = t_to;
    if (res) res->t_reached = t_to;
    if (y_sub) {
        for (size_t k = 0; k < m->n_out; k++)
            if ((rc = get_output(m, k, &y_sub[k]))) return rc;
        if (res) res->n_sub_done = 1;
    }
    return PORT_OK;
}

static int get_outputs(void *ctx, double *y)
{
    fmufed_model *m = ctx;
    for (size_t k = 0; k < m->n_out; k++) {
        int rc = get_output(m, k, &y[k]);
        if (rc) return rc;
    }
    return PORT_OK;
}

static int get_output_derivs(void *ctx, int order, double *dy)
{
    fmufed_model *m = ctx;
    if (order < 1 || order > m->max_deriv)
        return fail(m, PORT_EUNSUPPORTED, "no output derivatives of order %d", order);
    for (size_t k = 0; k < m->n_out; k++)
        if (m->disc[m->n_in + k]) /* piecewise constant */
            dy[k] = 0;
        else if (fmu_step_get_output_derivs(m->fmu, 1, &m->vr_out[k], order, &dy[k]) != FMU_STEP_OK)
            return fail(m, PORT_EFAIL, "derivative of output \"%s\": %s", m->fd->outputs[k].var,
                        fmu_step_errmsg(m->fmu));
    return PORT_OK;
}

static int record(void *ctx)
{
    fmufed_model *m = ctx;
    return fmufed_model_record_at(m, m->T);
}

/* Column k's String value, copied (the FMU's pointer lasts until its next call). */
static int read_text(fmufed_model *m, size_t k)
{
    const char *v;
    if (fmu_step_get_string(m->fmu, m->rec_names[k], &v) != FMU_STEP_OK)
        return fail(m, PORT_EFAIL, "reading recorded variable \"%s\": %s", m->rec_names[k],
                    fmu_step_errmsg(m->fmu));
    size_t n = strlen(v) + 1;
    char *c = realloc(m->rec_copy[k], n);
    if (!c) return fail(m, PORT_ENOMEM, "out of memory");
    memcpy(c, v, n);
    m->rec_copy[k] = c;
    m->rec_text[k] = c;
    m->rec[k] = NAN;
    return PORT_OK;
}

/* The output interval (fedfile.h record_steps, record_dt; doc/federation.md "Recording less"):
 * 1 when the row asked for at t is written. The row at the end always is. Decided before any
 * variable is read, so a row left out costs no FMU call. */
static int row_due(fmufed_model *m, int64_t t)
{
    const fedfile *ff = m->ff;
    int64_t k = m->rows_seen++;
    if (t >= ff->algo.t_end) return 1;
    if (ff->record_steps > 1) return k % ff->record_steps == 0;
    if (ff->record_dt > 0) {
        if (t < m->row_next) return 0;
        int64_t span = t > ff->algo.t_start ? t - ff->algo.t_start : 0;
        m->row_next = port_tick_add(t - span % ff->record_dt, ff->record_dt);
    }
    return 1;
}

int fmufed_model_record_at(fmufed_model *m, int64_t t)
{
    if (!m->row || !row_due(m, t)) return PORT_OK;
    for (size_t k = 0; k < m->n_rec; k++) {
        if (m->rec_text && m->rec_copy[k]) {
            int rc = read_text(m, k);
            if (rc) return rc;
        } else if (fmu_step_get_by_name(m->fmu, m->rec_names[k], &m->rec[k]) != FMU_STEP_OK) {
            return fail(m, PORT_EFAIL, "reading recorded variable \"%s\": %s", m->rec_names[k],
                        fmu_step_errmsg(m->fmu));
        }
    }
    char e[FMUFED_ERRLEN];
    int rc = m->row(m->row_ctx, t, port_seconds(m->tick, t), m->rec, m->rec_text, e, sizeof e);
    if (rc != PORT_OK) return fail(m, rc, "%s", e);
    return PORT_OK;
}

static int collect(void *ctx)
{
    fmufed_model *m = ctx;
    int rc = m->status;
    m->status = PORT_OK;
    return rc;
}

/* What a peer's FMU does not offer through this adapter (the master-slave operations). */
static int no_discrete(void *ctx, port_discrete *d)
{
    return PORT_EUNSUPPORTED;
}
static int no_set_discrete(void *ctx, size_t n, const port_discrete *d)
{
    return PORT_EUNSUPPORTED;
}
static int no_states(void *ctx, double *x)
{
    return PORT_EUNSUPPORTED;
}
static int no_set_states(void *ctx, int64_t t, const double *x)
{
    return PORT_EUNSUPPORTED;
}
static int no_directional(void *ctx, const double *du, double *dy)
{
    return PORT_EUNSUPPORTED;
}
static int no_slot(void *ctx, int slot)
{
    return PORT_EUNSUPPORTED;
}

static const port_slave_ops model_ops = {
    .version = PORT_OPS_VERSION,

    .set_inputs = set_inputs,
    .step = step,
    .get_outputs = get_outputs,
    .get_output_derivs = get_output_derivs,
    .get_discrete = no_discrete,
    .set_discrete = no_set_discrete,
    .get_states = no_states,
    .set_states = no_set_states,
    .get_derivatives = no_states,
    .get_directional = no_directional,
    .save = no_slot,
    .restore = no_slot,
    .record = record,
    .collect = collect,
};

/* ---- set-up ---------------------------------------------------------------------------- */

/* Open the FMU with the file's parameters and solver settings and check it fits the file. */
static int open_fmu(fmufed_model *m)
{
    const fedfile_fed *fd = m->fd;
    if (!fd->fmu)
        return fail(m, PORT_EUSAGE,
                    "federate %s is a program (%s), not an FMU: tempo-run starts it itself",
                    fd->name, fd->program);
    size_t np = fd->n_params;
    const char **names = calloc(np + 1, sizeof *names);
    char **vals = calloc(np + 1, sizeof *vals);
    int rc = PORT_OK;
    if (!names || !vals) {
        rc = fail(m, PORT_ENOMEM, "out of memory");
        goto out;
    }
    for (size_t k = 0; k < np; k++) {
        const fedfile_param *p = &fd->params[k];
        char buf[64];
        const char *s = buf;
        switch (p->kind) {
        case FEDFILE_REAL:
            snprintf(buf, sizeof buf, "%.17g", p->real);
            break;
        case FEDFILE_INTEGER:
            snprintf(buf, sizeof buf, "%lld", p->integer);
            break;
        case FEDFILE_BOOLEAN:
            s = p->integer ? "true" : "false";
            break;
        default:
            s = p->string ? p->string : "";
            break;
        }
        names[k] = p->name;
        if (!(vals[k] = strdup(s))) {
            rc = fail(m, PORT_ENOMEM, "out of memory");
            goto out;
        }
    }
    fmu_step_opts o = {0};
    o.rtol = fd->solver.rtol;
    o.atol = fd->solver.atol;
    o.solver = fd->solver.method == FEDFILE_METHOD_ADAMS ? FMU_SOLVER_ADAMS : FMU_SOLVER_BDF;
    o.max_step = fd->solver.max_step;
    o.has_start = 1;
    /* Start and stop from the ticks, as every later time (doc/fmu.md): the file's seconds may
     * differ from them by the rounding fedfile_load tolerates. */
    o.start_time = port_seconds(m->tick, m->ff->algo.t_start);
    o.has_stop = !fedfile_is_master(m->ff) || fedfile_master_horizon(m->ff) == m->ff->algo.t_end;
    o.stop_time = port_seconds(m->tick, m->ff->algo.t_end);
    o.n_params = np;
    o.param_names = names;
    o.param_values = (const char *const *)vals;
    o.instance_name = fd->name;
    /* strong: the master integrates and the slave only evaluates its model (model exchange). */
    int strong = (m->ff->algo.needs & FEDFILE_NEEDS_ME_STATES) != 0;
    /* The hybrid method stops CS steps at events: an FMI 3.0 FMU must allow early return, and
     * one with event mode has its events handled there (doc/fmu.md "FMI 3.0"). */
    o.early_return = o.event_mode = (m->ff->algo.needs & FEDFILE_NEEDS_EVENT_STOPS) != 0;
    /* Waveform relaxation reads outputs inside a step: intermediate updates where they serve
     * (fmu_slave.c, doc/fmu.md "FMI 3.0"). */
    o.intermediate_update = (m->ff->algo.needs & FEDFILE_NEEDS_SUB_OUTPUTS) != 0;
    if (strong) o.kind = FMU_KIND_ME;
    char e[FMUFED_ERRLEN];
    if (fmu_step_open(fd->fmu, &o, &m->fmu, e, sizeof e) != FMU_STEP_OK) {
        /* fmu_step_open's messages name the FMU file already, but for a bad option */
        size_t pl = strlen(fd->fmu);
        int named = !strncmp(e, fd->fmu, pl) && e[pl] == ':';
        rc =
            fail(m, PORT_EFAIL, "%s%s%s%s", named ? "" : fd->fmu, named ? "" : ": ", e,
                 strong ? " (method \"strong\" evaluates the model: it needs model exchange)" : "");
        goto out;
    }
    size_t idx = (size_t)(fd - m->ff->feds);
    /* The file against the FMU (variables, types, then values: min/max, subnormals), before
     * the first step; tempo-run did the same before it started anything (doc/run.md). */
    if (fedfile_check_fmu(m->ff, idx, fmu_step_md(m->fmu), e, sizeof e) != FEDFILE_OK ||
        run_check_params(m->ff, idx, fmu_step_md(m->fmu), e, sizeof e) != 0)
        rc = fail(m, PORT_EFAIL, "%s", e);
out:
    for (size_t k = 0; vals && k < np; k++)
        free(vals[k]);
    free(vals);
    free(names);
    return rc;
}

/* The value reference of a wired variable; *disc 1 for an Integer, Boolean or Enumeration
 * one (its start from start_int). */
static int var_vr(fmufed_model *m, const char *var, fmi2ValueReference *vr, double *start,
                  unsigned char *disc)
{
    const fmu_md *md = fmu_step_md(m->fmu);
    long k = fmu_md_find(md, var);
    if (k < 0) return fail(m, PORT_EFAIL, "the FMU has no variable \"%s\"", var);
    const fmu_var *v = &md->vars[k];
    if (fmu_md_wire_vr(md, k, vr))
        return fail(m, PORT_EFAIL,
                    "array element \"%s\": the FMU leaves no room for element handles", var);
    *disc = fedfile_type_discrete(v->type) ? VK_WHOLE
            : v->type == FMU_T_FLOAT32     ? VK_FLOAT32
                                           : VK_REAL;
    double d = 0;
    char *end = NULL;
    if (start && *disc && v->start_str && (d = strtod(v->start_str, &end), end != v->start_str))
        *start = d; /* FMI 3.0 keeps every start as text */
    else if (start)
        *start = !v->has_start ? 0.0 : *disc == VK_WHOLE ? (double)v->start_int : v->start_real;
    return PORT_OK;
}

int fmufed_model_open(const fedfile *ff, size_t idx, char *err, size_t errlen, fmufed_model **out)
{
    *out = NULL;
    fmufed_model *m = calloc(1, sizeof *m);
    if (!m) {
        if (err && errlen) snprintf(err, errlen, "federate %s: out of memory", ff->feds[idx].name);
        return PORT_ENOMEM;
    }
    m->ff = ff;
    m->fd = &ff->feds[idx];
    m->tick = ff->resolution;
    m->T = ff->algo.t_start;
    m->row_next = INT64_MIN;
    m->err = err;
    m->errlen = errlen;
    m->n_in = m->fd->n_inputs;
    m->n_out = m->fd->n_outputs;
    int rc = open_fmu(m);
    if (rc) goto fail;
    m->vr_in = calloc(m->n_in + 1, sizeof *m->vr_in);
    m->vr_out = calloc(m->n_out + 1, sizeof *m->vr_out);
    m->u0 = calloc(m->n_in + 1, sizeof *m->u0);
    m->pu = calloc(m->n_in + 1, sizeof *m->pu);
    m->pdu = calloc((m->n_in + 1) * PORT_MAX_ORDER, sizeof *m->pdu);
    m->disc = calloc(m->n_in + m->n_out + 1, 1);
    m->vr_pin = calloc(m->n_in + 1, sizeof *m->vr_pin);
    if (!m->vr_in || !m->vr_out || !m->u0 || !m->pu || !m->pdu || !m->disc || !m->vr_pin) {
        rc = fail(m, PORT_ENOMEM, "out of memory");
        goto fail;
    }
    for (size_t i = 0; i < m->n_in; i++) {
        const fedfile_wire *in = &m->fd->inputs[i];
        if ((rc = var_vr(m, in->var, &m->vr_in[i], &m->u0[i], &m->disc[i]))) goto fail;
        /* u0 is on the sender's side of the transformation: set_inputs maps it back to the
         * start value (to rounding) until a value arrives */
        if (in->transformed) m->u0[i] = (m->u0[i] - in->offset) / in->factor;
    }
    m->max_deriv = m->n_out ? PORT_MAX_ORDER : 0;
    for (size_t k = 0; k < m->n_out; k++) {
        if ((rc = var_vr(m, m->fd->outputs[k].var, &m->vr_out[k], NULL, &m->disc[m->n_in + k])))
            goto fail;
        if (m->disc[m->n_in + k]) continue; /* derivatives 0, of any order */
        int d = fmu_step_deriv_order(m->fmu, m->vr_out[k]);
        if (d < m->max_deriv) m->max_deriv = d < 0 ? 0 : d;
    }
    /* Recorded: the "record" list, else the outputs. */
    m->n_rec = m->fd->n_record; /* the outputs when the file names none; [] records nothing */
    m->rec_names = calloc(m->n_rec + 1, sizeof *m->rec_names);
    m->rec = calloc(m->n_rec + 1, sizeof *m->rec);
    if (!m->rec_names || !m->rec) {
        rc = fail(m, PORT_ENOMEM, "out of memory");
        goto fail;
    }
    for (size_t k = 0; k < m->n_rec; k++)
        m->rec_names[k] = m->fd->record[k];
    /* Every type is recorded: numbers as doubles (Integer, Enumeration, Boolean 0/1 are exact),
     * Strings as quoted text; rec_copy[k] starts as "" for a String column. */
    const fmu_md *md = fmu_step_md(m->fmu);
    for (size_t k = 0; k < m->n_rec; k++) {
        long v = fmu_md_find(md, m->rec_names[k]);
        if (v < 0 || md->vars[v].type != FMU_T_STRING) continue;
        if (!m->rec_text) {
            m->rec_copy = calloc(m->n_rec, sizeof *m->rec_copy);
            m->rec_text = calloc(m->n_rec, sizeof *m->rec_text);
            if (!m->rec_copy || !m->rec_text) {
                rc = fail(m, PORT_ENOMEM, "out of memory");
                goto fail;
            }
        }
        if (!(m->rec_copy[k] = calloc(1, 1))) {
            rc = fail(m, PORT_ENOMEM, "out of memory");
            goto fail;
        }
    }
    m->status = PORT_OK;
    *out = m;
    return PORT_OK;
fail:
    fmufed_model_close(m);
    return rc;
}

void fmufed_model_close(fmufed_model *m)
{
    if (!m) return;
    fmu_step_close(m->fmu);
    free(m->vr_in);
    free(m->vr_out);
    free(m->u0);
    free(m->disc);
    free(m->vr_pin);
    free(m->pu);
    free(m->pdu);
    for (size_t k = 0; m->rec_copy && k < m->n_rec; k++)
        free(m->rec_copy[k]);
    free(m->rec_copy);
    free(m->rec_text);
    free(m->rec_names);
    free(m->rec);
    free(m);
}

port_slave fmufed_model_slave(fmufed_model *m)
{
    port_slave s = {.ops = &model_ops, .ctx = m};
    s.info = (port_slave_info){.name = m->fd->name,
                               .n_in = m->n_in,
                               .n_out = m->n_out,
                               .max_output_deriv = m->max_deriv,
                               .is_me = fmu_step_kind(m->fmu) == FMU_KIND_ME};
    return s;
}

const double *fmufed_model_u0(const fmufed_model *m)
{
    return m->u0;
}

void fmufed_model_set_rows(fmufed_model *m, fmufed_row_fn row, void *ctx)
{
    m->row = row;
    m->row_ctx = ctx;
}

const char *const *fmufed_model_rec_names(const fmufed_model *m, size_t *n_rec)
{
    *n_rec = m->n_rec;
    return m->rec_names;
}

struct fmu_step *fmufed_model_fmu(fmufed_model *m)
{
    return m->fmu;
}

/* ---- checkpoints (doc/checkpoint.md, "tempo-fmu's part") ------------------------------- */

int fmufed_model_can_save(const fmufed_model *m)
{
    return fmu_step_can_serialize(m->fmu);
}

/* Layout: i64 T (ticks), i64 rows seen and i64 next row due (the output interval's place,
 * so that a resumed run keeps the rows an uninterrupted one keeps), u8 pending polynomial, and when
 * 1: u8 order, n_in x (f64 value, order x f64 derivative); then the FMU's bytes (u32 count +
 * fmu_step_serialize). */
int fmufed_model_save(fmufed_model *m, pstate_buf *b)
{
    if (!fmu_step_can_serialize(m->fmu))
        return fail(m, PORT_EUNSUPPORTED,
                    "the FMU %s cannot save its state (canGetAndSetFMUstate and "
                    "canSerializeFMUstate are needed)",
                    m->fd->fmu);
    pstate_put_i64(b, m->T);
    pstate_put_i64(b, m->rows_seen);
    pstate_put_i64(b, m->row_next);
    pstate_put_u8(b, (uint8_t)m->has_poly);
    if (m->has_poly) {
        pstate_put_u8(b, (uint8_t)m->poly.order);
        for (size_t i = 0; i < m->n_in; i++) {
            pstate_put_f64(b, m->pu[i]);
            for (int k = 0; k < m->poly.order; k++)
                pstate_put_f64(b, m->pdu[i * (size_t)m->poly.order + (size_t)k]);
        }
    }
    unsigned char *bytes = NULL;
    size_t n = 0;
    int rc = fmu_step_serialize(m->fmu, &bytes, &n);
    if (rc != FMU_STEP_OK)
        return fail(m, PORT_EFAIL, "saving the FMU's state at %.9g s: %s",
                    port_seconds(m->tick, m->T), fmu_step_errmsg(m->fmu));
    pstate_put_bytes(b, bytes, n);
    free(bytes);
    return b->bad ? fail(m, PORT_ENOMEM, "out of memory") : PORT_OK;
}

int fmufed_model_restore(fmufed_model *m, pstate_rd *d)
{
    int64_t T = pstate_get_i64(d);
    int64_t rows_seen = pstate_get_i64(d), row_next = pstate_get_i64(d);
    int has_poly = pstate_get_u8(d), order = 0;
    if (has_poly) {
        order = pstate_get_u8(d);
        if (order < 1 || order > PORT_MAX_ORDER)
            return fail(m, PORT_EUSAGE, "resuming: input polynomial of order %d", order);
        for (size_t i = 0; i < m->n_in; i++) {
            m->pu[i] = pstate_get_f64(d);
            for (int k = 0; k < order; k++)
                m->pdu[i * (size_t)order + (size_t)k] = pstate_get_f64(d);
        }
    }
    size_t n = 0;
    const unsigned char *bytes = pstate_get_bytes(d, &n);
    if (d->bad || has_poly > 1)
        return fail(m, PORT_EUSAGE, "resuming: the model's state is truncated or damaged");
    if (T < m->ff->algo.t_start || T > m->ff->algo.t_end)
        return fail(m, PORT_EUSAGE, "resuming: the model's time %.9g s is outside the run",
                    port_seconds(m->tick, T));
    if (rows_seen < 0)
        return fail(m, PORT_EUSAGE, "resuming: the model's state is truncated or damaged");
    if (fmu_step_deserialize(m->fmu, bytes, n) != FMU_STEP_OK)
        return fail(m, PORT_EUSAGE, "resuming: %s", fmu_step_errmsg(m->fmu));
    m->T = T;
    m->rows_seen = rows_seen;
    m->row_next = row_next;
    m->has_poly = has_poly;
    if (has_poly)
        m->poly =
            (fmu_inputs){.n = m->n_in, .vr = m->vr_in, .u = m->pu, .order = order, .du = m->pdu};
    return PORT_OK;
}

int fmufed_model_mark(fmufed_model *m)
{
    if (fmu_step_kind(m->fmu) != FMU_KIND_ME) return PORT_OK;
    fmu_step_state *st = NULL;
    if (fmu_step_save(m->fmu, &st) != FMU_STEP_OK)
        return fail(m, PORT_EFAIL, "restarting the integrator at %.9g s: %s",
                    port_seconds(m->tick, m->T), fmu_step_errmsg(m->fmu));
    fmu_step_state_free(m->fmu, st);
    return PORT_OK;
}

void fmufed_model_rows_save(const fmufed_model *m, pstate_buf *b)
{
    pstate_put_i64(b, m->rows_seen);
    pstate_put_i64(b, m->row_next);
}

int fmufed_model_rows_restore(fmufed_model *m, pstate_rd *d)
{
    int64_t rows_seen = pstate_get_i64(d), row_next = pstate_get_i64(d);
    if (d->bad || rows_seen < 0)
        return fail(m, PORT_EUSAGE,
                    "resuming: the output interval's place is truncated or damaged");
    m->rows_seen = rows_seen;
    m->row_next = row_next;
    return PORT_OK;
}

/* ---- a model in Python ---------------------------------------------------------------- */

/* The program beside this executable (bin/tempo-fmu -> bin/tempo-slave), else its bare name,
 * which the spawn looks up on PATH. */
static void sibling(const char *prog, char *out, size_t cap)
{
    char self[4096];
    ssize_t n = readlink("/proc/self/exe", self, sizeof self - 1);
    char *slash = n > 0 ? (self[n] = '\0', strrchr(self, '/')) : NULL;
    if (slash && (size_t)(slash - self) + strlen(prog) + 2 <= cap) {
        snprintf(out, cap, "%.*s/%s", (int)(slash - self), self, prog);
        if (access(out, X_OK) == 0) return;
    }
    snprintf(out, cap, "%s", prog);
}

/* A row the child recorded: no values here (its CSV is its own), the final time and the
 * progress report follow it (a record without a file, fmufed_rec.none). */
static int python_row(void *ctx, int64_t t, double seconds)
{
    char e[FMUFED_ERRLEN];
    return fmufed_rec_row(ctx, t, seconds, NULL, NULL, e, sizeof e) == PORT_OK ? 0 : -1;
}

int fmufed_python_child(const fedfile *ff, size_t idx, const char *output, struct fmufed_rec *rec,
                        struct msproto_child **out, port_slave *ps, char *err, size_t errlen)
{
    const fedfile_fed *fd = &ff->feds[idx];
    const char *dir = output ? output : ff->output;
    const char *const *extra;
    char prog[4096];
    sibling(FEDFILE_PYTHON_RUNNER, prog, sizeof prog);
    char *argv[] = {prog,     "--federation", (char *)ff->path, "--name", (char *)fd->name,
                    "--pipe", "--output",     (char *)dir,      NULL};
    msproto_child_opts co = {.name = fd->name,
                             .argv = argv,
                             .t_start = ff->algo.t_start,
                             /* energy's power inputs follow the wired ones (the child
                                gives them to the model by name, python/tempo/slave.py) */
                             .n_in = fd->n_inputs + fedfile_balance_extra_inputs(ff, idx, &extra),
                             .n_out = fd->n_outputs,
                             .tick = ff->resolution,
                             .on_record = rec ? python_row : NULL,
                             .on_record_ctx = rec};
    int rc = msproto_child_new(&co, out, ps, err, errlen);
    if (rc == PORT_OK && rec && rec->st)
        snprintf(rec->st->csv, sizeof rec->st->csv, "%s/%s.csv", dir, fd->name);
    return rc;
}
