/* Checkpoints of the peer algorithms (algorithms/peer.c peer_save, and the re-entry of
 * jacobi.c, jacobi_de.c, gauss_seidel.c): a run saved inside its k-th time request and resumed
 * from the bytes, over a restored fake model and fake exchange, gives the rows and the requests
 * of the run that never stopped, bit for bit, for every k; bad states are refused before any
 * request. The fakes are closed-form (x' = u, the other peer's output a fixed function of the
 * grant), so the reference is the uninterrupted run itself. doc/checkpoint.md "A peer's part".
 */
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "algorithms/exchange.h"
#include "tests/check.h"

#define TICK 1e-3 /* s per tick */
#define MAXR 512

/* ---- a fake model: x' = u(t), u a polynomial of order <= 2 over each step -------------- */

typedef struct model_state {
    int64_t T;
    double x, c[3]; /* c: u and its first two derivatives at T */
} model_state;

typedef struct model {
    model_state s;
    double slope;
    size_t n_rows;
    double row[MAXR][3]; /* t, x, u */
} model;

static int m_set_inputs(void *ctx, const port_poly *p)
{
    model *m = ctx;
    if (p->n != 1 || p->t0 != m->s.T || p->order > 2) return PORT_EUSAGE;
    for (int k = 0; k < 3; k++)
        m->s.c[k] = k <= p->order ? p->c[k] : 0;
    return PORT_OK;
}
static int m_step(void *ctx, int64_t t_to, int n_sub, double *y_sub, port_step_result *r)
{
    model *m = ctx;
    double h = (double)(t_to - m->s.T) * TICK, *c = m->s.c;
    m->s.x += c[0] * h + c[1] * h * h / 2 + c[2] * h * h * h / 6;
    c[0] += c[1] * h + c[2] * h * h / 2;
    c[1] += c[2] * h;
    m->s.T = t_to;
    if (r) r->t_reached = t_to;
    return PORT_OK;
}
static int m_get_outputs(void *ctx, double *y)
{
    *y = ((model *)ctx)->s.x;
    return PORT_OK;
}
static int m_derivs(void *ctx, int order, double *dy)
{
    *dy = ((model *)ctx)->s.c[0];
    return PORT_OK;
}
static int m_record(void *ctx)
{
    model *m = ctx;
    if (m->n_rows < MAXR) {
        m->row[m->n_rows][0] = (double)m->s.T * TICK;
        m->row[m->n_rows][1] = m->s.x;
        m->row[m->n_rows][2] = m->s.c[0];
        m->n_rows++;
    }
    return PORT_OK;
}
static int m_collect(void *ctx)
{
    return PORT_OK;
}
static const port_slave_ops model_ops = {.version = PORT_OPS_VERSION,
                                         .set_inputs = m_set_inputs,
                                         .step = m_step,
                                         .get_outputs = m_get_outputs,
                                         .get_output_derivs = m_derivs,
                                         .record = m_record,
                                         .collect = m_collect};

/* ---- a fake exchange: the other peer's output f(t) = sin(t) + t^2, stamped t + shift ---- */

typedef struct x_state {
    peer_input in;
    int64_t token, event; /* the other peer's token stamp and next event (NERA) */
    int polls;
} x_state;

typedef struct xch {
    x_state s;
    int64_t shift, event_h;
    int flush_delay;
    /* The save: inside request number save_at (0 the first; < 0: never). */
    long save_at;
    peer *p;
    pstate_buf bytes;
    int saved, save_rc;
    model_state m_at;
    x_state x_at;
    size_t rows_at, req_at;
    model *m;
    /* Every request: kind, time asked, grant. */
    size_t n_req;
    int64_t req[3 * MAXR][3];
} xch;

