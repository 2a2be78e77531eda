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

/* Checkpoint sites (algorithms/peer_impl.h): the flushes of a source and of the others. */
enum { GS_SITE_SOURCE = PEER_SITE_ALGO, GS_SITE_WAIT };

/* The state kept besides the peer's: the step waited for and the flushes made for it. */
typedef struct gs_state {
    int64_t tn;
    int attempt;
} gs_state;

static void save_gs(const peer_run *r, pstate_buf *b)
{
    const gs_state *st = r->extra;
    pstate_put_i64(b, st->tn);
    pstate_put_u32(b, (uint32_t)st->attempt);
}

static int load_gs(peer_run *r, pstate_rd *in)
{
    gs_state *st = r->extra;
    st->tn = pstate_get_i64(in);
    st->attempt = (int)(pstate_get_u32(in) & 0x7fffffff);
    return PORT_OK;
}

/* Algorithm 1 lines 12/19, 39/46: FQR until ready; between flushes the exchange idles. */
static int wait_ready(peer_run *r, int site, gs_state *st, int need_token)
{
    int64_t tn = st->tn;
    for (;; st->attempt++) {
        int rc = peer_request(r, site, PEER_FLUSH, tn, NULL);
        if (rc != PORT_OK) return rc;
        gs_decision d = gs_decide(r, tn, need_token);
        if (d.what == GS_READY) return PORT_OK;
        if (d.what == GS_TWICE)
            return peer_fail(r, PORT_ELOST,
                             "input \"%s\" received a value stamped %.9g s while waiting for "
                             "step %.9g s (token passed twice)",
                             r->p->in_names ? r->p->in_names[d.input] : "?",
                             r->in[d.input].t * r->p->tick, tn * r->p->tick);
        rc = exchange_idle(&r->p->x, st->attempt, tn,
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
    gs_state st = {0};
    if (s->t_step <= 0 || s->role < GS_SOURCE || s->role > GS_SINK) {
        rc = peer_fail(&r, PORT_EUSAGE, "gauss-seidel: step %lld ticks or role %d invalid",
                       (long long)s->t_step, (int)s->role);
        goto out;
    }
    int max_site = s->role == GS_SOURCE ? GS_SITE_SOURCE : GS_SITE_WAIT;
    if ((rc = peer_run_start(&r, "gauss-seidel", &st, save_gs, load_gs, max_site))) goto out;
    int from = r.resume_site; /* 0: a fresh run */
    if ((rc = peer_open_start(&r)) || (rc = peer_exchange_start(&r))) goto out;
    if (from < PEER_SITE_ALGO) from = 0;
    /* r.T is the run's position: FQR leaves the logical time behind, stamps carry the step. */
    while (from || r.T < p->t_end) {
        if (!from) {
            st.tn = port_tick_add(r.T, s->t_step);
            if (st.tn > p->t_end) st.tn = p->t_end;
            st.attempt = 0;
        }
        int64_t tn = st.tn;
        int last = tn >= p->t_end;
        if (s->role == GS_SOURCE) {
            /* Inputs: the sink's values at T, applied when the token for T came. */
            if (!from) {
                if ((rc = peer_integrate(&r, tn)) || (rc = peer_publish(&r, tn))) break;
                p->steps++;
            }
            from = 0;
            /* Wait for the token of step tn and the sink's outputs at tn (at the end only the
             * outputs: no token follows the last step, but the record shows them). */
            if ((rc = wait_ready(&r, GS_SITE_SOURCE, &st, !last)) ||
                (rc = peer_apply_inputs(&r, 0)))
                break;
        } else {
            from = 0;
            if ((rc = wait_ready(&r, GS_SITE_WAIT, &st, 0)) || (rc = peer_apply_inputs(&r, 0)))
                break;
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
