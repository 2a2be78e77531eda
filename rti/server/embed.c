/* The embedded RTI (embed.h): the registry of named server cores, each behind one lock with a
 * text log of its own; start, stop, and the federation logs flushed at exit. The links are
 * embed_link.c, task mode embed_task.c (its context switch embed_ctx.c); what they share is
 * embed_impl.h, with the lock order. Serves doc/inproc.md. Read rti/server/embed_link.c next. */
#define _GNU_SOURCE /* PTHREAD_MUTEX_ADAPTIVE_NP: the locks spin briefly before they sleep */
#include "rti/server/embed.h"

#include "rti/flog/flog.h"
#include "rti/server/embed_impl.h"
#include "rti/server/log.h"
#include "rti/server/server_impl.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

pthread_mutex_t embed_reg_lock = PTHREAD_MUTEX_INITIALIZER;
static struct embed *reg_head;
static pthread_once_t exit_once = PTHREAD_ONCE_INIT;
static const embed_view_ops *view_ops; /* embed_set_view: NULL in libtempo.so alone */

void embed_set_view(const embed_view_ops *ops)
{
    view_ops = ops;
}

static void discard_line(void *ctx, int lv, const char *line)
{
    (void)ctx, (void)lv, (void)line;
}

void embed_flush_logs(struct embed *e)
{
    if (!e->s) return;
    for (struct federation *fx = e->s->feds; fx; fx = fx->next) {
        flog_flush(fx->flog);
        federation_flog_check(fx);
    }
    e->flushed_ns = embed_clock_ns(CLOCK_REALTIME);
}

/* At exit, whatever the program did not stop: the logs reach the disk. */
static void flush_all_at_exit(void)
{
    pthread_mutex_lock(&embed_reg_lock);
    for (struct embed *e = reg_head; e; e = e->next) {
        if (pthread_mutex_trylock(&e->lock) != 0) continue; /* a thread is inside the core */
        log_scope_enter(&e->log);
        embed_flush_logs(e);
        embed_unlock(e);
    }
    pthread_mutex_unlock(&embed_reg_lock);
}

static void register_exit(void)
{
    atexit(flush_all_at_exit);
}

/* Locks held for a few microseconds at most: an adaptive mutex spins a little before it
 * sleeps, so that a thread that finds the RTI busy does not pay a futex wait and wake. */
void embed_lock_init(pthread_mutex_t *m)
{
    pthread_mutexattr_t a;
    pthread_mutexattr_init(&a);
#ifdef PTHREAD_MUTEX_ADAPTIVE_NP
    pthread_mutexattr_settype(&a, PTHREAD_MUTEX_ADAPTIVE_NP);
#endif
    pthread_mutex_init(m, &a);
    pthread_mutexattr_destroy(&a);
}

struct embed *embed_find_locked(const char *name)
{
    for (struct embed *e = reg_head; e; e = e->next)
        if (!strcmp(e->name, name)) return e;
    return NULL;
}

static void embed_free(struct embed *e)
{
    if (e->log_free) e->log_free(e->log.ctx);
    pthread_mutex_destroy(&e->lock);
    free(e);
}

void embed_unref_unlock(struct embed *e)
{
    int last = --e->refs == 0;
    embed_unlock(e);
    if (last) embed_free(e);
}

