/* tempo-example-balance: the case studies of the coupling layer (Scharff, Moshagen, Vondrejc
 * 2017) and of negotiated power exchange (Moshagen 2017) over their federation files, each run
 * in this process many times with other settings (the FMUs stepped as port slaves,
 * federate/fmu/fmu_slave.h; the masters of algorithms/explicit.h and algorithms/energy.h, the
 * same code tempo-master runs). Writes a CSV of figures and SVG plots per case into the output
 * folder and prints the figures. doc/algorithms/balance-correction.md,
 * doc/algorithms/energy-balance.md.
 *
 *   tempo-example-balance [--output DIR] [--examples DIR] CASE...   (usage_text below)
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "algorithms/energy.h"
#include "algorithms/explicit.h"
#include "federate/config/fedfile.h"
#include "federate/config/fedfile_balance.h"
#include "federate/fmu/fmu_slave.h"
#include "federate/run/plot_svg.h"

#define MAX_FEDS 8
#define MAX_IO   8
#define MAX_REC  8
#define PI       3.14159265358979323846

static const char *g_out = "build/run/balance_cases";
static const char *g_ex = "examples";

/* ---- one run of a file, in this process ------------------------------------------------ */

/* The recorded variables of one federate after each record (the start and every step). */
typedef struct track {
    fmu_step *fmu;
    size_t n_var, n, cap;
    const char *var[MAX_REC];
    double *t, *v[MAX_REC];
} track;

typedef struct run {
    fedfile *ff;
    size_t n;
    fmu_step *fmu[MAX_FEDS];
    fmu_slave *fs[MAX_FEDS];
    port_slave ps[MAX_FEDS];
    track tr[MAX_FEDS];
    int plain; /* an energy file run without the refeed (and so without landing) */
    char err[1024];
} run;

static int on_record(void *ctx, int64_t t_ticks)
{
    track *k = ctx;
    if (k->n == k->cap) {
        size_t cap = k->cap ? 2 * k->cap : 256;
        double *t = realloc(k->t, cap * sizeof *t);
        if (!t) return -1;
        k->t = t;
        for (size_t i = 0; i < k->n_var; i++) {
            double *v = realloc(k->v[i], cap * sizeof *v);
            if (!v) return -1;
            k->v[i] = v;
        }
        k->cap = cap;
    }
    k->t[k->n] = fmu_step_time(k->fmu);
    (void)t_ticks;
    for (size_t i = 0; i < k->n_var; i++)
        if (fmu_step_get_by_name(k->fmu, k->var[i], &k->v[i][k->n]) != FMU_STEP_OK)
            k->v[i][k->n] = NAN;
    k->n++;
    return 0;
}

static void run_close(run *r)
{
    for (size_t j = 0; j < r->n; j++) {
        fmu_slave_free(r->fs[j]);
        fmu_step_close(r->fmu[j]);
        free(r->tr[j].t);
        for (size_t i = 0; i < r->tr[j].n_var; i++)
            free(r->tr[j].v[i]);
    }
    fedfile_free(r->ff);
    memset(r, 0, sizeof *r);
}

