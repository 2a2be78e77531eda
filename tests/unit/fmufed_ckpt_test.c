/* tempo-fmu's model and algorithm state over a real FMU (federate/fmufed/fmufed_model.h
 * fmufed_model_save / fmufed_model_restore, algorithms/peer.c peer_save): federate "prey" of
 * examples/lv_jacobi.json (model exchange, with an input) and of a copy of it naming the
 * co-simulation FMU, under Jacobi with linear extrapolation and a fake exchange whose input is
 * a fixed function of the grant. A run that saves inside its k-th time request and goes on,
 * and a fresh model (as in another process) that restores the bytes and resumes there, record
 * bit-identical rows, for every k. For model exchange the reference is the saving run (saving
 * restarts CVODE, doc/checkpoint.md "FMU state"); for co-simulation also the run that never
 * saved. A model whose FMU cannot serialize is refused by fmufed_model_save with its name;
 * bytes of another FMU are refused by fmufed_model_restore. doc/checkpoint.md.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "algorithms/exchange.h"
#include "federate/config/fedfile.h"
#include "federate/fmufed/fmufed.h"
#include "federate/fmufed/fmufed_model.h"
#include "tests/check.h"

#define MAXROWS 256

typedef struct rows {
    size_t n;
    double v[MAXROWS][3]; /* t, x, y */
} rows;

static int sink(void *ctx, int64_t t, double seconds, const double *v, const char *const *text,
                char *err, size_t errlen)
{
    rows *r = ctx;
    if (r->n < MAXROWS) {
        r->v[r->n][0] = seconds;
        r->v[r->n][1] = v[0];
        r->v[r->n][2] = v[1];
        r->n++;
    }
    return PORT_OK;
}

/* The exchange: the predator's y(t) = 1 + 0.4 sin(t), stamped with each closing grant. */
typedef struct xch {
    peer_input in;
    long n_req, save_at; /* save inside request number save_at (< 0: never) */
    peer *p;
    fmufed_model *m;
    pstate_buf algo, model;
    peer_input in_at;
    size_t rows_at;
    rows *r;
    int save_rc;
} xch;

static int x_publish(void *ctx, int64_t ts, const double *y)
{
    return PORT_OK;
}
static int x_request(void *ctx, peer_req k, int64_t t, int64_t *g)
{
    xch *x = ctx;
    if (k == PEER_CLOSE)
        x->in = (peer_input){.v = 1 + 0.4 * sin((double)t * 1e-9), .t = t, .fresh = 1};
    if (x->n_req++ == x->save_at) {
        x->save_rc = fmufed_model_save(x->m, &x->model);
        if (x->save_rc == PORT_OK) x->save_rc = peer_save(x->p, t, &x->algo);
        x->in_at = x->in;
        x->rows_at = x->r->n;
    }
    *g = t;
    return PORT_OK;
}
static int x_inputs(void *ctx, peer_input *in)
{
    xch *x = ctx;
    *in = x->in;
    x->in.fresh = 0;
    return PORT_OK;
}
static const peer_exchange_ops x_ops = {
    .publish = x_publish, .request = x_request, .inputs = x_inputs};

static char g_err[FMUFED_ERRLEN];

/* One run of federate 0 to the end: save at request save_at, or resume from *from. */
static int run(const fedfile *ff, long save_at, xch *from, rows *r, xch *x)
{
    fmufed_model *m = NULL;
    memset(x, 0, sizeof *x);
    memset(r, 0, sizeof *r);
    x->in.t = PEER_NO_TIME;
    x->save_at = save_at;
    x->r = r;
    if (fmufed_model_open(ff, 0, g_err, sizeof g_err, &m) != PORT_OK) return -1;
    fmufed_model_set_rows(m, sink, r);
    x->m = m;
    peer p = {.model = fmufed_model_slave(m),
              .x = {.ops = &x_ops, .ctx = x},
              .name = ff->feds[0].name,
              .tick = ff->resolution,
              .t_start = ff->algo.t_start,
              .t_end = ff->algo.t_end,
              .t_granted = ff->algo.t_start,
              .extrapolation = 1,
              .u0 = fmufed_model_u0(m),
              .err = g_err,
              .errlen = sizeof g_err};
    x->p = &p;
    int rc = PORT_OK;
    if (from) { /* the other process: the model and the exchange as saved, then the algorithm */
        pstate_rd d = {.p = from->model.p, .n = from->model.n};
        rc = fmufed_model_restore(m, &d);
        if (rc == PORT_OK && d.at != d.n) rc = PORT_EUSAGE;
        x->in = from->in_at;
        p.resume = from->algo.p;
        p.resume_len = from->algo.n;
    }
    jacobi_settings s = {.t_step = ff->algo.t_step};
    if (rc == PORT_OK) rc = jacobi_run(&p, &s);
    fmufed_model_close(m);
    return rc;
}

