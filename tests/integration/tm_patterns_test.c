/* The three time-management patterns of the Awais thesis as multi-process federations against a
 * real bin/tempo-rti (doc/time.md; doc/references.md (Awais)). Each federate is a forked process
 * using libtempo; it checks what it sees and exits non-zero on any failure. Read doc/time.md for
 * the rules each pattern relies on.
 *
 *   1. Jacobi, fixed step, zero lookahead:  J0 <-> J1 <-> J2 (all-to-all), TARA(T+h), send,
 *      TAR(T+h): every federate sees the others' values for T+h before it leaves T+h.
 *   2. Discrete events with NERA/NER, zero lookahead: D0..D2 predict their next events
 *      (multiples of 7, 11, 13); NERA(prediction) grants everyone the smallest one, the
 *      federate(s) with that event send at it, NER(g) closes the instant.
 *   3. Gauss–Seidel (Algorithm 1): source G0 -> common G1 -> common G2 -> sink G3 -> source,
 *      FQR polling, the sink's update then a time-stamped "Step" interaction to the source
 *      (same sender, same stamp: send order kept); logical time stays put under FQR at L = 0,
 *      then TAR(K h) by everyone advances it. */
#include "tests/integration/client_harness.h"

#define MAXF    8
#define JAC_N   3
#define JAC_K   25
#define DE_N    3
#define DE_END  300
#define GS_N    4
#define GS_K    12
#define H       10 /* step, ticks */
#define WAIT_MS 20000

struct fed {
    tp_federate *f;
    int me, n;            /* my index, federation size */
    tp_handle x, step_ic; /* Sample.x, interaction Step */
    tp_object obj[MAXF];  /* object of each federate index, 0 until discovered */
    /* what arrived, per sender index */
    double val[MAXF];      /* last value */
    tp_time vtime[MAXF];   /* its time stamp, TP_NO_TIME if none yet */
    int nrefl;             /* reflections in total */
    tp_time step_time;     /* time stamp of the last Step interaction, TP_NO_TIME if none */
    int step_after_update; /* the sink's update stamped t came before Step stamped t */
    tp_time now;           /* logical time from grants */
    int joined_seen;
};

static int index_of(const struct fed *c, tp_object o)
{
    for (int i = 0; i < c->n; i++)
        if (c->obj[i] == o) return i;
    return -1;
}

static void on_discover(void *ctx, tp_object o, tp_handle cls, const char *name, tp_fed owner)
{
    struct fed *c = ctx;
    int i = atoi(name + 1); /* "J2" -> 2 */
    if (i >= 0 && i < c->n) c->obj[i] = o;
}

static void on_reflect(void *ctx, const tp_reflection *r)
{
    struct fed *c = ctx;
    int i = index_of(c, r->object);
    c->nrefl++;
    CHECK(i >= 0, "federate %d: reflection of an undiscovered object", c->me);
    CHECK(r->order == TP_TIMESTAMP_ORDER, "federate %d: RO reflection", c->me);
    /* No TSO message below the receiver's logical time. */
    CHECK(r->time >= c->now, "federate %d: reflection stamped %lld below time %lld", c->me,
          (long long)r->time, (long long)c->now);
    if (i < 0) return;
    for (size_t k = 0; k < r->n_values; k++)
        if (r->values[k].handle == c->x)
            tp_decode_float64(r->values[k].data, r->values[k].size, &c->val[i]);
    c->vtime[i] = r->time;
}

static void on_receive(void *ctx, const tp_interaction *in)
{
    struct fed *c = ctx;
    if (in->interaction_class != c->step_ic) return;
    c->step_time = in->time;
    /* Same sender, same stamp: the sink's update must already be here (send order kept). */
    c->step_after_update = c->vtime[c->n - 1] == in->time;
}

static void on_grant(void *ctx, tp_time t)
{
    ((struct fed *)ctx)->now = t;
}

static void on_error(void *ctx, int code, const char *msg)
{
    CHECK(0, "federate %d: async error %s: %s", ((struct fed *)ctx)->me, tp_strerror(code), msg);
}

static const tp_callbacks CB = {.discover = on_discover,
                                .reflect = on_reflect,
                                .receive = on_receive,
                                .grant = on_grant,
                                .error = on_error};

/* Send my Sample.x stamped t. */
static int send_x(struct fed *c, tp_object mine, double v, tp_time t)
{
    uint8_t b[8];
    tp_encode_float64(v, b);
    tp_value val = {c->x, b, 8};
    return tp_update(c->f, mine, &val, 1, t);
}

