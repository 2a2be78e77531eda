/* Benchmark: the federation's overhead per macro step (doc/run.md, doc/inproc.md). N = 2 and 8
 * trivial FMU federates (lv_prey / lv_predator CS FMUs with every rate 0: one output, one
 * input, constant state) in a ring, improved Jacobi (TAR at lookahead 0): each a
 * bin/tempo-fmu process on one bin/tempo-rti, then all in one bin/tempo-fmu --all as tasks on
 * one thread and as threads (spinning, blocking), against the same FMUs stepped in one process
 * loop without an RTI (the lower bound), measured in the same run, and the TCP step as a
 * multiple of the receive-order round trip measured just before it; as tasks also with
 * recording off ("record": [] on every federate, doc/federation.md "Recording less"). Then
 * N = 16 to 256 as tasks, recording off: the cost per federate and step (CPU time: it does
 * not hold the waits for a CPU of a loaded machine). Prints microseconds per macro step and the
 * ratios;
 * never fails on timing. Start-up (FMU load, join, sync) is removed by running 200 steps and
 * 200 + K steps and dividing the difference by K (the better of two runs of each).
 * Last, two coupled systems (a Lotka-Volterra pair, a Lorenz split; CS FMUs, Jacobi, 10^5
 * macro steps) in one process with recording on and off, beside their own one-process loop and
 * OMSimulator's figures for the same systems (doc/performance.md "In one process").
 * Usage: fmufed_bench [--systems]: with --systems only that last part.
 * Serves doc/run.md and doc/inproc.md; read federate/fmufed/fmufed.h.
 */
#include <math.h>
#include <stdlib.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <time.h>

#include "federate/fmu/fmu_step.h"
#include "tests/integration/client_harness.h"

static char g_dir[256], g_cwd[1024];
static int g_record_off; /* write_ring: "record": [] on every federate */
static int g_profile;    /* run_ring_inproc: tempo-fmu --profile (doc/run.md) */

#define MAX_N 256 /* the largest ring */

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static const char *fmu_of(int i)
{
    return i % 2 ? "lv_predator_cs.fmu" : "lv_prey_cs.fmu";
}

/* Ring of n federates: F_i's input comes from F_{i-1}'s output. */
static void write_ring(const char *path, const char *fedname, int n, double end)
{
    FILE *f = fopen(path, "w");
    if (!f) return;
    fprintf(f,
            "{ \"federation\": \"%s\",\n  \"algorithm\": { \"method\": \"jacobi\", \"end\": %g, "
            "\"step\": 0.001 },\n  \"federates\": [\n",
            fedname, end);
    for (int i = 0; i < n; i++) {
        int prev = (i + n - 1) % n;
        const char *out = i % 2 ? "y" : "x", *in = i % 2 ? "x" : "y";
        const char *pout = prev % 2 ? "y" : "x";
        fprintf(
            f,
            "   { \"name\": \"F%d\", \"fmu\": \"%s/build/fmus/%s\",%s\n"
            "     \"parameters\": { %s },\n"
            "     \"outputs\": { \"%s\": \"C%d.%s\" }, \"inputs\": { \"%s\": \"C%d.%s\" } }%s\n",
            i, g_cwd, fmu_of(i), g_record_off ? " \"record\": []," : "",
            i % 2 ? "\"gamma\": 0, \"delta\": 0" : "\"alpha\": 0, \"beta\": 0", out, i, out, in,
            prev, pout, i + 1 < n ? "," : "");
    }
    fprintf(f, "  ], \"output\": \"%s/out-%s\" }\n", g_dir, fedname);
    fclose(f);
}

/* Every federate in one bin/tempo-fmu --all on its embedded RTI (doc/inproc.md): mode
 * "tasks" (one thread), or threads waiting with the given spin ("0": block at once). Returns
 * wall seconds (and the process's CPU seconds in *cpu), or -1. */
