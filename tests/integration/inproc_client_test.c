/* libtempo's in-process transport ("inproc:", doc/inproc.md) against a closed reference and
 * against the same federation over TCP: N federates, each a thread (or each a task on one
 * thread), exchange a coupled recursion through time-stamped updates; every federate's
 * trajectory must equal, bit for bit, the recursion computed in one plain loop, in process
 * (threads spinning and not, tasks) and through a real bin/tempo-rti. The embedded RTI's
 * federation log must hold every grant, in order. A federate whose embedded RTI stops gets
 * TP_ECLOSED; tasks that all wait for ever are told so; a federate that does not read past
 * the queue limit is dropped with the reason. */
#include <dirent.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "federate/libtempo/tempo.h"
#include "rti/flog/flog.h"
#include "rti/tm/tm.h"
#include "tests/check.h"
#include "tests/integration/rti_proc.h"

#define N_MAX 8
#define K     200 /* steps */
#define FOM   "fom/demo.xml"

/* The recursion: x_i(k) = 0.9 x_i(k-1) + 0.01 (sum over j != i, in index order, of x_j(k-1))
 * + 0.001 i, x_i(0) = i + 1. Each federate sends x_i(k-1) stamped k and reads the others'. */
static double step_of(int i, double xi, const double *others, int n)
{
    double s = 0;
    for (int j = 0; j < n; j++)
        if (j != i) s += others[j];
    return 0.9 * xi + 0.01 * s + 0.001 * i;
}

static void reference(int n, double out[N_MAX][K + 1])
{
    for (int i = 0; i < n; i++)
        out[i][0] = i + 1;
    for (int k = 1; k <= K; k++)
        for (int i = 0; i < n; i++) {
            double prev[N_MAX];
            for (int j = 0; j < n; j++)
                prev[j] = out[j][k - 1];
            out[i][k] = step_of(i, out[i][k - 1], prev, n);
        }
}

struct fed {
    int i, n;
    tp_federate *f;
    tp_handle cls, attr;
    tp_object obj;
    tp_fed handles[N_MAX]; /* handle of federate j */
    double got[N_MAX];     /* values received for the current step, by sender index */
    int n_got, bad;        /* values received this step; 1 if something unexpected came */
    double x[K + 1];       /* trajectory */
    tp_time grants[K + 1];
    int rc; /* first failing status, 0 */
};

static void on_reflect(void *ctx, const tp_reflection *r)
{
    struct fed *d = ctx;
    int j = -1;
    for (int q = 0; q < d->n; q++)
        if (d->handles[q] == r->sender) j = q;
    double v;
    if (j < 0 || r->n_values != 1 || tp_decode_float64(r->values[0].data, r->values[0].size, &v))
        d->bad = 1;
    else
        d->got[j] = v, d->n_got++;
}

static void *run_fed(void *arg)
{
    struct fed *d = arg;
    d->x[0] = d->i + 1;
    for (int k = 1; k <= K && !d->rc; k++) {
        uint8_t b[8];
        tp_encode_float64(d->x[k - 1], b);
        tp_value v = {d->attr, b, 8};
        d->n_got = 0;
        if ((d->rc = tp_update(d->f, d->obj, &v, 1, k)) != TP_OK) break;
        if ((d->rc = tp_time_advance_request(d->f, k)) != TP_OK) break;
        tp_time t = 0;
        if ((d->rc = tp_wait_grant(d->f, &t, 20000)) != TP_OK) break;
        d->grants[k] = t;
        d->got[d->i] = 0;
        if (d->n_got != d->n - 1) d->bad = 1;
        d->x[k] = step_of(d->i, d->x[k - 1], d->got, d->n);
    }
    return NULL;
}

/* Join federate i of n to addr and make it publish, subscribe, register, regulating and
 * constrained. @return 1, or 0 (CHECKed). */
