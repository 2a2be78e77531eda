/* The embedded RTI (embed.h): a registry of named server cores, each behind one lock, and
 * links whose output is an in-memory queue per federate. Serves doc/inproc.md.
 * Read rti/server/server.c next (the core every frame goes through).
 *
 * Locks: the RTI's lock (e->lock) serialises the core; a link's queue lock (l->qm) guards its
 * queue. Order: e->lock before l->qm, never the other way round; the registry lock is taken
 * before either and never while holding one. A federate thread reads its queue with l->qm
 * alone, so readers never wait for the core. */
#define _GNU_SOURCE /* PTHREAD_MUTEX_ADAPTIVE_NP: the locks spin briefly before they sleep */
#include "rti/server/embed.h"

#include "rti/flog/flog.h"
#include "rti/proto/wire.h"
#include "rti/server/log.h"
#include "rti/server/server_impl.h"

#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define EMBED_SPIN_PAUSES 64 /* polls with a pause instruction before the spin yields */
#define EMBED_FLUSH_NS                                                                             \
    (200 * 1000000LL) /* federation logs reach the disk at least this often                        \
                         while frames flow (as tempo-rti's timer) */

struct embed {
    char name[EMBED_NAME_MAX];
    pthread_mutex_t lock; /* the core's lock */
    struct server *s;     /* the core; NULL once stopped */
    int refs;             /* open links (+1 while registered) */
    int spin_us;          /* reader spin, µs (0: none) */
    int64_t now_ns;       /* wall clock taken when the lock was last acquired (log stamps) */
    int64_t flushed_ns;   /* monotonic time of the last federation log flush */
    char flog_dir[4096];  /* copies of the config strings ("" = none) */
    char flog_only[1024];
    char secret[256];
    struct embed_link *links;      /* open links */
    struct embed_link *close_head; /* links the core closed, on_close not yet run */
    struct embed *next;            /* registry */
};

struct embed_link {
    struct link link;           /* what the core sees (first member) */
    struct embed *e;            /* its RTI */
    char label[256];            /* log name: "inproc#3", later "federate@federation" */
    uint64_t id;                /* 1, 2, ... per process */
    pthread_mutex_t qm;         /* guards q, sleeping and ended */
    pthread_cond_t qc;          /* signalled when q gains bytes or the link ends */
    struct buf q;               /* frames queued for the federate */
    atomic_int avail;           /* 1: q may hold bytes (read without qm while spinning) */
    atomic_int ended;           /* 1: closed for the server; the reader gets -1 once q is empty */
    int sleeping;               /* 1: the reader waits on qc */
    size_t max_queued;          /* bytes q may hold before the federate is dropped */
    int close_flush;            /* 1: orderly close (queued output stays readable) */
    int on_close_done;          /* 1: server_on_close ran */
    char reason[600];           /* why it closed */
    uint64_t n_spun, n_blocked; /* reads served while spinning / after blocking */
    struct embed_link *prev, *next; /* e->links */
    struct embed_link *close_next;  /* e->close_head */
};

static pthread_mutex_t reg_lock = PTHREAD_MUTEX_INITIALIZER;
static struct embed *reg_head;
static uint64_t next_link_id = 1;
static pthread_once_t exit_once = PTHREAD_ONCE_INIT;

static int64_t mono_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

static int64_t real_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

/* The federation log's clock: the time the core's lock was taken (one stamp per batch of
 * frames, as tempo-rti uses its loop's cached time). */
static int64_t embed_wall_ns(void *ctx)
{
    const struct embed *e = ctx;
    return e->now_ns;
}

static void embed_lock(struct embed *e)
{
    pthread_mutex_lock(&e->lock);
    e->now_ns = real_ns();
}

static void flush_logs(struct embed *e)
{
    if (!e->s) return;
    for (struct federation *fx = e->s->feds; fx; fx = fx->next) {
        flog_flush(fx->flog);
        federation_flog_check(fx);
    }
    e->flushed_ns = mono_ns();
}

