/* The smart-grid case's reference and comparison (doc/cases/houses.md):
 *
 *   tempo-example-houses FILE.json [RUN_DIR ...]
 *
 * reads a houses federation file (examples/houses/gen.sh writes them), computes the same
 * system exactly in this process, writes it to "<output>/reference.csv" and, for each RUN_DIR
 * (a tempo-run results folder of that file or of another method over the same houses),
 * prints the differences of the average inside temperature and of the price against the
 * reference (median, upper whisker, largest), the houses' communication points, and writes
 * "RUN_DIR/compare.svg".
 *
 * The reference is exact, not integrated: between events a house obeys
 *     C T' = UA (T_amb(t) - T) + P h,    T_amb(t) = M - A cos(w t)
 * whose solution from (t0, T0) is T(t) = Tp(t) + (T0 - Tp(t0)) exp(-a (t - t0)) with a = UA/C
 * and Tp(t) = M + P h / UA - A a (a cos wt + w sin wt) / (a^2 + w^2). The heater switches where
 * T meets the band's edge (found by bisection to 1e-9 s; T is monotone between switches, since
 * the heater's power exceeds every loss and the ambient stays below the band), the agent moves
 * the band every agent_period from the price in force, and the market prices every period from
 * the exact energies, exactly as the federates do (doc/cases/houses.md, "The reference").
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "examples/fmus/house/house_model.h"
#include "federate/config/fedfile.h"
#include "federate/run/plot_svg.h"
#include "federate/run/results.h"

/* The environment (examples/fmus/environment/environment.c's defaults) and the market's
 * settings (examples/houses/market.c's defaults, overridden by its "args"). */
typedef struct grid {
    double t_mean, t_amp, day;
    double period, p_min, p_max, p_cap, alpha;
    double t_end;
} grid;

typedef struct house {
    house_drawn d;
    double band, k_price, p_ref, agent_period, c;
    double T, E; /* state at time t */
    int on;
    double lo, hi;
    const char *name;
} house;

/* T(t) from T0 at t0 with the heater as it is (the exact solution above). */
static double temp_at(const grid *g, const house *h, double t0, double T0, double t)
{
    double a = h->d.ua / h->c, w = 2.0 * M_PI / g->day, p = h->on ? h->d.p_rated : 0.0;
    double k = g->t_amp * a / (a * a + w * w);
    double tp0 = g->t_mean + p / h->d.ua - k * (a * cos(w * t0) + w * sin(w * t0));
    double tp = g->t_mean + p / h->d.ua - k * (a * cos(w * t) + w * sin(w * t));
    return tp + (T0 - tp0) * exp(-a * (t - t0));
}

/* Distance to the edge that switches the heater next (the FMU's event indicator). */
static double indicator(const house *h, double T)
{
    return h->on ? h->hi - T : T - h->lo;
}

/* Advance a house from t0 to t1, switching at every crossing of the band's edge. */
static void advance(const grid *g, house *h, double t0, double t1)
{
    while (t0 < t1) {
        double T1 = temp_at(g, h, t0, h->T, t1);
        if (indicator(h, T1) > 0) {
            h->E += (h->on ? h->d.p_rated : 0.0) * (t1 - t0) / 3.6e6;
            h->T = T1;
            return;
        }
        double lo = t0, hi = t1; /* indicator > 0 at lo, <= 0 at hi */
        while (hi - lo > 1e-9)
            if (indicator(h, temp_at(g, h, t0, h->T, 0.5 * (lo + hi))) > 0)
                lo = 0.5 * (lo + hi);
            else
                hi = 0.5 * (lo + hi);
        h->E += (h->on ? h->d.p_rated : 0.0) * (hi - t0) / 3.6e6;
        h->T = temp_at(g, h, t0, h->T, hi);
        h->on = !h->on;
        t0 = hi;
    }
}

/* The agent's event: the band from the price, then the controller checks it at once. */
static void agent(house *h, double price)
{
    h->lo = house_band_low(price, h->d.t_set, h->k_price, h->p_ref, h->band);
    h->hi = h->lo + h->band;
    if (h->on && h->T >= h->hi)
        h->on = 0;
    else if (!h->on && h->T <= h->lo)
        h->on = 1;
}

static double price_of(const grid *g, double p_avg)
{
    double x = p_avg / g->p_cap;
    return g->p_min + (g->p_max - g->p_min) * (x < 0 ? 0 : x > 1 ? 1 : x);
}

/* ---- reading the file ------------------------------------------------------------------ */

