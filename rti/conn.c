/* Connections of the RTI on libevent: accept, split the input stream into frames, queue
 * output (libevent writes it when the loop is idle: one write per batch), enforce the
 * per-connection output limit with back-pressure, and close connections at the end of the
 * current event. Serves DESIGN.md §3, §10, §11; STYLE.md §2.7. Read rti/server.c next.
 *
 * Back-pressure invariant: a connection is read only while it waits for no congested
 * destination (c->waiting == 0). conn_send() pauses hub->current (the sender of the frame
 * being handled) when a destination passes high_water; the destination's write callback
 * resumes its blocked senders when it drains to low_water. A destination that stays
 * congested for stall_ms while someone waits on it is dropped, so nobody waits forever. */
#include "rti/conn.h"

#include "rti/log.h"
#include "rti/wire.h"

#include <arpa/inet.h>
#include <errno.h>
#include <event2/buffer.h>
#include <event2/bufferevent.h>
#include <event2/event.h>
#include <event2/listener.h>
#include <netdb.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

#define FLUSH_CLOSE_MS 1000 /* longest wait for an orderly close to write its last frames */

static void read_cb(struct bufferevent *bev, void *arg);
static void write_cb(struct bufferevent *bev, void *arg);
static void event_cb(struct bufferevent *bev, short what, void *arg);
static void process_input(struct conn *c);

/* ---- freeing ------------------------------------------------------------------------ */

/* Remove c from the senders blocked on any destination, and resume those blocked on c. */
static void unlink_waits(struct conn *c)
{
    struct conn_hub *hub = c->hub;
    if (c->waiting > 0) {
        for (struct conn *d = hub->head; d; d = d->next) {
            for (size_t i = 0; i < d->n_blocked;) {
                if (d->blocked[i] == c)
                    d->blocked[i] = d->blocked[--d->n_blocked];
                else
                    i++;
            }
        }
        c->waiting = 0;
    }
    for (size_t i = 0; i < c->n_blocked; i++) {
        struct conn *p = c->blocked[i];
        if (p->waiting > 0 && --p->waiting == 0 && p->state == CONN_OPEN) {
            bufferevent_enable(p->bev, EV_READ);
            event_active(p->kick, EV_READ, 0);
        }
    }
    c->n_blocked = 0;
}

static void conn_free(struct conn *c)
{
    struct conn_hub *hub = c->hub;
    unlink_waits(c);
    if (c->prev)
        c->prev->next = c->next;
    else
        hub->head = c->next;
    if (c->next) c->next->prev = c->prev;
    hub->n_conns--;
    if (hub->current == c) hub->current = NULL;
    if (c->bev) bufferevent_free(c->bev);
    if (c->kick) event_free(c->kick);
    if (c->stall) event_free(c->stall);
    if (c->hello) event_free(c->hello);
    free(c->blocked);
    free(c);
}

/* Runs on_close once; afterwards the connection is invisible to the server. */
static void notify_close(struct conn *c)
{
    if (c->close_notified) return;
    c->close_notified = 1;
    if (c->hub->ops.on_close) c->hub->ops.on_close(c->hub->ctx, c, c->close_reason);
    c->user = NULL;
}

/* Timer of an orderly close that did not drain in time: free now. */
static void flush_timeout_cb(evutil_socket_t fd, short what, void *arg)
{
    conn_free(arg);
}

/* The deferred-close queue: runs after the event that asked for the closes. */
static void reaper_cb(evutil_socket_t fd, short what, void *arg)
{
    struct conn_hub *hub = arg;
    while (hub->close_head) {
        struct conn *c = hub->close_head;
        hub->close_head = c->close_next;
        c->in_close_queue = 0;
        notify_close(c);
        unlink_waits(c);
        if (c->close_flush && c->bev && evbuffer_get_length(bufferevent_get_output(c->bev))) {
            /* write_cb frees it once the output is empty; the stall timer bounds the wait */
            struct timeval tv = {FLUSH_CLOSE_MS / 1000, (FLUSH_CLOSE_MS % 1000) * 1000};
            event_del(c->stall);
            event_assign(c->stall, hub->base, -1, 0, flush_timeout_cb, c);
            event_add(c->stall, &tv);
            bufferevent_setwatermark(c->bev, EV_WRITE, 0, 0);
            continue;
        }
        conn_free(c);
    }
}