static double run_ring_inproc(int n, double end, const char *mode, double *cpu)
{
    char file[512], name[64];
    snprintf(name, sizeof name, "ring%d_%ld_ip%s%s", n, lround(end * 1000), mode,
             g_record_off ? "_norec" : "");
    snprintf(file, sizeof file, "%s/%s.json", g_dir, name);
    write_ring(file, name, n, end);
    fflush(stdout);
    double t0 = now_s();
    pid_t pid = fork();
    if (pid == 0) {
        FILE *o = freopen("/dev/null", "w", stdout);
        (void)o;
        if (!strcmp(mode, "tasks"))
            execl("bin/tempo-fmu", "bin/tempo-fmu", "--federation", file, "--all", "--tasks",
                  g_profile ? "--profile" : "--quiet", "--quiet", (char *)NULL);
        else
            execl("bin/tempo-fmu", "bin/tempo-fmu", "--federation", file, "--all", "--threads",
                  "--spin-us", mode, "--quiet", (char *)NULL);
        _exit(127);
    }
    int st;
    struct rusage ru;
    if (wait4(pid, &st, 0, &ru) != pid) return -1;
    *cpu = (double)(ru.ru_utime.tv_sec + ru.ru_stime.tv_sec) +
           1e-6 * (double)(ru.ru_utime.tv_usec + ru.ru_stime.tv_usec);
    return WIFEXITED(st) && WEXITSTATUS(st) == 0 ? now_s() - t0 : -1;
}

/* µs per macro step in process: (best of two runs of 200 + steps) - (best of two of 200),
 * divided by steps, wall clock and (in *cpu_us) CPU time; -1 when a run failed. */
static double inproc_us(int n, long steps, const char *mode, double *cpu_us)
{
    double a = 1e30, b = 1e30, ca = 1e30, cb = 1e30;
    for (int r = 0; r < 2; r++) {
        double cx, cy;
        double x = run_ring_inproc(n, 0.2, mode, &cx);
        double y = run_ring_inproc(n, 0.2 + (double)steps * 1e-3, mode, &cy);
        if (x < 0 || y < 0) return -1;
        a = x < a ? x : a, b = y < b ? y : b;
        ca = cx < ca ? cx : ca, cb = cy < cb ? cy : cb;
    }
    *cpu_us = (cb - ca) / (double)steps * 1e6;
    return (b - a) / (double)steps * 1e6;
}

/* Run the federation; returns wall seconds, or -1 when a federate failed. */
static double run_ring(const char *rti, int n, double end)
{
    char file[512], name[64];
    snprintf(name, sizeof name, "ring%d_%ld", n, lround(end * 1000));
    snprintf(file, sizeof file, "%s/%s.json", g_dir, name);
    write_ring(file, name, n, end);
    fflush(stdout);
    int64_t t0 = harness_ms();
    pid_t pids[64];
    for (int i = 0; i < n; i++) {
        char fed[16];
        snprintf(fed, sizeof fed, "F%d", i);
        pids[i] = fork();
        if (pids[i] == 0) {
            FILE *o = freopen("/dev/null", "w", stdout);
            (void)o;
            execl("bin/tempo-fmu", "bin/tempo-fmu", "--federation", file, "--name", fed, "--rti",
                  rti, "--quiet", (char *)NULL);
            _exit(127);
        }
    }
    int ok = 1;
    for (int i = 0; i < n; i++) {
        int st;
        waitpid(pids[i], &st, 0);
        ok &= WIFEXITED(st) && WEXITSTATUS(st) == 0;
    }
    return ok ? (double)(harness_ms() - t0) / 1e3 : -1;
}

static double cpu_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

/* The lower bound: the same n FMUs stepped in one loop, outputs copied to inputs. Returns
 * wall seconds (CPU seconds in *cpu), or -1. */