static double param(const fedfile_fed *fd, const char *name, double dflt)
{
    for (size_t k = 0; k < fd->n_params; k++)
        if (!strcmp(fd->params[k].name, name))
            return fd->params[k].kind == FEDFILE_REAL ? fd->params[k].real
                                                      : (double)fd->params[k].integer;
    return dflt;
}

/* Houses: the federates with a "seed"; the environment: the one publishing T_amb; the market:
 * the program federate, whose "--period/--p-min/--p-max/--p-cap" args are read. */
static int load(const fedfile *ff, grid *g, house **out, size_t *n)
{
    *g = (grid){.t_mean = 10,
                .t_amp = 5,
                .day = 86400,
                .period = 900,
                .p_min = 0.10,
                .p_max = 0.177,
                .p_cap = 3000,
                .alpha = 0.25,
                .t_end = ff->algo.end};
    house *hs = calloc(ff->n_feds, sizeof *hs);
    if (!hs) return -1;
    *n = 0;
    for (size_t i = 0; i < ff->n_feds; i++) {
        const fedfile_fed *fd = &ff->feds[i];
        if (fd->program) {
            for (size_t k = 0; k + 1 < fd->n_args; k += 2) {
                double v = strtod(fd->args[k + 1], NULL);
                if (!strcmp(fd->args[k], "--period")) g->period = v;
                if (!strcmp(fd->args[k], "--p-min")) g->p_min = v;
                if (!strcmp(fd->args[k], "--p-max")) g->p_max = v;
                if (!strcmp(fd->args[k], "--p-cap")) g->p_cap = v;
                if (!strcmp(fd->args[k], "--alpha")) g->alpha = v;
            }
        } else if (fd->n_outputs && !strcmp(fd->outputs[0].var, "T_amb")) {
            g->t_mean = param(fd, "T_mean", g->t_mean);
            g->t_amp = param(fd, "T_amp", g->t_amp);
            g->day = param(fd, "period", g->day);
        } else if (!isnan(param(fd, "seed", NAN))) {
            house *h = &hs[(*n)++];
            h->name = fd->name;
            h->band = param(fd, "band", HOUSE_BAND);
            h->k_price = param(fd, "k_price", HOUSE_K_PRICE);
            h->p_ref = param(fd, "p_ref", HOUSE_P_REF);
            h->agent_period = param(fd, "agent_period", HOUSE_AGENT_PERIOD);
            h->d = house_from_seed(param(fd, "seed", 1), h->band);
            h->c = param(fd, "c_vol", HOUSE_C_VOL) * h->d.volume;
            h->T = h->d.t_start;
        }
    }
    *out = hs;
    return 0;
}

/* ---- the reference run ----------------------------------------------------------------- */

/* The reference on a grid of `dt` s: columns time, T_avg, price (the price in force after the
 * market's reading at that time). All houses share the agent period (checked). */
static int reference(const grid *g, house *hs, size_t n, double dt, res_table *ref)
{
    double ap = n ? hs[0].agent_period : g->period;
    for (size_t i = 0; i < n; i++)
        if (hs[i].agent_period != ap) return -1;
    size_t rows = (size_t)floor(g->t_end / dt + 0.5) + 1;
    for (int c = 0; c < 3; c++)
        if (!(ref->cols[c] = malloc(rows * sizeof(double)))) return -1;
    ref->n_rows = rows;
    double price = price_of(g, 0), t = 0, p_s = 0;
    double *e_last = calloc(n + 1, sizeof *e_last);
    if (!e_last) return -1;
    for (size_t i = 0; i < n; i++)
        agent(&hs[i], price);
    /* Events in time order: agent ticks, market readings, output rows. */
    long k_agent = 1, k_market = 1;
    size_t row = 0;
    while (row < rows) {
        double t_row = (double)row * dt, t_ag = (double)k_agent * ap,
               t_mk = (double)k_market * g->period;
        double tn = fmin(t_row, fmin(t_ag, t_mk));
        for (size_t i = 0; i < n; i++)
            advance(g, &hs[i], t, tn);
        t = tn;
        if (t_ag == tn) { /* the agent reads the price in force before the market's reading */
            for (size_t i = 0; i < n; i++)
                agent(&hs[i], price);
            k_agent++;
        }
        if (t_mk == tn) {
            double kwh = 0;
            for (size_t i = 0; i < n; i++) {
                kwh += hs[i].E - e_last[i];
                e_last[i] = hs[i].E;
            }
            p_s += g->alpha * ((n ? kwh * 3.6e6 / (g->period * (double)n) : 0) - p_s);
            price = price_of(g, p_s);
            k_market++;
        }
        if (t_row == tn) {
            double s = 0;
            for (size_t i = 0; i < n; i++)
                s += hs[i].T;
            ref->cols[0][row] = t;
            ref->cols[1][row] = n ? s / (double)n : NAN;
            ref->cols[2][row] = price;
            row++;
        }
    }
    free(e_last);
    return 0;
}

