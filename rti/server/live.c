/* The live view: a small HTTP/1.1 server on the RTI's event loop serving one page
 * (live_page.c), the federations' state as JSON and a Server-Sent Events stream of it.
 * Bounded against slow or hostile clients: a few connections, one request each, a head of at
 * most LIVE_HEAD_MAX bytes read within LIVE_READ_MS, replies and streams capped at
 * LIVE_OUT_MAX queued bytes and dropped when they make no progress for LIVE_WRITE_MS.
 * Serves doc/live.md (every field) and doc/rti.md (--http). Read rti/server/live_json.c next. */
#include "rti/server/conn.h"
#include "rti/server/live_impl.h"

#include "rti/server/log.h"

#include <arpa/inet.h>
#include <errno.h>
#include <event2/buffer.h>
#include <event2/bufferevent.h>
#include <event2/event.h>
#include <event2/listener.h>
#include <netdb.h>
#include <netinet/in.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

/* One HTTP connection: one request, then its reply (closed once written) or a stream. */
struct hconn {
    struct live *lv;
    struct bufferevent *bev;
    int remote;    /* 1: the peer is not on loopback: it must give the secret */
    int stream;    /* 1: an event stream: every sample appends one event */
    int closing;   /* 1: the reply is queued: free once it is written */
    char peer[48]; /* the peer's address, for log lines */
    struct hconn *prev, *next;
};

static void conn_free(struct hconn *h)
{
    struct live *lv = h->lv;
    if (h->prev)
        h->prev->next = h->next;
    else
        lv->conns = h->next;
    if (h->next) h->next->prev = h->prev;
    lv->n_conns--;
    if (h->stream) lv->n_streams--;
    bufferevent_free(h->bev);
    free(h);
}

/* ---- replies ------------------------------------------------------------------------------ */

static void reply(struct hconn *h, int code, const char *status, const char *ctype,
                  const void *body, size_t len)
{
    struct evbuffer *out = bufferevent_get_output(h->bev);
    evbuffer_add_printf(out,
                        "HTTP/1.1 %d %s\r\nContent-Type: %s\r\nContent-Length: %zu\r\n"
                        "Cache-Control: no-store\r\nX-Content-Type-Options: nosniff\r\n"
                        "Connection: close\r\n\r\n",
                        code, status, ctype, len);
    evbuffer_add(out, body, len);
    h->closing = 1;
    bufferevent_disable(h->bev, EV_READ);
}

static void reply_text(struct hconn *h, int code, const char *status, const char *text)
{
    reply(h, code, status, "text/plain; charset=utf-8", text, strlen(text));
}

/* Compare secrets without leaking the position of the first difference through timing. */
static int secret_matches(const char *want, const char *given, size_t glen)
{
    size_t wl = strlen(want);
    unsigned diff = (unsigned)(glen != wl);
    for (size_t i = 0; i < wl; i++) {
        unsigned char g = i < glen ? (unsigned char)given[i] : 0;
        diff |= (unsigned)(g ^ (unsigned char)want[i]);
    }
    return diff == 0;
}

/* The secret a request carries: "?secret=..." in its target (the page passes its own on to
 * its requests) or an "X-Tempo-Secret:" header. Percent-decoding is not done: a secret with
 * reserved characters goes in the header. */
static int request_authorized(const struct hconn *h, const char *target, const char *head)
{
    const char *want = h->lv->s->cfg.secret;
    if (!h->remote) return 1;
    if (!want || !want[0]) return 0; /* live_start refuses this configuration anyway */
    const char *q = strchr(target, '?');
    for (const char *p = q; p; p = strchr(p + 1, '&')) {
        if (strncmp(p + 1, "secret=", 7) == 0) {
            const char *v = p + 8;
            size_t n = strcspn(v, "&");
            if (secret_matches(want, v, n)) return 1;
        }
    }
    for (const char *p = strchr(head, '\n'); p; p = strchr(p + 1, '\n')) {
        if (strncasecmp(p + 1, "X-Tempo-Secret:", 15) == 0) {
            const char *v = p + 16;
            while (*v == ' ')
                v++;
            size_t n = strcspn(v, "\r\n");
            if (secret_matches(want, v, n)) return 1;
        }
    }
    return 0;
}