void conn_close(struct conn *c, const char *reason, int flush)
{
    if (c->state != CONN_OPEN) return;
    c->state = CONN_CLOSING;
    c->close_flush = flush;
    snprintf(c->close_reason, sizeof c->close_reason, "%s", reason ? reason : "closed");
    if (flush)
        LOGI("conn", c->label, "closing: %s", c->close_reason);
    else
        LOGW("conn", c->label, "closing: %s", c->close_reason);
    if (c->bev) bufferevent_disable(c->bev, EV_READ);
    if (!flush && c->bev) evbuffer_drain(bufferevent_get_output(c->bev), (size_t)-1);
    c->close_next = c->hub->close_head;
    c->hub->close_head = c;
    c->in_close_queue = 1;
    event_active(c->hub->reaper, EV_READ, 0);
}

void conn_set_label(struct conn *c, const char *label)
{
    snprintf(c->label, sizeof c->label, "%s", label);
}

/* ---- output and back-pressure ------------------------------------------------------ */

size_t conn_queued(const struct conn *c)
{
    return c->bev ? evbuffer_get_length(bufferevent_get_output(c->bev)) : 0;
}

static void stall_cb(evutil_socket_t fd, short what, void *arg)
{
    struct conn *c = arg;
    if (c->state != CONN_OPEN || c->n_blocked == 0) return;
    char why[200];
    snprintf(why, sizeof why,
             "slow consumer: %zu bytes queued stayed above the low-water mark %zu for %d ms "
             "while %zu sender(s) waited",
             conn_queued(c), c->hub->lim.low_water, c->hub->lim.stall_ms, c->n_blocked);
    c->hub->n_dropped_slow++;
    conn_close(c, why, 0);
}

/* Pause src until dst drains (src is the sender of the frame being handled). */
static void wait_for(struct conn *src, struct conn *dst)
{
    for (size_t i = 0; i < dst->n_blocked; i++)
        if (dst->blocked[i] == src) return;
    if (dst->n_blocked == dst->cap_blocked) {
        size_t cap = dst->cap_blocked ? 2 * dst->cap_blocked : 4;
        struct conn **nb = realloc(dst->blocked, cap * sizeof *nb);
        if (!nb) return; /* cannot record the wait: the hard limit still bounds memory */
        dst->blocked = nb;
        dst->cap_blocked = cap;
    }
    dst->blocked[dst->n_blocked++] = src;
    if (src->waiting++ == 0) bufferevent_disable(src->bev, EV_READ);
    LOGD("conn", src->label, "paused: destination %s has %zu bytes queued", dst->label,
         conn_queued(dst));
    if (!event_pending(dst->stall, EV_TIMEOUT, NULL)) {
        struct timeval tv = {dst->hub->lim.stall_ms / 1000, (dst->hub->lim.stall_ms % 1000) * 1000};
        event_add(dst->stall, &tv);
    }
}

int conn_send(struct conn *c, const void *bytes, size_t n)
{
    if (c->state != CONN_OPEN) return -1;
    struct evbuffer *out = bufferevent_get_output(c->bev);
    size_t q = evbuffer_get_length(out);
    const struct conn_limits *lim = &c->hub->lim;
    if (q + n > lim->max_queued) {
        char why[160];
        snprintf(why, sizeof why,
                 "output limit: %zu bytes queued + %zu more > --max-queued-bytes %zu", q, n,
                 lim->max_queued);
        c->hub->n_dropped_slow++;
        conn_close(c, why, 0);
        return -1;
    }
    if (evbuffer_add(out, bytes, n) != 0) {
        conn_close(c, "out of memory queueing output", 0);
        return -1;
    }
    struct conn *src = c->hub->current;
    if (q + n > lim->high_water && src && src != c && src->state == CONN_OPEN) wait_for(src, c);
    return 0;
}