/* ---- comparing a run ------------------------------------------------------------------- */

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* Median, upper whisker (the largest value within Q3 + 1.5 IQR: the box plot's) and largest
 * of n >= 1 values (sorted in place). */
static void stats(double *v, size_t n, double *med, double *whisk, double *max)
{
    qsort(v, n, sizeof *v, cmp_double);
    *med = n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
    double q1 = v[n / 4], q3 = v[(3 * n) / 4], lim = q3 + 1.5 * (q3 - q1);
    *whisk = v[0];
    for (size_t i = 0; i < n && v[i] <= lim; i++)
        *whisk = v[i];
    *max = v[n - 1];
}

/* Linear interpolation of column c of t at time x (the table's times increase). */
static double interp(const res_table *t, long c, double x, size_t *hint)
{
    size_t i = *hint;
    while (i + 1 < t->n_rows && t->cols[0][i + 1] <= x)
        i++;
    *hint = i;
    if (i + 1 >= t->n_rows) return t->cols[c][t->n_rows - 1];
    double t0 = t->cols[0][i], t1 = t->cols[0][i + 1];
    double w = t1 > t0 ? (x - t0) / (t1 - t0) : 0;
    return t->cols[c][i] + w * (t->cols[c][i + 1] - t->cols[c][i]);
}

/* What a compared run leaves for the plot of every run together: its average temperature on
 * the reference's grid and its market table (owned; run_view_fini). */
typedef struct run_view {
    const char *dir;
    double *avg;
    res_table *mk;
} run_view;

static void run_view_fini(run_view *v)
{
    free(v->avg);
    res_table_free(v->mk);
}

static int compare(const char *dir, const house *hs, size_t n, const res_table *ref, run_view *view)
{
    char p[4096], err[512];
    res_table *mk = NULL;
    res_table **ht = calloc(n + 1, sizeof *ht);
    double *avg = malloc(ref->n_rows * sizeof *avg), *dT = malloc(ref->n_rows * sizeof *dT);
    double *dp = NULL, *rp = NULL;
    int rc = !ht || !avg || !dT ? -1 : 0;
    size_t points = 0, pmin = (size_t)-1, pmax = 0;
    for (size_t i = 0; !rc && i < n; i++) {
        snprintf(p, sizeof p, "%s/%s.csv", dir, hs[i].name);
        if (res_read_csv(p, &ht[i], err, sizeof err) != RES_OK) {
            fprintf(stderr, "tempo-example-houses: %s\n", err);
            rc = -1;
        } else if (res_table_find(ht[i], "T_in") < 0) {
            fprintf(stderr, "tempo-example-houses: %s: no column T_in\n", p);
            rc = -1;
        } else {
            points += ht[i]->n_rows;
            pmin = ht[i]->n_rows < pmin ? ht[i]->n_rows : pmin;
            pmax = ht[i]->n_rows > pmax ? ht[i]->n_rows : pmax;
        }
    }
    snprintf(p, sizeof p, "%s/market.csv", dir);
    if (!rc && res_read_csv(p, &mk, err, sizeof err) != RES_OK) {
        fprintf(stderr, "tempo-example-houses: %s\n", err);
        rc = -1;
    }
    if (rc) goto out;
    /* The average temperature on the reference's grid: each house's trace interpolated
     * linearly between its own communication points (a DE run's houses have different ones). */
    size_t *hint = calloc(n + 1, sizeof *hint);
    if (!hint) {
        rc = -1;
        goto out;
    }
    for (size_t r = 0; r < ref->n_rows; r++) {
        double s = 0;
        for (size_t i = 0; i < n; i++)
            s += interp(ht[i], res_table_find(ht[i], "T_in"), ref->cols[0][r], &hint[i]);
        avg[r] = s / (double)n;
        dT[r] = fabs(avg[r] - ref->cols[1][r]);
    }
    free(hint);
    /* The price at the market's reading times, which the reference grid holds. */
    dp = malloc((mk->n_rows + 1) * sizeof *dp);
    rp = malloc((mk->n_rows + 1) * sizeof *rp);
    size_t np = 0, h = 0;
    for (size_t r = 0; dp && rp && r < mk->n_rows; r++) {
        rp[np] = interp(ref, 2, mk->cols[0][r], &h);
        dp[np] = fabs(mk->cols[1][r] - rp[np]);
        np++;
    }
    double m1, w1, x1, m2, w2, x2;
    double *dT_sorted = malloc(ref->n_rows * sizeof *dT_sorted);
    if (!dp || !rp || !dT_sorted || !np) {
        free(dT_sorted);
        rc = -1;
        goto out;
    }
    memcpy(dT_sorted, dT, ref->n_rows * sizeof *dT);
    stats(dT_sorted, ref->n_rows, &m1, &w1, &x1);
    double *dp_sorted = malloc(np * sizeof *dp_sorted);
    if (dp_sorted) {
        memcpy(dp_sorted, dp, np * sizeof *dp);
        stats(dp_sorted, np, &m2, &w2, &x2);
    }
    printf("%s: houses' communication points %zu (%zu to %zu per house)\n", dir, points, pmin,
           pmax);
    printf("%s: average temperature - reference: median %.3g K, upper whisker %.3g K, largest "
           "%.3g K\n",
           dir, m1, w1, x1);
    if (dp_sorted)
        printf("%s: price - reference: median %.3g, upper whisker %.3g, largest %.3g\n", dir, m2,
               w2, x2);
    free(dT_sorted);
    free(dp_sorted);
    /* The first house's communication steps (the thesis's Fig. 4.16 marks them). */
    size_t ns = ht[0]->n_rows > 1 ? ht[0]->n_rows - 1 : 0;
    double *steps = malloc((ns + 1) * sizeof *steps);
    for (size_t i = 0; steps && i < ns; i++)
        steps[i] = ht[0]->cols[0][i + 1] - ht[0]->cols[0][i];
    /* The plot: average temperature and price, run and reference, the differences, the steps. */
    plot_series s[] = {
        {.label = "T_avg (run)", .t = ref->cols[0], .y = avg, .n = ref->n_rows, .panel = 0},
        {.label = "T_avg (reference)",
         .t = ref->cols[0],
         .y = ref->cols[1],
         .n = ref->n_rows,
         .panel = 0,
         .dashed = 1},
        {.label = "price (run)", .t = mk->cols[0], .y = mk->cols[1], .n = mk->n_rows, .panel = 1},
        {.label = "price (reference)", .t = mk->cols[0], .y = rp, .n = np, .panel = 1, .dashed = 1},
        {.label = "|T_avg - reference| (K)",
         .t = ref->cols[0],
         .y = dT,
         .n = ref->n_rows,
         .panel = 2},
        {.label = "|price - reference|", .t = mk->cols[0], .y = dp, .n = np, .panel = 3},
        {.label = hs[0].name, .t = ht[0]->cols[0] + 1, .y = steps, .n = steps ? ns : 0, .panel = 4},
    };
    const char *titles[] = {"average inside temperature", "price", "temperature difference",
                            "price difference", "communication step of the first house"};
    const char *ylabels[] = {"degC", "per kWh", "K", "per kWh", "s"};
    plot_opts po = {.title = dir,
                    .n_panels = 5,
                    .panel_titles = titles,
                    .panel_ylabels = ylabels,
                    .panel_height = 220};
    snprintf(p, sizeof p, "%s/compare.svg", dir);
    if (plot_svg_file(p, &po, s, sizeof s / sizeof s[0], err, sizeof err) != PLOT_OK) {
        fprintf(stderr, "tempo-example-houses: %s\n", err);
        rc = -1;
    } else {
        printf("%s: plot %s\n", dir, p);
    }
    free(steps);
out:
    for (size_t i = 0; ht && i < n; i++)
        res_table_free(ht[i]);
    free(ht);
    if (!rc) { /* the view takes the average and the market table */
        *view = (run_view){.dir = dir, .avg = avg, .mk = mk};
        avg = NULL;
        mk = NULL;
    }
    res_table_free(mk);
    free(avg);
    free(dT);
    free(dp);
    free(rp);
    return rc;
}

/* "<output>/houses.svg": the reference and every run, average temperature and price. */
static int plot_all(const fedfile *ff, const res_table *ref, const run_view *v, size_t nv)
{
    plot_series *s = calloc(2 * nv + 2, sizeof *s);
    if (!s) return 1;
    size_t k = 0;
    s[k++] = (plot_series){.label = "reference",
                           .t = ref->cols[0],
                           .y = ref->cols[1],
                           .n = ref->n_rows,
                           .color = "#000000",
                           .dashed = 1};
    s[k++] = (plot_series){.label = "reference",
                           .t = ref->cols[0],
                           .y = ref->cols[2],
                           .n = ref->n_rows,
                           .panel = 1,
                           .color = "#000000",
                           .dashed = 1};
    for (size_t i = 0; i < nv; i++) {
        s[k++] = (plot_series){.label = v[i].dir,
                               .t = ref->cols[0],
                               .y = v[i].avg,
                               .n = ref->n_rows,
                               .color = plot_color(i)};
        s[k++] = (plot_series){.label = v[i].dir,
                               .t = v[i].mk->cols[0],
                               .y = v[i].mk->cols[1],
                               .n = v[i].mk->n_rows,
                               .panel = 1,
                               .color = plot_color(i)};
    }
    const char *titles[] = {"average inside temperature", "price"};
    const char *ylabels[] = {"degC", "per kWh"};
    plot_opts po = {
        .title = ff->federation, .n_panels = 2, .panel_titles = titles, .panel_ylabels = ylabels};
    char p[4096], err[PLOT_ERRLEN];
    snprintf(p, sizeof p, "%s/houses.svg", ff->output);
    int rc = plot_svg_file(p, &po, s, k, err, sizeof err) == PLOT_OK ? 0 : 1;
    if (rc)
        fprintf(stderr, "tempo-example-houses: %s\n", err);
    else
        printf("%s: plot of every run %s\n", ff->federation, p);
    free(s);
    return rc;
}

int main(int argc, char **argv)
{
    if (argc < 2 || !strcmp(argv[1], "--help") || !strcmp(argv[1], "--version")) {
        if (argc >= 2 && !strcmp(argv[1], "--version")) {
            printf("tempo-example-houses %s\n", TEMPO_VERSION);
            return 0;
        }
        printf("usage: tempo-example-houses FILE.json [RUN_DIR ...]\n"
               "The exact reference of a houses federation file (written to <output>/"
               "reference.csv) and each run's differences to it (doc/cases/houses.md).\n");
        return argc < 2 ? 2 : 0;
    }
    fedfile *ff = NULL;
    char err[FEDFILE_ERRLEN];
    if (fedfile_load(argv[1], &ff, err, sizeof err) != FEDFILE_OK) {
        fprintf(stderr, "tempo-example-houses: %s\n", err);
        return 2;
    }
    grid g;
    house *hs = NULL;
    size_t n = 0;
    int rc = load(ff, &g, &hs, &n);
    if (!rc && !n) {
        fprintf(stderr, "tempo-example-houses: %s: no house (a federate with a \"seed\")\n",
                argv[1]);
        rc = 2;
    }
    char *names[] = {"time", "T_avg", "price"};
    res_table ref = {.n_cols = 3, .names = names, .cols = (double *[3]){0}};
    if (!rc && reference(&g, hs, n, 60.0, &ref) != 0) {
        fprintf(stderr, "tempo-example-houses: the houses must share one agent_period\n");
        rc = 2;
    }
    if (!rc) {
        char e[1300], path[4096];
        snprintf(path, sizeof path, "%s/reference.csv", ff->output);
        FILE *f = res_create(ff->output, "reference.csv", e, sizeof e); /* private, no link */
        if (!f) {
            fprintf(stderr, "tempo-example-houses: %s\n", e);
            rc = 1;
        } else {
            fputs("time,T_avg,price\n", f);
            for (size_t r = 0; r < ref.n_rows; r++)
                fprintf(f, "%.15g,%.17g,%.17g\n", ref.cols[0][r], ref.cols[1][r], ref.cols[2][r]);
            if (fclose(f) != 0) rc = 1;
            printf("%s: reference %s (%zu houses, exact)\n", ff->federation, path, n);
        }
    }
    run_view *views = calloc((size_t)argc, sizeof *views);
    size_t nv = 0;
    if (!views) rc = 1;
    for (int i = 2; !rc && i < argc; i++)
        if (compare(argv[i], hs, n, &ref, &views[nv++]) != 0) rc = 1;
    if (!rc && nv) rc = plot_all(ff, &ref, views, nv);
    for (size_t i = 0; views && i < nv; i++)
        run_view_fini(&views[i]);
    free(views);
    for (int c = 0; c < 3; c++)
        free(ref.cols[c]);
    free(hs);
    fedfile_free(ff);
    return rc;
}