/* At exit, whatever the program did not stop: the logs reach the disk. */
static void flush_all_at_exit(void)
{
    pthread_mutex_lock(&reg_lock);
    for (struct embed *e = reg_head; e; e = e->next) {
        if (pthread_mutex_trylock(&e->lock) != 0) continue; /* a thread is inside the core */
        flush_logs(e);
        pthread_mutex_unlock(&e->lock);
    }
    pthread_mutex_unlock(&reg_lock);
}

static void register_exit(void)
{
    atexit(flush_all_at_exit);
}

/* Locks held for a few microseconds at most: an adaptive mutex spins a little before it
 * sleeps, so that a thread that finds the RTI busy does not pay a futex wait and wake. */
static void lock_init(pthread_mutex_t *m)
{
    pthread_mutexattr_t a;
    pthread_mutexattr_init(&a);
#ifdef PTHREAD_MUTEX_ADAPTIVE_NP
    pthread_mutexattr_settype(&a, PTHREAD_MUTEX_ADAPTIVE_NP);
#endif
    pthread_mutex_init(m, &a);
    pthread_mutexattr_destroy(&a);
}

static void discard_line(void *ctx, int lv, const char *line)
{
    (void)ctx, (void)lv, (void)line;
}

/* ---- the link as the core sees it (called under e->lock) ------------------------------------ */

/* Mark the link ended for its reader and wake it. */
static void end_link(struct embed_link *l)
{
    pthread_mutex_lock(&l->qm);
    if (!l->close_flush) buf_clear(&l->q);
    atomic_store(&l->ended, 1);
    if (l->sleeping) pthread_cond_signal(&l->qc);
    pthread_mutex_unlock(&l->qm);
}

static void link_close_op(struct link *lk, const char *reason, int flush)
{
    struct embed_link *l = (struct embed_link *)lk;
    if (lk->closed) return;
    lk->closed = 1;
    l->close_flush = flush;
    snprintf(l->reason, sizeof l->reason, "%s", reason ? reason : "closed");
    if (flush)
        LOGI("conn", l->label, "closing: %s", l->reason);
    else
        LOGW("conn", l->label, "closing: %s", l->reason);
    l->close_next = l->e->close_head;
    l->e->close_head = l;
}

static int link_send_op(struct link *lk, const void *bytes, size_t n)
{
    struct embed_link *l = (struct embed_link *)lk;
    if (lk->closed) return -1;
    pthread_mutex_lock(&l->qm);
    if (l->q.len + n > l->max_queued || buf_append(&l->q, bytes, n) != 0) {
        pthread_mutex_unlock(&l->qm);
        char why[200];
        snprintf(why, sizeof why, "output limit: %zu bytes queued and not read", l->q.len);
        link_close_op(lk, why, 0);
        return -1;
    }
    atomic_store_explicit(&l->avail, 1, memory_order_release);
    if (l->sleeping) pthread_cond_signal(&l->qc);
    pthread_mutex_unlock(&l->qm);
    return 0;
}

static void link_label_op(struct link *lk, const char *label)
{
    struct embed_link *l = (struct embed_link *)lk;
    snprintf(l->label, sizeof l->label, "%s", label);
}

static const struct link_ops embed_link_ops = {link_send_op, link_close_op, link_label_op, NULL};

/* Run on_close for the links the core closed during the last frames (deferred, as conn.c
 * does at the end of an event). */
static void reap(struct embed *e)
{
    while (e->close_head) {
        struct embed_link *l = e->close_head;
        e->close_head = l->close_next;
        if (!l->on_close_done) {
            l->on_close_done = 1;
            server_on_close(e->s, &l->link, l->reason, 0);
        }
        end_link(l);
    }
}

/* ---- registry ------------------------------------------------------------------------------ */

static struct embed *find_locked(const char *name)
{
    for (struct embed *e = reg_head; e; e = e->next)
        if (!strcmp(e->name, name)) return e;
    return NULL;
}

