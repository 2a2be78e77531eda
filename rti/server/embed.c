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
#include <sys/mman.h>
#include <time.h>

#define EMBED_SPIN_PAUSES 64 /* polls with a pause instruction before the spin yields */
#define EMBED_FLUSH_NS                                                                             \
    (200 * 1000000LL) /* federation logs reach the disk at least this often                        \
                         while frames flow (as tempo-rti's timer) */

/* ---- context switch -------------------------------------------------------------------------
 * On x86-64 a task switch saves the callee-saved registers, the SSE and x87 control words on
 * the old stack, stores its stack pointer and loads the other's: about 20 instructions and no
 * system call. glibc's swapcontext also saves the signal mask with rt_sigprocmask, a system
 * call per switch, which on this project's VMs was 40 % of an in-process macro step (perf).
 * Tasks never change the signal mask (doc/inproc.md), so it need not follow them. Other
 * architectures use ucontext. */
#if defined(__x86_64__) && !defined(EMBED_UCONTEXT) /* -DEMBED_UCONTEXT: the portable path */
struct embed_ctx {
    void *sp; /* saved stack pointer; the registers are on that stack */
};
void tempo_embed_switch(void **save_sp, void *load_sp);
__asm__(".pushsection .text\n"
        ".globl tempo_embed_switch\n"
        ".hidden tempo_embed_switch\n"
        ".type tempo_embed_switch,@function\n"
        "tempo_embed_switch:\n"
        "  pushq %rbp\n"
        "  pushq %rbx\n"
        "  pushq %r12\n"
        "  pushq %r13\n"
        "  pushq %r14\n"
        "  pushq %r15\n"
        "  subq $8, %rsp\n"
        "  stmxcsr (%rsp)\n"
        "  fnstcw 4(%rsp)\n"
        "  movq %rsp, (%rdi)\n"
        "  movq %rsi, %rsp\n"
        "  ldmxcsr (%rsp)\n"
        "  fldcw 4(%rsp)\n"
        "  addq $8, %rsp\n"
        "  popq %r15\n"
        "  popq %r14\n"
        "  popq %r13\n"
        "  popq %r12\n"
        "  popq %rbx\n"
        "  popq %rbp\n"
        "  ret\n"
        ".size tempo_embed_switch, .-tempo_embed_switch\n"
        ".popsection\n");

static void ctx_switch(struct embed_ctx *save, struct embed_ctx *load)
{
    tempo_embed_switch(&save->sp, load->sp);
}

/* A new context that starts in entry() on the stack [stack, stack + size): the frame
 * tempo_embed_switch pops (control words, six registers, the return address = entry),
 * aligned so that entry sees the stack the ABI promises a called function. */
static void ctx_make(struct embed_ctx *c, void *stack, size_t size, void (*entry)(void),
                     struct embed_ctx *back)
{
    (void)back;
    uintptr_t top = ((uintptr_t)stack + size) & ~(uintptr_t)15;
    uint64_t *sp = (uint64_t *)(top - 16);
    sp[0] = (uint64_t)(uintptr_t)entry; /* address A, A % 16 == 0: popped by ret */
    sp[1] = 0;                          /* what entry sees as its return address */
    sp -= 6;                            /* r15 r14 r13 r12 rbx rbp (zero) */
    for (int i = 0; i < 6; i++)
        sp[i] = 0;
    /* MXCSR and the x87 control word of the thread that makes the task (rounding, flush to
     * zero, exception masks): a task computes as the same code would on that thread, as the
     * ucontext path and the thread mode do. */
    uint32_t mxcsr = 0;
    uint16_t fcw = 0;
    __asm__ volatile("stmxcsr %0" : "=m"(mxcsr));
    __asm__ volatile("fnstcw %0" : "=m"(fcw));
    uint32_t words[2] = {mxcsr, fcw};
    sp -= 1;
    memcpy(sp, words, sizeof words);
    c->sp = sp;
}
#else
#include <ucontext.h>

struct embed_ctx {
    ucontext_t uc;
};

static void ctx_switch(struct embed_ctx *save, struct embed_ctx *load)
{
    swapcontext(&save->uc, &load->uc);
}

static void ctx_make(struct embed_ctx *c, void *stack, size_t size, void (*entry)(void),
                     struct embed_ctx *back)
{
    getcontext(&c->uc);
    c->uc.uc_stack.ss_sp = stack;
    c->uc.uc_stack.ss_size = size;
    c->uc.uc_link = &back->uc;
    makecontext(&c->uc, entry, 0);
}
#endif

/* A federate run as a task (cfg.tasks): its own stack, switched to and from by embed_run's
 * scheduler on one thread (ucontext). */
