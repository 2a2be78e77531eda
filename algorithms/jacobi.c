/* Jacobi with a fixed macro step over the peer port (algorithms/exchange.h).
 * Paper: the Awais thesis §4.2.1 (doc/references.md (Awais)): the naive TAR loop with
 * lookahead L > 0 (Fig. 4.4: a value computed at t_n is stamped t_n + L, so the peers integrate
 * [t_n, t_n + H] with y(t_n - H): the one-step cause -> effect lag) and the improved loop at
 * lookahead 0 (Fig. 4.9: TARA(t_n) opens the instant, y(t_n) is sent stamped t_n, TAR(t_n)
 * closes it, so every peer starts the next step from u(t_n) = y(t_n); we leave the TARA out,
 * improved_step says why). Page:
 * doc/algorithms/jacobi.md. Symbols: H the macro step (ticks), L the lookahead (ticks), T the
 * model's time (ticks). Choice where the thesis is silent: the last step is shortened to end
 * exactly at t_end (no overshoot). Read algorithms/jacobi_de.c next.
 */
#include "algorithms/peer_impl.h"

/* The step decision: where the next communication point is. A fixed-step Jacobi never
 * rejects; the only reason a step is not H is the end of the run. */
typedef struct jacobi_decision {
    int64_t t_next; /* ticks */
    int last;       /* 1: t_next is t_end */
} jacobi_decision;

static jacobi_decision jacobi_decide(int64_t T, int64_t H, int64_t t_end)
{
    int64_t t = port_tick_add(T, H);
    return (jacobi_decision){.t_next = t < t_end ? t : t_end, .last = t >= t_end};
}

/* Checkpoint sites (algorithms/peer_impl.h): the requests of a step, in program order. */
enum { J_NAIVE_CLOSE = PEER_SITE_ALGO, J_OPEN, J_CLOSE };

/* The state a checkpoint keeps besides the peer's: the step under way. */
static void save_decision(const peer_run *r, pstate_buf *b)
{
    const jacobi_decision *d = r->extra;
    pstate_put_i64(b, d->t_next);
    pstate_put_u8(b, (uint8_t)d->last);
}

static int load_decision(peer_run *r, pstate_rd *in)
{
    jacobi_decision *d = r->extra;
    d->t_next = pstate_get_i64(in);
    d->last = pstate_get_u8(in);
    return PORT_OK;
}

/* Naive (Fig. 4.4): integrate, publish y(t_n) stamped t_n + L, TAR(t_n), apply inputs stamped
 * t_n, which belong to the senders' time t_n - L. from: the site a resumed run re-enters. */
static int naive_step(peer_run *r, const jacobi_settings *s, jacobi_decision d, int from)
{
    int rc = PORT_OK;
    if (from < J_NAIVE_CLOSE) rc = peer_integrate(r, d.t_next);
    if (rc == PORT_OK && from < J_NAIVE_CLOSE && !d.last)
        rc = peer_publish(r, port_tick_add(d.t_next, s->t_lookahead));
    if (rc == PORT_OK) rc = peer_request_exact(r, J_NAIVE_CLOSE, PEER_CLOSE, d.t_next);
    if (rc == PORT_OK) rc = peer_apply_inputs(r, s->t_lookahead);
    return rc;
}

/* Improved (Fig. 4.9): integrate, publish y(t_n) stamped t_n, TAR(t_n), apply. The figure's
 * TARA(t_n) before the publish is left out (doc/algorithms/jacobi.md "One grant per step"):
 * after TAR(t_n-1) granted at L = 0 the bound is (t_n-1, strict), so the stamp t_n > t_n-1 is
 * already legal, and TAR(t_n) alone waits for every peer's update of t_n, which it delivers:
 * the same values, one grant per step instead of two. A run resumed at J_OPEN (saved by a
 * build that asked that TARA) still takes its grant first. */
static int improved_step(peer_run *r, jacobi_decision d, int from)
{
    int rc = PORT_OK;
    if (from < J_OPEN) rc = peer_integrate(r, d.t_next);
    if (rc == PORT_OK && from == J_OPEN) rc = peer_request_exact(r, J_OPEN, PEER_OPEN, d.t_next);
    if (rc == PORT_OK && from <= J_OPEN) rc = peer_publish(r, d.t_next);
    if (rc == PORT_OK) rc = peer_request(r, J_CLOSE, PEER_CLOSE, d.t_next, NULL);
    if (rc == PORT_OK) rc = peer_apply_inputs(r, 0);
    return rc;
}

int jacobi_run(peer *p, const jacobi_settings *s)
{
    peer_run r;
    p->steps = 0;
    int rc = peer_run_init(&r, p);
    if (rc != PORT_OK) return rc;
    jacobi_decision d = {0};
    if (s->t_step <= 0 || (s->naive && s->t_lookahead <= 0)) {
        rc = peer_fail(&r, PORT_EUSAGE, "jacobi: step %lld and lookahead %lld ticks must be > 0",
                       (long long)s->t_step, (long long)s->t_lookahead);
        goto out;
    }
    if ((rc = peer_run_start(&r, s->naive ? "jacobi-naive" : "jacobi", &d, save_decision,
                             load_decision, J_CLOSE)))
        goto out;
    int from = r.resume_site; /* 0: a fresh run */
    if ((rc = peer_open_start(&r))) goto out;
    if (s->naive && from < J_NAIVE_CLOSE) {
        /* y(T0) can only be stamped T0 + L: the peers start from their inputs' start values. */
        rc = peer_publish(&r, port_tick_add(r.T, s->t_lookahead));
        if (rc == PORT_OK) rc = peer_record(&r);
    } else if (!s->naive) {
        rc = peer_exchange_start(&r);
    }
    if (from < PEER_SITE_ALGO) from = 0;
    while (rc == PORT_OK && (from || r.T < p->t_end)) {
        if (!from) d = jacobi_decide(r.T, s->t_step, p->t_end);
        rc = s->naive ? naive_step(&r, s, d, from) : improved_step(&r, d, from);
        from = 0;
        if (rc != PORT_OK) break;
        p->steps++;
        rc = peer_record(&r);
    }
out:
    peer_run_fini(&r);
    return rc;
}
