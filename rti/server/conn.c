/* Connections of the RTI on libevent: accept, split the input stream into frames, write
 * queued output once per event, enforce the per-connection output limit with back-pressure,
 * and close connections at the end of the current event.
 * Serves doc/protocol.md, §10, §11; doc/contributing.md §7, §2.8. Read rti/server/server.c next. */
#include "rti/server/conn.h"

#include "rti/flog/flog.h"
#include "rti/proto/wire.h"
#include "rti/server/log.h"

#include <arpa/inet.h>
#include <errno.h>
#include <event2/buffer.h>
#include <event2/event.h>
#include <event2/listener.h>
#include <fcntl.h>
#include <netdb.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

/* Writing: conn_send() appends to c->out and puts c on the hub's flush list; the flusher (a
 * manual event, run after the callbacks of the current loop iteration) writes each listed
 * connection directly, so every frame queued while handling one batch of input leaves in one
 * write. Only when the kernel buffer is full is a write event added, so a request/reply
 * exchange costs no extra loop iteration or epoll_ctl (the redis model: write before sleep).
 *
 * Back-pressure invariant: a connection is read only while it waits for no congested
 * destination (c->waiting == 0). conn_send() pauses hub->current (the sender of the frame
 * being handled) when a destination passes high_water; the destination resumes its blocked
 * senders when a write drains it to low_water. A destination that stays congested for
 * stall_ms while someone waits on it is dropped, so nobody waits forever. */

#define FLUSH_CLOSE_MS 1000   /* longest wait for an orderly close to write its last frames */
#define READ_CHUNK     65536  /* bytes asked of one read() */
#define READ_BUDGET    262144 /* bytes read per read event before frames are handled */

static void process_input(struct conn *c);
static void frame_deadline(struct conn *c, int handled);
static void try_write(struct conn *c);

/* ---- freeing ------------------------------------------------------------------------ */

/* Resume c's reading after its last congested destination drained or went away. */
static void resume(struct conn *p)
{
    if (p->state != CONN_OPEN) return;
    if (!p->reading && !p->eof) {
        event_add(p->rev, NULL);
        p->reading = 1;
    }
    event_active(p->kick, EV_READ, 0); /* input may already hold whole frames */
}

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
        if (p->waiting > 0 && --p->waiting == 0) resume(p);
    }
    c->n_blocked = 0;
}

static void conn_free(struct conn *c)
{
    struct conn_hub *hub = c->hub;
    unlink_waits(c);
    if (c->dirty) {
        for (struct conn **p = &hub->dirty_head; *p; p = &(*p)->dirty_next)
            if (*p == c) {
                *p = c->dirty_next;
                break;
            }
    }
    if (c->prev)
        c->prev->next = c->next;
    else
        hub->head = c->next;
    if (c->next) c->next->prev = c->prev;
    hub->n_conns--;
    if (hub->current == c) hub->current = NULL;
    if (c->rev) event_free(c->rev);
    if (c->wev) event_free(c->wev);
    if (c->kick) event_free(c->kick);
    if (c->stall) event_free(c->stall);
    if (c->hello) event_free(c->hello);
    if (c->frame) event_free(c->frame);
    if (c->in) evbuffer_free(c->in);
    if (c->out) {
        hub->total_queued -= evbuffer_get_length(c->out);
        evbuffer_free(c->out);
    }
    if (c->fd >= 0) evutil_closesocket(c->fd);
    free(c->blocked);
    free(c);
}

/* Runs on_close once; afterwards the connection is invisible to the server. */
static void notify_close(struct conn *c)
{
    if (c->close_notified) return;
    c->close_notified = 1;
    if (c->hub->ops.on_close) c->hub->ops.on_close(c->hub->ctx, c, c->close_reason);
    c->link.user = NULL;
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
        if (c->close_flush && evbuffer_get_length(c->out) > 0) {
            /* try_write frees it once the output is empty; this timer bounds the wait */
            struct timeval tv = {FLUSH_CLOSE_MS / 1000, (FLUSH_CLOSE_MS % 1000) * 1000};
            event_del(c->stall);
            event_assign(c->stall, hub->base, -1, 0, flush_timeout_cb, c);
            event_add(c->stall, &tv);
            try_write(c);
            continue;
        }
        conn_free(c);
    }
}

