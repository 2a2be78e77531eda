/* The links of the embedded RTI (embed.h: embed_connect, embed_write, embed_read, embed_close):
 * what the core sees as a link (link.h: its frames land in the federate's in-memory queue) and
 * what the federate's thread does with it (writes run the core under the RTI's lock, reads take
 * the queue, spinning briefly before they block). Serves doc/inproc.md. Read rti/server/server.c
 * next (the core every frame goes through). */
#define _GNU_SOURCE /* PTHREAD_MUTEX_ADAPTIVE_NP (embed_lock_init) */
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "rti/proto/wire.h"
#include "rti/server/embed_impl.h"
#include "rti/server/server_impl.h"

#define EMBED_SPIN_PAUSES 64 /* polls with a pause instruction before the spin yields */
#define EMBED_FLUSH_NS                                                                             \
    (200 * 1000000LL) /* federation logs reach the disk at least this often                        \
                         while frames flow (as tempo-rti's timer) */

static uint64_t next_link_id = 1; /* under embed_reg_lock */

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

void embed_link_close(struct link *lk, const char *reason, int flush)
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
        embed_link_close(lk, why, 0);
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

static const struct link_ops embed_link_ops = {link_send_op, embed_link_close, link_label_op, NULL};

/* Run on_close for the links the core closed during the last frames (deferred, as conn.c
 * does at the end of an event). */
void embed_reap(struct embed *e)
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

/* ---- a federate's side of its link (embed.h) ------------------------------------------------- */

struct embed_link *embed_connect(const char *name, char *err, size_t errlen)
{
    static const struct embed_config zero;
    if (!name) name = "";
    struct embed_link *l = calloc(1, sizeof *l);
    if (!l) {
        snprintf(err, errlen, "in-process RTI '%s': out of memory", name);
        return NULL;
    }
    pthread_mutex_lock(&embed_reg_lock);
    struct embed *e = embed_find_locked(name);
    if (!e) e = embed_create_locked(name, &zero, err, errlen);
    if (!e) {
        pthread_mutex_unlock(&embed_reg_lock);
        free(l);
        return NULL;
    }
    if (e->tasks && (!embed_tl_task || embed_tl_task->e != e)) {
        snprintf(err, errlen,
                 "in-process RTI '%s' runs its federates as tasks: join from a task it runs "
                 "(tp_inproc_spawn)",
                 name);
        pthread_mutex_unlock(&embed_reg_lock);
        free(l);
        return NULL;
    }
    l->id = next_link_id++;
    embed_lock(e); /* under embed_reg_lock: e cannot be stopped meanwhile */
    pthread_mutex_unlock(&embed_reg_lock);
    l->e = e;
    l->link.ops = &embed_link_ops;
    l->link.label = l->label;
    snprintf(l->link.addr, sizeof l->link.addr, "inproc"); /* one address: this process */
    snprintf(l->label, sizeof l->label, "inproc#%llu (%s)", (unsigned long long)l->id,
             e->name[0] ? e->name : "default");
    embed_lock_init(&l->qm);
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
    embed_unlock(e);
    return l;
}

int embed_write(struct embed_link *l, const uint8_t *bytes, size_t n)
{
    struct embed *e = l->e;
    embed_lock(e);
    if (l->link.closed || !e->s) {
        embed_unlock(e);
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
            embed_link_close(&l->link, msg, 0);
            break;
        }
        if (server_on_frame(e->s, &l->link, bytes + off, flen) < 0) break;
        off += flen;
    }
    embed_reap(e);
    /* the lock's wall-clock stamp serves: a clock step back only delays one flush */
    if (e->now_ns - e->flushed_ns > EMBED_FLUSH_NS || e->now_ns < e->flushed_ns)
        embed_flush_logs(e);
    int rc = l->link.closed ? -1 : 0;
    embed_unlock(e);
    return rc;
}

/* Move what q holds into in; l->qm held. */
int embed_take_locked(struct embed_link *l, struct buf *in)
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
    if (embed_tl_task && embed_tl_task->e == l->e) return embed_read_task(l, in, timeout_ms);
    /* 1. Spin: poll the flag without the queue lock for at most spin_us. */
    if (timeout_ms != 0 && l->e->spin_us > 0 && !atomic_load(&l->avail) &&
        !atomic_load(&l->ended)) {
        int64_t until = embed_clock_ns(CLOCK_MONOTONIC) + (int64_t)l->e->spin_us * 1000;
        int spins = 0;
        while (!atomic_load_explicit(&l->avail, memory_order_acquire) && !atomic_load(&l->ended)) {
            /* A few pauses, then yield the CPU between polls: on a machine with more runnable
             * threads than CPUs the thread we wait for may need this one. */
            if (++spins < EMBED_SPIN_PAUSES)
                cpu_relax();
            else
                sched_yield();
            if (spins % 16 == 0 && embed_clock_ns(CLOCK_MONOTONIC) >= until) break;
        }
    }
    pthread_mutex_lock(&l->qm);
    if (l->q.len > 0) {
        r = embed_take_locked(l, in);
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
        r = embed_take_locked(l, in);
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
        embed_reap(e);
        embed_flush_logs(e);
    }
    if (l->prev)
        l->prev->next = l->next;
    else
        e->links = l->next;
    if (l->next) l->next->prev = l->prev;
    embed_unref_unlock(e);
    pthread_cond_destroy(&l->qc);
    pthread_mutex_destroy(&l->qm);
    buf_fini(&l->q);
    free(l);
}
