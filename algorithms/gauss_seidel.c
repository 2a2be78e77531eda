/* Gauss-Seidel over the peer port (algorithms/exchange.h).
 * Paper: the Awais thesis §4.3, Algorithm 1 (doc/references.md (Awais)): the source integrates
 * on the StepForward token with the sink's previous outputs; commons and the sink poll with FQR
 * until they hold one update of the step from every input, integrate with those newest values
 * and publish; the sink then passes the token, stamped with the step's time, to the source.
 * Page: doc/algorithms/gauss-seidel.md. Symbols: H the macro step (ticks), t_n the step's end
 * (ticks). Choices where the thesis is silent: under FQR the logical time stays where it is
 * (doc/time.md), so the run's position is kept apart from it and stamps carry the step; a
 * stamp beyond t_n while waiting for t_n means the token was passed twice and is refused; no
 * token follows the last step. The roles were checked by algorithms/topology.h beforehand.
 */
#include "algorithms/peer_impl.h"

/* What the wait for step t_n decides after each flush: go on, wait more, or refuse. */
typedef enum gs_wait {
    GS_READY = 0, /* every input stamped t_n (and the token, when needed) is in */
    GS_WAIT,      /* something is missing */
    GS_TWICE,     /* an input stamped beyond t_n: the token was passed twice */
} gs_wait;

typedef struct gs_decision {
    gs_wait what;
    size_t input; /* GS_TWICE: the input at fault */
} gs_decision;

static gs_decision gs_decide(const peer_run *r, int64_t tn, int need_token)
{
    gs_decision d = {.what = GS_READY};
    for (size_t i = 0; i < r->n_in; i++) {
        int64_t t = r->in[i].t;
        if (t != PEER_NO_TIME && t > tn) return (gs_decision){.what = GS_TWICE, .input = i};
        if (t == PEER_NO_TIME || t < tn) d.what = GS_WAIT;
    }
    if (need_token) {
        int64_t tok = exchange_token_time(&r->p->x);
        if (tok == PEER_NO_TIME || tok < tn) d.what = GS_WAIT;
    }
    return d;
}

/* Algorithm 1 lines 12/19, 39/46: FQR until ready; between flushes the exchange idles. */
static int wait_ready(peer_run *r, int64_t tn, int need_token)
{
    for (int attempt = 0;; attempt++) {
        int rc = peer_request(r, PEER_FLUSH, tn, NULL);
        if (rc != PORT_OK) return rc;
        gs_decision d = gs_decide(r, tn, need_token);
        if (d.what == GS_READY) return PORT_OK;
        if (d.what == GS_TWICE)
            return peer_fail(r, PORT_ELOST,
                             "input \"%s\" received a value stamped %.9g s while waiting for "
                             "step %.9g s (token passed twice)",
                             r->p->in_names ? r->p->in_names[d.input] : "?",
                             r->in[d.input].t * r->p->tick, tn * r->p->tick);
        rc = exchange_idle(&r->p->x, attempt, tn,
                           need_token ? "StepForward" : "updates of every input");
        if (rc != PORT_OK) return rc;
    }
}

int gauss_seidel_run(peer *p, const gauss_seidel_settings *s)
{
    peer_run r;
    p->steps = 0;
    int rc = peer_run_init(&r, p);
    if (rc != PORT_OK) return rc;
    if (s->t_step <= 0 || s->role < GS_SOURCE || s->role > GS_SINK) {
        rc = peer_fail(&r, PORT_EUSAGE, "gauss-seidel: step %lld ticks or role %d invalid",
                       (long long)s->t_step, (int)s->role);
        goto out;
    }
    if ((rc = peer_open_start(&r)) || (rc = peer_exchange_start(&r))) goto out;
    /* r.T is the run's position: FQR leaves the logical time behind, stamps carry the step. */
    while (r.T < p->t_end) {
        int64_t tn = port_tick_add(r.T, s->t_step);
        if (tn > p->t_end) tn = p->t_end;
        int last = tn >= p->t_end;
        if (s->role == GS_SOURCE) {
            /* Inputs: the sink's values at T, applied when the token for T came. */
            if ((rc = peer_integrate(&r, tn)) || (rc = peer_publish(&r, tn))) break;
            p->steps++;
            /* Wait for the token of step tn and the sink's outputs at tn (at the end only the
             * outputs: no token follows the last step, but the record shows them). */
            if ((rc = wait_ready(&r, tn, !last)) || (rc = peer_apply_inputs(&r, 0))) break;
        } else {
            if ((rc = wait_ready(&r, tn, 0)) || (rc = peer_apply_inputs(&r, 0))) break;
            if ((rc = peer_integrate(&r, tn)) || (rc = peer_publish(&r, tn))) break;
            p->steps++;
            if (s->role == GS_SINK && !last && (rc = exchange_token_send(&p->x, tn)) != PORT_OK)
                break;
        }
        if ((rc = peer_record(&r))) break;
    }
out:
    peer_run_fini(&r);
    return rc;
}
