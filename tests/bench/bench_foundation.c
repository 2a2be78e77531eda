/* Foundation benchmarks (doc/rti.md): receive-order throughput (one publisher,
 * one subscriber, 200 000 updates of 64 bytes, messages/s counted at the subscriber) and
 * latency (ping-pong of a receive-order interaction, 20 000 round trips, median and p99)
 * through a real bin/tempo-rti, printed beside the same two figures for plain TCP loopback in
 * the same run (one 64-byte write per message with Nagle on; a 64-byte ping-pong with
 * TCP_NODELAY), with the ratios. Figures only: it never fails on timing.
 * Every side is its own process (fork), as federates would be.
 *
 * usage: bench_foundation [N_UPDATES [N_ROUNDTRIPS]] */
#include <errno.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "federate/libtempo/tempo.h"

#define MSG 64 /* bytes per message / value */

static pid_t rti_pid = -1;

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + ts.tv_nsec * 1e-9;
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

static void die(const char *what)
{
    fprintf(stderr, "bench: %s: %s\n", what, strerror(errno));
    if (rti_pid > 0) kill(rti_pid, SIGKILL);
    exit(1);
}

/* ---- raw TCP -------------------------------------------------------------------------- */

static int listener(int *port)
{
    int s = socket(AF_INET, SOCK_STREAM, 0);
    struct sockaddr_in a = {.sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK)};
    socklen_t len = sizeof a;
    if (s < 0 || bind(s, (struct sockaddr *)&a, sizeof a) < 0 || listen(s, 4) < 0 ||
        getsockname(s, (struct sockaddr *)&a, &len) < 0)
        die("listen");
    *port = ntohs(a.sin_port);
    return s;
}

static int dial(int port, int nodelay)
{
    int s = socket(AF_INET, SOCK_STREAM, 0);
    struct sockaddr_in a = {.sin_family = AF_INET,
                            .sin_port = htons((uint16_t)port),
                            .sin_addr.s_addr = htonl(INADDR_LOOPBACK)};
    if (s < 0 || connect(s, (struct sockaddr *)&a, sizeof a) < 0) die("connect");
    setsockopt(s, IPPROTO_TCP, TCP_NODELAY, &nodelay, sizeof nodelay);
    return s;
}

static int read_full(int fd, void *p, size_t n)
{
    size_t got = 0;
    while (got < n) {
        ssize_t r = read(fd, (char *)p + got, n - got);
        if (r <= 0) {
            if (r < 0 && errno == EINTR) continue;
            return -1;
        }
        got += (size_t)r;
    }
    return 0;
}

/* One write per 64-byte message, Nagle on; the reader counts messages. */
static double raw_throughput(long n)
{
    int port, l = listener(&port);
    pid_t kid = fork();
    if (kid == 0) {
        int s = dial(port, 0);
        char msg[MSG];
        memset(msg, 'x', sizeof msg);
        for (long i = 0; i < n; i++)
            if (write(s, msg, sizeof msg) != (ssize_t)sizeof msg) _exit(1);
        close(s);
        _exit(0);
    }
    int c = accept(l, NULL, NULL);
    static char buf[1 << 16];
    long bytes = 0, want = n * MSG;
    double t0 = 0;
    while (bytes < want) {
        ssize_t r = read(c, buf, sizeof buf);
        if (r <= 0) break;
        if (bytes == 0) t0 = now_s();
        bytes += r;
    }
    double dt = now_s() - t0;
    close(c);
    close(l);
    waitpid(kid, NULL, 0);
    return (double)(bytes / MSG) / dt;
}