struct embed *embed_create_locked(const char *name, const struct embed_config *cfg, char *err,
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
    snprintf(e->ckpt_dir, sizeof e->ckpt_dir, "%s", cfg->checkpoint_dir ? cfg->checkpoint_dir : "");
    e->spin_us = cfg->spin_us == 0 ? EMBED_SPIN_DEFAULT_US : cfg->spin_us < 0 ? 0 : cfg->spin_us;
    e->tasks = cfg->tasks != 0;
    struct server_config sc = {.listen = "",
                               .flog_dir = e->flog_dir[0] ? e->flog_dir : NULL,
                               .flog_only = e->flog_only[0] ? e->flog_only : NULL,
                               .secret = e->secret[0] ? e->secret : NULL,
                               .checkpoint_dir = e->ckpt_dir[0] ? e->ckpt_dir : NULL,
                               .shuffle_ties = cfg->shuffle_ties};
    server_core_init(s, &sc);
    /* The limits the core reads (hub.lim); there is no hub otherwise. */
    s->hub.lim.max_frame = CONN_DEFAULT_MAX_FRAME;
    s->hub.lim.max_queued = CONN_DEFAULT_MAX_QUEUED;
    s->hub.lim.high_water = CONN_DEFAULT_MAX_QUEUED / 2;
    s->hub.lim.low_water = CONN_DEFAULT_MAX_QUEUED / 4;
    e->s = s;
    embed_lock_init(&e->lock);
    if (cfg->http && cfg->http[0]) { /* the live view (doc/live.md "The in-process runner") */
        char why[300] = "";
        if (view_ops) e->view = view_ops->start(s, &e->lock, cfg->http, why, sizeof why);
        if (!e->view) {
            snprintf(err, errlen, "in-process RTI '%s': %s", name,
                     view_ops ? why
                              : "this library has no live view (tempo-fmu and tempo-master "
                                "serve it)");
            server_core_fini(s);
            free(s);
            pthread_mutex_destroy(&e->lock);
            free(e);
            return NULL;
        }
    }
    e->refs = 1; /* the registry's */
    e->flushed_ns = embed_clock_ns(CLOCK_REALTIME);
    /* Its own text log, entered by every thread that takes its lock (embed_lock): without a
     * callback the library prints nothing, and formats nothing (threshold -1). */
    if (cfg->log) {
        int lv = cfg->log_level;
        e->log = (struct log_scope){.threshold = lv < LOG_LV_ERROR   ? LOG_LV_ERROR
                                                 : lv > LOG_LV_TRACE ? LOG_LV_TRACE
                                                                     : lv,
                                    .sink = cfg->log,
                                    .ctx = cfg->log_ctx};
        e->log_free = cfg->log_free;
    } else {
        e->log = (struct log_scope){.threshold = -1, .sink = discard_line};
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
    pthread_mutex_lock(&embed_reg_lock);
    int rc = -1;
    if (embed_find_locked(name))
        snprintf(err, errlen, "in-process RTI '%s' is already running", name);
    else if (embed_create_locked(name, cfg ? cfg : &zero, err, errlen))
        rc = 0;
    pthread_mutex_unlock(&embed_reg_lock);
    return rc;
}

int embed_stop(const char *name, char *err, size_t errlen)
{
    if (!name) name = "";
    pthread_mutex_lock(&embed_reg_lock);
    struct embed *e = embed_find_locked(name);
    if (!e) {
        pthread_mutex_unlock(&embed_reg_lock);
        snprintf(err, errlen, "no in-process RTI named '%s' is running", name);
        return -1;
    }
    if (e->running) {
        pthread_mutex_unlock(&embed_reg_lock);
        snprintf(err, errlen,
                 "in-process RTI '%s' is running its tasks: stop it once embed_run returned", name);
        return -1;
    }
    while (e->task_head) { /* spawned and never run */
        struct embed_task *t = e->task_head;
        e->task_head = t->next;
        embed_task_free(t);
    }
    for (struct embed **p = &reg_head; *p; p = &(*p)->next)
        if (*p == e) {
            *p = e->next;
            break;
        }
    pthread_mutex_unlock(&embed_reg_lock);
    if (e->view) view_ops->stop(e->view); /* takes e->lock itself: not held here */
    e->view = NULL;
    embed_lock(e);
    e->s->stopping = 1;
    embed_reap(e);
    for (struct embed_link *l = e->links; l; l = l->next) {
        if (l->on_close_done) continue;
        embed_link_close(&l->link, "RTI shutting down", 1);
    }
    /* Shutdown closes are disconnections (s->stopping), as in tempo-rti. */
    embed_reap(e);
    server_core_fini(e->s);
    free(e->s);
    e->s = NULL;
    embed_unref_unlock(e);
    return 0;
}

/* ---- status (the in-process watchdog, doc/inproc.md) --------------------------------------- */

struct status_emit {
    void (*emit)(void *ctx, const char *line);
    void *ctx;
};

static void status_line(void *ctx, const char *tag, const char *line)
{
    const struct status_emit *se = ctx;
    char full[900];
    snprintf(full, sizeof full, "%s%s%s", strcmp(tag, "-") ? tag : "", strcmp(tag, "-") ? " " : "",
             line);
    se->emit(se->ctx, full);
}

/* Tasks on one thread: when time management names nobody (no federate waits for another: the
 * others have not run since), the task that holds the thread is the one to look at, a
 * federate of fx hung in its FMU (doc/inproc.md "When a run hangs"). e->lock held. */
static void held_thread(struct embed *e, const struct federation *fx, struct status_emit *se)
{
    struct embed_task *t = e->tasks ? atomic_load(&e->current) : NULL;
    const char *label = t && t->link ? t->link->label : "";
    const char *at = strchr(label, '@'); /* "federate@federation" once joined */
    if (!at || strcmp(at + 1, fx->name) != 0) return;
    char line[600];
    snprintf(line, sizeof line,
             "federation '%s': the federate to look at: %.*s (its task holds the process's one "
             "thread: it has not come back to the scheduler, so no other federate runs)",
             fx->name, (int)(at - label), label);
    status_line(se, "-", line);
}

int embed_status(const char *name, void (*emit)(void *ctx, const char *line), void *ctx, char *err,
                 size_t errlen)
{
    if (!name) name = "";
    pthread_mutex_lock(&embed_reg_lock); /* the registry first, as embed_stop and the exit flush */
    struct embed *e = embed_find_locked(name);
    int locked = 0;
    for (int i = 0; e && i < 100 && !(locked = pthread_mutex_trylock(&e->lock) == 0); i++)
        nanosleep(&(struct timespec){0, 1000000}, NULL);
    if (!e || !locked || !e->s) {
        if (locked) pthread_mutex_unlock(&e->lock);
        pthread_mutex_unlock(&embed_reg_lock);
        snprintf(err, errlen,
                 !e       ? "no in-process RTI named '%s' is running"
                 : locked ? "in-process RTI '%s' is stopped"
                          : "in-process RTI '%s': a federate stayed inside the core",
                 name);
        return -1;
    }
    struct status_emit se = {emit, ctx};
    for (struct federation *fx = e->s->feds; fx; fx = fx->next)
        if (!timesvc_status(fx, status_line, &se)) held_thread(e, fx, &se);
    pthread_mutex_unlock(&e->lock);
    pthread_mutex_unlock(&embed_reg_lock);
    return 0;
}

int embed_http_address(const char *name, char *out, size_t len)
{
    pthread_mutex_lock(&embed_reg_lock);
    struct embed *e = embed_find_locked(name ? name : "");
    int rc = e && e->view ? 0 : -1;
    if (rc == 0) snprintf(out, len, "%s", view_ops->address(e->view));
    pthread_mutex_unlock(&embed_reg_lock);
    return rc;
}
