/* A slave in a child process (msproto_child.h): every port operation is a command of
 * doc/master.md written to the child over a socket pair and answered before the post returns,
 * so the slave behaves as any in-process slave does (algorithms/port.h "Post and collect": an
 * operation runs at once, collect returns the first failure since the last one). A socket pair
 * rather than two pipes: writes use MSG_NOSIGNAL, so a child that died makes a failed call
 * naming it, never a SIGPIPE that would end the whole one-process run. Read
 * python/tempo/slave.py (serve_pipe) for the other end.
 */
#include "federate/msproto/msproto_child.h"

#include <errno.h>
#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <unistd.h>

#include "federate/msproto/msproto.h"

extern char **environ;

#define END_WAIT_MS 10000 /* how long a child may take to exit after end before it is killed */

struct msproto_child {
    char name[128];
    pid_t pid;    /* 0 once reaped */
    int fd;       /* our end of the socket pair; -1 once closed */
    int lost;     /* the transport broke: every later call fails with PORT_ELOST */
    uint32_t seq; /* of the last command sent */
    int64_t t;    /* ticks: the slave's time as its last reply said */
    int status;   /* the first failure since the last collect (PORT_EVENT below errors) */
    port_slave_info info;
    double tick; /* msproto_child_opts */
    int (*on_record)(void *ctx, int64_t t, double seconds);
    void *on_record_ctx;
    long *out_state;     /* n_out entries (info.out_state) */
    unsigned char *cbuf; /* one command out (exchange sends its length first) */
    size_t ccap;
    unsigned char *rbuf; /* one reply in */
    size_t rcap;
    double *v;   /* MSPROTO_MAX_VALUES: the doubles of a command or a reply */
    int64_t *tv; /* MSPROTO_MAX_VALUES: the times */
    msproto_reply r;
    char msg[MSPROTO_MAX_MSG + 1];
    char err[MSPROTO_ERRLEN + 160]; /* the last failure, without the federate's name */
};

