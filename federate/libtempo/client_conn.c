/* libtempo connection layer: connect (TCP with TCP_NODELAY, or a Unix socket), batched frame
 * output, input reading, and waiting for the reply to one request while leaving every other
 * frame queued for tp_evoke(). Serves doc/protocol.md (batching, no per-message
 * allocation once warm). Read federate/libtempo/client_evoke.c next (dispatch of queued frames).
 *
 * Invariant: f->in holds [0, in_off) dispatched bytes and [in_off, len) pending frames;
 * dispatched bytes are dropped in one buf_consume per batch, never per frame. */
#include <errno.h>
#include <fcntl.h>
#include <netdb.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <sys/un.h>
#include <time.h>
#include <unistd.h>

#include "federate/libtempo/client_impl.h"
#include "rti/server/embed.h"

#define TPI_INPROC_PREFIX "inproc:"

int64_t tpi_now_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

/* Remaining milliseconds until @p deadline (-1 = none) for poll(). */
static int remaining(int64_t deadline)
{
    if (deadline < 0) return -1;
    int64_t r = deadline - tpi_now_ms();
    return r < 0 ? 0 : (r > 1000000 ? 1000000 : (int)r);
}

static int set_nonblock(int fd)
{
    int fl = fcntl(fd, F_GETFL);
    return fl < 0 ? -1 : fcntl(fd, F_SETFL, fl | O_NONBLOCK);
}

/* Finish a non-blocking connect within timeout_ms. */
static int connect_wait(int fd, const struct sockaddr *sa, socklen_t salen, int timeout_ms)
{
    if (connect(fd, sa, salen) == 0) return 0;
    if (errno != EINPROGRESS) return -1;
    struct pollfd p = {.fd = fd, .events = POLLOUT};
    int r;
    do
        r = poll(&p, 1, timeout_ms);
    while (r < 0 && errno == EINTR);
    if (r == 0) {
        errno = ETIMEDOUT;
        return -1;
    }
    if (r < 0) return -1;
    int soerr = 0;
    socklen_t len = sizeof soerr;
    if (getsockopt(fd, SOL_SOCKET, SO_ERROR, &soerr, &len) < 0) return -1;
    if (soerr) {
        errno = soerr;
        return -1;
    }
    return 0;
}

/* After connecting, the socket is blocking: every call that must not block passes
 * MSG_DONTWAIT, and a wait without a timeout is one blocking recv() (one system call, the
 * shortest path for a round trip). */
static int blocking(int fd)
{
    int fl = fcntl(fd, F_GETFL);
    if (fl >= 0) fcntl(fd, F_SETFL, fl & ~O_NONBLOCK);
    return fd;
}

static int connect_unix(const char *path, int timeout_ms, char *err, size_t errlen)
{
    struct sockaddr_un sa;
    memset(&sa, 0, sizeof sa);
    sa.sun_family = AF_UNIX;
    if (strlen(path) >= sizeof sa.sun_path) {
        snprintf(err, errlen, "unix socket path \"%s\" is too long", path);
        return -1;
    }
    strcpy(sa.sun_path, path);
    int fd = socket(AF_UNIX, SOCK_STREAM, 0);
    if (fd < 0 || set_nonblock(fd) < 0 ||
        connect_wait(fd, (struct sockaddr *)&sa, sizeof sa, timeout_ms) < 0) {
        snprintf(err, errlen, "connect to unix:%s: %s", path, strerror(errno));
        if (fd >= 0) close(fd);
        return -1;
    }
    return blocking(fd);
}