/* The embedded RTI's lock around a read of its state (server.view_lock; tempo-rti has none:
 * its loop is the only thread). */
static void state_lock(struct live *lv, int on)
{
    pthread_mutex_t *m = lv->s->view_lock;
    if (m && on) pthread_mutex_lock(m);
    if (m && !on) pthread_mutex_unlock(m);
}

static void send_event(struct live *lv, struct hconn *h)
{
    struct evbuffer *out = bufferevent_get_output(h->bev);
    evbuffer_add(out, "data: ", 6);
    evbuffer_add(out, evbuffer_pullup(lv->json, -1), evbuffer_get_length(lv->json));
    evbuffer_add(out, "\n\n", 2);
}

/* Route one request head (NUL-terminated, "\r\n\r\n" included). */
static void handle_request(struct hconn *h, char *head)
{
    struct live *lv = h->lv;
    char method[8], target[512];
    if (sscanf(head, "%7s %511s HTTP/1.", method, target) != 2) {
        reply_text(h, 400, "Bad Request", "bad request line\n");
        return;
    }
    if (strcmp(method, "GET") != 0) {
        reply_text(h, 405, "Method Not Allowed", "only GET is served\n");
        return;
    }
    if (!request_authorized(h, target, head)) {
        LOGW("live", "-", "%s: request refused: wrong or missing shared secret", h->peer);
        reply_text(h, 403, "Forbidden", "shared secret missing or wrong\n");
        return;
    }
    size_t plen = strcspn(target, "?");
    target[plen] = '\0';
    if (strcmp(target, "/") == 0 || strcmp(target, "/index.html") == 0) {
        reply(h, 200, "OK", "text/html; charset=utf-8", live_page, strlen(live_page));
    } else if (strcmp(target, "/api/state") == 0) {
        state_lock(lv, 1);
        live_json_state(lv, lv->json);
        state_lock(lv, 0);
        reply(h, 200, "OK", "application/json", evbuffer_pullup(lv->json, -1),
              evbuffer_get_length(lv->json));
        evbuffer_drain(lv->json, evbuffer_get_length(lv->json));
    } else if (strcmp(target, "/api/stream") == 0) {
        evbuffer_add_printf(bufferevent_get_output(h->bev),
                            "HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\n"
                            "Cache-Control: no-store\r\nConnection: close\r\n\r\n"
                            "retry: 2000\n\n");
        h->stream = 1;
        lv->n_streams++;
        bufferevent_disable(h->bev, EV_READ);
        state_lock(lv, 1);
        live_json_state(lv, lv->json);
        state_lock(lv, 0);
        send_event(lv, h);
        evbuffer_drain(lv->json, evbuffer_get_length(lv->json));
    } else {
        reply_text(h, 404, "Not Found", "not found: / /api/state /api/stream\n");
    }
}

/* ---- connection callbacks ----------------------------------------------------------------- */

static void read_cb(struct bufferevent *bev, void *arg)
{
    struct hconn *h = arg;
    struct evbuffer *in = bufferevent_get_input(bev);
    if (h->closing || h->stream) {
        evbuffer_drain(in, evbuffer_get_length(in));
        return;
    }
    struct evbuffer_ptr end = evbuffer_search(in, "\r\n\r\n", 4, NULL);
    if (end.pos < 0) {
        if (evbuffer_get_length(in) >= LIVE_HEAD_MAX)
            reply_text(h, 431, "Request Header Fields Too Large", "request head too large\n");
        return;
    }
    if ((size_t)end.pos + 4 > LIVE_HEAD_MAX) {
        reply_text(h, 431, "Request Header Fields Too Large", "request head too large\n");
        return;
    }
    char head[LIVE_HEAD_MAX + 1];
    size_t n = (size_t)end.pos + 4;
    evbuffer_remove(in, head, n);
    head[n] = '\0';
    /* One request per connection: the reply closes it, a stream only writes. The read
     * deadline is over; the write deadline stays. */
    struct timeval wt = {LIVE_WRITE_MS / 1000, (LIVE_WRITE_MS % 1000) * 1000};
    bufferevent_set_timeouts(bev, NULL, &wt);
    handle_request(h, head);
}

