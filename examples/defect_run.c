/* tempo-example-defect: runs a federation file of method "defect-control" in one process (the
 * FMUs stepped here as port slaves, federate/fmu/fmu_slave.h; the master is
 * algorithms/defect_master.h), until tempo-master runs them distributed. Writes the step trace
 * and the outputs at every T_k as CSV with SVG plots; with --convergence, a sweep of fixed steps
 * and orders 0-2 with a log-log plot. doc/algorithms/defect-control.md, doc/run.md.
 *
 *   tempo-example-defect [--output DIR] [--convergence] FILE.json
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "algorithms/defect_master.h"
#include "federate/config/algo_defect.h"
#include "federate/config/fedfile.h"
#include "federate/config/fedfile_algo.h"
#include "federate/config/fedfile_master.h"
#include "federate/fmu/fmu_slave.h"
#include "federate/run/plot_svg.h"
#include "federate/run/results.h"

#define MAX_SLAVES 16
#define MAX_IO     16

typedef struct fed_run {
    const fedfile *ff;
    size_t S, L;
    fmu_step *fmu[MAX_SLAVES];
    fmu_slave *fs[MAX_SLAVES];
    port_slave ps[MAX_SLAVES];
    port_link links[MAX_SLAVES * MAX_IO];
    size_t n_out_total;
    char err[1024];
} fed_run;

static void close_all(fed_run *r)
{
    for (size_t j = 0; j < r->S; j++) {
        fmu_slave_free(r->fs[j]);
        fmu_step_close(r->fmu[j]);
        r->fs[j] = NULL;
        r->fmu[j] = NULL;
    }
}

/* Open federate j's FMU with its parameters (no stop time: the paper's last step may pass the
 * end) and wrap it as a port slave. */
static int open_one(fed_run *r, size_t j)
{
    const fedfile_fed *fd = &r->ff->feds[j];
    const char *names[64];
    char vals[64][64];
    const char *vp[64];
    if (fd->n_params > 64) {
        snprintf(r->err, sizeof r->err, "%s: more than 64 parameters", fd->name);
        return -1;
    }
    for (size_t k = 0; k < fd->n_params; k++) {
        const fedfile_param *p = &fd->params[k];
        switch (p->kind) {
        case FEDFILE_REAL:
            snprintf(vals[k], sizeof vals[k], "%.17g", p->real);
            break;
        case FEDFILE_INTEGER:
            snprintf(vals[k], sizeof vals[k], "%lld", p->integer);
            break;
        case FEDFILE_BOOLEAN:
            snprintf(vals[k], sizeof vals[k], "%s", p->integer ? "true" : "false");
            break;
        default:
            snprintf(vals[k], sizeof vals[k], "%s", p->string ? p->string : "");
            break;
        }
        names[k] = p->name;
        vp[k] = vals[k];
    }
    fmu_step_opts o = {.rtol = fd->solver.rtol,
                       .atol = fd->solver.atol,
                       .solver = fd->solver.method == FEDFILE_METHOD_ADAMS ? FMU_SOLVER_ADAMS
                                                                           : FMU_SOLVER_BDF,
                       .max_step = fd->solver.max_step,
                       .has_start = 1,
                       .start_time = port_seconds(r->ff->resolution, r->ff->algo.t_start),
                       .n_params = fd->n_params,
                       .param_names = names,
                       .param_values = vp,
                       .instance_name = fd->name};
    char e[FMU_ERR_LEN];
    if (fmu_step_open(fd->fmu, &o, &r->fmu[j], e, sizeof e) != FMU_STEP_OK) {
        snprintf(r->err, sizeof r->err, "%s: %s", fd->fmu, e);
        return -1;
    }
    if (fedfile_check_fmu(r->ff, j, fmu_step_md(r->fmu[j]), e, sizeof e) != FEDFILE_OK) {
        snprintf(r->err, sizeof r->err, "%s", e);
        return -1;
    }
    const fmu_md *md = fmu_step_md(r->fmu[j]);
    fmi2ValueReference in[MAX_IO], out[MAX_IO];
    if (fd->n_inputs > MAX_IO || fd->n_outputs > MAX_IO) {
        snprintf(r->err, sizeof r->err, "%s: more than %d inputs or outputs", fd->name, MAX_IO);
        return -1;
    }
    for (size_t i = 0; i < fd->n_inputs; i++)
        in[i] = md->vars[fmu_md_find(md, fd->inputs[i].var)].vr;
    for (size_t i = 0; i < fd->n_outputs; i++)
        out[i] = md->vars[fmu_md_find(md, fd->outputs[i].var)].vr;
    fmu_slave_opts so = {.name = fd->name,
                         .fmu = r->fmu[j],
                         .n_in = fd->n_inputs,
                         .in_vr = in,
                         .n_out = fd->n_outputs,
                         .out_vr = out,
                         .t_now = r->ff->algo.t_start,
                         .tick = r->ff->resolution};
    if (fmu_slave_new(&so, &r->fs[j], &r->ps[j]) != PORT_OK) {
        snprintf(r->err, sizeof r->err, "%s: cannot make a port slave", fd->name);
        return -1;
    }
    return 0;
}