int tpi_connect(const char *addr, int timeout_ms, char *err, size_t errlen)
{
    if (!addr || !*addr) addr = TPI_DEFAULT_RTI;
    if (strncmp(addr, "unix:", 5) == 0) return connect_unix(addr + 5, timeout_ms, err, errlen);
    char host[256];
    const char *colon = strrchr(addr, ':');
    size_t hl = colon ? (size_t)(colon - addr) : 0;
    if (!colon || hl == 0 || hl >= sizeof host || !colon[1]) {
        snprintf(err, errlen, "RTI address \"%s\" is not host:port or unix:/path", addr);
        return -1;
    }
    memcpy(host, addr, hl);
    host[hl] = '\0';
    if (host[0] == '[' && hl > 2 && host[hl - 1] == ']') { /* [::1]:port */
        memmove(host, host + 1, hl - 2);
        host[hl - 2] = '\0';
    }
    struct addrinfo hints, *res = NULL;
    memset(&hints, 0, sizeof hints);
    hints.ai_family = AF_UNSPEC;
    hints.ai_socktype = SOCK_STREAM;
    int gr = getaddrinfo(host, colon + 1, &hints, &res);
    if (gr != 0) {
        snprintf(err, errlen, "resolve RTI address \"%s\": %s", addr, gai_strerror(gr));
        return -1;
    }
    int fd = -1;
    int saved = 0;
    for (struct addrinfo *ai = res; ai; ai = ai->ai_next) {
        fd = socket(ai->ai_family, ai->ai_socktype, ai->ai_protocol);
        if (fd < 0) {
            saved = errno;
            continue;
        }
        if (set_nonblock(fd) == 0 && connect_wait(fd, ai->ai_addr, ai->ai_addrlen, timeout_ms) == 0)
            break;
        saved = errno;
        close(fd);
        fd = -1;
    }
    freeaddrinfo(res);
    if (fd < 0) {
        snprintf(err, errlen, "connect to RTI at %s: %s", addr, strerror(saved));
        return -1;
    }
    /* Frames are batched by us; Nagle would only add latency to the last one of a batch. */
    int one = 1;
    setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
    return blocking(fd);
}

int tpi_open(tp_federate *f, const char *addr, char *err, size_t errlen)
{
    size_t np = strlen(TPI_INPROC_PREFIX);
    if (addr && !strncmp(addr, TPI_INPROC_PREFIX, np)) {
        f->ip = embed_connect(addr + np, err, errlen);
        return f->ip ? TP_OK : TP_ESYS;
    }
    f->fd = tpi_connect(addr, f->timeout_ms, err, errlen);
    return f->fd >= 0 ? TP_OK : TP_ESYS;
}

void tpi_close(tp_federate *f)
{
    if (f->fd >= 0) close(f->fd);
    f->fd = -1;
    embed_close(f->ip);
    f->ip = NULL;
    f->closed = 1;
}

int tpi_check_joined(tp_federate *f)
{
    if (!f) return TP_EINVAL;
    if (!f->joined)
        return tpi_fail(f, TP_ESTATE, "federate \"%s\" is not joined (resigned or lost)", f->name);
    if (f->closed)
        return tpi_fail(f, TP_ECLOSED, "federate \"%s\": the connection to the RTI is closed",
                        f->name);
    return TP_OK;
}

uint32_t tpi_req(tp_federate *f)
{
    if (++f->next_req == 0) f->next_req = 1;
    return f->next_req;
}

/* Connection loss: remember it, close, and report. */
static int lost(tp_federate *f, int code, const char *what, int e)
{
    if (code == TP_ECLOSED)
        tpi_fail(f, code, "federate \"%s\": the RTI closed the connection (%s)", f->name, what);
    else
        tpi_fail(f, code, "federate \"%s\": %s: %s", f->name, what, strerror(e));
    tpi_log(f, TP_LOG_ERROR, "%s", f->err);
    tpi_close(f);
    return code;
}

/* One recv into f->in: timeout 0 = non-blocking; otherwise blocking, bounded by SO_RCVTIMEO
 * (< 0: none), set only when the timeout changes (a loop with a fixed timeout costs one
 * system call per wake-up, like a plain blocking read). */
