/* Discrete-event Jacobi over the peer port (algorithms/exchange.h).
 * Paper: the Awais thesis §4.2.2 (doc/references.md (Awais)): each peer predicts the time its
 * output will have moved by one quantum q (eq. 4.5, restored in algorithms/quantize.h), asks
 * NERA(t_pred), integrates to the grant g (t_pred, or the earlier stamp of a peer's update: the
 * federation advances to the smallest prediction, Fig. 4.8), publishes y(g) stamped g and closes
 * the instant with NER(g). Page: doc/algorithms/jacobi-de.md. Symbols: q the quantum (output
 * unit), h the predicted step (s) clamped to [h_min, h_max] (s), T the model's time (ticks).
 * Choices where the thesis is silent: with one sample, the model's first output derivative
 * when it has one, else h_min (the cautious choice); no output: h_max.
 * Read algorithms/gauss_seidel.c next.
 */
#include <stdlib.h>

#include "algorithms/peer_impl.h"
#include "algorithms/quantize.h"

/* The two newest samples of every output, for the secant of eq. 4.5. */
typedef struct de_hist {
    int n;                  /* samples held: 0, 1 or 2 */
    int64_t t_prev, t_last; /* ticks */
    double v_prev, v_last;  /* output unit */
} de_hist;

/* Remember y(t) of every output (nothing new within the same instant). */
static int push_outputs(peer_run *r, de_hist *h, int64_t t)
{
    peer *p = r->p;
    int rc = peer_model_done(r, port_get_outputs(&p->model, r->y));
    if (rc != PORT_OK) return rc;
    for (size_t k = 0; k < r->n_out; k++) {
        de_hist *o = &h[k];
        if (o->n > 0 && t <= o->t_last) continue;
        o->t_prev = o->t_last;
        o->v_prev = o->v_last;
        o->t_last = t;
        o->v_last = r->y[k];
        if (o->n < 2) o->n++;
    }
    return PORT_OK;
}

/* The step decision: the predicted step h (s), the smallest over the outputs, and the time
 * asked for. Computed as a value before anything is requested. */
typedef struct de_decision {
    double h;        /* s */
    int64_t t_pred;  /* ticks: T + h, rounded to a tick, at most t_end */
    size_t limiting; /* output that gave h (n_out when none did: h_max) */
} de_decision;

static int de_decide(peer_run *r, const jacobi_de_settings *s, const de_hist *h, de_decision *d)
{
    peer *p = r->p;
    d->h = s->h_max;
    d->limiting = r->n_out;
    int have_d1 = p->model.info.max_output_deriv >= 1;
    double *dy = NULL;
    for (size_t k = 0; k < r->n_out; k++) {
        quant_cfg q = {.q = s->q[k], .h_min = s->h_min, .h_max = s->h_max};
        double hk = s->h_min;
        int rc;
        if (h[k].n >= 2) {
            rc = quant_step_secant(&q, port_seconds(p->tick, h[k].t_prev), h[k].v_prev,
                                   port_seconds(p->tick, h[k].t_last), h[k].v_last, &hk);
        } else if (have_d1) {
            if (!dy) {
                dy = malloc((r->n_out + 1) * sizeof *dy);
                if (!dy) return peer_fail(r, PORT_ENOMEM, "out of memory");
                rc = peer_model_done(r, port_get_output_derivs(&p->model, 1, dy));
                if (rc != PORT_OK) {
                    free(dy);
                    return rc;
                }
            }
            rc = quant_step_slope(&q, dy[k], &hk);
        } else {
            rc = QUANT_AT_MIN;
        }
        if (rc == QUANT_EINVAL) {
            free(dy);
            return peer_fail(r, PORT_EFAIL,
                             "output \"%s\" is not finite (or its quantum %g is invalid) at "
                             "%.9g s",
                             p->out_names ? p->out_names[k] : "?", s->q[k], r->T * p->tick);
        }
        if (hk < d->h) {
            d->h = hk;
            d->limiting = k;
        }
    }
    free(dy);
    d->t_pred = quant_next_time(r->T, d->h, p->tick, p->t_end);
    return PORT_OK;
}