/* Every federate opened and every input linked to the output that publishes its attribute. */
static int open_all(fed_run *r, const fedfile *ff)
{
    memset(r, 0, sizeof *r);
    r->ff = ff;
    if (ff->n_feds > MAX_SLAVES) {
        snprintf(r->err, sizeof r->err, "more than %d federates", MAX_SLAVES);
        return -1;
    }
    for (r->S = 0; r->S < ff->n_feds; r->S++)
        if (open_one(r, r->S)) {
            r->S++;
            return -1;
        }
    for (size_t j = 0; j < ff->n_feds; j++) {
        r->n_out_total += ff->feds[j].n_outputs;
        for (size_t i = 0; i < ff->feds[j].n_inputs; i++) {
            const fedfile_wire *w = &ff->feds[j].inputs[i];
            const fedfile_fed *src = &ff->feds[w->source];
            size_t o = 0;
            while (o < src->n_outputs && !(strcmp(src->outputs[o].cls, w->cls) == 0 &&
                                           strcmp(src->outputs[o].attr, w->attr) == 0))
                o++;
            r->links[r->L++] = (port_link){.to = j, .in = i, .from = (size_t)w->source, .out = o};
        }
    }
    return 0;
}

static dc_config config_of(const fed_run *r)
{
    return fedfile_dc_config(r->ff, r->links, r->L);
}

static port_master master_of(fed_run *r, port_local_clock *clk)
{
    *clk = (port_local_clock){.last = INT64_MIN};
    return (port_master){.ops = &port_local_master_ops,
                         .ctx = clk,
                         .slaves = r->ps,
                         .n_slaves = r->S,
                         .tick = r->ff->resolution,
                         .t_start = r->ff->algo.t_start,
                         .t_end = r->ff->algo.t_end};
}

/* ---- one run: trace and outputs -------------------------------------------------------- */

typedef struct trace {
    fed_run *r;
    res_writer *w;
    size_t n, cap;
    double *t, *H, *leps, *y; /* per step; y: n_out_total per step */
    char err[512];
} trace;

static int trace_step(void *ctx, const dc_step_info *si)
{
    trace *tr = ctx;
    fed_run *r = tr->r;
    if (tr->n == tr->cap) {
        size_t cap = tr->cap ? 2 * tr->cap : 256, no = r->n_out_total;
        double *t = realloc(tr->t, cap * sizeof *t), *H = realloc(tr->H, cap * sizeof *H);
        double *le = realloc(tr->leps, cap * sizeof *le), *y = realloc(tr->y, cap * no * sizeof *y);
        if (t) tr->t = t;
        if (H) tr->H = H;
        if (le) tr->leps = le;
        if (y) tr->y = y;
        if (!t || !H || !le || !y) return 1;
        tr->cap = cap;
    }
    double row[4 + MAX_SLAVES * MAX_IO];
    double t1 = port_seconds(r->ff->resolution, si->t1);
    row[0] = si->H, row[1] = si->eps, row[2] = si->eps_out, row[3] = si->eps_conn;
    size_t k = 0;
    for (size_t j = 0; j < r->S; j++)
        for (size_t o = 0; o < r->ff->feds[j].n_outputs; o++, k++) {
            row[4 + k] = si->out_poly[j][o * (size_t)(si->n + 1)];
            tr->y[tr->n * r->n_out_total + k] = row[4 + k];
        }
    tr->t[tr->n] = t1;
    tr->H[tr->n] = si->H;
    tr->leps[tr->n] = log10(si->eps > 1e-300 ? si->eps : 1e-300);
    tr->n++;
    return res_write_row(tr->w, t1, row, tr->err, sizeof tr->err) != RES_OK;
}

