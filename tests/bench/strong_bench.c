/* Benchmark of strong coupling distributed (doc/algorithms/strong-coupling.md, "Cost"):
 * right-hand-side rounds per second of tempo-master over 2 and 8 tempo-fmu slaves (1 and 4
 * Lotka-Volterra prey/predator pairs, model exchange, one bin/tempo-rti), set beside the
 * receive-order round trip through the same RTI measured in the same run (a ping-pong of one
 * interaction between two federates, 2000 times). Prints the rates and their ratio: one RHS
 * round's time as a multiple of the RO round trip (mean, and median); never fails on timing.
 * Start-up (FMU load, join, sync) is removed by running two end times and dividing the difference
 * of the rounds by the difference of the wall times. Needs bin/ and build/fmus/ (make all).
 */
#include <stdlib.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "tests/integration/client_harness.h"

#define PING_N 2000 /* RO round trips timed */

static char g_dir[256], g_cwd[1024];

/* n slaves: pairs prey_i (x) <-> predator_i (y), strong coupling, output step 0.5 s. */
static void write_file(const char *path, const char *fed, int n, double end)
{
    FILE *f = fopen(path, "w");
    if (!f) return;
    fprintf(f,
            "{ \"federation\": \"%s\",\n  \"algorithm\": { \"method\": \"strong\", \"end\": %g, "
            "\"step\": 0.5, \"solver\": { \"rtol\": 1e-8, \"atol\": 1e-10 } },\n"
            "  \"federates\": [\n",
            fed, end);
    for (int i = 0; i < n; i++) {
        int p = i / 2;
        if (i % 2 == 0)
            fprintf(f,
                    "   { \"name\": \"prey%d\", \"fmu\": \"%s/build/fmus/lv_prey_me.fmu\", "
                    "\"parameters\": { \"alpha\": 0.5, \"beta\": 0.7, \"x0\": %g },\n"
                    "     \"outputs\": { \"x\": \"Prey%d.x\" }, \"inputs\": { \"y\": "
                    "\"Predator%d.y\" } },\n",
                    p, g_cwd, 1.0 + 0.1 * p, p, p);
        else
            fprintf(f,
                    "   { \"name\": \"predator%d\", \"fmu\": \"%s/build/fmus/lv_predator_me.fmu\", "
                    "\"parameters\": { \"gamma\": 0.27, \"delta\": 0.6, \"y0\": 1 },\n"
                    "     \"outputs\": { \"y\": \"Predator%d.y\" }, \"inputs\": { \"x\": "
                    "\"Prey%d.x\" } }%s\n",
                    p, g_cwd, p, p, i + 1 < n ? "," : "");
    }
    fprintf(f, "  ], \"output\": \"%s/out-%s\" }\n", g_dir, fed);
    fclose(f);
}

/* One distributed run: wall seconds into *secs and the master's RHS rounds into *rounds;
 * 0, or -1 when a process failed. */
static int run(const char *rti, int n, double end, double *secs, long *rounds)
{
    char file[512], fed[64], out[600];
    snprintf(fed, sizeof fed, "strong%d_%ld", n, lround(end));
    snprintf(file, sizeof file, "%s/%s.json", g_dir, fed);
    snprintf(out, sizeof out, "%s/%s.out", g_dir, fed);
    write_file(file, fed, n, end);
    fflush(stdout);
    int64_t t0 = harness_ms();
    pid_t pids[17];
    for (int i = 0; i <= n; i++) {
        char name[32];
        snprintf(name, sizeof name, "%s%d", i % 2 ? "predator" : "prey", i / 2);
        pids[i] = fork();
        if (pids[i] == 0) {
            FILE *o = freopen(i == n ? out : "/dev/null", "w", stdout);
            (void)o;
            if (i == n)
                execl("bin/tempo-master", "bin/tempo-master", "--federation", file, "--rti", rti,
                      (char *)NULL);
            else
                execl("bin/tempo-fmu", "bin/tempo-fmu", "--federation", file, "--name", name,
                      "--rti", rti, "--quiet", (char *)NULL);
            _exit(127);
        }
    }
    int ok = 1;
    for (int i = 0; i <= n; i++) {
        int st;
        waitpid(pids[i], &st, 0);
        ok &= WIFEXITED(st) && WEXITSTATUS(st) == 0;
    }
    *secs = (double)(harness_ms() - t0) / 1e3;
    *rounds = -1;
    FILE *f = fopen(out, "r");
    char line[1024];
    while (f && fgets(line, sizeof line, f)) {
        const char *p = strstr(line, " right-hand sides in ");
        if (p) *rounds = atol(p + strlen(" right-hand sides in "));
    }
    if (f) fclose(f);
    return ok && *rounds > 0 ? 0 : -1;
}

/* ---- the RO round trip: ping-pong of one interaction ------------------------------------ */

static long g_got;
static void on_receive(void *ctx, const tp_interaction *i)
{
    (void)ctx, (void)i;
    g_got++;
}