struct embed_task {
    struct embed_ctx ctx_;   /* its context while it is switched out */
    struct embed *e;         /* its RTI */
    void *stack;             /* EMBED_TASK_STACK bytes, a guard page at the low end */
    void (*fn)(void *ctx);   /* what it runs, and its argument */
    void *ctx;               /* passed to fn */
    int started, done;       /* 1: its context was made / fn returned */
    struct embed_link *wait; /* the queue it waits on; NULL: runnable */
    int64_t deadline_ns;     /* monotonic end of that wait; -1: none */
    struct embed_task *next; /* e->task_head list, in spawn order */
};

static void task_free(struct embed_task *t);

/* The task running on this thread (NULL on the scheduler's own stack and in thread mode). */
static _Thread_local struct embed_task *tl_task;

struct embed {
    char name[EMBED_NAME_MAX];
    pthread_mutex_t lock; /* the core's lock */
    struct server *s;     /* the core; NULL once stopped */
    int refs;             /* open links (+1 while registered) */
    int spin_us;          /* reader spin, µs (0: none) */
    int64_t now_ns;       /* wall clock taken when the lock was last acquired (log stamps) */
    int64_t flushed_ns;   /* wall-clock time of the last federation log flush */
    char flog_dir[4096];  /* copies of the config strings ("" = none) */
    char flog_only[1024];
    char secret[256];
    struct embed_link *links;      /* open links */
    struct embed_link *close_head; /* links the core closed, on_close not yet run */
    struct embed *next;            /* registry */
    int tasks;                     /* 1: federates are tasks on one thread (embed_run) */
    int running;                   /* 1: embed_run is running the tasks */
    struct embed_task *task_head;  /* tasks not yet reaped, in spawn order */
    struct embed_ctx sched;        /* the scheduler's context while a task runs */
    void *view;                    /* its live view (cfg.http, view_ops), or NULL */
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
static const embed_view_ops *view_ops; /* embed_set_view: NULL in libtempo.so alone */

void embed_set_view(const embed_view_ops *ops)
{
    view_ops = ops;
}
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
    e->flushed_ns = real_ns();
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
    e->tasks = cfg->tasks != 0;
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
    if (cfg->http && cfg->http[0]) { /* the live view (doc/live.md "The in-process runner") */
        char why[300] = "";
        if (view_ops) e->view = view_ops->start(s, &e->lock, cfg->http, why, sizeof why);
        if (!e->view) {
            snprintf(err, errlen, "in-process RTI '%s': %s", name,
                     view_ops
                         ? why
                         : "this library has no live view (tempo-fmu and tempo-master serve it)");
            server_core_fini(s);
            free(s);
            embed_free(e);
            return NULL;
        }
    }
    e->refs = 1; /* the registry's */
    e->flushed_ns = real_ns();
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
    if (e->running) {
        pthread_mutex_unlock(&reg_lock);
        snprintf(err, errlen,
                 "in-process RTI '%s' is running its tasks: stop it once embed_run returned", name);
        return -1;
    }
    while (e->task_head) { /* spawned and never run */
        struct embed_task *t = e->task_head;
        e->task_head = t->next;
        task_free(t);
    }
    for (struct embed **p = &reg_head; *p; p = &(*p)->next)
        if (*p == e) {
            *p = e->next;
            break;
        }
    pthread_mutex_unlock(&reg_lock);
    if (e->view) view_ops->stop(e->view); /* takes e->lock itself: not held here */
    e->view = NULL;
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

int embed_http_address(const char *name, char *out, size_t len)
{
    pthread_mutex_lock(&reg_lock);
    struct embed *e = find_locked(name ? name : "");
    int rc = e && e->view ? 0 : -1;
    if (rc == 0) snprintf(out, len, "%s", view_ops->address(e->view));
    pthread_mutex_unlock(&reg_lock);
    return rc;
}

/* ---- tasks (cfg.tasks: every federate a task on the thread that calls embed_run) --------- */

static void task_free(struct embed_task *t)
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
    pthread_mutex_lock(&reg_lock);
    struct embed *e = find_locked(name);
    if (!e || !e->tasks) {
        pthread_mutex_unlock(&reg_lock);
        if (!e)
            snprintf(err, errlen, "no in-process RTI named '%s' is running", name);
        else
            snprintf(err, errlen, "in-process RTI '%s' runs federates as threads, not tasks", name);
        task_free(t);
        return -1;
    }
    t->e = e;
    struct embed_task **p = &e->task_head;
    while (*p)
        p = &(*p)->next;
    *p = t;
    pthread_mutex_unlock(&reg_lock);
    return 0;
}

/* First instruction of a task, on its own stack. It never returns: once fn is done it
 * switches to the scheduler for good. */
static void task_entry(void)
{
    struct embed_task *t = tl_task;
    t->fn(t->ctx);
    t->done = 1;
    ctx_switch(&t->ctx_, &t->e->sched);
    abort(); /* the scheduler never resumes a finished task */
}