static int plots(const fed_run *r, const trace *tr, const char *dir)
{
    if (!tr->n) return 0; /* no step: nothing to draw */
    char path[4096], e[PLOT_ERRLEN];
    const char *fed = r->ff->federation;
    const double tol = ((const dc_config *)fedfile_settings(r->ff, "defect-control"))->tol;
    double ltol[2] = {log10(tol > 0 ? tol : 1), log10(tol > 0 ? tol : 1)};
    /* a step's values hold over [T_k - H_k, T_k): drawn from the step's start, and the last
     * step's values once more at its end, so that it is drawn over its width (a zero-order
     * hold draws a sample up to the next one) */
    size_t n = tr->n;
    double *ts = malloc(3 * (n + 1) * sizeof *ts), *hs = ts + n + 1, *ls = hs + n + 1;
    if (!ts) return -1;
    for (size_t i = 0; i < n; i++)
        ts[i] = tr->t[i] - tr->H[i], hs[i] = tr->H[i], ls[i] = tr->leps[i];
    ts[n] = tr->t[n - 1], hs[n] = tr->H[n - 1], ls[n] = tr->leps[n - 1];
    double tt[2] = {ts[0], tr->t[n - 1]};
    plot_series s[3] = {
        {.label = "H_k (s)", .t = ts, .y = hs, .n = n + 1, .panel = 0},
        {.label = "log10 eps_k", .t = ts, .y = ls, .n = n + 1, .panel = 1},
        {.label = "log10 tol", .t = tt, .y = ltol, .n = tol > 0 ? 2 : 0, .panel = 1}};
    const char *titles[2] = {"step size H_k, drawn over [T_k - H_k, T_k)",
                             "controlled defect of the step (eq. 38)"};
    plot_opts o = {
        .title = "defect control: steps", .n_panels = 2, .panel_titles = titles, .draw = PLOT_STEP};
    snprintf(path, sizeof path, "%s/%s_steps.svg", dir, fed);
    int prc = plot_svg_file(path, &o, s, 3, e, sizeof e);
    free(ts);
    if (prc != PLOT_OK) {
        fprintf(stderr, "tempo-example-defect: %s\n", e);
        return -1;
    }
    printf("  %s\n", path);
    plot_series ys[MAX_SLAVES * MAX_IO];
    char labels[MAX_SLAVES * MAX_IO][128];
    size_t k = 0, no = r->n_out_total;
    double *col = malloc(tr->n * no * sizeof *col);
    if (!col) return -1;
    for (size_t j = 0; j < r->S; j++)
        for (size_t q = 0; q < r->ff->feds[j].n_outputs; q++, k++) {
            for (size_t i = 0; i < tr->n; i++)
                col[k * tr->n + i] = tr->y[i * no + k];
            snprintf(labels[k], sizeof labels[k], "%s.%s", r->ff->feds[j].name,
                     r->ff->feds[j].outputs[q].var);
            ys[k] = (plot_series){.label = labels[k], .t = tr->t, .y = &col[k * tr->n], .n = tr->n};
        }
    plot_opts oo = {.title = "defect control: outputs at the communication points"};
    snprintf(path, sizeof path, "%s/%s_outputs.svg", dir, fed);
    int rc = plot_svg_file(path, &oo, ys, k, e, sizeof e);
    free(col);
    if (rc != PLOT_OK) {
        fprintf(stderr, "tempo-example-defect: %s\n", e);
        return -1;
    }
    printf("  %s\n", path);
    return 0;
}