static int fail(msproto_child *c, int code, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
static int fail(msproto_child *c, int code, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(c->err, sizeof c->err, fmt, ap);
    va_end(ap);
    if (code < 0 && c->status >= 0) c->status = code;
    return code;
}

/* What became of the child, for the message of a broken transport. */
static void reap(msproto_child *c, char *out, size_t cap)
{
    int ws = 0;
    out[0] = '\0';
    if (c->pid <= 0) return;
    pid_t w = waitpid(c->pid, &ws, WNOHANG);
    for (int k = 0; w == 0 && k < 100; k++) { /* it is closing: give it a moment (1 s) */
        poll(NULL, 0, 10);
        w = waitpid(c->pid, &ws, WNOHANG);
    }
    if (w != c->pid) return;
    c->pid = 0;
    if (WIFEXITED(ws))
        snprintf(out, cap, " (it exited with status %d)", WEXITSTATUS(ws));
    else if (WIFSIGNALED(ws))
        snprintf(out, cap, " (it was killed by signal %d)", WTERMSIG(ws));
}

static int lost(msproto_child *c, const char *what)
{
    char how[64];
    c->lost = 1;
    reap(c, how, sizeof how);
    return fail(c, PORT_ELOST, "its process (tempo-slave) %s%s", what, how);
}

static int send_all(msproto_child *c, const unsigned char *p, size_t n)
{
    while (n > 0) {
        ssize_t k = send(c->fd, p, n, MSG_NOSIGNAL);
        if (k < 0 && errno == EINTR) continue;
        if (k <= 0) return lost(c, "closed its end before a command");
        p += k, n -= (size_t)k;
    }
    return PORT_OK;
}

static int recv_all(msproto_child *c, unsigned char *p, size_t n)
{
    while (n > 0) {
        ssize_t k = recv(c->fd, p, n, 0);
        if (k < 0 && errno == EINTR) continue;
        if (k <= 0) return lost(c, "ended before its reply");
        p += k, n -= (size_t)k;
    }
    return PORT_OK;
}

/* One frame out (its length, then len bytes) and its answer in (c->rbuf, *n bytes): the
 * transport of the commands and of the state frames. */
static int exchange(msproto_child *c, const unsigned char *out, size_t len, const char *what,
                    size_t *n)
{
    unsigned char h[4];
    for (int b = 0; b < 4; b++)
        h[b] = (unsigned char)((uint32_t)len >> (8 * b));
    int rc = send_all(c, h, 4);
    if (rc == PORT_OK) rc = send_all(c, out, len);
    if (rc == PORT_OK) rc = recv_all(c, h, 4);
    if (rc != PORT_OK) return rc;
    *n = (size_t)h[0] | (size_t)h[1] << 8 | (size_t)h[2] << 16 | (size_t)h[3] << 24;
    if (*n > MSPROTO_CHILD_MAX_FRAME) {
        c->lost = 1; /* the stream cannot be trusted past this */
        return fail(c, PORT_ELOST, "%s: a reply of %zu bytes (at most %u)", what, *n,
                    MSPROTO_CHILD_MAX_FRAME);
    }
    if (*n > c->rcap) {
        unsigned char *nb = realloc(c->rbuf, *n);
        if (!nb) return fail(c, PORT_ENOMEM, "out of memory");
        c->rbuf = nb, c->rcap = *n;
    }
    return recv_all(c, c->rbuf, *n);
}

/* One command and its reply (c->r, its arrays in c->v / c->tv). Returns the reply's status,
 * or the transport's or the codec's failure (the slave's message in c->err either way). */
static int call(msproto_child *c, msproto_kind kind, int64_t t, int32_t arg, size_t n_v,
                const double *v, size_t n_tv, const int64_t *tv)
{
    if (c->lost) return fail(c, PORT_ELOST, "its process (tempo-slave) is gone");
    msproto_cmd cmd = {.kind = kind,
                       .seq = ++c->seq,
                       .t = t,
                       .arg = arg,
                       .n_v = n_v,
                       .v = v,
                       .n_tv = n_tv,
                       .tv = tv};
    size_t need = msproto_cmd_size(n_v, n_tv), len = 0;
    if (need > c->ccap) {
        unsigned char *nb = realloc(c->cbuf, need);
        if (!nb) return fail(c, PORT_ENOMEM, "out of memory");
        c->cbuf = nb, c->ccap = need;
    }
    char e[MSPROTO_ERRLEN];
    if (msproto_cmd_encode(&cmd, c->cbuf, c->ccap, &len, e, sizeof e) != MSPROTO_OK)
        return fail(c, PORT_EUSAGE, "%s: %s", msproto_kind_name(kind), e);
    size_t n = 0;
    int rc = exchange(c, c->cbuf, len, msproto_kind_name(kind), &n);
    if (rc != PORT_OK) return rc;
    if (msproto_reply_decode(c->rbuf, n, &c->r, c->v, MSPROTO_MAX_VALUES, c->tv, MSPROTO_MAX_VALUES,
                             c->msg, sizeof c->msg, e, sizeof e) != MSPROTO_OK) {
        c->lost = 1;
        return fail(c, PORT_ELOST, "%s: a malformed reply: %s", msproto_kind_name(kind), e);
    }
    if (c->r.kind != kind || c->r.seq != cmd.seq) {
        c->lost = 1;
        return fail(c, PORT_ELOST, "%s (seq %u): a reply to %s (seq %u)", msproto_kind_name(kind),
                    cmd.seq, msproto_kind_name((int)c->r.kind), c->r.seq);
    }
    c->t = c->r.t;
    if (c->r.status < 0)
        return fail(c, c->r.status, "%s: %s", msproto_kind_name(kind),
                    c->r.msg[0] ? c->r.msg : port_strerror(c->r.status));
    if (c->r.status == PORT_EVENT && c->status == PORT_OK) c->status = PORT_EVENT;
    return c->r.status;
}

/* A state frame (msproto_child.h "Checkpoints"): its tag, then body; the answer's payload
 * (after the tag and the status byte) is left at c->rbuf + 5, *n_out bytes. */
static int state_frame(msproto_child *c, const char *tag, const void *body, size_t nb,
                       size_t *n_out, int refused)
{
    if (c->lost) return fail(c, PORT_ELOST, "its process (tempo-slave) is gone");
    if (nb > MSPROTO_CHILD_MAX_FRAME - 4) return fail(c, PORT_EUSAGE, "a state of %zu bytes", nb);
    unsigned char *f = malloc(4 + nb);
    if (!f) return fail(c, PORT_ENOMEM, "out of memory");
    memcpy(f, tag, 4);
    if (nb) memcpy(f + 4, body, nb);
    size_t n = 0;
    int rc = exchange(c, f, 4 + nb, tag, &n);
    free(f);
    if (rc != PORT_OK) return rc;
    if (n < 5 || memcmp(c->rbuf, tag, 4) != 0 || c->rbuf[4] > 1) {
        c->lost = 1;
        return fail(c, PORT_ELOST, "%s: a malformed answer of %zu bytes", tag, n);
    }
    if (c->rbuf[4] == 1)
        return fail(c, refused, "%s its state: %.*s",
                    refused == PORT_EFAIL ? "saving" : "restoring",
                    (int)(n - 5 > 600 ? 600 : n - 5), (const char *)c->rbuf + 5);
    *n_out = n - 5;
    return PORT_OK;
}

int msproto_child_state_save(msproto_child *c, unsigned char **bytes, size_t *n)
{
    *bytes = NULL;
    *n = 0;
    size_t len = 0;
    int rc = state_frame(c, "TPSG", NULL, 0, &len, PORT_EFAIL);
    c->status = PORT_OK; /* reported here, not by the next collect */
    if (rc != PORT_OK) return rc;
    if (!(*bytes = malloc(len ? len : 1))) return fail(c, PORT_ENOMEM, "out of memory");
    if (len) memcpy(*bytes, c->rbuf + 5, len);
    *n = len;
    return PORT_OK;
}

int msproto_child_state_restore(msproto_child *c, const void *bytes, size_t n)
{
    size_t len = 0;
    int rc = state_frame(c, "TPSS", bytes, n, &len, PORT_EUSAGE);
    c->status = PORT_OK;
    return rc;
}

/* The reply's doubles into out: exactly n of them, else a failure naming the operation. */
static int take(msproto_child *c, int rc, double *out, size_t n)
{
    if (rc < 0) return rc;
    if (c->r.n_v != n)
        return fail(c, PORT_EFAIL, "%s: %zu values in its reply, %zu expected",
                    msproto_kind_name((int)c->r.kind), c->r.n_v, n);
    if (n) memcpy(out, c->r.v, n * sizeof *out);
    return rc;
}

static int op_set_inputs(void *ctx, const port_poly *u)
{
    msproto_child *c = ctx;
    return call(c, MSP_SET_INPUTS, u->t0, u->order, u->n * (size_t)(u->order + 1), u->c, 0, NULL);
}

static int op_step(void *ctx, int64_t t_to, int n_sub, double *y_sub, port_step_result *res)
{
    msproto_child *c = ctx;
    int rc = call(c, MSP_STEP, t_to, n_sub, 0, NULL, 0, NULL);
    if (rc < 0) return rc;
    size_t rows = n_sub > 1 ? (size_t)n_sub : 1;
    if (c->r.n_sub_done < 0 || (size_t)c->r.n_sub_done > rows ||
        c->r.n_v != (n_sub > 1 ? (size_t)c->r.n_sub_done : 1) * c->info.n_out)
        return fail(c, PORT_EFAIL, "step: %zu values for %d sub-steps of %zu outputs", c->r.n_v,
                    c->r.n_sub_done, c->info.n_out);
    if (y_sub && c->r.n_v) memcpy(y_sub, c->r.v, c->r.n_v * sizeof *y_sub);
    if (res) *res = (port_step_result){c->r.t, c->r.event, c->r.n_sub_done};
    return rc;
}

static int op_get_outputs(void *ctx, double *y)
{
    msproto_child *c = ctx;
    return take(c, call(c, MSP_GET_OUTPUTS, 0, 0, 0, NULL, 0, NULL), y, c->info.n_out);
}

static int op_get_output_derivs(void *ctx, int order, double *dy)
{
    msproto_child *c = ctx;
    return take(c, call(c, MSP_GET_OUTPUT_DERIVS, 0, order, 0, NULL, 0, NULL), dy, c->info.n_out);
}

static int op_get_states(void *ctx, double *x)
{
    msproto_child *c = ctx;
    return take(c, call(c, MSP_GET_STATES, 0, 0, 0, NULL, 0, NULL), x, c->info.n_state);
}

static int op_set_states(void *ctx, int64_t t, const double *x)
{
    msproto_child *c = ctx;
    return call(c, MSP_SET_STATES, t, 0, c->info.n_state, x, 0, NULL);
}

static int op_get_derivatives(void *ctx, double *dx)
{
    msproto_child *c = ctx;
    return take(c, call(c, MSP_GET_DERIVATIVES, 0, 0, 0, NULL, 0, NULL), dx, c->info.n_state);
}

static int op_get_directional(void *ctx, const double *du, double *dy)
{
    msproto_child *c = ctx;
    return take(c, call(c, MSP_GET_DIRECTIONAL, 0, 0, c->info.n_in, du, 0, NULL), dy,
                c->info.n_out);
}

static int op_save(void *ctx, int slot)
{
    return call(ctx, MSP_SAVE, 0, slot, 0, NULL, 0, NULL);
}

static int op_restore(void *ctx, int slot)
{
    return call(ctx, MSP_RESTORE, 0, slot, 0, NULL, 0, NULL);
}

static int op_record(void *ctx)
{
    msproto_child *c = ctx;
    int rc = call(c, MSP_RECORD, 0, 0, 0, NULL, 0, NULL);
    if (rc >= 0 && c->on_record &&
        c->on_record(c->on_record_ctx, c->t, port_seconds(c->tick, c->t)) != 0)
        return fail(c, PORT_EFAIL, "record: its row was not taken");
    return rc;
}

static int op_collect(void *ctx)
{
    msproto_child *c = ctx;
    int st = c->status;
    c->status = PORT_OK;
    return st;
}

/* No discrete operations: a model in Python has no discrete outputs (info.n_discrete 0), so
 * the hybrid method's bus never reaches it; the slots stay empty (PORT_EUNSUPPORTED). */
static const port_slave_ops child_ops = {
    .set_inputs = op_set_inputs,
    .step = op_step,
    .get_outputs = op_get_outputs,
    .get_output_derivs = op_get_output_derivs,
    .get_states = op_get_states,
    .set_states = op_set_states,
    .get_derivatives = op_get_derivatives,
    .get_directional = op_get_directional,
    .save = op_save,
    .restore = op_restore,
    .record = op_record,
    .collect = op_collect,
    .version = PORT_OPS_VERSION,
};

/* hello: the child's numbers (msproto_info_encode), checked against the wiring. */
static int hello(msproto_child *c, const msproto_child_opts *o)
{
    int rc = call(c, MSP_HELLO, o->t_start, 0, 0, NULL, 0, NULL);
    if (rc < 0) return rc;
    char e[MSPROTO_ERRLEN];
    if (c->r.n_v < MSPROTO_INFO_N ||
        msproto_info_decode(c->r.v, &c->info, e, sizeof e) != MSPROTO_OK)
        return fail(c, PORT_EFAIL, "hello: %s",
                    c->r.n_v < MSPROTO_INFO_N ? "a reply without the slave's numbers" : e);
    if (c->info.n_in != o->n_in || c->info.n_out != o->n_out)
        return fail(c, PORT_EFAIL,
                    "hello: the model has %zu inputs and %zu outputs, the file wires %zu and %zu",
                    c->info.n_in, c->info.n_out, o->n_in, o->n_out);
    if (c->info.n_discrete)
        return fail(c, PORT_EFAIL, "hello: %zu discrete outputs (none is offered from Python)",
                    c->info.n_discrete);
    c->out_state = calloc(c->info.n_out + 1, sizeof *c->out_state);
    if (!c->out_state) return fail(c, PORT_ENOMEM, "out of memory");
    if (c->r.n_v == MSPROTO_INFO_N + c->info.n_out) {
        if (msproto_info_map_decode(c->r.v + MSPROTO_INFO_N, c->info.n_out, c->info.n_state,
                                    c->out_state, e, sizeof e) != MSPROTO_OK)
            return fail(c, PORT_EFAIL, "hello: %s", e);
        c->info.out_state = c->out_state;
    }
    c->info.name = c->name;
    c->t = o->t_start;
    return PORT_OK;
}

int msproto_child_new(const msproto_child_opts *o, msproto_child **out, port_slave *ps, char *err,
                      size_t errlen)
{
    *out = NULL;
    if (!o || !o->name || !o->argv || !o->argv[0] || !ps) {
        snprintf(err, errlen, "msproto_child_new: bad arguments");
        return PORT_EUSAGE;
    }
    msproto_child *c = calloc(1, sizeof *c);
    if (c) c->fd = -1;
    if (!c || !(c->v = malloc(MSPROTO_MAX_VALUES * sizeof *c->v)) ||
        !(c->tv = malloc(MSPROTO_MAX_VALUES * sizeof *c->tv))) {
        msproto_child_free(c, NULL, 0);
        snprintf(err, errlen, "federate %s: out of memory", o->name);
        return PORT_ENOMEM;
    }
    snprintf(c->name, sizeof c->name, "%s", o->name);
    c->tick = o->tick;
    c->on_record = o->on_record;
    c->on_record_ctx = o->on_record_ctx;
    int sv[2];
    int rc = PORT_OK;
    if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv) != 0) {
        rc = fail(c, PORT_EFAIL, "socketpair: %s", strerror(errno));
    } else {
        /* The child's stdin and stdout are its end (dup2 clears close-on-exec there); ours
         * stays close-on-exec, so a later child cannot hold it open after this one dies. */
        posix_spawn_file_actions_t fa;
        posix_spawn_file_actions_init(&fa);
        posix_spawn_file_actions_adddup2(&fa, sv[1], 0);
        posix_spawn_file_actions_adddup2(&fa, sv[1], 1);
        int se = posix_spawnp(&c->pid, o->argv[0], &fa, NULL, o->argv, environ);
        posix_spawn_file_actions_destroy(&fa);
        close(sv[1]);
        c->fd = sv[0];
        if (se != 0) {
            c->pid = 0;
            c->lost = 1;
            rc = fail(c, PORT_EFAIL, "cannot start %s: %s", o->argv[0], strerror(se));
        }
    }
    if (rc == PORT_OK) rc = hello(c, o);
    if (rc != PORT_OK) {
        snprintf(err, errlen, "federate %s: %s", o->name, c->err);
        c->lost = 1; /* no end: the child sees its input close and leaves without results */
        msproto_child_free(c, NULL, 0);
        return rc == PORT_ENOMEM ? PORT_ENOMEM : PORT_EFAIL;
    }
    c->status = PORT_OK;
    c->err[0] = '\0';
    *ps = (port_slave){.ops = &child_ops, .ctx = c, .info = c->info};
    *out = c;
    return PORT_OK;
}