void conn_close(struct conn *c, const char *reason, int flush)
{
    if (c->state != CONN_OPEN) return;
    c->state = CONN_CLOSING;
    c->link.closed = 1;
    c->close_flush = flush;
    snprintf(c->close_reason, sizeof c->close_reason, "%s", reason ? reason : "closed");
    if (flush)
        LOGI("conn", c->label, "closing: %s", c->close_reason);
    else
        LOGW("conn", c->label, "closing: %s", c->close_reason);
    if (c->reading) {
        event_del(c->rev);
        c->reading = 0;
    }
    if (!flush) evbuffer_drain(c->out, evbuffer_get_length(c->out));
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
    return c->out ? evbuffer_get_length(c->out) : 0;
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
    if (src->waiting++ == 0 && src->reading) {
        event_del(src->rev);
        src->reading = 0;
    }
    LOGD("conn", src->label, "paused: destination %s has %zu bytes queued", dst->label,
         conn_queued(dst));
    if (!event_pending(dst->stall, EV_TIMEOUT, NULL)) {
        struct timeval tv = {dst->hub->lim.stall_ms / 1000, (dst->hub->lim.stall_ms % 1000) * 1000};
        event_add(dst->stall, &tv);
    }
}

/* Write what c has queued, without waiting. Partial: watch for writability. Drained to the
 * low-water mark: resume the senders paused on c. Orderly close done: free c. */
static void try_write(struct conn *c)
{
    while (evbuffer_get_length(c->out) > 0) {
        int n = evbuffer_write(c->out, c->fd);
        if (n > 0) continue;
        int e = EVUTIL_SOCKET_ERROR();
        if (n < 0 && (e == EAGAIN || e == EWOULDBLOCK || e == EINTR)) {
            if (e == EINTR) continue;
            break;
        }
        /* The peer is gone (EPIPE, ECONNRESET...). */
        if (c->state == CONN_OPEN) {
            char why[160];
            snprintf(why, sizeof why, "socket error writing: %s", evutil_socket_error_to_string(e));
            c->peer_gone = 1;
            conn_close(c, why, 0);
        } else {
            evbuffer_drain(c->out, evbuffer_get_length(c->out));
        }
        break;
    }
    size_t left = evbuffer_get_length(c->out);
    if (left > 0 && !c->writing) {
        event_add(c->wev, NULL);
        c->writing = 1;
    } else if (left == 0 && c->writing) {
        event_del(c->wev);
        c->writing = 0;
    }
    if (c->state == CONN_CLOSING) {
        if (left == 0 && !c->in_close_queue) conn_free(c);
        return;
    }
    if (c->n_blocked && left <= c->hub->lim.low_water) {
        LOGD("conn", c->label, "drained: resuming %zu sender(s)", c->n_blocked);
        event_del(c->stall);
        unlink_waits(c);
    }
}

static void write_cb(evutil_socket_t fd, short what, void *arg)
{
    try_write(arg);
}

/* The flusher: one write per connection for everything queued during this loop iteration. */
static void flush_cb(evutil_socket_t fd, short what, void *arg)
{
    struct conn_hub *hub = arg;
    while (hub->dirty_head) {
        struct conn *c = hub->dirty_head;
        hub->dirty_head = c->dirty_next;
        c->dirty = 0;
        if (!c->writing) try_write(c); /* try_write may free c: not touched afterwards */
    }
}

int conn_send(struct conn *c, const void *bytes, size_t n)
{
    if (c->state != CONN_OPEN) return -1;
    size_t q = evbuffer_get_length(c->out);
    const struct conn_limits *lim = &c->hub->lim;
    if (lim->max_total_queued && c->hub->total_queued + n > lim->max_total_queued) {
        char why[200];
        snprintf(why, sizeof why,
                 "RTI output limit: %zu bytes queued for all clients + %zu more > "
                 "--max-total-queued-bytes %zu (this client holds %zu)",
                 c->hub->total_queued, n, lim->max_total_queued, q);
        c->hub->n_dropped_slow++;
        conn_close(c, why, 0);
        return -1;
    }
    if (q + n > lim->max_queued) {
        char why[160];
        snprintf(why, sizeof why,
                 "output limit: %zu bytes queued + %zu more > --max-queued-bytes %zu", q, n,
                 lim->max_queued);
        c->hub->n_dropped_slow++;
        conn_close(c, why, 0);
        return -1;
    }
    if (evbuffer_add(c->out, bytes, n) != 0) {
        conn_close(c, "out of memory queueing output", 0);
        return -1;
    }
    if (!c->dirty) {
        c->dirty = 1;
        c->dirty_next = c->hub->dirty_head;
        c->hub->dirty_head = c;
        event_active(c->hub->flusher, EV_WRITE, 0);
    }
    struct conn *src = c->hub->current;
    if (q + n > lim->high_water && src && src != c && src->state == CONN_OPEN) wait_for(src, c);
    return 0;
}

