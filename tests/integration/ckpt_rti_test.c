/* Checkpoints of a whole federation over the real RTI (doc/checkpoint.md): three federates in
 * threads run a random but seeded script (updates and interactions stamped ahead of their
 * bound, TAR or NER to the next point of a common grid); a federate requests a save at T.
 *  1. a run with the save gives the same grants and deliveries as one without;
 *  2. the RTI is killed (SIGKILL) after the save, the federates lose it; a new RTI restores the
 *     checkpoint, the federates rejoin under their names and get their parts: from T on, the
 *     same grants and deliveries as the run that never stopped, and the same handles;
 *  3. the same in process (tp_inproc_options.checkpoint_dir), and across: a checkpoint made
 *     over TCP resumes in process, one made in process resumes over TCP;
 *  4. a federate whose save callback fails, or that has none, makes the save fail naming it;
 *     the federation goes on with the same results;
 *  5. a damaged or foreign checkpoint is refused naming the file, and nothing is created.
 * The federates of one run join one after the other from the main thread, so that handles
 * and the setup's frames do not depend on thread timing. */
#include <pthread.h>
#include <stdarg.h>
#include <sys/stat.h>

#include "rti/proto/ckpt.h"
#include "tests/integration/client_harness.h"

#define NF       4   /* F0..F2 run the script; F3 manages no time and only listens */
#define MON      3   /* the listener */
#define STEP     10  /* ticks between the grid points every request aims at */
#define END      400 /* the scripts stop here */
#define SAVE_AT  200 /* the save time: a grid point */
#define WAIT_MS  100 /* tp_wait_grant's slice: a stopping thread notices within it */
#define FOM_PATH "fom/demo.xml"

struct fed {
    int idx;
    char name[16];
    tp_federate *f;
    tp_handle cls, val, ic, gain;
    tp_object obj;
    tp_time t, L;
    uint64_t rng;
    char *log; /* what it saw: grants, reflections, interactions, discoveries */
    size_t len, cap;
    size_t cut; /* log length when it saved its part */
    char *ro;   /* the receive-order interactions it received (from F2 only: their
                   order is F2's send order, whatever the threads do) */
    size_t ro_len, ro_cap, ro_cut;
    int save_mode;     /* 0 saves, 1 fails with a reason, 2 has no save callback */
    int saved_status;  /* outcome of the save */
    int saved_calls;   /* how many outcomes came */
    char detail[1024]; /* the outcome's detail */
    int err;           /* a call failed */
    char errtext[512];
    volatile int *stop; /* set by the main thread: leave the loop (simulated crash) */
};

static void append(char **log, size_t *len, size_t *cap, const char *line, size_t n)
{
    if (*len + n + 1 > *cap) {
        *cap = (*cap + n + 1) * 2;
        *log = realloc(*log, *cap);
    }
    memcpy(*log + *len, line, n + 1);
    *len += n;
}