/* Give the thread back to the scheduler; returns when the scheduler runs this task again. */
static void task_yield(struct embed_task *t)
{
    ctx_switch(&t->ctx_, &t->e->sched);
    tl_task = t;
}

int embed_yield(void)
{
    struct embed_task *t = tl_task;
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
    if (!*now) *now = mono_ns();
    if (*now >= t->deadline_ns) return 1;
    if (*next_dl < 0 || t->deadline_ns < *next_dl) *next_dl = t->deadline_ns;
    return 0;
}

static void task_switch_in(struct embed *e, struct embed_task *t)
{
    tl_task = t;
    if (!t->started) {
        ctx_make(&t->ctx_, t->stack, EMBED_TASK_STACK, task_entry, &e->sched);
        t->started = 1;
    }
    ctx_switch(&e->sched, &t->ctx_);
    tl_task = NULL;
}

/* Every live task waits without a time limit: nothing can wake them. Close their links so
 * that their reads fail with the reason, and they end. */
static void tasks_deadlock(struct embed *e)
{
    embed_lock(e);
    int n = 0;
    for (struct embed_task *t = e->task_head; t; t = t->next)
        if (!t->done && t->wait && !t->wait->link.closed) {
            link_close_op(&t->wait->link,
                          "every in-process task waits for a message and none can come "
                          "(deadlock)",
                          0);
            n++;
        }
    reap(e);
    pthread_mutex_unlock(&e->lock);
    if (!n) /* waits on links already ended: wake them anyway */
        for (struct embed_task *t = e->task_head; t; t = t->next)
            if (!t->done) t->wait = NULL;
}

int embed_run(const char *name, char *err, size_t errlen)
{
    if (!name) name = "";
    pthread_mutex_lock(&reg_lock);
    struct embed *e = find_locked(name);
    const char *why = !e           ? "is not running"
                      : !e->tasks  ? "runs federates as threads, not tasks"
                      : e->running ? "runs its tasks already"
                      : tl_task    ? "cannot be run from one of its tasks"
                                   : NULL;
    if (why) {
        pthread_mutex_unlock(&reg_lock);
        snprintf(err, errlen, "in-process RTI '%s' %s", name, why);
        return -1;
    }
    e->running = 1;
    pthread_mutex_unlock(&reg_lock);
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
                task_free(t);
            } else {
                p = &t->next;
            }
        }
        if (!alive) break;
        if (ran) continue;
        if (next_dl >= 0) { /* all wait, some with a deadline: sleep until the first */
            int64_t d = next_dl - mono_ns();
            if (d > 0) nanosleep(&(struct timespec){d / 1000000000, d % 1000000000}, NULL);
        } else {
            tasks_deadlock(e);
        }
    }
    pthread_mutex_lock(&reg_lock);
    e->running = 0;
    pthread_mutex_unlock(&reg_lock);
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
    if (e->tasks && (!tl_task || tl_task->e != e)) {
        snprintf(err, errlen,
                 "in-process RTI '%s' runs its federates as tasks: join from a task it runs "
                 "(tp_inproc_spawn)",
                 name);
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
    snprintf(l->link.addr, sizeof l->link.addr, "inproc"); /* one address: this process */
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
    /* the lock's wall-clock stamp serves: a clock step back only delays one flush */
    if (e->now_ns - e->flushed_ns > EMBED_FLUSH_NS || e->now_ns < e->flushed_ns) flush_logs(e);
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

/* embed_read in a task: instead of spinning or blocking, run the other tasks until bytes
 * arrive, the link ends or the time is up (timeout 0: let the others run once). */
static int read_task(struct embed_link *l, struct buf *in, int timeout_ms)
{
    struct embed_task *t = tl_task;
    int64_t dl = -1;
    while (!atomic_load_explicit(&l->avail, memory_order_acquire) && !atomic_load(&l->ended)) {
        if (timeout_ms > 0 && dl < 0) /* read the clock only when it must wait */
            dl = mono_ns() + (int64_t)timeout_ms * 1000000;
        t->wait = timeout_ms == 0 ? NULL : l;
        t->deadline_ns = dl;
        task_yield(t);
        t->wait = NULL;
        if (timeout_ms == 0 || atomic_load_explicit(&l->avail, memory_order_acquire) ||
            atomic_load(&l->ended))
            break;
        if (dl >= 0 && mono_ns() >= dl) break; /* still nothing: the clock decides */
    }
    pthread_mutex_lock(&l->qm);
    int r = l->q.len > 0 ? take_locked(l, in) : atomic_load(&l->ended) ? -1 : 0;
    if (r > 0) l->n_spun++;
    pthread_mutex_unlock(&l->qm);
    return r;
}

int embed_read(struct embed_link *l, struct buf *in, int timeout_ms)
{
    int r = 0;
    if (tl_task && tl_task->e == l->e) return read_task(l, in, timeout_ms);
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
