/* The RTI server over sockets: the libevent loop, its connections (conn.c) as the core's links,
 * signals, the federation log's flush timer, start and stop. The core (server.c) decides
 * everything; embed.c runs the same core inside a federate process instead.
 * Serves doc/rti.md. Read rti/server/server.c next. */
#include "rti/server/server_impl.h"

#include "rti/flog/flog.h"
#include "rti/server/log.h"

#include <event2/event.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define FLOG_FLUSH_MS 200 /* federation logs reach the disk at least this often */

/* ---- connections as links ------------------------------------------------------------------ */

static int tcp_frame(void *ctx, struct conn *c, const uint8_t *frame, size_t len)
{
    return server_on_frame(ctx, &c->link, frame, len);
}

static void tcp_close(void *ctx, struct conn *c, const char *reason)
{
    server_on_close(ctx, &c->link, reason, c->peer_gone);
}

/* ---- signals and the "who blocks whom" dump ------------------------------------------------ */

static void stop_cb(evutil_socket_t sig, short what, void *arg)
{
    struct server *s = arg;
    LOGI("server", "-", "signal %d: shutting down", (int)sig);
    server_stop(s);
}

static void usr1_cb(evutil_socket_t sig, short what, void *arg)
{
    struct server *s = arg;
    /* Written whatever the level: the operator asked for it. */
    log_write(LOG_LV_INFO, "server", "-", "status: %u federation(s), %zu connection(s)",
              s->n_federations, s->hub.n_conns);
    for (struct federation *fx = s->feds; fx; fx = fx->next)
        timesvc_dump(s, fx);
}

/* Every FLOG_FLUSH_MS: write the buffered federation log records, so that a crash loses at
 * most that much; report a writer that stopped. A log quiet for FLOG_ALIVE_NS gets a NOTE
 * "rti alive": a hung federation's log then shows how long its waits really last, and a log
 * that ends without the closing NOTE says within a second when the RTI stopped (doc/log.md). */
