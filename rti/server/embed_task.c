/* The embedded RTI's task mode (embed.h: embed_spawn, embed_run, embed_yield; cfg.tasks): every
 * federate a task on the thread that calls embed_run, switched by embed_ctx.c, a task whose read
 * would wait letting the next runnable one run. Serves doc/inproc.md. Read rti/server/embed_ctx.c
 * for the switch, rti/server/embed_link.c for the queues the tasks read. */
#define _GNU_SOURCE /* MAP_STACK */
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>

#include "rti/server/embed_impl.h"

_Thread_local struct embed_task *embed_tl_task;

void embed_task_free(struct embed_task *t)
{
    if (t->stack) munmap(t->stack, EMBED_TASK_STACK);
    free(t);
}

int embed_spawn(const char *name, void (*fn)(void *ctx), void *ctx, char *err, size_t errlen)
{
    if (!name) name = "";
    struct embed_task *t = calloc(1, sizeof *t);
    void *st = mmap(NULL, EMBED_TASK_STACK, PROT_READ | PROT_WRITE,
                    MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE | MAP_STACK, -1, 0);
    /* a guard page: a stack overflow faults instead of corrupting memory */
    if (st != MAP_FAILED && mprotect(st, 4096, PROT_NONE) != 0) {
        munmap(st, EMBED_TASK_STACK);
        st = MAP_FAILED;
    }
    if (!t || st == MAP_FAILED) {
        free(t);
        if (st != MAP_FAILED) munmap(st, EMBED_TASK_STACK);
        snprintf(err, errlen,
                 "in-process RTI '%s': no memory for a task's stack (or its guard page)", name);
        return -1;
    }
    *t = (struct embed_task){.stack = st, .fn = fn, .ctx = ctx, .deadline_ns = -1};
    pthread_mutex_lock(&embed_reg_lock);
    struct embed *e = embed_find_locked(name);
    if (!e || !e->tasks) {
        pthread_mutex_unlock(&embed_reg_lock);
        if (!e)
            snprintf(err, errlen, "no in-process RTI named '%s' is running", name);
        else
            snprintf(err, errlen, "in-process RTI '%s' runs federates as threads, not tasks", name);
        embed_task_free(t);
        return -1;
    }
    t->e = e;
    struct embed_task **p = &e->task_head;
    while (*p)
        p = &(*p)->next;
    *p = t;
    pthread_mutex_unlock(&embed_reg_lock);
    return 0;
}

/* First instruction of a task, on its own stack. It never returns: once fn is done it
 * switches to the scheduler for good. */
static void task_entry(void)
{
    struct embed_task *t = embed_tl_task;
    t->fn(t->ctx);
    t->done = 1;
    embed_ctx_switch(&t->ctx_, &t->e->sched);
    abort(); /* the scheduler never resumes a finished task */
}

/* Give the thread back to the scheduler; returns when the scheduler runs this task again. */
static void task_yield(struct embed_task *t)
{
    embed_ctx_switch(&t->ctx_, &t->e->sched);
    embed_tl_task = t;
}

int embed_yield(void)
{
    struct embed_task *t = embed_tl_task;
    if (!t) return 0;
    t->wait = NULL;
    task_yield(t);
    return 1;
}

/* May the scheduler run t now? *now is read lazily (0: not yet); *next_dl gets the earliest
 * deadline of the tasks that must wait. */
static int task_ready(struct embed_task *t, int64_t *now, int64_t *next_dl)
{
    if (!t->started || !t->wait) return 1;
    if (atomic_load_explicit(&t->wait->avail, memory_order_acquire) || atomic_load(&t->wait->ended))
        return 1;
    if (t->deadline_ns < 0) return 0;
    if (!*now) *now = embed_clock_ns(CLOCK_MONOTONIC);
    if (*now >= t->deadline_ns) return 1;
    if (*next_dl < 0 || t->deadline_ns < *next_dl) *next_dl = t->deadline_ns;
    return 0;
}