/* Federate j's FMU with its parameters, inputs (wired, then the master's own) and outputs. */
static int open_fed(run *r, size_t j)
{
    const fedfile_fed *fd = &r->ff->feds[j];
    const char *names[32], *vp[32];
    char vals[32][40];
    if (fd->n_params > 32 || fd->n_inputs > MAX_IO || fd->n_outputs > MAX_IO) {
        snprintf(r->err, sizeof r->err, "%s: too many parameters or variables", fd->name);
        return -1;
    }
    size_t n_params = 0;
    for (size_t k = 0; k < fd->n_params; k++) {
        const fedfile_param *p = &fd->params[k];
        /* Without landing, the power law keeps the FMU's default band and sign rule. */
        if (r->plain && (!strcmp(p->name, "p_eps") || !strcmp(p->name, "p_turn"))) continue;
        size_t q = n_params++;
        if (p->kind == FEDFILE_STRING)
            snprintf(vals[q], sizeof vals[q], "%s", p->string);
        else if (p->kind == FEDFILE_BOOLEAN)
            snprintf(vals[q], sizeof vals[q], "%s", p->integer ? "true" : "false");
        else
            snprintf(vals[q], sizeof vals[q], "%.17g", p->real);
        names[q] = p->name;
        vp[q] = vals[q];
    }
    fmu_step_opts o = {.rtol = fd->solver.rtol,
                       .atol = fd->solver.atol,
                       .has_start = 1,
                       .start_time = port_seconds(r->ff->resolution, r->ff->algo.t_start),
                       .n_params = n_params,
                       .param_names = names,
                       .param_values = vp,
                       .instance_name = fd->name};
    char e[FMU_ERR_LEN];
    if (fmu_step_open(fd->fmu, &o, &r->fmu[j], e, sizeof e) != FMU_STEP_OK) {
        snprintf(r->err, sizeof r->err, "%s: %s", fd->fmu, e);
        return -1;
    }
    const fmu_md *md = fmu_step_md(r->fmu[j]);
    const char *const *extra;
    size_t n_extra = fedfile_balance_extra_inputs(r->ff, j, &extra);
    fmi2ValueReference in[2 * MAX_IO], out[MAX_IO];
    const char *in_names[2 * MAX_IO];
    for (size_t i = 0; i < fd->n_inputs; i++)
        in_names[i] = fd->inputs[i].var;
    for (size_t i = 0; i < n_extra && i < MAX_IO; i++)
        in_names[fd->n_inputs + i] = extra[i];
    for (size_t i = 0; i < fd->n_inputs + n_extra; i++) {
        long k = fmu_md_find(md, in_names[i]);
        if (k < 0) return snprintf(r->err, sizeof r->err, "%s: no %s", fd->name, in_names[i]), -1;
        in[i] = md->vars[k].vr;
    }
    for (size_t i = 0; i < fd->n_outputs; i++) {
        long k = fmu_md_find(md, fd->outputs[i].var);
        if (k < 0) return snprintf(r->err, sizeof r->err, "%s: no output", fd->name), -1;
        out[i] = md->vars[k].vr;
    }
    track *k = &r->tr[j];
    k->fmu = r->fmu[j];
    k->n_var = fd->n_record < MAX_REC ? fd->n_record : MAX_REC;
    for (size_t i = 0; i < k->n_var; i++)
        k->var[i] = fd->record[i];
    fmu_slave_opts so = {.name = fd->name,
                         .fmu = r->fmu[j],
                         .n_in = fd->n_inputs + n_extra,
                         .in_vr = in,
                         .n_out = fd->n_outputs,
                         .out_vr = out,
                         .t_now = r->ff->algo.t_start,
                         .tick = r->ff->resolution,
                         .record = on_record,
                         .record_ctx = k};
    if (fmu_slave_new(&so, &r->fs[j], &r->ps[j]) != PORT_OK)
        return snprintf(r->err, sizeof r->err, "%s: cannot make a slave", fd->name), -1;
    return 0;
}

/* A variant: the coupling layer of every connection (balance), or the power extrapolation
 * of an energy file (p_order 0 held, 1 linear, 2 linear with the missed energy refed and the
 * crossings landed); a label for the legend; the file (NULL: the case's). */
typedef struct variant {
    const char *label;
    bal_settings layer;
    int p_order;
    const char *file;
} variant;

#define LAYER(x, sw, bc, hat, span)                                                                \
    {                                                                                              \
        BAL_EXTRAP_##x, sw, BAL_BC_##bc, BAL_HAT_##hat, span                                       \
    }
#define BALANCE(label, x, sw, bc, hat, span)                                                       \
    {                                                                                              \
        label, LAYER(x, sw, bc, hat, span), 0, NULL                                                \
    }
#define NEGOTIATED(label, p_order)                                                                 \
    {                                                                                              \
        label, LAYER(CONSTANT, 0, OFF, CONST, 1), p_order, E_FILE                                  \
    }
#define E_FILE "springmass_energy.json"

/* Every variant a case runs, found by its label (variant_of): extrapolation, switch,
 * correction, hat and its span in intervals. */
static const variant g_variants[] = {
    BALANCE("const", CONSTANT, 0, OFF, CONST, 1),
    BALANCE("const + BC", CONSTANT, 0, CLASSIC, CONST, 1),
    BALANCE("lin", LINEAR, 0, OFF, CONST, 1),
    BALANCE("standard lin", LINEAR, 0, OFF, CONST, 1),
    BALANCE("lin + BC", LINEAR, 0, CLASSIC, CONST, 1),
    BALANCE("smooth const", CONSTANT, 1, OFF, CONST, 1),
    BALANCE("smooth lin", LINEAR, 1, OFF, CONST, 1),
    BALANCE("smooth const + BC poly", CONSTANT, 1, CLASSIC, POLY, 1),
    BALANCE("smooth lin + BC poly", LINEAR, 1, CLASSIC, POLY, 1),
    BALANCE("smooth const + quick", CONSTANT, 1, QUICK, POLY, 1),
    BALANCE("smooth lin + quick", LINEAR, 1, QUICK, POLY, 1),
    BALANCE("smooth const + quick hat2", CONSTANT, 1, QUICK, I2H, 2),
    BALANCE("smooth const + quick hat4", CONSTANT, 1, QUICK, I2H, 4),
    BALANCE("smooth lin + quick hat2", LINEAR, 1, QUICK, I2H, 2),
    BALANCE("smooth lin + quick hat4", LINEAR, 1, QUICK, I2H, 4),
    NEGOTIATED("negotiated", 1),
    NEGOTIATED("negotiated + refeed", 2),
    NEGOTIATED("negotiated held P", 0),
};

/* The variant labelled label; NULL (with a message) when the table has none. */
static const variant *variant_of(const char *label)
{
    for (size_t i = 0; i < sizeof g_variants / sizeof g_variants[0]; i++)
        if (!strcmp(g_variants[i].label, label)) return &g_variants[i];
    fprintf(stderr, "tempo-example-balance: no variant \"%s\"\n", label);
    return NULL;
}

