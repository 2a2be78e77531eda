/* Waveform relaxation over real FMUs in one process (tests/unit/master_local.h, algorithms/wr.h):
 * the case studies examples/lorenz_wr.json, lv_wr.json and vdp_wr.json against the monolithic
 * FMUs (lorenz, lv, vanderpol) integrated by CVODE at rtol 1e-10; explicit Jacobi failing to
 * track Lorenz; rollback bit for bit (CS and ME). Figures: doc/algorithms/waveform-relaxation.md.
 */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "federate/config/fedfile_algo.h"
#include "tests/check.h"
#include "tests/figures.h"
#include "tests/unit/fmu_rows.h"
#include "tests/unit/master_local.h"

static rows R; /* large: static */

/* A column of the co-simulation and the variable of the monolithic FMU it is compared with. */
typedef struct col {
    size_t fed, c;
    const char *ref;
} col;

typedef struct errs {
    double max[MAXC + 1]; /* per compared column */
    double median[MAXC + 1];
} errs;

static int cmp_d(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

/* Step the monolithic ME FMU (CVODE, rtol 1e-10, atol 1e-12) through the recorded times and
 * take the largest and median |error| of each column up to t_max. */
static errs reference_errors(const char *fmu, size_t np, const char *const *pn,
                             const char *const *pv, const col *cols, size_t n_cols, double t_max)
{
    errs e = {{0}, {0}};
    fmu_step_opts o = {.kind = FMU_KIND_ME,
                       .rtol = 1e-10,
                       .atol = 1e-12,
                       .n_params = np,
                       .param_names = pn,
                       .param_values = pv};
    fmu_step *s = NULL;
    char err[FMU_ERR_LEN] = "";
    int rc = fmu_step_open(fmu, &o, &s, err, sizeof err);
    CHECK(rc == FMU_STEP_OK, "open %s: %s", fmu, err);
    if (rc) return e;
    static double d[MAXC + 1][MAXR];
    size_t n = 0;
    for (size_t k = 0; k < R.n[0] && R.t[0][k] <= t_max + 1e-9; k++, n++) {
        double h = R.t[0][k] - fmu_step_time(s);
        if (h > 0) CHECK_INT_EQ(fmu_step_do(s, h, NULL, NULL), FMU_STEP_OK);
        for (size_t c = 0; c < n_cols; c++) {
            double ref = 0;
            fmu_step_get_by_name(s, cols[c].ref, &ref);
            d[c][n] = fabs(R.v[cols[c].fed][k][cols[c].c] - ref);
            e.max[c] = fmax(e.max[c], d[c][n]);
        }
    }
    for (size_t c = 0; c < n_cols && n; c++) {
        qsort(d[c], n, sizeof(double), cmp_d);
        e.median[c] = d[c][n / 2];
    }
    fmu_step_close(s);
    return e;
}

/* Load a case study, optionally force the FMU kind (swapping _me for _cs in the paths). */
static master_local *open_case(const char *path, fedfile **ff, fmu_kind kind)
{
    char err[MASTER_LOCAL_ERRLEN] = "";
    int rc = fedfile_load(path, ff, err, sizeof err);
    CHECK(rc == FEDFILE_OK, "%s: %s", path, err);
    if (rc) return NULL;
    for (size_t j = 0; kind == FMU_KIND_CS && j < (*ff)->n_feds; j++) {
        char *p = strstr((*ff)->feds[j].fmu, "_me.fmu");
        if (p) memcpy(p, "_cs", 3);
    }
    memset(&R, 0, sizeof R);
    master_local_opts o = {.kind = kind, .row = on_row, .row_ctx = &R};
    master_local *ml = NULL;
    rc = master_local_open(*ff, &o, &ml, err, sizeof err);
    CHECK(rc == PORT_OK, "%s: %s", path, err);
    if (rc) fedfile_free(*ff);
    return ml;
}

/* The generated figures of doc/algorithms/waveform-relaxation.md and the claims they check
 * (tests/figures.h). */
static FILE *g_fig, *g_claims;

static void print_hist(const char *name, const wr_result *r)
{
    fprintf(g_fig,
            "\n**%s**: %zu steps, %zu iterations (mean %.2f, most %d); %zu messages after the "
            "start (+%zu at it), %zu counted as eq. 5.5 counts\n\n| iterations | steps |\n"
            "|---|---|\n",
            name, r->n_accepted, r->iter_total, (double)r->iter_total / (double)r->n_accepted,
            r->iter_max, r->msg_commands + r->msg_replies, r->msg_init, r->msg_thesis);
    for (int k = 1; k < WR_HIST_MAX; k++)
        if (r->hist[k])
            fprintf(g_fig, "| %d%s | %zu |\n", k, k == WR_HIST_MAX - 1 ? "+" : "", r->hist[k]);
    printf("  %s: %zu steps, %zu iterations (mean %.2f, most %d); histogram (iterations: steps):",
           name, r->n_accepted, r->iter_total, (double)r->iter_total / (double)r->n_accepted,
           r->iter_max);
    for (int k = 1; k < WR_HIST_MAX; k++)
        if (r->hist[k]) printf(" %d:%zu", k, r->hist[k]);
    printf("\n");
}

/* Run a case; return the WR result (caller frees) and fill R. n_sub > 0 overrides the file's:
 * our example CS FMUs take input derivatives up to order 3 only (FMI 2.0 has no attribute that
 * says how many an FMU takes), and the inputs' order is n_sub. */
static int run_case(const char *path, fmu_kind kind, int n_sub, wr_result *res)
{
    fedfile *ff = NULL;
    master_local *ml = open_case(path, &ff, kind);
    if (!ml) return -1;
    if (n_sub > 0) ((wr_opts *)ff->algo.settings)->n_sub = n_sub;
    char err[MASTER_LOCAL_ERRLEN] = "";
    int st = master_local_run(ml, res, err, sizeof err);
    CHECK(st == PORT_OK, "%s: %s", path, err);
    size_t n_c = ff->n_feds;
    CHECK_INT_EQ(res->t_reached, ff->algo.t_end);
    CHECK_INT_EQ(res->msg_thesis, 4 * res->n_accepted * n_c + 5 * n_c * res->iter_total);
    master_local_free(ml);
    fedfile_free(ff);
    return st;
}

static const char *const lorenz_pn[] = {"sigma", "rho", "beta", "x0", "y0", "z0"};
static const char *const lorenz_pv[] = {"10", "28", "2.6666666666666665", "1", "1", "1"};
static const col lorenz_cols[] = {{0, 0, "x"}, {1, 0, "y"}, {1, 1, "z"}};

/* Lorenz at step 0.05 (tol 1e-8, n_sub 8; CS n_sub 3): tracks the reference; errors grow with the
 * chaos (largest Lyapunov exponent ~0.9 /s), so the bound is stated per horizon. */
static void test_lorenz(fmu_kind kind)
{
    wr_result res;
    const char *k = kind == FMU_KIND_CS ? "CS" : "ME";
    if (run_case("examples/lorenz_wr.json", kind, kind == FMU_KIND_CS ? 3 : 0, &res)) return;
    print_hist(kind == FMU_KIND_CS ? "lorenz CS" : "lorenz ME", &res);
    CHECK_INT_EQ(res.n_accepted, 200);
    errs e5 =
        reference_errors("build/fmus/lorenz_me.fmu", 6, lorenz_pn, lorenz_pv, lorenz_cols, 3, 5.0);
    errs e10 =
        reference_errors("build/fmus/lorenz_me.fmu", 6, lorenz_pn, lorenz_pv, lorenz_cols, 3, 10.0);
    printf("  lorenz %s: max |error| x y z up to 5 s: %.2g %.2g %.2g; up to 10 s: %.2g %.2g %.2g "
           "(median %.2g %.2g %.2g)\n",
           k, e5.max[0], e5.max[1], e5.max[2], e10.max[0], e10.max[1], e10.max[2], e10.median[0],
           e10.median[1], e10.median[2]);
    fprintf(g_fig,
            "\nLorenz %s: max |error| x, y, z up to 5 s %.2g, %.2g, %.2g; up to 10 s %.2g, "
            "%.2g, %.2g\n",
            k, e5.max[0], e5.max[1], e5.max[2], e10.max[0], e10.max[1], e10.max[2]);
    if (kind == FMU_KIND_ME)
        fprintf(g_claims,
                "| Awais thesis | §5.2.5, Fig. 6.10 | waveform relaxation converges at every step "
                "of Lorenz at step 0.05 and tracks the reference | %zu of 200 steps accepted, "
                "%zu iterations (most %d); max error %.2g up to 10 s | %s | "
                "tests/unit/wr_fmu_test.c |\n",
                res.n_accepted, res.iter_total, res.iter_max,
                fmax(e10.max[0], fmax(e10.max[1], e10.max[2])),
                res.n_accepted == 200 && e10.max[0] < 1e-4 ? "reproduced" : "not reproduced");
    double b5 = kind == FMU_KIND_CS ? 1e-2 : 1e-5, b10 = kind == FMU_KIND_CS ? 1e-2 : 1e-4;
    for (int c = 0; c < 3; c++) {
        CHECK(e5.max[c] < b5, "lorenz %s: error %g up to 5 s (> %g)", k, e5.max[c], b5);
        CHECK(e10.max[c] < b10, "lorenz %s: error %g up to 10 s (> %g)", k, e10.max[c], b10);
    }
    wr_result_fini(&res);
}

/* Explicit Jacobi over the same slaves: inputs held at the others' outputs at T_n, one step,
 * no iteration (the Awais thesis §4.2.1). */
static int jacobi(const port_master *m, const port_link *links, int64_t h)
{
    double y[2][4], c[4];
    int st = PORT_OK;
    for (size_t j = 0; j < 2; j++)
        port_get_outputs(&m->slaves[j], y[j]);
    if ((st = port_sync(m, NULL))) return st;
    for (int64_t t = m->t_start; t < m->t_end; t += h) {
        for (size_t j = 0, li = 0; j < 2; j++) {
            const port_slave *s = &m->slaves[j];
            for (size_t i = 0; i < s->info.n_in; i++, li++)
                c[i] = y[links[li].from][links[li].out];
            port_poly u = {.t0 = t, .order = 0, .n = s->info.n_in, .c = c};
            port_set_inputs(s, &u);
            port_step(s, t + h, 1, NULL, NULL);
        }
        if ((st = port_sync(m, NULL))) return st;
        for (size_t j = 0; j < 2; j++) {
            port_get_outputs(&m->slaves[j], y[j]);
            port_record(&m->slaves[j]);
        }
        if ((st = port_sync(m, NULL))) return st;
    }
    return st;
}

/* The thesis: explicit Jacobi gives no comparable result on Lorenz even below step 0.01. */
static void test_lorenz_jacobi(void)
{
    fedfile *ff = NULL;
    master_local *ml = open_case("examples/lorenz_wr.json", &ff, FMU_KIND_ME);
    if (!ml) return;
    int64_t h = (int64_t)llround(0.01 / ff->resolution);
    CHECK_INT_EQ(jacobi(master_local_port(ml), master_local_links(ml, NULL), h), PORT_OK);
    errs e5 =
        reference_errors("build/fmus/lorenz_me.fmu", 6, lorenz_pn, lorenz_pv, lorenz_cols, 3, 5.0);
    errs e10 =
        reference_errors("build/fmus/lorenz_me.fmu", 6, lorenz_pn, lorenz_pv, lorenz_cols, 3, 10.0);
    printf("  lorenz explicit Jacobi at step 0.01: max |error| x y z up to 5 s: %.2g %.2g %.2g; "
           "up to 10 s: %.2g %.2g %.2g\n",
           e5.max[0], e5.max[1], e5.max[2], e10.max[0], e10.max[1], e10.max[2]);
    fprintf(g_fig,
            "\nLorenz, explicit Jacobi at step 0.01: max |error| x, y, z up to 5 s %.2g, "
            "%.2g, %.2g; up to 10 s %.2g, %.2g, %.2g\n",
            e5.max[0], e5.max[1], e5.max[2], e10.max[0], e10.max[1], e10.max[2]);
    fprintf(g_claims,
            "| Awais thesis | §5.2.5 | explicit Jacobi gives no comparable result on Lorenz even "
            "below step 0.01 | max x error %.2g up to 10 s at step 0.01 | %s | "
            "tests/unit/wr_fmu_test.c |\n",
            e10.max[0], e10.max[0] > 1 ? "reproduced" : "not reproduced");
    CHECK(e10.max[0] > 1, "Jacobi tracked Lorenz to %g up to 10 s", e10.max[0]);
    master_local_free(ml);
    fedfile_free(ff);
}

static void test_lv(void)
{
    wr_result res;
    if (run_case("examples/lv_wr.json", FMU_KIND_ME, 0, &res)) return;
    print_hist("lotka-volterra ME", &res);
    static const char *const pn[] = {"alpha", "beta", "gamma", "delta", "x0", "y0"};
    static const char *const pv[] = {"0.5", "0.7", "0.27", "0.6", "1", "1"};
    static const col cols[] = {{0, 0, "x"}, {1, 0, "y"}};
    errs e = reference_errors("build/fmus/lv_me.fmu", 6, pn, pv, cols, 2, 100);
    printf("  lotka-volterra: max |error| x %.2g y %.2g (median %.2g %.2g)\n", e.max[0], e.max[1],
           e.median[0], e.median[1]);
    fprintf(g_fig, "\nLotka–Volterra: max |error| x %.2g, y %.2g (median %.2g, %.2g)\n", e.max[0],
            e.max[1], e.median[0], e.median[1]);
    for (int c = 0; c < 2; c++)
        CHECK(e.max[c] < 1e-6, "lv: error %g (> 1e-6)", e.max[c]);
    wr_result_fini(&res);
}

static void test_vdp(void)
{
    wr_result res;
    if (run_case("examples/vdp_wr.json", FMU_KIND_ME, 0, &res)) return;
    print_hist("van der pol ME", &res);
    static const char *const pn[] = {"mu", "x0", "y0"};
    static const char *const pv[] = {"1.53", "2", "0"};
    static const col cols[] = {{0, 0, "x"}, {1, 0, "y"}};
    errs e = reference_errors("build/fmus/vanderpol_me.fmu", 3, pn, pv, cols, 2, 20);
    printf("  van der pol: max |error| x %.2g y %.2g (median %.2g %.2g)\n", e.max[0], e.max[1],
           e.median[0], e.median[1]);
    fprintf(g_fig, "\nVan der Pol: max |error| x %.2g, y %.2g (median %.2g, %.2g)\n", e.max[0],
            e.max[1], e.median[0], e.median[1]);
    for (int c = 0; c < 2; c++)
        CHECK(e.max[c] < 1e-4, "vdp: error %g (> 1e-4)", e.max[c]);
    wr_result_fini(&res);
}

/* Save, step, restore: the outputs (the states of lorenz_yz) are back bit for bit, and the
 * repeated step gives the same bits. */
static void test_rollback(fmu_kind kind)
{
    fedfile *ff = NULL;
    master_local *ml = open_case("examples/lorenz_wr.json", &ff, kind);
    if (!ml) return;
    const port_master *m = master_local_port(ml);
    const port_slave *s = &m->slaves[1];
    double c[3] = {1.5, -2, 3}, a[2], b[2], a2[2], b2[2];
    port_poly u = {.t0 = 0, .order = 2, .n = 1, .c = c};
    int64_t t1 = (int64_t)llround(0.3 / ff->resolution);
    port_set_inputs(s, &u);
    port_step(s, t1, 3, NULL, NULL); /* away from the initial state */
    port_save(s, 2);
    port_get_outputs(s, a);
    port_step(s, 2 * t1, 5, NULL, NULL);
    port_get_outputs(s, b);
    port_restore(s, 2);
    port_get_outputs(s, a2);
    port_step(s, 2 * t1, 5, NULL, NULL);
    port_get_outputs(s, b2);
    CHECK_INT_EQ(port_collect(s), PORT_OK);
    const char *k = kind == FMU_KIND_CS ? "CS" : "ME";
    CHECK(memcmp(a, a2, sizeof a) == 0, "%s: state after restore %.17g %.17g, before %.17g %.17g",
          k, a2[0], a2[1], a[0], a[1]);
    CHECK(memcmp(b, b2, sizeof b) == 0, "%s: repeated step %.17g, first %.17g", k, b2[0], b[0]);
    CHECK(fabs(b[0] - a[0]) > 1e-3, "%s: the step did not move y", k);
    master_local_free(ml);
    fedfile_free(ff);
}

int main(void)
{
    figures_table g, gc;
    g_fig = figures_open(&g, "wr.md", "tests/unit/wr_fmu_test.c");
    g_claims = figures_open(&gc, "wr.claims", "tests/unit/wr_fmu_test.c");
    fprintf(g_fig, "Waveform relaxation over the example FMUs (the files examples/*_wr.json), "
                   "against the monolithic FMU at rtol 1e-10.\n");
    test_rollback(FMU_KIND_ME);
    test_rollback(FMU_KIND_CS);
    test_lorenz(FMU_KIND_ME);
    test_lorenz(FMU_KIND_CS);
    test_lorenz_jacobi();
    test_lv();
    test_vdp();
    figures_close(&g);
    figures_close(&gc);
    return check_summary();
}
