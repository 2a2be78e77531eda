/* Each peer algorithm run both ways on the same example FMUs: distributed (one fmufed_run per
 * federate against a real bin/tempo-rti, the libtempo side of the peer port) and in one
 * process (inproc_run, the RTI's time-management engine in memory), and a third way, every
 * federate a task on an embedded RTI (fmufed_run_all with tasks, doc/inproc.md); every
 * recorded double compared bit for bit (memcmp of the rows the row hook hands over, not
 * printed text).
 * Files: examples/lv_jacobi.json (jacobi; and the same file switched to jacobi-naive),
 * lv_de.json (jacobi-de), lv_gs.json and bball_gs.json (gauss-seidel); and a direct
 * feedthrough y = u under every peer algorithm in both kinds (feedthrough(): y(t) = u(t) in
 * every row, doc/fmu.md "One order per communication point"). Serves doc/algorithms/port.md
 * ("The same results both ways"); read federate/inproc/inproc.h.
 */
#include <math.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "federate/config/fedfile.h"
#include "federate/config/fedfile_algo.h"
#include "federate/fmufed/fmufed.h"
#include "federate/inproc/inproc.h"
#include "federate/run/results.h"
#include "tests/integration/client_harness.h"
#include "tests/unit/faulty_fmu.h"

#define MAX_FEDS 4

/* The rows of one federate: time then the recorded values, appended by the row hook. */
typedef struct rows {
    double *v;
    size_t n, cap; /* doubles */
    size_t n_rows, width;
} rows;

static void on_row(void *ctx, double t, const double *v, size_t n)
{
    rows *r = ctx;
    if (r->n + n + 1 > r->cap) {
        size_t cap = r->cap ? 2 * r->cap : 1024;
        while (cap < r->n + n + 1)
            cap *= 2;
        double *p = realloc(r->v, cap * sizeof *p);
        if (!p) return;
        r->v = p;
        r->cap = cap;
    }
    r->v[r->n++] = t;
    memcpy(&r->v[r->n], v, n * sizeof *v);
    r->n += n;
    r->n_rows++;
    r->width = n + 1;
}

/* Index of the first double whose bits differ (the shorter length when one is a prefix). */
static size_t first_diff(const rows *a, const rows *b)
{
    size_t k = 0;
    while (k < a->n && k < b->n && memcmp(&a->v[k], &b->v[k], sizeof(double)) == 0)
        k++;
    return k;
}

typedef struct fed_thread {
    const fedfile *ff;
    const char *name;
    fmufed_opts o;
    int rc;
    char err[FMUFED_ERRLEN];
} fed_thread;

static void *fed_main(void *arg)
{
    fed_thread *t = arg;
    t->rc = fmufed_run(t->ff, t->name, &t->o, NULL, t->err, sizeof t->err);
    return NULL;
}

static char g_dir[64];
static char g_cwd[4096]; /* the repository (the tests run from it) */

/* Run ff both ways and compare. label names the case in messages. keep: NULL, or MAX_FEDS
 * rows that receive the distributed rows (the caller frees their v). */