static void write_cb(struct bufferevent *bev, void *arg)
{
    struct hconn *h = arg;
    if (h->closing && evbuffer_get_length(bufferevent_get_output(bev)) == 0) conn_free(h);
}

static void event_cb(struct bufferevent *bev, short what, void *arg)
{
    struct hconn *h = arg;
    if (what & BEV_EVENT_TIMEOUT) h->lv->n_timeouts++;
    conn_free(h); /* end of file, error or deadline: nothing more to say to it */
}

static void accept_cb(struct evconnlistener *l, evutil_socket_t fd, struct sockaddr *sa, int salen,
                      void *arg)
{
    struct live *lv = arg;
    if (lv->n_conns >= LIVE_MAX_CONNS) {
        /* Refused at once, so that a flood costs one accept and one close per attempt. */
        lv->n_refused++;
        evutil_closesocket(fd);
        return;
    }
    struct hconn *h = calloc(1, sizeof *h);
    struct bufferevent *bev =
        h ? bufferevent_socket_new(lv->s->base, fd, BEV_OPT_CLOSE_ON_FREE) : NULL;
    if (!bev) {
        free(h);
        evutil_closesocket(fd);
        return;
    }
    h->lv = lv;
    h->bev = bev;
    h->remote = !conn_is_loopback(sa);
    if (sa->sa_family == AF_INET)
        inet_ntop(AF_INET, &((struct sockaddr_in *)sa)->sin_addr, h->peer, sizeof h->peer);
    else if (sa->sa_family == AF_INET6)
        inet_ntop(AF_INET6, &((struct sockaddr_in6 *)sa)->sin6_addr, h->peer, sizeof h->peer);
    h->next = lv->conns;
    if (lv->conns) lv->conns->prev = h;
    lv->conns = h;
    lv->n_conns++;
    bufferevent_setcb(bev, read_cb, write_cb, event_cb, h);
    /* Reading stops at the head's cap: a client sending more cannot grow the buffer. */
    bufferevent_setwatermark(bev, EV_READ, 0, LIVE_HEAD_MAX);
    struct timeval rt = {LIVE_READ_MS / 1000, (LIVE_READ_MS % 1000) * 1000};
    struct timeval wt = {LIVE_WRITE_MS / 1000, (LIVE_WRITE_MS % 1000) * 1000};
    bufferevent_set_timeouts(bev, &rt, &wt);
    bufferevent_enable(bev, EV_READ | EV_WRITE);
    (void)l;
    (void)salen;
}

/* ---- the sampler ---------------------------------------------------------------------------- */

/* Every LIVE_SAMPLE_MS: one sample of each federate's time and frame count (the plots), then
 * one event to each stream. With nobody looking this costs one pass over the federates a
 * second: nothing is encoded. */
static void tick_cb(evutil_socket_t fd, short what, void *arg)
{
    struct live *lv = arg;
    state_lock(lv, 1);
    live_sample(lv);
    if (lv->n_streams) live_json_state(lv, lv->json);
    state_lock(lv, 0);
    if (lv->n_streams == 0) return;
    for (struct hconn *h = lv->conns, *nx; h; h = nx) {
        nx = h->next;
        if (!h->stream) continue;
        if (evbuffer_get_length(bufferevent_get_output(h->bev)) > LIVE_OUT_MAX) {
            LOGW("live", "-", "%s: stream dropped: it reads too slowly (%u bytes queued)", h->peer,
                 (unsigned)evbuffer_get_length(bufferevent_get_output(h->bev)));
            lv->n_dropped++;
            conn_free(h);
            continue;
        }
        send_event(lv, h);
    }
    evbuffer_drain(lv->json, evbuffer_get_length(lv->json));
    (void)fd;
    (void)what;
}

/* ---- start and stop ------------------------------------------------------------------------- */

