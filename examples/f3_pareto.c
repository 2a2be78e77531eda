/* tempo-example-f3ornits: the RMSE-against-steps (Pareto) comparison of F3ORNITS with each
 * error normalisation and each fit beside fixed-step ZOH Jacobi, for an "f3ornits" federation
 * file run in one process (every federate's FMU opened here, the master
 * algorithms/f3ornits_master.h over fmu_slaves), each output measured at its slave's communication
 * times against a monolithic reference FMU stepped to the same times. Writes NAME_pareto.csv and
 * NAME_pareto.svg (log10 RMSE against log10 instants, one panel per output).
 * doc/algorithms/f3ornits.md.
 *
 *   tempo-example-f3ornits --reference FMU [--output DIR] FILE.json
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "algorithms/f3ornits_master.h"
#include "federate/config/fedfile.h"
#include "federate/config/fedfile_master.h"
#include "federate/fmu/fmu_slave.h"
#include "federate/fmu/fmu_step.h"
#include "federate/run/plot_svg.h"

#define MAX_OUT 16                 /* outputs measured, over all federates */
#define N_JAC   5                  /* ZOH Jacobi steps */
#define N_F3    6                  /* F3ORNITS: three normalisations times two fits */
#define N_RUNS  (N_JAC + 2 * N_F3) /* the F3ORNITS runs without and with C1 smoothing */

static const double JAC_H[N_JAC] = {0.005, 0.01, 0.02, 0.05, 0.1}; /* s */

/* One run's measurements. */
typedef struct meas {
    const fedfile *ff;
    const port_master *pm; /* the run's slaves: outputs are read again at each instant */
    fmu_step *ref;         /* the monolithic reference, at time ref_t */
    int64_t ref_t;         /* ticks */
    fmi2ValueReference ref_vr[MAX_OUT];
    double ref_y[MAX_OUT]; /* reference outputs at ref_t */
    size_t n_out, fed_of[MAX_OUT], out_of[MAX_OUT];
    int64_t t_prev[MAX_OUT]; /* per output: its slave's previous time, ticks */
    double sq[MAX_OUT];      /* time-weighted squared errors */
    char err[2048];
} meas;

static int observe(void *ctx, const f3_step_info *si)
{
    meas *m = ctx;
    double tick = m->ff->resolution;
    if (si->t1 > m->ref_t) {
        double reached;
        if (fmu_step_to(m->ref, port_seconds(tick, si->t1), NULL, &reached) ||
            fmu_step_get_real(m->ref, m->n_out, m->ref_vr, m->ref_y)) {
            snprintf(m->err, sizeof m->err, "reference: %s", fmu_step_errmsg(m->ref));
            return 1;
        }
        m->ref_t = si->t1;
    }
    /* The outputs as the slaves record them: after the inputs of the next step are set, so an
     * output with direct feedthrough (tau1 = f(omega2)) sees the input of t1, not the one in
     * force over the step that ended (si->y, read before it); the CSV rows hold the same. */
    double y[MAX_OUT];
    size_t read_for = (size_t)-1;
    for (size_t k = 0; k < m->n_out; k++) {
        size_t j = m->fed_of[k];
        if (!si->stepped[j]) continue;
        if (j != read_for) {
            const port_slave *s = &m->pm->slaves[j];
            if (s->info.n_out > MAX_OUT || s->ops->get_outputs(s->ctx, y) ||
                port_sync(m->pm, NULL) != PORT_OK) {
                snprintf(m->err, sizeof m->err, "%s: cannot read the outputs", s->info.name);
                return 1;
            }
            read_for = j;
        }
        double d = y[m->out_of[k]] - m->ref_y[k];
        m->sq[k] += (double)(si->t1 - m->t_prev[k]) * tick * d * d;
        m->t_prev[k] = si->t1;
    }
    return 0;
}

