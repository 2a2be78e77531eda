/* The peer algorithms (algorithms/jacobi.c, jacobi_de.c, gauss_seidel.c) over C fakes of the
 * port, with closed-form answers: no RTI, no FMU, no thread.
 * The fake model integrates x' = u (x = y, its output) exactly for a polynomial input of
 * order <= 1; the fake exchange grants what is asked (NERA: the earlier of the request and a
 * scripted peer event) and, at each grant, hands over the other peer's output f(t) = c*t
 * stamped with the grant, as a peer publishing f at every instant would. Reference values:
 *   jacobi (hold):  x(t_n) = H * sum_{k<n} f(t_k) = c H^2 n (n - 1) / 2
 *   jacobi, linear extrapolation: u is exact, x(t_n) = c t_n^2 / 2
 *   jacobi-naive:   inputs are one step old (stamped t + L, L = H): x(t_n) = c H^2 (n-1)(n-2)/2
 *   gauss-seidel (common): u over [t_n, t_n+1] is f(t_n+1): x(t_n) = c H^2 n (n + 1) / 2
 *   jacobi-de:     y = x with slope c*t; steps follow q / |slope| clamped to [h_min, h_max].
 * Tolerance 1e-12 relative (sums of doubles). Serves doc/algorithms/port.md.
 */
#include <stdint.h>
#include <string.h>

#include "algorithms/exchange.h"
#include "tests/check.h"

#define TICK 1e-3 /* s per tick */
#define MAXR 4096

/* ---- the fake model: x' = u(t), one input, one output y = x -------------------------- */

typedef struct fake_model {
    int64_t T;
    double x, u, du; /* du: slope of the input over the next step (order 1), else 0 */
    double slope;    /* reported first output derivative */
    int status;
    size_t n_rows;
    double row_t[MAXR], row_x[MAXR], row_u[MAXR];
} fake_model;

static int m_set_inputs(void *ctx, const port_poly *p)
{
    fake_model *m = ctx;
    if (p->n != 1) return m->status = PORT_EUSAGE;
    /* Expanded at p->t0; the algorithms expand at the model's time. */
    if (p->t0 != m->T) return m->status = PORT_EUSAGE;
    m->u = p->c[0];
    m->du = p->order >= 1 ? p->c[1] : 0;
    return PORT_OK;
}
static int m_step(void *ctx, int64_t t_to, int n_sub, double *y_sub, port_step_result *r)
{
    fake_model *m = ctx;
    double h = (double)(t_to - m->T) * TICK;
    m->x += m->u * h + m->du * h * h / 2;
    m->u += m->du * h;
    m->T = t_to;
    if (r) r->t_reached = t_to;
    return PORT_OK;
}
static int m_get_outputs(void *ctx, double *y)
{
    *y = ((fake_model *)ctx)->x;
    return PORT_OK;
}
static int m_derivs(void *ctx, int order, double *dy)
{
    *dy = ((fake_model *)ctx)->slope;
    return PORT_OK;
}
static int m_record(void *ctx)
{
    fake_model *m = ctx;
    if (m->n_rows < MAXR) {
        m->row_t[m->n_rows] = (double)m->T * TICK;
        m->row_x[m->n_rows] = m->x;
        m->row_u[m->n_rows] = m->u;
        m->n_rows++;
    }
    return PORT_OK;
}
static int m_collect(void *ctx)
{
    fake_model *m = ctx;
    int s = m->status;
    m->status = PORT_OK;
    return s;
}
static const port_slave_ops model_ops = {.version = PORT_OPS_VERSION,
                                         .set_inputs = m_set_inputs,
                                         .step = m_step,
                                         .get_outputs = m_get_outputs,
                                         .get_output_derivs = m_derivs,
                                         .record = m_record,
                                         .collect = m_collect};

/* ---- the fake exchange ------------------------------------------------------------------ */

typedef struct fake_x {
    double c;           /* the other peer's output f(t) = c * t (t in s) */
    int64_t shift;      /* the other peer stamps f(t) at t + shift (naive Jacobi: L) */
    int64_t peer_event; /* NERA: the other peer's next event (ticks), INT64_MAX: none */
    int64_t peer_h;     /* and its period */
    int flush_delay;    /* FQR: polls before the step's value arrives */
    int polls, idles;
    peer_input in;
    int64_t token;
    size_t n_req, n_pub;
    peer_req req_kind[3 * MAXR];
    int64_t req_t[3 * MAXR], pub_t[MAXR];
} fake_x;

