/* The profile of one peer federate (fmufed_prof.h): its slave and exchange wrapped, every
 * operation timed into a part. doc/run.md "Where the time goes".
 *
 * Wall time: CLOCK_MONOTONIC before and after each operation; the gap since the previous
 * operation of this federate is OTHER. In task mode (doc/inproc.md) every federate of the
 * process runs on one thread and switches only inside waits, so a wait holds the others'
 * operations: a thread-local sum of the wall time every federate of the thread has been
 * charged lets a wait keep only its own part (the scheduler, the switches), while `waited`
 * keeps the whole time to the grant.
 * CPU time: CLOCK_THREAD_CPUTIME_ID is a system call (1.5 us on the development VM, against
 * 40 ns for the monotonic clock), too dear for every operation of a 10-us macro step. It is
 * read when profiling starts and ends: the thread's CPU time over the run. A wait may sleep
 * (over TCP, or a blocking thread), so the waits' CPU time is sampled: read around one wait
 * in PROF_EVERY (from the middle of the first PROF_EVERY, clear of the start-up's long
 * waits), less what the readings themselves cost (calibrated at the start), less the wall
 * time charged meanwhile to the other federates of the thread; the wait's CPU time is its
 * wall time times the samples' ratio, bounded so that the parts add up to the thread's CPU
 * time when the thread is this federate's alone. Every other part
 * runs code, and gets its wall time times the thread's share of CPU while it was not waiting
 * (the run's CPU time less the waits', over its wall time less the waits'): on a loaded
 * machine a part's wall time holds its waits for a CPU, and this removes them in proportion.
 * In task mode the thread is every federate's, and the share is the thread's over the run. */
#include "federate/fmufed/fmufed_prof.h"

#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#define PROF_EVERY 64 /* one wait in this many has its CPU time read */

struct fmufed_prof {
    port_slave inner;           /* the federate's own slave */
    peer_exchange inner_x;      /* and exchange */
    port_slave_ops ops;         /* the wrapper's table: an entry where the inner one has one */
    peer_exchange_ops x_ops;    /* the exchange's wrapper table */
    double last;                /* s, monotonic: the end of the previous operation */
    double wall[FMUFED_PROF_N]; /* s, exclusive */
    double s_wall[FMUFED_PROF_N], s_cpu[FMUFED_PROF_N]; /* s, the sampled calls */
    unsigned long calls[FMUFED_PROF_N];
    double waited;                /* s, inclusive waits */
    double clock_cpu;             /* s, CPU time a sample's own clock readings add (calibrated) */
    double cpu0, wall0, charged0; /* s: thread CPU, monotonic and tl_charged at the start */
};

/* The wall time charged on this thread to any federate: what a wait of task mode subtracts. */
static _Thread_local double tl_charged;

