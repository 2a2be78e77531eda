/* Benchmark of the master algorithms distributed (tempo-master driving tempo-fmu slaves through
 * a real tempo-rti, doc/master.md): waveform relaxation (co-simulation and model exchange),
 * semi-implicit and strong coupling over 2 and 8 slaves (1 and 4 Lotka-Volterra pairs). Per row:
 * the algorithm's iterations per second (WR iterations, semi-implicit updates, strong RHS
 * rounds) and one iteration's time as a multiple of the receive-order round trip (a ping-pong of
 * one interaction through the same RTI, measured just before each run, as the machine's load
 * changes: a row's ratio is its median run's time over that run's round trip). One iteration
 * needs at least
 * one round trip (commands out, replies back), so the ratio is >= 1 and says what the rest
 * costs. Beside it, figures that do not depend on the machine's load: the master's rounds (one
 * per sync; doc/master.md "Batches") and messages per iteration, and the CPU time of every
 * process (RTI, master, slaves) per iteration and their wake-ups (voluntary context switches:
 * each time a process blocked and was woken, the cost a loaded machine multiplies). The time
 * is the algorithm's alone (the counts are the whole run's, start and end included), as
 * tempo-master reports it (joining, the start and the end do not count); the median of 3 runs.
 * With an argument BASE (a folder holding an older tempo-master and tempo-fmu) every row runs
 * those too, alternating, and prints both (before/after in one run). Prints figures only;
 * never fails on timing. doc/performance.md; doc/algorithms/waveform-relaxation.md ("Cost").
 * Needs bin/ and build/fmus/. */
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
           "(%.1f us); CPU %7.1f us and %5.1f wake-ups each (all processes)",
           who, m->label, n, f->iters, m->what, f->secs, 1e6 * f->secs / it, f->secs / it / rtt,
           1e6 * rtt, 1e6 * f->cpu / it, (double)f->wakeups / it);
    if (f->rounds >= 0)
        printf("; %.2f rounds and %.2f messages out each", (double)f->rounds / it,
               (double)f->m_out / it);
    printf("\n");
}

int main(int argc, char **argv)
{
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
    printf("receive-order round trip through tempo-rti: median %.1f us (%d round trips)\n",
           rtt * 1e6, N_PINGS);
    for (size_t k = 0; k < sizeof METHODS / sizeof METHODS[0]; k++)
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
    harness_stop_rti();
    return 0;
}