/* ---- input ------------------------------------------------------------------------- */

/* Handle every complete frame buffered for c, unless c closes or pauses; then, when the peer
 * has closed its side and nothing complete is left, close c. */
static void process_input(struct conn *c)
{
    struct conn_hub *hub = c->hub;
    char err[200];
    int handled = 0; /* frames handled in this call */
    while (c->state == CONN_OPEN && c->waiting == 0) {
        size_t avail = evbuffer_get_length(c->in);
        if (avail < WIRE_HEADER_SIZE) break;
        uint8_t hdr[WIRE_HEADER_SIZE];
        evbuffer_copyout(c->in, hdr, sizeof hdr);
        size_t total = 0;
        int rc = wire_split(hdr, sizeof hdr, (uint32_t)hub->lim.max_frame, &total, err, sizeof err);
        if (rc < 0) {
            char hex[WIRE_HEX_BUFSZ];
            uint8_t sample[WIRE_HEX_MAX];
            size_t ns = avail < sizeof sample ? avail : sizeof sample;
            /* A JOIN, create or destroy may carry the shared secret: its header only, as
             * server_on_frame does (doc/log.md "Secrets"). */
            if (flog_secret_slot(hdr[4] | hdr[5] << 8) >= 0) ns = WIRE_HEADER_SIZE;
            evbuffer_copyout(c->in, sample, ns);
            wire_hex_sample(sample, ns, hex, sizeof hex);
            char why[sizeof hex + sizeof err + 32];
            snprintf(why, sizeof why, "bad frame: %s; %s", err, hex);
            conn_close(c, why, 0);
            return;
        }
        /* Given only the header, wire_split checks the length and reports the frame size. */
        if (avail < total) break;
        const uint8_t *frame = evbuffer_pullup(c->in, (ssize_t)total);
        if (!frame) {
            conn_close(c, "out of memory assembling a frame", 0);
            return;
        }
        hub->current = c;
        rc = hub->ops.on_frame(hub->ctx, c, frame, total);
        hub->current = NULL;
        if (rc < 0 || c->state != CONN_OPEN) return;
        evbuffer_drain(c->in, total);
        handled++;
    }
    frame_deadline(c, handled);
    if (c->eof && c->state == CONN_OPEN && c->waiting == 0) {
        c->peer_gone = 1;
        conn_close(c,
                   evbuffer_get_length(c->in) ? "connection closed by peer mid-frame"
                                              : "connection closed by peer",
                   1);
    }
}

/* One read() straight into c->in (evbuffer_read would add an ioctl per call).
 * Returns bytes read, 0 at end of stream, -1 with errno set. */
static ssize_t read_some(struct conn *c)
{
    struct evbuffer_iovec v;
    if (evbuffer_reserve_space(c->in, READ_CHUNK, &v, 1) < 1) {
        errno = ENOMEM;
        return -1;
    }
    ssize_t n = read(c->fd, v.iov_base, v.iov_len);
    v.iov_len = n > 0 ? (size_t)n : 0;
    evbuffer_commit_space(c->in, &v, 1);
    return n;
}

/* Readable: read up to READ_BUDGET bytes (fewer once one frame plus slack is buffered, which
 * bounds the input kept per connection), then handle the frames. A short read means the
 * socket is drained: level-triggered epoll reports the rest, so no read ends in EAGAIN. */
