/* The live view of an embedded RTI (doc/live.md, "The in-process runner"): a thread of its
 * own running a libevent loop with live.c's listener and sampler, which take the RTI's lock
 * (server.view_lock) around each read of its state. Linked into the programs that run an
 * in-process federation (tempo-fmu, tempo-master: their _SRCS), not into libtempo.so, which has
 * no libevent; it registers itself with embed.c when the program starts. Read
 * rti/server/live.c first. */
#define _GNU_SOURCE /* pipe2 */
#include "rti/server/embed.h"
#include "rti/server/live_impl.h"

#include <event2/event.h>
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

struct live_thread {
    struct server *s;
    struct event_base *base;
    struct event *wake; /* readable end of pipe: stop the loop */
    int pipe[2];        /* -1 when not open */
    pthread_t thr;
};

static void *view_main(void *arg)
{
    struct live_thread *t = arg;
    /* A viewer that goes away makes a write fail with EPIPE here, never a SIGPIPE that would
     * end the whole run (tempo-rti ignores it; the programs that embed an RTI do not). A
     * thread-directed SIGPIPE stays pending on this thread and is dropped with it. */
    sigset_t pipe_set;
    sigemptyset(&pipe_set);
    sigaddset(&pipe_set, SIGPIPE);
    pthread_sigmask(SIG_BLOCK, &pipe_set, NULL);
    event_base_dispatch(t->base);
    return NULL;
}

static void wake_cb(evutil_socket_t fd, short what, void *arg)
{
    struct live_thread *t = arg;
    event_base_loopbreak(t->base);
    (void)fd;
    (void)what;
}

/* Undo a start, the thread not running; lock not held. */
static void view_free(struct live_thread *t)
{
    pthread_mutex_t *m = t->s->view_lock;
    if (m) pthread_mutex_lock(m);
    live_stop(t->s);
    t->s->base = NULL;
    t->s->view_lock = NULL;
    if (m) pthread_mutex_unlock(m);
    if (t->wake) event_free(t->wake);
    if (t->base) event_base_free(t->base);
    for (int i = 0; i < 2; i++)
        if (t->pipe[i] >= 0) close(t->pipe[i]);
    free(t);
}

static void *view_start(struct server *s, void *lock, const char *addr, char *err, size_t errlen)
{
    struct live_thread *t = calloc(1, sizeof *t);
    if (!t) {
        snprintf(err, errlen, "--http: out of memory");
        return NULL;
    }
    t->s = s;
    t->pipe[0] = t->pipe[1] = -1;
    if (pipe2(t->pipe, O_CLOEXEC | O_NONBLOCK) != 0 || !(t->base = event_base_new()) ||
        !(t->wake = event_new(t->base, t->pipe[0], EV_READ, wake_cb, t)) ||
        event_add(t->wake, NULL) != 0) {
        snprintf(err, errlen, "--http: cannot set up the view's event loop");
        view_free(t);
        return NULL;
    }
    s->base = t->base;
    s->view_lock = lock;
    pthread_mutex_lock(lock);
    int rc = live_start(s, addr, err, errlen);
    pthread_mutex_unlock(lock);
    if (rc != 0 || pthread_create(&t->thr, NULL, view_main, t) != 0) {
        if (rc == 0) snprintf(err, errlen, "--http: cannot start the view's thread");
        view_free(t);
        return NULL;
    }
    return t;
}

static void view_stop(void *view)
{
    struct live_thread *t = view;
    if (write(t->pipe[1], "x", 1) != 1) event_base_loopbreak(t->base); /* then within 1 s */
    pthread_join(t->thr, NULL);
    view_free(t);
}

static const char *view_address(void *view)
{
    struct live_thread *t = view;
    return live_address(t->s);
}

__attribute__((constructor)) static void live_embed_register(void)
{
    static const embed_view_ops ops = {view_start, view_stop, view_address};
    embed_set_view(&ops);
}