/* Load FILE (under the examples folder), apply the variant and step H (0: the file's), run
 * to its end (t_end > 0: this end instead). Keeps the tracks in r; returns 0 or -1 (r->err). */
static int run_file(run *r, const char *file, const variant *v, double H, double t_end)
{
    memset(r, 0, sizeof *r);
    char path[512], e[FEDFILE_ERRLEN];
    snprintf(path, sizeof path, "%s/%s", g_ex, file);
    if (fedfile_load(path, &r->ff, e, sizeof e) != FEDFILE_OK) {
        snprintf(r->err, sizeof r->err, "%s", e);
        return -1;
    }
    fedfile *ff = r->ff;
    if (ff->n_feds > MAX_FEDS || !ff->algo.balance) {
        snprintf(r->err, sizeof r->err, "%s: not a balance or energy file", path);
        return -1;
    }
    r->plain = ff->algo.kind != FEDFILE_ALG_BALANCE && v && v->p_order < 2;
    int64_t step = H > 0 ? (int64_t)llround(H / ff->resolution) : ff->algo.t_step;
    if (t_end > 0) ff->algo.t_end = (int64_t)llround(t_end / ff->resolution);
    for (size_t j = 0; j < ff->n_feds; j++, r->n++)
        if (open_fed(r, j)) return -1;
    port_local_clock clk = {.last = INT64_MIN};
    port_master m = {.ops = &port_local_master_ops,
                     .ctx = &clk,
                     .slaves = r->ps,
                     .n_slaves = r->n,
                     .tick = ff->resolution,
                     .t_start = ff->algo.t_start,
                     .t_end = ff->algo.t_end};
    const fedfile_balance *b = ff->algo.balance;
    int rc;
    if (ff->algo.kind == FEDFILE_ALG_BALANCE) {
        explicit_conn c[MAX_FEDS * MAX_IO];
        for (size_t k = 0; k < b->n_conn && k < MAX_FEDS * MAX_IO; k++)
            c[k] = (explicit_conn){.from = b->conn[k].from,
                                   .out = b->conn[k].output,
                                   .to = b->conn[k].to,
                                   .in = b->conn[k].input,
                                   .slope = b->conn[k].slope,
                                   .amount = b->conn[k].amount,
                                   .layer = v ? v->layer : b->conn[k].layer};
        explicit_settings set = {.H = step, .conns = c, .n_conns = b->n_conn};
        rc = explicit_run(&m, &set, NULL, r->err, sizeof r->err);
    } else {
        energy_link l[MAX_FEDS];
        size_t n = fedfile_energy_links(b, l, MAX_FEDS);
        /* only the refeed variant runs with the stored energies (landing) */
        for (size_t k = 0; !(v && v->p_order == 2) && k < n; k++)
            l[k].a_W = l[k].b_W = -1;
        /* p_order 2 here: linear power with the missed energy refed (the file's "energy"). */
        energy_settings set = {
            .H = step, .links = l, .n_links = n, .p_order = v ? (v->p_order ? 1 : 0) : b->p_order};
        rc = energy_run(&m, &set, NULL, r->err, sizeof r->err);
    }
    return rc == PORT_OK ? 0 : -1;
}

/* The recorded series of variable var of federate fed (NULL when absent). */
static const double *series(const run *r, const char *fed, const char *var, size_t *n,
                            const double **t)
{
    for (size_t j = 0; j < r->n; j++) {
        if (strcmp(r->ff->feds[j].name, fed)) continue;
        for (size_t i = 0; i < r->tr[j].n_var; i++)
            if (!strcmp(r->tr[j].var[i], var)) {
                *n = r->tr[j].n;
                if (t) *t = r->tr[j].t;
                return r->tr[j].v[i];
            }
    }
    *n = 0;
    return NULL;
}

/* ---- output helpers -------------------------------------------------------------------- */

static FILE *csv_open(const char *name, const char *header)
{
    char p[600];
    snprintf(p, sizeof p, "%s/%s", g_out, name);
    FILE *f = fopen(p, "w");
    if (!f) {
        fprintf(stderr, "tempo-example-balance: %s: %s\n", p, strerror(errno));
        return NULL;
    }
    fprintf(f, "%s\n", header);
    return f;
}

static int plot(const char *name, const plot_opts *o, const plot_series *s, size_t n)
{
    char p[600], e[PLOT_ERRLEN];
    snprintf(p, sizeof p, "%s/%s", g_out, name);
    if (plot_svg_file(p, o, s, n, e, sizeof e) != PLOT_OK) {
        fprintf(stderr, "tempo-example-balance: %s\n", e);
        return -1;
    }
    printf("  plot %s\n", p);
    return 0;
}

/* Sum of a variable over two federates, sample by sample (the total energy). */
static double *sum2(const run *r, const char *f1, const char *f2, const char *var, size_t *n,
                    const double **t)
{
    size_t n1, n2;
    const double *a = series(r, f1, var, &n1, t), *b = series(r, f2, var, &n2, NULL);
    *n = n1 < n2 ? n1 : n2;
    double *s = a && b ? malloc((*n + 1) * sizeof *s) : NULL;
    for (size_t i = 0; s && i < *n; i++)
        s[i] = a[i] + b[i];
    return s;
}