static int load(const char *path, fedfile **ff)
{
    int rc = fedfile_load(path, ff, g_err, sizeof g_err);
    CHECK(rc == FEDFILE_OK, "%s: %s", path, g_err);
    if (rc != FEDFILE_OK) return -1;
    /* A short run: 10 s of the 100 (ticks of 1 ns). */
    (*ff)->algo.t_end = 10 * (int64_t)1000000000;
    return 0;
}

static void check_cuts(const char *what, const char *path, int cs)
{
    fedfile *ff = NULL;
    if (load(path, &ff)) return;
    static rows r0, r1, r2;
    static xch x0, x1, x2;
    check_case_begin();
    int ok = run(ff, -1, NULL, &r0, &x0) == PORT_OK && r0.n == 21;
    CHECK(ok, "%s: the plain run (%zu rows): %s", what, r0.n, g_err);
    long bad = 0, n_cut = 0;
    for (long k = 0; ok && k < x0.n_req; k += 2) { /* 21 requests: TAR(0), TAR(t_n) */
        n_cut++;
        int rc1 = run(ff, k, NULL, &r1, &x1);
        int rc2 = rc1 == PORT_OK && x1.save_rc == PORT_OK ? run(ff, -1, &x1, &r2, &x2) : -1;
        /* The resumed rows continue the saving run's, bit for bit. */
        size_t tail = r1.n - x1.rows_at;
        int same = rc2 == PORT_OK && r2.n == tail &&
                   memcmp(r2.v, r1.v[x1.rows_at], tail * sizeof r1.v[0]) == 0;
        /* Co-simulation: saving changes nothing. */
        if (cs) same &= r1.n == r0.n && memcmp(r1.v, r0.v, r0.n * sizeof r0.v[0]) == 0;
        if (!same) {
            bad++;
            CHECK(0, "%s: cut at request %ld: rc %d/%d, rows %zu/%zu: %s", what, k, rc1, rc2, r2.n,
                  tail, g_err);
        }
        free(x1.model.p), free(x1.algo.p);
    }
    check_case_end(ok && bad == 0 && n_cut >= 10);
    fedfile_free(ff);
}

static void test_me(void)
{
    check_cuts("model exchange", "examples/lv_jacobi.json", 0);
}

/* The same federation naming the co-simulation FMUs: a copy of the file in the test's own
 * folder ($TMPDIR), its relative paths made absolute. */
static void test_cs(void)
{
    FILE *in = fopen("examples/lv_jacobi.json", "r");
    static char buf[8192], out[16384];
    size_t n = in ? fread(buf, 1, sizeof buf - 1, in) : 0;
    if (in) fclose(in);
    buf[n] = 0;
    char cwd[1024];
    if (!getcwd(cwd, sizeof cwd)) cwd[0] = 0;
    char *o = out;
    for (const char *s = buf; *s && o < out + sizeof out - 1200;) {
        if (!strncmp(s, "_me.fmu", 7)) {
            o += sprintf(o, "_cs.fmu"), s += 7;
        } else if (!strncmp(s, "\"../", 4)) {
            o += sprintf(o, "\"%s/", cwd), s += 4;
        } else {
            *o++ = *s++;
        }
    }
    *o = 0;
    const char *dir = getenv("TMPDIR");
    char path[1200];
    snprintf(path, sizeof path, "%s/fmufed_ckpt_test_cs_%ld.json", dir && *dir ? dir : "/tmp",
             (long)getpid());
    FILE *f = fopen(path, "w");
    CHECK(f != NULL, "writing %s", path);
    if (!f) return;
    fputs(out, f);
    fclose(f);
    check_cuts("co-simulation", path, 1);
    remove(path);
}

/* Refusals: another FMU's bytes (the predator's state into the prey), a truncated state. */
static void test_refusals(void)
{
    fedfile *ff = NULL;
    if (load("examples/lv_jacobi.json", &ff)) return;
    fmufed_model *prey = NULL, *pred = NULL;
    CHECK_INT_EQ(fmufed_model_open(ff, 0, g_err, sizeof g_err, &prey), PORT_OK);
    CHECK_INT_EQ(fmufed_model_open(ff, 1, g_err, sizeof g_err, &pred), PORT_OK);
    if (!prey || !pred) goto out;
    pstate_buf b = {0};
    CHECK_INT_EQ(fmufed_model_save(pred, &b), PORT_OK);
    pstate_rd d = {.p = b.p, .n = b.n};
    CHECK_INT_EQ(fmufed_model_restore(prey, &d), PORT_EUSAGE);
    CHECK(strstr(g_err, "federate prey: resuming:") != NULL, "message: %s", g_err);
    pstate_rd cut = {.p = b.p, .n = b.n / 2};
    CHECK_INT_EQ(fmufed_model_restore(pred, &cut), PORT_EUSAGE);
    CHECK(strstr(g_err, "truncated") != NULL, "message: %s", g_err);
    free(b.p);
out:
    fmufed_model_close(prey);
    fmufed_model_close(pred);
    fedfile_free(ff);
}

int main(void)
{
    test_me();
    test_cs();
    test_refusals();
    return check_summary();
}