static int run_once(const fedfile *ff, const char *dir)
{
    fed_run r;
    trace tr = {.r = &r};
    int status = 1;
    if (open_all(&r, ff)) {
        fprintf(stderr, "tempo-example-defect: %s\n", r.err);
        goto out;
    }
    const char *cols[4 + MAX_SLAVES * MAX_IO];
    char names[MAX_SLAVES * MAX_IO][128];
    cols[0] = "H", cols[1] = "eps", cols[2] = "eps_output", cols[3] = "eps_connection";
    size_t k = 0;
    for (size_t j = 0; j < r.S; j++)
        for (size_t o = 0; o < ff->feds[j].n_outputs; o++, k++) {
            snprintf(names[k], sizeof names[k], "%s.%s", ff->feds[j].name,
                     ff->feds[j].outputs[o].var);
            cols[4 + k] = names[k];
        }
    if (res_open(&tr.w, dir, ff->federation, 4 + k, cols, tr.err, sizeof tr.err) != RES_OK) {
        fprintf(stderr, "tempo-example-defect: %s\n", tr.err);
        goto out;
    }
    port_local_clock clk;
    port_master m = master_of(&r, &clk);
    dc_config cfg = config_of(&r);
    dc_result res;
    int rc = dc_run(&m, &cfg, trace_step, &tr, &res);
    if (rc != PORT_OK) {
        fprintf(stderr, "tempo-example-defect: %s: %s\n", ff->federation,
                tr.err[0] ? tr.err : res.err);
        goto out;
    }
    printf("%s: defect control, m = %d, n = %d, %s: N = %zu steps to T_N = %.6g s, H mean "
           "%.4g s (min %.4g, max %.4g), largest defect %.3g\n",
           ff->federation, cfg.m, cfg.n, cfg.variable ? "variable step" : "fixed step", res.N,
           port_seconds(ff->resolution, res.t_end), res.h_mean, res.h_min, res.h_max, res.eps_max);
    printf("  %s/%s.csv\n", dir, ff->federation);
    if (res_close(tr.w, tr.err, sizeof tr.err) != RES_OK) {
        tr.w = NULL;
        fprintf(stderr, "tempo-example-defect: %s\n", tr.err);
        goto out;
    }
    tr.w = NULL;
    status = plots(&r, &tr, dir) ? 1 : 0;
out:
    if (tr.w) res_close(tr.w, tr.err, sizeof tr.err);
    free(tr.t), free(tr.H), free(tr.leps), free(tr.y);
    close_all(&r);
    return status;
}

/* ---- --convergence: fixed steps 10^-3 .. 1, orders 0..2 --------------------------------- */

#define NH    16   /* H = 10^(-3 + 0.2 i), the paper's grid */
#define REF_H 1e-4 /* s: the reference run, order 2 (self-convergence) */

typedef struct conv {
    fed_run *r;
    int store; /* 1: this is the reference run: keep its polynomials */
    size_t n, cap;
    int64_t *rt;            /* reference: T_j, ticks */
    double *rp;             /* reference: per step n_out_total * 3 coefficients about T_j */
    const struct conv *ref; /* for a measured run */
    double sq_err[MAX_SLAVES * MAX_IO], sq_od[MAX_SLAVES * MAX_IO], sq_cd[MAX_SLAVES * MAX_IO];
} conv;

/* Order-2 Taylor coefficients of the reference output k about t (ticks). */
static void ref_at(const conv *ref, size_t k, int64_t t, double tick, double p[3])
{
    size_t lo = 0, hi = ref->n - 1; /* first step with T_j >= t */
    while (lo < hi) {
        size_t mid = (lo + hi) / 2;
        if (ref->rt[mid] >= t)
            hi = mid;
        else
            lo = mid + 1;
    }
    const double *c = &ref->rp[(lo * ref->r->n_out_total + k) * 3];
    dc_poly_shift(c, 2, (double)(t - ref->rt[lo]) * tick, p);
}

static int conv_step(void *ctx, const dc_step_info *si)
{
    conv *cv = ctx;
    fed_run *r = cv->r;
    size_t no = r->n_out_total, k = 0;
    if (cv->store && cv->n == cv->cap) {
        size_t cap = cv->cap ? 2 * cv->cap : 1024;
        int64_t *rt = realloc(cv->rt, cap * sizeof *rt);
        if (rt) cv->rt = rt;
        double *rp = realloc(cv->rp, cap * no * 3 * sizeof *rp);
        if (rp) cv->rp = rp;
        if (!rt || !rp) return 1;
        cv->cap = cap;
    }
    for (size_t j = 0; j < r->S; j++)
        for (size_t o = 0; o < r->ff->feds[j].n_outputs; o++, k++) {
            const double *y = &si->out_poly[j][o * (size_t)(si->n + 1)];
            if (cv->store) {
                for (int d = 0; d < 3; d++)
                    cv->rp[(cv->n * no + k) * 3 + (size_t)d] = d <= si->n ? y[d] : 0;
                continue;
            }
            double ref[3], diff[DC_MAX_ORDER + 1] = {0};
            ref_at(cv->ref, k, si->t1, r->ff->resolution, ref);
            for (int d = 0; d <= si->n; d++)
                diff[d] += y[d];
            for (int d = 0; d < 3; d++)
                diff[d] -= ref[d];
            cv->sq_err[k] += dc_poly_sqint(diff, si->n > 2 ? si->n : 2, -si->H, 0);
            double od = si->out_def[j][o];
            cv->sq_od[k] += si->H * od * od;
        }
    if (cv->store) cv->rt[cv->n++] = si->t1;
    for (size_t l = 0; l < r->L && !cv->store; l++)
        cv->sq_cd[l] += si->H * si->conn_def[l] * si->conn_def[l];
    return 0;
}