static tp_federate *join_pp(const char *rti, const char *name, tp_handle *cls, tp_handle *par)
{
    tp_callbacks cb = {.receive = on_receive};
    tp_federate *f = harness_join(rti, "strong-pp", name, "fom/test.xml", &cb, NULL);
    if (!f || tp_interaction_class(f, "Message", cls) != TP_OK ||
        tp_parameter(f, *cls, "text", par) != TP_OK ||
        tp_publish_interaction_class(f, *cls) != TP_OK ||
        tp_subscribe_interaction_class(f, *cls) != TP_OK)
        return NULL;
    return f;
}

static int cmp_d(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

/* The ponger answers every message with one; the pinger times PING_N round trips.
 * @return the mean round trip in seconds (*median: the median), or -1. */
static double ro_round_trip(const char *rti, double *median)
{
    static double rt[PING_N];
    pid_t kid = fork();
    if (kid == 0) {
        tp_handle cls, par;
        tp_federate *f = join_pp(rti, "pong", &cls, &par);
        if (!f || tp_sync(f, "go", 30000) != TP_OK) _exit(1);
        tp_value v = {par, "pong", 4};
        for (long answered = 0; answered < PING_N;) {
            if (tp_evoke(f, 10000) < 0) _exit(1);
            for (; answered < g_got; answered++)
                tp_send_interaction(f, cls, &v, 1, TP_NO_TIME);
            tp_flush(f);
        }
        tp_sync(f, "done", 30000);
        tp_resign(f, TP_DELETE_OBJECTS);
        tp_federate_free(f);
        _exit(0);
    }
    tp_handle cls, par;
    tp_federate *f = join_pp(rti, "ping", &cls, &par);
    double mean = -1;
    size_t k = 0;
    while (f && k < 2) {
        if (tp_query_time_status(f, NULL, 0, &k) != TP_OK) break;
        if (k < 2) usleep(1000);
    }
    if (f && tp_register_sync(f, "go", NULL, 0, NULL, 0) == TP_OK &&
        tp_sync(f, "go", 30000) == TP_OK) {
        tp_value v = {par, "ping", 4};
        struct timespec a, b;
        double sum = 0;
        int i = 0;
        for (; i < PING_N; i++) {
            long before = g_got;
            clock_gettime(CLOCK_MONOTONIC, &a);
            if (tp_send_interaction(f, cls, &v, 1, TP_NO_TIME) != TP_OK) break;
            while (g_got == before)
                if (tp_evoke(f, 10000) < 0) break;
            if (g_got == before) break;
            clock_gettime(CLOCK_MONOTONIC, &b);
            rt[i] = (double)(b.tv_sec - a.tv_sec) + 1e-9 * (double)(b.tv_nsec - a.tv_nsec);
            sum += rt[i];
        }
        if (i == PING_N) {
            mean = sum / PING_N;
            qsort(rt, PING_N, sizeof *rt, cmp_d);
            *median = rt[PING_N / 2];
        }
        tp_register_sync(f, "done", NULL, 0, NULL, 0);
        tp_sync(f, "done", 30000);
    }
    if (f) {
        tp_resign(f, TP_DELETE_OBJECTS);
        tp_federate_free(f);
    }
    waitpid(kid, NULL, 0);
    return mean;
}

static void remove_dir(void)
{
    if (!g_dir[0] || getenv("STRONG_BENCH_KEEP")) return;
    char cmd[300];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", g_dir);
    int r = system(cmd);
    (void)r;
}

int main(void)
{
    if (!getcwd(g_cwd, sizeof g_cwd)) return 1;
    snprintf(g_dir, sizeof g_dir, "/tmp/strong_bench_XXXXXX");
    if (!mkdtemp(g_dir)) return 1;
    atexit(remove_dir);
    static const char *const rti_args[] = {"--log-level", "warn", NULL}; /* figures only */
    const char *rti = harness_start_rti(rti_args, 600);
    if (!rti) return 1;
    atexit(harness_stop_rti);
    char addr[128];
    snprintf(addr, sizeof addr, "%s", rti);
    double med = 0, ro = ro_round_trip(addr, &med);
    printf("strong_bench: RO round trip through the RTI (%d): mean %.1f us, median %.1f us\n",
           PING_N, ro * 1e6, med * 1e6);
    const int sizes[2] = {2, 8};
    for (int k = 0; k < 2; k++) {
        int n = sizes[k];
        double s1 = 0, s2 = 0;
        long r1 = 0, r2 = 0;
        if (run(addr, n, 10, &s1, &r1) || run(addr, n, 100, &s2, &r2) || !(s2 > s1) || r2 <= r1) {
            printf("strong_bench: %d slaves: a run failed (files in %s)\n", n, g_dir);
            continue;
        }
        double rate = (double)(r2 - r1) / (s2 - s1), each = 1 / rate;
        printf("strong_bench: %d slaves: %ld RHS rounds more in %.3f s more = %.0f RHS rounds/s "
               "(%.1f us each) = %.2f RO round trips (mean; %.2f medians)\n",
               n, r2 - r1, s2 - s1, rate, each * 1e6, ro > 0 ? each / ro : 0.0,
               med > 0 ? each / med : 0.0);
    }
    return 0;
}
