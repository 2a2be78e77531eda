/* The embedded RTI's insides, shared by its four files (embed.h is the contract):
 * embed.c the registry of named RTIs (start, stop, the lock, the log of each), embed_link.c the
 * links the core sends to (in-memory queues), embed_task.c the scheduler of task mode, and
 * embed_ctx.c the context switch it uses. Serves doc/inproc.md. Read rti/server/embed.c next.
 *
 * Locks: the RTI's lock (e->lock) serialises the core; a link's queue lock (l->qm) guards its
 * queue. Order: e->lock before l->qm, never the other way round; the registry lock is taken
 * before either and never while holding one. A federate thread reads its queue with l->qm
 * alone, so readers never wait for the core. */
#ifndef TEMPO_RTI_SERVER_EMBED_IMPL_H
#define TEMPO_RTI_SERVER_EMBED_IMPL_H

#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>
#include <time.h>

#include "rti/proto/buf.h"
#include "rti/server/embed.h"
#include "rti/server/link.h"
#include "rti/server/log.h"

/* ---- context switch (embed_ctx.c) ---------------------------------------------------------- */

#if defined(__x86_64__) && !defined(EMBED_UCONTEXT) /* -DEMBED_UCONTEXT: the portable path */
struct embed_ctx {
    void *sp; /* saved stack pointer; the registers are on that stack */
};
#else
#include <ucontext.h>
struct embed_ctx {
    ucontext_t uc;
};
#endif

/* Save the running context in save and resume load. */
void embed_ctx_switch(struct embed_ctx *save, struct embed_ctx *load);

/* A new context c that starts in entry() on the stack [stack, stack + size); back is where a
 * returning entry would go (the ucontext path; entry never returns here). */
void embed_ctx_make(struct embed_ctx *c, void *stack, size_t size, void (*entry)(void),
                    struct embed_ctx *back);

/* ---- the registry's RTI and a task (embed.c, embed_task.c) ----------------------------------- */

/* A federate run as a task (cfg.tasks): its own stack, switched to and from by embed_run's
 * scheduler on one thread. */
struct embed_task {
    struct embed_ctx ctx_;   /* its context while it is switched out */
    struct embed *e;         /* its RTI */
    void *stack;             /* EMBED_TASK_STACK bytes, a guard page at the low end */
    void (*fn)(void *ctx);   /* what it runs, and its argument */
    void *ctx;               /* passed to fn */
    int started, done;       /* 1: its context was made / fn returned */
    struct embed_link *wait; /* the queue it waits on; NULL: runnable */
    struct embed_link *link; /* the link it last read (its federate's), NULL before */
    int64_t deadline_ns;     /* monotonic end of that wait; -1: none */
    struct embed_task *next; /* e->task_head list, in spawn order */
};

struct embed {
    char name[EMBED_NAME_MAX];
    pthread_mutex_t lock; /* the core's lock */
    struct server *s;     /* the core; NULL once stopped */
    int refs;             /* open links (+1 while registered) */
    int spin_us;          /* reader spin, µs (0: none) */
    int64_t now_ns;       /* wall clock taken when the lock was last acquired: the federation
                             logs' flush timer (embed_write) */
    int64_t flushed_ns;   /* wall-clock time of the last federation log flush */
    char flog_dir[4096];  /* copies of the config strings ("" = none) */
    char flog_only[1024];
    char secret[256];
    char ckpt_dir[4096];           /* tp_inproc_options.checkpoint_dir ("" = none) */
    struct log_scope log;          /* this RTI's text log (cfg.log, its level), set while locked */
    void (*log_free)(void *);      /* cfg.log_free: frees log.ctx with the RTI, or NULL */
    struct embed_link *links;      /* open links */
    struct embed_link *close_head; /* links the core closed, on_close not yet run */
    struct embed *next;            /* registry */
    int tasks;                     /* 1: federates are tasks on one thread (embed_run) */
    int running;                   /* 1: embed_run is running the tasks */
    struct embed_task *task_head;  /* tasks not yet reaped, in spawn order */
    struct embed_ctx sched;        /* the scheduler's context while a task runs */
    struct embed_task *_Atomic current; /* the task running now; NULL: the scheduler runs */
    void *view;                         /* its live view (cfg.http, embed_set_view), or NULL */
};

struct embed_link {
    struct link link;   /* what the core sees (first member) */
    struct embed *e;    /* its RTI */
    char label[256];    /* log name: "inproc#3", later "federate@federation" */
    uint64_t id;        /* 1, 2, ... per process */
    pthread_mutex_t qm; /* guards q, sleeping and ended */
    pthread_cond_t qc;  /* signalled when q gains bytes or the link ends */
    struct buf q;       /* frames queued for the federate */
    atomic_int avail;   /* 1: q may hold bytes (read without qm while spinning) */
    atomic_int ended;   /* 1: closed for the server; the reader gets -1 once q is empty */
    int sleeping;       /* 1: the reader waits on qc */
    size_t max_queued;  /* bytes q may hold before the federate is dropped */
    int close_flush;    /* 1: orderly close (queued output stays readable) */
    int on_close_done;  /* 1: server_on_close ran */
    char reason[600];   /* why it closed */
    struct embed_link *prev, *next; /* e->links */
    struct embed_link *close_next;  /* e->close_head */
};

/* ---- the registry (embed.c) ----------------------------------------------------------------- */

extern pthread_mutex_t embed_reg_lock; /* guards the registry, e->tasks, e->running */

/* The RTI called name, or NULL; embed_reg_lock held. */
struct embed *embed_find_locked(const char *name);
/* Create and register an RTI; embed_reg_lock held. NULL with err filled on failure. */
struct embed *embed_create_locked(const char *name, const struct embed_config *cfg, char *err,
                                  size_t errlen);
/* Drop one reference (e->lock held): unlocks, and frees e when it was the last. */
void embed_unref_unlock(struct embed *e);

static inline int64_t embed_clock_ns(clockid_t c)
{
    struct timespec ts;
    clock_gettime(c, &ts);
    return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

/* Take the core's lock: the wall-clock stamp of the batch and this RTI's log for the thread. */
static inline void embed_lock(struct embed *e)
{
    pthread_mutex_lock(&e->lock);
    e->now_ns = embed_clock_ns(CLOCK_REALTIME);
    log_scope_enter(&e->log);
}

static inline void embed_unlock(struct embed *e)
{
    log_scope_enter(NULL);
    pthread_mutex_unlock(&e->lock);
}

/* Flush every federation log of e (e->lock held). */
void embed_flush_logs(struct embed *e);
/* A lock that spins briefly before it sleeps. */
void embed_lock_init(pthread_mutex_t *m);

/* ---- links (embed_link.c) ---------------------------------------------------------------- */

/* Close a link for the core (deferred: reap runs on_close); e->lock held. */
void embed_link_close(struct link *lk, const char *reason, int flush);
/* Run on_close for the links the core closed (e->lock held). */
void embed_reap(struct embed *e);
/* Move what l's queue holds into in (l->qm held): bytes moved, or -2 when in cannot grow. */
int embed_take_locked(struct embed_link *l, struct buf *in);

/* ---- tasks (embed_task.c) ---------------------------------------------------------------- */

/* The task running on this thread (NULL on the scheduler's own stack and in thread mode). */
extern _Thread_local struct embed_task *embed_tl_task;

void embed_task_free(struct embed_task *t);
/* embed_read in a task: run the other tasks until bytes arrive, the link ends or time is up. */
int embed_read_task(struct embed_link *l, struct buf *in, int timeout_ms);

#endif