static void same_both_ways(const char *rti, fedfile *ff, const char *label, rows *keep)
{
    size_t n = ff->n_feds;
    CHECK(n <= MAX_FEDS, "%s: %zu federates", label, n);
    if (n > MAX_FEDS) return;
    rows dist[MAX_FEDS] = {{0}}, local[MAX_FEDS] = {{0}};
    /* Distributed: one thread per federate, each a libtempo federate of the real RTI. */
    fed_thread th[MAX_FEDS];
    pthread_t pt[MAX_FEDS];
    char out[128];
    snprintf(out, sizeof out, "%s/%s", g_dir, label);
    for (size_t i = 0; i < n; i++) {
        th[i] = (fed_thread){.ff = ff, .name = ff->feds[i].name};
        th[i].o = (fmufed_opts){
            .rti = rti, .output = out, .timeout_ms = 60000, .row = on_row, .row_ctx = &dist[i]};
        CHECK(pthread_create(&pt[i], NULL, fed_main, &th[i]) == 0, "%s: thread", label);
    }
    for (size_t i = 0; i < n; i++) {
        pthread_join(pt[i], NULL);
        CHECK(th[i].rc == FMUFED_OK, "%s: distributed %s: %s", label, th[i].name, th[i].err);
    }
    /* In one process, over the engine in memory. */
    void *ctx[MAX_FEDS];
    for (size_t i = 0; i < n; i++)
        ctx[i] = &local[i];
    inproc_opts io = {.no_csv = 1, .row = on_row, .row_ctx = ctx};
    inproc_stats st[MAX_FEDS];
    char err[INPROC_ERRLEN];
    int rc = inproc_run(ff, &io, st, err, sizeof err);
    CHECK(rc == FMUFED_OK, "%s: in-process: %s", label, err);
    /* Tasks of one thread on an embedded RTI (the server core, libtempo's in-process
     * transport). */
    rows tasks[MAX_FEDS] = {{0}};
    void *tctx[MAX_FEDS];
    for (size_t i = 0; i < n; i++)
        tctx[i] = &tasks[i];
    char tout[160];
    snprintf(tout, sizeof tout, "%s/%s-tasks", g_dir, label);
    fmufed_opts to = {.output = tout, .timeout_ms = 60000, .row = on_row};
    fmufed_all_opts ao = {.opts = &to, .tasks = 1, .row_ctx = tctx};
    char terr[FMUFED_ERRLEN];
    rc = fmufed_run_all(ff, &ao, NULL, terr, sizeof terr);
    CHECK(rc == FMUFED_OK, "%s: tasks: %s", label, terr);
    for (size_t i = 0; i < n; i++) {
        CHECK(dist[i].n == tasks[i].n &&
                  memcmp(dist[i].v, tasks[i].v, dist[i].n * sizeof *dist[i].v) == 0,
              "%s %s: rows differ as tasks (first difference at double %zu)", label,
              ff->feds[i].name, first_diff(&dist[i], &tasks[i]));
        free(tasks[i].v);
    }
    double end = ff->algo.end;
    for (size_t i = 0; i < n; i++) {
        rows *a = &dist[i], *b = &local[i];
        CHECK(a->n_rows > 10, "%s %s: %zu rows", label, ff->feds[i].name, a->n_rows);
        CHECK_INT_EQ((long)b->n_rows, (long)a->n_rows);
        CHECK(a->n == b->n && a->n && memcmp(a->v, b->v, a->n * sizeof *a->v) == 0,
              "%s %s: rows differ (first difference at double %zu)", label, ff->feds[i].name,
              first_diff(a, b));
        /* Both ran to the end: the last row is at the end time. */
        CHECK(a->n && fabs(a->v[a->n - a->width] - end) < 1e-9, "%s %s: last row at %g, not %g",
              label, ff->feds[i].name, a->n ? a->v[a->n - a->width] : -1.0, end);
        printf("%s %s: %zu rows identical three ways; in-process %ld steps %ld requests\n", label,
               ff->feds[i].name, a->n_rows, st[i].steps, st[i].requests);
        if (keep)
            keep[i] = *a;
        else
            free(a->v);
        free(b->v);
    }
}

static fedfile *load(const char *path)
{
    fedfile *ff = NULL;
    char err[FEDFILE_ERRLEN];
    int rc = fedfile_load(path, &ff, err, sizeof err);
    CHECK(rc == FEDFILE_OK, "%s: %s", path, err);
    return ff;
}

static void remove_dir(void)
{
    if (!g_dir[0]) return;
    char cmd[128];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", g_dir);
    int r = system(cmd);
    (void)r;
}

/* The order at a communication point (doc/fmu.md, "One order per communication point"): a
 * stair (y = 1.5 floor(t / 0.37), jumps never at a communication point) drives the input u of
 * a direct feedthrough y = u (build/fmus/passthrough_KIND.fmu) that records u and y. The stair
 * is always the model-exchange FMU (its kind changes jacobi-de's step decisions: the
 * co-simulation one offers output derivatives). With each peer algorithm, in each kind, both
 * ways: every row has y = u bit for bit (the inputs of t are
 * set before the outputs of t are read), u is the stair's value at the row's time (at t - L
 * for naive Jacobi, whose values belong to the sender's time), and the model-exchange rows
 * equal the co-simulation rows bit for bit. */
static double stair_at(double t)
{
    return t < 0 ? 0.0 : 1.5 * floor(t / 0.37);
}