/* Issue a request and wait for its grant. @return the granted time, TP_NO_TIME on failure. */
static tp_time advance(struct fed *c, int (*req)(tp_federate *, tp_time), tp_time t)
{
    int rc = req(c->f, t);
    CHECK(rc == TP_OK, "federate %d: request(%lld): %s (%s)", c->me, (long long)t, tp_strerror(rc),
          tp_last_error(c->f));
    tp_time g = TP_NO_TIME;
    rc = tp_wait_grant(c->f, &g, WAIT_MS);
    CHECK(rc == TP_OK, "federate %d: no grant for %lld: %s", c->me, (long long)t, tp_strerror(rc));
    return rc == TP_OK ? g : TP_NO_TIME;
}

/* Join, enable regulation (L = 0) and constrained, declare, register "<P><me>", and start
 * together with the others. @return my object, 0 on failure. */
static tp_object setup(struct fed *c, const char *addr, const char *federation, char prefix)
{
    char name[16];
    snprintf(name, sizeof name, "%c%d", prefix, c->me);
    for (int i = 0; i < MAXF; i++)
        c->vtime[i] = TP_NO_TIME;
    c->step_time = TP_NO_TIME;
    c->f = harness_join(addr, federation, name, "fom/test.xml", &CB, c);
    if (!c->f) return 0;
    tp_handle sample;
    CHECK_INT_EQ(tp_object_class(c->f, "Sample", &sample), TP_OK);
    CHECK_INT_EQ(tp_attribute(c->f, sample, "x", &c->x), TP_OK);
    CHECK_INT_EQ(tp_interaction_class(c->f, "Step", &c->step_ic), TP_OK);
    CHECK_INT_EQ(tp_enable_regulation(c->f, 0), TP_OK);
    CHECK_INT_EQ(tp_wait_regulation_enabled(c->f, WAIT_MS), TP_OK);
    CHECK_INT_EQ(tp_enable_constrained(c->f), TP_OK);
    CHECK_INT_EQ(tp_wait_constrained_enabled(c->f, WAIT_MS), TP_OK);
    CHECK_INT_EQ(tp_publish_object_class(c->f, sample, &c->x, 1), TP_OK);
    CHECK_INT_EQ(tp_subscribe_object_class(c->f, sample, &c->x, 1), TP_OK);
    CHECK_INT_EQ(tp_publish_interaction_class(c->f, c->step_ic), TP_OK);
    CHECK_INT_EQ(tp_subscribe_interaction_class(c->f, c->step_ic), TP_OK);
    tp_object mine = 0;
    CHECK_INT_EQ(tp_register_object(c->f, sample, name, &mine), TP_OK);
    /* Federate 0 waits until everyone has joined (the RTI's time status lists them; a
     * federate's declarations precede its join in that list only if it asked in order, and
     * each asks before syncing), then registers the start point for all. */
    if (c->me == 0) {
        size_t n = 0;
        int64_t end = harness_ms() + WAIT_MS;
        while (harness_ms() < end) {
            if (tp_query_time_status(c->f, NULL, 0, &n) != TP_OK || (int)n >= c->n) break;
            usleep(2000);
        }
        CHECK((int)n == c->n, "federate 0 saw %zu of %d federates", n, c->n);
        CHECK_INT_EQ(tp_register_sync(c->f, "go", NULL, 0, NULL, 0), TP_OK);
    }
    size_t n = 0;
    CHECK_INT_EQ(tp_query_time_status(c->f, NULL, 0, &n), TP_OK); /* declarations are in */
    int rc = tp_sync(c->f, "go", WAIT_MS);
    CHECK(rc == TP_OK, "federate %d: sync go: %s", c->me, tp_strerror(rc));
    /* Every object must be discovered before the first step. */
    for (int i = 0; i < c->n; i++)
        while (i != c->me && !c->obj[i] && tp_evoke(c->f, 100) >= 0)
            ;
    return mine;
}

/* ---- 1. Jacobi with TARA(T+h)/TAR(T+h) at zero lookahead ---------------------------------- */

static double jac_value(int i, int k)
{
    return 1000.0 * i + k + 1;
}

static void jacobi(struct fed *c, const char *addr)
{
    tp_object mine = setup(c, addr, "jacobi", 'J');
    if (!mine) return;
    for (int k = 0; k < JAC_K; k++) {
        tp_time t = (tp_time)(k + 1) * H;
        CHECK_INT_EQ(advance(c, tp_time_advance_request_available, t), t);
        CHECK_INT_EQ(send_x(c, mine, jac_value(c->me, k), t), TP_OK); /* stamped T+h: legal */
        CHECK_INT_EQ(advance(c, tp_time_advance_request, t), t);
        /* Before leaving T+h, the others' values for T+h are here. */
        for (int j = 0; j < c->n; j++)
            if (j != c->me) {
                CHECK(c->vtime[j] == t, "J%d step %d: value of J%d stamped %lld, want %lld", c->me,
                      k, j, (long long)c->vtime[j], (long long)t);
                CHECK_NEAR(c->val[j], jac_value(j, k), 0.0);
            }
        /* The instant is closed: a send at T+h is refused. */
        if (k == 0) CHECK_INT_EQ(send_x(c, mine, 0.0, t), TP_EBOUND);
    }
}

