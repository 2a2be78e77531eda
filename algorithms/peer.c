/* The steps every peer algorithm shares (algorithms/peer_impl.h): inputs received -> pending ->
 * applied to the model with their history, the model integrated with held or extrapolated
 * inputs (algorithms/extrap.h), outputs published, rows recorded, the initial exchange.
 * doc/algorithms/port.md ("The peer side"); read algorithms/jacobi.c next.
 */
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

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
    if (r->p && r->p->live == r) r->p->live = NULL;
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

int peer_request(peer_run *r, int site, peer_req kind, int64_t t, int64_t *g)
{
    const peer_exchange *x = &r->p->x;
    int64_t got = PEER_NO_TIME;
    int rc;
    if (r->resume_site) {
        /* Re-entering a resumed run: this request was issued and granted before the save. */
        if (site != r->resume_site || kind != r->site_kind || t != r->site_t)
            return peer_fail(r, PORT_EUSAGE,
                             "resuming: the run asked %s(%.9g s) at site %d, the checkpoint "
                             "holds %s(%.9g s) at site %d",
                             peer_req_name(kind), t * r->p->tick, site, peer_req_name(r->site_kind),
                             r->site_t * r->p->tick, r->resume_site);
        r->resume_site = 0;
        got = r->replay_g;
    } else {
        r->site = site;
        r->site_kind = kind;
        r->site_t = t;
        rc = exchange_request(x, kind, t, &got);
        r->site = 0;
        if (rc != PORT_OK) return rc;
    }
    if ((rc = exchange_inputs(x, r->in)) != PORT_OK) return rc;
    for (size_t i = 0; i < r->n_in; i++)
        r->pending[i] |= r->in[i].fresh;
    if (g) *g = got;
    return PORT_OK;
}

int peer_request_exact(peer_run *r, int site, peer_req kind, int64_t t)
{
    int64_t g = PEER_NO_TIME;
    int rc = peer_request(r, site, kind, t, &g);
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
    if (r->resume_site > PEER_SITE_OPEN_START) return PORT_OK;
    if (r->T >= r->p->t_start && !r->resume_site) return PORT_OK;
    int64_t g = PEER_NO_TIME;
    int rc = peer_request(r, PEER_SITE_OPEN_START, PEER_OPEN, r->p->t_start, &g);
    if (rc == PORT_OK) r->T = r->p->t_start;
    return rc;
}

/* Initial exchange at lookahead 0: everyone sends y(T0) stamped T0 (legal right after
 * enabling regulation: the bound is T0, non-strict), then TAR(T0) closes the instant, so that
 * every peer starts with its inputs at T0. */
int peer_exchange_start(peer_run *r)
{
    int from = r->resume_site;
    if (from > PEER_SITE_START_CLOSE) return PORT_OK;
    int rc = from < PEER_SITE_START_CLOSE ? peer_publish(r, r->T) : PORT_OK;
    if (rc == PORT_OK) rc = peer_request(r, PEER_SITE_START_CLOSE, PEER_CLOSE, r->T, NULL);
    if (rc == PORT_OK) rc = peer_apply_inputs(r, 0);
    if (rc == PORT_OK) rc = peer_record(r);
    return rc;
}

/* ---- checkpoints (doc/checkpoint.md, "A peer's part") --------------------------------- */

#define PEER_STATE_MAGIC   0x52454550u /* "PEER" */
#define PEER_STATE_VERSION 1u

/* The layout, little-endian (algorithms/pstate.h):
 *   u32 magic "PEER"  u32 version  bytes algorithm name
 *   u32 site  u8 kind  i64 time asked  i64 grant  i64 T  i64 steps  u32 n_in  u32 n_out
 *   n_in x (f64 newest value  i64 its stamp  u8 fresh  u8 pending  f64 applied value
 *           u8 samples, then that many (i64 time, f64 value))
 *   the algorithm's own state (save_extra) */
int peer_save(peer *p, int64_t granted, pstate_buf *b)
{
    peer_run *r = p->live;
    if (!r || !r->site) {
        if (p->err && p->errlen)
            snprintf(p->err, p->errlen,
                     "federate %s: cannot save: its algorithm is not waiting for a grant",
                     p->name ? p->name : "?");
        return PORT_EUSAGE;
    }
    pstate_put_u32(b, PEER_STATE_MAGIC);
    pstate_put_u32(b, PEER_STATE_VERSION);
    pstate_put_bytes(b, r->algo, strlen(r->algo));
    pstate_put_u32(b, (uint32_t)r->site);
    pstate_put_u8(b, (uint8_t)r->site_kind);
    pstate_put_i64(b, r->site_t);
    pstate_put_i64(b, granted);
    pstate_put_i64(b, r->T);
    pstate_put_i64(b, p->steps);
    pstate_put_u32(b, (uint32_t)r->n_in);
    pstate_put_u32(b, (uint32_t)r->n_out);
    for (size_t i = 0; i < r->n_in; i++) {
        pstate_put_f64(b, r->in[i].v);
        pstate_put_i64(b, r->in[i].t);
        pstate_put_u8(b, (uint8_t)(r->in[i].fresh != 0));
        pstate_put_u8(b, (uint8_t)(r->pending[i] != 0));
        pstate_put_f64(b, r->u[i]);
        pstate_put_u8(b, (uint8_t)r->hist[i].n);
        for (int k = 0; k < r->hist[i].n; k++) {
            pstate_put_i64(b, r->hist[i].t[k]);
            pstate_put_f64(b, r->hist[i].v[k]);
        }
    }
    if (r->save_extra) r->save_extra(r, b);
    return b->bad ? peer_fail(r, PORT_ENOMEM, "out of memory") : PORT_OK;
}