static void feedthrough(const char *rti)
{
    static const struct {
        const char *method, *algo;
        double shift; /* s: u(t) is the stair at t - shift */
    } m[] = {
        {"jacobi", "\"step\": 0.25", 0},
        {"jacobi-naive", "\"step\": 0.25", 0.25},
        {"jacobi-de", "\"quantum\": 0.5, \"h_min\": 0.05, \"h_max\": 0.25", 0},
        {"gauss-seidel", "\"step\": 0.25", 0},
    };
    for (size_t k = 0; k < sizeof m / sizeof m[0]; k++) {
        rows pass[2] = {{0}};
        for (int cs = 0; cs < 2; cs++) {
            const char *kind = cs ? "cs" : "me";
            char path[160], label[64];
            snprintf(label, sizeof label, "ft-%s-%s", m[k].method, kind);
            snprintf(path, sizeof path, "%s/%s.json", g_dir, label);
            FILE *f = fopen(path, "w");
            CHECK(f != NULL, "%s", path);
            if (!f) return;
            fprintf(f,
                    "{ \"federation\": \"%s\",\n"
                    "  \"algorithm\": { \"method\": \"%s\", \"end\": 6, %s },\n"
                    "  \"federates\": [\n"
                    "    { \"name\": \"src\", \"fmu\": \"%s/build/fmus/stair_me.fmu\",\n"
                    "      \"parameters\": { \"period\": 0.37, \"height\": 1.5 },\n"
                    "      \"outputs\": { \"y\": \"Src.y\" } },\n"
                    "    { \"name\": \"pass\", \"fmu\": \"%s/build/fmus/passthrough_%s.fmu\",\n"
                    "      \"inputs\": { \"u\": \"Src.y\" }, \"outputs\": { \"y\": \"Pass.y\" },\n"
                    "      \"record\": [ \"u\", \"y\" ] } ] }\n",
                    label, m[k].method, m[k].algo, g_cwd, g_cwd, kind);
            fclose(f);
            fedfile *ff = load(path);
            if (!ff) return;
            rows keep[MAX_FEDS] = {{0}};
            same_both_ways(rti, ff, label, keep);
            free(keep[0].v);
            pass[cs] = keep[1];
            fedfile_free(ff);
            rows *r = &pass[cs];
            size_t bad_y = 0, bad_u = 0;
            for (size_t i = 0; r->width == 3 && i < r->n_rows; i++) {
                const double *row = &r->v[i * 3];
                bad_y += memcmp(&row[1], &row[2], sizeof(double)) != 0;
                bad_u += row[1] != stair_at(row[0] - m[k].shift);
            }
            CHECK(r->width == 3 && r->n_rows > 10, "%s: %zu rows of width %zu", label, r->n_rows,
                  r->width);
            CHECK(bad_y == 0, "%s: %zu rows with y != u", label, bad_y);
            CHECK(bad_u == 0, "%s: %zu rows whose u is not the stair's value", label, bad_u);
        }
        CHECK(pass[0].n == pass[1].n && pass[0].n &&
                  memcmp(pass[0].v, pass[1].v, pass[0].n * sizeof(double)) == 0,
              "%s: model exchange and co-simulation rows differ", m[k].method);
        free(pass[0].v);
        free(pass[1].v);
    }
}

/* Every type recorded by a federate (its "record" list): the fault fixture's Real x, Integer
 * tenths = floor(10 t), Boolean late = t > 0.5 and String phase ("early", then `late, "x"`),
 * run both ways; the CSV of each way holds the numbers as numbers and the string quoted with
 * its quotes doubled, the same text as tempo-fmu --simulate writes (tests/unit/fmu_fault_test.c),
 * and the results reader takes the file (the string column as NaN). */
