/* Each peer algorithm run both ways on the same example FMUs: distributed (one fmufed_run per
 * federate against a real bin/tempo-rti, the libtempo side of the peer port) and in one
 * process (inproc_run, the RTI's time-management engine in memory), and every recorded double
 * compared bit for bit (memcmp of the rows the row hook hands over, not printed text).
 * Files: examples/lv_jacobi.json (jacobi; and the same file switched to jacobi-naive),
 * lv_de.json (jacobi-de), lv_gs.json and bball_gs.json (gauss-seidel). Serves
 * doc/algorithms/port.md ("The same results both ways"); read federate/inproc/inproc.h.
 */
#include <pthread.h>
#include <stdint.h>
#include <string.h>

#include "federate/config/fedfile.h"
#include "federate/fmufed/fmufed.h"
#include "federate/inproc/inproc.h"
#include "tests/integration/client_harness.h"

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

/* Run ff both ways and compare. label names the case in messages. */
static void same_both_ways(const char *rti, fedfile *ff, const char *label)
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
        printf("%s %s: %zu rows identical both ways; in-process %ld steps %ld requests\n", label,
               ff->feds[i].name, a->n_rows, st[i].steps, st[i].requests);
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
        if (ff) same_both_ways(addr, ff, cases[k].label);
        fedfile_free(ff);
    }
    /* The naive loop (TAR, lookahead = step) on the same file. */
    fedfile *ff = load("examples/lv_jacobi.json");
    if (ff) {
        ff->algo.kind = FEDFILE_ALG_JACOBI_NAIVE;
        ff->algo.lookahead = ff->algo.step;
        ff->algo.t_lookahead = ff->algo.t_step;
        free(ff->federation);
        ff->federation = strdup("lv-jacobi-naive-same");
        same_both_ways(addr, ff, "jacobi-naive");
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
    return check_summary();
}