static int bind_listener(struct live *lv, const char *addr, char *err, size_t errlen)
{
    char host[256], port[16];
    if (conn_split_addr(addr, host, sizeof host, port, sizeof port) != 0) {
        snprintf(err, errlen, "--http '%s': expected HOST:PORT (e.g. 127.0.0.1:8080)", addr);
        return -1;
    }
    struct addrinfo hints = {0}, *res = NULL;
    hints.ai_family = AF_UNSPEC;
    hints.ai_socktype = SOCK_STREAM;
    hints.ai_flags = AI_PASSIVE | AI_NUMERICSERV;
    int gai = getaddrinfo(host, port, &hints, &res);
    if (gai != 0) {
        snprintf(err, errlen, "--http '%s': getaddrinfo: %s", addr, gai_strerror(gai));
        return -1;
    }
    if (!conn_is_loopback(res->ai_addr)) {
        const char *why = !lv->s->cfg.allow_remote ? "add --allow-remote to serve other hosts"
                          : !lv->s->cfg.secret || !lv->s->cfg.secret[0]
                              ? "a remote view needs the federation secret (--secret, "
                                "--secret-file or TEMPO_SECRET)"
                              : NULL;
        if (why) {
            snprintf(err, errlen, "--http '%s': not a loopback address: %s", addr, why);
            freeaddrinfo(res);
            return -1;
        }
    }
    lv->lst = evconnlistener_new_bind(lv->s->base, accept_cb, lv,
                                      LEV_OPT_CLOSE_ON_FREE | LEV_OPT_REUSEABLE, 16, res->ai_addr,
                                      (int)res->ai_addrlen);
    freeaddrinfo(res);
    if (!lv->lst) {
        snprintf(err, errlen, "--http '%s': bind/listen: %s", addr, strerror(errno));
        return -1;
    }
    struct sockaddr_storage ss;
    socklen_t sl = sizeof ss;
    char ip[INET6_ADDRSTRLEN] = "?";
    snprintf(lv->address, sizeof lv->address, "%s", addr);
    if (getsockname(evconnlistener_get_fd(lv->lst), (struct sockaddr *)&ss, &sl) == 0) {
        if (ss.ss_family == AF_INET) {
            struct sockaddr_in *in = (struct sockaddr_in *)&ss;
            inet_ntop(AF_INET, &in->sin_addr, ip, sizeof ip);
            snprintf(lv->address, sizeof lv->address, "%s:%u", ip, ntohs(in->sin_port));
        } else if (ss.ss_family == AF_INET6) {
            struct sockaddr_in6 *in6 = (struct sockaddr_in6 *)&ss;
            inet_ntop(AF_INET6, &in6->sin6_addr, ip, sizeof ip);
            snprintf(lv->address, sizeof lv->address, "[%s]:%u", ip, ntohs(in6->sin6_port));
        }
    }
    return 0;
}

int live_start(struct server *s, const char *addr, char *err, size_t errlen)
{
    if (!s->base) {
        snprintf(err, errlen, "--http: this RTI has no event loop");
        return -1;
    }
    struct live *lv = calloc(1, sizeof *lv);
    if (!lv) {
        snprintf(err, errlen, "--http: out of memory");
        return -1;
    }
    lv->s = s;
    s->live = lv;
    lv->json = evbuffer_new();
    lv->tick = event_new(s->base, -1, EV_PERSIST, tick_cb, lv);
    struct timeval tv = {LIVE_SAMPLE_MS / 1000, (LIVE_SAMPLE_MS % 1000) * 1000};
    if (!lv->json || !lv->tick || event_add(lv->tick, &tv) != 0) {
        snprintf(err, errlen, "--http: cannot start the sampling timer");
        live_stop(s);
        return -1;
    }
    if (bind_listener(lv, addr, err, errlen) != 0) {
        live_stop(s);
        return -1;
    }
    LOGI("live", "-", "live view on http://%s/", lv->address);
    return 0;
}

void live_stop(struct server *s)
{
    struct live *lv = s->live;
    if (!lv) return;
    while (lv->conns)
        conn_free(lv->conns);
    if (lv->lst) evconnlistener_free(lv->lst);
    if (lv->tick) event_free(lv->tick);
    if (lv->json) evbuffer_free(lv->json);
    free(lv);
    s->live = NULL;
}

const char *live_address(const struct server *s)
{
    return s->live ? s->live->address : "";
}
