/* Test harness for the RTI integration tests (tests/integration/rti_*.c): raw clients that
 * speak the wire protocol over sockets (rti/proto/wire.h) to an RTI started and stopped by
 * tests/integration/rti_proc.h. Serves doc/protocol.md and doc/contributing.md §12.
 * Read rti_robust_test.c next. */
#ifndef TEMPO_TESTS_INTEGRATION_RTI_HARNESS_H
#define TEMPO_TESTS_INTEGRATION_RTI_HARNESS_H

#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "rti/proto/buf.h"
#include "rti/proto/status.h"
#include "rti/proto/wire.h"
#include "tests/integration/rti_proc.h"

#define H_TIMEOUT_MS 5000 /* longest wait for any expected frame */

/* ---- raw clients -------------------------------------------------------------------------- */

struct cli {
    int fd;           /* socket, -1 when closed */
    struct buf in;    /* received bytes not yet consumed */
    struct buf frame; /* the last frame returned by cli_next (msg points into it) */
    struct buf out;   /* encode scratch */
    uint32_t next_req;
};

static inline int cli_connect(struct cli *c, int port)
{
    memset(c, 0, sizeof *c);
    c->fd = socket(AF_INET, SOCK_STREAM, 0);
    if (c->fd < 0) return -1;
    int one = 1;
    setsockopt(c->fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
    struct sockaddr_in sa = {0};
    sa.sin_family = AF_INET;
    sa.sin_port = htons((uint16_t)port);
    sa.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    if (connect(c->fd, (struct sockaddr *)&sa, sizeof sa) != 0) {
        close(c->fd);
        c->fd = -1;
        return -1;
    }
    c->next_req = 1;
    return 0;
}

static inline void cli_close(struct cli *c)
{
    if (c->fd >= 0) close(c->fd);
    c->fd = -1;
    buf_fini(&c->in);
    buf_fini(&c->frame);
    buf_fini(&c->out);
}

static inline int cli_write(struct cli *c, const void *p, size_t n)
{
    const uint8_t *b = p;
    while (n > 0) {
        ssize_t w = send(c->fd, b, n, MSG_NOSIGNAL);
        if (w < 0) {
            if (errno == EINTR) continue;
            return -1;
        }
        b += w;
        n -= (size_t)w;
    }
    return 0;
}

static inline int cli_send(struct cli *c, const struct wire_msg *m)
{
    char err[200];
    buf_clear(&c->out);
    if (wire_encode(&c->out, m, 0, err, sizeof err) != WIRE_OK) {
        fprintf(stderr, "cli_send: cannot encode %s: %s\n", wire_type_name(m->type), err);
        return -1;
    }
    return cli_write(c, c->out.data, c->out.len);
}

/* Read one frame into c->frame and decode it into m. Returns 1, 0 on timeout, -1 when the
 * RTI closed the connection (or a bad frame arrived). */
static inline int cli_next(struct cli *c, struct wire_msg *m, int ms)
{
    int64_t deadline = rti_now_ms() + ms;
    for (;;) {
        size_t flen = 0;
        char err[200];
        int s = wire_split(c->in.data, c->in.len, 0, &flen, err, sizeof err);
        if (s < 0) return -1;
        if (s == 1) {
            buf_clear(&c->frame);
            buf_append(&c->frame, c->in.data, flen);
            buf_consume(&c->in, flen);
            if (wire_decode(c->frame.data, flen, m, err, sizeof err) != WIRE_OK) {
                fprintf(stderr, "cli_next: bad frame from the RTI: %s\n", err);
                return -1;
            }
            return 1;
        }
        if (c->fd < 0) return -1;
        int left = (int)(deadline - rti_now_ms());
        if (left <= 0) return 0;
        struct pollfd pf = {c->fd, POLLIN, 0};
        if (poll(&pf, 1, left) <= 0) return 0;
        if (buf_reserve(&c->in, 65536) != 0) return -1;
        ssize_t r = recv(c->fd, c->in.data + c->in.len, 65536, 0);
        if (r <= 0) {
            close(c->fd);
            c->fd = -1;
            continue; /* frames already buffered are still returned */
        }
        c->in.len += (size_t)r;
    }
}

/* Wait for a frame of the given type, skipping others. Returns 1, 0 timeout, -1 closed. */
static inline int cli_expect(struct cli *c, unsigned type, struct wire_msg *m, int ms)
{
    int64_t deadline = rti_now_ms() + ms;
    for (;;) {
        int left = (int)(deadline - rti_now_ms());
        int r = cli_next(c, m, left > 0 ? left : 0);
        if (r <= 0) return r;
        if (m->type == type) return 1;
    }
}

/* Does the RTI close this connection within ms (ignoring frames it sends first)? */
static inline int cli_closed_within(struct cli *c, int ms)
{
    struct wire_msg m;
    int64_t deadline = rti_now_ms() + ms;
    for (;;) {
        int left = (int)(deadline - rti_now_ms());
        if (left <= 0) return 0;
        int r = cli_next(c, &m, left);
        if (r < 0) return 1;
        if (r == 0) return 0;
    }
}

static inline int cli_hello(struct cli *c)
{
    struct wire_msg m;
    wire_msg_init(&m, WIRE_HELLO);
    m.code = WIRE_VERSION;
    m.str[0].ptr = WIRE_MAGIC;
    m.str[0].len = WIRE_MAGIC_LEN;
    wire_str_set(&m.str[1], "rti-harness");
    if (cli_send(c, &m) != 0) return -1;
    return cli_expect(c, WIRE_HELLO_OK, &m, H_TIMEOUT_MS) == 1 ? 0 : -1;
}

/* Read a whole file into a NUL-terminated heap string (caller frees). */
static inline char *h_slurp(const char *path)
{
    FILE *f = fopen(path, "rb");
    if (!f) return NULL;
    fseek(f, 0, SEEK_END);
    long n = ftell(f);
    fseek(f, 0, SEEK_SET);
    char *s = malloc((size_t)n + 1);
    if (s && fread(s, 1, (size_t)n, f) != (size_t)n) {
        free(s);
        s = NULL;
    }
    if (s) s[n] = '\0';
    fclose(f);
    return s;
}

/* JOIN; returns the federate handle (> 0), or -(status) of the refusal with its text in
 * why, or INT64_MIN when no answer came. */
static inline int64_t cli_join(struct cli *c, const char *federation, const char *name,
                               const char *fom, uint32_t flags, const char *secret, char *why,
                               size_t whylen)
{
    struct wire_msg m;
    wire_msg_init(&m, WIRE_JOIN);
    m.req = c->next_req++;
    m.code = flags;
    wire_str_set(&m.str[0], federation);
    wire_str_set(&m.str[1], name);
    wire_str_set(&m.str[2], fom);
    wire_str_set(&m.str[3], secret);
    if (why && whylen) why[0] = '\0';
    if (cli_send(c, &m) != 0) return INT64_MIN;
    uint32_t req = m.req;
    int64_t deadline = rti_now_ms() + H_TIMEOUT_MS;
    for (;;) {
        int left = (int)(deadline - rti_now_ms());
        if (cli_next(c, &m, left > 0 ? left : 0) != 1) return INT64_MIN;
        if (m.type == WIRE_JOIN_OK && m.req == req) return (int64_t)m.a;
        if ((m.type == WIRE_REPLY || m.type == WIRE_ERROR) && m.req == req) {
            if (why) wire_str_copy(&m.str[0], why, whylen);
            return -(int64_t)m.code;
        }
    }
}

/* Send a request with a req id and wait for its REPLY/ERROR. Returns the status code (0 ok),
 * with the reply's value in *value and text in why; -1 when no answer came. */
static inline long cli_call(struct cli *c, struct wire_msg *m, uint64_t *value, char *why,
                            size_t whylen)
{
    m->req = c->next_req++;
    uint32_t req = m->req;
    if (why && whylen) why[0] = '\0';
    if (cli_send(c, m) != 0) return -1;
    struct wire_msg r;
    int64_t deadline = rti_now_ms() + H_TIMEOUT_MS;
    for (;;) {
        int left = (int)(deadline - rti_now_ms());
        if (cli_next(c, &r, left > 0 ? left : 0) != 1) return -1;
        if ((r.type == WIRE_REPLY || r.type == WIRE_ERROR || r.type == WIRE_SYNC_REGISTERED) &&
            r.req == req) {
            if (value) *value = r.a;
            if (why) wire_str_copy(&r.str[r.type == WIRE_SYNC_REGISTERED ? 1 : 0], why, whylen);
            return (long)r.code;
        }
    }
}

/* A declaration request (publish / subscribe / unpublish / unsubscribe, object or interaction)
 * for class @p a with @p n attribute handles; its status as cli_call returns it. */
static inline long cli_decl(struct cli *c, unsigned type, uint64_t a, const uint32_t *h, uint32_t n)
{
    struct wire_msg m;
    wire_msg_init(&m, type);
    m.a = a;
    m.nhandles = n;
    m.handles = h;
    return cli_call(c, &m, NULL, NULL, 0);
}

#endif
