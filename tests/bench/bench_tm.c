/* Time-management benchmarks B1–B3 (doc/rti.md): N = 2, 4, 8 federate
 * processes, each regulating and constrained (lookahead 1), against a real bin/tempo-rti on
 * loopback, with the raw TCP round-trip rate of this machine measured in the same run, and the
 * engine alone (rti/tm/tm.c, no network) for N up to 256 to show O(N) work per request.
 *   B1  TAR(t+1), wait for the grant                       steps per second
 *   B2  update 8 float64 stamped t+1, TAR(t+1); every federate reflects N-1 updates per step
 *   B3  the same with NER(t+1)
 * Figures only: it never fails on timing (it does fail if a run goes wrong).
 * Usage: bench_tm [steps [log|inproc]] (default 20000; "log": only B2 with and without the
 * federation log; "inproc": only B1 and B2 in process, federates as tasks on one thread and
 * as threads with spinning and blocking waits, beside TCP). Read doc/time.md for the rules being
 * timed. */
#define _GNU_SOURCE /* sched_setaffinity: the raw round trip on one CPU and on two */
#include <dirent.h>
#include <inttypes.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <sched.h>
#include <sys/socket.h>
#include <sys/stat.h>

#include <pthread.h>

#include "rti/tm/tm.h"
#include "rti/tm/tm_test.h"
#include "tests/integration/client_harness.h"

#define MAXN 8

/* ---- raw TCP round trips on loopback -------------------------------------------------------- */

static int full_io(int fd, void *buf, size_t n, int rd)
{
    size_t done = 0;
    while (done < n) {
        ssize_t k = rd ? read(fd, (char *)buf + done, n - done)
                       : write(fd, (const char *)buf + done, n - done);
        if (k <= 0) return -1;
        done += (size_t)k;
    }
    return 0;
}

/* Keep the calling process on @p cpu (-1: leave it free). Failure (one CPU) leaves it free. */
static void pin_cpu(int cpu)
{
    if (cpu < 0) return;
    cpu_set_t set;
    CPU_ZERO(&set);
    CPU_SET(cpu, &set);
    sched_setaffinity(0, sizeof set, &set);
}

/* An echo child and a ping-pong of 64-byte messages with TCP_NODELAY, like one request and
 * its grant; the pinger on CPU @p cpu_a, the echo on CPU @p cpu_b (-1: where the scheduler likes).
 * On this VM a wake-up across CPUs costs about 20 us more than one on the same CPU, so an
 * unpinned pair measures 19 000 or 70 000 round trips/s depending on where it lands; about
 * 18 000 round trips/s is the two-CPU figure. @return round trips per
 * second, 0 on failure. */