/* The output drained to low_water (or finished an orderly close). */
static void write_cb(struct bufferevent *bev, void *arg)
{
    struct conn *c = arg;
    if (c->state == CONN_CLOSING && !c->in_close_queue) {
        if (evbuffer_get_length(bufferevent_get_output(bev)) == 0) conn_free(c);
        return;
    }
    if (c->n_blocked && evbuffer_get_length(bufferevent_get_output(bev)) <= c->hub->lim.low_water) {
        LOGD("conn", c->label, "drained: resuming %zu sender(s)", c->n_blocked);
        event_del(c->stall);
        unlink_waits(c);
    }
}

/* ---- input ------------------------------------------------------------------------- */

/* Handle every complete frame buffered for c, unless c closes or pauses. */
static void process_input(struct conn *c)
{
    struct conn_hub *hub = c->hub;
    struct evbuffer *in = bufferevent_get_input(c->bev);
    char err[200];
    while (c->state == CONN_OPEN && c->waiting == 0) {
        size_t avail = evbuffer_get_length(in);
        if (avail < WIRE_HEADER_SIZE) return;
        uint8_t hdr[WIRE_HEADER_SIZE];
        evbuffer_copyout(in, hdr, sizeof hdr);
        size_t total = 0;
        int rc = wire_split(hdr, sizeof hdr, (uint32_t)hub->lim.max_frame, &total, err, sizeof err);
        if (rc < 0) {
            char hex[WIRE_HEX_BUFSZ];
            uint8_t sample[WIRE_HEX_MAX];
            size_t ns = avail < sizeof sample ? avail : sizeof sample;
            evbuffer_copyout(in, sample, ns);
            wire_hex_sample(sample, ns, hex, sizeof hex);
            char why[sizeof hex + sizeof err + 32];
            snprintf(why, sizeof why, "bad frame: %s; %s", err, hex);
            conn_close(c, why, 0);
            return;
        }
        /* With only the header given, wire_split checks the length but reports completeness
         * only for an empty body: the frame size comes from the header (u32 LE + 8). */
        total = WIRE_HEADER_SIZE + ((size_t)hdr[0] | (size_t)hdr[1] << 8 | (size_t)hdr[2] << 16 |
                                    (size_t)hdr[3] << 24);
        if (avail < total)
            return; /* wait for the rest; the read high-water mark bounds the buffer */
        const uint8_t *frame = evbuffer_pullup(in, (ssize_t)total);
        if (!frame) {
            conn_close(c, "out of memory assembling a frame", 0);
            return;
        }
        hub->current = c;
        rc = hub->ops.on_frame(hub->ctx, c, frame, total);
        hub->current = NULL;
        if (rc < 0 || c->state != CONN_OPEN) return;
        evbuffer_drain(in, total);
    }
}

static void read_cb(struct bufferevent *bev, void *arg)
{
    process_input(arg);
}

/* Manual event: input was left buffered while c waited; handle it now. */
static void kick_cb(evutil_socket_t fd, short what, void *arg)
{
    struct conn *c = arg;
    if (c->state == CONN_OPEN && c->waiting == 0) process_input(c);
}

/* A connection that has not completed the handshake in time holds a socket for nothing. */
static void hello_cb(evutil_socket_t fd, short what, void *arg)
{
    struct conn *c = arg;
    LOGD("conn", c->label, "DEBUGX hello_cb state %d user %p", c->state, c->user);
    if (c->state != CONN_OPEN || c->user) return;
    char why[96];
    snprintf(why, sizeof why, "handshake timeout: no HELLO within %d ms", c->hub->lim.hello_ms);
    conn_close(c, why, 0);
}

static void event_cb(struct bufferevent *bev, short what, void *arg)
{
    struct conn *c = arg;
    if (c->state != CONN_OPEN) {
        if (!c->in_close_queue)
            conn_free(c); /* orderly close: the peer went away before reading everything */
        return;
    }
    if (what & BEV_EVENT_EOF) {
        conn_close(c, "connection closed by peer", 1);
    } else if (what & BEV_EVENT_ERROR) {
        char why[160];
        snprintf(why, sizeof why, "socket error: %s",
                 evutil_socket_error_to_string(EVUTIL_SOCKET_ERROR()));
        conn_close(c, why, 0);
    }
}