static void embed_free(struct embed *e)
{
    pthread_mutex_destroy(&e->lock);
    free(e);
}

/* Create and register; reg_lock held. */
static struct embed *create_locked(const char *name, const struct embed_config *cfg, char *err,
                                   size_t errlen)
{
    if (strlen(name) >= EMBED_NAME_MAX) {
        snprintf(err, errlen, "in-process RTI name '%.40s...' is longer than %d bytes", name,
                 EMBED_NAME_MAX - 1);
        return NULL;
    }
    struct embed *e = calloc(1, sizeof *e);
    struct server *s = calloc(1, sizeof *s);
    if (!e || !s) {
        free(e);
        free(s);
        snprintf(err, errlen, "in-process RTI '%s': out of memory", name);
        return NULL;
    }
    snprintf(e->name, sizeof e->name, "%s", name);
    snprintf(e->flog_dir, sizeof e->flog_dir, "%s", cfg->flog_dir ? cfg->flog_dir : "");
    snprintf(e->flog_only, sizeof e->flog_only, "%s", cfg->flog_only ? cfg->flog_only : "");
    snprintf(e->secret, sizeof e->secret, "%s", cfg->secret ? cfg->secret : "");
    e->spin_us = cfg->spin_us == 0 ? EMBED_SPIN_DEFAULT_US : cfg->spin_us < 0 ? 0 : cfg->spin_us;
    struct server_config sc = {.listen = "",
                               .flog_dir = e->flog_dir[0] ? e->flog_dir : NULL,
                               .flog_only = e->flog_only[0] ? e->flog_only : NULL,
                               .secret = e->secret[0] ? e->secret : NULL,
                               .shuffle_ties = cfg->shuffle_ties};
    server_core_init(s, &sc);
    /* The limits the core reads (hub.lim); there is no hub otherwise. */
    s->hub.lim.max_frame = CONN_DEFAULT_MAX_FRAME;
    s->hub.lim.max_queued = CONN_DEFAULT_MAX_QUEUED;
    s->hub.lim.high_water = CONN_DEFAULT_MAX_QUEUED / 2;
    s->hub.lim.low_water = CONN_DEFAULT_MAX_QUEUED / 4;
    s->wall_ns = embed_wall_ns;
    s->wall_ctx = e;
    e->s = s;
    lock_init(&e->lock);
    e->refs = 1; /* the registry's */
    e->flushed_ns = mono_ns();
    /* The text log is process-wide: a start with a callback sets it; until one does, the
     * library prints nothing (the lines are dropped). */
    static int user_sink;
    if (cfg->log) {
        log_set_sink(cfg->log, cfg->log_ctx);
        log_set_level(cfg->log_level);
        user_sink = 1;
    } else if (!user_sink) {
        log_set_sink(discard_line, NULL);
        log_set_level(LOG_LV_ERROR);
    }
    e->next = reg_head;
    reg_head = e;
    pthread_once(&exit_once, register_exit);
    return e;
}

int embed_start(const char *name, const struct embed_config *cfg, char *err, size_t errlen)
{
    static const struct embed_config zero;
    if (!name) name = "";
    pthread_mutex_lock(&reg_lock);
    int rc = -1;
    if (find_locked(name))
        snprintf(err, errlen, "in-process RTI '%s' is already running", name);
    else if (create_locked(name, cfg ? cfg : &zero, err, errlen))
        rc = 0;
    pthread_mutex_unlock(&reg_lock);
    return rc;
}