int64_t msproto_child_time(const msproto_child *c)
{
    return c ? c->t : 0;
}

const char *msproto_child_errmsg(const msproto_child *c)
{
    return c ? c->err : "";
}

int msproto_child_free(msproto_child *c, char *err, size_t errlen)
{
    if (!c) return PORT_OK;
    int rc = PORT_OK;
    if (c->pid > 0 && !c->lost) { /* end: the child writes its results, answers and exits */
        c->status = PORT_OK;
        rc = call(c, MSP_END, c->t, 0, 0, NULL, 0, NULL);
        if (rc < 0 && err && errlen) snprintf(err, errlen, "federate %s: %s", c->name, c->err);
    }
    if (c->fd >= 0) close(c->fd); /* a child still reading sees the end of its input */
    if (c->pid > 0) {
        int ws = 0;
        pid_t w = 0;
        for (int k = 0; k < END_WAIT_MS / 10 && (w = waitpid(c->pid, &ws, WNOHANG)) == 0; k++)
            poll(NULL, 0, 10);
        if (w == 0) {
            kill(c->pid, SIGKILL);
            waitpid(c->pid, &ws, 0);
            if (rc >= 0 && err && errlen)
                snprintf(err, errlen,
                         "federate %s: its process (tempo-slave) did not exit after "
                         "end: killed",
                         c->name);
            if (rc >= 0) rc = PORT_EFAIL;
        } else if (w == c->pid && rc >= 0 && (!WIFEXITED(ws) || WEXITSTATUS(ws) != 0)) {
            if (err && errlen)
                snprintf(err, errlen, "federate %s: its process (tempo-slave) ended with %s %d",
                         c->name, WIFEXITED(ws) ? "status" : "signal",
                         WIFEXITED(ws) ? WEXITSTATUS(ws) : WTERMSIG(ws));
            rc = PORT_EFAIL;
        }
    }
    free(c->out_state);
    free(c->cbuf);
    free(c->rbuf);
    free(c->v);
    free(c->tv);
    free(c);
    return rc < 0 ? PORT_EFAIL : PORT_OK;
}