/* ---- the cases ------------------------------------------------------------------------- */

/* An error-order study: errors against a reference at the end (end_only) or the largest over
 * the records, for four variants at H0 and three halvings. ref(t, k) gives the reference of
 * the k-th (fed, var) pair. */
typedef double (*ref_fn)(double t, int k);

typedef struct study {
    const char *tag, *file;
    const char *fed[2], *var[2];
    int n_pair, end_only;
    ref_fn ref;
    double H0, t_end;
} study;

/* Log-log plot; ratios per halving printed and in the CSV. */
static int orders(const study *st)
{
    static const char *const labels[4] = {"const", "const + BC", "lin", "lin + BC"};
    const char *tag = st->tag;
    double Hs[4] = {st->H0, st->H0 / 2, st->H0 / 4, st->H0 / 8};
    char name[128];
    snprintf(name, sizeof name, "orders_%s.csv", tag);
    FILE *f = csv_open(name, "variant,H,error,ratio");
    if (!f) return -1;
    static double lx[4][4], ly[4][4];
    int rc = 0;
    printf("%s: error %s per variant and step (ratio per halving)\n", tag,
           st->end_only ? "at the end" : "largest over the records");
    for (int v = 0; v < 4 && !rc; v++) {
        double prev = NAN;
        const variant *vr = variant_of(labels[v]);
        printf("  %-14s", labels[v]);
        for (int h = 0; h < 4 && !rc; h++) {
            run r;
            if (!vr || run_file(&r, st->file, vr, Hs[h], st->t_end)) {
                fprintf(stderr, "tempo-example-balance: %s: %s\n", tag, r.err);
                rc = -1;
            }
            double e = 0;
            for (int k = 0; k < st->n_pair && !rc; k++) {
                size_t n;
                const double *t, *y = series(&r, st->fed[k], st->var[k], &n, &t);
                for (size_t i = st->end_only ? n - 1 : 0; y && i < n; i++) {
                    double d = y[i] - st->ref(t[i], k);
                    if (st->end_only)
                        e += d * d;
                    else
                        e = fmax(e, fabs(d));
                }
            }
            if (st->end_only) e = sqrt(e);
            run_close(&r);
            fprintf(f, "%s,%g,%.6g,%.4g\n", labels[v], Hs[h], e, prev / e);
            printf("  H %-6g %.3e (%.2f)", Hs[h], e, prev / e);
            prev = e;
            lx[v][3 - h] = log10(Hs[h]); /* the plot wants the x axis increasing */
            ly[v][3 - h] = log10(e);
        }
        printf("\n");
    }
    fclose(f);
    if (rc) return rc;
    plot_series s[4];
    for (int v = 0; v < 4; v++)
        s[v] = (plot_series){.label = labels[v], .t = lx[v], .y = ly[v], .n = 4};
    char title[160];
    snprintf(title, sizeof title, "%s: convergence (log10 error against log10 H)", tag);
    plot_opts o = {.title = title, .xlabel = "log10 H", .ylabel = "log10 error"};
    snprintf(name, sizeof name, "orders_%s.svg", tag);
    return plot(name, &o, s, 4);
}

/* Total energy against time of several variants of one file at one step: the plot, and per
 * variant E(end), max |E - E0| / E0 into the CSV. */
static int energies(const char *tag, const char *file, const char *f1, const char *f2,
                    const char *const *labels, int nv, int n_plot, double H, double t_end,
                    const char *title)
{
    char name[128];
    snprintf(name, sizeof name, "energy_%s.csv", tag);
    FILE *f = csv_open(name, "variant,H,E0,E_end,max_rel_drift");
    if (!f) return -1;
    plot_series s[16];
    double *keep[16] = {0};
    run r[16];
    int rc = 0, k;
    printf("%s: total energy at H = %g\n", tag, H);
    for (k = 0; k < nv && k < 16 && !rc; k++) {
        const variant *v = variant_of(labels[k]);
        if (!v || run_file(&r[k], v->file ? v->file : file, v, H, t_end)) {
            if (v) fprintf(stderr, "tempo-example-balance: %s: %s\n", tag, r[k].err);
            rc = -1;
            break;
        }
        size_t n;
        const double *t;
        keep[k] = sum2(&r[k], f1, f2, "W", &n, &t);
        double drift = 0;
        for (size_t i = 0; keep[k] && i < n; i++)
            drift = fmax(drift, fabs(keep[k][i] - keep[k][0]) / keep[k][0]);
        const char *label = labels[k];
        if (keep[k] && n) {
            fprintf(f, "%s,%g,%.6g,%.12g,%.4g\n", label, H, keep[k][0], keep[k][n - 1], drift);
            printf("  %-40s E(0) %.6g  E(end) %.6g  max drift %.3g\n", label, keep[k][0],
                   keep[k][n - 1], drift);
        }
        s[k] = (plot_series){.label = label, .t = t, .y = keep[k], .n = keep[k] ? n : 0};
    }
    fclose(f);
    snprintf(name, sizeof name, "energy_%s.svg", tag);
    plot_opts o = {.title = title, .ylabel = "energy (J)", .width = 1300};
    if (!rc) rc = plot(name, &o, s, (size_t)(k < n_plot ? k : n_plot));
    /* The relative drift on a log scale (every variant; floor 1e-16): drift_TAG.svg. */
    for (int i = 0; i < k && !rc; i++)
        for (size_t q = s[i].n; keep[i] && q-- > 0;)
            keep[i][q] = log10(fmax(fabs(keep[i][q] - keep[i][0]) / keep[i][0], 1e-16));
    char dtitle[200];
    snprintf(dtitle, sizeof dtitle, "%s: log10 |E - E0| / E0", tag);
    snprintf(name, sizeof name, "drift_%s.svg", tag);
    plot_opts od = {.title = dtitle, .ylabel = "log10 relative drift", .width = 1300};
    if (!rc) rc = plot(name, &od, s, (size_t)k);
    for (int i = 0; i < k; i++) {
        free(keep[i]);
        run_close(&r[i]);
    }
    return rc;
}