static double in_process(int n, long steps, double *cpu)
{
    fmu_step *s[MAX_N] = {0};
    fmi2ValueReference out_vr[MAX_N], in_vr[MAX_N];
    char e[1024];
    double secs = -1;
    for (int i = 0; i < n; i++) {
        char path[1200];
        snprintf(path, sizeof path, "%s/build/fmus/%s", g_cwd, fmu_of(i));
        const char *pn[2] = {i % 2 ? "gamma" : "alpha", i % 2 ? "delta" : "beta"};
        const char *pv[2] = {"0", "0"};
        fmu_step_opts o = {.n_params = 2, .param_names = pn, .param_values = pv};
        if (fmu_step_open(path, &o, &s[i], e, sizeof e) != FMU_STEP_OK) {
            fprintf(stderr, "open %s: %s\n", path, e);
            goto out;
        }
        const fmu_md *md = fmu_step_md(s[i]);
        out_vr[i] = md->vars[fmu_md_find(md, i % 2 ? "y" : "x")].vr;
        in_vr[i] = md->vars[fmu_md_find(md, i % 2 ? "x" : "y")].vr;
    }
    double t0 = now_s(), c0 = cpu_s();
    double v[MAX_N];
    for (long k = 0; k < steps; k++) {
        for (int i = 0; i < n; i++)
            if (fmu_step_do(s[i], 0.001, NULL, NULL) != FMU_STEP_OK) goto out;
        for (int i = 0; i < n; i++)
            fmu_step_get_real(s[i], 1, &out_vr[i], &v[i]);
        for (int i = 0; i < n; i++)
            fmu_step_set_real(s[i], 1, &in_vr[i], &v[(i + n - 1) % n]);
    }
    secs = now_s() - t0;
    *cpu = cpu_s() - c0;
out:
    for (int i = 0; i < n; i++)
        fmu_step_close(s[i]);
    return secs;
}

/* ---- two coupled systems, as set beside OMSimulator (doc/performance.md) -------------- */

/* One federate of a two-federate system: its FMU, parameters, outputs and the one input it
 * reads from the other federate's output `from` (same name in both: x, y). */
typedef struct {
    const char *name, *fmu;
    int n_params;
    const char *pn[4], *pv[4];
    int n_out;
    const char *out[2];
    const char *in; /* the input, fed by the other federate's output of the same name */
} sys_fed;

typedef struct {
    const char *label;
    double h; /* macro step */
    sys_fed fed[2];
} coupled_sys;

/* The Lotka-Volterra pair and the Lorenz split of doc/performance.md "In one process", CS
 * FMUs (the same parameters as examples/lv_jacobi.json and examples/lorenz_wr.json). */
static const coupled_sys g_systems[2] = {
    {"Lotka-Volterra pair",
     0.01,
     {{"prey", "lv_prey_cs.fmu", 3, {"alpha", "beta", "x0"}, {"0.5", "0.7", "1"}, 1, {"x"}, "y"},
      {"predator",
       "lv_predator_cs.fmu",
       3,
       {"gamma", "delta", "y0"},
       {"0.27", "0.6", "1"},
       1,
       {"y"},
       "x"}}},
    {"Lorenz split",
     0.001,
     {{"xf", "lorenz_x_cs.fmu", 2, {"sigma", "x0"}, {"10", "1"}, 1, {"x"}, "y"},
      {"yz",
       "lorenz_yz_cs.fmu",
       4,
       {"rho", "beta", "y0", "z0"},
       {"28", "2.6666666666666665", "1", "1"},
       2,
       {"y", "z"},
       "x"}}},
};

/* The federation file of system s under Jacobi over [0, steps * h]; record_off: "record": []. */
static void write_system(const char *path, const char *fedname, const coupled_sys *s, long steps,
                         int record_off)
{
    FILE *f = fopen(path, "w");
    if (!f) return;
    fprintf(f,
            "{ \"federation\": \"%s\",\n  \"algorithm\": { \"method\": \"jacobi\", \"end\": "
            "%.17g, \"step\": %.17g },\n  \"federates\": [\n",
            fedname, (double)steps * s->h, s->h);
    for (int i = 0; i < 2; i++) {
        const sys_fed *d = &s->fed[i];
        fprintf(f,
                "   { \"name\": \"%s\", \"fmu\": \"%s/build/fmus/%s\",%s\n     \"parameters\": {",
                d->name, g_cwd, d->fmu, record_off ? " \"record\": []," : "");
        for (int p = 0; p < d->n_params; p++)
            fprintf(f, "%s \"%s\": %s", p ? "," : "", d->pn[p], d->pv[p]);
        fprintf(f, " },\n     \"outputs\": {");
        for (int o = 0; o < d->n_out; o++)
            fprintf(f, "%s \"%s\": \"C%d.%s\"", o ? "," : "", d->out[o], i, d->out[o]);
        fprintf(f, " }, \"inputs\": { \"%s\": \"C%d.%s\" } }%s\n", d->in, 1 - i, d->in,
                i ? "" : ",");
    }
    fprintf(f, "  ], \"output\": \"%s/out-%s\" }\n", g_dir, fedname);
    fclose(f);
}

