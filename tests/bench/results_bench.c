/* Benchmark: the CSV writer's cost per row (federate/run/results.c, doc/robustness.md "Faults
 * inside an FMU"): rows of 1, 4 and 16 values written to a file under $TMPDIR, in ns per row,
 * beside the cost of the coarse clock read each row pays for its time-bounded flush (a row
 * waits at most RES_FLUSH_NS, a tenth of a second, before it is written). Prints figures;
 * never fails on timing. Read federate/run/results.h.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "federate/run/results.h"

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

/* ns per row over n rows of k values (the better of two runs), or -1 on an error. */
static double per_row(const char *dir, size_t k, long n)
{
    char err[512];
    const char *names[16] = {"a", "b", "c", "d", "e", "f", "g", "h",
                             "i", "j", "k", "l", "m", "n", "o", "p"};
    double v[16], best = -1;
    for (int run = 0; run < 2; run++) {
        res_writer *w = NULL;
        if (res_open(&w, dir, "bench", k, names, err, sizeof err) != RES_OK) {
            fprintf(stderr, "results_bench: %s\n", err);
            return -1;
        }
        double t0 = now_s();
        for (long i = 0; i < n; i++) {
            for (size_t j = 0; j < k; j++)
                v[j] = 0.1 * (double)i + (double)j / 3.0;
            if (res_write_row(w, 1e-3 * (double)i, v, err, sizeof err) != RES_OK) {
                fprintf(stderr, "results_bench: %s\n", err);
                res_close(w, NULL, 0);
                return -1;
            }
        }
        double dt = now_s() - t0;
        res_close(w, NULL, 0);
        double ns = 1e9 * dt / (double)n;
        if (best < 0 || ns < best) best = ns;
    }
    return best;
}

int main(void)
{
    const char *tmp = getenv("TMPDIR");
    char dir[512];
    snprintf(dir, sizeof dir, "%s/results_bench.%ld", tmp && tmp[0] ? tmp : "/tmp", (long)getpid());
    long n = 200000;
    struct timespec ts;
    double t0 = now_s();
    for (long i = 0; i < n; i++)
#ifdef CLOCK_MONOTONIC_COARSE
        clock_gettime(CLOCK_MONOTONIC_COARSE, &ts);
#else
        clock_gettime(CLOCK_MONOTONIC, &ts);
#endif
    double clk = 1e9 * (now_s() - t0) / (double)n;
    printf("results_bench: the coarse clock read of the time-bounded flush: %.1f ns\n", clk);
    int bad = 0;
    for (size_t k = 1; k <= 16; k *= 4) {
        double ns = per_row(dir, k, n);
        if (ns < 0) {
            bad = 1;
            continue;
        }
        printf("results_bench: %2zu values per row: %.0f ns per row (%ld rows; the clock read "
               "is %.1f%% of it)\n",
               k, ns, n, 100.0 * clk / ns);
    }
    char path[600];
    snprintf(path, sizeof path, "%s/bench.csv", dir);
    unlink(path);
    rmdir(dir);
    return bad;
}
