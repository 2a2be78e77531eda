/* The workloads of HELICS's own benchmarks, over libtempo and a real bin/tempo-rti, written so
 * that a C program against HELICS's C API can mirror them call for call (doc/performance.md,
 * "HELICS-shaped workloads", maps each call). A hub and N leaves, each its own process:
 *   timing  every leaf requests the next step K times (HELICS's timing benchmark: leaves call
 *           helicsFederateRequestNextStep, the hub requests the final time); the hub waits
 *   echo    the same, and at each step every leaf publishes a 106-byte string, the hub sends
 *           each back to its leaf, the leaf checks it one step later (HELICS's echo
 *           benchmark: indexed publications and subscriptions, hub and leaves)
 *   ping    one leaf and the hub bounce a 64-byte message in receive order K times (the
 *           message round trip of HELICS's echo-message benchmark, without time stamps)
 * Printed: microseconds per step of the whole federation (and per leaf and step), or per round
 * trip; for the steps also the CPU time of every process (leaves, hub, RTI) per step, which
 * the load of a shared machine changes less than the wall time; N = 2 and 8 (ping: N = 1). Leaves
 * are regulating (lookahead one step) and constrained; the hub constrained and regulating
 * (lookahead 0). Figures only; never fails on timing. usage: helics_bench [K] (default 5000, as
 * HELICS). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "federate/libtempo/tempo.h"
#include "tests/integration/client_harness.h"

#define MAX_LEAVES 8
#define STR_LEN    106     /* HELICS's echo string: "10000<index>" and 100 '1's */
#define STEP       1000000 /* ticks (1 ms at the FOM's 1 ns) */

static char g_fom[8192];

/* The FOM: per leaf i a class LeafSend<i> and LeafRx<i> (attribute v, bytes), as HELICS's
 * indexed publications "leafsend"/"leafrx"; the interaction Ping (b, bytes). */
static void make_fom(void)
{
    size_t n = (size_t)snprintf(g_fom, sizeof g_fom,
                                "<fom name=\"helics_shaped\"><time resolution=\"1e-9\"/><objects>");
    for (int i = 0; i < MAX_LEAVES; i++)
        n += (size_t)snprintf(g_fom + n, sizeof g_fom - n,
                              "<class name=\"LeafSend%d\"><attribute name=\"v\" type=\"bytes\"/>"
                              "</class><class name=\"LeafRx%d\"><attribute name=\"v\" "
                              "type=\"bytes\"/></class>",
                              i, i);
    snprintf(g_fom + n, sizeof g_fom - n,
             "</objects><interactions><interaction name=\"Ping\"><parameter name=\"b\" "
             "type=\"bytes\"/></interaction></interactions></fom>");
}

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static double cpu_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

typedef struct fed {
    tp_federate *f;
    int idx; /* leaf index; -1 the hub */
    int n;   /* leaves */
    tp_handle send[MAX_LEAVES], rx[MAX_LEAVES], v_send[MAX_LEAVES], v_rx[MAX_LEAVES];
    tp_handle ping, b;
    tp_object obj[MAX_LEAVES]; /* the hub: LeafRx<i>; a leaf: its LeafSend<idx> in obj[0] */
    char txt[STR_LEN];         /* a leaf's string */
    long got, bad;             /* reflections (interactions) received; echoes that differ */
    int echo;                  /* the hub: send back what it reflects */
} fed;

static void on_reflect(void *ctx, const tp_reflection *r)
{
    fed *d = ctx;
    d->got++;
    for (int i = 0; d->idx < 0 && i < d->n; i++) /* the hub: echo to leaf i (helicsPublish) */
        if (r->object_class == d->send[i] && d->echo && r->n_values) {
            tp_value v = {d->v_rx[i], r->values[0].data, r->values[0].size};
            if (tp_update(d->f, d->obj[i], &v, 1, tp_time_add(r->time, 1)) != TP_OK) d->bad++;
        }
    if (d->idx >= 0 && (r->n_values != 1 || r->values[0].size != STR_LEN ||
                        memcmp(r->values[0].data, d->txt, STR_LEN) != 0))
        d->bad++; /* the leaf: its own string back (helicsInputGetString, compared) */
}

