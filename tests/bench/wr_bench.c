/* Benchmark of waveform relaxation in one process (algorithms/wr.h): WR iterations per second
 * for 2 and 8 slaves, beside the cost of the bare port loop that one iteration contains
 * (restore, set_inputs, step with sub-point outputs, sync: no fit, no norm). Slaves: the
 * closed-form fakes of tests/unit/wr_fake.h (the algorithm's own overhead shows) and the
 * Lotka-Volterra FMUs (1 or 4 prey/predator pairs, ME with CVODE). Prints figures only; never
 * fails on timing. The distributed ratio comes with tempo-master.
 * doc/algorithms/waveform-relaxation.md ("Cost"). Needs build/fmus/ (make all). */
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

#include "federate/config/fedfile_algo.h"
#include "tests/unit/master_local.h"
#include "tests/unit/wr_fake.h"

#define TICK 1e-9

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

/* The bare loop: n iterations of one step [0, h] from slot 0, inputs a constant polynomial. */
static double bare_loop(const port_master *m, int64_t h, int n_sub, int n)
{
    double y[8 * 8 * 4], c[8 * (PORT_MAX_ORDER + 1)] = {0};
    for (size_t j = 0; j < m->n_slaves; j++)
        m->slaves[j].ops->save(m->slaves[j].ctx, 0);
    port_sync(m, NULL);
    double t0 = now();
    for (int k = 0; k < n; k++) {
        for (size_t j = 0; j < m->n_slaves; j++) {
            const port_slave *s = &m->slaves[j];
            port_poly u = {.t0 = m->t_start, .order = n_sub, .n = s->info.n_in, .c = c};
            s->ops->restore(s->ctx, 0);
            s->ops->set_inputs(s->ctx, &u);
            s->ops->step(s->ctx, m->t_start + h, n_sub, y, NULL);
        }
        if (port_sync(m, NULL) != PORT_OK) return -1;
    }
    return n / (now() - t0);
}

static void report(const char *what, size_t n_c, const wr_result *r, double dt, double loop_rate)
{
    double rate = (double)r->iter_total / dt;
    printf("%-22s %zu slaves: %7zu iterations in %6.3f s = %9.0f WR iterations/s "
           "(%5.2f per step); bare port loop %9.0f /s; WR/loop cost %.2f\n",
           what, n_c, r->iter_total, dt, rate, (double)r->iter_total / (double)r->n_accepted,
           loop_rate, loop_rate / rate);
}

/* A ring of n fakes: x_j' = -x_j + 0.5 x_{j-1}. */
static void bench_fakes(size_t n_c)
{
    static fake f[8];
    port_slave s[8];
    port_link l[8];
    double b = 0.5;
    for (size_t j = 0; j < n_c; j++) {
        fake_init(&f[j], 1.0, 1, &b, 1.0 + (double)j, TICK);
        s[j] = fake_slave(&f[j], "fake");
        l[j] = (port_link){.to = j, .in = 0, .from = (j + n_c - 1) % n_c, .out = 0};
    }
    port_local_clock clk = {INT64_MIN};
    port_master m = {.ops = &port_local_master_ops,
                     .ctx = &clk,
                     .slaves = s,
                     .n_slaves = n_c,
                     .tick = TICK,
                     .t_start = 0,
                     .t_end = (int64_t)(2000 / TICK)};
    wr_opts o;
    wr_opts_default(&o, (int64_t)(0.1 / TICK));
    o.tol = 1e-12;
    wr_result r;
    char err[512];
    double t0 = now();
    int st = wr_run(&m, l, n_c, &o, &r, err, sizeof err);
    double dt = now() - t0;
    if (st) {
        printf("fakes: %s\n", err);
        wr_result_fini(&r);
        return;
    }
    for (size_t j = 0; j < n_c; j++)
        fake_init(&f[j], 1.0, 1, &b, 1.0, TICK);
    double loop = bare_loop(&m, o.step, o.n_sub, 20000);
    report("closed-form fakes", n_c, &r, dt, loop);
    wr_result_fini(&r);
}

/* pairs Lotka-Volterra pairs as one federation file (absolute FMU paths). */
static int write_lv(const char *path, int pairs)
{
    char cwd[PATH_MAX];
    if (!getcwd(cwd, sizeof cwd)) return -1;
    FILE *fp = fopen(path, "w");
    if (!fp) return -1;
    fprintf(fp, "{\"federation\": \"lv-bench\", \"algorithm\": {\"method\": \"wr\", \"end\": 20, "
                "\"step\": 0.5, \"tol\": 1e-8, \"n_sub\": 4},\n \"solver\": {\"rtol\": 1e-8, "
                "\"atol\": 1e-10}, \"federates\": [\n");
    for (int p = 0; p < pairs; p++)
        fprintf(fp,
                "%s{\"name\": \"prey%d\", \"fmu\": \"%s/build/fmus/lv_prey_me.fmu\", "
                "\"outputs\": {\"x\": \"Prey%d.x\"}, \"inputs\": {\"y\": \"Pred%d.y\"}},\n"
                "{\"name\": \"pred%d\", \"fmu\": \"%s/build/fmus/lv_predator_me.fmu\", "
                "\"outputs\": {\"y\": \"Pred%d.y\"}, \"inputs\": {\"x\": \"Prey%d.x\"}}\n",
                p ? "," : "", p, cwd, p, p, p, cwd, p, p);
    fprintf(fp, "]}\n");
    return fclose(fp);
}

static void bench_fmus(int pairs)
{
    char path[128], err[MASTER_LOCAL_ERRLEN];
    snprintf(path, sizeof path, "/tmp/tempo-wr-bench-%ld-%d.json", (long)getpid(), pairs);
    if (write_lv(path, pairs)) {
        printf("cannot write %s\n", path);
        return;
    }
    fedfile *ff = NULL;
    master_local *ml = NULL;
    wr_result r = {0};
    if (fedfile_load(path, &ff, err, sizeof err) ||
        master_local_open(ff, NULL, &ml, err, sizeof err)) {
        printf("lv bench: %s\n", err);
        goto out;
    }
    double t0 = now();
    int st = master_local_run(ml, &r, err, sizeof err);
    double dt = now() - t0;
    if (st) {
        printf("lv bench: %s\n", err);
        goto out;
    }
    master_local_free(ml);
    ml = NULL;
    master_local_open(ff, NULL, &ml, err, sizeof err); /* fresh slaves at t = 0 */
    double loop = ml ? bare_loop(master_local_port(ml),
                                 ((const wr_opts *)fedfile_settings(ff, "wr"))->step, 4, 2000)
                     : 0;
    report("lotka-volterra ME FMUs", ff->n_feds, &r, dt, loop);
out:
    wr_result_fini(&r);
    master_local_free(ml);
    fedfile_free(ff);
    unlink(path);
}

int main(void)
{
    bench_fakes(2);
    bench_fakes(8);
    bench_fmus(1);
    bench_fmus(4);
    return 0;
}