/* ---- accepting ---------------------------------------------------------------------- */

static void accept_cb(struct evconnlistener *l, evutil_socket_t fd, struct sockaddr *sa, int salen,
                      void *arg)
{
    struct conn_hub *hub = arg;
    struct conn *c = calloc(1, sizeof *c);
    if (!c) {
        LOGE("conn", "-", "out of memory accepting a connection");
        evutil_closesocket(fd);
        return;
    }
    c->hub = hub;
    c->id = hub->next_id++;
    char peer[64] = "unix";
    if (sa->sa_family == AF_INET) {
        int one = 1;
        setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
        struct sockaddr_in *in = (struct sockaddr_in *)sa;
        char ip[INET_ADDRSTRLEN];
        inet_ntop(AF_INET, &in->sin_addr, ip, sizeof ip);
        snprintf(peer, sizeof peer, "%s:%u", ip, ntohs(in->sin_port));
    } else if (sa->sa_family == AF_INET6) {
        int one = 1;
        setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
        struct sockaddr_in6 *in6 = (struct sockaddr_in6 *)sa;
        char ip[INET6_ADDRSTRLEN];
        inet_ntop(AF_INET6, &in6->sin6_addr, ip, sizeof ip);
        snprintf(peer, sizeof peer, "[%s]:%u", ip, ntohs(in6->sin6_port));
    }
    snprintf(c->label, sizeof c->label, "conn#%llu (%s)", (unsigned long long)c->id, peer);
    evutil_make_socket_nonblocking(fd);
    c->bev = bufferevent_socket_new(hub->base, fd, BEV_OPT_CLOSE_ON_FREE);
    c->kick = event_new(hub->base, -1, 0, kick_cb, c);
    c->stall = event_new(hub->base, -1, 0, stall_cb, c);
    c->hello = event_new(hub->base, -1, 0, hello_cb, c);
    if (!c->bev || !c->kick || !c->stall || !c->hello) {
        LOGE("conn", c->label, "out of memory setting up the connection");
        if (!c->bev) evutil_closesocket(fd);
        if (c->bev) bufferevent_free(c->bev);
        if (c->kick) event_free(c->kick);
        if (c->stall) event_free(c->stall);
        if (c->hello) event_free(c->hello);
        free(c);
        return;
    }
    struct timeval htv = {hub->lim.hello_ms / 1000, (hub->lim.hello_ms % 1000) * 1000};
    event_add(c->hello, &htv);
    c->next = hub->head;
    if (hub->head) hub->head->prev = c;
    hub->head = c;
    hub->n_conns++;
    /* Input is bounded: libevent stops reading once one maximal frame plus slack is buffered. */
    bufferevent_setwatermark(c->bev, EV_READ, 0, hub->lim.max_frame + 65536);
    bufferevent_setwatermark(c->bev, EV_WRITE, hub->lim.low_water, 0);
    bufferevent_setcb(c->bev, read_cb, write_cb, event_cb, c);
    bufferevent_enable(c->bev, EV_READ | EV_WRITE);
    LOGD("conn", c->label, "accepted");
}

static void accept_error_cb(struct evconnlistener *l, void *arg)
{
    int e = EVUTIL_SOCKET_ERROR();
    /* EMFILE and friends: keep listening; the next accept may succeed once clients leave. */
    LOGW("conn", "-", "accept failed: %s", evutil_socket_error_to_string(e));
}

/* ---- hub ---------------------------------------------------------------------------- */