/* Wall seconds of system s over `steps` macro steps as tasks in one bin/tempo-fmu --all (CPU
 * seconds in *cpu); -1 on failure. */
static double run_system(const coupled_sys *s, int si, long steps, int record_off, double *cpu)
{
    char file[512], name[64];
    snprintf(name, sizeof name, "sys%d_%ld%s", si, steps, record_off ? "_norec" : "");
    snprintf(file, sizeof file, "%s/%s.json", g_dir, name);
    write_system(file, name, s, steps, record_off);
    fflush(stdout);
    double t0 = now_s();
    pid_t pid = fork();
    if (pid == 0) {
        FILE *o = freopen("/dev/null", "w", stdout);
        (void)o;
        execl("bin/tempo-fmu", "bin/tempo-fmu", "--federation", file, "--all", "--tasks", "--quiet",
              (char *)NULL);
        _exit(127);
    }
    int st;
    struct rusage ru;
    if (wait4(pid, &st, 0, &ru) != pid) return -1;
    *cpu = (double)(ru.ru_utime.tv_sec + ru.ru_stime.tv_sec) +
           1e-6 * (double)(ru.ru_utime.tv_usec + ru.ru_stime.tv_usec);
    return WIFEXITED(st) && WEXITSTATUS(st) == 0 ? now_s() - t0 : -1;
}

/* The same two FMUs stepped in one loop (Jacobi: both step, then outputs to inputs), the
 * communication points k * h as the federates compute them; wall seconds, CPU in *cpu, or -1. */
static double loop_system(const coupled_sys *s, long steps, double *cpu)
{
    fmu_step *m[2] = {0};
    fmi2ValueReference out_vr[2], in_vr[2];
    char e[1024];
    double secs = -1;
    for (int i = 0; i < 2; i++) {
        const sys_fed *d = &s->fed[i];
        char path[1200];
        snprintf(path, sizeof path, "%s/build/fmus/%s", g_cwd, d->fmu);
        fmu_step_opts o = {
            .n_params = (size_t)d->n_params, .param_names = d->pn, .param_values = d->pv};
        if (fmu_step_open(path, &o, &m[i], e, sizeof e) != FMU_STEP_OK) {
            fprintf(stderr, "fmufed_bench: open %s: %s\n", path, e);
            goto out;
        }
        const fmu_md *md = fmu_step_md(m[i]);
        out_vr[i] = md->vars[fmu_md_find(md, s->fed[1 - i].in)].vr; /* what the other reads */
        in_vr[i] = md->vars[fmu_md_find(md, d->in)].vr;
    }
    double t0 = now_s(), c0 = cpu_s(), v[2];
    for (long k = 1; k <= steps; k++) {
        for (int i = 0; i < 2; i++)
            if (fmu_step_to(m[i], (double)k * s->h, NULL, NULL) != FMU_STEP_OK) goto out;
        for (int i = 0; i < 2; i++)
            fmu_step_get_real(m[i], 1, &out_vr[i], &v[i]);
        for (int i = 0; i < 2; i++)
            fmu_step_set_real(m[i], 1, &in_vr[i], &v[1 - i]);
    }
    secs = now_s() - t0;
    *cpu = cpu_s() - c0;
out:
    for (int i = 0; i < 2; i++)
        fmu_step_close(m[i]);
    return secs;
}

/* Each system in one process, 10^5 macro steps net of a run of 200 (start-up cancels), the
 * better of two runs, recording on and off, beside the loop and OMSimulator's figures of the
 * same systems (measured elsewhere, doc/performance.md "In one process": not a bound of this
 * run, printed for reference). */