static void task_switch_in(struct embed *e, struct embed_task *t)
{
    embed_tl_task = t;
    atomic_store(&e->current, t);
    if (!t->started) {
        embed_ctx_make(&t->ctx_, t->stack, EMBED_TASK_STACK, task_entry, &e->sched);
        t->started = 1;
    }
    embed_ctx_switch(&e->sched, &t->ctx_);
    atomic_store(&e->current, NULL);
    embed_tl_task = NULL;
}

/* Every live task waits without a time limit: nothing can wake them. Close their links so
 * that their reads fail with the reason, and they end. */
static void tasks_deadlock(struct embed *e)
{
    embed_lock(e);
    int n = 0;
    for (struct embed_task *t = e->task_head; t; t = t->next)
        if (!t->done && t->wait && !t->wait->link.closed) {
            embed_link_close(&t->wait->link,
                             "every in-process task waits for a message and none can come "
                             "(deadlock)",
                             0);
            n++;
        }
    embed_reap(e);
    embed_unlock(e);
    if (!n) /* waits on links already ended: wake them anyway */
        for (struct embed_task *t = e->task_head; t; t = t->next)
            if (!t->done) t->wait = NULL;
}

int embed_run(const char *name, char *err, size_t errlen)
{
    if (!name) name = "";
    pthread_mutex_lock(&embed_reg_lock);
    struct embed *e = embed_find_locked(name);
    const char *why = !e              ? "is not running"
                      : !e->tasks     ? "runs federates as threads, not tasks"
                      : e->running    ? "runs its tasks already"
                      : embed_tl_task ? "cannot be run from one of its tasks"
                                      : NULL;
    if (why) {
        pthread_mutex_unlock(&embed_reg_lock);
        snprintf(err, errlen, "in-process RTI '%s' %s", name, why);
        return -1;
    }
    e->running = 1;
    pthread_mutex_unlock(&embed_reg_lock);
    for (;;) {
        int alive = 0, ran = 0;
        int64_t now = 0, next_dl = -1;
        for (struct embed_task *t = e->task_head; t; t = t->next) {
            if (t->done) continue;
            alive++;
            if (!task_ready(t, &now, &next_dl)) continue; /* one clock read per pass */
            task_switch_in(e, t);
            ran++;
        }
        for (struct embed_task **p = &e->task_head; *p;) {
            struct embed_task *t = *p;
            if (t->done) {
                *p = t->next;
                embed_task_free(t);
            } else {
                p = &t->next;
            }
        }
        if (!alive) break;
        if (ran) continue;
        if (next_dl >= 0) { /* all wait, some with a deadline: sleep until the first */
            int64_t d = next_dl - embed_clock_ns(CLOCK_MONOTONIC);
            if (d > 0) nanosleep(&(struct timespec){d / 1000000000, d % 1000000000}, NULL);
        } else {
            tasks_deadlock(e);
        }
    }
    pthread_mutex_lock(&embed_reg_lock);
    e->running = 0;
    pthread_mutex_unlock(&embed_reg_lock);
    return 0;
}

/* embed_read in a task: instead of spinning or blocking, run the other tasks until bytes
 * arrive, the link ends or the time is up (timeout 0: let the others run once). */
int embed_read_task(struct embed_link *l, struct buf *in, int timeout_ms)
{
    struct embed_task *t = embed_tl_task;
    t->link = l;
    int64_t dl = -1;
    while (!atomic_load_explicit(&l->avail, memory_order_acquire) && !atomic_load(&l->ended)) {
        if (timeout_ms > 0 && dl < 0) /* read the clock only when it must wait */
            dl = embed_clock_ns(CLOCK_MONOTONIC) + (int64_t)timeout_ms * 1000000;
        t->wait = timeout_ms == 0 ? NULL : l;
        t->deadline_ns = dl;
        task_yield(t);
        t->wait = NULL;
        if (timeout_ms == 0 || atomic_load_explicit(&l->avail, memory_order_acquire) ||
            atomic_load(&l->ended))
            break;
        if (dl >= 0 && embed_clock_ns(CLOCK_MONOTONIC) >= dl)
            break; /* still nothing: the clock decides */
    }
    pthread_mutex_lock(&l->qm);
    int r = l->q.len > 0 ? embed_take_locked(l, in) : atomic_load(&l->ended) ? -1 : 0;
    pthread_mutex_unlock(&l->qm);
    return r;
}