int conn_hub_init(struct conn_hub *hub, struct event_base *base, const struct conn_limits *lim,
                  const struct conn_ops *ops, void *ctx, char *err, size_t errlen)
{
    memset(hub, 0, sizeof *hub);
    hub->base = base;
    if (lim) hub->lim = *lim;
    if (!hub->lim.max_frame) hub->lim.max_frame = CONN_DEFAULT_MAX_FRAME;
    if (!hub->lim.max_queued) hub->lim.max_queued = CONN_DEFAULT_MAX_QUEUED;
    if (!hub->lim.high_water || hub->lim.high_water > hub->lim.max_queued)
        hub->lim.high_water = hub->lim.max_queued / 2;
    if (!hub->lim.low_water || hub->lim.low_water > hub->lim.high_water)
        hub->lim.low_water = hub->lim.high_water / 2;
    if (hub->lim.stall_ms <= 0) hub->lim.stall_ms = CONN_DEFAULT_STALL_MS;
    if (hub->lim.hello_ms <= 0) hub->lim.hello_ms = CONN_DEFAULT_HELLO_MS;
    hub->ops = *ops;
    hub->ctx = ctx;
    hub->next_id = 1;
    hub->reaper = event_new(base, -1, 0, reaper_cb, hub);
    if (!hub->reaper) {
        snprintf(err, errlen, "conn: event_new failed for the close queue");
        return -1;
    }
    return 0;
}

/* Split "HOST:PORT" or "[HOST]:PORT". */
static int split_addr(const char *addr, char *host, size_t hostlen, char *port, size_t portlen)
{
    const char *colon;
    if (addr[0] == '[') {
        const char *end = strchr(addr, ']');
        if (!end || end[1] != ':') return -1;
        if ((size_t)(end - addr - 1) >= hostlen) return -1;
        memcpy(host, addr + 1, (size_t)(end - addr - 1));
        host[end - addr - 1] = '\0';
        colon = end + 1;
    } else {
        colon = strrchr(addr, ':');
        if (!colon || (size_t)(colon - addr) >= hostlen) return -1;
        memcpy(host, addr, (size_t)(colon - addr));
        host[colon - addr] = '\0';
    }
    if (!colon[1] || strlen(colon + 1) >= portlen) return -1;
    for (const char *p = colon + 1; *p; p++)
        if (*p < '0' || *p > '9') return -1;
    snprintf(port, portlen, "%s", colon + 1);
    return 0;
}

static int is_loopback(const struct sockaddr *sa)
{
    if (sa->sa_family == AF_INET)
        return (ntohl(((const struct sockaddr_in *)sa)->sin_addr.s_addr) >> 24) == 127;
    if (sa->sa_family == AF_INET6)
        return IN6_IS_ADDR_LOOPBACK(&((const struct sockaddr_in6 *)sa)->sin6_addr);
    return 0;
}

static int add_listener(struct conn_hub *hub, struct evconnlistener *l, char *err, size_t errlen)
{
    if (hub->n_lst >= CONN_MAX_LISTENERS) {
        evconnlistener_free(l);
        snprintf(err, errlen, "conn: more than %d listeners", CONN_MAX_LISTENERS);
        return -1;
    }
    evconnlistener_set_error_cb(l, accept_error_cb);
    hub->lst[hub->n_lst++] = l;
    return 0;
}