static void bench_systems(void)
{
    static const double oms_off[2] = {4.0, 2.6}, oms_on[2] = {10.3, 10.5}; /* µs wall */
    const long k = 100000;
    for (int si = 0; si < 2; si++) {
        const coupled_sys *s = &g_systems[si];
        double w[2], c[2]; /* recording on, off: µs per step, wall and CPU */
        int failed = 0;
        for (int off = 0; off < 2 && !failed; off++) {
            double a = 1e30, b = 1e30, ca = 1e30, cb = 1e30;
            for (int r = 0; r < 2 && !failed; r++) {
                double cx, cy, x = run_system(s, si, 200, off, &cx),
                               y = run_system(s, si, 200 + k, off, &cy);
                if (x < 0 || y < 0) failed = 1;
                a = x < a ? x : a, b = y < b ? y : b, ca = cx < ca ? cx : ca,
                cb = cy < cb ? cy : cb;
            }
            w[off] = (b - a) / (double)k * 1e6, c[off] = (cb - ca) / (double)k * 1e6;
        }
        double lcpu, lw = loop_system(s, k, &lcpu);
        if (failed || lw < 0) {
            printf("fmufed_bench: %s: %s failed\n", s->label,
                   failed ? "a run of tempo-fmu --all" : "the one-process loop");
            continue;
        }
        double lus = lw / (double)k * 1e6, lcus = lcpu / (double)k * 1e6;
        printf("fmufed_bench: %s, Jacobi h = %g, %ld steps, tasks: recording on %.2f us/step "
               "(CPU %.2f), off %.2f us/step (CPU %.2f); one-process loop %.2f (CPU %.2f), CPU "
               "ratio off/loop %.1f [target <= 3]; OMSimulator (elsewhere): on %.1f, off %.1f "
               "us/step\n",
               s->label, s->h, k, w[0], c[0], w[1], c[1], lus, lcus, lcus > 0 ? c[1] / lcus : 0.0,
               oms_on[si], oms_off[si]);
    }
}

/* ---- the receive-order round trip, for the TCP steps' ratio --------------------------- */

static long g_got; /* interactions received by the pinging or ponging federate */

static void on_ping(void *ctx, const tp_interaction *i)
{
    g_got++;
}

static tp_federate *pp_join(const char *rti, const char *name, tp_handle *msg, tp_handle *text)
{
    tp_callbacks cb = {.receive = on_ping};
    tp_federate *f = harness_join(rti, "fmufed-bench-pp", name, "fom/test.xml", &cb, NULL);
    if (f && (tp_interaction_class(f, "Message", msg) != TP_OK ||
              tp_parameter(f, *msg, "text", text) != TP_OK ||
              tp_publish_interaction_class(f, *msg) != TP_OK ||
              tp_subscribe_interaction_class(f, *msg) != TP_OK)) {
        tp_federate_free(f);
        return NULL;
    }
    return f;
}

/* Median round trip (seconds) of a 64-byte receive-order interaction between two federate
 * processes through the RTI, n round trips after 50 untimed; < 0 on failure. */
static double round_trip(const char *rti, long n)
{
    fflush(stdout);
    g_got = 0; /* the child inherits it: a count left from the last call would make it answer
                * pings never sent, and the parent then wait for one more answer forever */
    pid_t kid = fork();
    if (kid == 0) {
        tp_handle msg, text;
        tp_federate *f = pp_join(rti, "pong", &msg, &text);
        if (!f || tp_sync(f, "go", 30000) != TP_OK) _exit(1);
        char b[64];
        memset(b, 'p', sizeof b);
        tp_value v = {text, b, sizeof b};
        for (long sent = 0; sent < n + 50;) {
            if (tp_evoke(f, 10000) < 0) _exit(1);
            for (; sent < g_got; sent++)
                tp_send_interaction(f, msg, &v, 1, TP_NO_TIME);
            tp_flush(f);
        }
        tp_resign(f, TP_DELETE_OBJECTS);
        tp_federate_free(f);
        _exit(0);
    }
    tp_handle msg, text;
    tp_federate *f = pp_join(rti, "ping", &msg, &text);
    double *rt = malloc((size_t)n * sizeof *rt), med = -1;
    size_t k = 0;
    while (f && k < 2 && tp_query_time_status(f, NULL, 0, &k) == TP_OK)
        if (k < 2) usleep(1000);
    if (!f || !rt || tp_register_sync(f, "go", NULL, 0, NULL, 0) != TP_OK ||
        tp_sync(f, "go", 30000) != TP_OK)
        goto out;
    char b[64];
    memset(b, 'p', sizeof b);
    tp_value v = {text, b, sizeof b};
    for (long i = 0; i < n + 50; i++) {
        long before = g_got;
        double t0 = now_s();
        if (tp_send_interaction(f, msg, &v, 1, TP_NO_TIME) != TP_OK) goto out;
        while (g_got == before) /* 10 s without an answer: the pong is gone */
            if (tp_evoke(f, 10000) <= 0) goto out;
        if (i >= 50) rt[i - 50] = now_s() - t0;
    }
    for (long i = 1; i < n; i++) /* insertion sort: n is small */
        for (long j = i; j > 0 && rt[j - 1] > rt[j]; j--) {
            double x = rt[j];
            rt[j] = rt[j - 1], rt[j - 1] = x;
        }
    med = rt[n / 2];
out:
    if (f) tp_resign(f, TP_DELETE_OBJECTS);
    tp_federate_free(f);
    free(rt);
    if (med < 0) kill(kid, SIGKILL);
    waitpid(kid, NULL, 0);
    return med;
}

