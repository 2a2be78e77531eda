/* Tests of the hybrid algorithm (algorithms/hybrid.h) over a fake slave with a closed form:
 * a ball dropped from h0 onto a flat floor (restitution e), whose contact times are
 *     t_1 = sqrt(2 h0 / g),   t_{k+1} = t_k + 2 e^k g t_1 / g,
 * either locating its bounces (the step stops there, to the next tick, as an ME slave in
 * event mode) or only showing them in its discrete output "bounces" (as a slave that cannot
 * locate, found by bisection). Checked: every bounce found, none missed, each committed within
 * delta (or the bisection tolerance) after the analytic time, the height never below the
 * floor, instants strictly increasing; the step controller against a hand computation.
 * doc/algorithms/hybrid.md. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "algorithms/hybrid.h"
#include "tests/check.h"

#define TICK   1e-9
#define SEC(s) ((int64_t)llround((s) / TICK))
#define G      9.81
#define MAXREC 200000

/* ---- the fake ball ------------------------------------------------------------------- */

typedef struct ball {
    double y, v, h0, e; /* m, m/s */
    double bounces;     /* discrete output */
    int64_t t;          /* ticks */
    int locate;         /* 1: stop at a bounce (event), 0: fly through it */
    double sy[PORT_SLOTS], sv[PORT_SLOTS], sb[PORT_SLOTS];
    int64_t st[PORT_SLOTS];
    int status;
    size_t n_rec;
    double min_y; /* lowest height at any recorded row */
} ball;

/* Fly s seconds from (y, v), bouncing; stop at the first bounce when stop is set. Returns
 * the seconds flown. */
static double fly(ball *b, double s, int stop, int *bounced)
{
    double done = 0;
    *bounced = 0;
    for (;;) {
        double hit = (b->v + sqrt(b->v * b->v + 2 * G * b->y)) / G; /* time to y = 0 */
        if (hit > s - done) {
            double r = s - done;
            b->y += b->v * r - 0.5 * G * r * r;
            b->v -= G * r;
            if (b->y < 0) b->y = 0;
            return s;
        }
        done += hit;
        b->v = -b->e * (b->v - G * hit);
        b->y = 0;
        b->bounces += 1;
        *bounced = 1;
        if (stop) return done;
    }
}

static int b_step(void *ctx, int64_t t_to, int n_sub, double *y, port_step_result *res)
{
    ball *b = ctx;
    int bounced;
    double s = fly(b, (double)(t_to - b->t) * TICK, b->locate, &bounced);
    int64_t t = t_to;
    if (b->locate && bounced) { /* to the next whole tick, as fmu_slave does */
        t = b->t + (int64_t)ceil(s / TICK - 1e-6);
        if (t <= b->t) t = b->t + 1;
        if (t > t_to) t = t_to;
        int again;
        fly(b, (double)(t - b->t) * TICK - s, 0, &again);
    }
    b->t = t;
    y[0] = b->y, y[1] = b->bounces;
    *res = (port_step_result){.t_reached = t, .event = b->locate && bounced, .n_sub_done = 1};
    if (res->event && b->status == PORT_OK) b->status = PORT_EVENT;
    return PORT_OK;
}
static int b_outputs(void *ctx, double *y)
{
    ball *b = ctx;
    y[0] = b->y, y[1] = b->bounces;
    return PORT_OK;
}
static int b_inputs(void *ctx, const port_poly *u)
{
    (void)ctx, (void)u;
    return PORT_OK;
}
static int b_save(void *ctx, int k)
{
    ball *b = ctx;
    b->sy[k] = b->y, b->sv[k] = b->v, b->sb[k] = b->bounces, b->st[k] = b->t;
    return PORT_OK;
}
static int b_restore(void *ctx, int k)
{
    ball *b = ctx;
    b->y = b->sy[k], b->v = b->sv[k], b->bounces = b->sb[k], b->t = b->st[k];
    return PORT_OK;
}
static int b_record(void *ctx)
{
    ball *b = ctx;
    if (b->n_rec++ == 0 || b->y < b->min_y) b->min_y = b->y;
    return PORT_OK;
}
static int b_collect(void *ctx)
{
    ball *b = ctx;
    int st = b->status;
    b->status = PORT_OK;
    return st;
}
static const port_slave_ops ball_ops = {.version = PORT_OPS_VERSION,
                                        .set_inputs = b_inputs,
                                        .step = b_step,
                                        .get_outputs = b_outputs,
                                        .save = b_save,
                                        .restore = b_restore,
                                        .record = b_record,
                                        .collect = b_collect};