/* Checkpoint sites (algorithms/peer_impl.h) and the state kept besides the peer's: the
 * outputs' samples, the step asked and the grant it got. */
enum { DE_OPEN = PEER_SITE_ALGO, DE_CLOSE };

typedef struct de_state {
    de_hist *h; /* n_out */
    int64_t t_pred, g;
} de_state;

static void save_de(const peer_run *r, pstate_buf *b)
{
    const de_state *st = r->extra;
    pstate_put_i64(b, st->t_pred);
    pstate_put_i64(b, st->g);
    for (size_t k = 0; k < r->n_out; k++) {
        const de_hist *o = &st->h[k];
        pstate_put_u8(b, (uint8_t)o->n);
        pstate_put_i64(b, o->t_prev);
        pstate_put_i64(b, o->t_last);
        pstate_put_f64(b, o->v_prev);
        pstate_put_f64(b, o->v_last);
    }
}

static int load_de(peer_run *r, pstate_rd *in)
{
    de_state *st = r->extra;
    st->t_pred = pstate_get_i64(in);
    st->g = pstate_get_i64(in);
    for (size_t k = 0; k < r->n_out; k++) {
        de_hist *o = &st->h[k];
        o->n = pstate_get_u8(in);
        o->t_prev = pstate_get_i64(in);
        o->t_last = pstate_get_i64(in);
        o->v_prev = pstate_get_f64(in);
        o->v_last = pstate_get_f64(in);
        if (o->n > 2 || (o->n == 2 && o->t_prev >= o->t_last))
            return peer_fail(r, PORT_EUSAGE, "resuming: output %zu's samples are out of order", k);
    }
    return PORT_OK;
}

int jacobi_de_run(peer *p, const jacobi_de_settings *s)
{
    peer_run r;
    p->steps = 0;
    int rc = peer_run_init(&r, p);
    if (rc != PORT_OK) return rc;
    de_state st = {.h = calloc(r.n_out + 1, sizeof *st.h)};
    if (!st.h) {
        rc = peer_fail(&r, PORT_ENOMEM, "out of memory");
        goto out;
    }
    if (!(s->h_min > 0) || !(s->h_max >= s->h_min) || (r.n_out && !s->q)) {
        rc = peer_fail(&r, PORT_EUSAGE, "jacobi-de: h_min %g, h_max %g or the quanta are invalid",
                       s->h_min, s->h_max);
        goto out;
    }
    if ((rc = peer_run_start(&r, "jacobi-de", &st, save_de, load_de, DE_CLOSE))) goto out;
    int from = r.resume_site; /* 0: a fresh run */
    if ((rc = peer_open_start(&r)) || (rc = peer_exchange_start(&r))) goto out;
    if (from < PEER_SITE_ALGO) {
        if ((rc = push_outputs(&r, st.h, r.T))) goto out;
        from = 0;
    }
    while (from || r.T < p->t_end) {
        if (from < DE_OPEN) {
            de_decision d = {0};
            if ((rc = de_decide(&r, s, st.h, &d))) break;
            st.t_pred = d.t_pred;
        }
        /* NERA: granted t_pred, or earlier when a peer's update (its own, smaller prediction)
         * arrives first; then this peer steps to that instant too (Fig. 4.8). */
        if (from <= DE_OPEN) {
            st.g = PEER_NO_TIME;
            if ((rc = peer_request(&r, DE_OPEN, PEER_EVENT_OPEN, st.t_pred, &st.g))) break;
            if ((rc = peer_integrate(&r, st.g)) || (rc = peer_publish(&r, st.g))) break;
        }
        from = 0;
        if ((rc = peer_request_exact(&r, DE_CLOSE, PEER_EVENT_CLOSE, st.g))) break;
        if ((rc = peer_apply_inputs(&r, 0)) || (rc = push_outputs(&r, st.h, st.g))) break;
        p->steps++;
        if ((rc = peer_record(&r))) break;
    }
out:
    free(st.h);
    peer_run_fini(&r);
    return rc;
}