/* 64-byte ping-pong, TCP_NODELAY; fills rtt[] (seconds). */
static void raw_pingpong(int n, double *rtt)
{
    int port, l = listener(&port);
    pid_t kid = fork();
    if (kid == 0) {
        int s = dial(port, 1);
        char msg[MSG];
        while (read_full(s, msg, sizeof msg) == 0)
            if (write(s, msg, sizeof msg) != (ssize_t)sizeof msg) _exit(1);
        _exit(0);
    }
    int c = accept(l, NULL, NULL);
    int one = 1;
    setsockopt(c, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
    char msg[MSG];
    memset(msg, 'p', sizeof msg);
    for (int i = 0; i < n; i++) {
        double t0 = now_s();
        if (write(c, msg, sizeof msg) != (ssize_t)sizeof msg || read_full(c, msg, sizeof msg) < 0)
            die("raw ping-pong");
        rtt[i] = now_s() - t0;
    }
    close(c);
    close(l);
    waitpid(kid, NULL, 0);
}

/* The same ping-pong through a minimal relay process (blocking reads and writes, no
 * framing): four hops and three processes, like a round trip through the RTI. It is the
 * floor for any central relay on this machine, printed for context. */
static void relay_pingpong(int n, double *rtt)
{
    int port, l = listener(&port);
    pid_t relay = fork();
    if (relay == 0) {
        int a = accept(l, NULL, NULL), b = accept(l, NULL, NULL), one = 1;
        setsockopt(a, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
        setsockopt(b, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
        char msg[MSG];
        while (read_full(a, msg, sizeof msg) == 0 &&
               write(b, msg, sizeof msg) == (ssize_t)sizeof msg &&
               read_full(b, msg, sizeof msg) == 0 &&
               write(a, msg, sizeof msg) == (ssize_t)sizeof msg)
            ;
        _exit(0);
    }
    int c = dial(port, 1); /* accepted first: side a */
    usleep(10000);         /* let the relay accept a before b connects */
    pid_t echo = fork();
    if (echo == 0) {
        close(c); /* or the relay would never see the pinger's end of stream */
        int s = dial(port, 1);
        char msg[MSG];
        while (read_full(s, msg, sizeof msg) == 0)
            if (write(s, msg, sizeof msg) != (ssize_t)sizeof msg) _exit(1);
        _exit(0);
    }
    char msg[MSG];
    memset(msg, 'r', sizeof msg);
    for (int i = 0; i < n; i++) {
        double t0 = now_s();
        if (write(c, msg, sizeof msg) != (ssize_t)sizeof msg || read_full(c, msg, sizeof msg) < 0)
            die("relay ping-pong");
        rtt[i] = now_s() - t0;
    }
    close(c);
    close(l);
    waitpid(relay, NULL, 0);
    waitpid(echo, NULL, 0);
}

/* ---- through the RTI ------------------------------------------------------------------- */

static char rti_addr[64];

static void start_rti(void)
{
    int fds[2];
    if (pipe(fds) < 0) die("pipe");
    rti_pid = fork();
    if (rti_pid == 0) {
        prctl(PR_SET_PDEATHSIG, SIGKILL); /* never outlive the benchmark */
        dup2(fds[1], 1);
        close(fds[0]);
        close(fds[1]);
        execl("bin/tempo-rti", "bin/tempo-rti", "--listen", "127.0.0.1:0", "--log-level", "warn",
              (char *)NULL);
        _exit(127);
    }
    close(fds[1]);
    FILE *in = fdopen(fds[0], "r");
    char line[256];
    while (in && fgets(line, sizeof line, in)) {
        char *p = strstr(line, "listening on ");
        if (p) {
            p += strlen("listening on ");
            p[strcspn(p, " \r\n")] = '\0';
            snprintf(rti_addr, sizeof rti_addr, "%s", p);
            break;
        }
    }
    if (in) fclose(in);
    if (!rti_addr[0]) {
        fprintf(stderr, "bench: bin/tempo-rti did not start\n");
        exit(1);
    }
}

static tp_federate *join(const char *fed, const char *name, const tp_callbacks *cb, void *ctx)
{
    tp_join_options o = {.rti = rti_addr,
                         .federation = fed,
                         .federate = name,
                         .fom_path = "fom/test.xml",
                         .create = 1,
                         .timeout_ms = 30000};
    tp_federate *f = NULL;
    char err[512];
    int rc = tp_join(&o, cb, ctx, &f, err, sizeof err);
    if (rc != TP_OK) {
        fprintf(stderr, "bench: join %s: %s\n", name, err);
        exit(1);
    }
    return f;
}

static void must(tp_federate *f, int rc, const char *what)
{
    if (rc < 0) {
        fprintf(stderr, "bench: %s: %s (%s)\n", what, tp_strerror(rc), tp_last_error(f));
        exit(1);
    }
}

struct counter {
    long n;       /* reflections or receptions */
    double first; /* time of the first one */
};

static void count_reflect(void *ctx, const tp_reflection *r)
{
    struct counter *c = ctx;
    if (c->n++ == 0) c->first = now_s();
}

static void count_receive(void *ctx, const tp_interaction *i)
{
    ((struct counter *)ctx)->n++;
}

/* Publisher process: register, meet at "go", send n updates of one 64-byte value. */
static void publisher(long n)
{
    tp_federate *f = join("bench-tp", "pub", NULL, NULL);
    tp_handle cls, raw;
    tp_object obj;
    must(f, tp_object_class(f, "Sample", &cls), "class");
    must(f, tp_attribute(f, cls, "raw", &raw), "attribute");
    must(f, tp_publish_object_class(f, cls, &raw, 1), "publish");
    must(f, tp_register_object(f, cls, "src", &obj), "register");
    must(f, tp_sync(f, "go", 30000), "sync");
    uint8_t v[MSG];
    memset(v, 0xab, sizeof v);
    tp_value val = {raw, v, sizeof v};
    for (long i = 0; i < n; i++)
        must(f, tp_update(f, obj, &val, 1, TP_NO_TIME), "update");
    must(f, tp_flush(f), "flush");
    must(f, tp_sync(f, "done", 60000), "sync done");
    tp_resign(f, TP_DELETE_OBJECTS);
    tp_federate_free(f);
}

static double tempo_throughput(long n)
{
    pid_t kid = fork();
    if (kid == 0) {
        publisher(n);
        _exit(0);
    }
    struct counter c = {0};
    tp_callbacks cb = {.reflect = count_reflect};
    tp_federate *f = join("bench-tp", "sub", &cb, &c);
    tp_handle cls, raw;
    must(f, tp_object_class(f, "Sample", &cls), "class");
    must(f, tp_attribute(f, cls, "raw", &raw), "attribute");
    must(f, tp_subscribe_object_class(f, cls, &raw, 1), "subscribe");
    size_t k;
    must(f, tp_query_time_status(f, NULL, 0, &k), "round trip"); /* subscription in place */
    /* Register "go" for both once the publisher has joined (the federation has 2 members). */
    while (k < 2) {
        must(f, tp_query_time_status(f, NULL, 0, &k), "members");
        if (k < 2) usleep(1000);
    }
    must(f, tp_register_sync(f, "go", NULL, 0, NULL, 0), "register go");
    must(f, tp_sync(f, "go", 30000), "sync go");
    while (c.n < n)
        must(f, tp_evoke(f, 10000), "evoke");
    double dt = now_s() - c.first;
    must(f, tp_register_sync(f, "done", NULL, 0, NULL, 0), "register done");
    must(f, tp_sync(f, "done", 30000), "sync done");
    tp_resign(f, TP_DELETE_OBJECTS);
    tp_federate_free(f);
    waitpid(kid, NULL, 0);
    /* The first reflection starts the clock, so n - 1 messages arrived in dt. */
    return (double)(n - 1) / dt;
}

/* Ponger process: answer each Message with a Message. */
static void ponger(int n)
{
    struct counter c = {0};
    tp_callbacks cb = {.receive = count_receive};
    tp_federate *f = join("bench-pp", "pong", &cb, &c);
    tp_handle msg, text;
    must(f, tp_interaction_class(f, "Message", &msg), "class");
    must(f, tp_parameter(f, msg, "text", &text), "parameter");
    must(f, tp_publish_interaction_class(f, msg), "publish");
    must(f, tp_subscribe_interaction_class(f, msg), "subscribe");
    must(f, tp_sync(f, "go", 30000), "sync");
    char payload[MSG];
    memset(payload, 'q', sizeof payload);
    tp_value v = {text, payload, sizeof payload};
    for (long answered = 0; answered < n;) {
        must(f, tp_evoke(f, 10000), "evoke");
        for (; answered < c.n; answered++)
            must(f, tp_send_interaction(f, msg, &v, 1, TP_NO_TIME), "send");
        must(f, tp_flush(f), "flush");
    }
    must(f, tp_sync(f, "done", 30000), "sync done");
    tp_resign(f, TP_DELETE_OBJECTS);
    tp_federate_free(f);
}

static void tempo_pingpong(int n, double *rtt)
{
    pid_t kid = fork();
    if (kid == 0) {
        ponger(n);
        _exit(0);
    }
    struct counter c = {0};
    tp_callbacks cb = {.receive = count_receive};
    tp_federate *f = join("bench-pp", "ping", &cb, &c);
    tp_handle msg, text;
    must(f, tp_interaction_class(f, "Message", &msg), "class");
    must(f, tp_parameter(f, msg, "text", &text), "parameter");
    must(f, tp_publish_interaction_class(f, msg), "publish");
    must(f, tp_subscribe_interaction_class(f, msg), "subscribe");
    size_t k = 0;
    while (k < 2) {
        must(f, tp_query_time_status(f, NULL, 0, &k), "members");
        if (k < 2) usleep(1000);
    }
    must(f, tp_register_sync(f, "go", NULL, 0, NULL, 0), "register go");
    must(f, tp_sync(f, "go", 30000), "sync go");
    char payload[MSG];
    memset(payload, 'p', sizeof payload);
    tp_value v = {text, payload, sizeof payload};
    for (int i = 0; i < n; i++) {
        long before = c.n;
        double t0 = now_s();
        must(f, tp_send_interaction(f, msg, &v, 1, TP_NO_TIME), "send");
        while (c.n == before)
            must(f, tp_evoke(f, 10000), "evoke"); /* flushes the send first */
        rtt[i] = now_s() - t0;
    }
    must(f, tp_register_sync(f, "done", NULL, 0, NULL, 0), "register done");
    must(f, tp_sync(f, "done", 30000), "sync done");
    tp_resign(f, TP_DELETE_OBJECTS);
    tp_federate_free(f);
    waitpid(kid, NULL, 0);
}

int main(int argc, char **argv)
{
    long n_upd = argc > 1 ? atol(argv[1]) : 200000;
    int n_rt = argc > 2 ? atoi(argv[2]) : 20000;
    if (n_upd < 2 || n_rt < 1) {
        fprintf(stderr, "usage: bench_foundation [N_UPDATES>=2 [N_ROUNDTRIPS>=1]]\n");
        return 2;
    }
    signal(SIGPIPE, SIG_IGN);
    start_rti();
    double *rt_raw = calloc((size_t)n_rt, sizeof *rt_raw);
    double *rt_tp = calloc((size_t)n_rt, sizeof *rt_tp);
    if (!rt_raw || !rt_tp) die("calloc");

    double thr_raw = raw_throughput(n_upd);
    double thr_tp = tempo_throughput(n_upd);
    raw_pingpong(n_rt, rt_raw);
    tempo_pingpong(n_rt, rt_tp);
    double *rt_relay = calloc((size_t)n_rt, sizeof *rt_relay);
    if (!rt_relay) die("calloc");
    relay_pingpong(n_rt, rt_relay);
    qsort(rt_relay, (size_t)n_rt, sizeof *rt_relay, cmp_double);
    qsort(rt_raw, (size_t)n_rt, sizeof *rt_raw, cmp_double);
    qsort(rt_tp, (size_t)n_rt, sizeof *rt_tp, cmp_double);
    size_t med = (size_t)n_rt / 2, p99 = (size_t)((double)n_rt * 0.99);
    if (p99 >= (size_t)n_rt) p99 = (size_t)n_rt - 1;

    printf("foundation benchmark (%ld updates of %d bytes, %d round trips)\n", n_upd, MSG, n_rt);
    printf("%-34s %14s %14s %8s\n", "", "tempo", "raw TCP", "ratio");
    printf("%-34s %14.0f %14.0f %8.2f   (target >= 1.00)\n", "RO throughput (msg/s)", thr_tp,
           thr_raw, thr_tp / thr_raw);
    printf("%-34s %14.1f %14.1f %8.2f   (target <= 2.20)\n", "ping-pong round trip median (us)",
           rt_tp[med] * 1e6, rt_raw[med] * 1e6, rt_tp[med] / rt_raw[med]);
    printf("%-34s %14.1f %14.1f %8.2f\n", "ping-pong round trip p99 (us)", rt_tp[p99] * 1e6,
           rt_raw[p99] * 1e6, rt_tp[p99] / rt_raw[p99]);
    printf("%-34s %14s %14.1f %8.2f   (context: 4 hops through a bare relay)\n",
           "relay ping-pong median (us)", "", rt_relay[med] * 1e6, rt_relay[med] / rt_raw[med]);
    free(rt_relay);
    if (getenv("BENCH_VERBOSE")) {
        const double q[] = {0.1, 0.5, 0.9, 0.95, 0.98, 0.99, 0.999};
        for (size_t i = 0; i < sizeof q / sizeof q[0]; i++)
            printf("  q%.3f  tempo %8.1f us   raw %8.1f us\n", q[i],
                   rt_tp[(size_t)(q[i] * n_rt)] * 1e6, rt_raw[(size_t)(q[i] * n_rt)] * 1e6);
    }
    free(rt_raw);
    free(rt_tp);
    kill(rti_pid, SIGTERM);
    waitpid(rti_pid, NULL, 0);
    return 0;
}