/* A master clock that records every instant, to check they only grow. */
typedef struct clock {
    int64_t last;
    int backwards;
    long opens;
} clock;
static int c_open(void *ctx, int64_t t)
{
    clock *c = ctx;
    if (c->opens++ && t <= c->last) c->backwards++;
    c->last = t;
    return PORT_OK;
}
static int c_close(void *ctx, int64_t t)
{
    clock *c = ctx;
    if (t != c->last) c->backwards++;
    return PORT_OK;
}
static const port_master_ops clock_ops = {.open = c_open, .close = c_close};

/* The analytic contact times before t_end. */
static int contacts(double h0, double e, double t_end, double *t, int max)
{
    double t1 = sqrt(2 * h0 / G), v = G * t1, tk = t1;
    int n = 0;
    for (int k = 1; tk < t_end && n < max; k++) {
        t[n++] = tk;
        v *= e;
        tk += 2 * v / G;
    }
    return n;
}

/* Run the ball alone to t_end and check every bounce against the closed form. */
static void drop(int locate, int bis, double delta, double btol)
{
    check_case_begin();
    ball b = {.y = 1, .v = 0, .h0 = 1, .e = 0.7, .locate = locate};
    port_slave s = {.ops = &ball_ops,
                    .ctx = &b,
                    .info = {.name = "ball", .n_out = 2, .n_discrete = 1, .can_save = 1}};
    clock c = {0};
    double t_end = 2.0;
    port_master m = {.ops = &clock_ops,
                     .ctx = &c,
                     .slaves = &s,
                     .n_slaves = 1,
                     .tick = TICK,
                     .t_start = 0,
                     .t_end = SEC(t_end)};
    hybrid_opts o;
    hybrid_opts_default(&o, SEC(0.05));
    o.delta = SEC(delta), o.h_min = SEC(delta), o.bisect = bis, o.bisect_tol = SEC(btol);
    o.tol_d = 0.05;
    unsigned char disc[2] = {0, 1};
    hybrid_result r;
    char err[512];
    int st = hybrid_run(&m, NULL, 0, disc, &o, &r, err, sizeof err);
    CHECK(st == PORT_OK, "locate %d bisect %d: %s", locate, bis, err);
    double ta[16];
    int n = contacts(1, 0.7, t_end, ta, 16);
    CHECK(n == 4, "analytic bounces %d", n);
    CHECK(r.n_events == (size_t)n, "locate %d bisect %d: %zu events, %d bounces", locate, bis,
          r.n_events, n);
    double width = bis ? btol : delta;
    for (size_t k = 0; k < r.n_events && k < (size_t)n; k++) {
        double tc = (double)r.events[k].t_commit * TICK, tf = (double)r.events[k].t_from * TICK;
        /* The event step (t_from, t_commit] holds the contact and is at most width long. */
        CHECK(tf < ta[k] + 1e-9 && tc >= ta[k] - 1e-9 && tc - tf <= width + 1e-9,
              "bounce %zu at %.9f: event step (%.9f, %.9f], width %g", k, ta[k], tf, tc, width);
        CHECK(tc - ta[k] <= width + 1e-9, "bounce %zu committed %.3g s late", k, tc - ta[k]);
        if (locate) /* the slave's own time: within one tick */
            CHECK(fabs((double)r.events[k].t_reported * TICK - ta[k]) <= 1.5 * TICK,
                  "bounce %zu reported at %.12f, analytic %.12f", k,
                  (double)r.events[k].t_reported * TICK, ta[k]);
    }
    CHECK(b.bounces == n, "the ball bounced %g times", b.bounces);
    CHECK(b.min_y >= 0, "below the floor: %g", b.min_y);
    CHECK(c.backwards == 0 && c.opens > 1, "instants went back %d times (%ld opened)", c.backwards,
          c.opens);
    CHECK(r.t_reached == SEC(t_end), "reached %lld", (long long)r.t_reached);
    /* the step drops to H_min at each event and grows again afterwards */
    size_t dips = 0;
    for (size_t i = 1; i < r.n_steps; i++)
        if (r.steps[i].kind == 4 && r.steps[i].h_next == o.h_min) dips++;
    CHECK(dips == r.n_events, "%zu dips for %zu events", dips, r.n_events);
    int64_t hmax_after_last = 0;
    for (size_t i = 0; i < r.n_steps; i++)
        if (r.steps[i].t_from >= r.events[r.n_events - 1].t_commit &&
            r.steps[i].t_to - r.steps[i].t_from > hmax_after_last)
            hmax_after_last = r.steps[i].t_to - r.steps[i].t_from;
    CHECK(hmax_after_last > 4 * o.h_min, "no recovery after the last event: %lld ticks",
          (long long)hmax_after_last);
    hybrid_result_fini(&r);
    check_case_end(1);
}