static int setup_fed(const char *addr, const char *fx, int i, int n, struct fed *d)
{
    static const tp_callbacks cb = {.reflect = on_reflect};
    char name[32], err[512];
    snprintf(name, sizeof name, "F%d", i);
    d[i].i = i, d[i].n = n;
    tp_join_options o = {.rti = addr,
                         .federation = fx,
                         .federate = name,
                         .fom_path = FOM,
                         .create = 1,
                         .timeout_ms = 20000};
    int r = tp_join(&o, &cb, &d[i], &d[i].f, err, sizeof err);
    CHECK(r == TP_OK, "join %s to %s: %s", name, addr, err);
    if (r != TP_OK) return 0;
    tp_object_class(d[i].f, "Signal", &d[i].cls);
    tp_attribute(d[i].f, d[i].cls, "value", &d[i].attr);
    int ok = tp_publish_object_class(d[i].f, d[i].cls, &d[i].attr, 1) == TP_OK &&
             tp_subscribe_object_class(d[i].f, d[i].cls, &d[i].attr, 1) == TP_OK &&
             tp_register_object(d[i].f, d[i].cls, name, &d[i].obj) == TP_OK &&
             tp_enable_regulation(d[i].f, 1) == TP_OK &&
             tp_wait_regulation_enabled(d[i].f, 20000) == TP_OK &&
             tp_enable_constrained(d[i].f) == TP_OK &&
             tp_wait_constrained_enabled(d[i].f, 20000) == TP_OK;
    CHECK(ok, "set up %s: %s", name, tp_last_error(d[i].f));
    return ok;
}

/* Join n federates to addr (in this thread, one after the other, so that all are regulating
 * and constrained before any advances), then run each in its own thread. */
static int run_federation(const char *addr, const char *fx, int n, struct fed *d)
{
    memset(d, 0, sizeof *d * (size_t)n);
    for (int i = 0; i < n; i++)
        if (!setup_fed(addr, fx, i, n, d)) return 0;
    for (int i = 0; i < n; i++)
        for (int j = 0; j < n; j++)
            d[i].handles[j] = tp_federate_handle(d[j].f);
    pthread_t th[N_MAX];
    for (int i = 0; i < n; i++)
        pthread_create(&th[i], NULL, run_fed, &d[i]);
    for (int i = 0; i < n; i++)
        pthread_join(th[i], NULL);
    for (int i = 0; i < n; i++) {
        CHECK(d[i].rc == TP_OK, "%s F%d: %s (%s)", addr, i, tp_strerror(d[i].rc),
              tp_last_error(d[i].f));
        CHECK(!d[i].bad, "%s F%d: a step did not receive exactly one value per peer", addr, i);
        CHECK_INT_EQ(tp_resign(d[i].f, TP_DELETE_OBJECTS), TP_OK);
        tp_federate_free(d[i].f);
        d[i].f = NULL;
    }
    return 1;
}

/* The same federation as tasks of an embedded RTI started with .tasks = 1: each task joins
 * and sets its federate up, waits (yielding) until all n are, then runs the recursion and
 * resigns. */
struct task_arg {
    const char *addr, *fx;
    int i, n, *ready, ok;
    struct fed *d;
};

static void fed_task(void *arg)
{
    struct task_arg *a = arg;
    struct fed *d = a->d;
    if (!setup_fed(a->addr, a->fx, a->i, a->n, d)) {
        *a->ready = -1000; /* the others stop waiting and fail */
        return;
    }
    ++*a->ready;
    while (*a->ready >= 0 && *a->ready < a->n)
        tp_inproc_yield();
    if (*a->ready < 0) return;
    for (int j = 0; j < a->n; j++)
        d[a->i].handles[j] = tp_federate_handle(d[j].f);
    run_fed(&d[a->i]);
    a->ok = tp_resign(d[a->i].f, TP_DELETE_OBJECTS) == TP_OK;
}

static int run_federation_tasks(const char *rti, const char *fx, int n, struct fed *d)
{
    memset(d, 0, sizeof *d * (size_t)n);
    struct task_arg a[N_MAX];
    int ready = 0;
    char addr[64], err[512];
    snprintf(addr, sizeof addr, "inproc:%s", rti);
    for (int i = 0; i < n; i++) {
        a[i] = (struct task_arg){addr, fx, i, n, &ready, 0, d};
        CHECK_INT_EQ(tp_inproc_spawn(rti, fed_task, &a[i], err, sizeof err), TP_OK);
    }
    CHECK_INT_EQ(tp_inproc_run(rti, err, sizeof err), TP_OK);
    int ok = ready == n;
    for (int i = 0; i < n; i++) {
        CHECK(d[i].rc == TP_OK, "tasks F%d: %s (%s)", i, tp_strerror(d[i].rc),
              d[i].f ? tp_last_error(d[i].f) : "");
        CHECK(!d[i].bad, "tasks F%d: a step did not receive exactly one value per peer", i);
        CHECK(a[i].ok, "tasks F%d: resign failed", i);
        ok &= a[i].ok;
        tp_federate_free(d[i].f);
        d[i].f = NULL;
    }
    return ok;
}