static void read_cb(evutil_socket_t fd, short what, void *arg)
{
    struct conn *c = arg;
    size_t got = 0, cap = c->hub->lim.max_frame + READ_CHUNK;
    while (got < READ_BUDGET && evbuffer_get_length(c->in) < cap) {
        ssize_t n = read_some(c);
        if (n > 0) {
            got += (size_t)n;
            if (n < READ_CHUNK) break;
            continue;
        }
        int e = errno;
        if (n < 0 && e == EINTR) continue;
        if (n < 0 && (e == EAGAIN || e == EWOULDBLOCK)) break;
        if (c->reading) {
            event_del(c->rev);
            c->reading = 0;
        }
        if (n == 0) {
            c->eof = 1; /* handled by process_input once the buffered frames are served */
        } else {
            char why[160];
            snprintf(why, sizeof why, "socket error: %s", strerror(e));
            c->peer_gone = 1;
            conn_close(c, why, 0);
            return;
        }
        break;
    }
    process_input(c);
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
    if (c->state != CONN_OPEN || c->joined_once) return;
    char why[120];
    if (c->link.user)
        snprintf(why, sizeof why, "handshake timeout: HELLO but no JOIN accepted within %d ms",
                 c->hub->lim.hello_ms);
    else
        snprintf(why, sizeof why, "handshake timeout: no HELLO within %d ms", c->hub->lim.hello_ms);
    conn_close(c, why, 0);
}

/* Part of a frame has been buffered for frame_ms: a peer that drips a frame (or stops in
 * the middle of one) holds a connection for nothing. */
static void frame_cb(evutil_socket_t fd, short what, void *arg)
{
    struct conn *c = arg;
    if (c->state != CONN_OPEN) return;
    char why[160];
    snprintf(why, sizeof why, "frame timeout: %zu byte(s) of a frame buffered for %d ms",
             evbuffer_get_length(c->in), c->hub->lim.frame_ms);
    conn_close(c, why, 0);
}

/* After process_input: the deadline runs from the first byte of a frame to its last. A frame
 * handled ends it; the bytes of the next one start a new one. Input held back while c waits
 * on a congested destination is not the peer's fault: no deadline then. */
static void frame_deadline(struct conn *c, int handled)
{
    int partial = c->state == CONN_OPEN && !c->waiting && evbuffer_get_length(c->in) > 0;
    if (handled || !partial) event_del(c->frame);
    if (partial && !event_pending(c->frame, EV_TIMEOUT, NULL)) {
        struct timeval tv = {c->hub->lim.frame_ms / 1000, (c->hub->lim.frame_ms % 1000) * 1000};
        event_add(c->frame, &tv);
    }
}

void conn_handshake_done(struct conn *c)
{
    c->joined_once = 1;
    if (c->hello) event_del(c->hello);
}

/* ---- accepting ---------------------------------------------------------------------- */

static void peer_name(const struct sockaddr *sa, char *peer, size_t len)
{
    snprintf(peer, len, "unix");
    if (sa->sa_family == AF_INET) {
        const struct sockaddr_in *in = (const struct sockaddr_in *)sa;
        char ip[INET_ADDRSTRLEN];
        inet_ntop(AF_INET, &in->sin_addr, ip, sizeof ip);
        snprintf(peer, len, "%s:%u", ip, ntohs(in->sin_port));
    } else if (sa->sa_family == AF_INET6) {
        const struct sockaddr_in6 *in6 = (const struct sockaddr_in6 *)sa;
        char ip[INET6_ADDRSTRLEN];
        inet_ntop(AF_INET6, &in6->sin6_addr, ip, sizeof ip);
        snprintf(peer, len, "[%s]:%u", ip, ntohs(in6->sin6_port));
    }
}

/* Every change of an output buffer, for hub->total_queued (--max-total-queued-bytes). */
static void count_cb(struct evbuffer *b, const struct evbuffer_cb_info *info, void *arg)
{
    struct conn_hub *hub = arg;
    hub->total_queued += info->n_added;
    hub->total_queued -= info->n_deleted;
}

/* A host that vanishes (cable cut, link down, crash) sends no FIN: without this the RTI would
 * wait on it forever. Keepalive probes an idle connection (idle for half the time, then two
 * probes a quarter apart); TCP_USER_TIMEOUT bounds unacknowledged data to the whole time. The
 * kernel then fails the socket (ETIMEDOUT) and the federate is resigned as lost. */