static int x_publish(void *ctx, int64_t ts, const double *y)
{
    return PORT_OK;
}
static void arrive(xch *x, int64_t t)
{
    int64_t sent = t - x->shift;
    if (sent < 0) return;
    double s = (double)sent * TICK;
    x->s.in = (peer_input){.v = sin(s) + s * s, .t = t, .fresh = 1};
}
static int x_request(void *ctx, peer_req k, int64_t t, int64_t *g)
{
    xch *x = ctx;
    int64_t got = t;
    if (k == PEER_EVENT_OPEN && x->s.event < t) got = x->s.event;
    if (k == PEER_EVENT_CLOSE && x->s.event <= t) x->s.event += x->event_h;
    if (k == PEER_CLOSE || k == PEER_EVENT_CLOSE) arrive(x, got);
    /* FQR: the value of the step after flush_delay polls, the token one poll later (so that
     * a value waits, pending, while the token is awaited). */
    if (k == PEER_FLUSH && ++x->s.polls > x->flush_delay) {
        if (x->s.in.t != t) arrive(x, t);
        if (x->s.polls > x->flush_delay + 1 || x->s.token == t) {
            x->s.token = t;
            x->s.polls = 0;
        }
    }
    if (x->n_req < 3 * MAXR) {
        x->req[x->n_req][0] = k;
        x->req[x->n_req][1] = t;
        x->req[x->n_req][2] = got;
        x->n_req++;
    }
    if (x->save_at >= 0 && !x->saved && x->n_req == (size_t)x->save_at + 1) {
        /* What tempo-fmu does in its save callback: the algorithm's state, and beside it the
         * model's and the exchange's (their own parts). */
        x->saved = 1;
        x->save_rc = peer_save(x->p, got, &x->bytes);
        x->m_at = x->m->s;
        x->x_at = x->s;
        x->rows_at = x->m->n_rows;
        x->req_at = x->n_req;
    }
    if (g) *g = got;
    return PORT_OK;
}
static int x_inputs(void *ctx, peer_input *in)
{
    xch *x = ctx;
    *in = x->s.in;
    x->s.in.fresh = 0;
    return PORT_OK;
}
static int x_token_send(void *ctx, int64_t ts)
{
    return PORT_OK;
}
static int64_t x_token_time(void *ctx)
{
    return ((xch *)ctx)->s.token;
}
static int x_idle(void *ctx, int attempt, int64_t t, const char *what)
{
    return attempt < 1000 ? PORT_OK : PORT_ELOST;
}
static const peer_exchange_ops x_ops = {.publish = x_publish,
                                        .request = x_request,
                                        .inputs = x_inputs,
                                        .token_send = x_token_send,
                                        .token_time = x_token_time,
                                        .idle = x_idle};

/* ---- the algorithms under test --------------------------------------------------------- */

typedef enum { A_JACOBI, A_NAIVE, A_DE, A_GS_SOURCE, A_GS_COMMON, A_GS_SINK } algo;

typedef struct setup {
    algo a;
    int extrap;
    int64_t t_end, H;
} setup;

static char g_err[512];

static void init(const setup *su, model *m, xch *x, peer *p)
{
    static const double u0 = 0.25;
    static const char *names[] = {"u"};
    memset(m, 0, sizeof *m);
    memset(x, 0, sizeof *x);
    x->s.in.t = PEER_NO_TIME;
    x->s.token = PEER_NO_TIME;
    x->s.event = 70;
    x->event_h = 70;
    x->flush_delay = 1;
    x->save_at = -1;
    x->shift = su->a == A_NAIVE ? su->H : 0;
    x->m = m;
    x->p = p;
    port_slave s = {.ops = &model_ops,
                    .ctx = m,
                    .info = {.name = "fake", .n_in = 1, .n_out = 1, .max_output_deriv = 1}};
    *p = (peer){.model = s,
                .x = {.ops = &x_ops, .ctx = x},
                .name = "fake",
                .tick = TICK,
                .t_start = 0,
                .t_end = su->t_end,
                .t_granted = 0,
                .extrapolation = su->extrap,
                .u0 = &u0,
                .in_names = names,
                .out_names = names,
                .err = g_err,
                .errlen = sizeof g_err};
}

static int run(const setup *su, peer *p)
{
    static const double q[1] = {0.02}; /* steps between h_min and h_max */
    switch (su->a) {
    case A_JACOBI:
    case A_NAIVE: {
        jacobi_settings s = {.t_step = su->H, .naive = su->a == A_NAIVE};
        s.t_lookahead = s.naive ? su->H : 0;
        return jacobi_run(p, &s);
    }
    case A_DE: {
        jacobi_de_settings s = {.h_min = 0.01, .h_max = 0.05, .q = q};
        return jacobi_de_run(p, &s);
    }
    default: {
        gs_role role = su->a == A_GS_SOURCE   ? GS_SOURCE
                       : su->a == A_GS_COMMON ? GS_COMMON
                                              : GS_SINK;
        gauss_seidel_settings s = {.t_step = su->H, .role = role};
        return gauss_seidel_run(p, &s);
    }
    }
}

/* For every request k of the uninterrupted run: save inside it, resume from the bytes over
 * the model and exchange as they were, and compare what follows bit for bit. (A federation
 * saves inside the first request granted at or past the save's time; every request is a
 * superset of those: a flush that waits with a value pending, say.) */
