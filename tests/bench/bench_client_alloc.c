/* Allocation count of libtempo's hot path (doc/contributing.md §8): after a warm-up,
 * updates, reflections, interactions and time-advance cycles through a real bin/tempo-rti
 * should allocate nothing in the client. This program replaces malloc/calloc/realloc (glibc
 * allows an executable to define them; they forward to __libc_*) and counts the calls made
 * while the measured loop runs. It prints figures; it does not fail on them.
 * Release build only (the sanitizers bring their own allocator). */
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include "federate/libtempo/tempo.h"

extern void *__libc_malloc(size_t n);
extern void *__libc_calloc(size_t n, size_t m);
extern void *__libc_realloc(void *p, size_t n);
extern void __libc_free(void *p);

static long n_alloc; /* allocation calls since the counter was reset */

void *malloc(size_t n)
{
    n_alloc++;
    return __libc_malloc(n);
}

void *calloc(size_t n, size_t m)
{
    n_alloc++;
    return __libc_calloc(n, m);
}

void *realloc(void *p, size_t n)
{
    n_alloc++;
    return __libc_realloc(p, n);
}

void free(void *p)
{
    __libc_free(p);
}

static pid_t rti = -1;
static char addr[64];

static void start_rti(void)
{
    int fds[2];
    if (pipe(fds) < 0) exit(1);
    rti = fork();
    if (rti == 0) {
        prctl(PR_SET_PDEATHSIG, SIGKILL); /* never outlive the benchmark */
        dup2(fds[1], 1);
        close(fds[0]);
        execl("bin/tempo-rti", "bin/tempo-rti", "--listen", "127.0.0.1:0", "--log-level", "warn",
              (char *)NULL);
        _exit(127);
    }
    close(fds[1]);
    char line[256];
    ssize_t n = 0, k;
    while (n < (ssize_t)sizeof line - 1 && (k = read(fds[0], line + n, 1)) == 1 && line[n] != '\n')
        n++;
    line[n] = '\0';
    close(fds[0]);
    char *p = strstr(line, "listening on ");
    if (!p) {
        fprintf(stderr, "bench_client_alloc: bin/tempo-rti did not start\n");
        exit(1);
    }
    snprintf(addr, sizeof addr, "%s", p + strlen("listening on "));
}

static long reflected, received, granted;
static void on_reflect(void *ctx, const tp_reflection *r)
{
    reflected++;
}
static void on_receive(void *ctx, const tp_interaction *i)
{
    received++;
}
static void on_grant(void *ctx, tp_time t)
{
    granted++;
}

static tp_federate *join(const char *name)
{
    tp_callbacks cb = {.reflect = on_reflect, .receive = on_receive, .grant = on_grant};
    tp_join_options o = {.rti = addr,
                         .federation = "alloc",
                         .federate = name,
                         .fom_path = "fom/test.xml",
                         .create = 1};
    tp_federate *f = NULL;
    char err[512];
    if (tp_join(&o, &cb, NULL, &f, err, sizeof err) != TP_OK) {
        fprintf(stderr, "bench_client_alloc: join %s: %s\n", name, err);
        kill(rti, SIGKILL);
        exit(1);
    }
    return f;
}

/* Stop on a failed call: otherwise a step would wait forever for messages never sent. */
static void must(int rc, const char *what)
{
    if (rc >= 0) return;
    fprintf(stderr, "bench_client_alloc: %s: %s\n", what, tp_strerror(rc));
    kill(rti, SIGKILL);
    exit(1);
}

/* One step: 50 updates and 10 interactions from P, S drains them, both advance by 1. */
static void step(tp_federate *P, tp_federate *S, tp_object obj, tp_handle x, tp_handle msg,
                 tp_handle text, tp_time *t)
{
    uint8_t b[8];
    long want_r = reflected + 50, want_i = received + 10, want_g = granted + 2;
    for (int i = 0; i < 50; i++) {
        tp_encode_float64((double)i, b);
        tp_value v = {x, b, 8};
        must(tp_update(P, obj, &v, 1, *t + 1), "tp_update");
    }
    tp_value m = {text, "hello, world", 12};
    for (int i = 0; i < 10; i++)
        must(tp_send_interaction(P, msg, &m, 1, TP_NO_TIME), "tp_send_interaction");
    *t += 1;
    must(tp_time_advance_request(P, *t), "TAR P");
    must(tp_time_advance_request(S, *t), "TAR S");
    while (reflected < want_r || received < want_i || granted < want_g) {
        must(tp_evoke(P, 0), "tp_evoke P");
        must(tp_evoke(S, 1), "tp_evoke S");
    }
}

int main(int argc, char **argv)
{
    int steps = argc > 1 ? atoi(argv[1]) : 2000;
    start_rti();
    tp_federate *P = join("P"), *S = join("S");
    tp_handle sample, x, msg, text;
    tp_object obj;
    must(tp_object_class(P, "Sample", &sample), "Sample");
    must(tp_attribute(P, sample, "x", &x), "Sample.x");
    must(tp_interaction_class(P, "Message", &msg), "Message");
    must(tp_parameter(P, msg, "text", &text), "Message.text");
    must(tp_publish_object_class(P, sample, &x, 1), "publish Sample");
    must(tp_publish_interaction_class(P, msg), "publish Message");
    must(tp_subscribe_object_class(S, sample, &x, 1), "subscribe Sample");
    must(tp_subscribe_interaction_class(S, msg), "subscribe Message");
    size_t n;
    must(tp_query_time_status(S, NULL, 0, &n), "time status"); /* subscriptions in place */
    must(tp_register_object(P, sample, "s", &obj), "register");
    must(tp_enable_regulation(P, 1), "enable regulation");
    must(tp_wait_regulation_enabled(P, 5000), "regulation enabled");
    must(tp_enable_constrained(S), "enable constrained");
    must(tp_wait_constrained_enabled(S, 5000), "constrained enabled");
    tp_time t = 0;
    for (int i = 0; i < 200; i++) /* warm-up: buffers and scratch arrays grow here */
        step(P, S, obj, x, msg, text, &t);
    printf("client allocations up to the end of the warm-up (join, FOM, buffers): %ld\n", n_alloc);
    long before = n_alloc, r0 = reflected, i0 = received, g0 = granted;
    for (int i = 0; i < steps; i++)
        step(P, S, obj, x, msg, text, &t);
    long allocs = n_alloc - before;
    printf("client allocations after warm-up: %ld in %d steps (%ld updates reflected, %ld "
           "interactions received, %ld grants): %.4f per message\n",
           allocs, steps, reflected - r0, received - i0, granted - g0,
           (double)allocs / (double)(reflected - r0 + received - i0 + granted - g0));
    tp_resign(P, TP_DELETE_OBJECTS);
    tp_resign(S, TP_DELETE_OBJECTS);
    tp_federate_free(P);
    tp_federate_free(S);
    kill(rti, SIGTERM);
    waitpid(rti, NULL, 0);
    return 0;
}