static double mono(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static double thread_cpu(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

/* One timed operation: begin before the call, end after it. */
typedef struct span {
    int part;
    int sampled;
    double t0, cpu0, charged0;
} span;

static span begin(fmufed_prof *p, int part)
{
    span s = {.part = part};
    s.t0 = mono();
    double gap = s.t0 - p->last;
    if (gap > 0) {
        p->wall[FMUFED_PROF_OTHER] += gap;
        p->calls[FMUFED_PROF_OTHER]++;
        tl_charged += gap;
    }
    unsigned long n = p->calls[part];
    s.sampled = part == FMUFED_PROF_WAIT && n % PROF_EVERY == PROF_EVERY / 2;
    if (s.sampled) { /* the CPU clock's own system call is charged to no part */
        s.cpu0 = thread_cpu();
        s.t0 = mono();
    }
    s.charged0 = tl_charged;
    return s;
}

static void end(fmufed_prof *p, const span *s)
{
    double t1 = mono(), wall = t1 - s->t0;
    double cpu = s->sampled ? thread_cpu() - s->cpu0 - p->clock_cpu : 0;
    double others = tl_charged - s->charged0; /* charged by other federates meanwhile */
    if (s->part == FMUFED_PROF_WAIT) {
        p->waited += wall;
        wall -= others;
        cpu -= others;
        if (wall < 0) wall = 0;
        if (cpu < 0) cpu = 0;
    }
    p->wall[s->part] += wall;
    p->calls[s->part]++;
    if (s->sampled) p->s_wall[s->part] += wall, p->s_cpu[s->part] += cpu;
    tl_charged += wall;
    p->last = s->sampled ? mono() : t1;
}

/* ---- the slave --------------------------------------------------------------------------- */

#define TIMED(part, call)                                                                          \
    do {                                                                                           \
        fmufed_prof *p_ = ctx;                                                                     \
        span s_ = begin(p_, part);                                                                 \
        int rc_ = call;                                                                            \
        end(p_, &s_);                                                                              \
        return rc_;                                                                                \
    } while (0)
#define IN(p) (((fmufed_prof *)(p))->inner)

static int w_set_inputs(void *ctx, const port_poly *u)
{
    TIMED(FMUFED_PROF_MODEL, IN(ctx).ops->set_inputs(IN(ctx).ctx, u));
}
static int w_step(void *ctx, int64_t t, int n_sub, double *y_sub, port_step_result *res)
{
    TIMED(FMUFED_PROF_MODEL, IN(ctx).ops->step(IN(ctx).ctx, t, n_sub, y_sub, res));
}
static int w_get_outputs(void *ctx, double *y)
{
    TIMED(FMUFED_PROF_MODEL, IN(ctx).ops->get_outputs(IN(ctx).ctx, y));
}
static int w_get_output_derivs(void *ctx, int order, double *dy)
{
    TIMED(FMUFED_PROF_MODEL, IN(ctx).ops->get_output_derivs(IN(ctx).ctx, order, dy));
}
static int w_get_discrete(void *ctx, port_discrete *d)
{
    TIMED(FMUFED_PROF_MODEL, IN(ctx).ops->get_discrete(IN(ctx).ctx, d));
}
static int w_set_discrete(void *ctx, size_t n, const port_discrete *d)
{
    TIMED(FMUFED_PROF_MODEL, IN(ctx).ops->set_discrete(IN(ctx).ctx, n, d));
}
static int w_share_discrete(void *ctx, int64_t t)
{
    TIMED(FMUFED_PROF_MSG, IN(ctx).ops->share_discrete(IN(ctx).ctx, t));
}
static int w_get_states(void *ctx, double *x)
{
    TIMED(FMUFED_PROF_MODEL, IN(ctx).ops->get_states(IN(ctx).ctx, x));
}
static int w_set_states(void *ctx, int64_t t, const double *x)
{
    TIMED(FMUFED_PROF_MODEL, IN(ctx).ops->set_states(IN(ctx).ctx, t, x));
}
static int w_get_derivatives(void *ctx, double *dx)
{
    TIMED(FMUFED_PROF_MODEL, IN(ctx).ops->get_derivatives(IN(ctx).ctx, dx));
}
static int w_get_directional(void *ctx, const double *du, double *dy)
{
    TIMED(FMUFED_PROF_MODEL, IN(ctx).ops->get_directional(IN(ctx).ctx, du, dy));
}
static int w_save(void *ctx, int slot)
{
    TIMED(FMUFED_PROF_MODEL, IN(ctx).ops->save(IN(ctx).ctx, slot));
}
static int w_restore(void *ctx, int slot)
{
    TIMED(FMUFED_PROF_MODEL, IN(ctx).ops->restore(IN(ctx).ctx, slot));
}
static int w_record(void *ctx)
{
    TIMED(FMUFED_PROF_REC, IN(ctx).ops->record(IN(ctx).ctx));
}
static int w_collect(void *ctx)
{
    return IN(ctx).ops->collect(IN(ctx).ctx); /* in process: only returns a status */
}

/* ---- the exchange ------------------------------------------------------------------------ */

#define XIN(p) (((fmufed_prof *)(p))->inner_x)

static int x_publish(void *ctx, int64_t ts, const double *y)
{
    TIMED(FMUFED_PROF_MSG, XIN(ctx).ops->publish(XIN(ctx).ctx, ts, y));
}
static int x_request(void *ctx, peer_req kind, int64_t t, int64_t *granted)
{
    TIMED(FMUFED_PROF_WAIT, XIN(ctx).ops->request(XIN(ctx).ctx, kind, t, granted));
}
static int x_inputs(void *ctx, peer_input *in)
{
    TIMED(FMUFED_PROF_MSG, XIN(ctx).ops->inputs(XIN(ctx).ctx, in));
}
static int x_token_send(void *ctx, int64_t ts)
{
    TIMED(FMUFED_PROF_MSG, XIN(ctx).ops->token_send(XIN(ctx).ctx, ts));
}
static int64_t x_token_time(void *ctx)
{
    return XIN(ctx).ops->token_time(XIN(ctx).ctx); /* reads a field */
}
static int x_idle(void *ctx, int attempt, int64_t t, const char *waiting_for)
{
    TIMED(FMUFED_PROF_WAIT, XIN(ctx).ops->idle(XIN(ctx).ctx, attempt, t, waiting_for));
}

/* ---- the wrapper ------------------------------------------------------------------------- */

#define WRAP(table, inner, op, w) ((table).op = (inner)->op ? (w) : NULL)

fmufed_prof *fmufed_prof_new(port_slave model, peer_exchange x)
{
    fmufed_prof *p = calloc(1, sizeof *p);
    if (!p) return NULL;
    p->inner = model;
    p->inner_x = x;
    const port_slave_ops *o = model.ops;
    p->ops.version = o ? o->version : 0;
    if (o) {
        WRAP(p->ops, o, set_inputs, w_set_inputs);
        WRAP(p->ops, o, step, w_step);
        WRAP(p->ops, o, get_outputs, w_get_outputs);
        WRAP(p->ops, o, get_output_derivs, w_get_output_derivs);
        WRAP(p->ops, o, get_discrete, w_get_discrete);
        WRAP(p->ops, o, set_discrete, w_set_discrete);
        WRAP(p->ops, o, share_discrete, w_share_discrete);
        WRAP(p->ops, o, get_states, w_get_states);
        WRAP(p->ops, o, set_states, w_set_states);
        WRAP(p->ops, o, get_derivatives, w_get_derivatives);
        WRAP(p->ops, o, get_directional, w_get_directional);
        WRAP(p->ops, o, save, w_save);
        WRAP(p->ops, o, restore, w_restore);
        WRAP(p->ops, o, record, w_record);
        WRAP(p->ops, o, collect, w_collect);
    }
    const peer_exchange_ops *xo = x.ops;
    if (xo) {
        WRAP(p->x_ops, xo, publish, x_publish);
        WRAP(p->x_ops, xo, request, x_request);
        WRAP(p->x_ops, xo, inputs, x_inputs);
        WRAP(p->x_ops, xo, token_send, x_token_send);
        WRAP(p->x_ops, xo, token_time, x_token_time);
        WRAP(p->x_ops, xo, idle, x_idle);
    }
    /* What the readings of an empty sample cost in CPU time (the mean of 16), subtracted
     * from every sample. */
    for (int i = 0; i < 16; i++) {
        double c0 = thread_cpu(), t0 = mono(), t1 = mono(), c = thread_cpu() - c0 - (t1 - t0);
        p->clock_cpu += (c > 0 ? c : 0) / 16;
    }
    p->charged0 = tl_charged;
    p->cpu0 = thread_cpu();
    p->last = p->wall0 = mono();
    return p;
}

port_slave fmufed_prof_slave(fmufed_prof *p)
{
    return (port_slave){.ops = p->inner.ops ? &p->ops : NULL, .ctx = p, .info = p->inner.info};
}

peer_exchange fmufed_prof_exchange(fmufed_prof *p)
{
    return (peer_exchange){.ops = p->inner_x.ops ? &p->x_ops : NULL, .ctx = p};
}

void fmufed_prof_result(const fmufed_prof *p, fmufed_prof_out *out)
{
    *out = (fmufed_prof_out){.on = 1, .waited = p->waited};
    double wall_run = mono() - p->wall0, cpu_run = thread_cpu() - p->cpu0, own = 0;
    for (int k = 0; k < FMUFED_PROF_N; k++)
        own += p->wall[k];
    int shared = tl_charged - p->charged0 > own + 1e-9; /* task mode: others charged too */
    double w = p->s_wall[FMUFED_PROF_WAIT];
    double wait_ratio = w > 0 ? p->s_cpu[FMUFED_PROF_WAIT] / w : 0;
    if (wait_ratio > 1) wait_ratio = 1;
    double wait_cpu = p->wall[FMUFED_PROF_WAIT] * wait_ratio;
    double busy = own - p->wall[FMUFED_PROF_WAIT];
    if (!shared) { /* the thread's CPU time is this federate's: the parts must add up to it */
        if (wait_cpu > cpu_run) wait_cpu = cpu_run;
        if (wait_cpu < cpu_run - busy) wait_cpu = cpu_run - busy;
    }
    double run_ratio = shared ? (wall_run > 0 ? cpu_run / wall_run : 0)
                              : (busy > 0 ? (cpu_run - wait_cpu) / busy : 0);
    if (run_ratio > 1) run_ratio = 1;
    if (run_ratio < 0) run_ratio = 0;
    for (int k = 0; k < FMUFED_PROF_N; k++) {
        out->wall[k] = p->wall[k];
        out->calls[k] = p->calls[k];
        out->cpu[k] = k == FMUFED_PROF_WAIT ? wait_cpu : p->wall[k] * run_ratio;
    }
}

void fmufed_prof_free(fmufed_prof *p)
{
    free(p);
}

const char *fmufed_prof_name(int k)
{
    static const char *const names[FMUFED_PROF_N] = {"model", "wait", "messaging", "recording",
                                                     "other"};
    return k >= 0 && k < FMUFED_PROF_N ? names[k] : "?";
}

void fmufed_prof_line(char *buf, size_t len, const char *name, long steps, const fmufed_prof_out *o)
{
    int n = snprintf(buf, len, "profile %s steps=%ld", name, steps);
    for (int k = 0; k < FMUFED_PROF_N && n >= 0 && (size_t)n < len; k++) {
        n += snprintf(buf + n, len - (size_t)n, " %s=%.6f/%.6f", fmufed_prof_name(k), o->wall[k],
                      o->cpu[k]);
        if (k == FMUFED_PROF_WAIT && n >= 0 && (size_t)n < len)
            n += snprintf(buf + n, len - (size_t)n, " waited=%.6f", o->waited);
    }
}
