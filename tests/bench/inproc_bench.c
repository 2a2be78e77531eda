/* Benchmark: the in-process runner's overhead per macro step, to set beside fmufed_bench (the
 * same ring of N = 2 and 8 trivial CS FMU federates, lv_prey / lv_predator with every rate 0,
 * improved Jacobi at H = 1 ms), here with every federate a thread of one process and the
 * time-management engine deciding in memory (federate/inproc/inproc.h). Start-up is removed by
 * running 200 and 10200 steps and dividing the difference by 10000. Prints microseconds per
 * macro step; never fails on timing. Serves doc/algorithms/port.md ("In one process").
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "federate/inproc/inproc.h"

static char g_dir[64], g_cwd[1024];

static const char *fmu_of(int i)
{
    return i % 2 ? "lv_predator_cs.fmu" : "lv_prey_cs.fmu";
}

/* Ring of n federates: F_i's input comes from F_{i-1}'s output. */
static int write_ring(const char *path, int n, double end)
{
    FILE *f = fopen(path, "w");
    if (!f) return -1;
    fprintf(f,
            "{ \"federation\": \"ring\",\n  \"algorithm\": { \"method\": \"jacobi\", \"end\": %g, "
            "\"step\": 0.001 },\n  \"federates\": [\n",
            end);
    for (int i = 0; i < n; i++) {
        int prev = (i + n - 1) % n;
        const char *out = i % 2 ? "y" : "x", *in = i % 2 ? "x" : "y";
        const char *pout = prev % 2 ? "y" : "x";
        fprintf(
            f,
            "   { \"name\": \"F%d\", \"fmu\": \"%s/build/fmus/%s\",\n"
            "     \"parameters\": { %s },\n"
            "     \"outputs\": { \"%s\": \"C%d.%s\" }, \"inputs\": { \"%s\": \"C%d.%s\" } }%s\n",
            i, g_cwd, fmu_of(i), i % 2 ? "\"gamma\": 0, \"delta\": 0" : "\"alpha\": 0, \"beta\": 0",
            out, i, out, in, prev, pout, i + 1 < n ? "," : "");
    }
    fprintf(f, "  ] }\n");
    return fclose(f);
}

static double now_s(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

/* Wall seconds of one in-process run, or -1 on failure (printed). */
static double run_ring(int n, double end)
{
    char file[128], err[INPROC_ERRLEN];
    snprintf(file, sizeof file, "%s/ring%d.json", g_dir, n);
    if (write_ring(file, n, end) != 0) return -1;
    fedfile *ff = NULL;
    if (fedfile_load(file, &ff, err, sizeof err) != FEDFILE_OK) {
        fprintf(stderr, "inproc_bench: %s\n", err);
        return -1;
    }
    inproc_opts o = {.no_csv = 1};
    double t0 = now_s();
    int rc = inproc_run(ff, &o, NULL, err, sizeof err);
    double dt = now_s() - t0;
    fedfile_free(ff);
    if (rc != FMUFED_OK) {
        fprintf(stderr, "inproc_bench: %s\n", err);
        return -1;
    }
    return dt;
}

int main(void)
{
    if (!getcwd(g_cwd, sizeof g_cwd)) return 1;
    snprintf(g_dir, sizeof g_dir, "/tmp/inproc_bench_XXXXXX");
    if (!mkdtemp(g_dir)) return 1;
    static const int sizes[] = {2, 8};
    for (size_t k = 0; k < sizeof sizes / sizeof sizes[0]; k++) {
        int n = sizes[k];
        double a = run_ring(n, 0.2), b = run_ring(n, 10.2);
        if (a < 0 || b < 0) {
            printf("inproc_bench: N=%d failed\n", n);
            continue;
        }
        printf("inproc_bench: N=%d federates, improved Jacobi, 10000 steps: in one process "
               "%.1f us/step\n",
               n, (b - a) / 10000 * 1e6);
    }
    char cmd[128];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", g_dir);
    int r = system(cmd);
    (void)r;
    return 0;
}