/* Same bits as the reference, and grants 1, 2, ..., K. */
static void check_against(const char *what, int n, const struct fed *d, double ref[N_MAX][K + 1])
{
    int same = 1, grants = 1;
    for (int i = 0; i < n; i++)
        for (int k = 0; k <= K; k++) {
            if (memcmp(&d[i].x[k], &ref[i][k], sizeof(double)) != 0) same = 0;
            if (k && d[i].grants[k] != k) grants = 0;
        }
    CHECK(same, "%s: N = %d: trajectories differ from the one-loop recursion", what, n);
    CHECK(grants, "%s: N = %d: grants are not 1..%d", what, n, K);
}

/* Every grant of the log: per federate handle, the granted times in log order. */
static void check_log(const char *dir, int n)
{
    DIR *dp = opendir(dir);
    CHECK(dp != NULL, "no log directory %s", dir);
    if (!dp) return;
    char path[1024] = "";
    struct dirent *de;
    while ((de = readdir(dp)))
        if (de->d_name[0] != '.') snprintf(path, sizeof path, "%s/%s", dir, de->d_name);
    closedir(dp);
    FILE *fp = fopen(path, "rb");
    CHECK(fp != NULL, "no federation log in %s", dir);
    if (!fp) return;
    static uint8_t bytes[16 << 20];
    size_t len = fread(bytes, 1, sizeof bytes, fp);
    fclose(fp);
    struct flog_reader r;
    char err[256];
    CHECK_INT_EQ(flog_reader_init(&r, bytes, len, err, sizeof err), FLOG_OK);
    int64_t last[N_MAX + 2] = {0};
    int count = 0, order = 1, rc;
    struct flog_record rec;
    while ((rc = flog_reader_next(&r, &rec, err, sizeof err)) == 1) {
        if (rec.kind != FLOG_K_DECISION || rec.dec.kind != TM_D_GRANT) continue;
        if (rec.fed == 0 || rec.fed > (uint32_t)n) continue;
        if (rec.dec.time != last[rec.fed] + 1) order = 0;
        last[rec.fed] = rec.dec.time;
        count++;
    }
    CHECK(rc == 0, "log %s: %s", path, err);
    CHECK_INT_EQ(count, n * K);
    CHECK(order, "log %s: a federate's grants are not 1, 2, ... in order", path);
}

static void test_inproc_and_tcp(void)
{
    static double ref[N_MAX][K + 1];
    static struct fed d[N_MAX];
    char dir[] = "/tmp/tempo-inproc-XXXXXX";
    CHECK(mkdtemp(dir) != NULL, "mkdtemp");
    tp_inproc_options o = {.log_dir = dir};
    char err[512];
    CHECK_INT_EQ(tp_inproc_start("t1", &o, err, sizeof err), TP_OK);
    CHECK_INT_EQ(tp_inproc_start("t1", &o, err, sizeof err), TP_EEXISTS);
    tp_inproc_options nospin = {.spin_us = -1};
    CHECK_INT_EQ(tp_inproc_start("t2", &nospin, err, sizeof err), TP_OK);
    for (int n = 2; n <= N_MAX; n += 6) {
        reference(n, ref);
        char fx[32];
        snprintf(fx, sizeof fx, "ring%d", n);
        if (run_federation("inproc:t1", fx, n, d)) check_against("inproc (spin)", n, d, ref);
        if (run_federation("inproc:t2", fx, n, d)) check_against("inproc (no spin)", n, d, ref);
        if (run_federation("inproc:", fx, n, d)) check_against("inproc (default RTI)", n, d, ref);
    }
    CHECK_INT_EQ(tp_inproc_stop("t1", err, sizeof err), TP_OK);
    CHECK_INT_EQ(tp_inproc_stop("t1", err, sizeof err), TP_ENOTFOUND);
    CHECK_INT_EQ(tp_inproc_stop("t2", err, sizeof err), TP_OK);
    /* Two federations were logged (N = 2 and 8): check the N = 8 one alone. */
    char sub[600];
    snprintf(sub, sizeof sub, "%s/only8", dir);
    mkdir(sub, 0700);
    tp_inproc_options o8 = {.log_dir = sub, .log_only = "ring8"};
    CHECK_INT_EQ(tp_inproc_start("t3", &o8, err, sizeof err), TP_OK);
    reference(8, ref);
    if (run_federation("inproc:t3", "ring8", 8, d)) check_against("inproc (logged)", 8, d, ref);
    CHECK_INT_EQ(tp_inproc_stop("t3", err, sizeof err), TP_OK);
    check_log(sub, 8);
    /* Tasks on one thread: the same bits, and the same grants in the log. */
    char sub2[600];
    snprintf(sub2, sizeof sub2, "%s/tasks", dir);
    mkdir(sub2, 0700);
    tp_inproc_options ot = {.log_dir = sub2, .log_only = "ring8", .tasks = 1};
    CHECK_INT_EQ(tp_inproc_start("t4", &ot, err, sizeof err), TP_OK);
    for (int n = 2; n <= N_MAX; n += 6) {
        reference(n, ref);
        char fx[32];
        snprintf(fx, sizeof fx, "ring%d", n);
        if (run_federation_tasks("t4", fx, n, d)) check_against("inproc (tasks)", n, d, ref);
    }
    CHECK_INT_EQ(tp_inproc_stop("t4", err, sizeof err), TP_OK);
    check_log(sub2, 8);

    struct rti_proc p;
    if (rti_start(&p, NULL, "inproc_client_test") != 0) {
        CHECK(0, "cannot start bin/tempo-rti");
        return;
    }
    for (int n = 2; n <= N_MAX; n += 6) {
        reference(n, ref);
        char fx[32];
        snprintf(fx, sizeof fx, "ring%d", n);
        if (run_federation(p.addr, fx, n, d)) check_against("tcp", n, d, ref);
    }
    rti_stop(&p, 5000);
}

