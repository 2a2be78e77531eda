/* Benchmark of the coupling methods distributed over TCP, each process on one tempo-rti.
 * Master methods (tempo-master driving tempo-fmu slaves, doc/master.md): waveform relaxation
 * (co-simulation and model exchange), semi-implicit and strong coupling over 2 and 8 slaves (1
 * and 4 Lotka-Volterra pairs); per row the algorithm's iterations (WR iterations,
 * semi-implicit updates, strong RHS rounds) and one iteration's time as it reports it (joining,
 * the start and the end do not count), the median of 3 runs. Peer methods (tempo-fmu peers,
 * doc/algorithms/jacobi.md, gauss-seidel.md): a ring of 2 and 8 trivial FMU federates under
 * Jacobi, 2 under Gauss-Seidel, 1 ms steps, nothing recorded; a step's cost is a run of 200 +
 * K steps less a run of 200 (start-up and end cancel), divided by K, the median of 3.
 * Bounds, in the same run: the receive-order round trip (a ping-pong of one interaction
 * through the same RTI), measured just before each run for the wall-time ratio (which the
 * machine's load makes swing), and once at the start for its CPU time and wake-ups (voluntary
 * context switches: each time a process blocked and was woken) of all three processes, beside
 * which every row sets its own CPU time and wake-ups per iteration or step, over every process
 * of the run: figures the load inflates far less than wall time (doc/performance.md "Reading
 * the figures"). Counts too: the master's rounds (one per sync; doc/master.md "Batches") and
 * messages per iteration (the whole run's, as the CPU and wake-ups of master rows), the
 * peers' time requests and updates per federate and step.
 * Usage: wr_dist_bench [--peers | --masters] [BASE]: only the peer or the master rows; with
 * BASE (a folder holding an older tempo-master and tempo-fmu) every row runs those too and
 * prints both (before/after in one run). Prints figures only; never fails on timing.
 * doc/performance.md; doc/algorithms/waveform-relaxation.md ("Cost"). Needs bin/ and
 * build/fmus/. */
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>
#include <unistd.h>

#include "federate/libtempo/tempo.h"
#include "tests/integration/client_harness.h"
#define N_PINGS     2000 /* round trips timed at the start (after 100 not timed) */
#define N_PINGS_RUN 400  /* and before each run, for that run's ratio */
#define N_WARM      100

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

/* CPU seconds (user + system) of process pid so far, from /proc; 0 when unreadable. */
static double proc_cpu(pid_t pid)
{
    char path[64], buf[1024];
    snprintf(path, sizeof path, "/proc/%ld/stat", (long)pid);
    FILE *f = fopen(path, "r");
    size_t n = f ? fread(buf, 1, sizeof buf - 1, f) : 0;
    if (f) fclose(f);
    buf[n] = '\0';
    const char *p = strrchr(buf, ')'); /* the name may hold spaces */
    unsigned long ut = 0, st = 0;
    if (!p || sscanf(p + 2, "%*c %*d %*d %*d %*d %*d %*u %*u %*u %*u %*u %lu %lu", &ut, &st) != 2)
        return 0;
    return (double)(ut + st) / (double)sysconf(_SC_CLK_TCK);
}

/* Voluntary context switches of process pid so far (its main thread, /proc: every time it
 * blocked, i.e. one wake-up each), 0 when unreadable. */
static long proc_wakeups(pid_t pid)
{
    char path[64], line[256];
    snprintf(path, sizeof path, "/proc/%ld/status", (long)pid);
    FILE *f = fopen(path, "r");
    long n = 0;
    while (f && fgets(line, sizeof line, f))
        if (sscanf(line, "voluntary_ctxt_switches: %ld", &n) == 1) break;
    if (f) fclose(f);
    return n;
}

static long children_wakeups(void)
{
    struct rusage ru;
    getrusage(RUSAGE_CHILDREN, &ru);
    return ru.ru_nvcsw;
}

/* What one timed round trip cost all three processes (the pinging, the answering and the RTI),
 * over the last round_trip: CPU seconds and wake-ups (the bound beside which a step's CPU time
 * and wake-ups are set, both far less sensitive to the machine's load than wall time). */