/* The reference FMU at the start, with every federate parameter it also has. */
static int open_ref(const fedfile *ff, const char *path, meas *m)
{
    const char *names[128], *vals[128];
    char buf[128][32];
    size_t np = 0;
    for (size_t j = 0; j < ff->n_feds; j++)
        for (size_t k = 0; k < ff->feds[j].n_params && np < 128; k++) {
            const fedfile_param *p = &ff->feds[j].params[k];
            if (p->kind != FEDFILE_REAL && p->kind != FEDFILE_INTEGER) continue;
            snprintf(buf[np], sizeof buf[np], "%.17g", p->real);
            names[np] = p->name, vals[np] = buf[np], np++;
        }
    fmu_step_opts o = {.rtol = 1e-12,
                       .has_start = 1,
                       .start_time = port_seconds(ff->resolution, ff->algo.t_start)};
    char e[FMU_ERR_LEN];
    /* parameters the reference lacks are dropped: open once to read its description */
    if (fmu_step_open(path, &o, &m->ref, e, sizeof e) != FMU_STEP_OK) {
        snprintf(m->err, sizeof m->err, "%.400s: %.1000s", path, e);
        return -1;
    }
    const fmu_md *md = fmu_step_md(m->ref);
    size_t kept = 0;
    for (size_t k = 0; k < np; k++)
        if (fmu_md_find(md, names[k]) >= 0) names[kept] = names[k], vals[kept++] = vals[k];
    fmu_step_close(m->ref);
    o.n_params = kept, o.param_names = names, o.param_values = vals;
    if (fmu_step_open(path, &o, &m->ref, e, sizeof e) != FMU_STEP_OK) {
        snprintf(m->err, sizeof m->err, "%.400s: %.1000s", path, e);
        return -1;
    }
    md = fmu_step_md(m->ref);
    m->n_out = 0;
    for (size_t j = 0; j < ff->n_feds; j++)
        for (size_t o2 = 0; o2 < ff->feds[j].n_outputs; o2++) {
            long v = fmu_md_find(md, ff->feds[j].outputs[o2].var);
            if (v < 0 || m->n_out == MAX_OUT) continue;
            m->fed_of[m->n_out] = j, m->out_of[m->n_out] = o2;
            m->ref_vr[m->n_out++] = md->vars[v].vr;
        }
    m->ref_t = ff->algo.t_start;
    if (!m->n_out || fmu_step_get_real(m->ref, m->n_out, m->ref_vr, m->ref_y)) {
        snprintf(m->err, sizeof m->err, "%s: no output of the file in the reference", path);
        return -1;
    }
    return 0;
}

/* Federate j's FMU with its parameters and solver settings, as a port slave (no CSV). */
typedef struct fed_slave {
    fmu_step *fmu;
    fmu_slave *fs;
} fed_slave;

static int open_fed(const fedfile *ff, size_t j, fed_slave *f, port_slave *ps, char *err,
                    size_t errlen)
{
    const fedfile_fed *fd = &ff->feds[j];
    const char *names[64], *vals[64];
    char buf[64][40];
    fmi2ValueReference in[MAX_OUT], out[MAX_OUT];
    if (fd->n_params > 64 || fd->n_inputs > MAX_OUT || fd->n_outputs > MAX_OUT) {
        snprintf(err, errlen, "%s: too many parameters, inputs or outputs", fd->name);
        return -1;
    }
    for (size_t k = 0; k < fd->n_params; k++) {
        const fedfile_param *p = &fd->params[k];
        if (p->kind == FEDFILE_STRING)
            snprintf(buf[k], sizeof buf[k], "%s", p->string ? p->string : "");
        else if (p->kind == FEDFILE_BOOLEAN)
            snprintf(buf[k], sizeof buf[k], "%s", p->integer ? "true" : "false");
        else
            snprintf(buf[k], sizeof buf[k], "%.17g", p->real);
        names[k] = p->name, vals[k] = buf[k];
    }
    fmu_step_opts o = {.rtol = fd->solver.rtol,
                       .atol = fd->solver.atol,
                       .max_step = fd->solver.max_step,
                       .has_start = 1,
                       .start_time = port_seconds(ff->resolution, ff->algo.t_start),
                       .n_params = fd->n_params,
                       .param_names = names,
                       .param_values = vals,
                       .instance_name = fd->name};
    char e[FMU_ERR_LEN];
    if (fmu_step_open(fd->fmu, &o, &f->fmu, e, sizeof e) != FMU_STEP_OK) {
        snprintf(err, errlen, "%.400s: %.1000s", fd->fmu, e);
        return -1;
    }
    const fmu_md *md = fmu_step_md(f->fmu);
    for (size_t i = 0; i < fd->n_inputs + fd->n_outputs; i++) {
        const char *v = i < fd->n_inputs ? fd->inputs[i].var : fd->outputs[i - fd->n_inputs].var;
        long k = fmu_md_find(md, v);
        if (k < 0) {
            snprintf(err, errlen, "%s: no variable %s", fd->fmu, v);
            return -1;
        }
        if (i < fd->n_inputs)
            in[i] = md->vars[k].vr;
        else
            out[i - fd->n_inputs] = md->vars[k].vr;
    }
    fmu_slave_opts so = {.name = fd->name,
                         .fmu = f->fmu,
                         .n_in = fd->n_inputs,
                         .in_vr = in,
                         .n_out = fd->n_outputs,
                         .out_vr = out,
                         .t_now = ff->algo.t_start,
                         .tick = ff->resolution};
    if (fmu_slave_new(&so, &f->fs, ps) != PORT_OK) {
        snprintf(err, errlen, "%s: cannot make a port slave", fd->name);
        return -1;
    }
    return 0;
}

