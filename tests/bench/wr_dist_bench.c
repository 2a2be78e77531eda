/* Benchmark of waveform relaxation distributed (tempo-master driving tempo-fmu slaves through a
 * real tempo-rti, doc/master.md): WR iterations per second for 2 and 8 slaves (1 and 4
 * Lotka-Volterra pairs, co-simulation and model exchange), and the same figure as a multiple of the
 * receive-order round trip (a ping-pong of one interaction through the same RTI, measured in the
 * same run): the time of one iteration divided by one round trip. One iteration needs at least one
 * round trip (commands out, replies back), so the ratio is >= 1 and says what the rest costs. The
 * time is the algorithm's alone, as tempo-master reports it (joining, the start and the end do not
 * count); the median of 3 runs of 160 macro steps. Prints figures only; never fails on timing.
 * doc/algorithms/waveform-relaxation.md ("Cost"). Needs bin/ and build/fmus/. */
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "federate/libtempo/tempo.h"
#include "tests/integration/client_harness.h"

#define N_PINGS 2000 /* round trips timed (after 100 not timed) */
#define N_WARM  100

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* ---- the receive-order round trip ----------------------------------------------------- */

static tp_federate *pp_join(const char *rti, const char *name, const tp_callbacks *cb, long *got,
                            tp_handle *msg, tp_handle *text)
{
    tp_join_options o = {.rti = rti,
                         .federation = "wr-dist-bench-pp",
                         .federate = name,
                         .fom_path = "fom/test.xml",
                         .create = 1,
                         .timeout_ms = 30000};
    tp_federate *f = NULL;
    char err[512];
    if (tp_join(&o, cb, got, &f, err, sizeof err) != TP_OK) {
        fprintf(stderr, "wr_dist_bench: join %s: %s\n", name, err);
        return NULL;
    }
    if (tp_interaction_class(f, "Message", msg) != TP_OK ||
        tp_parameter(f, *msg, "text", text) != TP_OK ||
        tp_publish_interaction_class(f, *msg) != TP_OK ||
        tp_subscribe_interaction_class(f, *msg) != TP_OK) {
        fprintf(stderr, "wr_dist_bench: %s: declaring: %s\n", name, tp_last_error(f));
        tp_federate_free(f);
        return NULL;
    }
    return f;
}

static void on_receive(void *ctx, const tp_interaction *i)
{
    (*(long *)ctx)++;
}

/* The answering side (a child process): one Message back for each one received. */
static int pong(const char *rti, long n)
{
    long got = 0, sent = 0;
    tp_callbacks cb = {.receive = on_receive};
    tp_handle msg, text;
    tp_federate *f = pp_join(rti, "pong", &cb, &got, &msg, &text);
    if (!f || tp_sync(f, "go", 30000) != TP_OK) return 1;
    char b[64];
    memset(b, 'p', sizeof b); /* a string parameter: no NUL */
    tp_value v = {text, b, sizeof b};
    while (sent < n) {
        if (tp_evoke(f, 10000) < 0) break;
        for (; sent < got; sent++)
            tp_send_interaction(f, msg, &v, 1, TP_NO_TIME);
        tp_flush(f);
    }
    tp_resign(f, TP_DELETE_OBJECTS);
    tp_federate_free(f);
    return sent == n ? 0 : 1;
}

/* Median round trip of a 64-byte receive-order interaction through the RTI, seconds; < 0 on
 * failure. */