/* Each embedded RTI's own log lines go to its own callback, at its own level, and nowhere else
 * (tp_inproc_options.log is per RTI: a second start with another callback does not take the
 * first RTI's lines, and an RTI without one gives its lines to nobody). */
struct log_buf {
    char text[8192];
    int max_level; /* most verbose level received */
};
static void on_rti_log(void *ctx, tp_log_level lv, const char *line)
{
    struct log_buf *b = ctx;
    size_t n = strlen(b->text);
    if ((int)lv > b->max_level) b->max_level = (int)lv;
    if (n + strlen(line) + 2 < sizeof b->text)
        snprintf(b->text + n, sizeof b->text - n, "%s\n", line);
}

/* Join federation fx of inproc:rti as name, then resign. */
static void join_resign(const char *rti, const char *fx, const char *name)
{
    char err[512], addr[64];
    snprintf(addr, sizeof addr, "inproc:%s", rti);
    tp_join_options j = {
        .rti = addr, .federation = fx, .federate = name, .fom_path = FOM, .create = 1};
    tp_federate *f = NULL;
    CHECK_INT_EQ(tp_join(&j, NULL, NULL, &f, err, sizeof err), TP_OK);
    if (f) CHECK_INT_EQ(tp_resign(f, TP_DELETE_OBJECTS), TP_OK);
    tp_federate_free(f);
}

static void test_rti_log_callback(void)
{
    static struct log_buf talk, hush;
    char err[512];
    tp_inproc_options ot = {.log = on_rti_log, .log_ctx = &talk, .log_level = TP_LOG_INFO};
    tp_inproc_options oh = {.log = on_rti_log, .log_ctx = &hush, .log_level = TP_LOG_ERROR};
    talk.max_level = hush.max_level = -1;
    CHECK_INT_EQ(tp_inproc_start("talk", &ot, err, sizeof err), TP_OK);
    CHECK_INT_EQ(tp_inproc_start("hush", &oh, err, sizeof err), TP_OK);
    CHECK_INT_EQ(tp_inproc_start("mute", NULL, err, sizeof err), TP_OK);
    join_resign("talk", "chat", "Ann");
    join_resign("hush", "quiet", "Bob");
    join_resign("mute", "none", "Cid");
    CHECK_INT_EQ(tp_inproc_stop("talk", err, sizeof err), TP_OK);
    CHECK_INT_EQ(tp_inproc_stop("hush", err, sizeof err), TP_OK);
    CHECK_INT_EQ(tp_inproc_stop("mute", err, sizeof err), TP_OK);
    CHECK_STR_HAS(talk.text, "Ann@chat");
    CHECK_STR_HAS(talk.text, "joined federation 'chat'");
    CHECK(talk.max_level == TP_LOG_INFO, "talk got level %d, want info", talk.max_level);
    CHECK(!strstr(talk.text, "Bob") && !strstr(talk.text, "Cid"), "talk got another RTI's lines");
    /* hush logs errors only, and a join and a resign are none */
    CHECK(hush.text[0] == '\0', "hush (errors only) got: %.200s", hush.text);
}