/* An input's history as saved: at most EXTRAP_MAX_SAMPLES samples, strictly increasing times,
 * finite values (what extrap_push keeps). */
static int hist_ok(const extrap_hist *h)
{
    for (int k = 0; k < h->n; k++)
        if ((k > 0 && h->t[k] <= h->t[k - 1]) || !isfinite(h->v[k])) return 0;
    return 1;
}

static int load_state(peer_run *r, pstate_rd *d, int max_site)
{
    peer *p = r->p;
    if (pstate_get_u32(d) != PEER_STATE_MAGIC)
        return peer_fail(r, PORT_EUSAGE, "resuming: not a peer algorithm's state");
    uint32_t version = pstate_get_u32(d);
    if (version != PEER_STATE_VERSION)
        return peer_fail(r, PORT_EUSAGE, "resuming: state version %u, this build reads %u",
                         (unsigned)version, PEER_STATE_VERSION);
    size_t n;
    const unsigned char *name = pstate_get_bytes(d, &n);
    if (!name || n != strlen(r->algo) || memcmp(name, r->algo, n) != 0)
        return peer_fail(r, PORT_EUSAGE, "resuming: the state is not of method \"%s\"", r->algo);
    int64_t site = pstate_get_u32(d);
    int kind = pstate_get_u8(d);
    r->site_kind = (peer_req)kind;
    r->site_t = pstate_get_i64(d);
    r->replay_g = pstate_get_i64(d);
    r->T = pstate_get_i64(d);
    p->steps = (long)pstate_get_i64(d);
    size_t n_in = pstate_get_u32(d), n_out = pstate_get_u32(d);
    if (d->bad) return peer_fail(r, PORT_EUSAGE, "resuming: the state is truncated");
    if (site < PEER_SITE_OPEN_START || site > max_site || kind < PEER_CLOSE || kind > PEER_FLUSH ||
        p->steps < 0)
        return peer_fail(r, PORT_EUSAGE, "resuming: site %lld or request kind %d out of range",
                         (long long)site, kind);
    if (n_in != r->n_in || n_out != r->n_out)
        return peer_fail(r, PORT_EUSAGE,
                         "resuming: the state has %zu inputs and %zu outputs, the federate %zu "
                         "and %zu",
                         n_in, n_out, r->n_in, r->n_out);
    for (size_t i = 0; i < r->n_in && !d->bad; i++) {
        r->in[i].v = pstate_get_f64(d);
        r->in[i].t = pstate_get_i64(d);
        r->in[i].fresh = pstate_get_u8(d);
        r->pending[i] = pstate_get_u8(d);
        r->u[i] = pstate_get_f64(d);
        extrap_hist *h = &r->hist[i];
        h->n = pstate_get_u8(d);
        if (h->n > EXTRAP_MAX_SAMPLES)
            return peer_fail(r, PORT_EUSAGE, "resuming: input %zu holds %d samples", i, h->n);
        for (int k = 0; k < h->n; k++) {
            h->t[k] = pstate_get_i64(d);
            h->v[k] = pstate_get_f64(d);
        }
        if (!d->bad && !hist_ok(h))
            return peer_fail(r, PORT_EUSAGE, "resuming: input %zu's history is out of order", i);
    }
    if (!d->bad && r->load_extra && r->load_extra(r, d) != PORT_OK) return PORT_EUSAGE;
    if (d->bad) return peer_fail(r, PORT_EUSAGE, "resuming: the state is truncated");
    if (d->at != d->n)
        return peer_fail(r, PORT_EUSAGE, "resuming: %zu bytes after the state", d->n - d->at);
    r->resume_site = (int)site;
    return PORT_OK;
}

int peer_run_start(peer_run *r, const char *algo, void *extra,
                   void (*save_extra)(const peer_run *, pstate_buf *),
                   int (*load_extra)(peer_run *, pstate_rd *), int max_site)
{
    r->algo = algo;
    r->extra = extra;
    r->save_extra = save_extra;
    r->load_extra = load_extra;
    r->p->live = r;
    if (!r->p->resume) return PORT_OK;
    pstate_rd d = {.p = r->p->resume, .n = r->p->resume_len};
    return load_state(r, &d, max_site);
}