static int sock_read(tp_federate *f, int timeout_ms)
{
    if (timeout_ms != 0 && timeout_ms != f->rcvtimeo_ms) {
        struct timeval tv = {0, 0}; /* 0 = no timeout */
        if (timeout_ms > 0) {
            tv.tv_sec = timeout_ms / 1000;
            tv.tv_usec = (timeout_ms % 1000) * 1000;
        }
        if (setsockopt(f->fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof tv) < 0)
            return lost(f, TP_ESYS, "setsockopt SO_RCVTIMEO", errno);
        f->rcvtimeo_ms = timeout_ms;
    }
    int flags = timeout_ms == 0 ? MSG_DONTWAIT : 0;
    for (;;) {
        ssize_t n = recv(f->fd, f->in.data + f->in.len, f->in.cap - f->in.len, flags);
        if (n > 0) {
            f->in.len += (size_t)n;
            return (int)(n > 0x7fffffff ? 0x7fffffff : n);
        }
        if (n == 0) return lost(f, TP_ECLOSED, "end of stream", 0);
        if (errno == EINTR) continue;
        if (errno == ECONNRESET) /* the RTI went away without a clean close */
            return lost(f, TP_ECLOSED, "connection reset", 0);
        if (errno == ETIMEDOUT) /* the kernel gave up on the peer */
            return lost(f, TP_ECLOSED, "connection timed out", 0);
        if (errno != EAGAIN && errno != EWOULDBLOCK)
            return lost(f, TP_ESYS, "read from the RTI", errno);
        return 0; /* nothing there (a spurious poll wake-up counts as a timeout) */
    }
}

/* The liveness deadline, after a read that found nothing (doc/api.md "Liveness"): a live RTI
 * answers PING with PONG whatever its federation is doing, so silence for half the deadline
 * earns one PING (req 0: no wait matches its PONG, tp_evoke drops it), and silence for the
 * whole deadline means the RTI is stopped or hung, or the link to it is cut (no FIN or reset
 * ever comes then). Inside tpi_flush no PING is queued (the output buffer is being written). */
static int liveness_check(tp_federate *f)
{
    int64_t now = tpi_now_ms();
    int64_t idle = now - f->last_rx_ms;
    if (idle >= f->liveness_ms) {
        tpi_fail(f, TP_ECLOSED,
                 "federate \"%s\": nothing from the RTI for %lld ms (liveness deadline %d ms, "
                 "TEMPO_LIVENESS_MS or tp_set_liveness): the RTI is stopped or hung, or the link "
                 "to it is cut; connection closed",
                 f->name, (long long)idle, f->liveness_ms);
        tpi_log(f, TP_LOG_ERROR, "%s", f->err);
        tpi_close(f);
        return TP_ECLOSED;
    }
    if (idle >= f->liveness_ms / 2 && f->ping_ms <= f->last_rx_ms && !f->flushing) {
        struct wire_msg m;
        wire_msg_init(&m, WIRE_PING);
        f->ping_ms = now;
        int r = tpi_send(f, &m);
        if (r == TP_OK) r = tpi_flush(f);
        if (r < 0) return r;
    }
    return TP_OK;
}