static double round_trip(const char *rti)
{
    long n = N_WARM + N_PINGS;
    fflush(stdout);
    pid_t kid = fork();
    if (kid == 0) _exit(pong(rti, n));
    long got = 0;
    tp_callbacks cb = {.receive = on_receive};
    tp_handle msg, text;
    tp_federate *f = pp_join(rti, "ping", &cb, &got, &msg, &text);
    double *rtt = malloc(N_PINGS * sizeof *rtt), med = -1;
    size_t k = 0;
    while (f && k < 2 && tp_query_time_status(f, NULL, 0, &k) == TP_OK)
        if (k < 2) usleep(1000);
    if (!f || !rtt || tp_register_sync(f, "go", NULL, 0, NULL, 0) != TP_OK ||
        tp_sync(f, "go", 30000) != TP_OK) {
        fprintf(stderr, "wr_dist_bench: ping-pong start: %s\n", f ? tp_last_error(f) : "");
        goto out;
    }
    char b[64];
    memset(b, 'p', sizeof b); /* a string parameter: no NUL */
    tp_value v = {text, b, sizeof b};
    for (long i = 0; i < n; i++) {
        long before = got;
        double t0 = now();
        int rc = tp_send_interaction(f, msg, &v, 1, TP_NO_TIME);
        while (rc == TP_OK && got == before)
            rc = tp_evoke(f, 10000) < 0 ? TP_ECLOSED : TP_OK;
        if (rc != TP_OK) {
            fprintf(stderr, "wr_dist_bench: ping %ld: %s\n", i, tp_last_error(f));
            goto out;
        }
        if (i >= N_WARM) rtt[i - N_WARM] = now() - t0;
    }
    qsort(rtt, N_PINGS, sizeof *rtt, cmp_double);
    med = rtt[N_PINGS / 2];
out:
    if (f) tp_resign(f, TP_DELETE_OBJECTS);
    tp_federate_free(f);
    free(rtt);
    if (med < 0) kill(kid, SIGKILL); /* it would wait for the pings that never came */
    waitpid(kid, NULL, 0);
    return med;
}

/* ---- WR distributed -------------------------------------------------------------------- */

/* pairs Lotka-Volterra pairs under WR to end (s), as a federation file (absolute paths). */
static int write_lv(const char *path, const char *fed, const char *kind, int pairs, double end)
{
    char cwd[PATH_MAX];
    if (!getcwd(cwd, sizeof cwd)) return -1;
    FILE *fp = fopen(path, "w");
    if (!fp) return -1;
    fprintf(fp,
            "{\"federation\": \"%s\", \"algorithm\": {\"method\": \"wr\", \"end\": %g, "
            "\"step\": 0.25, \"tol\": 1e-8, \"n_sub\": 3},\n \"solver\": {\"rtol\": 1e-8, "
            "\"atol\": 1e-10}, \"federates\": [\n",
            fed, end);
    for (int p = 0; p < pairs; p++)
        fprintf(fp,
                "%s{\"name\": \"prey%d\", \"fmu\": \"%s/build/fmus/lv_prey_%s.fmu\", "
                "\"outputs\": {\"x\": \"Prey%d.x\"}, \"inputs\": {\"y\": \"Pred%d.y\"}},\n"
                "{\"name\": \"pred%d\", \"fmu\": \"%s/build/fmus/lv_predator_%s.fmu\", "
                "\"outputs\": {\"y\": \"Pred%d.y\"}, \"inputs\": {\"x\": \"Prey%d.x\"}}\n",
                p ? "," : "", p, cwd, kind, p, p, p, cwd, kind, p, p);
    fprintf(fp, "], \"output\": \"%s.out\"}\n", path);
    return fclose(fp);
}

/* Start argv with stdout (and stderr) into out; the child's pid, or -1. */
static pid_t spawn(char *const argv[], const char *out)
{
    fflush(stdout); /* or the child's freopen would write our buffered lines again */
    pid_t pid = fork();
    if (pid == 0) {
        FILE *o = freopen(out, "w", stdout);
        if (o) dup2(fileno(stdout), 2);
        execv(argv[0], argv);
        _exit(127);
    }
    return pid;
}

/* One distributed WR run: the slaves, then the master. Returns the seconds the algorithm took
 * and fills *iters, both from the master's summary lines; < 0 on failure. */