static void on_receive(void *ctx, const tp_interaction *i)
{
    ((fed *)ctx)->got++;
}

/* Join, declare, enable time management (helicsCreateValueFederate, register..., enter
 * executing mode). */
static int join(const char *rti, fed *d, const char *who, int echo)
{
    tp_callbacks cb = {.reflect = on_reflect, .receive = on_receive};
    tp_join_options o = {.rti = rti,
                         .federation = "helics-shaped",
                         .federate = who,
                         .fom_text = g_fom,
                         .create = 1,
                         .timeout_ms = 30000};
    char err[512];
    if (tp_join(&o, &cb, d, &d->f, err, sizeof err) != TP_OK) {
        fprintf(stderr, "helics_bench: join %s: %s\n", who, err);
        return -1;
    }
    int rc = TP_OK;
    for (int i = 0; i < d->n && rc == TP_OK; i++) {
        char name[32];
        snprintf(name, sizeof name, "LeafSend%d", i);
        rc = tp_object_class(d->f, name, &d->send[i]);
        if (rc == TP_OK) rc = tp_attribute(d->f, d->send[i], "v", &d->v_send[i]);
        snprintf(name, sizeof name, "LeafRx%d", i);
        if (rc == TP_OK) rc = tp_object_class(d->f, name, &d->rx[i]);
        if (rc == TP_OK) rc = tp_attribute(d->f, d->rx[i], "v", &d->v_rx[i]);
    }
    if (rc == TP_OK) rc = tp_interaction_class(d->f, "Ping", &d->ping);
    if (rc == TP_OK) rc = tp_parameter(d->f, d->ping, "b", &d->b);
    if (rc == TP_OK) rc = tp_publish_interaction_class(d->f, d->ping);
    if (rc == TP_OK) rc = tp_subscribe_interaction_class(d->f, d->ping);
    if (d->idx < 0 && echo) /* the hub: subscribes every leafsend, publishes every leafrx */
        for (int i = 0; i < d->n && rc == TP_OK; i++) {
            char name[32];
            snprintf(name, sizeof name, "rx%d", i);
            rc = tp_subscribe_object_class(d->f, d->send[i], &d->v_send[i], 1);
            if (rc == TP_OK) rc = tp_publish_object_class(d->f, d->rx[i], &d->v_rx[i], 1);
            if (rc == TP_OK) rc = tp_register_object(d->f, d->rx[i], name, &d->obj[i]);
        }
    if (d->idx >= 0 && echo) { /* a leaf: publishes its leafsend, subscribes its leafrx */
        int i = d->idx;
        rc = tp_publish_object_class(d->f, d->send[i], &d->v_send[i], 1);
        if (rc == TP_OK) rc = tp_subscribe_object_class(d->f, d->rx[i], &d->v_rx[i], 1);
        if (rc == TP_OK) rc = tp_register_object(d->f, d->send[i], who, &d->obj[0]);
    }
    if (rc == TP_OK) rc = tp_enable_regulation(d->f, d->idx < 0 ? 0 : STEP);
    if (rc == TP_OK) rc = tp_wait_regulation_enabled(d->f, 30000);
    if (rc == TP_OK) rc = tp_enable_constrained(d->f);
    if (rc == TP_OK) rc = tp_wait_constrained_enabled(d->f, 30000);
    if (rc != TP_OK) fprintf(stderr, "helics_bench: %s: %s\n", who, tp_last_error(d->f));
    return rc == TP_OK ? 0 : -1;
}

/* A leaf: K steps (helicsFederateRequestNextStep), publishing its string at each
 * (helicsPublicationPublishString), stamped with the next step (its lookahead). */