/* Test A: s = cos t, v = -sin t. */
static double ref_testa(double t, int k)
{
    return k == 0 ? cos(t) : -sin(t);
}

/* Test B: the light mass on the moving ground x0 = cos(2 pi t), relaxed at the start. */
#define TB_W1 (2 * PI)
#define TB_W2 100.0 /* sqrt(k2 / m2) = sqrt(5 / 0.0005) */
static double ref_testb(double t, int k)
{
    double d = TB_W2 * TB_W2 - TB_W1 * TB_W1;
    if (k == 0) return (TB_W2 * TB_W2 * cos(TB_W1 * t) - TB_W1 * TB_W1 * cos(TB_W2 * t)) / d;
    return (-TB_W2 * TB_W2 * TB_W1 * sin(TB_W1 * t) + TB_W1 * TB_W1 * TB_W2 * sin(TB_W2 * t)) / d;
}

/* The chain, exactly: M x'' = -K x with M = diag(m1, m2), K = [[k1 + k2, -k2], [-k2, k2]],
 * x(0) = (1, 1) at rest. The squared eigenfrequencies l solve m1 m2 l^2 - (m1 k2 + m2 (k1 +
 * k2)) l + k1 k2 = 0, the mode shapes are (1, k2 / (k2 - l m2)), and the start at rest makes
 * each mode a cosine. */
static double ref_chain(double t, int k)
{
    const double m1 = 1, k1 = 4 * PI * PI, m2 = 0.0005, k2 = 5;
    double b = m1 * k2 + m2 * (k1 + k2), q = sqrt(b * b - 4 * m1 * m2 * k1 * k2);
    double l1 = (b - q) / (2 * m1 * m2), l2 = 2 * k1 * k2 / (b - q); /* l1 l2 = k1 k2 / m1 m2 */
    double r1 = k2 / (k2 - l1 * m2), r2 = k2 / (k2 - l2 * m2);
    double c1 = (1 - r2) / (r1 - r2), c2 = 1 - c1;
    double y1 = cos(sqrt(l1) * t), y2 = cos(sqrt(l2) * t);
    return k == 0 ? c1 * y1 + c2 * y2 : c1 * r1 * y1 + c2 * r2 * y2;
}

/* Test 1, mutual coupling x1' = x2, x2' = -x1 (a rotation), x(0) = (1, 0): exact. */
static double ref_test1(double t, int k)
{
    return k == 0 ? cos(t) : -sin(t);
}

/* Unidirectional x1' = -x1, x2' = x1 - 2 x2, x(0) = (1, 0): x1 = e^-t, x2 = e^-t - e^-2t. */
static double ref_test1u(double t, int k)
{
    return k == 0 ? exp(-t) : exp(-t) - exp(-2 * t);
}

/* The error-order studies (orders): the compared variables, the error (at the end, or the
 * largest over the run: the one-way Test 1's largest is its first step's, where every variant
 * extrapolates constantly, so it takes the end), the first step (then three halvings), the
 * end. */
static const study g_studies[] = {
    {"testa", "springmass_balance.json", {"spring", "mass"}, {"s", "v"}, 2, 1, ref_testa, 0.2, 20},
    {"testb", "groundmass_balance.json", {"light"}, {"x2"}, 1, 0, ref_testb, 0.02, 4},
    {"chain", "chain_balance.json", {"heavy", "light"}, {"x1", "x2"}, 2, 0, ref_chain, 0.02, 10},
    {"test1_mutual", "linear2d_balance.json", {"x1", "x2"}, {"x", "x"}, 2, 1, ref_test1, 0.2, 10},
    {"test1_uni", "linear2d_uni_balance.json", {"x1", "x2"}, {"x", "x"}, 2, 1, ref_test1u, 0.2, 4},
};

