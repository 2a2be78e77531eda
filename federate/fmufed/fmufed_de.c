/* Jacobi with discrete-event steps (the Awais thesis §4.2.2): each federate predicts its next event
 * by quantization (eq. 4.5 restored, algorithms/quantize.h), asks NERA(t_pred), integrates to the
 * grant, publishes, and closes the instant with NER; the federation advances to the smallest
 * prediction. Serves doc/time.md, §8; doc/algorithms/jacobi-de.md ("How tempo-fmu runs it").
 * Read fmufed_gs.c next.
 */
#include <math.h>

#include "algorithms/quantize.h"
#include "federate/fmufed/fmufed_impl.h"

/* Remember y(t) of every output for the secant of eq. 4.5. */
static int push_outputs(fmufed_ctx *c, tp_time t)
{
    for (size_t k = 0; k < c->n_out; k++) {
        fmufed_out *o = &c->out[k];
        if (o->n_hist > 0 && t <= o->t_last) continue; /* same instant: nothing new */
        double v;
        if (fmu_step_get_real(c->fmu, 1, &o->vr, &v) != FMU_STEP_OK)
            return fmufed_fail(c, FMUFED_EFMU, "reading output \"%s\": %s", o->w->var,
                               fmu_step_errmsg(c->fmu));
        o->t_prev = o->t_last;
        o->v_prev = o->v_last;
        o->t_last = t;
        o->v_last = v;
        if (o->n_hist < 2) o->n_hist++;
    }
    return FMUFED_OK;
}

/* The predicted step (s): the smallest over the outputs. Two samples: the secant (the thesis);
 * one sample: the FMU's output derivative when it has one, else h_min (the cautious choice of
 * doc/algorithms/jacobi-de.md); no output: h_max. */
static int predict(fmufed_ctx *c, double *h_out)
{
    const fedfile_algo *a = &c->ff->algo;
    double h_best = a->h_max;
    for (size_t k = 0; k < c->n_out; k++) {
        fmufed_out *o = &c->out[k];
        quant_cfg q = {.q = o->q, .h_min = a->h_min, .h_max = a->h_max};
        double h = a->h_min;
        int rc;
        if (o->n_hist >= 2) {
            rc = quant_step_secant(&q, fmufed_seconds(c, o->t_prev), o->v_prev,
                                   fmufed_seconds(c, o->t_last), o->v_last, &h);
        } else if (fmu_step_deriv_order(c->fmu, o->vr) >= 1) {
            double d;
            if (fmu_step_get_output_derivs(c->fmu, 1, &o->vr, 1, &d) != FMU_STEP_OK)
                return fmufed_fail(c, FMUFED_EFMU, "derivative of output \"%s\": %s", o->w->var,
                                   fmu_step_errmsg(c->fmu));
            rc = quant_step_slope(&q, d, &h);
        } else {
            rc = QUANT_AT_MIN;
        }
        if (rc == QUANT_EINVAL)
            return fmufed_fail(c, FMUFED_EFMU,
                               "output \"%s\" is not finite (or its quantum %g is invalid) at "
                               "%.9g s",
                               o->w->var, o->q, c->T * c->res);
        if (h < h_best) h_best = h;
    }
    *h_out = h_best;
    return FMUFED_OK;
}

int fmufed_de_run(fmufed_ctx *c)
{
    const fedfile_algo *a = &c->ff->algo;
    int rc = fmufed_exchange_start(c);
    if (!rc) rc = push_outputs(c, c->T);
    while (!rc && c->T < a->t_end) {
        double h = 0;
        if ((rc = predict(c, &h))) break;
        tp_time t_pred = quant_next_time(c->T, h, c->res, a->t_end);
        tp_time T0 = c->T, tg;
        /* NERA: granted t_pred, or earlier when a peer's update (its own, smaller prediction)
         * arrives first; then this federate steps to that instant too (Fig. 4.8). */
        if ((rc = fmufed_request(c, TP_REQ_NERA, t_pred, &tg))) break;
        c->T = T0; /* the FMU is still at T0: integrate from there */
        if ((rc = fmufed_integrate(c, tg))) break;
        c->T = tg;
        if ((rc = fmufed_publish(c, tg))) break;
        tp_time g2;
        if ((rc = fmufed_request(c, TP_REQ_NER, tg, &g2))) break;
        if (g2 != tg) {
            rc =
                fmufed_fail(c, FMUFED_ERTI, "NER(%.9g s) granted %.9g s", tg * c->res, g2 * c->res);
            break;
        }
        if ((rc = fmufed_apply_inputs(c, 0)) || (rc = push_outputs(c, tg))) break;
        c->st->steps++;
        rc = fmufed_record(c, tg);
    }
    return rc;
}
