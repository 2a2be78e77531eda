/* Variables of other types than Real (Float64) behind the Real calls of the stepping interface:
 * an Integer, Boolean, Enumeration, FMI 3.0 sized integer or Float32 variable (a scalar or an
 * array element) reached through its handle (fmu_md_wire_vr) is read as a double and written
 * rounded to its type, so that a master method's slaves exchange them as the peer methods do
 * (doc/fmu.md §10, "Variables"). Serves doc/fmu.md. Read federate/fmu/fmu_step.c next. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "federate/fmu/fmu_step_impl.h"

long fmu_typed_index(const fmu_step *s, fmi2ValueReference vr)
{
    return fmu_md_typed_of_vr(s->md, vr);
}

int fmu_typed_any(const fmu_step *s, size_t n, const fmi2ValueReference vr[])
{
    for (size_t i = 0; s->md->elem_vr_base && i < n; i++)
        if (fmu_md_typed_of_vr(s->md, vr[i]) >= 0) return 1;
    return 0;
}

int fmu_typed_get(fmu_step *s, long k, double *out)
{
    return fmu_step_get_by_name(s, s->md->vars[k].name, out);
}

/* The value v as the text of variable var's type: a Float32 rounded to single precision, a
 * whole number to the nearest integer (exact to 2^53, as the doubles that carry it), a
 * Boolean true when that is not 0. */
static int as_text(fmu_step *s, const fmu_var *var, double v, char *text, size_t len)
{
    if (var->type == FMU_T_FLOAT32) return snprintf(text, len, "%.9g", (double)(float)v), 0;
    if (var->type == FMU_T_STRING || var->type == FMU_T_BINARY || var->type == FMU_T_CLOCK)
        return fmu_step_fail(s, FMU_STEP_EUSAGE, "variable \"%s\" (%s) does not take a number",
                             var->name, fmu_md_type_name_of(s->md, var->type));
    double r = nearbyint(v);
    if (!isfinite(r) || fabs(r) > 9007199254740992.0)
        return fmu_step_fail(s, FMU_STEP_EUSAGE, "variable \"%s\": %.17g is no integer within 2^53",
                             var->name, v);
    if (var->type == FMU_T_BOOLEAN) return snprintf(text, len, "%s", r != 0 ? "true" : "false"), 0;
    snprintf(text, len, "%.0f", r);
    return 0;
}

int fmu_typed_set(fmu_step *s, long k, double v)
{
    const fmu_var *var = &s->md->vars[k];
    char text[48], now[48];
    int rc = as_text(s, var, v, text, sizeof text);
    if (rc) return rc;
    /* An unchanged value is not set again: in model exchange a set discrete input is an input
     * event, and a set continuous one a restart of the integrator (doc/fmu.md §6). */
    double cur;
    if (s->initialized && fmu_typed_get(s, k, &cur) == 0 &&
        as_text(s, var, cur, now, sizeof now) == 0 && !strcmp(now, text))
        return 0;
    return fmu_step_set_text(s, var->name, text);
}

int fmu_typed_split_inputs(fmu_step *s, const fmu_inputs *in, fmu_inputs *rest)
{
    size_t w = (size_t)in->order;
    if (in->n > s->t_cap) {
        fmi2ValueReference *vr = realloc(s->t_vr, in->n * sizeof *vr);
        if (vr) s->t_vr = vr;
        double *u = realloc(s->t_u, in->n * sizeof *u);
        if (u) s->t_u = u;
        double *du = realloc(s->t_du, (in->n * 8 + 1) * sizeof *du);
        if (du) s->t_du = du;
        if (!vr || !u || !du) return fmu_step_fail(s, FMU_STEP_ESYS, "out of memory");
        s->t_cap = in->n;
    }
    *rest = (fmu_inputs){.vr = s->t_vr, .u = s->t_u, .order = in->order, .du = s->t_du};
    for (size_t i = 0; i < in->n; i++) {
        long k = fmu_md_typed_of_vr(s->md, in->vr[i]);
        if (k >= 0) { /* held at its value at the step's start */
            int rc = fmu_typed_set(s, k, in->u[i]);
            if (rc) return rc;
            continue;
        }
        s->t_vr[rest->n] = in->vr[i];
        s->t_u[rest->n] = in->u[i];
        for (size_t j = 0; j < w; j++)
            s->t_du[rest->n * w + j] = in->du[i * w + j];
        rest->n++;
    }
    return 0;
}
