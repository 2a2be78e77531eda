/* Benchmark of the stepping interface (federate/fmu/fmu_step.h) on the example FMUs: communication
 * steps per second for ME (CVODE, re-initialised every step) and CS, and the cost of a
 * save/restore pair. Prints figures only; never fails on timing (doc/contributing.md §12).
 * Needs build/fmus/ (make all). */
#include <stdio.h>
#include <time.h>

#include "federate/fmu/fmu_step.h"

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static void bench_steps(const char *path, fmu_kind kind, double h, int n)
{
    fmu_step_opts o = {.kind = kind, .rtol = 1e-6};
    char err[FMU_ERR_LEN];
    fmu_step *s;
    if (fmu_step_open(path, &o, &s, err, sizeof err)) {
        printf("%s: %s\n", path, err);
        return;
    }
    double t0 = now();
    int done = 0;
    for (; done < n && fmu_step_do(s, h, NULL, NULL) == 0; done++) {
    }
    double dt = now() - t0;
    printf("%-34s %s h=%-5g %7d steps  %9.0f steps/s  %7.2f us/step\n", path,
           kind == FMU_KIND_ME ? "ME" : "CS", h, done, done / dt, 1e6 * dt / done);
    fmu_step_close(s);
}

static void bench_rollback(const char *path, fmu_kind kind, int n)
{
    fmu_step_opts o = {.kind = kind};
    char err[FMU_ERR_LEN];
    fmu_step *s;
    if (fmu_step_open(path, &o, &s, err, sizeof err)) {
        printf("%s: %s\n", path, err);
        return;
    }
    fmu_step_state *st = NULL;
    fmu_step_do(s, 0.1, NULL, NULL);
    double t0 = now();
    for (int i = 0; i < n; i++) {
        fmu_step_save(s, &st);
        fmu_step_restore(s, st);
        fmu_step_state_free(s, st);
    }
    double dt = now() - t0;
    printf("%-34s %s save+restore+free %9.0f per s  %7.2f us each\n", path,
           kind == FMU_KIND_ME ? "ME" : "CS", n / dt, 1e6 * dt / n);
    fmu_step_close(s);
}

int main(void)
{
    bench_steps("build/fmus/vanderpol_me.fmu", FMU_KIND_ME, 0.01, 20000);
    bench_steps("build/fmus/vanderpol_cs.fmu", FMU_KIND_CS, 0.01, 20000);
    bench_steps("build/fmus/vanderpol_me.fmu", FMU_KIND_ME, 0.1, 5000);
    bench_steps("build/fmus/vanderpol_cs.fmu", FMU_KIND_CS, 0.1, 5000);
    bench_steps("build/fmus/bouncingball_me.fmu", FMU_KIND_ME, 0.01, 300);
    bench_steps("build/fmus/bouncingball_cs.fmu", FMU_KIND_CS, 0.01, 300);
    bench_rollback("build/fmus/vanderpol_me.fmu", FMU_KIND_ME, 100000);
    bench_rollback("build/fmus/vanderpol_cs.fmu", FMU_KIND_CS, 100000);
    return 0;
}