/* Remove the temporary folder at exit (kept when FMUFED_KEEP is set, to inspect the files). */
static void remove_dir(void)
{
    if (!g_dir[0] || getenv("FMUFED_KEEP")) return;
    char cmd[300];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", g_dir);
    int r = system(cmd);
    (void)r;
}

int main(int argc, char **argv)
{
    if (!getcwd(g_cwd, sizeof g_cwd)) return 1;
    snprintf(g_dir, sizeof g_dir, "/tmp/fmufed_bench_XXXXXX");
    if (!mkdtemp(g_dir)) return 1;
    atexit(remove_dir);
    if (argc > 1 && !strcmp(argv[1], "--systems")) { /* only the two coupled systems */
        bench_systems();
        return 0;
    }
    static const char *const rti_args[] = {"--log-level", "warn", NULL}; /* figures only */
    /* the whole bench within 30 min: N = 8 over TCP alone takes minutes on a loaded machine */
    const char *rti = harness_start_rti(rti_args, 1800);
    if (!rti) return 1;
    atexit(harness_stop_rti);
    char addr[128];
    snprintf(addr, sizeof addr, "%s", rti);
    const int sizes[2] = {2, 8};
    for (int k = 0; k < 2; k++) {
        int n = sizes[k];
        double rtt = round_trip(addr, 1000); /* just before the runs it is set beside */
        double shortrun = run_ring(addr, n, 0.2), longrun = run_ring(addr, n, 10.2), lcpu;
        double base = in_process(n, 100000, &lcpu);
        if (shortrun < 0 || longrun < 0 || base < 0) {
            printf("fmufed_bench: N=%d: a run failed\n", n);
            continue;
        }
        double fed_us = (longrun - shortrun) / 10000 * 1e6, loop_us = base / 100000 * 1e6;
        double loop_cpu = lcpu / 100000 * 1e6;
        printf(
            "fmufed_bench: N=%d federates, improved Jacobi, 10000 steps: federation %.1f us/step, "
            "one-process loop %.2f us/step (CPU %.2f), ratio %.1f\n",
            n, fed_us, loop_us, loop_cpu, loop_us > 0 ? fed_us / loop_us : 0.0);
        if (rtt > 0) /* doc/performance.md "Peer methods over TCP": target 1.5 */
            printf("fmufed_bench: N=%d over TCP: one Jacobi step = %.2f receive-order round trips "
                   "(median round trip %.1f us, measured just before) [target <= 1.5]\n",
                   n, fed_us / (rtt * 1e6), rtt * 1e6);
        /* In process: the same file, every federate a task on one thread (40000 steps), then
         * a thread spinning the default 50 us before blocking, and blocking at once. Wall
         * time, and CPU time (the process's, every thread) beside the loop's CPU time: on a
         * loaded machine the wall time also holds the waits for a CPU. */
        static const char *const modes[3] = {"tasks", "50", "0"};
        static const char *const labels[3] = {"tasks on one thread", "threads, spin 50 us",
                                              "threads, blocking"};
        for (int m = 0; m < 3; m++) {
            double cpu_us, ip_us = inproc_us(n, m ? 10000 : 40000, modes[m], &cpu_us);
            if (ip_us < 0) {
                printf("fmufed_bench: N=%d in process (%s): a run failed\n", n, labels[m]);
                continue;
            }
            printf("fmufed_bench: N=%d in process (%s): %.2f us/step, ratio to the loop %.1f "
                   "[target <= 10], %.1fx faster than over TCP; CPU %.2f us/step, ratio %.1f\n",
                   n, labels[m], ip_us, loop_us > 0 ? ip_us / loop_us : 0.0,
                   ip_us > 0 ? fed_us / ip_us : 0.0, cpu_us,
                   loop_cpu > 0 ? cpu_us / loop_cpu : 0.0);
        }
        /* Tasks with recording off: what the coupling alone costs beside the loop (which
         * records nothing either). */
        g_record_off = 1;
        double cpu_us, ip_us = inproc_us(n, 40000, "tasks", &cpu_us);
        g_record_off = 0;
        if (ip_us < 0)
            printf("fmufed_bench: N=%d in process (tasks, recording off): a run failed\n", n);
        else
            printf("fmufed_bench: N=%d in process (tasks, recording off): %.2f us/step, ratio to "
                   "the loop %.1f; CPU %.2f us/step, ratio %.1f [target <= 3]\n",
                   n, ip_us, loop_us > 0 ? ip_us / loop_us : 0.0, cpu_us,
                   loop_cpu > 0 ? cpu_us / loop_cpu : 0.0);
        /* The same with --profile: what profiling costs (doc/run.md "Where the time goes"),
         * beside the row above of the same run. */
        g_record_off = g_profile = 1;
        double pcpu_us, pip_us = inproc_us(n, 40000, "tasks", &pcpu_us);
        g_record_off = g_profile = 0;
        if (pip_us < 0 || ip_us < 0)
            printf("fmufed_bench: N=%d in process (tasks, recording off, --profile): a run "
                   "failed\n",
                   n);
        else
            printf("fmufed_bench: N=%d in process (tasks, recording off, --profile): %.2f "
                   "us/step (+%.2f), CPU %.2f us/step (+%.2f, %.0f %%): the profile's cost\n",
                   n, pip_us, pip_us - ip_us, pcpu_us, pcpu_us - cpu_us,
                   cpu_us > 0 ? 100 * (pcpu_us - cpu_us) / cpu_us : 0.0);
    }
    /* 16 to 256 trivial federates as tasks in one process, recording off: the cost per step,
     * and per step and federate (linear in N when that figure stays flat; 256 is the size of
     * the houses case, doc/cases/houses.md). Steps: 160000 / N (10000 at 16), at least 1000. */
    g_record_off = 1;
    for (int n = 16; n <= MAX_N; n *= 2) {
        long steps = 160000 / n < 1000 ? 1000 : 160000 / n;
        double cpu_us, ip_us = inproc_us(n, steps, "tasks", &cpu_us), lcpu;
        double base = in_process(n, 2 * steps, &lcpu);
        if (ip_us < 0 || base < 0) {
            printf("fmufed_bench: N=%d in process: %s failed\n", n,
                   ip_us < 0 ? "a run of tempo-fmu --all" : "the one-process loop");
            continue;
        }
        double loop_us = base / (double)(2 * steps) * 1e6,
               loop_cpu = lcpu / (double)(2 * steps) * 1e6;
        printf("fmufed_bench: N=%d in process (tasks, recording off, %ld steps): %.1f us/step "
               "(%.2f us per federate and step; CPU %.2f), one-process loop %.2f us/step (%.3f "
               "per federate; CPU %.3f), CPU ratio %.1f\n",
               n, steps, ip_us, ip_us / n, cpu_us / n, loop_us, loop_us / n, loop_cpu / n,
               loop_cpu > 0 ? cpu_us / loop_cpu : 0.0);
    }
    g_record_off = 0;
    bench_systems();
    return 0;
}
