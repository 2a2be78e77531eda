/* Benchmark of a coordinated save and a restore (doc/checkpoint.md), RTI and libtempo side:
 * N federates in one process (threads, the in-process RTI), regulating and constrained, each
 * with one object and a part of P bytes (a stand-in for an FMU's state), step on a common grid;
 * one asks for a save at step 5. Prints the time from the request to the last `saved`, the
 * time the RTI took from the last report to the folder on disk (its part and the fsyncs),
 * the checkpoint's size, and the time to restore it and rejoin every federate.
 * Timing is printed, never asserted (doc/contributing.md §12). */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "federate/libtempo/tempo.h"
#include "rti/proto/ckpt.h"

#define STEPS   10
#define SAVE_AT 5

struct fed {
    tp_federate *f;
    char name[16];
    tp_handle cls, val;
    tp_object obj;
    tp_time t;
    size_t part_bytes;
    int saved;
    double saved_at; /* s, monotonic: the outcome came */
    double part_at;  /* s, monotonic: its part was asked for */
};

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static int on_save(void *ctx, const char *label, tp_time time, void **bytes, size_t *n, char *why,
                   size_t why_size)
{
    struct fed *s = ctx;
    s->part_at = now_s();
    uint8_t *p = malloc(s->part_bytes ? s->part_bytes : 1);
    if (!p) return TP_ENOMEM;
    for (size_t i = 0; i < s->part_bytes; i++)
        p[i] = (uint8_t)(i * 31 + 7);
    *bytes = p;
    *n = s->part_bytes;
    return TP_OK;
}

static int on_restore(void *ctx, const char *label, tp_time time, const void *bytes, size_t n,
                      char *why, size_t why_size)
{
    ((struct fed *)ctx)->t = time;
    return TP_OK;
}

static void on_saved(void *ctx, const char *label, int status, const char *detail)
{
    struct fed *s = ctx;
    s->saved = status == TP_OK ? 1 : -1;
    s->saved_at = now_s();
}

static void *run(void *arg)
{
    struct fed *s = arg;
    uint8_t b[8];
    while (s->t < STEPS) {
        tp_encode_float64((double)s->t, b);
        tp_value v = {s->val, b, 8};
        if (tp_update(s->f, s->obj, &v, 1, s->t + 1) != TP_OK ||
            tp_time_advance_request(s->f, s->t + 1) != TP_OK ||
            tp_wait_grant(s->f, &s->t, -1) != TP_OK) {
            fprintf(stderr, "%s: %s\n", s->name, tp_last_error(s->f));
            break;
        }
    }
    return NULL;
}

static int join(struct fed *s, const char *rti, const char *fx, int restore)
{
    tp_callbacks cb = {.save = on_save, .restore = on_restore, .saved = on_saved};
    tp_join_options o = {.rti = rti,
                         .federation = fx,
                         .federate = s->name,
                         .fom_path = "fom/demo.xml",
                         .create = 1,
                         .restore = restore};
    char err[512];
    if (tp_join(&o, &cb, s, &s->f, err, sizeof err) != TP_OK) {
        fprintf(stderr, "join %s: %s\n", s->name, err);
        return -1;
    }
    tp_object_class(s->f, "Signal", &s->cls);
    tp_attribute(s->f, s->cls, "value", &s->val);
    return 0;
}