static int leaf(const char *rti, int idx, int n, long k, int echo)
{
    fed d = {.idx = idx, .n = n};
    snprintf(d.txt, sizeof d.txt, "%d", 100000 + idx);
    memset(d.txt + strlen(d.txt), '1', sizeof d.txt - strlen(d.txt));
    char who[32];
    snprintf(who, sizeof who, "leaf%d", idx);
    if (join(rti, &d, who, echo) || tp_sync(d.f, "go", 30000) != TP_OK) return 1;
    tp_value v = {d.v_send[idx], d.txt, sizeof d.txt};
    int rc = TP_OK;
    for (long s = 1; s <= k && rc == TP_OK; s++) {
        if (echo) rc = tp_update(d.f, d.obj[0], &v, 1, (tp_time)s * STEP);
        if (rc == TP_OK) rc = tp_time_advance_request(d.f, (tp_time)s * STEP);
        if (rc == TP_OK) rc = tp_wait_grant(d.f, NULL, 30000);
    }
    if (rc != TP_OK) fprintf(stderr, "helics_bench: %s: %s\n", who, tp_last_error(d.f));
    if (echo && d.got < k - 1) fprintf(stderr, "helics_bench: %s: %ld echoes\n", who, d.got);
    tp_resign(d.f, TP_DELETE_OBJECTS);
    tp_federate_free(d.f);
    return rc == TP_OK && !d.bad && (!echo || d.got >= k - 1) ? 0 : 1;
}

/* The hub: after every leaf has joined, the start; then the final time (helicsFederate-
 * RequestTime(final)), echoing what it reflects. Prints the figures. */