static void logf_(struct fed *s, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void logf_(struct fed *s, const char *fmt, ...)
{
    char line[256];
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(line, sizeof line, fmt, ap);
    va_end(ap);
    if (n > 0) append(&s->log, &s->len, &s->cap, line, (size_t)n);
}

static uint64_t rnd(struct fed *s)
{
    s->rng ^= s->rng << 13;
    s->rng ^= s->rng >> 7;
    s->rng ^= s->rng << 17;
    return s->rng;
}

/* ---- callbacks ----------------------------------------------------------------------------- */

static void on_grant(void *ctx, tp_time t)
{
    struct fed *s = ctx;
    s->t = t;
    logf_(s, "G %lld\n", (long long)t);
}

static void on_reflect(void *ctx, const tp_reflection *r)
{
    struct fed *s = ctx;
    double x = 0;
    for (size_t i = 0; i < r->n_values; i++)
        tp_decode_float64(r->values[i].data, r->values[i].size, &x);
    logf_(s, "R %llu t=%lld from=%u %s x=%.17g\n", (unsigned long long)r->object,
          (long long)r->time, r->sender, r->order == TP_TIMESTAMP_ORDER ? "TSO" : "RO", x);
}

static void on_receive(void *ctx, const tp_interaction *i)
{
    struct fed *s = ctx;
    double g = 0;
    for (size_t k = 0; k < i->n_params; k++)
        tp_decode_float64(i->params[k].data, i->params[k].size, &g);
    if (s->idx == MON && i->sender != 3) return; /* F2 (handle 3) alone: one send order */
    if (i->order == TP_RECEIVE_ORDER) {
        char line[128];
        int n = snprintf(line, sizeof line, "RO from=%u g=%.17g\n", i->sender, g);
        append(&s->ro, &s->ro_len, &s->ro_cap, line, (size_t)n);
        return;
    }
    logf_(s, "I t=%lld from=%u TSO g=%.17g\n", (long long)i->time, i->sender, g);
}

static void on_discover(void *ctx, tp_object o, tp_handle cls, const char *name, tp_fed owner)
{
    struct fed *s = ctx;
    logf_(s, "D %llu %u %s %u\n", (unsigned long long)o, cls, name, owner);
}

/* The part: what the program needs to go on from where it is. */
struct part {
    int64_t t;
    uint64_t rng, obj;
    uint64_t cut, ro_cut;
};

static int on_save(void *ctx, const char *label, tp_time time, void **bytes, size_t *n, char *why,
                   size_t why_size)
{
    struct fed *s = ctx;
    if (s->save_mode == 1) {
        snprintf(why, why_size, "disk of %s is full (test)", s->name);
        return TP_ESYS;
    }
    struct part *p = malloc(sizeof *p);
    if (!p) return TP_ENOMEM;
    *p = (struct part){time, s->rng, s->obj, s->len, s->ro_len};
    s->cut = s->len;
    s->ro_cut = s->ro_len;
    *bytes = p;
    *n = sizeof *p;
    (void)label;
    return TP_OK;
}

static int on_restore(void *ctx, const char *label, tp_time time, const void *bytes, size_t n,
                      char *why, size_t why_size)
{
    struct fed *s = ctx;
    if (n != sizeof(struct part)) {
        snprintf(why, why_size, "part of %zu bytes, expected %zu", n, sizeof(struct part));
        return TP_EINVAL;
    }
    struct part p;
    memcpy(&p, bytes, n);
    s->t = p.t;
    s->rng = p.rng;
    s->obj = p.obj;
    (void)label;
    (void)time;
    return TP_OK;
}

static void on_saved(void *ctx, const char *label, int status, const char *detail)
{
    struct fed *s = ctx;
    s->saved_status = status;
    s->saved_calls++;
    snprintf(s->detail, sizeof s->detail, "%s", detail);
    (void)label;
}

static tp_callbacks callbacks(const struct fed *s)
{
    tp_callbacks cb = {.grant = on_grant,
                       .reflect = on_reflect,
                       .receive = on_receive,
                       .discover = on_discover,
                       .save = s->save_mode == 2 ? NULL : on_save,
                       .restore = on_restore,
                       .saved = on_saved};
    return cb;
}

/* ---- one run ------------------------------------------------------------------------------- */

static int fail(struct fed *s, const char *what, int rc)
{
    s->err = 1;
    snprintf(s->errtext, sizeof s->errtext, "%s: %s: %s", what, tp_strerror(rc),
             tp_last_error(s->f));
    return rc;
}

/* The script: sends stamped ahead of the bound, then TAR or NER to the next grid point. */
static void *run(void *arg)
{
    struct fed *s = arg;
    while (s->t < END && !*s->stop) {
        double x = (double)(rnd(s) % 1000) / 7.0;
        uint8_t b[8];
        tp_encode_float64(x, b);
        tp_value v = {s->val, b, 8};
        int rc = tp_update(s->f, s->obj, &v, 1, s->t + s->L + 1 + (tp_time)(rnd(s) % 7));
        if (rc != TP_OK) return fail(s, "update", rc), NULL;
        if (rnd(s) % 2) {
            tp_encode_float64(x * 2, b);
            tp_value p = {s->gain, b, 8};
            rc = tp_send_interaction(s->f, s->ic, &p, 1, s->t + s->L + 1 + (tp_time)(rnd(s) % 5));
            if (rc != TP_OK) return fail(s, "interaction", rc), NULL;
        }
        if (s->idx == 2) { /* a receive-order interaction: its receivers may be held */
            tp_encode_float64(x + 0.5, b);
            tp_value p = {s->gain, b, 8};
            rc = tp_send_interaction(s->f, s->ic, &p, 1, TP_NO_TIME);
            if (rc != TP_OK) return fail(s, "RO interaction", rc), NULL;
        }
        tp_time next = (s->t / STEP + 1) * STEP;
        rc = rnd(s) % 2 ? tp_next_event_request(s->f, next) : tp_time_advance_request(s->f, next);
        if (rc != TP_OK) return fail(s, "request", rc), NULL;
        do
            rc = tp_wait_grant(s->f, NULL, WAIT_MS);
        while (rc == TP_TIMEOUT && !*s->stop);
        if (rc != TP_OK && rc != TP_TIMEOUT) return fail(s, "wait", rc), NULL;
    }
    return NULL;
}

/* The listener: evokes until told to stop, then takes what is still on its way. It is asked
 * for its part at once (it manages no time) and held while the others reach the save time:
 * what F2 sends it meanwhile waits at the RTI (doc/checkpoint.md "The cut"). */
static volatile int mon_stop;

static void *run_monitor(void *arg)
{
    struct fed *s = arg;
    while (!*s->stop && !mon_stop) {
        int rc = tp_evoke(s->f, WAIT_MS);
        if (rc < 0) return fail(s, "evoke", rc), NULL;
    }
    if (*s->stop) return NULL;
    while (tp_evoke(s->f, 300) > 0)
        ;
    return NULL;
}

static void fed_init(struct fed *s, int i, volatile int *stop)
{
    free(s->log);
    free(s->ro);
    memset(s, 0, sizeof *s);
    s->idx = i;
    snprintf(s->name, sizeof s->name, "F%d", i);
    s->rng = 0x9e3779b97f4a7c15ull * (uint64_t)(i + 1);
    s->L = i == 0 ? 0 : 2 * i; /* zero lookahead too */
    s->stop = stop;
}

static int handles(struct fed *s)
{
    return tp_object_class(s->f, "Signal", &s->cls) ||
           tp_attribute(s->f, s->cls, "value", &s->val) ||
           tp_interaction_class(s->f, "Command", &s->ic) ||
           tp_parameter(s->f, s->ic, "gain", &s->gain);
}

/* Join, declare, enable, register: one federate after the other. */
static int setup(struct fed *fs, const char *rti, const char *federation)
{
    for (int i = 0; i < NF; i++) {
        struct fed *s = &fs[i];
        tp_callbacks cb = callbacks(s);
        tp_join_options o = {.rti = rti,
                             .federation = federation,
                             .federate = s->name,
                             .fom_path = FOM_PATH,
                             .create = 1,
                             .timeout_ms = 10000};
        char err[512] = "";
        int rc = tp_join(&o, &cb, s, &s->f, err, sizeof err);
        CHECK(rc == TP_OK, "join %s: %s", s->name, err);
        if (rc != TP_OK || handles(s)) return -1;
        if (i == MON) {
            /* the query's round trip: the RTI has the subscription before anyone sends */
            tp_time lits;
            rc = tp_subscribe_interaction_class(s->f, s->ic);
            if (!rc) rc = tp_query_lits(s->f, &lits);
            CHECK(rc == TP_OK, "setup %s", s->name);
            continue;
        }
        rc = tp_publish_object_class(s->f, s->cls, &s->val, 1);
        if (!rc) rc = tp_subscribe_object_class(s->f, s->cls, &s->val, 1);
        if (!rc) rc = tp_publish_interaction_class(s->f, s->ic);
        if (!rc) rc = tp_subscribe_interaction_class(s->f, s->ic);
        if (!rc) rc = tp_enable_regulation(s->f, s->L);
        if (!rc) rc = tp_wait_regulation_enabled(s->f, 5000);
        if (!rc) rc = tp_enable_constrained(s->f);
        if (!rc) rc = tp_wait_constrained_enabled(s->f, 5000);
        CHECK(rc == TP_OK, "setup %s: %s %s", s->name, tp_strerror(rc), tp_last_error(s->f));
        if (rc) return -1;
    }
    for (int i = 0; i < MON; i++) {
        char oname[32];
        snprintf(oname, sizeof oname, "sig-%s", fs[i].name);
        int rc = tp_register_object(fs[i].f, fs[i].cls, oname, &fs[i].obj);
        CHECK(rc == TP_OK, "register %s", fs[i].name);
        if (rc) return -1;
    }
    return 0;
}

/* Rejoin every federate of a restored federation under its name (its part comes back). */
static int rejoin(struct fed *fs, const char *rti, const char *federation)
{
    for (int i = 0; i < NF; i++) {
        struct fed *s = &fs[i];
        tp_callbacks cb = callbacks(s);
        tp_join_options o = {.rti = rti,
                             .federation = federation,
                             .federate = s->name,
                             .fom_path = FOM_PATH,
                             .restore = 1,
                             .timeout_ms = 10000};
        char err[512] = "";
        int rc = tp_join(&o, &cb, s, &s->f, err, sizeof err);
        CHECK(rc == TP_OK, "rejoin %s: %s", s->name, err);
        if (rc != TP_OK || handles(s)) return -1;
    }
    return 0;
}

static void run_threads(struct fed *fs)
{
    pthread_t th[NF];
    mon_stop = 0;
    for (int i = 0; i < NF; i++)
        pthread_create(&th[i], NULL, i == MON ? run_monitor : run, &fs[i]);
    for (int i = 0; i < MON; i++)
        pthread_join(th[i], NULL);
    mon_stop = 1;
    pthread_join(th[MON], NULL);
    for (int i = 0; i < NF; i++)
        CHECK(!fs[i].err, "%s: %s", fs[i].name, fs[i].errtext);
}

/* Threads that stop (as if killed) once every federate has the save's outcome and the
 * federation moved on a little: what a crash after a checkpoint leaves. */
struct crash {
    struct fed *fs;
    volatile int *stop;
};

static void *crash_watch(void *arg)
{
    struct crash *c = arg;
    int64_t end = harness_ms() + 30000;
    for (;;) {
        int all = 1;
        for (int i = 0; i < NF; i++)
            all &= c->fs[i].saved_calls == 1 && (i == MON || c->fs[i].t >= SAVE_AT + 3 * STEP);
        if (all || harness_ms() > end) break;
        struct timespec ts = {0, 2000000};
        nanosleep(&ts, NULL);
    }
    *c->stop = 1;
    return NULL;
}

static void free_feds(struct fed *fs, int resign)
{
    for (int i = 0; i < NF; i++) {
        if (resign && fs[i].f) tp_resign(fs[i].f, TP_DELETE_OBJECTS);
        tp_federate_free(fs[i].f);
        fs[i].f = NULL;
    }
}

/* ---- the cases ----------------------------------------------------------------------------- */

static void rm_rf(const char *dir);

static struct fed ref[NF]; /* the run without a save: the reference */
static char tmp[512];      /* this test's folder */

static void reference(void)
{
    static volatile int no;
    const char *const extra[] = {NULL};
    const char *rti = harness_start_rti(extra, 240);
    for (int i = 0; i < NF; i++)
        fed_init(&ref[i], i, &no);
    if (rti && setup(ref, rti, "ck") == 0) run_threads(ref);
    free_feds(ref, 1);
    harness_stop_rti();
    for (int i = 0; i < MON; i++)
        CHECK(ref[i].t >= END, "%s reached %lld", ref[i].name, (long long)ref[i].t);
    CHECK(ref[MON].ro_len > 0, "the listener heard F2");
}

/* Run a save at SAVE_AT to the end: same logs as the reference; every federate gets the
 * outcome. mode[i]: each federate's save_mode. */
static void save_and_go_on(const char *label, const int *mode, int want_status)
{
    static volatile int no;
    char dir[600];
    snprintf(dir, sizeof dir, "%s/%s-dir", tmp, label);
    const char *const extra[] = {"--checkpoint-dir", dir, NULL};
    struct fed fs[NF] = {0};
    const char *rti = harness_start_rti(extra, 240);
    for (int i = 0; i < NF; i++) {
        fed_init(&fs[i], i, &no);
        fs[i].save_mode = mode[i];
    }
    if (rti && setup(fs, rti, "ck") == 0) {
        CHECK_INT_EQ(tp_request_save(fs[1].f, label, SAVE_AT), TP_OK);
        run_threads(fs);
    }
    for (int i = 0; i < NF; i++) {
        CHECK(fs[i].len == ref[i].len && memcmp(fs[i].log, ref[i].log, ref[i].len) == 0,
              "%s (save %s): the run with the save saw what the reference saw", fs[i].name, label);
        CHECK(fs[i].ro_len == ref[i].ro_len && memcmp(fs[i].ro, ref[i].ro, ref[i].ro_len) == 0,
              "%s (save %s): the same receive-order interactions", fs[i].name, label);
        CHECK_INT_EQ(fs[i].saved_calls, 1);
        CHECK_INT_EQ(fs[i].saved_status, want_status);
    }
    if (want_status == TP_OK) {
        char folder[700];
        snprintf(folder, sizeof folder, "%s/%s", dir, label);
        CHECK_STR_EQ(fs[0].detail, folder);
        struct ckpt_reader *r = NULL;
        char err[CKPT_ERR_LEN];
        CHECK_INT_EQ(ckpt_open(&r, folder, err, sizeof err), CKPT_OK);
        if (r) {
            CHECK_INT_EQ(ckpt_time(r), SAVE_AT);
            CHECK_STR_EQ(ckpt_label(r), label);
            CHECK_INT_EQ(ckpt_nparts(r), NF + 1);
            const uint8_t *p;
            size_t n;
            CHECK_INT_EQ(ckpt_part(r, "fed-F2", &p, &n), CKPT_OK);
        }
        ckpt_close(r);
    } else {
        for (int i = 0; i < NF; i++) {
            if (mode[i] == 1) CHECK_STR_HAS(fs[0].detail, "'F1': disk of F1 is full (test)");
            if (mode[i] == 2)
                CHECK_STR_HAS(fs[0].detail, "\"F2\" cannot save: it has no save callback");
        }
        char folder[700];
        struct stat sb;
        snprintf(folder, sizeof folder, "%s/%s", dir, label);
        CHECK(stat(folder, &sb) != 0, "a failed save leaves no folder %s", folder);
    }
    free_feds(fs, 1);
    harness_stop_rti();
    for (int i = 0; i < NF; i++) {
        free(fs[i].log);
        free(fs[i].ro);
    }
}

/* Make a checkpoint `label` into dir with a run that dies after it: over TCP (inproc NULL:
 * the RTI gets SIGKILL) or in process (the federates stop, the RTI is stopped). The cuts of
 * the logs go to cut[]. */
static void crashing_run(const char *label, const char *dir, const char *inproc, size_t *cut,
                         size_t *ro_cut)
{
    static volatile int stop;
    stop = 0;
    struct fed fs[NF] = {0};
    const char *rti = inproc;
    if (!inproc) {
        const char *const extra[] = {"--checkpoint-dir", dir, NULL};
        rti = harness_start_rti(extra, 240);
    } else {
        tp_inproc_options io = {.checkpoint_dir = dir};
        char err[300];
        CHECK_INT_EQ(tp_inproc_start(inproc + strlen("inproc:"), &io, err, sizeof err), TP_OK);
    }
    for (int i = 0; i < NF; i++)
        fed_init(&fs[i], i, &stop);
    if (rti && setup(fs, rti, "ck") == 0) {
        CHECK_INT_EQ(tp_request_save(fs[0].f, label, SAVE_AT), TP_OK);
        struct crash c = {fs, &stop};
        pthread_t w;
        pthread_create(&w, NULL, crash_watch, &c);
        pthread_t th[NF];
        for (int i = 0; i < NF; i++)
            pthread_create(&th[i], NULL, i == MON ? run_monitor : run, &fs[i]);
        pthread_join(w, NULL);
        if (!inproc) harness_kill_rti(); /* kill -9 while the federates wait in their calls */
        for (int i = 0; i < NF; i++)
            pthread_join(th[i], NULL);
    }
    for (int i = 0; i < NF; i++) {
        CHECK(fs[i].saved_calls == 1 && fs[i].saved_status == TP_OK, "%s: save %s: %s", fs[i].name,
              label, fs[i].detail);
        cut[i] = fs[i].cut;
        ro_cut[i] = fs[i].ro_cut;
        CHECK(fs[i].cut <= ref[i].len && memcmp(fs[i].log, ref[i].log, fs[i].cut) == 0,
              "%s: up to the save, the crashing run saw what the reference saw", fs[i].name);
    }
    if (inproc) {
        char err[300];
        tp_inproc_stop(inproc + strlen("inproc:"), err, sizeof err);
    }
    free_feds(fs, 0);
    for (int i = 0; i < NF; i++) {
        free(fs[i].log);
        free(fs[i].ro);
    }
}

/* Restore folder into a new RTI (over TCP, or in process when inproc is set), rejoin, run to
 * the end: from the save on, the logs are the reference's. */
static void resume(const char *folder, const char *inproc, const size_t *cut, const size_t *ro_cut,
                   const char *what)
{
    static volatile int no;
    struct fed fs[NF] = {0};
    const char *rti = inproc;
    char logdir[700];
    snprintf(logdir, sizeof logdir, "%s/log-%s", tmp, inproc ? inproc + strlen("inproc:") : "tcp");
    if (!inproc) {
        const char *const extra[] = {"--log", logdir, NULL};
        rti = harness_start_rti(extra, 240);
    } else {
        char err[300];
        CHECK_INT_EQ(tp_inproc_start(inproc + strlen("inproc:"), NULL, err, sizeof err), TP_OK);
    }
    for (int i = 0; i < NF; i++)
        fed_init(&fs[i], i, &no);
    tp_join_options o = {.rti = rti, .federation = "ck2", .timeout_ms = 10000};
    char err[1024] = "";
    int rc = rti ? tp_restore_federation(&o, folder, err, sizeof err) : TP_EINVAL;
    CHECK(rc == TP_OK, "%s: restore %s: %s %s", what, folder, tp_strerror(rc), err);
    if (rc == TP_OK && rejoin(fs, rti, "ck2") == 0) {
        for (int i = 0; i < NF; i++) {
            CHECK_INT_EQ(tp_federate_handle(fs[i].f), i + 1); /* the saved handles */
            CHECK_INT_EQ(fs[i].t, i == MON ? 0 : SAVE_AT);
        }
        run_threads(fs);
        for (int i = 0; i < NF; i++)
            CHECK(fs[i].len == ref[i].len - cut[i] &&
                      memcmp(fs[i].log, ref[i].log + cut[i], fs[i].len) == 0,
                  "%s: %s: after the save, the resumed run saw what the reference saw "
                  "(%zu bytes against %zu)",
                  fs[i].name, what, fs[i].len, ref[i].len - cut[i]);
        for (int i = 0; i < NF; i++)
            CHECK(fs[i].ro_len == ref[i].ro_len - ro_cut[i] &&
                      memcmp(fs[i].ro, ref[i].ro + ro_cut[i], fs[i].ro_len) == 0,
                  "%s: %s: after the save, the same receive-order interactions (%zu bytes "
                  "against %zu)",
                  fs[i].name, what, fs[i].ro_len, ref[i].ro_len - ro_cut[i]);
    }
    free_feds(fs, 1);
    if (inproc)
        tp_inproc_stop(inproc + strlen("inproc:"), err, sizeof err);
    else
        harness_stop_rti();
    if (!inproc) { /* the restored federation's log: explain starts from the restored state */
        char cmd[1600], out[4096] = "";
        snprintf(cmd, sizeof cmd, "bin/tempo-log explain %s/ck2-*.tlog 2>&1", logdir);
        FILE *p = popen(cmd, "r");
        size_t n = p ? fread(out, 1, sizeof out - 1, p) : 0;
        out[n] = '\0';
        int st = p ? pclose(p) : -1;
        CHECK(st == 0, "%s: exit %d: %s", cmd, st, out);
        CHECK_STR_HAS(out, "(they agree)");
        CHECK(!strstr(out, "refused"), "explain re-ran the log without a refusal: %s", out);
        snprintf(cmd, sizeof cmd, "bin/tempo-log explain %s/ck2-*.tlog --at 600 2>&1", logdir);
        p = popen(cmd, "r");
        n = p ? fread(out, 1, sizeof out - 1, p) : 0;
        out[n] = '\0';
        st = p ? pclose(p) : -1;
        CHECK(st == 0, "%s: exit %d: %s", cmd, st, out);
        /* mid-run, the federates regulate and are constrained as they were when saved */
        CHECK_STR_HAS(out, "reg con, bound");
        CHECK_STR_HAS(out, "(they agree)");
        rm_rf(logdir);
    }
    for (int i = 0; i < NF; i++) {
        free(fs[i].log);
        free(fs[i].ro);
    }
}

static void rm_rf(const char *dir)
{
    char cmd[800];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
    if (system(cmd) != 0) fprintf(stderr, "could not remove %s\n", dir);
}

static void test_crash_and_resume(void)
{
    char dir[600], folder[700];
    size_t cut[NF], ro_cut[NF];
    snprintf(dir, sizeof dir, "%s/tcp", tmp);
    crashing_run("mid", dir, NULL, cut, ro_cut);
    snprintf(folder, sizeof folder, "%s/mid", dir);
    resume(folder, NULL, cut, ro_cut, "TCP checkpoint resumed over TCP");
    resume(folder, "inproc:ck-a", cut, ro_cut, "TCP checkpoint resumed in process");
    snprintf(dir, sizeof dir, "%s/inproc", tmp);
    crashing_run("mid2", dir, "inproc:ck-b", cut, ro_cut);
    snprintf(folder, sizeof folder, "%s/mid2", dir);
    resume(folder, NULL, cut, ro_cut, "in-process checkpoint resumed over TCP");
}

static void test_refused(void)
{
    const char *const extra[] = {NULL};
    const char *rti = harness_start_rti(extra, 240);
    tp_join_options o = {.rti = rti, .federation = "bad", .timeout_ms = 10000};
    char err[1024] = "", path[700], cmd[3000];
    /* not a checkpoint */
    snprintf(path, sizeof path, "%s", tmp);
    CHECK_INT_EQ(tp_restore_federation(&o, path, err, sizeof err), TP_ECKPT);
    CHECK_STR_HAS(err, "not a Tempo checkpoint");
    /* a part altered: the checksum names it */
    snprintf(path, sizeof path, "%s/damaged", tmp);
    snprintf(cmd, sizeof cmd,
             "cp -r '%s/tcp/mid' '%s' && printf 'X' | dd of='%s/fed-F1' bs=1 "
             "seek=20 conv=notrunc 2>/dev/null",
             tmp, path, path);
    CHECK_INT_EQ(system(cmd), 0);
    CHECK_INT_EQ(tp_restore_federation(&o, path, err, sizeof err), TP_ECKPT);
    CHECK_STR_HAS(err, "fed-F1");
    /* well-formed folder, foreign RTI part */
    snprintf(path, sizeof path, "%s/foreign", tmp);
    struct ckpt_writer *w = NULL;
    char cerr[CKPT_ERR_LEN];
    CHECK_INT_EQ(ckpt_begin(&w, path, "x", 5, cerr, sizeof cerr), CKPT_OK);
    if (w) {
        ckpt_add(w, "rti", "not an RTI part", 15, cerr, sizeof cerr);
        CHECK_INT_EQ(ckpt_commit(w, cerr, sizeof cerr), CKPT_OK);
    }
    CHECK_INT_EQ(tp_restore_federation(&o, path, err, sizeof err), TP_ECKPT);
    CHECK_STR_HAS(err, "/rti: not an RTI part");
    /* nothing was created: a restoring join finds no federation */
    struct fed s = {0};
    static volatile int no;
    fed_init(&s, 0, &no);
    tp_callbacks cb = callbacks(&s);
    tp_join_options j = {.rti = rti,
                         .federation = "bad",
                         .federate = "F0",
                         .fom_path = FOM_PATH,
                         .restore = 1,
                         .timeout_ms = 10000};
    CHECK_INT_EQ(tp_join(&j, &cb, &s, &s.f, err, sizeof err), TP_ENOTFOUND);
    /* a save asked of an RTI without a checkpoint folder is refused */
    tp_join_options k = {.rti = rti,
                         .federation = "plain",
                         .federate = "F0",
                         .fom_path = FOM_PATH,
                         .create = 1,
                         .timeout_ms = 10000};
    if (tp_join(&k, &cb, &s, &s.f, err, sizeof err) == TP_OK) {
        CHECK_INT_EQ(tp_request_save(s.f, "x", 10), TP_OK);
        CHECK_INT_EQ(tp_request_save(s.f, "bad label", 10), TP_EINVAL);
        tp_time lits;
        CHECK_INT_EQ(tp_query_lits(s.f, &lits), TP_EREFUSED); /* the late refusal */
        CHECK_STR_HAS(tp_last_error(s.f), "--checkpoint-dir");
    }
    tp_federate_free(s.f);
    free(s.log);
    free(s.ro);
    harness_stop_rti();
}

int main(void)
{
    const char *t = getenv("TMPDIR");
    snprintf(tmp, sizeof tmp, "%s/ckpt_rti_test.%d", t && *t ? t : "/tmp", (int)getpid());
    mkdir(tmp, 0700);
    reference();
    static const int all_save[NF] = {0}, one_fails[NF] = {0, 1, 0, 0}, none[NF] = {0, 0, 2, 0};
    save_and_go_on("ok", all_save, TP_OK);
    save_and_go_on("fails", one_fails, TP_ECKPT);
    save_and_go_on("nocb", none, TP_ECKPT);
    test_crash_and_resume();
    test_refused();
    char cmd[600];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", tmp);
    if (system(cmd) != 0) fprintf(stderr, "could not remove %s\n", tmp);
    for (int i = 0; i < NF; i++) {
        free(ref[i].log);
        free(ref[i].ro);
    }
    return check_summary();
}