int tpi_read(tp_federate *f, int timeout_ms)
{
    if (f->fd < 0 && !f->ip)
        return tpi_fail(f, TP_ECLOSED, "federate \"%s\": the connection is closed", f->name);
    /* Drop dispatched bytes only when they are the whole buffer (cheap) or most of it. */
    if (f->in_off == f->in.len) {
        f->in_base += f->in.len;
        buf_clear(&f->in);
        f->in_off = 0;
    } else if (f->in_off > f->in.len / 2 && f->in_off > 4096) {
        f->in_base += f->in_off;
        buf_consume(&f->in, f->in_off);
        f->in_off = 0;
    }
    if (f->ip) { /* in process: the queue the embedded RTI fills (spin, then block) */
        int n = embed_read(f->ip, &f->in, timeout_ms);
        if (n == -2)
            return tpi_fail(f, TP_ENOMEM, "federate \"%s\": input buffer cannot grow", f->name);
        return n < 0 ? lost(f, TP_ECLOSED, embed_reason(f->ip), 0) : n;
    }
    if (buf_reserve(&f->in, TPI_READ_CHUNK) < 0)
        return tpi_fail(f, TP_ENOMEM, "federate \"%s\": input buffer cannot grow", f->name);
    if (f->liveness_ms <= 0) return sock_read(f, timeout_ms);
    /* A program that computed for a while between two calls was not waiting on the RTI: that
     * gap is not the RTI's silence. So after a gap, unless a PING is still unanswered, the
     * silence counts as half the deadline at most: the first empty read sends a PING, and
     * the connection is closed only if nothing comes for the other half. */
    int64_t now = tpi_now_ms();
    if (now - f->read_end_ms >= f->liveness_ms / 4 && f->ping_ms <= f->last_rx_ms &&
        now - f->last_rx_ms > f->liveness_ms / 2)
        f->last_rx_ms = now - f->liveness_ms / 2;
    /* With a liveness deadline a wait is cut into slices of a quarter of it, each ended by a
     * liveness check; the caller still sees one wait of timeout_ms. */
    int64_t end = timeout_ms > 0 ? now + timeout_ms : -1;
    int slice = f->liveness_ms / 4;
    int n;
    for (;;) {
        int t = timeout_ms < 0 ? slice : timeout_ms == 0 ? 0 : remaining(end);
        if (t > slice) t = slice;
        n = sock_read(f, t);
        if (n != 0) break;
        int r = liveness_check(f);
        if (r < 0) {
            n = r;
            break;
        }
        if (timeout_ms == 0 || (timeout_ms > 0 && tpi_now_ms() >= end)) break;
    }
    f->read_end_ms = tpi_now_ms(); /* one clock reading per read */
    if (n > 0) f->last_rx_ms = f->read_end_ms;
    return n;
}

static int flush_sock(tp_federate *f);

int tpi_flush(tp_federate *f)
{
    if (f->ip || f->flushing) return flush_sock(f);
    f->flushing = 1;
    int r = flush_sock(f);
    f->flushing = 0;
    return r;
}

/* tpi_flush's work; f->flushing is set around it for a socket. */
static int flush_sock(tp_federate *f)
{
    if (f->ip) { /* in process: the core runs on the frames in this thread */
        int r = f->out.len ? embed_write(f->ip, f->out.data, f->out.len) : 0;
        buf_clear(&f->out);
        return r < 0 ? lost(f, TP_ECLOSED, embed_reason(f->ip), 0) : TP_OK;
    }
    size_t off = 0;
    while (off < f->out.len) {
        if (f->fd < 0) {
            buf_clear(&f->out);
            return tpi_fail(f, TP_ECLOSED, "federate \"%s\": the connection is closed", f->name);
        }
        ssize_t n = send(f->fd, f->out.data + off, f->out.len - off, MSG_NOSIGNAL | MSG_DONTWAIT);
        if (n > 0) {
            off += (size_t)n;
            continue;
        }
        if (n < 0 && errno == EINTR) continue;
        if (n < 0 && errno != EAGAIN && errno != EWOULDBLOCK) {
            buf_clear(&f->out);
            return lost(f, errno == EPIPE || errno == ECONNRESET ? TP_ECLOSED : TP_ESYS,
                        "write to the RTI", errno);
        }
        /* The kernel buffer is full. Keep reading while we wait, so that an RTI that is
         * itself blocked writing to us can make progress (no mutual write deadlock). */
        struct pollfd p = {.fd = f->fd, .events = POLLOUT | POLLIN};
        int r = poll(&p, 1, f->liveness_ms > 0 ? f->liveness_ms / 4 : -1);
        if (r < 0 && errno != EINTR) {
            buf_clear(&f->out);
            return lost(f, TP_ESYS, "poll", errno);
        }
        /* readable, or a slice of the liveness deadline gone: tpi_read checks the deadline */
        if ((r > 0 && (p.revents & POLLIN)) || (r == 0 && f->liveness_ms > 0)) {
            int rr = tpi_read(f, 0);
            if (rr < 0) {
                buf_clear(&f->out);
                return rr;
            }
        }
    }
    buf_clear(&f->out);
    return TP_OK;
}