static int x_publish(void *ctx, int64_t ts, const double *y)
{
    fake_x *x = ctx;
    if (x->n_pub < MAXR) x->pub_t[x->n_pub++] = ts;
    return PORT_OK;
}
static void arrive(fake_x *x, int64_t t)
{
    int64_t sent = t - x->shift; /* the other peer computed this value at its time `sent` */
    if (sent < 0) return;        /* nothing stamped before its first publish */
    x->in = (peer_input){.v = x->c * (double)sent * TICK, .t = t, .fresh = 1};
}
static int x_request(void *ctx, peer_req k, int64_t t, int64_t *g)
{
    fake_x *x = ctx;
    if (x->n_req < 3 * MAXR) {
        x->req_kind[x->n_req] = k;
        x->req_t[x->n_req++] = t;
    }
    int64_t got = t;
    if (k == PEER_EVENT_OPEN && x->peer_event < t) got = x->peer_event;
    if (k == PEER_EVENT_CLOSE && x->peer_event <= t) x->peer_event += x->peer_h;
    if (k == PEER_CLOSE || k == PEER_EVENT_CLOSE) arrive(x, got);
    if (k == PEER_FLUSH && ++x->polls > x->flush_delay) {
        arrive(x, t);
        x->token = t;
        x->polls = 0;
    }
    if (g) *g = got;
    return PORT_OK;
}
static int x_inputs(void *ctx, peer_input *in)
{
    fake_x *x = ctx;
    *in = x->in;
    x->in.fresh = 0;
    return PORT_OK;
}
static int x_token_send(void *ctx, int64_t ts)
{
    return PORT_OK;
}
static int64_t x_token_time(void *ctx)
{
    return ((fake_x *)ctx)->token;
}
static int x_idle(void *ctx, int attempt, int64_t t, const char *what)
{
    ((fake_x *)ctx)->idles++;
    return attempt < 100 ? PORT_OK : PORT_ELOST;
}
static const peer_exchange_ops x_ops = {.publish = x_publish,
                                        .request = x_request,
                                        .inputs = x_inputs,
                                        .token_send = x_token_send,
                                        .token_time = x_token_time,
                                        .idle = x_idle};

static char g_err[512];

static peer make_peer(fake_model *m, fake_x *x, int64_t t_end, int extrap)
{
    static const double u0 = 0;
    static const char *names[] = {"u"};
    memset(m, 0, sizeof *m);
    x->in.t = PEER_NO_TIME;
    x->token = PEER_NO_TIME;
    if (!x->peer_event) x->peer_event = INT64_MAX;
    port_slave s = {.ops = &model_ops, .ctx = m, .info = {.name = "fake", .n_in = 1, .n_out = 1}};
    return (peer){.model = s,
                  .x = {.ops = &x_ops, .ctx = x},
                  .name = "fake",
                  .tick = TICK,
                  .t_start = 0,
                  .t_end = t_end,
                  .t_granted = 0,
                  .extrapolation = extrap,
                  .u0 = &u0,
                  .in_names = names,
                  .out_names = names,
                  .err = g_err,
                  .errlen = sizeof g_err};
}

static int near(double a, double b)
{
    return fabs(a - b) <= 1e-12 * fmax(1.0, fabs(b));
}

/* Improved Jacobi, hold: publish at t_n, TAR(t_n) per step; closed form above. */
static void test_jacobi_improved(void)
{
    static fake_model m;
    static fake_x x;
    memset(&x, 0, sizeof x);
    x.c = 2;
    const int64_t H = 100; /* 0.1 s */
    peer p = make_peer(&m, &x, 50 * H, 0);
    jacobi_settings s = {.t_step = H};
    CHECK_INT_EQ(jacobi_run(&p, &s), PORT_OK);
    CHECK_INT_EQ(p.steps, 50);
    CHECK_INT_EQ((long)m.n_rows, 51);
    int bad = 0;
    for (size_t n = 0; n < m.n_rows; n++) {
        double h = H * TICK, want = x.c * h * h * (double)n * ((double)n - 1) / 2;
        bad += !near(m.row_x[n], want);
    }
    CHECK(bad == 0, "%d rows off the closed form c H^2 n(n-1)/2", bad);
    /* Requests: TAR(0) at the start, then TAR(t_n) alone for each step, after its publish
     * (doc/algorithms/jacobi.md "One grant per step"). */
    CHECK_INT_EQ((long)x.n_req, 1 + 50);
    CHECK(x.req_kind[0] == PEER_CLOSE && x.req_t[0] == 0, "first request TAR(0)");
    int only_tar = 1;
    for (size_t k = 1; k < x.n_req; k++)
        only_tar &= x.req_kind[k] == PEER_CLOSE && x.req_t[k] == (int64_t)k * H;
    CHECK(only_tar, "step n: TAR(n H) alone, no TARA");
    CHECK(x.pub_t[1] == H && x.pub_t[50] == 50 * H, "publishes stamped t_n");
}