static double wr_run(const char *rti, const char *kind, int pairs, double end, long *iters)
{
    char path[128], fed[64], out[160], name[16];
    snprintf(fed, sizeof fed, "wr-dist-bench-%s-%d", kind, pairs);
    snprintf(path, sizeof path, "/tmp/tempo-wr-dist-%ld-%s-%d.json", (long)getpid(), kind, pairs);
    if (write_lv(path, fed, kind, pairs, end)) return -1;
    pid_t kids[16];
    int n = 2 * pairs;
    for (int j = 0; j < n; j++) {
        snprintf(name, sizeof name, "%s%d", j % 2 ? "pred" : "prey", j / 2);
        snprintf(out, sizeof out, "%s.%s.log", path, name);
        char *argv[] = {"bin/tempo-fmu", "--federation", path, "--name", name,
                        "--rti",         (char *)rti,    NULL};
        kids[j] = spawn(argv, out);
    }
    snprintf(out, sizeof out, "%s.master.log", path);
    char *argv[] = {"bin/tempo-master", "--federation", path, "--rti", (char *)rti, NULL};
    pid_t m = spawn(argv, out);
    int st = -1;
    waitpid(m, &st, 0);
    double dt = -1;
    for (int j = 0; j < n; j++)
        waitpid(kids[j], NULL, 0);
    *iters = -1;
    FILE *in = fopen(out, "r");
    char line[512];
    while (in && fgets(line, sizeof line, in)) {
        const char *p = strstr(line, " wr: ");
        const char *q = p ? strstr(p, "), ") : NULL;
        if (q) *iters = strtol(q + 3, NULL, 10);
        const char *r = strstr(line, "the algorithm took ");
        if (r) dt = strtod(r + 19, NULL);
    }
    if (in) fclose(in);
    char cmd[400];
    snprintf(cmd, sizeof cmd, "rm -rf '%s' '%s'.*", path, path);
    if (system(cmd) != 0) fprintf(stderr, "wr_dist_bench: could not remove %s\n", path);
    if (!WIFEXITED(st) || WEXITSTATUS(st) != 0 || *iters <= 0 || dt <= 0) {
        fprintf(stderr, "wr_dist_bench: %d slaves to %g s failed (status %d)\n", n, end, st);
        return -1;
    }
    return dt;
}

int main(void)
{
    static const char *const extra[] = {"--log-level", "warn", NULL};
    const char *rti = harness_start_rti(extra, 600);
    if (!rti) return 1;
    char addr[64];
    snprintf(addr, sizeof addr, "%s", rti);
    double rtt = round_trip(addr);
    if (rtt <= 0) {
        harness_stop_rti();
        return 1;
    }
    printf("receive-order round trip through tempo-rti: median %.1f us (%d round trips)\n",
           rtt * 1e6, N_PINGS);
    /* Co-simulation (the framework's explicit solver: cheap steps, the exchange shows) and
     * model exchange (CVODE re-initialised at every rollback). */
    static const char *const kinds[] = {"cs", "me"};
    for (int kd = 0; kd < 2; kd++)
        for (int pairs = 1; pairs <= 4; pairs *= 4) {
            long it = 0;
            double t[3];
            int ok = 1;
            for (int k = 0; k < 3 && ok; k++)
                ok = (t[k] = wr_run(addr, kinds[kd], pairs, 40, &it)) > 0;
            if (!ok) continue;
            qsort(t, 3, sizeof *t, cmp_double);
            double rate = (double)it / t[1];
            printf("wr distributed, lotka-volterra %s, %d slaves: %ld iterations in %.3f s "
                   "(median of 3) = %.0f WR iterations/s; one iteration = %.1f us = %.1f round "
                   "trips (the ratio)\n",
                   kinds[kd], 2 * pairs, it, t[1], rate, 1e6 / rate, 1.0 / (rate * rtt));
        }
    harness_stop_rti();
    return 0;
}
