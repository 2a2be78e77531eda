/* The steps every peer algorithm shares (algorithms/peer_impl.h): inputs received -> pending ->
 * applied to the model with their history, the model integrated with held or extrapolated
 * inputs (algorithms/extrap.h), outputs published, rows recorded, the initial exchange.
 * doc/algorithms/port.md ("The peer side"); read algorithms/jacobi.c next.
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>

#include "algorithms/peer_impl.h"

const char *peer_req_name(peer_req k)
{
    switch (k) {
    case PEER_CLOSE:
        return "TAR";
    case PEER_OPEN:
        return "TARA";
    case PEER_EVENT_CLOSE:
        return "NER";
    case PEER_EVENT_OPEN:
        return "NERA";
    case PEER_FLUSH:
        return "FQR";
    }
    return "?";
}

int peer_fail(const peer_run *r, int code, const char *fmt, ...)
{
    peer *p = r->p;
    if (!p->err || !p->errlen) return code;
    int n = snprintf(p->err, p->errlen, "federate %s: ", p->name ? p->name : "?");
    if (n < 0 || (size_t)n >= p->errlen) return code;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(p->err + n, p->errlen - (size_t)n, fmt, ap);
    va_end(ap);
    return code;
}

int peer_run_init(peer_run *r, peer *p)
{
    *r = (peer_run){.p = p, .n_in = p->model.info.n_in, .n_out = p->model.info.n_out};
    size_t ni = r->n_in + 1, no = r->n_out + 1;
    r->in = calloc(ni, sizeof *r->in);
    r->pending = calloc(ni, sizeof *r->pending);
    r->u = calloc(ni, sizeof *r->u);
    r->hist = calloc(ni, sizeof *r->hist);
    r->c = calloc(ni * (EXTRAP_MAX_ORDER + 1), sizeof *r->c);
    r->y = calloc(no, sizeof *r->y);
    if (!r->in || !r->pending || !r->u || !r->hist || !r->c || !r->y) {
        peer_run_fini(r);
        return peer_fail(r, PORT_ENOMEM, "out of memory");
    }
    for (size_t i = 0; i < r->n_in; i++) {
        r->in[i].t = PEER_NO_TIME;
        r->u[i] = p->u0 ? p->u0[i] : 0.0;
    }
    if (p->extrapolation < 0 || p->extrapolation > EXTRAP_MAX_ORDER) {
        peer_run_fini(r);
        return peer_fail(r, PORT_EUSAGE, "extrapolation order %d is not 0, 1 or 2",
                         p->extrapolation);
    }
    r->T = p->t_granted;
    return PORT_OK;
}

void peer_run_fini(peer_run *r)
{
    free(r->in);
    free(r->pending);
    free(r->u);
    free(r->hist);
    free(r->c);
    free(r->y);
    r->in = NULL;
    r->pending = NULL;
    r->u = r->c = r->y = NULL;
    r->hist = NULL;
}

int peer_model_done(peer_run *r, int rc)
{
    if (rc != PORT_OK) return rc;
    return port_collect(&r->p->model);
}

int peer_request(peer_run *r, peer_req kind, int64_t t, int64_t *g)
{
    const peer_exchange *x = &r->p->x;
    int64_t got = PEER_NO_TIME;
    int rc = exchange_request(x, kind, t, &got);
    if (rc != PORT_OK) return rc;
    if ((rc = exchange_inputs(x, r->in)) != PORT_OK) return rc;
    for (size_t i = 0; i < r->n_in; i++)
        r->pending[i] |= r->in[i].fresh;
    if (g) *g = got;
    return PORT_OK;
}

int peer_request_exact(peer_run *r, peer_req kind, int64_t t)
{
    int64_t g = PEER_NO_TIME;
    int rc = peer_request(r, kind, t, &g);
    if (rc == PORT_OK && g != t)
        rc = peer_fail(r, PORT_ELOST, "%s(%.9g s) granted %.9g s", peer_req_name(kind),
                       t * r->p->tick, g * r->p->tick);
    return rc;
}

int peer_integrate(peer_run *r, int64_t t_next)
{
    if (t_next <= r->T) return PORT_OK;
    peer *p = r->p;
    /* One order for all inputs (port_poly has one): the lowest the histories allow. */
    int order = p->extrapolation;
    for (size_t i = 0; i < r->n_in && order > 0; i++)
        if (r->hist[i].n - 1 < order) order = r->hist[i].n - 1;
    int rc;
    if (order > 0 && r->n_in > 0) {
        size_t w = (size_t)order + 1;
        for (size_t i = 0; i < r->n_in; i++) {
            /* The polynomial through the newest samples, expanded at the step start; T may
             * lie before the newest sample (Gauss-Seidel commons: the newest value belongs to
             * the step's end), where it interpolates. */
            double d[EXTRAP_MAX_ORDER];
            extrap_eval(&r->hist[i], order, r->T, &r->c[i * w], NULL);
            extrap_derivs(&r->hist[i], order, r->T, p->tick, d, NULL);
            for (size_t k = 1; k < w; k++)
                r->c[i * w + k] = d[k - 1];
        }
        port_poly u = {.t0 = r->T, .order = order, .n = r->n_in, .c = r->c};
        if ((rc = peer_model_done(r, port_set_inputs(&p->model, &u)))) return rc;
    }
    port_step_result res = {0};
    rc = peer_model_done(r, port_step(&p->model, t_next, 1, NULL, &res));
    if (rc != PORT_OK) return rc;
    r->T = t_next;
    return PORT_OK;
}