/* Run the study tagged tag. */
static int orders_of(const char *tag)
{
    for (size_t i = 0; i < sizeof g_studies / sizeof g_studies[0]; i++)
        if (!strcmp(g_studies[i].tag, tag)) return orders(&g_studies[i]);
    return -1;
}

static int case_testa(void)
{
    if (orders_of("testa")) return -1;
    static const char *const vs[] = {
        "const + BC",
        "lin",
        "lin + BC",
        "smooth const + BC poly",
        "smooth const + quick",
        "smooth const + quick hat2",
        "smooth const + quick hat4",
        "smooth lin + BC poly",
        "smooth lin + quick",
        "const",
    };
    return energies(
        "testa", "springmass_balance.json", "spring", "mass", vs, (int)(sizeof vs / sizeof vs[0]),
        9, 0.2, 20,
        "Test A, H = 0.2: total energy (exact 0.5; constant, off the scale, in the CSV)");
}

/* The light mass driven by an input u: x'' = -w2^2 (x - u), one RK4 step of dt. */
static void osc_rk4(double *x, double *v, double dt, const bal_poly *p, double s)
{
    const double w = TB_W2 * TB_W2;
    double u0 = bal_poly_eval(p, s), um = bal_poly_eval(p, s + dt / 2),
           u1 = bal_poly_eval(p, s + dt);
    double k1x = *v, k1v = -w * (*x - u0);
    double k2x = *v + dt / 2 * k1v, k2v = -w * (*x + dt / 2 * k1x - um);
    double k3x = *v + dt / 2 * k2v, k3v = -w * (*x + dt / 2 * k2x - um);
    double k4x = *v + dt * k3v, k4v = -w * (*x + dt * k3x - u1);
    *x += dt / 6 * (k1x + 2 * k2x + 2 * k3x + k4x);
    *v += dt / 6 * (k1v + 2 * k2v + 2 * k3v + k4v);
}

/* The input the light mass receives over [0, T] for one layer, with the exact ground
 * (open loop): max |u'|, max |u''| and the sign changes of u'' per interval, sampled at 64
 * points per interval from the polynomials the layer hands out; the largest jump of u at an
 * exchange time; and the receiver's own oscillation: the light mass integrated through the
 * same input at H/256, the mean over the second half of m2 (v2 - v2ref)^2 (its deviation's
 * kinetic energy doubled: by equipartition the energy of an oscillation at w2, while the slow
 * tracking error of a delayed input adds only (w1/w2)^2 of its own potential energy).
 * xs receives x2 at every exchange time (to compare with the FMU run). */
static void smoothness(const bal_settings *set, double H, double T, double *d1, double *d2,
                       double *turns, double *jump, double *osc, double *xs)
{
    bal_conn c;
    char e[128];
    *d1 = *d2 = *turns = *jump = *osc = 0;
    double x = 1, v = 0, prev_end = 1;
    long n_osc = 0;
    long n_turn = 0, steps = lround(T / H);
    if (bal_conn_init(&c, set, e, sizeof e)) return;
    double last = 0;
    for (long j = 0; j < steps; j++) {
        double t0 = j * H;
        if (j > 0) {
            double A = (sin(TB_W1 * t0) - sin(TB_W1 * (t0 - H))) / TB_W1; /* exact amount */
            bal_conn_close(&c, A);
        }
        bal_poly p;
        if (bal_conn_open(&c, H, cos(TB_W1 * t0), -TB_W1 * sin(TB_W1 * t0), &p)) return;
        if (j >= steps / 10) *jump = fmax(*jump, fabs(bal_poly_eval(&p, 0) - prev_end));
        prev_end = bal_poly_eval(&p, H);
        xs[j] = x;
        for (int i = 0; i < 256; i++) {
            osc_rk4(&x, &v, H / 256, &p, H * i / 256);
            double t = t0 + H * (i + 1) / 256, dv = v - ref_testb(t, 1);
            if (t >= T / 2) *osc += 0.0005 * dv * dv, n_osc++;
        }
        xs[j + 1] = x;
        for (int i = 0; i <= 64; i++) {
            double s = H * i / 64, a = bal_poly_deriv(&p, 1, s), b = bal_poly_deriv(&p, 2, s);
            if (j >= steps / 10) { /* past the start-up (the constant first step) */
                *d1 = fmax(*d1, fabs(a));
                *d2 = fmax(*d2, fabs(b));
            }
            if (b != 0 && last != 0 && (b > 0) != (last > 0)) n_turn++;
            if (b != 0) last = b;
        }
    }
    *turns = (double)n_turn / (double)steps;
    *osc /= n_osc ? (double)n_osc : 1;
}