static void one(int n, size_t part, const char *dir)
{
    char rti[64], err[512], folder[700], label[32];
    snprintf(rti, sizeof rti, "inproc:ckb%d-%zu", n, part);
    snprintf(label, sizeof label, "n%d-p%zu", n, part);
    tp_inproc_options io = {.checkpoint_dir = dir};
    if (tp_inproc_start(rti + 7, &io, err, sizeof err) != TP_OK) {
        fprintf(stderr, "start: %s\n", err);
        return;
    }
    struct fed *fs = calloc((size_t)n, sizeof *fs);
    int ok = fs != NULL;
    for (int i = 0; ok && i < n; i++) {
        struct fed *s = &fs[i];
        snprintf(s->name, sizeof s->name, "f%d", i);
        s->part_bytes = part;
        ok = join(s, rti, "bench", 0) == 0 &&
             tp_publish_object_class(s->f, s->cls, &s->val, 1) == 0 &&
             tp_subscribe_object_class(s->f, s->cls, &s->val, 1) == 0 &&
             tp_enable_regulation(s->f, 1) == 0 && tp_wait_regulation_enabled(s->f, -1) == 0 &&
             tp_enable_constrained(s->f) == 0 && tp_wait_constrained_enabled(s->f, -1) == 0 &&
             tp_register_object(s->f, s->cls, NULL, &s->obj) == 0;
    }
    double t0 = now_s();
    if (ok) ok = tp_request_save(fs[0].f, label, SAVE_AT) == TP_OK;
    pthread_t *th = calloc((size_t)n, sizeof *th);
    for (int i = 0; ok && i < n; i++)
        pthread_create(&th[i], NULL, run, &fs[i]);
    for (int i = 0; ok && i < n; i++)
        pthread_join(th[i], NULL);
    double last = 0, first = 1e300;
    int saved = 0;
    for (int i = 0; i < n; i++) {
        saved += fs && fs[i].saved == 1;
        if (fs && fs[i].saved_at > last) last = fs[i].saved_at;
        if (fs && fs[i].part_at > 0 && fs[i].part_at < first) first = fs[i].part_at;
    }
    for (int i = 0; fs && i < n; i++)
        tp_federate_free(fs[i].f);
    tp_inproc_stop(rti + 7, err, sizeof err);
    snprintf(folder, sizeof folder, "%s/%s", dir, label);
    struct ckpt_reader *r = NULL;
    size_t bytes = 0;
    if (ckpt_open(&r, folder, err, sizeof err) == CKPT_OK) {
        for (size_t i = 0; i < ckpt_nparts(r); i++) {
            const uint8_t *p;
            size_t len;
            if (ckpt_part(r, ckpt_part_name(r, i), &p, &len) == CKPT_OK) bytes += len;
        }
    }
    const uint8_t *rp = NULL;
    size_t rti_len = 0;
    if (r) ckpt_part(r, "rti", &rp, &rti_len);
    ckpt_close(r);
    /* restore and rejoin */
    double r0 = now_s(), r1 = 0;
    if (saved == n && tp_inproc_start(rti + 7, NULL, err, sizeof err) == TP_OK) {
        tp_join_options o = {.rti = rti, .federation = "back"};
        if (tp_restore_federation(&o, folder, err, sizeof err) == TP_OK) {
            for (int i = 0; i < n; i++)
                join(&fs[i], rti, "back", 1);
            r1 = now_s();
        } else {
            fprintf(stderr, "restore: %s\n", err);
        }
        for (int i = 0; i < n; i++)
            tp_federate_free(fs[i].f);
        tp_inproc_stop(rti + 7, err, sizeof err);
    }
    printf("ckpt_bench: %3d federates, part %7zu B: save %s, %7.2f ms from the first part asked "
           "to the last outcome (%7.2f ms from the request, steps included); checkpoint %9zu B "
           "(RTI part %zu B); restore and %d rejoins %7.2f ms\n",
           n, part, saved == n ? "ok" : "FAILED", 1e3 * (last - first), 1e3 * (last - t0), bytes,
           rti_len, n, r1 > 0 ? 1e3 * (r1 - r0) : -1.0);
    free(th);
    free(fs);
}

int main(void)
{
    char dir[512];
    const char *t = getenv("TMPDIR");
    snprintf(dir, sizeof dir, "%s/ckpt_bench.%d", t && *t ? t : "/tmp", (int)getpid());
    one(16, 4096, dir);
    one(16, 1 << 20, dir);
    one(64, 4096, dir);
    one(256, 4096, dir);
    char cmd[600];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
    return system(cmd) == 0 ? 0 : 1;
}
