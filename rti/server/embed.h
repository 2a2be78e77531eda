/* An RTI embedded in a federate process: the server core (server.c and the modules it
 * dispatches to, the same rti/tm engine and federation log) behind in-memory links instead of
 * sockets. Federates are threads; whichever thread sends a frame runs the core on it under
 * the embedded RTI's lock, and the frames the core sends land in the receivers' queues, which
 * their threads read by spinning briefly, then blocking. libtempo's "inproc:NAME" transport
 * is its one user (federate/libtempo/client_conn.c). Serves doc/inproc.md.
 * Read rti/server/embed_impl.h next (the four files behind this header). */
#ifndef TEMPO_RTI_EMBED_H
#define TEMPO_RTI_EMBED_H

#include <stddef.h>
#include <stdint.h>

#include "rti/proto/buf.h"

#define EMBED_NAME_MAX        128 /* bytes of an embedded RTI's name, NUL included */
#define EMBED_SPIN_DEFAULT_US 50  /* µs a reader polls its queue before it blocks */

/* Options of an embedded RTI; zero fields mean the defaults. Strings are copied. */
struct embed_config {
    const char *flog_dir;  /* directory for federation logs (doc/log.md), NULL = none */
    const char *flog_only; /* comma-separated fnmatch(3) patterns of federations to log */
    const char *secret;    /* shared secret every JOIN must carry, NULL = none */
    int spin_us;           /* µs a reader polls before blocking: 0 = EMBED_SPIN_DEFAULT_US,
                              < 0 = never spin (block at once) */
    uint64_t shuffle_ties; /* test mode of tempo-rti --shuffle-ties; 0 = off */
    int tasks;             /* 1: federates are tasks on one thread (embed_spawn, embed_run),
                              not threads; 0: threads */
    /* Text log lines of this embedded RTI (rti/server/log.h format), NULL = none: the library
     * prints nothing itself. level: most verbose level passed (0 = errors only). Each RTI has
     * its own: two RTIs of one process log to their own callbacks at their own levels. */
    void (*log)(void *ctx, int level, const char *line);
    void *log_ctx;
    int log_level;
    void (*log_free)(void *log_ctx); /* called once the RTI is freed (its last link closed
                                        after embed_stop), or NULL: log_ctx is the caller's */
    const char *checkpoint_dir;      /* where saves are written (DIR/LABEL, doc/checkpoint.md), made
                                        when missing; NULL = saves are refused */
    const char *http; /* "HOST:PORT" (loopback): serve the live view from this RTI (doc/live.md,
                         "The in-process runner"), NULL = none; needs embed_set_view */
};

/* The live view of an embedded RTI: a thread of its own with an event loop that takes the
 * RTI's lock to read its state. Registered by the programs that link it
 * (rti/server/live_embed.c, with libevent); libtempo.so has none, and a start with cfg.http
 * then fails saying so. */
struct server;
typedef struct embed_view_ops {
    /* Serve the view of s on addr; lock is the RTI's lock. The view or NULL with err filled. */
    void *(*start)(struct server *s, void *lock, const char *addr, char *err, size_t errlen);
    void (*stop)(void *view);           /* stop the thread, close everything; lock not held */
    const char *(*address)(void *view); /* the bound "HOST:PORT" */
} embed_view_ops;
void embed_set_view(const embed_view_ops *ops);

/**
 * The bound address of the live view of the embedded RTI called name.
 * @return 0 with out filled, or -1 (no such RTI, or it serves no view).
 */
int embed_http_address(const char *name, char *out, size_t len);

/* One federate's link to an embedded RTI (opaque). */
struct embed_link;

/**
 * Start the embedded RTI called name ("" is the default one) with cfg.
 * @return 0, or -1 with err filled: the name is too long or already running, out of memory,
 *         or a log directory that cannot be used (named).
 */
int embed_start(const char *name, const struct embed_config *cfg, char *err, size_t errlen);

/**
 * Stop the embedded RTI called name: every federate still linked loses its link (resigned as
 * disconnected; its next read or write fails with the reason), every federation is destroyed
 * and its log closed. The name is free again once this returns.
 * @return 0, or -1 when no embedded RTI of that name runs (err says so).
 */
int embed_stop(const char *name, char *err, size_t errlen);

/**
 * Open a link to the embedded RTI called name, starting it with the defaults when it is not
 * running. The link then speaks the wire protocol (doc/protocol.md) like a socket: HELLO first.
 * @return the link (embed_close frees it), or NULL with err filled.
 */
struct embed_link *embed_connect(const char *name, char *err, size_t errlen);

/**
 * Hand bytes to the RTI: one or more whole frames, as libtempo encodes them. Runs the server
 * core on each frame in the calling thread (under the RTI's lock) and wakes the federates it
 * sends to. Does not block otherwise.
 * @return 0, or -1 when the link is closed (embed_reason says why).
 */
int embed_write(struct embed_link *l, const uint8_t *bytes, size_t n);

/**
 * Append the bytes queued for this federate to in. Waits up to timeout_ms (< 0: forever,
 * 0: not at all) for some: first polls for the configured spin, then blocks on a condition
 * variable.
 * @return bytes appended (> 0), 0 on timeout, -1 once the link is closed and its queue is
 *         empty (embed_reason), -2 when in cannot grow.
 */
int embed_read(struct embed_link *l, struct buf *in, int timeout_ms);

/** Why the link closed ("" while it is open). Valid until embed_close. */
const char *embed_reason(const struct embed_link *l);

/**
 * Close the link (the RTI resigns its federate, if still joined, as disconnected) and free it.
 * Flushes the federation logs. Accepts NULL.
 */
void embed_close(struct embed_link *l);

/**
 * Add a task to an embedded RTI started with cfg.tasks = 1: fn(ctx) will run on its own stack
 * (EMBED_TASK_STACK bytes, reserved lazily) when embed_run runs the tasks, interleaved with the
 * others on the thread that calls embed_run. A link opened inside a task belongs to it: a
 * read that would wait switches to the next runnable task instead. May be called before
 * embed_run or from a running task.
 * @return 0, or -1 with err filled: no such RTI, not in task mode, out of memory.
 */
int embed_spawn(const char *name, void (*fn)(void *ctx), void *ctx, char *err, size_t errlen);

/**
 * Run the tasks of the embedded RTI called name on the calling thread until every one has
 * returned (cooperative: a task runs until it returns or waits for its queue). When every
 * task left waits without a time limit, nothing can wake them: their links are closed with
 * that reason (their reads fail) so that they end.
 * @return 0, or -1 with err filled: no such RTI, not in task mode, already running.
 */
int embed_run(const char *name, char *err, size_t errlen);

/**
 * The "who waits for whom" lines of every federation of the embedded RTI called name, as
 * tempo-rti logs them on SIGUSR1 (the federates' time states, then the federate to look at),
 * handed to emit one by one. Safe from any thread, a task's included, while the federates
 * are stuck: it waits at most 100 ms for a federate inside the core.
 * @return 0, or -1 with err filled: no such RTI, or the core stayed busy.
 */
int embed_status(const char *name, void (*emit)(void *ctx, const char *line), void *ctx, char *err,
                 size_t errlen);

/** In a task: let the other runnable tasks run, then return 1. Elsewhere: return 0 at once. */
int embed_yield(void);

#define EMBED_TASK_STACK (8u << 20) /* bytes of address space per task (a thread's default) */

#endif