/* One run of cfg (links filled here); m receives the RMSEs in sq. */
static int run_one(const fedfile *ff, const char *ref, f3_config cfg, meas *m, f3_result *res)
{
    memset(m, 0, sizeof *m);
    m->ff = ff;
    size_t S = ff->n_feds, ncp = 0;
    fedfile_coupling *cp = NULL;
    fed_slave *l = calloc(S, sizeof *l);
    port_slave *ps = calloc(S, sizeof *ps);
    dc_link *links = NULL;
    int rc = -1;
    if (!l || !ps || fedfile_master_couplings(ff, &cp, &ncp, m->err, sizeof m->err) != FEDFILE_OK ||
        !(links = calloc(ncp + 1, sizeof *links)) || open_ref(ff, ref, m))
        goto out;
    for (size_t k = 0; k < ncp; k++)
        links[k] = (dc_link){cp[k].to, cp[k].input, cp[k].from, cp[k].output};
    for (size_t j = 0; j < S; j++)
        if (open_fed(ff, j, &l[j], &ps[j], m->err, sizeof m->err)) goto out;
    for (size_t k = 0; k < m->n_out; k++)
        m->t_prev[k] = ff->algo.t_start;
    port_local_clock clk = {.last = INT64_MIN};
    port_master pm = {.ops = &port_local_master_ops,
                      .ctx = &clk,
                      .slaves = ps,
                      .n_slaves = S,
                      .tick = ff->resolution,
                      .t_start = ff->algo.t_start,
                      .t_end = ff->algo.t_end};
    cfg.n_links = ncp, cfg.links = links;
    m->pm = &pm;
    if (f3_run(&pm, &cfg, observe, m, res) != PORT_OK) {
        if (!m->err[0]) snprintf(m->err, sizeof m->err, "%s", res->err);
        goto out;
    }
    double span = ff->algo.end - ff->algo.start;
    for (size_t k = 0; k < m->n_out; k++)
        m->sq[k] = sqrt(m->sq[k] / span);
    rc = 0;
out:
    for (size_t j = 0; l && j < S; j++) {
        fmu_slave_free(l[j].fs);
        fmu_step_close(l[j].fmu);
    }
    fmu_step_close(m->ref);
    free(l), free(ps), free(cp), free(links);
    return rc;
}

static int make_dir(const char *d)
{
    return mkdir(d, 0777) == 0 || errno == EEXIST ? 0 : -1;
}