static void flog_timer_cb(evutil_socket_t fd, short what, void *arg)
{
    struct server *s = arg;
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    int64_t now = (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
    for (struct federation *fx = s->feds; fx; fx = fx->next) {
        if (fx->flog && now - flog_last_stamp(fx->flog) >= FLOG_ALIVE_NS)
            flog_note(fx->flog, 0, FLOG_NOTE_ALIVE);
        flog_flush(fx->flog);
        federation_flog_check(fx);
    }
}

/* ---- life cycle ----------------------------------------------------------------------------- */

int server_new(const struct server_config *cfg, struct server **out, char *err, size_t errlen)
{
    *out = NULL;
    struct server *s = calloc(1, sizeof *s);
    if (!s) {
        snprintf(err, errlen, "out of memory");
        return -1;
    }
    server_core_init(s, cfg);
    s->base = event_base_new();
    if (!s->base) {
        snprintf(err, errlen, "event_base_new failed");
        free(s);
        return -1;
    }
    struct conn_limits lim = {.max_frame = cfg->max_frame,
                              .max_queued = cfg->max_queued,
                              .stall_ms = cfg->stall_ms,
                              .hello_ms = cfg->hello_ms,
                              .frame_ms = cfg->frame_ms,
                              .max_conns = cfg->max_conns,
                              .peer_ms = cfg->peer_ms < 0    ? 0
                                         : cfg->peer_ms == 0 ? CONN_DEFAULT_PEER_MS
                                                             : cfg->peer_ms,
                              .max_total_queued = cfg->max_total_queued
                                                      ? cfg->max_total_queued
                                                      : SERVER_MAX_TOTAL_QUEUED_DEFAULT};
    struct conn_ops ops = {.on_frame = tcp_frame, .on_close = tcp_close};
    if (conn_hub_init(&s->hub, s->base, &lim, &ops, s, err, errlen) != 0) goto fail;
    if (s->cfg.listen[0] && conn_hub_listen_tcp(&s->hub, s->cfg.listen, s->cfg.allow_remote,
                                                s->address, sizeof s->address, err, errlen) != 0)
        goto fail;
    if (s->cfg.unix_path && conn_hub_listen_unix(&s->hub, s->cfg.unix_path, err, errlen) != 0)
        goto fail;
    if (s->cfg.http_listen && live_start(s, s->cfg.http_listen, err, errlen) != 0) goto fail;
    if (!s->cfg.listen[0] && !s->cfg.unix_path) {
        snprintf(err, errlen, "no listener: give --listen or --unix");
        goto fail;
    }
    s->sigint = evsignal_new(s->base, SIGINT, stop_cb, s);
    s->sigterm = evsignal_new(s->base, SIGTERM, stop_cb, s);
    s->sigusr1 = evsignal_new(s->base, SIGUSR1, usr1_cb, s);
    if (!s->sigint || !s->sigterm || !s->sigusr1 || evsignal_add(s->sigint, NULL) != 0 ||
        evsignal_add(s->sigterm, NULL) != 0 || evsignal_add(s->sigusr1, NULL) != 0) {
        snprintf(err, errlen, "cannot install signal handlers (evsignal_add)");
        goto fail;
    }
    if (s->cfg.flog_dir) {
        struct timeval tv = {0, FLOG_FLUSH_MS * 1000};
        s->flog_timer = event_new(s->base, -1, EV_PERSIST, flog_timer_cb, s);
        if (!s->flog_timer || event_add(s->flog_timer, &tv) != 0) {
            snprintf(err, errlen, "cannot start the federation log timer");
            goto fail;
        }
    }
    /* A client that vanishes mid-write must not kill the RTI. */
    signal(SIGPIPE, SIG_IGN);
    *out = s;
    return 0;
fail:
    server_free(s);
    return -1;
}

const char *server_address(const struct server *s)
{
    return s->address;
}

const char *server_http_address(const struct server *s)
{
    return live_address(s);
}

static long long now_us(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (long long)ts.tv_sec * 1000000 + ts.tv_nsec / 1000;
}

/* --spin-us: after a batch of events, keep polling (epoll_wait with a zero timeout) while
 * frames keep coming within spin_us, so that the next message finds the RTI awake instead of
 * paying a scheduler wake-up. Costs a busy core while traffic lasts; off by default. */
static int run_spinning(struct server *s)
{
    while (!s->stopping) {
        int rc = event_base_loop(s->base, EVLOOP_ONCE);
        if (rc != 0) return rc;
        long long deadline = now_us() + s->cfg.spin_us;
        while (!s->stopping && now_us() < deadline) {
            uint64_t before = s->frames_in;
            if (event_base_loop(s->base, EVLOOP_NONBLOCK) < 0) return -1;
            if (s->frames_in != before) deadline = now_us() + s->cfg.spin_us;
        }
    }
    return 0;
}

int server_run(struct server *s)
{
    int rc = s->cfg.spin_us > 0 ? run_spinning(s) : event_base_dispatch(s->base);
    LOGI("server", "-", "%llu frames received, %llu sent, %llu slow client(s) dropped",
         (unsigned long long)s->frames_in, (unsigned long long)s->frames_out,
         (unsigned long long)s->hub.n_dropped_slow);
    return rc < 0 ? -1 : 0;
}

void server_stop(struct server *s)
{
    s->stopping = 1;
    event_base_loopbreak(s->base);
}

void server_free(struct server *s)
{
    if (!s) return;
    live_stop(s);
    conn_hub_fini(&s->hub); /* resigns every joined federate through on_close */
    server_core_fini(s);
    if (s->sigint) event_free(s->sigint);
    if (s->sigterm) event_free(s->sigterm);
    if (s->sigusr1) event_free(s->sigusr1);
    if (s->flog_timer) event_free(s->flog_timer);
    if (s->base) event_base_free(s->base);
    free(s);
}
