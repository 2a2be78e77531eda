/* The cost of one TAR/grant cycle and of one attribute update through libtempo from C, for
 * tests/bench/python_bench.sh, which runs tests/bench/python_bench.py (the same calls from
 * Python through the package python/tempo, doc/python.md) beside it in the same run. One
 * federate alone in its federation, regulating (lookahead 1 tick) and constrained, so that
 * every grant is one round trip through the RTI and nothing else waits; the updates are of a
 * float64 (Signal.value of fom/demo.xml), time-stamped, batched as the library batches them
 * and flushed at the end. Figures only: it never fails on timing.
 *
 * usage: bench_cycle RTI FOM N_CYCLES N_UPDATES    (RTI: host:port, unix:PATH or inproc:)
 * prints: "C RTI: TAR/grant cycle X us, update Y us" */
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

#include "federate/libtempo/tempo.h"

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + ts.tv_nsec * 1e-9;
}

static int fail(tp_federate *f, const char *what, int rc)
{
    fprintf(stderr, "bench_cycle: %s: %s (%s)\n", what, tp_strerror(rc), tp_last_error(f));
    tp_federate_free(f);
    return 1;
}

int main(int argc, char **argv)
{
    if (argc != 5) {
        fprintf(stderr, "usage: bench_cycle RTI FOM N_CYCLES N_UPDATES\n");
        return 2;
    }
    long cycles = atol(argv[3]), updates = atol(argv[4]);
    char fedname[64], err[512];
    snprintf(fedname, sizeof fedname, "bench-c-%ld", (long)getpid());
    tp_join_options o = {
        .rti = argv[1], .federation = fedname, .federate = "c", .fom_path = argv[2], .create = 1};
    tp_federate *f = NULL;
    int rc = tp_join(&o, NULL, NULL, &f, err, sizeof err);
    if (rc != TP_OK) {
        fprintf(stderr, "bench_cycle: join %s: %s\n", argv[1], err);
        return 1;
    }
    tp_handle cls, value;
    tp_object obj;
    if ((rc = tp_object_class(f, "Signal", &cls)) || (rc = tp_attribute(f, cls, "value", &value)) ||
        (rc = tp_publish_object_class(f, cls, &value, 1)) ||
        (rc = tp_register_object(f, cls, NULL, &obj)) || (rc = tp_enable_regulation(f, 1)) ||
        (rc = tp_wait_regulation_enabled(f, -1)) || (rc = tp_enable_constrained(f)) ||
        (rc = tp_wait_constrained_enabled(f, -1)))
        return fail(f, "set-up", rc);
    tp_time t = 0;
    double t0 = now_s();
    for (long i = 0; i < cycles; i++) {
        if ((rc = tp_time_advance_request(f, t + 1)) || (rc = tp_wait_grant(f, &t, -1)))
            return fail(f, "TAR", rc);
    }
    double cyc = (now_s() - t0) / (double)cycles;
    unsigned char b[TP_FLOAT64_SIZE];
    t0 = now_s();
    for (long i = 0; i < updates; i++) {
        tp_encode_float64((double)i, b);
        tp_value v = {value, b, sizeof b};
        if ((rc = tp_update(f, obj, &v, 1, t + 1))) return fail(f, "update", rc);
    }
    if ((rc = tp_flush(f))) return fail(f, "flush", rc);
    double upd = (now_s() - t0) / (double)updates;
    printf("C %s: TAR/grant cycle %.2f us, update %.3f us\n", argv[1], cyc * 1e6, upd * 1e6);
    tp_resign(f, TP_DELETE_OBJECTS);
    tp_federate_free(f);
    return 0;
}