/* An embedded RTI that stops under a joined federate: its next wait fails with TP_ECLOSED
 * and names the reason. */
static void test_stop_closes(void)
{
    char err[512];
    CHECK_INT_EQ(tp_inproc_start("gone", NULL, err, sizeof err), TP_OK);
    tp_join_options o = {
        .rti = "inproc:gone", .federation = "x", .federate = "A", .fom_path = FOM, .create = 1};
    tp_federate *f = NULL;
    CHECK_INT_EQ(tp_join(&o, NULL, NULL, &f, err, sizeof err), TP_OK);
    CHECK_INT_EQ(tp_fileno(f), -1);
    CHECK_INT_EQ(tp_inproc_stop("gone", err, sizeof err), TP_OK);
    CHECK_INT_EQ(tp_evoke(f, 1000), TP_ECLOSED);
    CHECK_STR_HAS(tp_last_error(f), "RTI shutting down");
    tp_federate_free(f);
    /* A name too long is refused with its reason. */
    char longname[300];
    memset(longname, 'a', sizeof longname - 1);
    longname[sizeof longname - 1] = 0;
    CHECK_INT_EQ(tp_inproc_start(longname, NULL, err, sizeof err), TP_EINVAL);
    CHECK_STR_HAS(err, "longer than");
}

/* Task mode's refusals, and two tasks that wait for ever: one has asked for a grant that
 * the other (regulating, never advancing) holds back, the other waits for a message with no
 * time limit. Nothing can wake either: both are told, and tp_inproc_run returns. */
static int g_dead_rc[2];
static char g_dead_err[2][512];

static void dead_task(void *arg)
{
    int i = (int)(intptr_t)arg;
    char err[512], name[8];
    snprintf(name, sizeof name, "D%d", i);
    tp_join_options o = {
        .rti = "inproc:dead", .federation = "dl", .federate = name, .fom_path = FOM, .create = 1};
    tp_federate *f = NULL;
    g_dead_rc[i] = tp_join(&o, NULL, NULL, &f, err, sizeof err);
    if (g_dead_rc[i] != TP_OK) {
        snprintf(g_dead_err[i], sizeof g_dead_err[i], "%s", err);
        return;
    }
    tp_enable_regulation(f, 1);
    tp_wait_regulation_enabled(f, 5000);
    tp_enable_constrained(f);
    tp_wait_constrained_enabled(f, 5000);
    if (i == 0) {
        tp_inproc_yield(); /* both regulating before D0 asks */
        tp_time_advance_request(f, 5);
        tp_time g;
        g_dead_rc[i] = tp_wait_grant(f, &g, -1);
    } else {
        g_dead_rc[i] = tp_evoke(f, -1);
        while (g_dead_rc[i] >= 0)
            g_dead_rc[i] = tp_evoke(f, -1);
    }
    snprintf(g_dead_err[i], sizeof g_dead_err[i], "%s", tp_last_error(f));
    tp_federate_free(f);
}