static double g_rt_cpu, g_rt_wakeups;
static double g_cpu_rt, g_wake_rt; /* those of the first, long measurement: every row's bound */

static double self_cpu(void)
{
    struct rusage ru;
    getrusage(RUSAGE_SELF, &ru);
    return (double)ru.ru_utime.tv_sec + 1e-6 * (double)ru.ru_utime.tv_usec +
           (double)ru.ru_stime.tv_sec + 1e-6 * (double)ru.ru_stime.tv_usec;
}

/* CPU seconds and wake-ups of the three processes of a ping-pong so far. */
static double pp_cpu(pid_t kid)
{
    return self_cpu() + proc_cpu(kid) + proc_cpu(harness_rti_.pid);
}
static long pp_wakeups(pid_t kid)
{
    return proc_wakeups(getpid()) + proc_wakeups(kid) + proc_wakeups(harness_rti_.pid);
}

/* Median round trip of a 64-byte receive-order interaction through the RTI, seconds; < 0 on
 * failure. */
static double round_trip(const char *rti, long n_pings)
{
    long n = N_WARM + n_pings;
    fflush(stdout);
    pid_t kid = fork();
    if (kid == 0) _exit(pong(rti, n));
    long got = 0;
    tp_callbacks cb = {.receive = on_receive};
    tp_handle msg, text;
    tp_federate *f = pp_join(rti, "ping", &cb, &got, &msg, &text);
    double *rtt = malloc((size_t)n_pings * sizeof *rtt), med = -1;
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
    double cpu0 = 0;
    long w0 = 0;
    for (long i = 0; i < n; i++) {
        if (i == N_WARM) cpu0 = pp_cpu(kid), w0 = pp_wakeups(kid);
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
    g_rt_cpu = (pp_cpu(kid) - cpu0) / (double)n_pings;
    g_rt_wakeups = (double)(pp_wakeups(kid) - w0) / (double)n_pings;
    qsort(rtt, (size_t)n_pings, sizeof *rtt, cmp_double);
    med = rtt[n_pings / 2];
out:
    if (f) tp_resign(f, TP_DELETE_OBJECTS);
    tp_federate_free(f);
    free(rtt);
    if (med < 0) kill(kid, SIGKILL); /* it would wait for the pings that never came */
    waitpid(kid, NULL, 0);
    return med;
}

/* ---- the master algorithms distributed --------------------------------------------------- */

typedef struct method {
    const char *label; /* the row's name */
    const char *kind;  /* the FMUs: "cs" or "me" */
    const char *algo;  /* the "algorithm" object's keys after "end" */
    const char *key;   /* the summary line's text before the iteration count */
    const char *what;  /* what one iteration is */
} method;

static const method METHODS[] = {
    {"wr cs", "cs", "\"method\": \"wr\", \"step\": 0.25, \"tol\": 1e-8, \"n_sub\": 3",
     "halved away), ", "WR iterations"},
    {"wr me", "me", "\"method\": \"wr\", \"step\": 0.25, \"tol\": 1e-8, \"n_sub\": 3",
     "halved away), ", "WR iterations"},
    {"semi-implicit me", "me",
     "\"method\": \"semi-implicit\", \"step\": 0.25, \"iteration\": \"newton\", \"tol\": 1e-8, "
     "\"n_sub\": 1",
     " steps, ", "updates"},
    {"strong me", "me", "\"method\": \"strong\", \"step\": 0.25", " right-hand sides in ",
     "RHS rounds"},
};

/* pairs Lotka-Volterra pairs under method m to end (s), as a federation file (absolute
 * paths). */
static int write_lv(const char *path, const char *fed, const method *m, int pairs, double end)
{
    char cwd[PATH_MAX];
    if (!getcwd(cwd, sizeof cwd)) return -1;
    FILE *fp = fopen(path, "w");
    if (!fp) return -1;
    fprintf(fp,
            "{\"federation\": \"%s\", \"algorithm\": {\"end\": %g, %s},\n \"solver\": "
            "{\"rtol\": 1e-8, \"atol\": 1e-10}, \"federates\": [\n",
            fed, end, m->algo);
    for (int p = 0; p < pairs; p++)
        fprintf(fp,
                "%s{\"name\": \"prey%d\", \"fmu\": \"%s/build/fmus/lv_prey_%s.fmu\", "
                "\"outputs\": {\"x\": \"Prey%d.x\"}, \"inputs\": {\"y\": \"Pred%d.y\"}},\n"
                "{\"name\": \"pred%d\", \"fmu\": \"%s/build/fmus/lv_predator_%s.fmu\", "
                "\"outputs\": {\"y\": \"Pred%d.y\"}, \"inputs\": {\"x\": \"Prey%d.x\"}}\n",
                p ? "," : "", p, cwd, m->kind, p, p, p, cwd, m->kind, p, p);
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

static double children_cpu(void)
{
    struct rusage ru;
    getrusage(RUSAGE_CHILDREN, &ru);
    return (double)ru.ru_utime.tv_sec + 1e-6 * (double)ru.ru_utime.tv_usec +
           (double)ru.ru_stime.tv_sec + 1e-6 * (double)ru.ru_stime.tv_usec;
}

typedef struct run_figs {
    double secs;        /* the algorithm's wall time, from the master */
    long iters;         /* the algorithm's iterations, from its summary line */
    long rounds, m_out; /* the master's rounds and messages out (-1: not printed) */
    double rtt;         /* the round trip measured just before this run, seconds */
    double cpu;         /* CPU seconds of every process of the run, the RTI's share included */
    long wakeups;       /* voluntary context switches of every process of the run (the same) */
} run_figs;

/* One distributed run with the programs of bin_dir: the slaves, then the master. 0, or -1 on
 * failure. */
static int ms_run(const char *rti, const char *bin_dir, const method *m, int pairs, double end,
                  run_figs *fg)
{
    char path[160], fed[64], out[200], name[16], fmu[300], master[300];
    snprintf(fed, sizeof fed, "ms-dist-bench-%d", pairs);
    snprintf(path, sizeof path, "/tmp/tempo-ms-dist-%ld-%d.json", (long)getpid(), pairs);
    snprintf(fmu, sizeof fmu, "%s/tempo-fmu", bin_dir);
    snprintf(master, sizeof master, "%s/tempo-master", bin_dir);
    if (write_lv(path, fed, m, pairs, end)) return -1;
    double cpu0 = children_cpu(), rti0 = proc_cpu(harness_rti_.pid);
    long w0 = children_wakeups() + proc_wakeups(harness_rti_.pid);
    pid_t kids[16];
    int n = 2 * pairs;
    for (int j = 0; j < n; j++) {
        snprintf(name, sizeof name, "%s%d", j % 2 ? "pred" : "prey", j / 2);
        snprintf(out, sizeof out, "%s.%s.log", path, name);
        char *argv[] = {fmu, "--federation", path, "--name", name, "--rti", (char *)rti, NULL};
        kids[j] = spawn(argv, out);
    }
    snprintf(out, sizeof out, "%s.master.log", path);
    char *argv[] = {master, "--federation", path, "--rti", (char *)rti, NULL};
    pid_t pm = spawn(argv, out);
    int st = -1;
    waitpid(pm, &st, 0);
    for (int j = 0; j < n; j++)
        waitpid(kids[j], NULL, 0);
    fg->cpu = children_cpu() - cpu0 + proc_cpu(harness_rti_.pid) - rti0;
    fg->wakeups = children_wakeups() + proc_wakeups(harness_rti_.pid) - w0;
    fg->secs = -1, fg->iters = fg->rounds = fg->m_out = -1;
    FILE *in = fopen(out, "r");
    char line[1024];
    while (in && fgets(line, sizeof line, in)) {
        const char *p = strstr(line, m->key);
        if (p) fg->iters = strtol(p + strlen(m->key), NULL, 10);
        const char *r = strstr(line, "the algorithm took ");
        if (r) fg->secs = strtod(r + 19, NULL);
        const char *q = strstr(line, " notes logged; ");
        if (q) sscanf(q + 15, "%ld rounds, %ld messages out", &fg->rounds, &fg->m_out);
    }
    if (in) fclose(in);
    char cmd[400];
    snprintf(cmd, sizeof cmd, "rm -rf '%s' '%s'.*", path, path);
    if (system(cmd) != 0) fprintf(stderr, "wr_dist_bench: could not remove %s\n", path);
    if (!WIFEXITED(st) || WEXITSTATUS(st) != 0 || fg->iters <= 0 || fg->secs <= 0) {
        fprintf(stderr, "wr_dist_bench: %s, %d slaves, %s: failed (status %d)\n", m->label, n,
                bin_dir, st);
        return -1;
    }
    return 0;
}

/* The median run of three (by wall time). */
static int cmp_figs(const void *a, const void *b)
{
    const run_figs *x = a, *y = b;
    return (x->secs > y->secs) - (x->secs < y->secs);
}

static void row(const char *who, const method *m, int n, const run_figs *f)
{
    double rtt = f->rtt;
    double it = (double)f->iters;
    printf("%-6s %-17s %d slaves: %6ld %s in %.3f s = %7.1f us each = %5.2f round trips "
           "(%.1f us); CPU %7.1f us = %4.1f round trips', %5.1f wake-ups = %4.1f round trips' "
           "each (all processes)",
           who, m->label, n, f->iters, m->what, f->secs, 1e6 * f->secs / it, f->secs / it / rtt,
           1e6 * rtt, 1e6 * f->cpu / it, f->cpu / it / g_cpu_rt, (double)f->wakeups / it,
           (double)f->wakeups / it / g_wake_rt);
    if (f->rounds >= 0)
        printf("; %.2f rounds and %.2f messages out each", (double)f->rounds / it,
               (double)f->m_out / it);
    printf("\n");
}

/* ---- peer methods over TCP ---------------------------------------------------------------- */

/* A ring of n trivial FMU federates (lv_prey / lv_predator CS with every rate 0: one output,
 * one input, constant state), nothing recorded, as fmufed_bench's, over [0, end] s at 1 ms. */
typedef struct peer_method {
    const char *method; /* the algorithm */
    int n;              /* federates */
    long steps;         /* macro steps timed (beyond the 200 of the short run) */
    const char *target; /* the bound, in round trips per step */
} peer_method;

static const peer_method PEERS[] = {
    {"jacobi", 2, 4000, "1.5"},
    {"jacobi", 8, 1000, "1.5"},
    {"gauss-seidel", 2, 1000, "2.5"},
};

static int write_ring(const char *path, const char *fed, const peer_method *pm, double end)
{
    char cwd[PATH_MAX];
    if (!getcwd(cwd, sizeof cwd)) return -1;
    FILE *fp = fopen(path, "w");
    if (!fp) return -1;
    fprintf(fp,
            "{\"federation\": \"%s\", \"algorithm\": {\"method\": \"%s\", \"end\": %g, \"step\": "
            "0.001}, \"federates\": [\n",
            fed, pm->method, end);
    for (int i = 0; i < pm->n; i++) {
        int prev = (i + pm->n - 1) % pm->n;
        fprintf(fp,
                "%s{\"name\": \"F%d\", \"fmu\": \"%s/build/fmus/%s\", \"record\": [], "
                "\"parameters\": {%s}, \"outputs\": {\"%s\": \"C%d.%s\"}, \"inputs\": {\"%s\": "
                "\"C%d.%s\"}}\n",
                i ? "," : "", i, cwd, i % 2 ? "lv_predator_cs.fmu" : "lv_prey_cs.fmu",
                i % 2 ? "\"gamma\": 0, \"delta\": 0" : "\"alpha\": 0, \"beta\": 0",
                i % 2 ? "y" : "x", i, i % 2 ? "y" : "x", i % 2 ? "x" : "y", prev,
                prev % 2 ? "y" : "x");
    }
    fprintf(fp, "], \"output\": \"%s.out\"}\n", path);
    return fclose(fp);
}

typedef struct peer_figs {
    double secs, cpu;      /* wall from the first start to the last exit; CPU of all */
    long wakeups;          /* voluntary context switches of all, the RTI included */
    long requests, writes; /* time requests and updates, summed over the federates */
} peer_figs;

/* One run of the ring to end (s) with bin_dir's tempo-fmu; 0, or -1 on failure. */
static int peer_run(const char *rti, const char *bin_dir, const peer_method *pm, double end,
                    peer_figs *fg)
{
    char path[160], fed[64], out[200], name[16], fmu[300];
    snprintf(fed, sizeof fed, "peer-dist-bench-%s-%d", pm->method, pm->n);
    snprintf(path, sizeof path, "/tmp/tempo-peer-dist-%ld-%d.json", (long)getpid(), pm->n);
    snprintf(fmu, sizeof fmu, "%s/tempo-fmu", bin_dir);
    if (write_ring(path, fed, pm, end)) return -1;
    double cpu0 = children_cpu(), rti0 = proc_cpu(harness_rti_.pid), t0 = now();
    long w0 = children_wakeups() + proc_wakeups(harness_rti_.pid);
    pid_t kids[16];
    for (int j = 0; j < pm->n; j++) {
        snprintf(name, sizeof name, "F%d", j);
        snprintf(out, sizeof out, "%s.%s.log", path, name);
        char *argv[] = {fmu, "--federation", path, "--name", name, "--rti", (char *)rti, NULL};
        kids[j] = spawn(argv, out);
    }
    int ok = 1;
    for (int j = 0; j < pm->n; j++) {
        int st = -1;
        waitpid(kids[j], &st, 0);
        ok &= WIFEXITED(st) && WEXITSTATUS(st) == 0;
    }
    fg->secs = now() - t0;
    fg->cpu = children_cpu() - cpu0 + proc_cpu(harness_rti_.pid) - rti0;
    fg->wakeups = children_wakeups() + proc_wakeups(harness_rti_.pid) - w0;
    fg->requests = fg->writes = 0;
    for (int j = 0; j < pm->n && ok; j++) { /* "N updates, N reflections, N time requests" */
        snprintf(out, sizeof out, "%s.F%d.log", path, j);
        FILE *in = fopen(out, "r");
        char line[1024];
        long u = -1, q = -1;
        while (in && fgets(line, sizeof line, in)) {
            const char *p = strstr(line, " instants, ");
            if (p) sscanf(p + 11, "%ld updates, %*d reflections, %ld time requests", &u, &q);
        }
        if (in) fclose(in);
        ok &= u >= 0 && q >= 0;
        fg->writes += u, fg->requests += q;
    }
    char cmd[400];
    snprintf(cmd, sizeof cmd, "rm -rf '%s' '%s'.*", path, path);
    if (system(cmd) != 0) fprintf(stderr, "wr_dist_bench: could not remove %s\n", path);
    if (!ok)
        fprintf(stderr, "wr_dist_bench: %s, %d peers, %s: failed\n", pm->method, pm->n, bin_dir);
    return ok ? 0 : -1;
}

typedef struct peer_row {
    double us, rtt, cpu_us, wakeups, requests, updates; /* per step (requests: per federate) */
} peer_row;

static int cmp_rows(const void *a, const void *b)
{
    const peer_row *x = a, *y = b;
    return (x->us > y->us) - (x->us < y->us);
}

/* The cost of pm->steps macro steps: a run of 200 + steps less a run of 200 (start-up and
 * the end cancel), the round trip measured just before; the median of 3 by time. */
static int peer_measure(const char *rti, const char *bin_dir, const peer_method *pm, peer_row *out)
{
    peer_row r[3];
    for (int k = 0; k < 3; k++) {
        peer_figs a, b;
        r[k].rtt = round_trip(rti, N_PINGS_RUN);
        if (r[k].rtt <= 0 || peer_run(rti, bin_dir, pm, 0.2, &a) ||
            peer_run(rti, bin_dir, pm, 0.2 + 1e-3 * (double)pm->steps, &b))
            return -1;
        double st = (double)pm->steps;
        r[k].us = 1e6 * (b.secs - a.secs) / st;
        r[k].cpu_us = 1e6 * (b.cpu - a.cpu) / st;
        r[k].wakeups = (double)(b.wakeups - a.wakeups) / st;
        r[k].requests = (double)(b.requests - a.requests) / st / pm->n;
        r[k].updates = (double)(b.writes - a.writes) / st / pm->n;
    }
    qsort(r, 3, sizeof *r, cmp_rows);
    *out = r[1];
    return 0;
}

static void peer_print(const char *who, const peer_method *pm, const peer_row *r)
{
    printf("%-6s %-17s %d peers:  %5ld steps over TCP: %7.1f us each = %5.2f round trips "
           "(%.1f us) [target <= %s]; CPU %7.1f us = %4.1f round trips', %5.1f wake-ups = %4.1f "
           "round trips' each (all processes); %.2f time requests and %.2f updates per "
           "federate and step\n",
           who, pm->method, pm->n, pm->steps, r->us, r->us / (1e6 * r->rtt), 1e6 * r->rtt,
           pm->target, r->cpu_us, r->cpu_us / (1e6 * g_cpu_rt), r->wakeups, r->wakeups / g_wake_rt,
           r->requests, r->updates);
}

static void peer_rows(const char *rti, const char *base)
{
    for (size_t k = 0; k < sizeof PEERS / sizeof PEERS[0]; k++) {
        peer_row now_r, old_r;
        if (base && peer_measure(rti, base, &PEERS[k], &old_r) == 0)
            peer_print("before", &PEERS[k], &old_r);
        if (peer_measure(rti, "bin", &PEERS[k], &now_r) == 0)
            peer_print(base ? "after" : "", &PEERS[k], &now_r);
    }
}

int main(int argc, char **argv)
{
    /* [--peers | --masters] [BASE]: only the peer rows, or only the master rows */
    int peers = 1, masters = 1;
    if (argc > 1 && !strcmp(argv[1], "--peers")) masters = 0, argc--, argv++;
    if (argc > 1 && !strcmp(argv[1], "--masters")) peers = 0, argc--, argv++;
    const char *base = argc > 1 ? argv[1] : NULL;
    static const char *const extra[] = {"--log-level", "warn", NULL};
    const char *rti = harness_start_rti(extra, 1200);
    if (!rti) return 1;
    char addr[64];
    snprintf(addr, sizeof addr, "%s", rti);
    double rtt = round_trip(addr, N_PINGS);
    if (rtt <= 0) {
        harness_stop_rti();
        return 1;
    }
    printf("receive-order round trip through tempo-rti: median %.1f us (%d round trips); CPU "
           "%.1f us and %.2f wake-ups per round trip (the three processes)\n",
           rtt * 1e6, N_PINGS, 1e6 * g_rt_cpu, g_rt_wakeups);
    g_cpu_rt = g_rt_cpu, g_wake_rt = g_rt_wakeups; /* the bounds of every row */
    for (size_t k = 0; masters && k < sizeof METHODS / sizeof METHODS[0]; k++)
        for (int pairs = 1; pairs <= 4; pairs *= 4) {
            const method *m = &METHODS[k];
            double end = strcmp(m->label, "strong me") == 0 ? 10 : 40;
            run_figs now[3], old[3];
            int ok = 1;
            for (int r = 0; r < 3 && ok; r++) {
                if (base) {
                    old[r].rtt = round_trip(addr, N_PINGS_RUN);
                    ok = old[r].rtt > 0 && ms_run(addr, base, m, pairs, end, &old[r]) == 0;
                }
                now[r].rtt = ok ? round_trip(addr, N_PINGS_RUN) : -1;
                ok = ok && now[r].rtt > 0 && ms_run(addr, "bin", m, pairs, end, &now[r]) == 0;
            }
            if (!ok) continue;
            qsort(now, 3, sizeof *now, cmp_figs);
            if (base) qsort(old, 3, sizeof *old, cmp_figs);
            if (base) row("before", m, 2 * pairs, &old[1]);
            row(base ? "after" : "", m, 2 * pairs, &now[1]);
        }
    if (peers) peer_rows(addr, base);
    harness_stop_rti();
    return 0;
}