/* Linear extrapolation makes the input exact: x(t) = c t^2 / 2. */
static void test_jacobi_extrapolated(void)
{
    static fake_model m;
    static fake_x x;
    memset(&x, 0, sizeof x);
    x.c = 3;
    const int64_t H = 250;
    peer p = make_peer(&m, &x, 40 * H, 1);
    jacobi_settings s = {.t_step = H};
    CHECK_INT_EQ(jacobi_run(&p, &s), PORT_OK);
    int bad = 0;
    /* From the second step on two samples exist; the first step holds u(0) = 0. */
    for (size_t n = 1; n < m.n_rows; n++) {
        double t = m.row_t[n], h = H * TICK;
        bad += !near(m.row_x[n], x.c * t * t / 2 - x.c * h * h / 2);
    }
    CHECK(bad == 0, "%d rows off c t^2/2 - c H^2/2 (the first step held 0)", bad);
}

/* Naive Jacobi, L = H: values one step old; publishes stamped t_n + L; TAR only. */
static void test_jacobi_naive(void)
{
    static fake_model m;
    static fake_x x;
    memset(&x, 0, sizeof x);
    x.c = 1.5;
    const int64_t H = 100;
    x.shift = H;
    peer p = make_peer(&m, &x, 30 * H, 0);
    jacobi_settings s = {.t_step = H, .naive = 1, .t_lookahead = H};
    CHECK_INT_EQ(jacobi_run(&p, &s), PORT_OK);
    int bad = 0;
    for (size_t n = 2; n < m.n_rows; n++) {
        double h = H * TICK, want = x.c * h * h * ((double)n - 1) * ((double)n - 2) / 2;
        bad += !near(m.row_x[n], want);
    }
    CHECK(bad == 0, "%d rows off c H^2 (n-1)(n-2)/2", bad);
    CHECK(x.pub_t[0] == H && x.pub_t[1] == 2 * H, "publishes stamped t_n + L");
    CHECK_INT_EQ((long)x.n_pub, 30); /* nothing after the last step */
    int only_tar = 1;
    for (size_t k = 0; k < x.n_req; k++)
        only_tar &= x.req_kind[k] == PEER_CLOSE;
    CHECK(only_tar, "naive Jacobi asks TAR only");
}

/* Tick sums saturate: a step that would pass INT64_MAX ends at t_end = INT64_MAX. */
static void test_jacobi_saturates(void)
{
    static fake_model m;
    static fake_x x;
    memset(&x, 0, sizeof x);
    peer p = make_peer(&m, &x, INT64_MAX, 0);
    jacobi_settings s = {.t_step = INT64_MAX - 10};
    CHECK_INT_EQ(jacobi_run(&p, &s), PORT_OK);
    CHECK_INT_EQ(p.steps, 2);
    CHECK(x.req_t[x.n_req - 1] == INT64_MAX, "last request at INT64_MAX, not wrapped");
}

/* Discrete-event Jacobi: y = x with x' = u = c t; with one sample the derivative (slope) is
 * used, then the secant. The other peer has an event every 70 ticks: NERA is granted there
 * whenever it comes first, and the model steps to it. */
static void test_jacobi_de(void)
{
    static fake_model m;
    static fake_x x;
    memset(&x, 0, sizeof x);
    x.c = 2;
    x.peer_event = 70;
    x.peer_h = 70;
    peer p = make_peer(&m, &x, 1000, 0);
    m.slope = 0; /* no slope at t = 0: h_max first */
    p.model.info.max_output_deriv = 1;
    const double q[1] = {0.001};
    jacobi_de_settings s = {.h_min = 0.01, .h_max = 0.05, .q = q};
    CHECK_INT_EQ(jacobi_de_run(&p, &s), PORT_OK);
    /* Every NERA asks T + h with h in [h_min, h_max], and no grant passes the peer's events. */
    int bad = 0, at_event = 0;
    int64_t T = 0;
    for (size_t k = 1; k + 1 < x.n_req; k += 2) {
        if (x.req_kind[k] != PEER_EVENT_OPEN || x.req_kind[k + 1] != PEER_EVENT_CLOSE) bad++;
        int64_t asked = x.req_t[k], got = x.req_t[k + 1];
        if (asked - T < 10 && asked != 1000) bad++; /* h_min = 10 ticks */
        if (asked - T > 50) bad++;                  /* h_max = 50 ticks */
        if (got % 70 == 0 && got < asked) at_event++;
        T = got;
    }
    CHECK(bad == 0, "%d NERA/NER pairs out of [h_min, h_max] or out of order", bad);
    CHECK(at_event > 0, "some grants came at the peer's earlier events");
    CHECK(T == 1000 && m.T == 1000, "ends at t_end (T %lld, model %lld)", (long long)T,
          (long long)m.T);
    CHECK_INT_EQ((long)m.n_rows, p.steps + 1);
    /* The secant of y between the last two samples predicts h = q / |slope|, slope ~ c t:
     * late in the run |slope| ~ 2 gives q/2 = 0.5 ms, below h_min: clamped to h_min. */
    CHECK(x.req_t[x.n_req - 2] - x.req_t[x.n_req - 3] <= 10 || x.req_t[x.n_req - 2] == 1000,
          "late steps at h_min");
}

