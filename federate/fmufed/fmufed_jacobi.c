/* Jacobi with a fixed macro step (the Awais thesis §4.2.1): the naive TAR loop with lookahead L > 0
 * (Fig. 4.4, the one-step cause->effect lag) and the improved TARA/TAR loop at lookahead 0
 * (Fig. 4.9). Serves doc/time.md, §8; doc/algorithms/jacobi.md ("How tempo-fmu runs it").
 * Read fmufed_de.c next (the same loop with predicted steps).
 */
#include "federate/fmufed/fmufed_impl.h"

/* Initial exchange at lookahead 0: everyone sends y(T0) stamped T0 (legal right after
 * enabling regulation: the bound is T0, non-strict), then TAR(T0) closes the instant, so that
 * every federate starts with its inputs at T0. Shared with jacobi-de and gauss-seidel. */
int fmufed_exchange_start(fmufed_ctx *c)
{
    int rc = fmufed_publish(c, c->T);
    if (!rc) rc = fmufed_request(c, TP_REQ_TAR, c->T, NULL);
    if (!rc) rc = fmufed_apply_inputs(c, 0);
    if (!rc) rc = fmufed_record(c, c->T);
    return rc;
}

int fmufed_jacobi_run(fmufed_ctx *c, int naive)
{
    const fedfile_algo *a = &c->ff->algo;
    int rc;
    if (naive) {
        /* y(T0) can only be stamped T0 + L: the peers start from their inputs' start values. */
        if ((rc = fmufed_publish(c, c->T + c->lookahead)) || (rc = fmufed_record(c, c->T)))
            return rc;
    } else if ((rc = fmufed_exchange_start(c))) {
        return rc;
    }
    while (c->T < a->t_end) {
        tp_time tn = c->T + a->t_step < a->t_end ? c->T + a->t_step : a->t_end;
        if ((rc = fmufed_integrate(c, tn))) return rc;
        if (naive) {
            /* y(tn) is known now but may only be stamped tn + L: the peers see it at their
             * grant to tn + L, i.e. they integrate [tn, tn + H] with our y(tn - H). */
            if (tn < a->t_end && (rc = fmufed_publish(c, tn + c->lookahead))) return rc;
            tp_time g;
            if ((rc = fmufed_request(c, TP_REQ_TAR, tn, &g))) return rc;
            if (g != tn)
                return fmufed_fail(c, FMUFED_ERTI, "TAR(%.9g s) granted %.9g s", tn * c->res,
                                   g * c->res);
            if ((rc = fmufed_apply_inputs(c, c->lookahead))) return rc;
        } else {
            tp_time g;
            if ((rc = fmufed_request(c, TP_REQ_TARA, tn, &g))) return rc;
            if (g != tn)
                return fmufed_fail(c, FMUFED_ERTI, "TARA(%.9g s) granted %.9g s", tn * c->res,
                                   g * c->res);
            if ((rc = fmufed_publish(c, tn))) return rc;
            if ((rc = fmufed_request(c, TP_REQ_TAR, tn, &g))) return rc;
            if ((rc = fmufed_apply_inputs(c, 0))) return rc;
        }
        c->st->steps++;
        if ((rc = fmufed_record(c, tn))) return rc;
    }
    return FMUFED_OK;
}