static void test_tasks(void)
{
    char err[512];
    tp_inproc_options t = {.tasks = 1};
    CHECK_INT_EQ(tp_inproc_start("dead", &t, err, sizeof err), TP_OK);
    /* a join outside its tasks is refused, naming the way */
    tp_join_options o = {
        .rti = "inproc:dead", .federation = "dl", .federate = "X", .fom_path = FOM, .create = 1};
    tp_federate *f = NULL;
    CHECK(tp_join(&o, NULL, NULL, &f, err, sizeof err) != TP_OK, "join outside a task");
    CHECK_STR_HAS(err, "tp_inproc_spawn");
    for (intptr_t i = 0; i < 2; i++)
        CHECK_INT_EQ(tp_inproc_spawn("dead", dead_task, (void *)i, err, sizeof err), TP_OK);
    CHECK_INT_EQ(tp_inproc_run("dead", err, sizeof err), TP_OK);
    for (int i = 0; i < 2; i++) {
        CHECK_INT_EQ(g_dead_rc[i], TP_ECLOSED);
        CHECK_STR_HAS(g_dead_err[i], "deadlock");
    }
    CHECK_INT_EQ(tp_inproc_stop("dead", err, sizeof err), TP_OK);
    /* refusals: spawn into a thread-mode RTI, run an unknown one, tp_inproc_yield outside */
    CHECK_INT_EQ(tp_inproc_start("thr", NULL, err, sizeof err), TP_OK);
    CHECK_INT_EQ(tp_inproc_spawn("thr", dead_task, NULL, err, sizeof err), TP_ESTATE);
    CHECK_STR_HAS(err, "threads");
    CHECK_INT_EQ(tp_inproc_run("thr", err, sizeof err), TP_ESTATE);
    CHECK_INT_EQ(tp_inproc_stop("thr", err, sizeof err), TP_OK);
    CHECK_INT_EQ(tp_inproc_run("nosuch", err, sizeof err), TP_ENOTFOUND);
    CHECK_INT_EQ(tp_inproc_yield(), 0);
}

/* A federate that does not read while 1 MB updates pile up for it: past the queue limit
 * (64 MiB, tempo-rti's --max-queued-bytes default) the embedded RTI drops it, and its next
 * call fails with TP_ECLOSED naming the limit: a refusal, never a silent loss. The sender
 * goes on. */
static int g_big_reflects;
static void on_big(void *ctx, const tp_reflection *r)
{
    (void)ctx, (void)r;
    g_big_reflects++;
}

static void test_queue_limit(void)
{
    static const tp_callbacks cbq = {.reflect = on_big};
    char err[512];
    CHECK_INT_EQ(tp_inproc_start("full", NULL, err, sizeof err), TP_OK);
    tp_federate *f[2] = {NULL, NULL};
    tp_handle cls[2], attr[2];
    tp_object obj = 0;
    for (int i = 0; i < 2; i++) {
        tp_join_options o = {.rti = "inproc:full",
                             .federation = "q",
                             .federate = i ? "Reader" : "Writer",
                             .fom_path = FOM,
                             .create = 1};
        CHECK_INT_EQ(tp_join(&o, &cbq, NULL, &f[i], err, sizeof err), TP_OK);
        if (!f[i]) return;
        tp_object_class(f[i], "Signal", &cls[i]);
        tp_attribute(f[i], cls[i], "history", &attr[i]); /* float64[] */
    }
    CHECK_INT_EQ(tp_subscribe_object_class(f[1], cls[1], &attr[1], 1), TP_OK);
    CHECK_INT_EQ(tp_flush(f[1]), TP_OK); /* the RTI knows the subscription before any update */
    CHECK_INT_EQ(tp_publish_object_class(f[0], cls[0], &attr[0], 1), TP_OK);
    CHECK_INT_EQ(tp_register_object(f[0], cls[0], "big", &obj), TP_OK);
    static uint8_t big[1000000]; /* under the 1 MiB frame limit */
    tp_value v = {attr[0], big, sizeof big};
    int sent = 0, rc = TP_OK;
    for (; sent < 80 && rc == TP_OK; sent++) {
        rc = tp_update(f[0], obj, &v, 1, TP_NO_TIME);
        if (rc == TP_OK) rc = tp_flush(f[0]);
    }
    CHECK(rc == TP_OK, "writer: update %d: %s", sent, tp_last_error(f[0])); /* not dropped */
    int r = TP_OK;
    for (int k = 0; k < 100 && r >= 0; k++)
        r = tp_evoke(f[1], 100);
    CHECK_INT_EQ(r, TP_ECLOSED);
    /* what it had not read when the RTI dropped it is not delivered: fewer than sent */
    CHECK(g_big_reflects < sent, "%d reflections of %d updates", g_big_reflects, sent);
    CHECK_STR_HAS(tp_last_error(f[1]), "output limit");
    tp_federate_free(f[1]);
    CHECK_INT_EQ(tp_resign(f[0], TP_DELETE_OBJECTS), TP_OK);
    tp_federate_free(f[0]);
    CHECK_INT_EQ(tp_inproc_stop("full", err, sizeof err), TP_OK);
}

int main(void)
{
    rti_watchdog(240);
    test_stop_closes();
    test_rti_log_callback();
    test_tasks();
    test_queue_limit();
    test_inproc_and_tcp();
    return check_summary();
}