static int hub(const char *rti, int n, long k, int echo, double *us, double *cpu_us)
{
    fed d = {.idx = -1, .n = n, .echo = echo};
    if (join(rti, &d, "hub", echo)) return -1;
    size_t joined = 0;
    while (tp_query_time_status(d.f, NULL, 0, &joined) == TP_OK && joined < (size_t)n + 1)
        usleep(1000);
    int rc = tp_register_sync(d.f, "go", NULL, 0, NULL, 0);
    if (rc == TP_OK) rc = tp_sync(d.f, "go", 30000);
    double t0 = now_s(), c0 = cpu_s();
    tp_time end = (tp_time)(k + 1) * STEP, t = 0;
    while (rc == TP_OK && t < end) {
        rc = tp_next_event_request(d.f, end);
        if (rc == TP_OK) rc = tp_wait_grant(d.f, &t, 30000);
    }
    *us = (now_s() - t0) / (double)k * 1e6;
    *cpu_us = (cpu_s() - c0) / (double)k * 1e6;
    if (rc != TP_OK) fprintf(stderr, "helics_bench: hub: %s\n", tp_last_error(d.f));
    tp_resign(d.f, TP_DELETE_OBJECTS);
    tp_federate_free(d.f);
    return rc == TP_OK && !d.bad ? 0 : -1;
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

static double children_cpu(void)
{
    struct rusage ru;
    getrusage(RUSAGE_CHILDREN, &ru);
    return (double)ru.ru_utime.tv_sec + 1e-6 * (double)ru.ru_utime.tv_usec +
           (double)ru.ru_stime.tv_sec + 1e-6 * (double)ru.ru_stime.tv_usec;
}

/* One run of timing (echo 0) or echo (1) with n leaves; 0 or -1. *all_us: the CPU time of
 * every process (the leaves' from their start, the hub's and the RTI's from the start sync)
 * per step. */
static int run(const char *rti, int n, long k, int echo, double *us, double *cpu_us, double *all_us)
{
    pid_t kids[MAX_LEAVES];
    double c0 = children_cpu(), r0 = proc_cpu(harness_rti_.pid);
    fflush(stdout);
    for (int i = 0; i < n; i++)
        if ((kids[i] = fork()) == 0) _exit(leaf(rti, i, n, k, echo));
    int rc = hub(rti, n, k, echo, us, cpu_us), ok = rc == 0;
    for (int i = 0; i < n; i++) {
        int st;
        waitpid(kids[i], &st, 0);
        ok &= WIFEXITED(st) && WEXITSTATUS(st) == 0;
    }
    *all_us = *cpu_us + (children_cpu() - c0 + proc_cpu(harness_rti_.pid) - r0) / (double)k * 1e6;
    return ok ? 0 : -1;
}

/* The message round trip: the hub sends, leaf 0 answers (helicsEndpointSendBytes,
 * helicsEndpointGetMessage), K times; the median, microseconds. */
static double ping(const char *rti, long k)
{
    fflush(stdout);
    pid_t kid = fork();
    if (kid == 0) {
        fed d = {.idx = 0, .n = 1};
        if (join(rti, &d, "leaf0", 0) || tp_sync(d.f, "go", 30000) != TP_OK) _exit(1);
        char b[64] = {0};
        tp_value v = {d.b, b, sizeof b};
        for (long sent = 0; sent < k;) {
            if (tp_evoke(d.f, 10000) < 0) _exit(1);
            for (; sent < d.got; sent++)
                tp_send_interaction(d.f, d.ping, &v, 1, TP_NO_TIME);
            tp_flush(d.f);
        }
        tp_resign(d.f, TP_DELETE_OBJECTS);
        tp_federate_free(d.f);
        _exit(0);
    }
    fed d = {.idx = -1, .n = 1};
    double med = -1, *rt = malloc((size_t)k * sizeof *rt);
    size_t joined = 0;
    if (!rt || join(rti, &d, "hub", 0)) goto out;
    while (tp_query_time_status(d.f, NULL, 0, &joined) == TP_OK && joined < 2)
        usleep(1000);
    if (tp_register_sync(d.f, "go", NULL, 0, NULL, 0) != TP_OK || tp_sync(d.f, "go", 30000))
        goto out;
    char b[64] = {0};
    tp_value v = {d.b, b, sizeof b};
    for (long i = 0; i < k; i++) {
        long before = d.got;
        double t0 = now_s();
        if (tp_send_interaction(d.f, d.ping, &v, 1, TP_NO_TIME) != TP_OK) goto out;
        while (d.got == before)
            if (tp_evoke(d.f, 10000) < 0) goto out;
        rt[i] = now_s() - t0;
    }
    for (long i = 1; i < k; i++) /* insertion sort is enough for the median's sake */
        for (long j = i; j > 0 && rt[j - 1] > rt[j]; j--) {
            double x = rt[j];
            rt[j] = rt[j - 1], rt[j - 1] = x;
        }
    med = rt[k / 2] * 1e6;
out:
    if (d.f) tp_resign(d.f, TP_DELETE_OBJECTS);
    tp_federate_free(d.f);
    free(rt);
    if (med < 0) kill(kid, SIGKILL);
    waitpid(kid, NULL, 0);
    return med;
}

int main(int argc, char **argv)
{
    long k = argc > 1 ? atol(argv[1]) : 5000;
    if (k < 10) k = 10;
    make_fom();
    static const char *const extra[] = {"--log-level", "warn", NULL};
    const char *rti = harness_start_rti(extra, 600);
    if (!rti) return 1;
    char addr[64];
    snprintf(addr, sizeof addr, "%s", rti);
    static const char *const names[2] = {"timing", "echo"};
    for (int w = 0; w < 2; w++)
        for (int n = 2; n <= MAX_LEAVES; n *= 4) {
            double us = 0, cpu = 0, all = 0;
            if (run(addr, n, k, w, &us, &cpu, &all)) {
                printf("helics_bench: %s, %d leaves: a run failed\n", names[w], n);
                continue;
            }
            printf("helics_bench: %-6s hub + %d leaves, %ld steps over TCP: %.1f us per step "
                   "(%.1f per leaf and step); CPU of every process %.1f us per step (the hub "
                   "%.1f)\n",
                   names[w], n, k, us, us / n, all, cpu);
        }
    double rt = ping(addr, k);
    if (rt > 0)
        printf("helics_bench: ping   hub + 1 leaf, %ld receive-order round trips of 64 bytes: "
               "median %.1f us\n",
               k, rt);
    else
        printf("helics_bench: ping: a run failed\n");
    harness_stop_rti();
    return 0;
}