/* ---- 2. discrete events with NERA/NER at zero lookahead ------------------------------------ */

static const tp_time DE_PERIOD[DE_N] = {7, 11, 13};

static tp_time de_next(int j, tp_time t)
{
    return (t / DE_PERIOD[j] + 1) * DE_PERIOD[j];
}

static void discrete(struct fed *c, const char *addr)
{
    tp_object mine = setup(c, addr, "de", 'D');
    if (!mine) return;
    tp_time t = 0;
    int steps = 0, mine_events = 0;
    while (t < DE_END) {
        tp_time e = de_next(c->me, t), want = e;
        for (int j = 0; j < c->n; j++)
            if (de_next(j, t) < want) want = de_next(j, t);
        /* The smallest prediction is granted to everyone. */
        tp_time g = advance(c, tp_next_event_request_available, e);
        CHECK(g == want, "D%d: NERA(%lld) granted %lld, want %lld", c->me, (long long)e,
              (long long)g, (long long)want);
        if (g == TP_NO_TIME) return;
        if (g == e) {
            CHECK_INT_EQ(send_x(c, mine, 100000.0 * c->me + (double)g, g), TP_OK);
            mine_events++;
        }
        CHECK_INT_EQ(advance(c, tp_next_event_request, g), g); /* closes the instant */
        for (int j = 0; j < c->n; j++) {
            if (j == c->me) continue;
            int has_event = g % DE_PERIOD[j] == 0;
            CHECK(has_event == (c->vtime[j] == g), "D%d at %lld: D%d's event %s", c->me,
                  (long long)g, j, has_event ? "missing" : "unexpected");
            if (has_event) CHECK_NEAR(c->val[j], 100000.0 * j + (double)g, 0.0);
        }
        t = g;
        steps++;
    }
    CHECK(mine_events == (int)(t / DE_PERIOD[c->me]), "D%d: %d own events up to %lld", c->me,
          mine_events, (long long)t);
    CHECK(steps > 30, "D%d: only %d steps", c->me, steps);
}

/* ---- 3. Gauss–Seidel with FQR and a "Step" token (Algorithm 1) ---------------------------- */

/* The chain's arithmetic, computed alone: source s = z + 1, common r gives 2 in + r, sink
 * z = in + 3; out[r] is what federate r sends at step k (k from 0). */
static void gs_expected(int k, double out[GS_N])
{
    double z = 0;
    for (int s = 0; s <= k; s++) {
        out[0] = z + 1;
        for (int r = 1; r < GS_N - 1; r++)
            out[r] = 2 * out[r - 1] + r;
        out[GS_N - 1] = out[GS_N - 2] + 3;
        z = out[GS_N - 1];
    }
}

/* While anyone still polls with FQR at zero lookahead, every bound stays at 0, so FQR grants
 * 0 (doc/time.md: all-FQR federations exchange but do not advance). Only in the last step
 * may the others already wait in TAR(K h), letting GALT and the grant rise to at most K h. */
static int fqr_ok(tp_time g, int k)
{
    return g == 0 || (k == GS_K - 1 && g > 0 && g <= (tp_time)GS_K * H);
}