int embed_stop(const char *name, char *err, size_t errlen)
{
    if (!name) name = "";
    pthread_mutex_lock(&reg_lock);
    struct embed *e = find_locked(name);
    if (!e) {
        pthread_mutex_unlock(&reg_lock);
        snprintf(err, errlen, "no in-process RTI named '%s' is running", name);
        return -1;
    }
    for (struct embed **p = &reg_head; *p; p = &(*p)->next)
        if (*p == e) {
            *p = e->next;
            break;
        }
    pthread_mutex_unlock(&reg_lock);
    embed_lock(e);
    e->s->stopping = 1;
    reap(e);
    for (struct embed_link *l = e->links; l; l = l->next) {
        if (l->on_close_done) continue;
        link_close_op(&l->link, "RTI shutting down", 1);
    }
    /* Shutdown closes are disconnections (s->stopping), as in tempo-rti. */
    reap(e);
    server_core_fini(e->s);
    free(e->s);
    e->s = NULL;
    int last = --e->refs == 0;
    pthread_mutex_unlock(&e->lock);
    if (last) embed_free(e);
    return 0;
}

/* ---- links --------------------------------------------------------------------------------- */

struct embed_link *embed_connect(const char *name, char *err, size_t errlen)
{
    static const struct embed_config zero;
    if (!name) name = "";
    struct embed_link *l = calloc(1, sizeof *l);
    if (!l) {
        snprintf(err, errlen, "in-process RTI '%s': out of memory", name);
        return NULL;
    }
    pthread_mutex_lock(&reg_lock);
    struct embed *e = find_locked(name);
    if (!e) e = create_locked(name, &zero, err, errlen);
    if (!e) {
        pthread_mutex_unlock(&reg_lock);
        free(l);
        return NULL;
    }
    l->id = next_link_id++;
    embed_lock(e); /* under reg_lock: e cannot be stopped meanwhile */
    pthread_mutex_unlock(&reg_lock);
    l->e = e;
    l->link.ops = &embed_link_ops;
    l->link.label = l->label;
    snprintf(l->label, sizeof l->label, "inproc#%llu (%s)", (unsigned long long)l->id,
             e->name[0] ? e->name : "default");
    lock_init(&l->qm);
    pthread_condattr_t ca;
    pthread_condattr_init(&ca);
    pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
    pthread_cond_init(&l->qc, &ca);
    pthread_condattr_destroy(&ca);
    buf_init(&l->q);
    l->max_queued = e->s->hub.lim.max_queued;
    l->next = e->links;
    if (e->links) e->links->prev = l;
    e->links = l;
    e->refs++;
    LOGD("conn", l->label, "accepted");
    pthread_mutex_unlock(&e->lock);
    return l;
}

int embed_write(struct embed_link *l, const uint8_t *bytes, size_t n)
{
    struct embed *e = l->e;
    embed_lock(e);
    if (l->link.closed || !e->s) {
        pthread_mutex_unlock(&e->lock);
        return -1;
    }
    uint32_t max = (uint32_t)e->s->hub.lim.max_frame;
    size_t off = 0;
    while (off < n && !l->link.closed) {
        size_t flen = 0;
        char why[200];
        int r = wire_split(bytes + off, n - off, max, &flen, why, sizeof why);
        if (r <= 0) {
            char msg[300];
            snprintf(msg, sizeof msg, "bad frame: %s", r < 0 ? why : "a partial frame");
            link_close_op(&l->link, msg, 0);
            break;
        }
        if (server_on_frame(e->s, &l->link, bytes + off, flen) < 0) break;
        off += flen;
    }
    reap(e);
    if (mono_ns() - e->flushed_ns > EMBED_FLUSH_NS) flush_logs(e);
    int rc = l->link.closed ? -1 : 0;
    pthread_mutex_unlock(&e->lock);
    return rc;
}

/* Move what q holds into in; l->qm held. */
static int take_locked(struct embed_link *l, struct buf *in)
{
    size_t n = l->q.len;
    if (buf_append(in, l->q.data, n) != 0) return -2;
    buf_clear(&l->q);
    atomic_store_explicit(&l->avail, 0, memory_order_relaxed);
    return (int)(n > 0x7fffffff ? 0x7fffffff : n);
}