static void test_located(void)
{
    drop(1, 0, 1e-3, 0);
    drop(1, 0, 1e-4, 0);
    drop(1, 1, 1e-3, 1e-5);
}

static void test_unlocated(void)
{
    drop(0, 0, 1e-3, 0);
    drop(0, 1, 1e-3, 2e-5);
}

/* The controller on a scripted error sequence, against the hand computation in the comment:
 * tol_d 1, tau0 0.5, grow 1.5, shrink 0.5, H in [10, 1000] ticks, from 100. */
static void test_control(void)
{
    hybrid_opts o;
    hybrid_opts_default(&o, 100);
    o.tol_d = 1, o.tau0 = 0.5, o.grow = 1.5, o.shrink = 0.5, o.h_min = 10, o.h_max = 1000;
    static const double e2[] = {0.2, 0.2, 0.75, 3, 0, NAN, 2, 2, 2, 2};
    static const double em[] = {0.2, 0.2, 0.5, 0, 0, 0, 2, 2, 2, 2};
    /* e = e2 + 0.5 emax: .3 < 1 grow; .3 grow; 1.0 = tol_d stay; 3 shrink; 0 grow; NaN
     * shrink; 3 shrink x 4, the last one clamped to H_min. */
    static const int64_t want[] = {150, 225, 225, 112, 168, 84, 42, 21, 10, 10};
    int64_t h = 100;
    for (size_t i = 0; i < sizeof want / sizeof *want; i++) {
        h = hybrid_control(&o, h, e2[i], em[i]);
        CHECK(h == want[i], "step %zu: %lld, want %lld", i, (long long)h, (long long)want[i]);
    }
    /* Growth back from H_min: 10 15 22 33 49 73 109 163 244 366 549 823, then H_max. */
    static const int64_t up[] = {15, 22, 33, 49, 73, 109, 163, 244, 366, 549, 823, 1000, 1000};
    for (size_t i = 0; i < sizeof up / sizeof *up; i++) {
        h = hybrid_control(&o, h, 0, 0);
        CHECK(h == up[i], "growth %zu: %lld, want %lld", i, (long long)h, (long long)up[i]);
    }
    o.grow = 1.1, o.h_min = 1;
    CHECK(hybrid_control(&o, 1, 0, 0) == 2, "a growth below one tick adds one tick");
    o.tol_d = 0;
    CHECK(hybrid_control(&o, 77, 5, 5) == 77, "tol_d 0: fixed step");
}

static void test_before_event(void)
{
    hybrid_opts o;
    hybrid_opts_default(&o, 1000);
    o.delta = 10;
    static const int64_t ev[] = {101, 105, 110, 111, 120, 121, 1000};
    static const int64_t want[] = {100, 100, 100, 110, 110, 120, 990};
    for (size_t i = 0; i < sizeof ev / sizeof *ev; i++)
        CHECK(hybrid_before_event(&o, 100, ev[i]) == want[i], "event at %lld: %lld",
              (long long)ev[i], (long long)hybrid_before_event(&o, 100, ev[i]));
}

static void test_bad_settings(void)
{
    ball b = {.y = 1, .h0 = 1, .e = 0.7};
    port_slave s = {.ops = &ball_ops, .ctx = &b, .info = {.name = "ball", .n_out = 2}};
    clock c = {0};
    port_master m = {
        .ops = &clock_ops, .ctx = &c, .slaves = &s, .n_slaves = 1, .tick = TICK, .t_end = 10};
    hybrid_opts o;
    hybrid_opts_default(&o, 5);
    hybrid_result r;
    char err[512];
    CHECK_INT_EQ(hybrid_run(&m, NULL, 0, NULL, &o, &r, err, sizeof err), PORT_EUNSUPPORTED);
    CHECK_STR_HAS(err, "cannot save");
    s.info.can_save = 1;
    o.shrink = 2;
    CHECK_INT_EQ(hybrid_run(&m, NULL, 0, NULL, &o, &r, err, sizeof err), PORT_EUSAGE);
    CHECK_STR_HAS(err, "shrink");
    hybrid_result_fini(&r);
}

/* Checkpoints (port_ckpt, doc/checkpoint.md "Master methods"): the k-th offer and the ball as
 * it was then (its slots included). */
typedef struct keep {
    int want, offers;
    int64_t at;
    unsigned char bytes[256];
    size_t n;
    ball *b, saved;
} keep;

static int keep_offer(void *ctx, int64_t t, const void *state, size_t n)
{
    keep *k = ctx;
    if (++k->offers != k->want || n > sizeof k->bytes) return PORT_OK;
    memcpy(k->bytes, state, n);
    k->n = n;
    k->at = t;
    k->saved = *k->b;
    return PORT_OK;
}

