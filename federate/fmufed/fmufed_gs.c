/* Gauss-Seidel (the Awais thesis §4.3, Algorithm 1): the source integrates on ⟨Step Forward⟩ with
 * the sink's previous outputs; commons and the sink poll with FQR until they hold one update of the
 * step from every input, integrate with those newest values, publish; the sink then sends the
 * StepForward interaction, stamped with the step's time, to the source. The topology was checked by
 * fedfile_load (algorithms/topology.h) before anything started. Serves doc/time.md, §8;
 * doc/algorithms/gauss-seidel.md ("How tempo-fmu runs it").
 */
#include <time.h>
#include <unistd.h>

#include "federate/fmufed/fmufed_impl.h"

static long elapsed_ms(const struct timespec *t0)
{
    struct timespec now;
    clock_gettime(CLOCK_MONOTONIC, &now);
    return (now.tv_sec - t0->tv_sec) * 1000 + (now.tv_nsec - t0->tv_nsec) / 1000000;
}

/* Whether everything this federate needs for the step ending at tn has arrived: every input
 * stamped tn (and, at the source, the StepForward token stamped tn). A stamp beyond tn would
 * mean the token was passed twice: refused (topology.h rules this out). */
static int ready(fmufed_ctx *c, tp_time tn, int source, int *bad)
{
    int ok = 1;
    for (size_t i = 0; i < c->n_in; i++) {
        tp_time t = c->in[i].next_t;
        if (t != TP_NO_TIME && t > tn) *bad = (int)i + 1;
        if (t == TP_NO_TIME || t < tn) ok = 0;
    }
    if (source && (c->step_fwd_t == TP_NO_TIME || c->step_fwd_t < tn)) ok = 0;
    return ok;
}

/* Algorithm 1 lines 12/19, 39/46: FQR until ready. FQR never waits, so the loop sleeps between
 * polls (50 µs doubling to 2 ms) rather than spin; its cost is counted in stats.requests.
 * Under FQR the logical time stays where it is (doc/time.md): time stamps carry the step. */
static int poll_until_ready(fmufed_ctx *c, tp_time tn, int source)
{
    struct timespec t0;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    useconds_t nap = 50;
    for (;;) {
        tp_time keep = c->T;
        int rc = fmufed_request(c, TP_REQ_FQR, tn, NULL);
        if (rc) return rc;
        if (c->T > keep) c->T = keep; /* the step position is ours, not the grant's */
        int bad = 0;
        int ok = ready(c, tn, source, &bad);
        if (bad)
            return fmufed_fail(c, FMUFED_ERTI,
                               "input \"%s\" received a value stamped %.9g s while waiting for "
                               "step %.9g s (token passed twice)",
                               c->in[bad - 1].w->var, c->in[bad - 1].next_t * c->res, tn * c->res);
        if (ok) return FMUFED_OK;
        if (c->run_timeout_ms >= 0 && elapsed_ms(&t0) > c->run_timeout_ms)
            return fmufed_fail(c, FMUFED_ERTI, "no %s for step %.9g s within %d ms",
                               source ? "StepForward" : "updates of every input", tn * c->res,
                               c->run_timeout_ms);
        usleep(nap);
        if (nap < 2000) nap *= 2;
    }
}

int fmufed_gs_run(fmufed_ctx *c)
{
    const fedfile_algo *a = &c->ff->algo;
    topo_role role = c->ff->gs_plan->role[c->idx];
    int source = role == TOPO_ROLE_SOURCE;
    int rc = fmufed_exchange_start(c);
    /* Position in the run; kept apart from the logical time, which FQR does not advance. */
    tp_time pos = c->T;
    while (!rc && pos < a->t_end) {
        tp_time tn = pos + a->t_step < a->t_end ? pos + a->t_step : a->t_end;
        if (source) {
            /* Inputs: the sink's values at pos, applied when the token for pos came. */
            c->T = pos;
            if ((rc = fmufed_integrate(c, tn)) || (rc = fmufed_publish(c, tn))) break;
            c->st->steps++;
            /* Wait for the token of step tn and the sink's outputs at tn (at the end only
             * the outputs: no token follows the last step, but the record shows them). */
            if ((rc = poll_until_ready(c, tn, tn < a->t_end))) break;
            if ((rc = fmufed_apply_inputs(c, 0))) break;
        } else {
            if ((rc = poll_until_ready(c, tn, 0))) break;
            if ((rc = fmufed_apply_inputs(c, 0))) break;
            c->T = pos;
            if ((rc = fmufed_integrate(c, tn)) || (rc = fmufed_publish(c, tn))) break;
            c->st->steps++;
            if (role == TOPO_ROLE_SINK && tn < a->t_end) {
                int sr = tp_send_interaction(c->tp, c->step_ic, NULL, 0, tn);
                if (sr != TP_OK) {
                    rc = fmufed_fail(c, FMUFED_ERTI, "StepForward at %.9g s: %s: %s", tn * c->res,
                                     tp_strerror(sr), tp_last_error(c->tp));
                    break;
                }
            }
        }
        pos = tn;
        rc = fmufed_record(c, tn);
    }
    tp_query_logical_time(c->tp, &c->T);
    return rc;
}