static int case_testb(void)
{
    /* Error orders: the light mass's position against the exact response, largest over the
     * run, at H = 0.02 and three halvings. */
    if (orders_of("testb")) return -1;
    static const char *const labels[] = {
        "const",
        "lin",
        "const + BC",
        "lin + BC",
        "smooth const",
        "smooth lin",
        "smooth const + BC poly",
        "smooth lin + BC poly",
        "smooth lin + quick",
        "smooth lin + quick hat2",
        "smooth lin + quick hat4",
        "smooth const + quick hat2",
    };
    const int nv = (int)(sizeof labels / sizeof labels[0]);
    const variant *vs[16];
    for (int k = 0; k < nv; k++)
        if (!(vs[k] = variant_of(labels[k]))) return -1;
    const double H = 0.02, T = 4;
    FILE *f = csv_open("testb.csv", "variant,max_du,max_d2u,turns_per_interval,max_jump,"
                                    "osc_energy,error,fmu_vs_open_loop");
    if (!f) return -1;
    plot_series s[16];
    double *keep[16] = {0};
    const double *tt[16];
    run r[16];
    int rc = 0, k;
    printf("testb: H = %g, T = %g; input: max |u'| (exact %.3g), max |u''| (exact %.3g), turns of "
           "u'' per interval, largest jump; receiver: own oscillation energy (mean over the "
           "second half), largest |x2 - exact| (FMU run), FMU run against the open-loop "
           "integration\n",
           H, T, TB_W1, TB_W1 * TB_W1);
    for (k = 0; k < nv && !rc; k++) {
        double d1, d2, turns, jump, osc, xs[512];
        smoothness(&vs[k]->layer, H, T, &d1, &d2, &turns, &jump, &osc, xs);
        if (run_file(&r[k], "groundmass_balance.json", vs[k], H, T)) {
            fprintf(stderr, "tempo-example-balance: testb: %s\n", r[k].err);
            rc = -1;
            break;
        }
        size_t n, nv2;
        const double *x = series(&r[k], "light", "x2", &n, &tt[k]);
        const double *v = series(&r[k], "light", "v2", &nv2, NULL);
        keep[k] = malloc((n + 1) * sizeof(double));
        double err = 0, agree = 0;
        /* The federation's receiver: its error against the exact motion, the oscillation
         * measure m2 (v2 - v2ref)^2 at the exchange times for the plot, and its agreement
         * with the open-loop integration above (the same input). */
        for (size_t i = 0; keep[k] && x && v && i < n && i < nv2; i++) {
            double dx = x[i] - ref_testb(tt[k][i], 0), dv = v[i] - ref_testb(tt[k][i], 1);
            keep[k][i] = 0.0005 * dv * dv;
            err = fmax(err, fabs(dx));
            if (i < 512) agree = fmax(agree, fabs(x[i] - xs[i]));
        }
        fprintf(f, "%s,%.6g,%.6g,%.4g,%.6g,%.6g,%.6g,%.3g\n", vs[k]->label, d1, d2, turns, jump,
                osc, err, agree);
        printf("  %-40s %6.3g %9.4g %5.2f %8.3g   %.3e  %.3e %.1e\n", vs[k]->label, d1, d2, turns,
               jump, osc, err, agree);
        /* Two panels: the constant family (no smoothing, smoothing, + BC with one-interval
         * hats, + quick refeed over two) and the linear one. */
        s[k] = (plot_series){.label = vs[k]->label,
                             .t = tt[k],
                             .y = keep[k],
                             .n = keep[k] ? n : 0,
                             .panel = vs[k]->layer.extrap == BAL_EXTRAP_LINEAR};
    }
    fclose(f);
    static const int shown[] = {0, 4, 6, 11, 1, 5, 7, 9};
    plot_series sp[8];
    size_t n_shown = 0;
    for (size_t i = 0; i < 8; i++)
        if (shown[i] < k) sp[n_shown++] = s[shown[i]];
    /* The oscillation energy on a log scale (it spans decades between the variants). */
    for (int i = 0; i < k && !rc; i++)
        for (size_t q = 0; keep[i] && q < s[i].n; q++)
            keep[i][q] = log10(fmax(keep[i][q], 1e-16));
    static const char *const panels[] = {"constant extrapolation", "linear extrapolation"};
    plot_opts o = {.title = "Test B, H = 0.02: the receiver's own oscillation, log10 m2 (v2 - "
                            "v2ref)^2 at the exchange times",
                   .ylabel = "log10 energy (J)",
                   .width = 1300,
                   .n_panels = 2,
                   .panel_titles = panels};
    if (!rc) rc = plot("testb_oscillation.svg", &o, sp, n_shown);
    for (int i = 0; i < k; i++) {
        free(keep[i]);
        run_close(&r[i]);
    }
    return rc;
}

static int case_chain(void)
{
    /* Error orders: both positions against the exact motion, largest over the run, at
     * H = 0.02 and three halvings. */
    if (orders_of("chain")) return -1;
    static const char *const vs[] = {
        "const",
        "const + BC",
        "smooth const",
        "smooth const + BC poly",
        "smooth const + quick",
        "lin",
        "lin + BC",
        "smooth lin",
        "smooth lin + BC poly",
        "smooth lin + quick",
        "smooth lin + quick hat2",
    };
    return energies("chain", "chain_balance.json", "heavy", "light", vs,
                    (int)(sizeof vs / sizeof vs[0]), 11, 0.02, 10,
                    "two-mass chain (eq. 14), H = 0.02: total energy");
}