int conn_hub_listen_tcp(struct conn_hub *hub, const char *addr, int allow_remote, char *bound,
                        size_t boundlen, char *err, size_t errlen)
{
    char host[256], port[16];
    if (split_addr(addr, host, sizeof host, port, sizeof port) != 0) {
        snprintf(err, errlen, "--listen '%s': expected HOST:PORT (e.g. 127.0.0.1:7470)", addr);
        return -1;
    }
    struct addrinfo hints = {0}, *res = NULL;
    hints.ai_family = AF_UNSPEC;
    hints.ai_socktype = SOCK_STREAM;
    hints.ai_flags = AI_PASSIVE | AI_NUMERICSERV;
    int gai = getaddrinfo(host, port, &hints, &res);
    if (gai != 0) {
        snprintf(err, errlen, "--listen '%s': getaddrinfo: %s", addr, gai_strerror(gai));
        return -1;
    }
    if (!allow_remote && !is_loopback(res->ai_addr)) {
        snprintf(err, errlen,
                 "--listen '%s': not a loopback address; add --allow-remote to accept "
                 "connections from other hosts",
                 addr);
        freeaddrinfo(res);
        return -1;
    }
    struct evconnlistener *l = evconnlistener_new_bind(hub->base, accept_cb, hub,
                                                       LEV_OPT_CLOSE_ON_FREE | LEV_OPT_REUSEABLE,
                                                       128, res->ai_addr, (int)res->ai_addrlen);
    if (!l) {
        snprintf(err, errlen, "--listen '%s': bind/listen: %s", addr, strerror(errno));
        freeaddrinfo(res);
        return -1;
    }
    freeaddrinfo(res);
    if (bound) {
        struct sockaddr_storage ss;
        socklen_t sl = sizeof ss;
        char ip[INET6_ADDRSTRLEN] = "?";
        unsigned p = 0;
        if (getsockname(evconnlistener_get_fd(l), (struct sockaddr *)&ss, &sl) == 0) {
            if (ss.ss_family == AF_INET) {
                struct sockaddr_in *in = (struct sockaddr_in *)&ss;
                inet_ntop(AF_INET, &in->sin_addr, ip, sizeof ip);
                p = ntohs(in->sin_port);
                snprintf(bound, boundlen, "%s:%u", ip, p);
            } else {
                struct sockaddr_in6 *in6 = (struct sockaddr_in6 *)&ss;
                inet_ntop(AF_INET6, &in6->sin6_addr, ip, sizeof ip);
                p = ntohs(in6->sin6_port);
                snprintf(bound, boundlen, "[%s]:%u", ip, p);
            }
        } else {
            snprintf(bound, boundlen, "%s", addr);
        }
    }
    return add_listener(hub, l, err, errlen);
}

int conn_hub_listen_unix(struct conn_hub *hub, const char *path, char *err, size_t errlen)
{
    struct sockaddr_un sun;
    memset(&sun, 0, sizeof sun);
    sun.sun_family = AF_UNIX;
    if (strlen(path) >= sizeof sun.sun_path) {
        snprintf(err, errlen, "--unix '%s': path longer than %zu bytes", path,
                 sizeof sun.sun_path - 1);
        return -1;
    }
    memcpy(sun.sun_path, path, strlen(path) + 1);
    struct stat st;
    if (lstat(path, &st) == 0) {
        if (!S_ISSOCK(st.st_mode)) {
            snprintf(err, errlen, "--unix '%s': exists and is not a socket; not replacing it",
                     path);
            return -1;
        }
        unlink(path); /* stale socket of an earlier run */
    }
    struct evconnlistener *l =
        evconnlistener_new_bind(hub->base, accept_cb, hub, LEV_OPT_CLOSE_ON_FREE, 128,
                                (struct sockaddr *)&sun, (int)sizeof sun);
    if (!l) {
        snprintf(err, errlen, "--unix '%s': bind/listen: %s", path, strerror(errno));
        return -1;
    }
    snprintf(hub->unix_path, sizeof hub->unix_path, "%s", path);
    return add_listener(hub, l, err, errlen);
}

void conn_hub_fini(struct conn_hub *hub)
{
    for (int i = 0; i < hub->n_lst; i++)
        evconnlistener_free(hub->lst[i]);
    hub->n_lst = 0;
    if (hub->unix_path[0]) {
        unlink(hub->unix_path);
        hub->unix_path[0] = '\0';
    }
    /* Connections already closing first, then the live ones: on_close runs once for each. */
    while (hub->close_head) {
        struct conn *c = hub->close_head;
        hub->close_head = c->close_next;
        c->in_close_queue = 0;
        notify_close(c);
    }
    for (struct conn *c = hub->head; c; c = c->next) {
        if (c->state == CONN_OPEN) {
            c->state = CONN_CLOSING;
            snprintf(c->close_reason, sizeof c->close_reason, "RTI shutting down");
        }
        notify_close(c);
    }
    while (hub->head)
        conn_free(hub->head);
    if (hub->reaper) event_free(hub->reaper);
    hub->reaper = NULL;
}