static void check_every_cut(const char *what, const setup *su)
{
    static model m0, m1, m2;
    static xch x0, x1, x2;
    peer p0, p1, p2;
    check_case_begin();
    int ok = 1;
    init(su, &m0, &x0, &p0);
    ok &= run(su, &p0) == PORT_OK;
    size_t n_cut = 0, n_bad = 0;
    for (size_t k = 0; ok && k < x0.n_req; k++) {
        int64_t g = x0.req[k][2];
        n_cut++;
        init(su, &m1, &x1, &p1);
        x1.save_at = (long)k;
        int rc1 = run(su, &p1);
        if (rc1 != PORT_OK || !x1.saved || x1.save_rc != PORT_OK || x1.bytes.bad) {
            n_bad++;
            CHECK(0, "%s, cut %zu: the saving run failed (%d, save %d): %s", what, k, rc1,
                  x1.save_rc, g_err);
            free(x1.bytes.p);
            continue;
        }
        /* The saving run itself equals the uninterrupted one. */
        int same = m1.n_rows == m0.n_rows && memcmp(m1.row, m0.row, sizeof m0.row) == 0 &&
                   x1.n_req == x0.n_req && memcmp(x1.req, x0.req, x0.n_req * sizeof x0.req[0]) == 0;
        init(su, &m2, &x2, &p2);
        m2.s = x1.m_at;
        x2.s = x1.x_at;
        p2.resume = x1.bytes.p;
        p2.resume_len = x1.bytes.n;
        int rc2 = run(su, &p2);
        size_t nr = m0.n_rows - x1.rows_at, nq = x0.n_req - x1.req_at;
        same &= rc2 == PORT_OK && p2.steps == p0.steps && m2.n_rows == nr && x2.n_req == nq &&
                memcmp(m2.row, m0.row[x1.rows_at], nr * sizeof m0.row[0]) == 0 &&
                memcmp(x2.req, x0.req[x1.req_at], nq * sizeof x0.req[0]) == 0;
        if (!same) {
            n_bad++;
            CHECK(0,
                  "%s, cut at request %zu (t %lld): resumed run differs (rc %d, rows %zu/%zu, "
                  "requests %zu/%zu, steps %ld/%ld): %s",
                  what, k, (long long)g, rc2, m2.n_rows, nr, x2.n_req, nq, p2.steps, p0.steps,
                  g_err);
        }
        free(x1.bytes.p);
    }
    CHECK(ok, "%s: the uninterrupted run failed: %s", what, g_err);
    CHECK(n_cut >= 10, "%s: only %zu cuts", what, n_cut);
    check_case_end(ok && n_bad == 0);
}

static void test_jacobi(void)
{
    check_every_cut("jacobi", &(setup){.a = A_JACOBI, .t_end = 2000, .H = 100});
    check_every_cut("jacobi, quadratic inputs",
                    &(setup){.a = A_JACOBI, .extrap = 2, .t_end = 2000, .H = 100});
    check_every_cut("jacobi-naive", &(setup){.a = A_NAIVE, .extrap = 1, .t_end = 2000, .H = 100});
}

static void test_jacobi_de(void)
{
    check_every_cut("jacobi-de", &(setup){.a = A_DE, .t_end = 1000});
}

static void test_gauss_seidel(void)
{
    check_every_cut("gauss-seidel source", &(setup){.a = A_GS_SOURCE, .t_end = 1500, .H = 100});
    check_every_cut("gauss-seidel common",
                    &(setup){.a = A_GS_COMMON, .extrap = 1, .t_end = 1500, .H = 100});
    check_every_cut("gauss-seidel sink", &(setup){.a = A_GS_SINK, .t_end = 1500, .H = 100});
}

/* A state of the run at its 7th request, for the refusals below. */
static pstate_buf saved_state(const setup *su, model_state *ms, x_state *xs)
{
    static model m;
    static xch x;
    peer p;
    init(su, &m, &x, &p);
    x.save_at = 13;
    run(su, &p);
    *ms = x.m_at;
    *xs = x.x_at;
    return x.bytes;
}

/* Refused before any request, with the reason: every truncation, trailing bytes, another
 * method's state, another wiring, damaged fields; a save outside a request is refused too. */