int peer_publish(peer_run *r, int64_t ts)
{
    peer *p = r->p;
    int rc = peer_model_done(r, port_get_outputs(&p->model, r->y));
    if (rc == PORT_OK) rc = exchange_publish(&p->x, ts, r->y);
    return rc;
}

int peer_apply_inputs(peer_run *r, int64_t shift)
{
    int any = 0;
    for (size_t i = 0; i < r->n_in; i++) {
        if (!r->pending[i]) continue;
        r->pending[i] = 0;
        any = 1;
        r->u[i] = r->in[i].v;
        int64_t ts = r->in[i].t == PEER_NO_TIME ? r->T : r->in[i].t - shift;
        if (extrap_push(&r->hist[i], ts, r->u[i]) != EXTRAP_OK) {
            /* An older stamp than the newest sample cannot happen in time-stamp order;
             * restart the history rather than fit a polynomial across it. */
            extrap_reset(&r->hist[i]);
            extrap_push(&r->hist[i], ts, r->u[i]);
        }
    }
    if (!any) return PORT_OK;
    /* The values are in the model at once: a row recorded now shows them. */
    port_poly u = {.t0 = r->T, .order = 0, .n = r->n_in, .c = r->u};
    return peer_model_done(r, port_set_inputs(&r->p->model, &u));
}

int peer_record(peer_run *r)
{
    peer *p = r->p;
    if (!port_has(&p->model, PORT_OP_RECORD)) return PORT_OK;
    return peer_model_done(r, port_record(&p->model));
}

int peer_open_start(peer_run *r)
{
    if (r->T >= r->p->t_start) return PORT_OK;
    int64_t g = PEER_NO_TIME;
    int rc = peer_request(r, PEER_OPEN, r->p->t_start, &g);
    if (rc == PORT_OK) r->T = r->p->t_start;
    return rc;
}

/* Initial exchange at lookahead 0: everyone sends y(T0) stamped T0 (legal right after
 * enabling regulation: the bound is T0, non-strict), then TAR(T0) closes the instant, so that
 * every peer starts with its inputs at T0. */
int peer_exchange_start(peer_run *r)
{
    int rc = peer_publish(r, r->T);
    if (rc == PORT_OK) rc = peer_request(r, PEER_CLOSE, r->T, NULL);
    if (rc == PORT_OK) rc = peer_apply_inputs(r, 0);
    if (rc == PORT_OK) rc = peer_record(r);
    return rc;
}
