/* tempo-log replay: a stand-in RTI that plays the recorded part of the RTI and of every other
 * federate to one real federate process and reports the first place where the federate's
 * requests depart from the record (doc/log.md). It listens on a free loopback port,
 * runs COMMAND with "{rti}" / "{port}" in its arguments replaced (and TEMPO_RTI set), answers
 * the HELLO handshake itself, then walks the federate's recorded frames in order: a recorded
 * callback (SENT) is sent as recorded; a recorded request (RECV) must arrive, equal to the
 * record except for the client-chosen request id (which is mapped, so recorded REPLYs echo the
 * live id). Everything the other federates did reaches this federate only through the RTI, so
 * its recorded callbacks are exactly "the recorded behaviour of all the others".
 * Usage and limits: doc/log.md. Read rti/tlog/tlog_util.c first. */
#include <errno.h>
#include <inttypes.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "rti/proto/buf.h"
#include "rti/tlog/tlog_impl.h"

#define REQ_MAP 1024 /* recorded -> live request ids remembered */

struct replay {
    struct tlog *t;
    FILE *out;
    uint32_t fed;    /* the replayed federate's recorded handle */
    int timeout_ms;  /* how long to wait for the next request */
    int lsock, sock; /* listener, connection (-1 none) */
    pid_t child;     /* COMMAND, -1 none */
    struct buf in;   /* bytes received, not yet split */
    struct buf tmp;  /* scratch encodes */
    struct buf tmp2;
    uint32_t rec_req[REQ_MAP], live_req[REQ_MAP]; /* id map, by rec_req % REQ_MAP */
    uint64_t matched, sent;                       /* requests matched, callbacks sent */
    uint64_t side;                                /* CREATE/DESTROY_FEDERATION requests answered */
    int status, exited; /* the command's wait status once serve_after has reaped it */
};

static int64_t mono_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

/* ---- process and socket ------------------------------------------------------------------ */