int tpi_send(tp_federate *f, const struct wire_msg *m)
{
    char why[200];
    int r = wire_encode(&f->out, m, f->max_frame, why, sizeof why);
    if (r == WIRE_ENOMEM)
        return tpi_fail(f, TP_ENOMEM, "federate \"%s\": output buffer cannot grow", f->name);
    if (r == WIRE_ETOOBIG)
        return tpi_fail(f, TP_ESIZE, "federate \"%s\": %s message too large: %s", f->name,
                        wire_type_name(m->type), why);
    if (r < 0)
        return tpi_fail(f, TP_EINVAL, "federate \"%s\": cannot encode %s: %s", f->name,
                        wire_type_name(m->type), why);
    if (f->out.len >= TPI_FLUSH_THRESHOLD) return tpi_flush(f);
    return TP_OK;
}

/* Does frame message @p m answer request @p req? */
static int answers(const struct wire_msg *m, unsigned type, uint32_t req)
{
    if (type) return m->type == type && m->req == req;
    switch (m->type) {
    case WIRE_REPLY:
    case WIRE_ERROR:
    case WIRE_JOIN_OK:
    case WIRE_TIME_STATUS:
    case WIRE_PONG:
    case WIRE_HELLO_OK:
    case WIRE_RESTORE_PART: /* ahead of a restoring join's JOIN_OK */
        return m->req == req;
    default:
        return 0;
    }
}

int tpi_wait_reply(tp_federate *f, uint32_t req, tpi_reply_fn fn, void *arg)
{
    return tpi_wait_frame(f, 0, req, f->timeout_ms, fn, arg);
}

int tpi_wait_frame(tp_federate *f, unsigned type, uint32_t req, int timeout_ms, tpi_reply_fn fn,
                   void *arg)
{
    int r = tpi_flush(f);
    if (r < 0) return r;
    int64_t deadline = timeout_ms < 0 ? -1 : tpi_now_ms() + timeout_ms;
    size_t scan = f->in_off; /* frames before scan were looked at and are left queued */
    for (;;) {
        for (;;) {
            size_t flen = 0;
            char why[200];
            int s = wire_split(f->in.data + scan, f->in.len - scan, f->max_frame, &flen, why,
                               sizeof why);
            if (s < 0) {
                r = tpi_fail(f, TP_EPROTO, "federate \"%s\": bad frame from the RTI: %s", f->name,
                             why);
                tpi_close(f);
                return r;
            }
            if (s == 0) break;
            struct wire_msg m;
            int d = wire_decode(f->in.data + scan, flen, &m, why, sizeof why);
            if (d < 0) {
                r = tpi_fail(f, TP_EPROTO, "federate \"%s\": bad %s frame from the RTI: %s",
                             f->name, wire_type_name(m.type), why);
                tpi_close(f);
                return r;
            }
            if (answers(&m, type, req)) {
                r = fn(f, &m, arg);
                /* Remove the reply from the middle of the queue; frames around it keep
                 * their order. Cost: one memmove of the frames received after it. */
                memmove(f->in.data + scan, f->in.data + scan + flen, f->in.len - scan - flen);
                f->in.len -= flen;
                /* an earlier asynchronous request the RTI refused meanwhile: say so now */
                int late = r >= 0 ? tpi_take_late(f) : 0;
                return late ? late : r;
            }
            /* A refusal waiting in the queue (its callback runs at the next tp_evoke) must
             * reach this call's caller: the frames before a reply are not dispatched here. */
            if (m.type == WIRE_ERROR) tpi_note_late(f, &m, f->in_base + scan);
            scan += flen;
        }
        int t = remaining(deadline);
        if (t == 0 && deadline >= 0)
            return tpi_fail(f, TP_ESYS, "federate \"%s\": no reply from the RTI within %d ms",
                            f->name, timeout_ms);
        /* tpi_read may compact f->in (drop dispatched bytes): keep scan relative. */
        size_t rel = scan - f->in_off;
        r = tpi_read(f, t);
        if (r < 0) return r;
        scan = f->in_off + rel;
    }
}

int tp_flush(tp_federate *f)
{
    int r = tpi_check_joined(f);
    return r < 0 ? r : tpi_flush(f);
}

int tp_fileno(const tp_federate *f)
{
    return f ? f->fd : -1;
}
