/* Co-simulation stepping: inputs (and their derivatives when the FMU interpolates), fmi2DoStep,
 * and the mapping of fmi2Discard/fmi2Error to recoverable/unrecoverable step codes.
 * Serves doc/fmu.md. Read next: federate/fmu/fmu_me.c (the model-exchange counterpart). */
#include "federate/fmu/fmu_step_impl.h"

#include <stdio.h>
#include <stdlib.h>

/* Inputs at the step start; derivatives only when the FMU can interpolate them. */
static int set_inputs(fmu_step *s, const fmu_inputs *in)
{
    if (!in || !in->n) return 0;
    fmu_fns *fn = &s->f->fn;
    int rc = fmu_step_check(s, fn->SetReal(s->c, in->vr, in->n, in->u), "fmi2SetReal(inputs)");
    if (rc || !in->order || !s->f->caps->can_interpolate_inputs) return rc;
    fmi2Integer *ord = malloc(in->n * sizeof *ord);
    double *val = malloc(in->n * sizeof *val);
    if (!ord || !val) {
        free(ord), free(val);
        return fmu_step_fail(s, FMU_STEP_ESYS, "out of memory");
    }
    for (int k = 1; !rc && k <= in->order; k++) {
        for (size_t i = 0; i < in->n; i++) {
            ord[i] = k;
            val[i] = in->du[i * (size_t)in->order + (size_t)(k - 1)];
        }
        /* FMI 2.0 declares no highest input-derivative order, so a refusal of order k > 1 says
         * what the method handed over and how to hand over less (doc/fmu.md §4). */
        char what[160];
        if (k == 1)
            snprintf(what, sizeof what, "fmi2SetRealInputDerivatives");
        else
            snprintf(what, sizeof what,
                     "fmi2SetRealInputDerivatives of order %d (the method hands it input "
                     "polynomials of degree %d; FMI 2.0 declares no highest order an FMU takes)",
                     k, in->order);
        rc = fmu_step_check(s, fn->SetRealInputDerivatives(s->c, in->vr, in->n, ord, val), what);
    }
    free(ord);
    free(val);
    return rc;
}

int fmu_cs_set_inputs(fmu_step *s, const fmu_inputs *in)
{
    int rc = set_inputs(s, in);
    return rc == FMU_STEP_EDISCARD ? FMU_STEP_EUSAGE : rc;
}

int fmu_cs_step(fmu_step *s, double t_end, const fmu_inputs *in, double *t_reached)
{
    fmu_fns *fn = &s->f->fn;
    /* The step size is the difference of two grid points, never a running sum: for
     * t_end <= 2 t it is exact (Sterbenz), so an FMU that adds it to the communication point
     * finds t_end again, and the time taken afterwards is t_end itself (doc/fmu.md). */
    double h = t_end - s->t;
    int rc = fmu_cs_set_inputs(s, in); /* a refused input value is a usage error */
    if (rc) return rc;
    /* We promise not to go back only when we could not anyway. */
    fmi2Boolean no_back = s->f->caps->can_get_and_set_fmu_state ? fmi2False : fmi2True;
    fmi2Status st = fn->DoStep(s->c, s->t, h, no_back);
    if (st == fmi2OK || st == fmi2Warning) {
        s->t = t_end;
        *t_reached = s->t;
        return FMU_STEP_OK;
    }
    if (st == fmi2Pending) {
        s->broken = 1;
        return fmu_step_fail(s, FMU_STEP_EFMU,
                             "%s: fmi2DoStep returned fmi2Pending "
                             "(asynchronous stepping is not supported)",
                             s->md->model_name);
    }
    rc = fmu_step_check(s, st, "fmi2DoStep");
    if (rc != FMU_STEP_EDISCARD) return rc;
    /* Discard: either the slave wants to stop (terminateSimulation) or it refused the step. */
    fmi2Boolean term = fmi2False;
    fmi2Real last = s->t;
    if (fn->GetBooleanStatus && fn->GetBooleanStatus(s->c, fmi2Terminated, &term) > fmi2Warning)
        term = fmi2False;
    if (fn->GetRealStatus && fn->GetRealStatus(s->c, fmi2LastSuccessfulTime, &last) > fmi2Warning)
        last = s->t;
    *t_reached = last;
    if (term) {
        s->terminated = 1;
        s->t = last;
        fmu_step_fail(s, FMU_STEP_TERMINATED, "%s: the model terminated the simulation at t=%.17g",
                      s->md->model_name, last);
        return FMU_STEP_TERMINATED;
    }
    /* Event stop (fmu_step_set_event_stop): a discard that reached a point inside the step is
     * read as FMI 3's early return, the FMU at its event, handled; the next step goes on from
     * there. FMI 2.0 would have the host restore a state: only FMUs that document the early
     * return may be run this way (the hybrid method's slaves). */
    if (s->event_stop && last > s->t && last < t_end) {
        s->t = last;
        return FMU_STEP_EVENT;
    }
    s->need_restore = 1;
    return FMU_STEP_EDISCARD;
}