static int listen_any(struct replay *rp, int port, char *err, size_t errlen)
{
    rp->lsock = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    if (rp->lsock < 0) return snprintf(err, errlen, "socket: %s", strerror(errno)), -1;
    int one = 1;
    setsockopt(rp->lsock, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
    struct sockaddr_in a = {.sin_family = AF_INET,
                            .sin_port = htons((uint16_t)port),
                            .sin_addr.s_addr = htonl(INADDR_LOOPBACK)};
    socklen_t al = sizeof a;
    if (bind(rp->lsock, (struct sockaddr *)&a, sizeof a) != 0 || listen(rp->lsock, 4) != 0 ||
        getsockname(rp->lsock, (struct sockaddr *)&a, &al) != 0)
        return snprintf(err, errlen, "bind/listen 127.0.0.1:%d: %s", port, strerror(errno)), -1;
    return ntohs(a.sin_port);
}

/* Start COMMAND with placeholders replaced. 0, or -1 with err filled. */
static int spawn(struct replay *rp, char **cmd, int ncmd, int port, char *err, size_t errlen)
{
    char rti[32], ports[16];
    snprintf(rti, sizeof rti, "127.0.0.1:%d", port);
    snprintf(ports, sizeof ports, "%d", port);
    char **argv = calloc((size_t)ncmd + 1, sizeof *argv);
    char **owned = calloc((size_t)ncmd + 1, sizeof *owned);
    if (!argv || !owned) {
        free(argv), free(owned);
        return snprintf(err, errlen, "out of memory"), -1;
    }
    for (int i = 0; i < ncmd; i++) {
        const char *ph = strstr(cmd[i], "{rti}")    ? "{rti}"
                         : strstr(cmd[i], "{port}") ? "{port}"
                                                    : NULL;
        if (!ph) {
            argv[i] = cmd[i];
            continue;
        }
        const char *val = ph[1] == 'r' ? rti : ports;
        const char *at = strstr(cmd[i], ph);
        size_t n = strlen(cmd[i]) - strlen(ph) + strlen(val) + 1;
        owned[i] = malloc(n);
        if (owned[i])
            snprintf(owned[i], n, "%.*s%s%s", (int)(at - cmd[i]), cmd[i], val, at + strlen(ph));
        argv[i] = owned[i] ? owned[i] : cmd[i];
    }
    fflush(NULL);
    rp->child = fork();
    if (rp->child == 0) {
        setenv("TEMPO_RTI", rti, 1);
        execvp(argv[0], argv);
        fprintf(stderr, "tempo-log replay: cannot run %s: %s\n", argv[0], strerror(errno));
        _exit(127);
    }
    int e = errno;
    for (int i = 0; i < ncmd; i++)
        free(owned[i]);
    free(owned);
    free(argv);
    if (rp->child < 0) return snprintf(err, errlen, "fork: %s", strerror(e)), -1;
    return 0;
}

/* Wait up to ms for the child to exit; kill it after that. Returns its exit status text. */
static void reap(struct replay *rp, int ms, char *buf, size_t cap)
{
    snprintf(buf, cap, "not started");
    if (rp->child <= 0) return;
    int st = rp->status;
    int64_t end = mono_ms() + ms;
    pid_t w = rp->exited ? rp->child : 0;
    while (!rp->exited && (w = waitpid(rp->child, &st, WNOHANG)) == 0 && mono_ms() < end)
        usleep(10000);
    if (w == 0) {
        kill(rp->child, SIGKILL);
        waitpid(rp->child, &st, 0);
        snprintf(buf, cap, "killed after %d ms", ms);
    } else if (WIFEXITED(st)) {
        snprintf(buf, cap, "exited with status %d", WEXITSTATUS(st));
    } else {
        snprintf(buf, cap, "ended by signal %d", WIFSIGNALED(st) ? WTERMSIG(st) : 0);
    }
    rp->child = -1;
}

/* Read the next whole frame into the start of rp->in (length *len). 1 a frame; 0 the
 * connection closed; -1 timeout or error (err says which). */
static int read_frame(struct replay *rp, size_t *len, char *err, size_t errlen)
{
    int64_t end = mono_ms() + rp->timeout_ms;
    for (;;) {
        size_t flen = 0;
        int s = wire_split(rp->in.data, rp->in.len, 0, &flen, err, errlen);
        if (s == 1) {
            *len = flen;
            return 1;
        }
        if (s < 0) return -1;
        int left = (int)(end - mono_ms());
        if (left <= 0) return snprintf(err, errlen, "nothing within %d ms", rp->timeout_ms), -1;
        struct pollfd p = {rp->sock, POLLIN, 0};
        if (poll(&p, 1, left) < 0 && errno != EINTR)
            return snprintf(err, errlen, "poll: %s", strerror(errno)), -1;
        if (!(p.revents & (POLLIN | POLLHUP | POLLERR))) continue;
        if (buf_reserve(&rp->in, 65536) != 0) return snprintf(err, errlen, "out of memory"), -1;
        ssize_t n = read(rp->sock, rp->in.data + rp->in.len, 65536);
        if (n == 0) return 0;
        if (n < 0) {
            if (errno == EINTR || errno == EAGAIN) continue;
            if (errno == ECONNRESET) return 0;
            return snprintf(err, errlen, "read: %s", strerror(errno)), -1;
        }
        rp->in.len += (size_t)n;
    }
}

static int send_all(struct replay *rp, const uint8_t *p, size_t n)
{
    while (n > 0) {
        ssize_t w = send(rp->sock, p, n, MSG_NOSIGNAL);
        if (w < 0) {
            if (errno == EINTR) continue;
            return -1;
        }
        p += w;
        n -= (size_t)w;
    }
    return 0;
}

/* ---- comparing and sending ------------------------------------------------------------------ */

/* Encode m with req forced to `req` into b. 0 or -1. */
static int encode_req(struct buf *b, const struct wire_msg *m, uint32_t req)
{
    struct wire_msg c = *m;
    c.req = req;
    buf_clear(b);
    return wire_encode(b, &c, 0, NULL, 0) == WIRE_OK ? 0 : -1;
}

/* Does the live frame equal the recorded one, request id aside? */
static int same(struct replay *rp, const struct wire_msg *rec, const struct wire_msg *live)
{
    if (rec->type != live->type) return 0;
    if (encode_req(&rp->tmp, rec, 0) || encode_req(&rp->tmp2, live, 0)) return 0;
    return rp->tmp.len == rp->tmp2.len && memcmp(rp->tmp.data, rp->tmp2.data, rp->tmp.len) == 0;
}

/* Send a recorded callback, its echoed request id mapped to the live one. */
static int send_callback(struct replay *rp, const struct tlog_rec *x)
{
    const uint8_t *p = x->r.payload;
    size_t n = x->r.payload_len;
    uint32_t req = x->msg.req;
    if (req && rp->rec_req[req % REQ_MAP] == req && rp->live_req[req % REQ_MAP] != req) {
        if (encode_req(&rp->tmp, &x->msg, rp->live_req[req % REQ_MAP]) != 0) return -1;
        p = rp->tmp.data;
        n = rp->tmp.len;
    }
    rp->sent++;
    return send_all(rp, p, n);
}

/* Name the first field in which two frames of the same type differ, for the case where their
 * one-line descriptions are equal (a long string such as the FOM text of a JOIN, or bytes the
 * description does not show). Writes "" when no field differs. */
static void first_difference(const struct wire_msg *x, const struct wire_msg *y, char *buf,
                             size_t cap)
{
    static const char *const nums[] = {"flags", "code", "a", "b", "c", "time", "time2"};
    const uint64_t xv[] = {x->flags,          x->code,           x->a, x->b, x->c,
                           (uint64_t)x->time, (uint64_t)x->time2};
    const uint64_t yv[] = {y->flags,          y->code,           y->a, y->b, y->c,
                           (uint64_t)y->time, (uint64_t)y->time2};
    buf[0] = '\0';
    if (x->type != y->type) return; /* the descriptions already differ */
    for (size_t i = 0; i < sizeof nums / sizeof nums[0]; i++) {
        if (xv[i] != yv[i]) {
            snprintf(buf, cap, "field %s: expected %" PRIu64 ", got %" PRIu64, nums[i], xv[i],
                     yv[i]);
            return;
        }
    }
    for (int i = 0; i < WIRE_MAX_STRS; i++) {
        /* A secret is neither compared nor shown: the log holds a note in its place
         * (doc/log.md "Secrets"). */
        if (i == flog_secret_slot(x->type)) continue;
        const struct wire_str *sx = &x->str[i], *sy = &y->str[i];
        uint32_t n = sx->len < sy->len ? sx->len : sy->len, k = 0;
        while (k < n && sx->ptr[k] == sy->ptr[k])
            k++;
        if (k == n && sx->len == sy->len) continue;
        /* Show up to 40 bytes from the first differing one, control bytes as '.'. */
        char ex[41], gx[41];
        uint32_t j;
        for (j = 0; j < 40 && k + j < sx->len; j++)
            ex[j] = (unsigned char)sx->ptr[k + j] < 32 ? '.' : sx->ptr[k + j];
        ex[j] = '\0';
        for (j = 0; j < 40 && k + j < sy->len; j++)
            gx[j] = (unsigned char)sy->ptr[k + j] < 32 ? '.' : sy->ptr[k + j];
        gx[j] = '\0';
        snprintf(buf, cap,
                 "field str%d (%" PRIu32 " bytes expected, %" PRIu32 " got) from byte %" PRIu32
                 ": expected \"%s\", got \"%s\"",
                 i, sx->len, sy->len, k, ex, gx);
        return;
    }
    if (x->nvalues != y->nvalues || x->values_raw_len != y->values_raw_len ||
        (x->values_raw_len && memcmp(x->values_raw, y->values_raw, x->values_raw_len) != 0)) {
        snprintf(buf, cap, "the values differ (%" PRIu32 " expected, %" PRIu32 " got)", x->nvalues,
                 y->nvalues);
        return;
    }
    if (x->nhandles != y->nhandles ||
        (x->nhandles && memcmp(x->handles_raw, y->handles_raw, (size_t)x->nhandles * 4) != 0))
        snprintf(buf, cap, "the handles differ (%" PRIu32 " expected, %" PRIu32 " got)",
                 x->nhandles, y->nhandles);
}

/* Report the divergence at the recorded request `exp`; `got` describes what came, `live` is
 * the decoded live frame (NULL when none came or it did not decode). */
static void diverged(struct replay *rp, const struct tlog_rec *exp, const char *got,
                     const struct wire_msg *live)
{
    char e[1024], d[256] = "";
    tlog_describe_msg(rp->t, exp, e, sizeof e);
    if (live && exp->has_msg && strcmp(e, got) == 0) first_difference(&exp->msg, live, d, sizeof d);
    fprintf(rp->out,
            "DIVERGED at record #%" PRIu64 " (request %" PRIu64 " of the federate):\n"
            "  expected: %s\n  got:      %s\n%s%s%s",
            exp->r.seq, rp->matched + 1, e, got, d[0] ? "  the frames differ in " : "", d,
            d[0] ? "\n" : "");
}

/* ---- the walk ------------------------------------------------------------------------------ */

/* Handshake: HELLO from the federate, HELLO_OK from us. 0 or -1 (reported). */
static int handshake(struct replay *rp, int report)
{
    char err[256];
    size_t len = 0;
    int rc = read_frame(rp, &len, err, sizeof err);
    struct wire_msg m;
    if (rc != 1 || wire_decode(rp->in.data, len, &m, err, sizeof err) != WIRE_OK ||
        m.type != WIRE_HELLO) {
        if (report)
            fprintf(rp->out, "DIVERGED before the first record: expected HELLO, got %s\n",
                    rc == 0  ? "end of connection"
                    : rc < 0 ? err
                             : wire_type_name(m.type));
        return -1;
    }
    buf_consume(&rp->in, len);
    wire_msg_init(&m, WIRE_HELLO_OK);
    m.code = WIRE_VERSION;
    wire_str_set(&m.str[0], "tempo-log replay");
    buf_clear(&rp->tmp);
    if (wire_encode(&rp->tmp, &m, 0, NULL, 0) != WIRE_OK ||
        send_all(rp, rp->tmp.data, rp->tmp.len) != 0) {
        fprintf(rp->out, "replay: could not answer HELLO: %s\n", strerror(errno));
        return -1;
    }
    return 0;
}

/* Answer CREATE_FEDERATION / DESTROY_FEDERATION with success. tp_create_federation and
 * tp_destroy_federation send them on connections of their own, outside any federation, so
 * they are never in a federation log. Returns 1 when the connection closed after only such
 * requests (a side connection), 0 when a frame of another type waits in rp->in (the
 * federate's session), -1 on timeout or error (err filled). */
static int side_requests(struct replay *rp, char *err, size_t errlen)
{
    for (;;) {
        size_t len = 0;
        int rc = read_frame(rp, &len, err, errlen);
        if (rc <= 0) return rc == 0 ? 1 : -1;
        struct wire_msg m;
        if (wire_decode(rp->in.data, len, &m, NULL, 0) != WIRE_OK ||
            (m.type != WIRE_CREATE_FEDERATION && m.type != WIRE_DESTROY_FEDERATION))
            return 0;
        uint32_t req = m.req;
        buf_consume(&rp->in, len);
        if (!req) continue;
        wire_msg_init(&m, WIRE_REPLY);
        m.req = req;
        buf_clear(&rp->tmp);
        if (wire_encode(&rp->tmp, &m, 0, NULL, 0) != WIRE_OK ||
            send_all(rp, rp->tmp.data, rp->tmp.len) != 0)
            return 1; /* the federate went away: nothing more on this connection */
        rp->side++;
    }
}

/* Accept one connection within ms and do the HELLO handshake. 0, or -1 (nothing came, or the
 * handshake failed: reported when `report`). */
static int accept_one(struct replay *rp, int ms, int report)
{
    struct pollfd p = {rp->lsock, POLLIN, 0};
    if (poll(&p, 1, ms) <= 0 || (rp->sock = accept(rp->lsock, NULL, NULL)) < 0) {
        if (report)
            fprintf(rp->out,
                    "DIVERGED before the first record: the command did not connect "
                    "within %d ms\n",
                    ms);
        return -1;
    }
    /* Frames are small and consecutive callbacks are separate send() calls: without
     * TCP_NODELAY, Nagle holds a small write until the federate's delayed ACK (about 40 ms),
     * which made a replay 100 times slower than the recorded run or more (measured: 9 s
     * instead of 0.09 s for examples/lv_gs.json). The RTI and libtempo set it too
     * (rti/server/conn.c, federate/libtempo/client_conn.c). */
    int one = 1;
    setsockopt(rp->sock, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
    buf_clear(&rp->in);
    if (handshake(rp, report) != 0) {
        close(rp->sock);
        rp->sock = -1;
        return -1;
    }
    return 0;
}

/* Find the federate's session: connections that only create or destroy federations are
 * answered and closed on the way. 0, or 3 (reported). */
static int find_session(struct replay *rp)
{
    char err[256];
    for (int n = 0; n < 16; n++) {
        if (accept_one(rp, rp->timeout_ms, 1) != 0) return 3;
        int rc = side_requests(rp, err, sizeof err);
        if (rc == 0) return 0;
        close(rp->sock);
        rp->sock = -1;
        if (rc < 0) {
            fprintf(rp->out, "DIVERGED before the first record: %s\n", err);
            return 3;
        }
    }
    fprintf(rp->out, "DIVERGED before the first record: 16 connections without a session\n");
    return 3;
}

/* After the session: serve side connections (a final tp_destroy_federation) for up to ms
 * while the command finishes. */
static void serve_after(struct replay *rp, int ms)
{
    char err[256];
    int64_t end = mono_ms() + ms;
    int saved = rp->timeout_ms;
    rp->timeout_ms = 1000;
    while (rp->child > 0 && mono_ms() < end) {
        if (waitpid(rp->child, &rp->status, WNOHANG) == rp->child) {
            rp->exited = 1;
            break;
        }
        if (accept_one(rp, 20, 0) != 0) continue;
        side_requests(rp, err, sizeof err);
        close(rp->sock);
        rp->sock = -1;
    }
    rp->timeout_ms = saved;
}

/* Walk the recorded frames of the federate. 0 matched to the end, 3 diverged, 1 error. */
static int walk(struct replay *rp)
{
    struct flog_reader r;
    struct tlog_rec x;
    char err[256], got[1024];
    tlog_rewind(rp->t, &r);
    while (tlog_next(rp->t, &r, &x)) {
        if (x.r.fed != rp->fed || (x.r.kind != FLOG_K_RECV && x.r.kind != FLOG_K_SENT)) continue;
        if (!x.has_msg) {
            fprintf(rp->out,
                    "replay: record #%" PRIu64 " holds an undecodable frame (%s); "
                    "cannot replay past it\n",
                    x.r.seq, x.msg_err);
            return 1;
        }
        if (x.msg.type == WIRE_HELLO || x.msg.type == WIRE_HELLO_OK) continue; /* done above */
        if (x.r.kind == FLOG_K_SENT) {
            if (send_callback(rp, &x) != 0) {
                char e[1024];
                tlog_describe_msg(rp->t, &x, e, sizeof e);
                fprintf(rp->out,
                        "DIVERGED at record #%" PRIu64 ": the federate closed the "
                        "connection before the recorded callback %s\n",
                        x.r.seq, e);
                return 3;
            }
            continue;
        }
        size_t len = 0;
        int rc = read_frame(rp, &len, err, sizeof err);
        if (rc != 1) {
            diverged(rp, &x, rc == 0 ? "the federate closed the connection" : err, NULL);
            return 3;
        }
        struct tlog_rec live = {.r = {.kind = FLOG_K_RECV, .fed = rp->fed}};
        if (wire_decode(rp->in.data, len, &live.msg, live.msg_err, sizeof live.msg_err) ==
            WIRE_OK) {
            live.has_msg = 1;
            tlog_classify(rp->t, &live);
        }
        tlog_describe_msg(rp->t, &live, got, sizeof got);
        if (!live.has_msg || !same(rp, &x.msg, &live.msg)) {
            diverged(rp, &x, got, live.has_msg ? &live.msg : NULL);
            return 3;
        }
        if (x.msg.req) {
            rp->rec_req[x.msg.req % REQ_MAP] = x.msg.req;
            rp->live_req[x.msg.req % REQ_MAP] = live.msg.req;
        }
        buf_consume(&rp->in, len);
        rp->matched++;
    }
    return 0;
}

static void usage_err(void)
{
    fprintf(stderr, "usage: tempo-log replay LOG --federate NAME [--port P] [--timeout S] "
                    "-- COMMAND [ARGS...]\n  ({rti} and {port} in ARGS become the stand-in "
                    "RTI's address and port; TEMPO_RTI is set too)\n");
}

int tlog_replay(struct tlog *t, int argc, char **argv, FILE *out)
{
    const char *name = NULL;
    int port = 0, timeout_s = 10, i = 0;
    unsigned long run = 0, handle = 0;
    for (; i < argc && strcmp(argv[i], "--") != 0; i += 2) {
        if (i + 1 >= argc) return usage_err(), 2;
        if (strcmp(argv[i], "--federate") == 0)
            name = argv[i + 1];
        else if (strcmp(argv[i], "--port") == 0)
            port = atoi(argv[i + 1]);
        else if (strcmp(argv[i], "--timeout") == 0)
            timeout_s = atoi(argv[i + 1]);
        else if (strcmp(argv[i], "--run") == 0)
            run = strtoul(argv[i + 1], NULL, 10);
        else if (strcmp(argv[i], "--handle") == 0)
            handle = strtoul(argv[i + 1], NULL, 10);
        else
            return fprintf(stderr, "tempo-log: unknown option '%s'\n", argv[i]), usage_err(), 2;
    }
    if ((!name && !handle) || i >= argc - 1 || port < 0 || port > 65535 || timeout_s <= 0 ||
        handle >= TLOG_MAX_HANDLE || run > UINT32_MAX)
        return usage_err(), 2;
    struct replay rp = {
        .t = t, .out = out, .timeout_ms = timeout_s * 1000, .lsock = -1, .sock = -1, .child = -1};
    /* A log holding several runs: the federate of the run chosen (--run, the run of --handle,
     * or the last, said on stderr) */
    t->handle_sel = (uint32_t)handle;
    if (handle && (handle >= t->names_cap || !t->run_of[handle])) {
        fprintf(stderr, "tempo-log: no federate with handle %lu joined in %s\n", handle, t->path);
        return 2;
    }
    if (handle && name && strcmp(t->names[handle], name) != 0) {
        fprintf(stderr, "tempo-log: federate handle %lu is '%s', not '%s'\n", handle,
                t->names[handle], name);
        return 2;
    }
    if (tlog_select_run(t, (uint32_t)run, stderr) != 0) return 2;
    rp.fed = handle ? (uint32_t)handle : tlog_fed_find(t, name);
    if (!name) name = t->names[rp.fed];
    if (!rp.fed) {
        fprintf(stderr, "tempo-log: no federate named '%s' joined in %s%s\n", name, t->path,
                t->run_sel ? " in the run read (choose another with --run N)" : "");
        return 2;
    }
    char err[256], how[64];
    int rc = 1;
    int bound = listen_any(&rp, port, err, sizeof err);
    if (bound < 0 || spawn(&rp, argv + i + 1, argc - i - 1, bound, err, sizeof err) != 0) {
        fprintf(stderr, "tempo-log: replay: %s\n", err);
        goto done;
    }
    fprintf(out, "replay of %s from %s: stand-in RTI on 127.0.0.1:%d\n", name, t->path, bound);
    fflush(out);
    if ((rc = find_session(&rp)) != 0) goto done;
    rc = walk(&rp);
    if (rc == 0)
        fprintf(out,
                "MATCHED to the end of the log: %" PRIu64 " requests as recorded, %" PRIu64
                " callbacks sent%s\n",
                rp.matched, rp.sent, t->cut ? " (the log is cut: its end is the cut)" : "");
    if (rp.side)
        fprintf(out,
                "(answered %" PRIu64 " create/destroy-federation request(s) on connections "
                "of their own, which no federation log holds)\n",
                rp.side);
done:
    if (rp.sock >= 0) close(rp.sock);
    rp.sock = -1;
    if (rp.lsock >= 0) {
        serve_after(&rp, rc == 0 ? 5000 : 2000);
        close(rp.lsock);
    }
    reap(&rp, rc == 0 ? 5000 : 2000, how, sizeof how);
    fprintf(out, "command %s\n", how);
    buf_fini(&rp.in);
    buf_fini(&rp.tmp);
    buf_fini(&rp.tmp2);
    return rc;
}