static inline void cpu_relax(void)
{
#if defined(__x86_64__) || defined(__i386__)
    __builtin_ia32_pause();
#elif defined(__aarch64__)
    __asm__ __volatile__("yield");
#endif
}

int embed_read(struct embed_link *l, struct buf *in, int timeout_ms)
{
    int r = 0;
    /* 1. Spin: poll the flag without the queue lock for at most spin_us. */
    if (timeout_ms != 0 && l->e->spin_us > 0 && !atomic_load(&l->avail) &&
        !atomic_load(&l->ended)) {
        int64_t until = mono_ns() + (int64_t)l->e->spin_us * 1000;
        int spins = 0;
        while (!atomic_load_explicit(&l->avail, memory_order_acquire) && !atomic_load(&l->ended)) {
            /* A few pauses, then yield the CPU between polls: on a machine with more runnable
             * threads than CPUs the thread we wait for may need this one. */
            if (++spins < EMBED_SPIN_PAUSES)
                cpu_relax();
            else
                sched_yield();
            if (spins % 16 == 0 && mono_ns() >= until) break;
        }
    }
    pthread_mutex_lock(&l->qm);
    if (l->q.len > 0) {
        l->n_spun++;
        r = take_locked(l, in);
        pthread_mutex_unlock(&l->qm);
        return r;
    }
    if (atomic_load(&l->ended) || timeout_ms == 0) {
        pthread_mutex_unlock(&l->qm);
        return atomic_load(&l->ended) ? -1 : 0;
    }
    /* 2. Block on the condition variable until bytes arrive, the link ends or time is up. */
    struct timespec dl;
    if (timeout_ms > 0) {
        clock_gettime(CLOCK_MONOTONIC, &dl);
        dl.tv_sec += timeout_ms / 1000;
        dl.tv_nsec += (long)(timeout_ms % 1000) * 1000000;
        if (dl.tv_nsec >= 1000000000) dl.tv_sec++, dl.tv_nsec -= 1000000000;
    }
    l->sleeping = 1;
    while (l->q.len == 0 && !atomic_load(&l->ended)) {
        int w = timeout_ms > 0 ? pthread_cond_timedwait(&l->qc, &l->qm, &dl)
                               : pthread_cond_wait(&l->qc, &l->qm);
        if (w != 0 && l->q.len == 0) break; /* timed out */
    }
    l->sleeping = 0;
    if (l->q.len > 0) {
        l->n_blocked++;
        r = take_locked(l, in);
    } else {
        r = atomic_load(&l->ended) ? -1 : 0;
    }
    pthread_mutex_unlock(&l->qm);
    return r;
}

const char *embed_reason(const struct embed_link *l)
{
    return l->reason;
}

void embed_wait_stats(const struct embed_link *l, uint64_t *spun, uint64_t *blocked)
{
    *spun = l->n_spun;
    *blocked = l->n_blocked;
}

void embed_close(struct embed_link *l)
{
    if (!l) return;
    struct embed *e = l->e;
    embed_lock(e);
    if (e->s && !l->on_close_done) {
        if (!l->link.closed) {
            l->link.closed = 1;
            snprintf(l->reason, sizeof l->reason, "the federate closed its connection");
        } else {
            /* closed by the core and still on the close queue: take it off */
            for (struct embed_link **p = &e->close_head; *p; p = &(*p)->close_next)
                if (*p == l) {
                    *p = l->close_next;
                    break;
                }
        }
        l->on_close_done = 1;
        server_on_close(e->s, &l->link, l->reason, 1);
        reap(e);
        flush_logs(e);
    }
    if (l->prev)
        l->prev->next = l->next;
    else
        e->links = l->next;
    if (l->next) l->next->prev = l->prev;
    int last = --e->refs == 0;
    pthread_mutex_unlock(&e->lock);
    if (last) embed_free(e);
    pthread_cond_destroy(&l->qc);
    pthread_mutex_destroy(&l->qm);
    buf_fini(&l->q);
    free(l);
}