static void test_refusals(void)
{
    static model m;
    static xch x;
    peer p;
    setup su = {.a = A_JACOBI, .extrap = 1, .t_end = 2000, .H = 100};
    model_state ms;
    x_state xs;
    pstate_buf b = saved_state(&su, &ms, &xs);
    CHECK(b.n > 40 && !b.bad, "a state was saved (%zu bytes)", b.n);
    int bad_prefix = 0;
    for (size_t n = 0; n < b.n; n++) {
        init(&su, &m, &x, &p);
        p.resume = b.p;
        p.resume_len = n;
        bad_prefix += run(&su, &p) != PORT_EUSAGE || x.n_req != 0 || m.n_rows != 0;
    }
    CHECK(bad_prefix == 0, "%d truncated states were not refused at once", bad_prefix);

    unsigned char *longer = malloc(b.n + 1);
    memcpy(longer, b.p, b.n);
    longer[b.n] = 0;
    init(&su, &m, &x, &p);
    p.resume = longer;
    p.resume_len = b.n + 1;
    CHECK_INT_EQ(run(&su, &p), PORT_EUSAGE);
    CHECK(strstr(g_err, "1 bytes after the state") != NULL, "message: %s", g_err);
    free(longer);

    setup other = {.a = A_DE, .t_end = 2000};
    init(&other, &m, &x, &p);
    p.resume = b.p;
    p.resume_len = b.n;
    CHECK_INT_EQ(run(&other, &p), PORT_EUSAGE);
    CHECK(strstr(g_err, "not of method \"jacobi-de\"") != NULL, "message: %s", g_err);

    init(&su, &m, &x, &p);
    p.model.info.n_in = 2;
    p.resume = b.p;
    p.resume_len = b.n;
    static const double u0[2] = {0, 0};
    p.u0 = u0;
    CHECK_INT_EQ(run(&su, &p), PORT_EUSAGE);
    CHECK(strstr(g_err, "2 and 1") != NULL, "message: %s", g_err);

    /* The site field (after magic, version, the name "jacobi" with its count). */
    unsigned char *bent = malloc(b.n);
    memcpy(bent, b.p, b.n);
    bent[4 + 4 + 4 + 6] = 99;
    init(&su, &m, &x, &p);
    p.resume = bent;
    p.resume_len = b.n;
    CHECK_INT_EQ(run(&su, &p), PORT_EUSAGE);
    CHECK(strstr(g_err, "site") != NULL && x.n_req == 0, "message: %s", g_err);
    free(bent);

    pstate_buf none = {0};
    init(&su, &m, &x, &p);
    CHECK_INT_EQ(peer_save(&p, 0, &none), PORT_EUSAGE);
    CHECK(strstr(g_err, "not waiting for a grant") != NULL, "message: %s", g_err);
    free(none.p);
    free(b.p);
}

/* The codec: every width round-trips, doubles by their bits (NaN payload and -0 included), and
 * a read past the end sets bad instead of reading. */
static void test_codec(void)
{
    pstate_buf b = {0};
    double nan_payload;
    uint64_t bits = 0x7ff8000000000123ull;
    memcpy(&nan_payload, &bits, sizeof bits);
    pstate_put_u8(&b, 0xab);
    pstate_put_u32(&b, 0xdeadbeefu);
    pstate_put_i64(&b, INT64_MIN);
    pstate_put_f64(&b, -0.0);
    pstate_put_f64(&b, nan_payload);
    pstate_put_bytes(&b, "xyz", 3);
    CHECK_INT_EQ((long)b.n, 1 + 4 + 8 + 8 + 8 + 4 + 3);
    pstate_rd r = {.p = b.p, .n = b.n};
    CHECK_INT_EQ(pstate_get_u8(&r), 0xab);
    CHECK(pstate_get_u32(&r) == 0xdeadbeefu, "u32");
    CHECK(pstate_get_i64(&r) == INT64_MIN, "i64");
    double z = pstate_get_f64(&r), q = pstate_get_f64(&r);
    uint64_t qb;
    memcpy(&qb, &q, sizeof qb);
    CHECK(z == 0 && signbit(z) && qb == bits, "doubles keep their bits");
    size_t n;
    const unsigned char *s = pstate_get_bytes(&r, &n);
    CHECK(s && n == 3 && memcmp(s, "xyz", 3) == 0 && !r.bad && r.at == r.n, "bytes");
    CHECK(pstate_get_u8(&r) == 0 && r.bad, "a read past the end sets bad");
    /* A count larger than what is left. */
    unsigned char lie[4] = {0xff, 0, 0, 0};
    pstate_rd r2 = {.p = lie, .n = sizeof lie};
    CHECK(pstate_get_bytes(&r2, &n) == NULL && r2.bad && n == 0, "a count past the end");
    free(b.p);
}

int main(void)
{
    test_codec();
    test_jacobi();
    test_jacobi_de();
    test_gauss_seidel();
    test_refusals();
    return check_summary();
}