static void record_types(const char *rti)
{
    char fmu[128], path[128], dist[128], local[128];
    snprintf(fmu, sizeof fmu, "%s/faulty.fmu", g_dir);
    CHECK(faulty_fmu_build(fmu, faulty_fmu_md) == 0,
          "cannot build %s (build/fmu-fixtures/faulty.so?)", fmu);
    snprintf(path, sizeof path, "%s/types.json", g_dir);
    FILE *f = fopen(path, "w");
    CHECK(f != NULL, "%s", path);
    if (!f) return;
    fprintf(f,
            "{ \"federation\": \"types\",\n"
            "  \"algorithm\": { \"method\": \"jacobi\", \"end\": 1, \"step\": 0.25 },\n"
            "  \"federates\": [ { \"name\": \"f\", \"fmu\": \"%s\",\n"
            "      \"record\": [ \"x\", \"tenths\", \"late\", \"phase\" ] } ] }\n",
            fmu);
    fclose(f);
    fedfile *ff = load(path);
    if (!ff) return;
    /* Distributed (fmufed_run against the RTI) and in one process, each writing its CSV. */
    snprintf(dist, sizeof dist, "%s/types-dist", g_dir);
    snprintf(local, sizeof local, "%s/types-local", g_dir);
    fmufed_opts o = {.rti = rti, .output = dist, .timeout_ms = 60000};
    char err[INPROC_ERRLEN];
    int rc = fmufed_run(ff, "f", &o, NULL, err, sizeof err);
    CHECK(rc == FMUFED_OK, "types distributed: %s", err);
    inproc_opts io = {.output = local};
    rc = inproc_run(ff, &io, NULL, err, sizeof err);
    CHECK(rc == FMUFED_OK, "types in one process: %s", err);
    fedfile_free(ff);
    static const char *const want[] = {"time,x,tenths,late,phase\n", ",0,0,\"early\"\n",
                                       ",2,0,\"early\"\n",           ",5,0,\"early\"\n",
                                       ",7,1,\"late, \"\"x\"\"\"\n", ",10,1,\"late, \"\"x\"\"\"\n"};
    const char *dirs[] = {dist, local};
    for (int w = 0; w < 2; w++) {
        char csv[160], line[256];
        snprintf(csv, sizeof csv, "%s/f.csv", dirs[w]);
        FILE *in = fopen(csv, "r");
        CHECK(in != NULL, "%s", csv);
        if (!in) continue;
        size_t n = 0;
        while (fgets(line, sizeof line, in)) {
            size_t l = strlen(line), k = n < 6 ? strlen(want[n]) : 0;
            CHECK(n < 6 && l >= k && strcmp(line + l - k, want[n]) == 0, "%s row %zu: %s", csv, n,
                  line);
            n++;
        }
        fclose(in);
        CHECK(n == 6, "%s: %zu lines", csv, n);
        res_table *t = NULL;
        char rerr[RES_ERRLEN];
        CHECK(res_read_csv(csv, &t, rerr, sizeof rerr) == RES_OK, "reading back: %s", rerr);
        CHECK(t && t->n_rows == 5 && isnan(t->cols[4][0]) && t->cols[2][4] == 10,
              "%s read back wrong", csv);
        res_table_free(t);
    }
}

int main(void)
{
    snprintf(g_dir, sizeof g_dir, "/tmp/inproc_same_XXXXXX");
    if (!mkdtemp(g_dir)) return 1;
    atexit(remove_dir);
    const char *rti = harness_start_rti(NULL, 240);
    if (!rti) return check_summary();
    atexit(harness_stop_rti);
    char addr[128];
    snprintf(addr, sizeof addr, "%s", rti);
    static const struct {
        const char *file, *label;
    } cases[] = {
        {"examples/lv_jacobi.json", "jacobi"},
        {"examples/lv_de.json", "jacobi-de"},
        {"examples/lv_gs.json", "gauss-seidel"},
        {"examples/bball_gs.json", "gauss-seidel-bball"},
    };
    for (size_t k = 0; k < sizeof cases / sizeof cases[0]; k++) {
        fedfile *ff = load(cases[k].file);
        if (ff) same_both_ways(addr, ff, cases[k].label, NULL);
        fedfile_free(ff);
    }
    /* The naive loop (TAR, lookahead = step) on the same file. */
    fedfile *ff = load("examples/lv_jacobi.json");
    if (ff) {
        ff->algo.def = fedfile_algo_by_name("jacobi-naive");
        ff->algo.t_lookahead = ff->algo.t_step;
        free(ff->federation);
        ff->federation = strdup("lv-jacobi-naive-same");
        same_both_ways(addr, ff, "jacobi-naive", NULL);
    }
    fedfile_free(ff);
    /* A federate that cannot start fails the run with its name; nobody waits forever. */
    ff = load("examples/lv_gs.json");
    if (ff) {
        free(ff->feds[1].fmu);
        ff->feds[1].fmu = strdup("/nonexistent/predator.fmu");
        char err[INPROC_ERRLEN];
        inproc_opts io = {.no_csv = 1};
        int rc = inproc_run(ff, &io, NULL, err, sizeof err);
        CHECK(rc == FMUFED_EFMU && strstr(err, "federate predator: /nonexistent/predator.fmu"),
              "in-process start failure: rc %d: %s", rc, err);
    }
    fedfile_free(ff);
    if (getcwd(g_cwd, sizeof g_cwd)) feedthrough(addr);
    record_types(addr);
    return check_summary();
}
