/* Time-management benchmarks B1–B3 of issue 3 (DESIGN.md §11): N = 2, 4, 8 federate
 * processes, each regulating and constrained (lookahead 1), against a real bin/tempo-rti on
 * loopback, with the raw TCP round-trip rate of this machine measured in the same run, and the
 * engine alone (rti/tm.c, no network) for N up to 256 to show O(N) work per request.
 *   B1  TAR(t+1), wait for the grant                       steps per second
 *   B2  update 8 float64 stamped t+1, TAR(t+1); every federate reflects N-1 updates per step
 *   B3  the same with NER(t+1)
 * Figures only: it never fails on timing (it does fail if a run goes wrong).
 * Usage: bench_tm [steps] (default 20000). Read doc/time.md for the rules being timed. */
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <sys/socket.h>

/* The engine is compiled into this test rather than linked from librtisrv, so that a
 * half-finished server module never stops the tm tests from building (mk/35-tm.mk). */
#include "rti/tm.c"
#include "rti/tm.h"
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

/* An echo child and a ping-pong of 64-byte messages with TCP_NODELAY, like one request and
 * its grant. @return round trips per second, 0 on failure. */
static double raw_rtt_rate(int n)
{
    int ls = socket(AF_INET, SOCK_STREAM, 0);
    struct sockaddr_in a = {.sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK)};
    socklen_t al = sizeof a;
    if (ls < 0 || bind(ls, (struct sockaddr *)&a, sizeof a) != 0 || listen(ls, 1) != 0 ||
        getsockname(ls, (struct sockaddr *)&a, &al) != 0)
        return 0;
    pid_t pid = fork();
    if (pid == 0) {
        int c = accept(ls, NULL, NULL), one = 1;
        setsockopt(c, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
        char b[64];
        while (full_io(c, b, sizeof b, 1) == 0 && full_io(c, b, sizeof b, 0) == 0)
            ;
        _exit(0);
    }
    close(ls);
    int s = socket(AF_INET, SOCK_STREAM, 0), one = 1;
    if (connect(s, (struct sockaddr *)&a, sizeof a) != 0) return 0;
    setsockopt(s, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
    char b[64] = {0};
    int64_t t0 = harness_ms();
    int ok = 1;
    for (int i = 0; i < n && ok; i++)
        ok = full_io(s, b, sizeof b, 0) == 0 && full_io(s, b, sizeof b, 1) == 0;
    int64_t t1 = harness_ms();
    close(s);
    waitpid(pid, NULL, 0);
    return ok && t1 > t0 ? n * 1000.0 / (double)(t1 - t0) : 0;
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
    static struct bfed c;
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
        for (int64_t end = harness_ms() + 10000; harness_ms() < end && (int)k < n; usleep(2000))
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

/* Run benchmark @p b with @p n federates. @return steps per second (0 on failure). */
static double run_bench(const char *addr, int b, int n, int steps)
{
    static int serial;
    char federation[32];
    snprintf(federation, sizeof federation, "bench-%d-%d-%d", b, n, serial++);
    int fds[2];
    if (pipe(fds) != 0) return 0;
    pid_t pids[MAXN];
    fflush(stdout);
    for (int i = 0; i < n; i++) {
        pids[i] = fork();
        if (pids[i] == 0) {
            close(fds[0]);
            _exit(bench_child(addr, federation, b, i, n, steps, fds[1]));
        }
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
    for (int i = 0; i < n; i++) {
        int st = 0;
        waitpid(pids[i], &st, 0);
        if (!WIFEXITED(st) || WEXITSTATUS(st) != 0) ok = 0;
    }
    CHECK(ok && got == n, "B%d with N=%d failed (%d reports)", b, n, got);
    return ok && got == n && worst > 0 ? steps * 1000.0 / worst : 0;
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

int main(int argc, char **argv)
{
    int steps = argc > 1 ? atoi(argv[1]) : 20000;
    printf("engine alone (rti/tm.c): TAR cycle, L = 1, cost per request incl. grants\n");
    for (int n = 2; n <= 256; n *= 2) {
        int es = n <= 16 ? 200000 / n : 20000 / (n / 8);
        printf("  N = %3d: %8.0f ns per request\n", n, engine_ns_per_request(n, es));
    }
    const char *const args[] = {"--log-level", "error", NULL};
    const char *addr = harness_start_rti(args, 900);
    if (!addr) return check_summary();
    double raw = raw_rtt_rate(steps);
    printf("raw TCP round trips on loopback (64 B, TCP_NODELAY): %.0f /s\n", raw);
    static const char *names[] = {"", "B1 TAR cycle", "B2 Jacobi updates + TAR",
                                  "B3 updates + NER"};
    static const double target2[] = {0, 0.85, 0.7, 0.6}, target8[] = {0, 0.3, 0.18, 0};
    for (int b = 1; b <= 3; b++) {
        for (int n = 2; n <= MAXN; n *= 2) {
            double r = run_bench(addr, b, n, steps);
            double raw_now = raw_rtt_rate(steps / 4); /* the same moment's machine */
            double tgt = n == 2 ? target2[b] : (n == 8 ? target8[b] : 0);
            printf("%-26s N = %d: %8.0f steps/s  = %.2f x raw (%.0f /s now)", names[b], n, r,
                   raw_now > 0 ? r / raw_now : 0, raw_now);
            if (tgt > 0) printf("  [target %.2f]", tgt);
            printf("\n");
            fflush(stdout);
        }
    }
    return check_summary();
}