static void peer_deadline(int fd, int ms)
{
    if (ms <= 0) return;
    int on = 1, idle = ms / 2000 > 0 ? ms / 2000 : 1, intvl = ms / 4000 > 0 ? ms / 4000 : 1,
        cnt = 2;
    unsigned user = (unsigned)ms;
    setsockopt(fd, SOL_SOCKET, SO_KEEPALIVE, &on, sizeof on);
    setsockopt(fd, IPPROTO_TCP, TCP_KEEPIDLE, &idle, sizeof idle);
    setsockopt(fd, IPPROTO_TCP, TCP_KEEPINTVL, &intvl, sizeof intvl);
    setsockopt(fd, IPPROTO_TCP, TCP_KEEPCNT, &cnt, sizeof cnt);
    setsockopt(fd, IPPROTO_TCP, TCP_USER_TIMEOUT, &user, sizeof user);
}

/* A connection as the server core's link (rti/server/link.h): the struct conn starts with it. */
static int link_send_cb(struct link *l, const void *bytes, size_t n)
{
    return conn_send((struct conn *)l, bytes, n);
}

static void link_close_cb(struct link *l, const char *reason, int flush)
{
    conn_close((struct conn *)l, reason, flush);
}

static void link_label_cb(struct link *l, const char *label)
{
    conn_set_label((struct conn *)l, label);
}

static void link_joined_cb(struct link *l)
{
    conn_handshake_done((struct conn *)l);
}

static const struct link_ops conn_link_ops = {link_send_cb, link_close_cb, link_label_cb,
                                              link_joined_cb};

static void accept_cb(struct evconnlistener *l, evutil_socket_t fd, struct sockaddr *sa, int salen,
                      void *arg)
{
    struct conn_hub *hub = arg;
    if (conn_guard_admit(hub, fd) != 0) return;
    struct conn *c = calloc(1, sizeof *c);
    if (!c) {
        LOGE("conn", "-", "out of memory accepting a connection");
        evutil_closesocket(fd);
        return;
    }
    c->link.ops = &conn_link_ops;
    c->link.label = c->label;
    c->hub = hub;
    c->fd = fd;
    c->id = hub->next_id++;
    if (sa->sa_family == AF_INET || sa->sa_family == AF_INET6) {
        int one = 1; /* requests and replies are small: never wait for Nagle */
        setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
        peer_deadline(fd, hub->lim.peer_ms);
    }
    char peer[64];
    peer_name(sa, peer, sizeof peer);
    /* the key of the per-address quotas: the address without its port (limits.c) */
    size_t alen = peer[0] == '[' ? strcspn(peer + 1, "]") : strcspn(peer, ":");
    snprintf(c->link.addr, sizeof c->link.addr, "%.*s", (int)alen, peer + (peer[0] == '['));
    snprintf(c->label, sizeof c->label, "conn#%llu (%s)", (unsigned long long)c->id, peer);
    evutil_make_socket_nonblocking(fd);
    c->in = evbuffer_new();
    c->out = evbuffer_new();
    if (c->out && !evbuffer_add_cb(c->out, count_cb, hub)) {
        evbuffer_free(c->out);
        c->out = NULL;
    }
    c->rev = event_new(hub->base, fd, EV_READ | EV_PERSIST, read_cb, c);
    c->wev = event_new(hub->base, fd, EV_WRITE | EV_PERSIST, write_cb, c);
    c->kick = event_new(hub->base, -1, 0, kick_cb, c);
    c->stall = event_new(hub->base, -1, 0, stall_cb, c);
    c->hello = event_new(hub->base, -1, 0, hello_cb, c);
    c->frame = event_new(hub->base, -1, 0, frame_cb, c);
    c->next = hub->head;
    if (hub->head) hub->head->prev = c;
    hub->head = c;
    hub->n_conns++;
    if (!c->in || !c->out || !c->rev || !c->wev || !c->kick || !c->stall || !c->hello ||
        !c->frame) {
        LOGE("conn", c->label, "out of memory setting up the connection");
        conn_free(c);
        return;
    }
    struct timeval htv = {hub->lim.hello_ms / 1000, (hub->lim.hello_ms % 1000) * 1000};
    event_add(c->hello, &htv);
    event_add(c->rev, NULL);
    c->reading = 1;
    LOGD("conn", c->label, "accepted");
}