static double fit_slope(const double *lx, const double *ly, int n)
{
    double sx = 0, sy = 0, sxx = 0, sxy = 0;
    for (int i = 0; i < n; i++)
        sx += lx[i], sy += ly[i], sxx += lx[i] * lx[i], sxy += lx[i] * ly[i];
    return (n * sxy - sx * sy) / (n * sxx - sx * sx);
}

/* One fixed-step run of order `order` at step h; fills cv. */
static int conv_run(const fedfile *ff, int order, double h, conv *cv, dc_result *res)
{
    fed_run *r = cv->r;
    if (open_all(r, ff)) {
        fprintf(stderr, "tempo-example-defect: %s\n", r->err);
        close_all(r);
        return -1;
    }
    port_local_clock clk;
    port_master m = master_of(r, &clk);
    dc_config cfg = config_of(r);
    cfg.m = cfg.n = order;
    cfg.variable = 0;
    cfg.h1 = h;
    int rc = dc_run(&m, &cfg, conv_step, cv, res);
    if (rc) fprintf(stderr, "tempo-example-defect: H = %g: %s\n", h, res->err);
    close_all(r);
    return rc ? -1 : 0;
}

/* mkdir -p: every component of dir; an existing folder is fine. */
static int make_dirs(const char *dir)
{
    char p[4096];
    snprintf(p, sizeof p, "%s", dir);
    for (char *c = p + 1;; c++) {
        int end = *c == '\0';
        if (*c == '/' || end) {
            *c = '\0';
            if (mkdir(p, 0777) != 0 && errno != EEXIST) return -1;
            if (end) return 0;
            *c = '/';
        }
    }
}

static int convergence(const fedfile *ff, const char *dir)
{
    fed_run r;
    conv ref = {.r = &r, .store = 1};
    dc_result res;
    int status = 1;
    double lh[NH], lv[3][3][NH]; /* [order][error, output defect, connection defect][H] */
    if (conv_run(ff, 2, REF_H, &ref, &res)) goto out;
    char path[4096];
    snprintf(path, sizeof path, "%s/%s_convergence.csv", dir, ff->federation);
    FILE *f = make_dirs(dir) == 0 ? fopen(path, "w") : NULL;
    if (!f) {
        fprintf(stderr, "tempo-example-defect: %s: %s\n", path, strerror(errno));
        goto out;
    }
    fprintf(f, "order,H,N,error,output_defect,connection_defect\n");
    printf("%s: convergence, fixed steps, orders 0-2 (error against order 2 at H = %g s)\n",
           ff->federation, REF_H);
    for (int order = 0; order <= 2; order++)
        for (int i = 0; i < NH; i++) {
            double h = pow(10, -3 + 0.2 * i);
            conv cv = {.r = &r, .ref = &ref};
            if (conv_run(ff, order, h, &cv, &res)) {
                fclose(f);
                goto out;
            }
            double span = (double)(res.t_end - ff->algo.t_start) * ff->resolution, v[3] = {0};
            for (size_t k = 0; k < r.n_out_total; k++) {
                v[0] = fmax(v[0], sqrt(cv.sq_err[k] / span));
                v[1] = fmax(v[1], sqrt(cv.sq_od[k] / span));
            }
            for (size_t l = 0; l < r.L; l++)
                v[2] = fmax(v[2], sqrt(cv.sq_cd[l] / span));
            fprintf(f, "%d,%.17g,%zu,%.17g,%.17g,%.17g\n", order, h, res.N, v[0], v[1], v[2]);
            lh[i] = log10(h);
            for (int q = 0; q < 3; q++)
                lv[order][q][i] = log10(v[q] > 1e-300 ? v[q] : 1e-300);
        }
    fclose(f);
    printf("  %s\n  slopes over H <= 0.1 (error, output defect, connection defect; \"zero\": "
           "the quantity is zero to rounding, below 1e-14 at every H, and has no slope):\n",
           path);
    for (int order = 0; order <= 2; order++) {
        printf("    order %d:", order);
        for (int q = 0; q < 3; q++) {
            int zero = 1;
            for (int i = 0; i < NH; i++)
                zero &= lv[order][q][i] < -14;
            if (zero)
                printf(" zero");
            else
                printf(" %.2f", fit_slope(lh, lv[order][q], 11));
        }
        printf("\n");
    }
    char labels[9][64];
    plot_series s[9];
    const char *titles[3] = {"RMS error", "RMS output-defect estimate (eq. 32)",
                             "RMS connection defect (eq. 17)"};
    for (int order = 0; order <= 2; order++)
        for (int q = 0; q < 3; q++) {
            /* the panel's title names the quantity: a short label keeps the legend inside */
            snprintf(labels[order * 3 + q], sizeof labels[0], "order %d", order);
            s[order * 3 + q] = (plot_series){.label = labels[order * 3 + q],
                                             .t = lh,
                                             .y = lv[order][q],
                                             .n = NH,
                                             .panel = (size_t)q};
        }
    plot_opts o = {.title = "defect control: convergence (log10 RMS against log10 H)",
                   .xlabel = "log10 H (s)",
                   .ylabel = "log10 RMS",
                   .n_panels = 3,
                   .panel_titles = titles};
    char e[PLOT_ERRLEN];
    snprintf(path, sizeof path, "%s/%s_convergence.svg", dir, ff->federation);
    if (plot_svg_file(path, &o, s, 9, e, sizeof e) != PLOT_OK) {
        fprintf(stderr, "tempo-example-defect: %s\n", e);
        goto out;
    }
    printf("  %s\n", path);
    status = 0;
out:
    free(ref.rt);
    free(ref.rp);
    return status;
}