static int pareto(const fedfile *ff, const char *ref, const char *dir)
{
    static const char *const norm[3] = {"magnitude", "amplitude", "damped"};
    static const char *const fitn[2] = {"extrapolation", "cls"};
    const fedfile_f3 *f = &ff->algo.f3;
    char path[4096];
    if (make_dir(dir)) {
        fprintf(stderr, "tempo-example-f3ornits: %s: %s\n", dir, strerror(errno));
        return 1;
    }
    snprintf(path, sizeof path, "%s/%s_pareto.csv", dir, ff->federation);
    FILE *out = fopen(path, "w");
    if (!out) {
        fprintf(stderr, "tempo-example-f3ornits: %s: %s\n", path, strerror(errno));
        return 1;
    }
    double lx[N_RUNS], ly[N_RUNS][MAX_OUT];
    meas m;
    size_t n_out = 0;
    for (int r = 0; r < N_RUNS; r++) {
        f3_config c = {.fit = F3_FIT_EXTRAP, .order = 0, .dt_init = r < N_JAC ? JAC_H[r] : 0};
        int smooth = r >= N_JAC + N_F3, i = (r - N_JAC) % N_F3;
        if (r >= N_JAC) /* F3ORNITS: the file's settings, each norm and fit, then smoothed */
            c = (f3_config){.fit = (f3_fit)(i % 2),
                            .order = -1,
                            .variable = 1,
                            .smooth = smooth,
                            .norm = (f3_norm)(i / 2),
                            .mu = f->mu,
                            .rtol = f->rtol,
                            .atol = f->atol,
                            .rho_min = f->rho_min,
                            .rho_max = f->rho_max,
                            .safety = f->safety,
                            .dt_init = f->dt_init,
                            .dt_max = f->dt_max};
        f3_result res;
        if (run_one(ff, ref, c, &m, &res)) {
            fprintf(stderr, "tempo-example-f3ornits: run %d: %s\n", r, m.err);
            fclose(out);
            return 1;
        }
        n_out = m.n_out;
        if (r == 0) {
            fputs("method,norm,fit,instants", out);
            for (size_t k = 0; k < n_out; k++)
                fprintf(out, ",rmse_%s.%s", ff->feds[m.fed_of[k]].name,
                        ff->feds[m.fed_of[k]].outputs[m.out_of[k]].var);
            fputc('\n', out);
            printf("%s: RMSE against the reference at the communication times\n", ff->federation);
        }
        const char *method = r < N_JAC ? "zoh-jacobi" : smooth ? "f3ornits-smooth" : "f3ornits";
        fprintf(out, "%s,%s,%s,%zu", method, r < N_JAC ? "" : norm[c.norm],
                r < N_JAC ? "" : fitn[c.fit], res.N);
        printf("  %-15s %-9s %-13s %5zu instants:", method, r < N_JAC ? "" : norm[c.norm],
               r < N_JAC ? "" : fitn[c.fit], res.N);
        lx[r] = log10((double)res.N);
        for (size_t k = 0; k < n_out; k++) {
            fprintf(out, ",%.17g", m.sq[k]);
            printf(" %.3e", m.sq[k]);
            ly[r][k] = log10(m.sq[k] > 1e-300 ? m.sq[k] : 1e-300);
        }
        fputc('\n', out);
        printf("\n");
    }
    fclose(out);
    printf("  %s\n", path);
    /* the plot: Jacobi is one line (steps grow as H shrinks: reversed for increasing x); each
       norm a segment between its two fits, sorted by x */
    plot_series s[4 * MAX_OUT];
    char labels[4 * MAX_OUT][96], titles[MAX_OUT][96];
    const char *tp[MAX_OUT];
    double xs[4][N_JAC], ys[4][MAX_OUT][N_JAC];
    size_t ns = 0;
    for (int q = 0; q < 4; q++) {
        int lo = q == 0 ? 0 : N_JAC + 2 * (q - 1), n = q == 0 ? N_JAC : 2;
        for (int i = 0; i < n; i++) {
            int r = q == 0 ? N_JAC - 1 - i : lo + i;
            if (q && i == 1 && lx[lo + 1] < lx[lo]) r = lo; /* sort the pair */
            if (q && i == 0 && lx[lo + 1] < lx[lo]) r = lo + 1;
            xs[q][i] = lx[r];
            for (size_t k = 0; k < n_out; k++)
                ys[q][k][i] = ly[r][k];
        }
        for (size_t k = 0; k < n_out; k++, ns++) {
            snprintf(labels[ns], sizeof labels[ns], "%s", q == 0 ? "ZOH Jacobi" : norm[q - 1]);
            s[ns] = (plot_series){.label = labels[ns],
                                  .t = xs[q],
                                  .y = ys[q][k],
                                  .n = (size_t)n,
                                  .panel = k,
                                  .dashed = q == 0};
        }
    }
    for (size_t k = 0; k < n_out; k++) {
        snprintf(titles[k], sizeof titles[k], "%s.%s: F3ORNITS (extrapolation and CLS) per norm",
                 ff->feds[m.fed_of[k]].name, ff->feds[m.fed_of[k]].outputs[m.out_of[k]].var);
        tp[k] = titles[k];
    }
    plot_opts o = {.title = "F3ORNITS against ZOH Jacobi: log10 RMSE against log10 instants",
                   .xlabel = "log10 communication instants",
                   .ylabel = "log10 RMSE",
                   .n_panels = n_out,
                   .panel_titles = tp};
    char e[PLOT_ERRLEN];
    snprintf(path, sizeof path, "%s/%s_pareto.svg", dir, ff->federation);
    if (plot_svg_file(path, &o, s, ns, e, sizeof e) != PLOT_OK) {
        fprintf(stderr, "tempo-example-f3ornits: %s\n", e);
        return 1;
    }
    printf("  %s\n", path);
    return 0;
}