static void gauss_seidel(struct fed *c, const char *addr)
{
    tp_object mine = setup(c, addr, "gs", 'G');
    if (!mine) return;
    int r = c->me, src = (r + c->n - 1) % c->n; /* my producer; the sink feeds the source */
    long polls = 0;
    for (int k = 0; k < GS_K; k++) {
        tp_time t = (tp_time)(k + 1) * H;
        double want[GS_N];
        gs_expected(k, want);
        if (r == 0) { /* source: integrate, send, then wait for the sink's token */
            CHECK_INT_EQ(send_x(c, mine, want[0], t), TP_OK);
            while (c->step_time != t && polls < 100000) {
                tp_time g = advance(c, tp_flush_queue_request, t);
                CHECK(fqr_ok(g, k), "G0: FQR granted %lld", (long long)g);
                polls++;
                if (g == TP_NO_TIME) return;
            }
            CHECK(c->step_after_update, "G0 step %d: Step arrived before the sink's update", k);
            CHECK_NEAR(c->val[c->n - 1], want[c->n - 1], 0.0);
            continue;
        }
        /* common or sink: poll FQR until the producer's update for this step is here */
        while (c->vtime[src] != t && polls < 100000) {
            tp_time g = advance(c, tp_flush_queue_request, t);
            CHECK(fqr_ok(g, k), "G%d: FQR granted %lld", r, (long long)g);
            polls++;
            if (g == TP_NO_TIME) return;
        }
        CHECK_NEAR(c->val[src], want[src], 0.0); /* the producer's value of this step */
        CHECK_INT_EQ(send_x(c, mine, want[r], t), TP_OK);
        if (r == c->n - 1) {
            double dt = H;
            uint8_t b[8];
            tp_encode_float64(dt, b);
            tp_value p;
            tp_handle dth = 0;
            CHECK_INT_EQ(tp_parameter(c->f, c->step_ic, "dt", &dth), TP_OK);
            p = (tp_value){dth, b, 8};
            CHECK_INT_EQ(tp_send_interaction(c->f, c->step_ic, &p, 1, t), TP_OK);
        }
    }
    /* FQR at zero lookahead exchanged everything without advancing; TAR moves everyone. */
    tp_time end = (tp_time)GS_K * H;
    CHECK_INT_EQ(advance(c, tp_time_advance_request, end), end);
    CHECK(polls >= GS_K, "G%d: %ld FQR polls for %d steps", r, polls, GS_K);
}

/* ---- driver -------------------------------------------------------------------------------- */

static int report_fd = -1; /* write end of the pipe to the parent, in children */

static int child(const char *addr, int pattern, int me, int n)
{
    static struct fed c;
    memset(&c, 0, sizeof c);
    c.me = me;
    c.n = n;
    if (pattern == 1)
        jacobi(&c, addr);
    else if (pattern == 2)
        discrete(&c, addr);
    else
        gauss_seidel(&c, addr);
    if (c.f) {
        tp_resign(c.f, TP_DELETE_OBJECTS);
        tp_federate_free(c.f);
    }
    if (check_failed_)
        fprintf(stderr, "pattern %d federate %d: %d passed, %d failed\n", pattern, me,
                check_passed_, check_failed_);
    int counts[2] = {check_passed_, check_failed_}; /* summed into the parent's summary */
    if (write(report_fd, counts, sizeof counts) != (ssize_t)sizeof counts) return 3;
    return check_failed_ ? 1 : (check_passed_ > 0 ? 0 : 2);
}

static void run_pattern(const char *addr, int pattern, int n, const char *what)
{
    pid_t pids[MAXF];
    int fds[2];
    if (pipe(fds) != 0) {
        CHECK(0, "pipe: %s", strerror(errno));
        return;
    }
    fflush(stdout);
    fflush(stderr);
    for (int i = 0; i < n; i++) {
        pids[i] = fork();
        if (pids[i] == 0) {
            close(fds[0]);
            report_fd = fds[1];
            _exit(child(addr, pattern, i, n)); /* _exit: the RTI belongs to the parent */
        }
        CHECK(pids[i] > 0, "fork: %s", strerror(errno));
    }
    close(fds[1]);
    int counts[2], reports = 0;
    while (read(fds[0], counts, sizeof counts) == (ssize_t)sizeof counts) {
        check_passed_ += counts[0];
        check_failed_ += counts[1];
        reports++;
    }
    close(fds[0]);
    CHECK(reports == n, "%s: %d of %d federates reported", what, reports, n);
    for (int i = 0; i < n; i++) {
        int st = 0;
        if (pids[i] <= 0) continue;
        waitpid(pids[i], &st, 0);
        CHECK(WIFEXITED(st) && WEXITSTATUS(st) == 0, "%s: federate %d exited with %d", what, i,
              WIFEXITED(st) ? WEXITSTATUS(st) : -WTERMSIG(st));
    }
}

int main(void)
{
    const char *const args[] = {"--log-level", getenv("RTI_LOG") ? getenv("RTI_LOG") : "warn",
                                NULL};
    const char *addr = harness_start_rti(args, 120);
    if (!addr) return check_summary();
    static const char *const what[] = {"Jacobi TARA/TAR", "discrete events NERA/NER",
                                       "Gauss-Seidel FQR"};
    const int n[] = {JAC_N, DE_N, GS_N};
    for (int p = 1; p <= 3; p++) { /* one case per pattern (tests/check.h) */
        check_case_begin();
        run_pattern(addr, p, n[p - 1], what[p - 1]);
        check_case_end(1);
    }
    return check_summary();
}