/* The ball dropped as in drop(1, 0, ...), cut after an instant (the start, one before the
 * first bounce, one after it) and resumed from the offered state with the ball as it was:
 * the same events, the same steps after the cut, the same ball at the end, bit for bit, and
 * the counters go on; every proper prefix and a trailing byte are refused before any step. */
static void test_resume(void)
{
    hybrid_opts o;
    hybrid_opts_default(&o, SEC(0.05));
    o.delta = SEC(0.001), o.h_min = SEC(0.001), o.tol_d = 0.05;
    unsigned char disc[2] = {0, 1};
    int wants[] = {1, 8, 20};
    for (size_t c = 0; c < sizeof wants / sizeof wants[0]; c++) {
        ball a = {.y = 1, .v = 0, .h0 = 1, .e = 0.7, .locate = 1};
        port_slave sa = {.ops = &ball_ops,
                         .ctx = &a,
                         .info = {.name = "ball", .n_out = 2, .n_discrete = 1, .can_save = 1}};
        clock ca = {0};
        keep k = {.want = wants[c], .b = &a};
        port_ckpt ck = {.offer = keep_offer, .ctx = &k};
        port_master ma = {.ops = &clock_ops,
                          .ctx = &ca,
                          .slaves = &sa,
                          .n_slaves = 1,
                          .tick = TICK,
                          .t_start = 0,
                          .t_end = SEC(2),
                          .ckpt = &ck};
        hybrid_result ra, rb;
        char err[512];
        CHECK_INT_EQ(hybrid_run(&ma, NULL, 0, disc, &o, &ra, err, sizeof err), PORT_OK);
        CHECK(k.n > 0, "offer %d not made (%d offers)", wants[c], k.offers);
        ball b = k.saved;
        port_slave sb = sa;
        sb.ctx = &b;
        clock cb = {0};
        port_ckpt rk = {.resume = k.bytes, .n_resume = k.n};
        port_master mb = ma;
        mb.ctx = &cb, mb.slaves = &sb, mb.ckpt = &rk;
        CHECK_INT_EQ(hybrid_run(&mb, NULL, 0, disc, &o, &rb, err, sizeof err), PORT_OK);
        CHECK(b.y == a.y && b.v == a.v && b.bounces == a.bounces && b.t == a.t &&
                  b.n_rec == a.n_rec,
              "resume after offer %d: the ball ends at y %.17g v %.17g (%g bounces, %zu rows), "
              "not y %.17g v %.17g (%g, %zu)",
              wants[c], b.y, b.v, b.bounces, b.n_rec, a.y, a.v, a.bounces, a.n_rec);
        CHECK(rb.n_steps <= ra.n_steps, "more steps after the resume");
        size_t off = ra.n_steps - rb.n_steps;
        for (size_t i = 0; i < rb.n_steps; i++)
            CHECK(rb.steps[i].t_from == ra.steps[off + i].t_from &&
                      rb.steps[i].t_to == ra.steps[off + i].t_to &&
                      rb.steps[i].kind == ra.steps[off + i].kind &&
                      rb.steps[i].h_next == ra.steps[off + i].h_next,
                  "resume after offer %d: step %zu differs", wants[c], i);
        CHECK(rb.n_steps > 0 && rb.steps[0].t_from == k.saved.t,
              "the resumed steps start where the ball was saved (%lld)", (long long)k.saved.t);
        CHECK_INT_EQ(rb.t_reached, ra.t_reached);
        CHECK_INT_EQ(rb.n_instants, ra.n_instants);
        CHECK_INT_EQ(rb.n_attempts, ra.n_attempts);
        CHECK_INT_EQ(rb.iter_total, ra.iter_total);
        CHECK_INT_EQ(rb.n_normal, ra.n_normal);
        hybrid_result_fini(&rb);
        unsigned char bad[257];
        for (size_t n = 0; c == 1 && n <= k.n + 1; n++) {
            if (n == k.n) continue;
            memcpy(bad, k.bytes, k.n);
            bad[k.n] = 0;
            ball z = k.saved;
            z.n_rec = 0;
            sb.ctx = &z;
            port_ckpt bk = {.resume = bad, .n_resume = n};
            mb.ckpt = &bk;
            CHECK_INT_EQ(hybrid_run(&mb, NULL, 0, disc, &o, &rb, err, sizeof err), PORT_EUSAGE);
            CHECK_STR_HAS(err, "not one it wrote");
            CHECK(z.t == k.saved.t && z.n_rec == 0, "a refused resume stepped the ball");
            hybrid_result_fini(&rb);
        }
        hybrid_result_fini(&ra);
    }
}

int main(void)
{
    test_control();
    test_before_event();
    test_located();
    test_unlocated();
    test_bad_settings();
    test_resume();
    return check_summary();
}