static double raw_rtt_rate_on(int n, int cpu_a, int cpu_b)
{
    int ls = socket(AF_INET, SOCK_STREAM, 0);
    struct sockaddr_in addr = {.sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK)};
    socklen_t al = sizeof addr;
    if (ls < 0 || bind(ls, (struct sockaddr *)&addr, sizeof addr) != 0 || listen(ls, 1) != 0 ||
        getsockname(ls, (struct sockaddr *)&addr, &al) != 0)
        return 0;
    pid_t pid = fork();
    if (pid == 0) {
        pin_cpu(cpu_b);
        int c = accept(ls, NULL, NULL), one = 1;
        setsockopt(c, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
        char b[64];
        while (full_io(c, b, sizeof b, 1) == 0 && full_io(c, b, sizeof b, 0) == 0)
            ;
        _exit(0);
    }
    close(ls);
    cpu_set_t saved;
    int restore = cpu_a >= 0 && sched_getaffinity(0, sizeof saved, &saved) == 0;
    pin_cpu(cpu_a);
    int s = socket(AF_INET, SOCK_STREAM, 0), one = 1;
    if (connect(s, (struct sockaddr *)&addr, sizeof addr) != 0) return 0;
    setsockopt(s, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
    char b[64] = {0};
    int64_t t0 = harness_ms();
    int ok = 1;
    for (int i = 0; i < n && ok; i++)
        ok = full_io(s, b, sizeof b, 0) == 0 && full_io(s, b, sizeof b, 1) == 0;
    int64_t t1 = harness_ms();
    close(s);
    waitpid(pid, NULL, 0);
    if (restore) sched_setaffinity(0, sizeof saved, &saved);
    return ok && t1 > t0 ? n * 1000.0 / (double)(t1 - t0) : 0;
}

static double raw_rtt_rate(int n)
{
    return raw_rtt_rate_on(n, -1, -1);
}

/* ---- B1–B3: federate processes ----------------------------------------------------------------
 */

struct bfed {
    int reflects;   /* reflections received */
    int discovered; /* objects of the others discovered */
};

static void b_reflect(void *ctx, const tp_reflection *r)
{
    ((struct bfed *)ctx)->reflects++;
}
static void b_discover(void *ctx, tp_object o, tp_handle cls, const char *name, tp_fed owner)
{
    ((struct bfed *)ctx)->discovered++;
}
static const tp_callbacks BCB = {.reflect = b_reflect, .discover = b_discover};

/* One federate of benchmark @p b (1..3). Writes its elapsed ms (after the common start) and
 * its reflection count to @p fd. @return 0 on success. */
static int bench_child(const char *addr, const char *federation, int b, int me, int n, int steps,
                       int fd)
{
    struct bfed c = {0}; /* per federate: in process they are threads of one process */
    char name[16];
    snprintf(name, sizeof name, "F%d", me);
    tp_federate *f = harness_join(addr, federation, name, "fom/test.xml", &BCB, &c);
    if (!f) return 1;
    tp_handle sample, raw;
    int bad = tp_object_class(f, "Sample", &sample) || tp_attribute(f, sample, "raw", &raw) ||
              tp_enable_regulation(f, 1) || tp_wait_regulation_enabled(f, 10000) ||
              tp_enable_constrained(f) || tp_wait_constrained_enabled(f, 10000) ||
              tp_publish_object_class(f, sample, &raw, 1) ||
              tp_subscribe_object_class(f, sample, &raw, 1);
    tp_object obj = 0;
    bad = bad || tp_register_object(f, sample, name, &obj);
    if (me == 0 && !bad) {
        size_t k = 0;
        /* a task lets the others join meanwhile (tp_inproc_yield); a thread sleeps */
        for (int64_t end = harness_ms() + 10000; harness_ms() < end && (int)k < n;
             (void)(tp_inproc_yield() || usleep(2000)))
            if (tp_query_time_status(f, NULL, 0, &k) != TP_OK) break;
        bad = tp_register_sync(f, "go", NULL, 0, NULL, 0) != TP_OK;
    }
    size_t k = 0;
    bad = bad || tp_query_time_status(f, NULL, 0, &k) || tp_sync(f, "go", 10000);
    if (bad) {
        fprintf(stderr, "bench %s/%s: setup failed: %s\n", federation, name, tp_last_error(f));
        return 1;
    }
    /* Every other federate's object is known before the clock starts. */
    for (int64_t end = harness_ms() + 10000; c.discovered < n - 1 && harness_ms() < end;)
        tp_evoke(f, 10);
    double v[8] = {1, 2, 3, 4, 5, 6, 7, 8};
    uint8_t bytes[64];
    for (int i = 0; i < 8; i++)
        tp_encode_float64(v[i], bytes + 8 * i);
    tp_value val = {raw, bytes, sizeof bytes};
    int64_t t0 = harness_ms();
    for (int s = 0; s < steps && !bad; s++) {
        tp_time t = s + 1, g = -1;
        if (b >= 2) bad = tp_update(f, obj, &val, 1, t) != TP_OK; /* T + L = s + 1 */
        int rc = b == 3 ? tp_next_event_request(f, t) : tp_time_advance_request(f, t);
        bad = bad || rc != TP_OK || tp_wait_grant(f, &g, 20000) != TP_OK || g != t;
    }
    int64_t t1 = harness_ms();
    if (bad) fprintf(stderr, "bench %s/%s failed: %s\n", federation, name, tp_last_error(f));
    /* Updates stamped with the last step reach the others with its grant. */
    int res[3] = {(int)(t1 - t0), c.reflects, bad};
    tp_resign(f, TP_DELETE_OBJECTS);
    tp_federate_free(f);
    return write(fd, res, sizeof res) == (ssize_t)sizeof res && !bad ? 0 : 1;
}

/* One federate as a thread (an "inproc:" address: every federate in this process). */
struct bthread {
    const char *addr, *federation;
    int b, me, n, steps, fd, rc;
    pthread_t th;
};

static void *bench_thread(void *arg)
{
    struct bthread *t = arg;
    t->rc = bench_child(t->addr, t->federation, t->b, t->me, t->n, t->steps, t->fd);
    return NULL;
}

static void bench_task(void *arg)
{
    bench_thread(arg);
}

#define TASK_RTI "bench-task" /* the embedded RTI whose federates are tasks */

/* Run benchmark @p b with @p n federates: processes, or threads of this process when @p addr
 * is "inproc:NAME". @return steps per second (0 on failure). */
static double run_bench(const char *addr, int b, int n, int steps)
{
    static int serial;
    char federation[32];
    snprintf(federation, sizeof federation, "bench-%d-%d-%d", b, n, serial++);
    int fds[2];
    if (pipe(fds) != 0) return 0;
    pid_t pids[MAXN];
    fflush(stdout);
    int threads = !strncmp(addr, "inproc:", 7), thread_fail = 0;
    int tasks = !strcmp(addr, "inproc:" TASK_RTI);
    static struct bthread bt[MAXN];
    char err[256];
    for (int i = 0; i < n; i++) {
        if (tasks) {
            bt[i] = (struct bthread){addr, federation, b, i, n, steps, fds[1], 0, 0};
            pids[i] = 0;
            thread_fail |= tp_inproc_spawn(TASK_RTI, bench_task, &bt[i], err, sizeof err) != 0;
            continue;
        }
        if (threads) {
            bt[i] = (struct bthread){addr, federation, b, i, n, steps, fds[1], 0, 0};
            pids[i] = 0;
            thread_fail |= pthread_create(&bt[i].th, NULL, bench_thread, &bt[i]) != 0;
            continue;
        }
        pids[i] = fork();
        if (pids[i] == 0) {
            close(fds[0]);
            _exit(bench_child(addr, federation, b, i, n, steps, fds[1]));
        }
    }
    if (tasks) thread_fail |= tp_inproc_run(TASK_RTI, err, sizeof err) != TP_OK;
    for (int i = 0; threads && i < n; i++) {
        if (!tasks) pthread_join(bt[i].th, NULL);
        thread_fail |= bt[i].rc;
    }
    close(fds[1]);
    int res[3], got = 0, worst = 0, ok = 1;
    while (read(fds[0], res, sizeof res) == (ssize_t)sizeof res) {
        got++;
        if (res[0] > worst) worst = res[0];
        if (res[2]) ok = 0;
        /* B2/B3: every federate reflects N-1 updates per step. */
        if (b >= 2 && res[1] != (n - 1) * steps) {
            fprintf(stderr, "B%d N=%d: a federate reflected %d updates, want %d\n", b, n, res[1],
                    (n - 1) * steps);
            ok = 0;
        }
    }
    close(fds[0]);
    for (int i = 0; !threads && i < n; i++) {
        int st = 0;
        waitpid(pids[i], &st, 0);
        if (!WIFEXITED(st) || WEXITSTATUS(st) != 0) ok = 0;
    }
    if (thread_fail) ok = 0;
    CHECK(ok && got == n, "B%d with N=%d failed (%d reports)", b, n, got);
    return ok && got == n && worst > 0 ? steps * 1000.0 / worst : 0;
}

/* ---- the federation log's cost (doc/log.md)
 * ------------------------------------------------------ */

/* Start a second bin/tempo-rti with the options @p opt1 and @p opt2 (an option and its
 * value). @return its pid (the address in @p addr), or -1. It dies with this process
 * (PR_SET_PDEATHSIG). */
static pid_t start_rti_with(const char *opt1, const char *opt2, char *addr, size_t cap)
{
    int fds[2];
    if (pipe(fds) < 0) return -1;
    pid_t pid = fork();
    if (pid == 0) {
        prctl(PR_SET_PDEATHSIG, SIGKILL);
        dup2(fds[1], 1);
        close(fds[0]);
        close(fds[1]);
        execl("bin/tempo-rti", "bin/tempo-rti", "--listen", "127.0.0.1:0", "--log-level", "error",
              opt1, opt2, (char *)NULL);
        _exit(127);
    }
    close(fds[1]);
    FILE *in = fdopen(fds[0], "r");
    char line[256];
    addr[0] = '\0';
    while (in && fgets(line, sizeof line, in)) {
        char *p = strstr(line, "listening on ");
        if (p) {
            p += strlen("listening on ");
            p[strcspn(p, " \r\n")] = '\0';
            snprintf(addr, cap, "%s", p);
            break;
        }
    }
    if (in) fclose(in);
    if (!addr[0]) {
        kill(pid, SIGKILL);
        waitpid(pid, NULL, 0);
        return -1;
    }
    return pid;
}

/* Remove the log files in @p dir. @return the bytes they held. */
static long long clear_logs(const char *dir)
{
    long long bytes = 0;
    DIR *d = opendir(dir);
    struct dirent *e;
    while (d && (e = readdir(d))) {
        char path[600];
        struct stat sb;
        if (e->d_name[0] == '.') continue;
        snprintf(path, sizeof path, "%s/%s", dir, e->d_name);
        if (stat(path, &sb) == 0) bytes += (long long)sb.st_size;
        unlink(path);
    }
    if (d) closedir(d);
    return bytes;
}

/* On-CPU time so far of the main thread of process @p pid, in ns (/proc/PID/schedstat: the
 * scheduler's own account, exact, unlike the 10 ms ticks of /proc/PID/stat), or -1. For the
 * RTI that is the event loop; the federation log's writer thread is not counted. */
static double cpu_ns(pid_t pid)
{
    char path[64];
    snprintf(path, sizeof path, "/proc/%d/schedstat", (int)pid);
    FILE *f = fopen(path, "r");
    unsigned long long ns = 0;
    int ok = f && fscanf(f, "%llu", &ns) == 1;
    if (f) fclose(f);
    return ok ? (double)ns : -1;
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

static double median(double *v, int n)
{
    qsort(v, (size_t)n, sizeof *v, cmp_double);
    return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

#define LOG_PAIRS 5 /* runs with and without the log, alternated, per N */

/* B2 against an RTI without and one with the federation log (--log), two RTIs started alike,
 * in alternating pairs (which goes first swaps each pair: the machine's speed drifts). Two
 * figures: the median steps/s, and the RTIs' event-loop CPU time per step, which is what logging
 * adds to and varies far less than wall-clock rates on this VM. */
static void log_cost(int steps)
{
    char dir[] = "/tmp/tempo-bench-log-XXXXXX", plain[128], logged[128];
    if (!mkdtemp(dir)) {
        CHECK(0, "mkdtemp: %s", strerror(errno));
        return;
    }
    pid_t p0 = start_rti_with("--log-level", "error", plain, sizeof plain);
    pid_t p1 = start_rti_with("--log", dir, logged, sizeof logged);
    CHECK(p0 > 0 && p1 > 0, "bin/tempo-rti (plain, or with --log %s) did not start", dir);
    int run_steps = steps / 2;
    for (int n = 2; p0 > 0 && p1 > 0 && n <= MAXN; n *= 4) {
        double without[LOG_PAIRS], with[LOG_PAIRS], ratio[LOG_PAIRS], cpu0 = 0, cpu1 = 0;
        long long bytes = 0;
        for (int rep = 0; rep < LOG_PAIRS; rep++) {
            for (int k = 0; k < 2; k++) {
                int logging = (k + rep) % 2; /* which goes first swaps each pair */
                pid_t pid = logging ? p1 : p0;
                double c = cpu_ns(pid);
                double r = run_bench(logging ? logged : plain, 2, n, run_steps);
                double used = cpu_ns(pid) - c;
                if (logging) {
                    with[rep] = r;
                    cpu1 += used;
                } else {
                    without[rep] = r;
                    cpu0 += used;
                }
            }
            ratio[rep] = without[rep] > 0 ? with[rep] / without[rep] : 0;
            bytes += clear_logs(dir);
        }
        double total = (double)LOG_PAIRS * run_steps;
        double us0 = cpu0 / total / 1000, us1 = cpu1 / total / 1000;
        double mr = median(ratio, LOG_PAIRS);
        printf("B2 N = %d with the federation log (--log): %8.0f steps/s, without %8.0f "
               "(medians of %d alternated pairs of %d steps; median pair ratio %+.1f %%); "
               "RTI event-loop CPU per step %.1f us with, %.1f us without (%+.1f %%); %.0f log "
               "bytes per step\n",
               n, median(with, LOG_PAIRS), median(without, LOG_PAIRS), LOG_PAIRS, run_steps,
               100.0 * (mr - 1), us1, us0, us0 > 0 ? 100.0 * (us1 - us0) / us0 : 0,
               (double)bytes / total);
        fflush(stdout);
    }
    for (int i = 0; i < 2; i++) {
        pid_t pid = i ? p1 : p0;
        if (pid <= 0) continue;
        kill(pid, SIGTERM);
        waitpid(pid, NULL, 0);
    }
    clear_logs(dir);
    rmdir(dir);
}

/* The RTI's --spin-us (poll that long after traffic before sleeping): B1 and B2 against the
 * default RTI and against one started with --spin-us 20, in alternation. On this VM an idle
 * CPU halts and waking a process there costs about 20 us (doc/rti.md, Performance notes). */
static void spin_effect(const char *plain, int steps)
{
    char addr[128];
    pid_t pid = start_rti_with("--spin-us", "20", addr, sizeof addr);
    CHECK(pid > 0, "bin/tempo-rti --spin-us 20 did not start");
    for (int b = 1; pid > 0 && b <= 2; b++) {
        for (int n = 2; n <= MAXN; n *= 4) {
            double off = 0, on = 0;
            for (int rep = 0; rep < 2; rep++) {
                off += run_bench(plain, b, n, steps) / 2;
                on += run_bench(addr, b, n, steps) / 2;
            }
            double raw2 = raw_rtt_rate_on(steps / 4, 0, 1), raw1 = raw_rtt_rate_on(steps / 4, 0, 0);
            printf("B%d N = %d with --spin-us 20: %8.0f steps/s (%.2f x raw, %.2f x one-CPU raw), "
                   "default %8.0f (%.2f, %.2f)\n",
                   b, n, on, raw2 > 0 ? on / raw2 : 0, raw1 > 0 ? on / raw1 : 0, off,
                   raw2 > 0 ? off / raw2 : 0, raw1 > 0 ? off / raw1 : 0);
            fflush(stdout);
        }
    }
    if (pid > 0) {
        kill(pid, SIGTERM);
        waitpid(pid, NULL, 0);
    }
}

/* The live view's cost when nobody looks (doc/live.md): B1 and B2 against the default RTI and
 * against one started with --http (its sampler runs once a second; no client), in alternation,
 * 3 runs each. */
static void http_effect(const char *plain, int steps)
{
    char addr[128];
    pid_t pid = start_rti_with("--http", "127.0.0.1:0", addr, sizeof addr);
    CHECK(pid > 0, "bin/tempo-rti --http did not start");
    for (int b = 1; pid > 0 && b <= 2; b++) {
        for (int n = 2; n <= MAXN; n *= 4) {
            double off = 0, on = 0;
            for (int rep = 0; rep < 3; rep++) {
                off += run_bench(plain, b, n, steps) / 3;
                on += run_bench(addr, b, n, steps) / 3;
            }
            printf("B%d N = %d with --http, nobody looking: %8.0f steps/s, default %8.0f "
                   "(%+.1f %%)\n",
                   b, n, on, off, off > 0 ? (on - off) / off * 100 : 0);
            fflush(stdout);
        }
    }
    if (pid > 0) {
        kill(pid, SIGTERM);
        waitpid(pid, NULL, 0);
    }
}

/* ---- the engine alone --------------------------------------------------------------------- */

/* N federates (L = 1) each TAR(t+1) per step: ns per request, including the grants. */
static double engine_ns_per_request(int n, int steps)
{
    tm_state *st;
    if (tm_new(&st, NULL, NULL, NULL, 0) != TM_OK) return 0;
    for (int i = 1; i <= n; i++) {
        tm_join(st, (tm_fed)i, NULL, NULL, 0);
        tm_enable_regulation(st, (tm_fed)i, 1, NULL, 0);
        tm_enable_constrained(st, (tm_fed)i, NULL, 0);
    }
    struct timespec a, b;
    clock_gettime(CLOCK_MONOTONIC, &a);
    int bad = 0;
    for (int s = 0; s < steps; s++)
        for (int i = 1; i <= n; i++)
            bad |= tm_request(st, (tm_fed)i, TM_REQ_TAR, s + 1, NULL, 0);
    clock_gettime(CLOCK_MONOTONIC, &b);
    tm_status q;
    tm_query(st, 1, &q, NULL, 0);
    CHECK(!bad && q.time == steps, "engine run with N=%d ended at %lld", n, (long long)q.time);
    tm_free(st);
    double ns = (double)(b.tv_sec - a.tv_sec) * 1e9 + (double)(b.tv_nsec - a.tv_nsec);
    return ns / ((double)steps * n);
}

/* A sink that folds every decision (and, with @p texts, its reason) into a hash, so that two
 * runs can be compared decision by decision. */
struct fold {
    uint64_t h;   /* FNV-1a over the decisions */
    long n;       /* decisions seen */
    long n_empty; /* decisions with an empty reason */
};

static void fold_bytes(struct fold *fo, const void *p, size_t n)
{
    for (size_t i = 0; i < n; i++)
        fo->h = (fo->h ^ ((const uint8_t *)p)[i]) * 1099511628211u;
}

static void fold_sink(void *ctx, const tm_decision *d)
{
    struct fold *fo = ctx;
    int64_t f[7] = {d->kind, d->fed, d->time, d->req, d->tso, d->sender, (int64_t)d->seq};
    fold_bytes(fo, f, sizeof f);
    fo->n++;
    if (!d->reason[0]) fo->n_empty++;
}

/* N = 4, L = 0 and 1, a mix of TAR, TARA, NER and TSO sends, driven identically with reasons on
 * and off: the decisions must be the same, and off every reason must be "". @return ns per
 * event with reasons @p on. */
static double engine_mix(int on, struct fold *fo, int steps)
{
    tm_state *st;
    if (tm_new(&st, fold_sink, fo, NULL, 0) != TM_OK) return 0;
    tm_set_reasons(st, on);
    for (tm_fed i = 1; i <= 4; i++) {
        tm_join(st, i, NULL, NULL, 0);
        tm_enable_regulation(st, i, i % 2, NULL, 0);
        tm_enable_constrained(st, i, NULL, 0);
    }
    static const tm_req kinds[] = {TM_REQ_TAR, TM_REQ_TARA, TM_REQ_NER, TM_REQ_NERA};
    struct timespec a, b;
    clock_gettime(CLOCK_MONOTONIC, &a);
    long events = 0;
    for (int s = 0; s < steps; s++) {
        for (tm_fed i = 1; i <= 4; i++) {
            tm_status q;
            tm_query(st, i, &q, NULL, 0);
            if (q.req != TM_REQ_NONE) continue;
            tm_fed to[3], k = 0;
            for (tm_fed j = 1; j <= 4; j++)
                if (j != i) to[k++] = j;
            tm_send(st, i, tm_time_add(q.time, 1 + (s + i) % 2), to, k, (uint64_t)s, NULL, 0);
            tm_request(st, i, kinds[(s + i) % 4], q.time + 1 + s % 3, NULL, 0);
            events += 2;
        }
    }
    clock_gettime(CLOCK_MONOTONIC, &b);
    for (tm_fed i = 1; i <= 4; i++)
        tm_resign(st, i, NULL, 0);
    tm_free(st);
    double ns = (double)(b.tv_sec - a.tv_sec) * 1e9 + (double)(b.tv_nsec - a.tv_nsec);
    return events ? ns / (double)events : 0;
}

/* The hand-built reason texts of rti/tm/tm_reason.c (tm_text_*) against printf. */
static void check_reason_builder(void)
{
    static const tm_time v[] = {
        0, 1, -1, 9, 10, 12345, -987654321, INT64_MIN, INT64_MAX - 1, TM_TIME_MAX};
    int bad = 0;
    for (size_t i = 0; i < sizeof v / sizeof v[0]; i++) {
        for (int strict = 0; strict <= 1; strict++) {
            char want[80], got[80];
            tm_bound b = bound_make(v[i], strict);
            if (v[i] == TM_TIME_MAX)
                snprintf(want, sizeof want, "inf inf");
            else
                snprintf(want, sizeof want, "%" PRId64 " (%" PRId64 ", %s)", v[i], v[i],
                         b.strict ? "strict" : "non-strict");
            struct tm_text w = {got, 0, sizeof got};
            tm_text_time(&w, v[i]);
            tm_text_str(&w, " ");
            tm_text_bound(&w, b);
            bad += strcmp(want, got) != 0;
        }
    }
    char small[6];
    struct tm_text w = {small, 0, sizeof small};
    tm_text_time(&w, -1234567);
    CHECK(!bad && strcmp(small, "-1234") == 0, "reason builder differs from printf (%d) or '%s'",
          bad, small);
}

/* ---- in process (doc/inproc.md) ------------------------------------------------------------
 * The same benchmarks with every federate a thread of this process on an RTI embedded in it
 * ("inproc:"), waiting by spinning first (the default 50 us) and by blocking at once, each
 * beside the TCP figure of the same N measured just before and the raw TCP round trip
 * measured just after. */
static void inproc_figures(const char *tcp_addr, int steps)
{
    char err[256];
    tp_inproc_options spin = {0}, block = {.spin_us = -1}, task = {.tasks = 1};
    if (tp_inproc_start("bench-spin", &spin, err, sizeof err) != TP_OK ||
        tp_inproc_start("bench-block", &block, err, sizeof err) != TP_OK ||
        tp_inproc_start(TASK_RTI, &task, err, sizeof err) != TP_OK) {
        CHECK(0, "in-process RTI: %s", err);
        return;
    }
    printf("in process (an embedded RTI, no sockets; federates as tasks on one thread or as "
           "threads): ratios to TCP of the same run and to the raw TCP round trip on two "
           "CPUs\n");
    static const char *names[] = {"", "B1 TAR cycle", "B2 Jacobi updates + TAR"};
    for (int b = 1; b <= 2; b++)
        for (int n = 2; n <= MAXN; n *= 2) {
            double tcp = run_bench(tcp_addr, b, n, steps);
            double tk = run_bench("inproc:" TASK_RTI, b, n, steps);
            double sp = run_bench("inproc:bench-spin", b, n, steps);
            double bl = run_bench("inproc:bench-block", b, n, steps);
            double raw2 = raw_rtt_rate_on(steps / 4, 0, 1);
            printf("%-24s N = %d: in process %8.0f steps/s as tasks (%.2f x TCP, %.2f x raw), "
                   "%8.0f threads spinning (%.2f x TCP), %8.0f blocking (%.2f x TCP); "
                   "TCP %8.0f",
                   names[b], n, tk, tcp > 0 ? tk / tcp : 0, raw2 > 0 ? tk / raw2 : 0, sp,
                   tcp > 0 ? sp / tcp : 0, bl, tcp > 0 ? bl / tcp : 0, tcp);
            if (b == 1 && n == 2) printf("  [target >= 4 x TCP]");
            printf("\n");
            fflush(stdout);
        }
    tp_inproc_stop("bench-spin", err, sizeof err);
    tp_inproc_stop("bench-block", err, sizeof err);
    tp_inproc_stop(TASK_RTI, err, sizeof err);
}

int main(int argc, char **argv)
{
    int steps = argc > 1 ? atoi(argv[1]) : 20000;
    if (argc > 2 && strcmp(argv[2], "inproc") == 0) { /* only the in-process figures */
        const char *const a2[] = {"--log-level", "error", NULL};
        const char *ad = harness_start_rti(a2, 900);
        if (ad) inproc_figures(ad, steps);
        return check_summary();
    }
    if (argc > 2 && strcmp(argv[2], "http") == 0) { /* only the live view's idle cost */
        const char *const a2[] = {"--log-level", "error", NULL};
        const char *ad = harness_start_rti(a2, 900);
        if (ad) http_effect(ad, steps);
        return check_summary();
    }
    if (argc > 2 && strcmp(argv[2], "log") == 0) { /* only the federation log's cost */
        log_cost(steps);
        return check_summary();
    }
    printf("engine alone (rti/tm/tm.c): TAR cycle, L = 1, cost per request incl. grants\n");
    for (int n = 2; n <= 256; n *= 2) {
        int es = n <= 16 ? 200000 / n : 20000 / (n / 8);
        printf("  N = %3d: %8.0f ns per request\n", n, engine_ns_per_request(n, es));
    }
    check_reason_builder();
    struct fold on = {1469598103934665603u, 0, 0}, off = on;
    double ns_on = engine_mix(1, &on, 20000), ns_off = engine_mix(0, &off, 20000);
    printf("engine, N = 4 mixed TAR/TARA/NER/NERA + TSO sends, with a sink: %.0f ns per event "
           "with reason texts, %.0f without (tm_set_reasons)\n",
           ns_on, ns_off);
    CHECK(on.n > 0 && on.n == off.n && on.h == off.h,
          "decisions differ with reasons off (%ld vs %ld decisions)", on.n, off.n);
    CHECK(on.n_empty == 0 && off.n_empty == off.n,
          "reasons on: %ld empty of %ld; off: %ld empty of %ld", on.n_empty, on.n, off.n_empty,
          off.n);
    const char *const args[] = {"--log-level", "error", NULL};
    const char *addr = harness_start_rti(args, 900);
    if (!addr) return check_summary();
    double raw = raw_rtt_rate(steps);
    printf("raw TCP round trips on loopback (64 B, TCP_NODELAY): %.0f /s; pinned to two CPUs "
           "%.0f /s, to one CPU %.0f /s\n",
           raw, raw_rtt_rate_on(steps, 0, 1), raw_rtt_rate_on(steps, 0, 0));
    printf("ratios below: to the raw rate on two CPUs (a step wakes processes on other CPUs too), "
           "then to the raw rate on one CPU; both measured right after each run\n");
    static const char *names[] = {"", "B1 TAR cycle", "B2 Jacobi updates + TAR",
                                  "B3 updates + NER"};
    static const double target2[] = {0, 0.85, 0.7, 0.6}, target8[] = {0, 0.3, 0.18, 0};
    for (int b = 1; b <= 3; b++) {
        for (int n = 2; n <= MAXN; n *= 2) {
            double r = run_bench(addr, b, n, steps);
            double raw2 = raw_rtt_rate_on(steps / 4, 0, 1); /* the same moment's machine */
            double raw1 = raw_rtt_rate_on(steps / 4, 0, 0);
            double tgt = n == 2 ? target2[b] : (n == 8 ? target8[b] : 0);
            printf("%-26s N = %d: %8.0f steps/s = %.2f x raw (%.0f /s), %.2f x one-CPU raw "
                   "(%.0f /s)",
                   names[b], n, r, raw2 > 0 ? r / raw2 : 0, raw2, raw1 > 0 ? r / raw1 : 0, raw1);
            if (tgt > 0) printf("  [target %.2f]", tgt);
            printf("\n");
            fflush(stdout);
        }
    }
    inproc_figures(addr, steps);
    log_cost(steps);
    http_effect(addr, steps); /* doc/live.md "Bounds and cost": the view's idle cost */
    spin_effect(addr, steps);
    return check_summary();
}