static void accept_error_cb(struct evconnlistener *l, void *arg)
{
    /* EMFILE and friends: pause, retry later (the next accept may succeed once clients
     * leave); conn_guard.c bounds both the retries and the log lines. */
    conn_guard_accept_failed(arg, EVUTIL_SOCKET_ERROR());
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
    if (hub->lim.frame_ms <= 0) hub->lim.frame_ms = CONN_DEFAULT_FRAME_MS;
    if (!hub->lim.max_conns) hub->lim.max_conns = CONN_DEFAULT_MAX_CONNS;
    hub->guard.backoff_ms = CONN_GUARD_BACKOFF_MIN_MS;
    hub->ops = *ops;
    hub->ctx = ctx;
    hub->next_id = 1;
    hub->reaper = event_new(base, -1, 0, reaper_cb, hub);
    hub->flusher = event_new(base, -1, 0, flush_cb, hub);
    if (!hub->reaper || !hub->flusher) {
        snprintf(err, errlen, "conn: event_new failed for the close queue or the flusher");
        return -1;
    }
    return 0;
}

/* Split "HOST:PORT" or "[HOST]:PORT". */
int conn_split_addr(const char *addr, char *host, size_t hostlen, char *port, size_t portlen)
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
    if (strlen(colon + 1) > 5 || atoi(colon + 1) > 65535) return -1;
    snprintf(port, portlen, "%s", colon + 1);
    return 0;
}

int conn_is_loopback(const struct sockaddr *sa)
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
    if (conn_split_addr(addr, host, sizeof host, port, sizeof port) != 0) {
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
    if (!allow_remote && !conn_is_loopback(res->ai_addr)) {
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
    /* Check and bind under a lock of the folder, so that two RTIs started at once cannot
     * both find the path stale and replace each other's socket. */
    char dir[sizeof sun.sun_path];
    snprintf(dir, sizeof dir, "%s", path);
    char *slash = strrchr(dir, '/');
    if (!slash)
        snprintf(dir, sizeof dir, ".");
    else if (slash == dir)
        dir[1] = '\0';
    else
        *slash = '\0';
    int dfd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (dfd >= 0) flock(dfd, LOCK_EX);
    struct evconnlistener *l = NULL;
    if (conn_guard_unix_claim(path, err, errlen) == 0) {
        l = evconnlistener_new_bind(hub->base, accept_cb, hub, LEV_OPT_CLOSE_ON_FREE, 128,
                                    (struct sockaddr *)&sun, (int)sizeof sun);
        if (!l) snprintf(err, errlen, "--unix '%s': bind/listen: %s", path, strerror(errno));
    }
    struct stat st;
    if (l && lstat(path, &st) == 0) {
        hub->unix_dev = (unsigned long long)st.st_dev;
        hub->unix_ino = (unsigned long long)st.st_ino;
    }
    if (dfd >= 0) close(dfd); /* releases the lock */
    if (!l) return -1;
    snprintf(hub->unix_path, sizeof hub->unix_path, "%s", path);
    return add_listener(hub, l, err, errlen);
}

void conn_hub_fini(struct conn_hub *hub)
{
    for (int i = 0; i < hub->n_lst; i++)
        evconnlistener_free(hub->lst[i]);
    hub->n_lst = 0;
    if (hub->unix_path[0]) {
        /* Only our own file: another RTI may have replaced it since (after we stopped
         * accepting, or by hand). */
        struct stat st;
        if (lstat(hub->unix_path, &st) == 0 && (unsigned long long)st.st_dev == hub->unix_dev &&
            (unsigned long long)st.st_ino == hub->unix_ino)
            unlink(hub->unix_path);
        hub->unix_path[0] = '\0';
    }
    conn_guard_fini(hub);
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
            c->link.closed = 1;
            snprintf(c->close_reason, sizeof c->close_reason, "RTI shutting down");
        }
        notify_close(c);
    }
    while (hub->head)
        conn_free(hub->head);
    if (hub->reaper) event_free(hub->reaper);
    if (hub->flusher) event_free(hub->flusher);
    hub->reaper = hub->flusher = NULL;
    hub->dirty_head = NULL;
}