/* Gauss-Seidel, a common: waits (FQR + idle) until the value of step t_n+1 arrives, applies
 * it, then integrates: x(t_n) = c H^2 n (n + 1) / 2. */
static void test_gs_common(void)
{
    static fake_model m;
    static fake_x x;
    memset(&x, 0, sizeof x);
    x.c = 1;
    x.flush_delay = 2;
    const int64_t H = 100;
    peer p = make_peer(&m, &x, 20 * H, 0);
    gauss_seidel_settings s = {.t_step = H, .role = GS_COMMON};
    CHECK_INT_EQ(gauss_seidel_run(&p, &s), PORT_OK);
    CHECK_INT_EQ(p.steps, 20);
    int bad = 0;
    for (size_t n = 0; n < m.n_rows; n++) {
        double h = H * TICK, want = x.c * h * h * (double)n * ((double)n + 1) / 2;
        bad += !near(m.row_x[n], want);
    }
    CHECK(bad == 0, "%d rows off c H^2 n(n+1)/2", bad);
    CHECK(x.idles >= 2 * 20, "the common idled between flushes (%d)", x.idles);
}

/* Gauss-Seidel, the source: integrates first with the previous value, then waits for the
 * token: x(t_n) = H * sum_{k<n} f(t_k), the Jacobi sum. */
static void test_gs_source(void)
{
    static fake_model m;
    static fake_x x;
    memset(&x, 0, sizeof x);
    x.c = 4;
    const int64_t H = 50;
    peer p = make_peer(&m, &x, 10 * H, 0);
    gauss_seidel_settings s = {.t_step = H, .role = GS_SOURCE};
    CHECK_INT_EQ(gauss_seidel_run(&p, &s), PORT_OK);
    int bad = 0;
    for (size_t n = 0; n < m.n_rows; n++) {
        double h = H * TICK, want = x.c * h * h * (double)n * ((double)n - 1) / 2;
        bad += !near(m.row_x[n], want);
    }
    CHECK(bad == 0, "%d rows off c H^2 n(n-1)/2", bad);
}

/* A value stamped beyond the awaited step (the token passed twice) is refused. */
static int64_t g_future;
static int x_request_future(void *ctx, peer_req k, int64_t t, int64_t *g)
{
    fake_x *x = ctx;
    if (k == PEER_FLUSH) x->in = (peer_input){.v = 1, .t = t + g_future, .fresh = 1};
    if (g) *g = t;
    return PORT_OK;
}
static void test_gs_twice(void)
{
    static fake_model m;
    static fake_x x;
    memset(&x, 0, sizeof x);
    peer_exchange_ops ops = x_ops;
    ops.request = x_request_future;
    peer p = make_peer(&m, &x, 500, 0);
    p.x.ops = &ops;
    g_future = 7;
    gauss_seidel_settings s = {.t_step = 100, .role = GS_COMMON};
    CHECK_INT_EQ(gauss_seidel_run(&p, &s), PORT_ELOST);
    CHECK(strstr(g_err, "token passed twice") && strstr(g_err, "input \"u\""), "message: %s",
          g_err);
}

/* Bad settings are refused with a message, before any request. */
static void test_bad_settings(void)
{
    static fake_model m;
    static fake_x x;
    memset(&x, 0, sizeof x);
    peer p = make_peer(&m, &x, 500, 0);
    jacobi_settings s = {.t_step = 0};
    CHECK_INT_EQ(jacobi_run(&p, &s), PORT_EUSAGE);
    CHECK_INT_EQ((long)x.n_req, 0);
    p.extrapolation = 3;
    s.t_step = 10;
    CHECK_INT_EQ(jacobi_run(&p, &s), PORT_EUSAGE);
    CHECK(strstr(g_err, "federate fake: "), "message names the federate: %s", g_err);
}

int main(void)
{
    test_jacobi_improved();
    test_jacobi_extrapolated();
    test_jacobi_naive();
    test_jacobi_saturates();
    test_jacobi_de();
    test_gs_common();
    test_gs_source();
    test_gs_twice();
    test_bad_settings();
    return check_summary();
}