static int case_test1(void)
{
    if (orders_of("test1_mutual") || orders_of("test1_uni")) return -1;
    /* The unidirectional first component receives nothing: its error is the solver's. */
    run r;
    const variant *c = variant_of("const");
    if (!c || run_file(&r, "linear2d_uni_balance.json", c, 0.2, 10)) return -1;
    size_t n;
    const double *t, *x = series(&r, "x1", "x", &n, &t);
    double e = 0;
    for (size_t i = 0; x && i < n; i++)
        e = fmax(e, fabs(x[i] - exp(-t[i])));
    printf("test1_uni: x1 (no input) largest error %.3g at H = 0.2, constant\n", e);
    FILE *f = csv_open("test1_uni_x1.csv", "H,error_x1");
    if (f) fprintf(f, "0.2,%.6g\n", e), fclose(f);
    run_close(&r);
    return 0;
}

static int case_energy(void)
{
    static const double Hs[2] = {0.2, 0.15};
    for (int i = 0; i < 2; i++) {
        static const char *const v[] = {"negotiated", "standard lin", "lin + BC",
                                        "negotiated + refeed", "negotiated held P"};
        char tag[64], title[160];
        snprintf(tag, sizeof tag, "test2_H%g", Hs[i]);
        snprintf(title, sizeof title,
                 "Test 2, H = %g: total energy (exact 0.5; held power, off the scale, in the CSV)",
                 Hs[i]);
        /* The negotiated runs come from the energy file; the others from the balance file of
         * the same oscillator. */
        if (energies(tag, "springmass_balance.json", "spring", "mass", v, 5, 4, Hs[i], 75, title))
            return -1;
    }
    return 0;
}

/* mkdir -p: every missing folder of path. */
static void mkdirs(const char *path)
{
    char p[512];
    snprintf(p, sizeof p, "%s", path);
    for (char *c = p + 1; *c; c++)
        if (*c == '/') {
            *c = '\0';
            mkdir(p, 0777);
            *c = '/';
        }
    mkdir(p, 0777);
}

/* The cases, by name (the usage text lists them in this order). */
typedef struct case_def {
    const char *name;
    int (*run)(void);
} case_def;

static const case_def g_cases[] = {
    {"testa", case_testa}, {"testb", case_testb},   {"chain", case_chain},
    {"test1", case_test1}, {"energy", case_energy},
};

static const case_def *case_of(const char *name)
{
    for (size_t i = 0; i < sizeof g_cases / sizeof g_cases[0]; i++)
        if (!strcmp(g_cases[i].name, name)) return &g_cases[i];
    return NULL;
}

static const char usage_text[] =
    "usage: tempo-example-balance [--output DIR] [--examples DIR] CASE...\n"
    "  CASE: testa   Test A: error orders per variant, energy at H = 0.2\n"
    "        testb   Test B (moving ground): error orders, input smoothness, receiver "
    "oscillation\n"
    "        chain   the two-mass chain (eq. 14): error orders, energy per variant at H = 0.02\n"
    "        test1   Test 1 of Moshagen: 2-D linear system, error orders\n"
    "        energy  Test 2 of Moshagen: energy to T = 75 at H = 0.2 and 0.15\n"
    "  --output DIR    figures (CSV) and plots (SVG) (default build/run/balance_cases)\n"
    "  --examples DIR  the folder of the federation files (default examples)\n"
    "  --help          print this text and exit\n"
    "  --version       print the version and exit\n"
    "Exit status: 0 done, 1 a run failed, 2 usage.\n";

int main(int argc, char **argv)
{
    int n_cases = 0;
    const case_def *cases[8];
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--help")) {
            fputs(usage_text, stdout);
            return 0;
        } else if (!strcmp(argv[i], "--version")) {
            printf("tempo-example-balance %s\n", TEMPO_VERSION);
            return 0;
        } else if (!strcmp(argv[i], "--output") || !strcmp(argv[i], "--examples")) {
            if (i + 1 >= argc) {
                fprintf(stderr, "tempo-example-balance: %s needs a value\n", argv[i]);
                return 2;
            }
            *(argv[i][2] == 'o' ? &g_out : &g_ex) = argv[i + 1];
            i++;
        } else if (argv[i][0] == '-') {
            fprintf(stderr, "tempo-example-balance: unknown option \"%s\" (see --help)\n", argv[i]);
            return 2;
        } else if (!case_of(argv[i])) {
            fprintf(stderr, "tempo-example-balance: unknown case \"%s\" (see --help)\n", argv[i]);
            return 2;
        } else if (n_cases < 8) {
            cases[n_cases++] = case_of(argv[i]);
        }
    }
    if (!n_cases) {
        fprintf(stderr, "tempo-example-balance: no case given (see --help)\n");
        return 2;
    }
    mkdirs(g_out);
    int rc = 0;
    for (int i = 0; i < n_cases && !rc; i++)
        rc = cases[i]->run();
    return rc ? 1 : 0;
}