static const char usage[] =
    "usage: tempo-example-defect [--output DIR] [--convergence] FILE.json\n"
    "Runs a defect-control federation file (doc/algorithms/defect-control.md) in one process:\n"
    "every federate's FMU as a slave of the defect-controlled master.\n"
    "  --output DIR     results folder (default: the file's \"output\"): the step trace and\n"
    "                   the outputs as CSV and SVG\n"
    "  --convergence    sweep fixed steps 1e-3 .. 1 s at orders 0-2 instead, and write the\n"
    "                   log-log convergence plot\n"
    "  --help           print this text and exit\n"
    "  --version        print the version and exit\n"
    "Exit status: 0 done, 1 the run failed, 2 a bad command line or file.\n";

int main(int argc, char **argv)
{
    const char *file = NULL, *dir = NULL;
    int conv_mode = 0;
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--help") == 0) {
            fputs(usage, stdout);
            return 0;
        }
        if (strcmp(argv[i], "--version") == 0) {
            printf("tempo-example-defect %s\n", TEMPO_VERSION);
            return 0;
        }
        if (strcmp(argv[i], "--convergence") == 0)
            conv_mode = 1;
        else if (strcmp(argv[i], "--output") == 0 && i + 1 < argc)
            dir = argv[++i];
        else if (argv[i][0] != '-' && !file)
            file = argv[i];
        else {
            fprintf(stderr, "tempo-example-defect: %s %s (see --help)\n",
                    argv[i][0] == '-' ? "unknown option or missing value:" : "unexpected argument",
                    argv[i]);
            return 2;
        }
    }
    if (!file) {
        fprintf(stderr, "tempo-example-defect: no FILE.json given (see --help)\n");
        return 2;
    }
    fedfile *ff = NULL;
    char err[FEDFILE_ERRLEN];
    if (fedfile_load(file, &ff, err, sizeof err) != FEDFILE_OK) {
        fprintf(stderr, "tempo-example-defect: %s\n", err);
        return 2;
    }
    if (!fedfile_settings(ff, "defect-control")) {
        fprintf(stderr,
                "tempo-example-defect: %s: method \"%s\"; this program runs "
                "\"defect-control\" files (tempo-run runs the others)\n",
                file, fedfile_method_name(ff));
        fedfile_free(ff);
        return 2;
    }
    if (!dir) dir = ff->output;
    int rc = conv_mode ? convergence(ff, dir) : run_once(ff, dir);
    fedfile_free(ff);
    return rc;
}