static const char usage[] =
    "usage: tempo-example-f3ornits --reference FMU [--output DIR] FILE.json\n"
    "Runs an f3ornits federation file (doc/algorithms/f3ornits.md) in one process with ZOH\n"
    "Jacobi at fixed steps 0.005 .. 0.1 s and with F3ORNITS for each normalisation and fit (the\n"
    "file's other settings), measures every output the reference FMU also has at the\n"
    "communication times, and writes NAME_pareto.csv and NAME_pareto.svg.\n"
    "  --reference FMU  the monolithic model (it gets the federates' parameters it has)\n"
    "  --output DIR     results folder (default: the file's \"output\")\n"
    "  --help, --version\n"
    "Exit status: 0 done, 1 a run failed, 2 a bad command line or file.\n";

int main(int argc, char **argv)
{
    const char *file = NULL, *dir = NULL, *ref = NULL;
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--help")) {
            fputs(usage, stdout);
            return 0;
        }
        if (!strcmp(argv[i], "--version")) {
            printf("tempo-example-f3ornits %s\n", TEMPO_VERSION);
            return 0;
        }
        if (!strcmp(argv[i], "--output") && i + 1 < argc)
            dir = argv[++i];
        else if (!strcmp(argv[i], "--reference") && i + 1 < argc)
            ref = argv[++i];
        else if (argv[i][0] != '-' && !file)
            file = argv[i];
        else {
            fprintf(stderr, "tempo-example-f3ornits: %s %s (see --help)\n",
                    argv[i][0] == '-' ? "unknown option or missing value:" : "unexpected argument",
                    argv[i]);
            return 2;
        }
    }
    if (!file || !ref) {
        fprintf(stderr, "tempo-example-f3ornits: %s (see --help)\n",
                !file ? "no FILE.json given" : "no --reference FMU given");
        return 2;
    }
    fedfile *ff = NULL;
    char err[FEDFILE_ERRLEN];
    if (fedfile_load(file, &ff, err, sizeof err) != FEDFILE_OK) {
        fprintf(stderr, "tempo-example-f3ornits: %s\n", err);
        return 2;
    }
    if (ff->algo.kind != FEDFILE_ALG_F3ORNITS) {
        fprintf(stderr,
                "tempo-example-f3ornits: %s: method \"%s\"; this program runs \"f3ornits\"\n", file,
                fedfile_alg_name(ff->algo.kind));
        fedfile_free(ff);
        return 2;
    }
    int rc = pareto(ff, ref, dir ? dir : ff->output);
    fedfile_free(ff);
    return rc;
}
