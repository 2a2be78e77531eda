/* libtempo federation services: create/destroy a federation, join (FOM read locally,
 * connect, handshake, join), resign and free. Serves doc/protocol.md (handshake,
 * federations, FOM agreement) and doc/api.md. Read federate/libtempo/client_conn.c for the
 * transport and federate/libtempo/client_evoke.c for what happens after the join. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "federate/libtempo/client_impl.h"

#define CLIENT_NAME "libtempo 1"

/* Copy a message into a caller's optional error buffer. */
static void set_err(char *err, size_t n, const char *msg)
{
    if (err && n) snprintf(err, n, "%s", msg);
}

static int liveness_default(int *ms, char *err, size_t errlen);

/* A federate with a connection and buffers but not joined (also used by create/destroy). */
static int open_conn(const tp_join_options *opt, tp_federate **out, char *err, size_t errlen)
{
    tp_federate *f = calloc(1, sizeof *f);
    if (!f) {
        set_err(err, errlen, "out of memory");
        return TP_ENOMEM;
    }
    f->fd = -1;
    f->rcvtimeo_ms = -1;
    f->max_frame = WIRE_MAX_FRAME_DEFAULT;
    f->timeout_ms = opt->timeout_ms == 0 ? TPI_DEFAULT_TIMEOUT_MS : opt->timeout_ms;
    f->log_level = opt->log_level ? opt->log_level : TP_LOG_WARN;
    snprintf(f->name, sizeof f->name, "%s", opt->federate ? opt->federate : "(no federate)");
    f->now = 0;
    f->pending_time = TP_NO_TIME;
    f->promised = TP_NO_TIME;
    f->resolution = 1e-9;
    char why[300];
    if (liveness_default(&f->liveness_ms, why, sizeof why) != TP_OK) {
        set_err(err, errlen, why);
        tp_federate_free(f);
        return TP_EINVAL;
    }
    if (tpi_open(f, opt->rti, why, sizeof why) != TP_OK) {
        set_err(err, errlen, why);
        tp_federate_free(f);
        return TP_ESYS;
    }
    /* Handshake: HELLO, then wait for HELLO_OK (no request id: req 0). */
    struct wire_msg m;
    wire_msg_init(&m, WIRE_HELLO);
    m.code = WIRE_VERSION;
    m.str[0].ptr = WIRE_MAGIC;
    m.str[0].len = WIRE_MAGIC_LEN;
    wire_str_set(&m.str[1], CLIENT_NAME);
    f->last_rx_ms = tpi_now_ms();
    int r = tpi_send(f, &m);
    *out = f;
    return r;
}

/* Is @p ms a liveness deadline tp_set_liveness accepts (0 = off)? */
static int liveness_ok(long long ms)
{
    return ms == 0 || (ms >= TPI_LIVENESS_MIN_MS && ms <= TPI_LIVENESS_MAX_MS);
}

/* The liveness deadline a new connection starts with: TEMPO_LIVENESS_MS when set, else the
 * default. TP_OK, or TP_EINVAL with err naming the variable and its value. */
static int liveness_default(int *ms, char *err, size_t errlen)
{
    *ms = TPI_DEFAULT_LIVENESS_MS;
    const char *env = getenv("TEMPO_LIVENESS_MS");
    if (!env || !*env) return TP_OK;
    char *end = NULL;
    errno = 0;
    long long v = strtoll(env, &end, 10);
    if (errno || *end || end == env || !liveness_ok(v)) {
        snprintf(err, errlen, "TEMPO_LIVENESS_MS '%s': expected 0 (off) or %d .. %d ms", env,
                 TPI_LIVENESS_MIN_MS, TPI_LIVENESS_MAX_MS);
        return TP_EINVAL;
    }
    *ms = (int)v;
    return TP_OK;
}

int tp_set_liveness(tp_federate *f, int ms)
{
    if (!f) return TP_EINVAL;
    if (!liveness_ok(ms))
        return tpi_fail(f, TP_EINVAL, "liveness deadline %d ms: expected 0 (off) or %d .. %d ms",
                        ms, TPI_LIVENESS_MIN_MS, TPI_LIVENESS_MAX_MS);
    f->liveness_ms = ms;
    f->last_rx_ms = tpi_now_ms(); /* the new deadline counts from now */
    return TP_OK;
}

static int hello_reply(tp_federate *f, const struct wire_msg *m, void *arg)
{
    (void)arg;
    if (m->type == WIRE_HELLO_OK) {
        if (m->code != WIRE_VERSION)
            return tpi_fail(f, TP_EPROTO, "RTI speaks protocol version %u, libtempo %u",
                            (unsigned)m->code, WIRE_VERSION);
        return TP_OK;
    }
    int code = tpi_rti_code(m->code);
    return tpi_fail(f, code < 0 && code != TP_EREFUSED ? code : TP_EPROTO,
                    "RTI refused the handshake: %.*s", (int)m->str[0].len,
                    m->str[0].ptr ? m->str[0].ptr : "");
}

/* Generic REPLY handler: status code and message text. */
static int status_reply(tp_federate *f, const struct wire_msg *m, void *arg)
{
    const char *what = arg;
    if (m->type != WIRE_REPLY && m->type != WIRE_ERROR)
        return tpi_fail(f, TP_EPROTO, "%s: unexpected %s from the RTI", what,
                        wire_type_name(m->type));
    int code = tpi_rti_code(m->code);
    if (m->type == WIRE_ERROR && code == TP_OK) code = TP_EREFUSED;
    if (code < 0)
        return tpi_fail(f, code, "%s: %.*s", what, (int)m->str[0].len,
                        m->str[0].ptr ? m->str[0].ptr : "refused by the RTI");
    return TP_OK;
}

/* Resolve the FOM text of the options: a file's contents or the given text. */
static int fom_text_of(const tp_join_options *opt, char **owned, const char **text, size_t *len,
                       char *err, size_t errlen)
{
    *owned = NULL;
    if (opt->fom_path) {
        int r = fom_read_file(opt->fom_path, owned, len, err, errlen);
        *text = *owned;
        return r == FOM_OK ? TP_OK : r == FOM_ENOMEM ? TP_ENOMEM : TP_EFOM;
    }
    if (opt->fom_text) {
        *text = opt->fom_text;
        *len = strlen(opt->fom_text);
        return TP_OK;
    }
    snprintf(err, errlen, "no FOM given (fom_path and fom_text are both NULL)");
    return TP_EINVAL;
}

/* Create, destroy or restore (checkpoint not NULL): one request on a short connection. */
static int federation_call(const tp_join_options *opt, int create, const char *checkpoint,
                           char *err, size_t errlen)
{
    char why[TPI_ERRLEN];
    if (!opt || (!checkpoint && (!opt->federation || !*opt->federation))) {
        set_err(err, errlen, "no federation name given");
        return TP_EINVAL;
    }
    char *owned = NULL, sbuf[SECRET_MAX + 1];
    const char *text = NULL, *secret = NULL;
    size_t len = 0;
    int r;
    if ((r = tpi_secret(opt, sbuf, sizeof sbuf, &secret, err, errlen)) < 0) return r;
    if (create) {
        if ((r = fom_text_of(opt, &owned, &text, &len, why, sizeof why)) < 0) {
            set_err(err, errlen, why);
            return r;
        }
        struct fom *fom = NULL;
        if (fom_parse_mem(text, len, opt->fom_path ? opt->fom_path : "<fom_text>", &fom, why,
                          sizeof why) != FOM_OK) {
            free(owned);
            set_err(err, errlen, why);
            return TP_EFOM;
        }
        fom_free(fom);
    }
    tp_federate *f = NULL;
    r = open_conn(opt, &f, why, sizeof why);
    if (r == TP_OK && checkpoint && !(r = tpi_wait_reply(f, 0, hello_reply, NULL))) {
        struct wire_msg m;
        wire_msg_init(&m, WIRE_RESTORE_FEDERATION);
        m.req = tpi_req(f);
        wire_str_set(&m.str[0], opt->federation ? opt->federation : "");
        wire_str_set(&m.str[1], checkpoint);
        wire_str_set(&m.str[2], secret);
        r = tpi_send(f, &m);
        if (r == TP_OK) r = tpi_wait_reply(f, m.req, status_reply, "restore federation");
    } else if (r == TP_OK && !(r = tpi_wait_reply(f, 0, hello_reply, NULL))) {
        struct wire_msg m;
        wire_msg_init(&m, create ? WIRE_CREATE_FEDERATION : WIRE_DESTROY_FEDERATION);
        m.req = tpi_req(f);
        wire_str_set(&m.str[0], opt->federation);
        if (create) {
            m.str[1].ptr = text;
            m.str[1].len = (uint32_t)len;
        }
        /* The secret slot follows the names and the FOM: str2 to create, str1 to destroy. */
        wire_str_set(&m.str[create ? 2 : 1], secret);
        r = tpi_send(f, &m);
        if (r == TP_OK)
            r = tpi_wait_reply(f, m.req, status_reply,
                               create ? "create federation" : "destroy federation");
    }
    if (r < 0) set_err(err, errlen, f && f->err[0] ? f->err : why);
    free(owned);
    tp_federate_free(f);
    return r;
}

int tp_create_federation(const tp_join_options *opt, char *err, size_t err_size)
{
    return federation_call(opt, 1, NULL, err, err_size);
}

int tp_destroy_federation(const tp_join_options *opt, char *err, size_t err_size)
{
    return federation_call(opt, 0, NULL, err, err_size);
}

int tp_restore_federation(const tp_join_options *opt, const char *checkpoint, char *err,
                          size_t err_size)
{
    if (!opt || !checkpoint || !*checkpoint) {
        set_err(err, err_size, "tp_restore_federation: options and checkpoint are required");
        return TP_EINVAL;
    }
    return federation_call(opt, 0, checkpoint, err, err_size);
}

struct join_ctx {
    uint64_t fingerprint; /* our FOM's */
    tp_fed handle;        /* result */
    int joined;           /* 1: the JOIN_OK came (a restoring join gets RESTORE_PART first) */
    struct buf part;      /* a restoring join: its part, as the chunks come */
    char label[72];       /* ... and the checkpoint's label */
};

static int join_reply(tp_federate *f, const struct wire_msg *m, void *arg)
{
    struct join_ctx *jc = arg;
    if (m->type == WIRE_RESTORE_PART) {
        wire_str_copy(&m->str[0], jc->label, sizeof jc->label);
        if (buf_append(&jc->part, m->str[1].ptr, m->str[1].len) != 0)
            return tpi_fail(f, TP_ENOMEM, "join: out of memory for the restored part");
        return TP_OK;
    }
    if (m->type != WIRE_JOIN_OK) return status_reply(f, m, "join");
    jc->joined = 1;
    if (m->b != jc->fingerprint)
        return tpi_fail(f, TP_EFOMDIFF,
                        "join: the federation's FOM (fingerprint %016llx) "
                        "differs from ours (%016llx)",
                        (unsigned long long)m->b, (unsigned long long)jc->fingerprint);
    if (m->a == 0 || m->a > UINT32_MAX)
        return tpi_fail(f, TP_EPROTO, "join: invalid federate handle %llu from the RTI",
                        (unsigned long long)m->a);
    jc->handle = (tp_fed)m->a;
    return TP_OK;
}

/* Allocate the per-FOM tables of a joined federate. */
static int fom_tables(tp_federate *f)
{
    f->n_classes = fom_class_count(f->fom);
    f->n_attrs = fom_attr_count(f->fom);
    f->n_inters = fom_inter_count(f->fom);
    f->resolution = fom_resolution(f->fom);
    f->pub_attr = calloc((size_t)(f->n_classes + 1) * (f->n_attrs + 1), 1);
    f->pub_inter = calloc((size_t)f->n_inters + 1, 1);
    if (!f->pub_attr || !f->pub_inter || tpi_scratch(f, 16) < 0) return TP_ENOMEM;
    return TP_OK;
}

int tp_join(const tp_join_options *opt, const tp_callbacks *cb, void *ctx, tp_federate **out,
            char *err, size_t err_size)
{
    char why[TPI_ERRLEN];
    if (out) *out = NULL;
    if (!opt || !out || !opt->federation || !*opt->federation || !opt->federate ||
        !*opt->federate) {
        set_err(err, err_size, "tp_join: options, out, federation and federate are required");
        return TP_EINVAL;
    }
    if (opt->resign_action != TP_DELETE_OBJECTS && opt->resign_action != TP_KEEP_OBJECTS) {
        set_err(err, err_size, "tp_join: resign_action is not a tp_resign_action");
        return TP_EINVAL;
    }
    if (opt->restore && (!cb || !cb->restore)) {
        set_err(err, err_size, "tp_join: restore asked without a restore callback");
        return TP_EINVAL;
    }
    char *owned = NULL, sbuf[SECRET_MAX + 1];
    const char *text = NULL, *secret = NULL;
    size_t len = 0;
    struct join_ctx jc = {0};
    int r = tpi_secret(opt, sbuf, sizeof sbuf, &secret, err, err_size);
    if (r < 0) return r;
    r = fom_text_of(opt, &owned, &text, &len, why, sizeof why);
    if (r < 0) {
        set_err(err, err_size, why);
        return r;
    }
    struct fom *fom = NULL;
    if (fom_parse_mem(text, len, opt->fom_path ? opt->fom_path : "<fom_text>", &fom, why,
                      sizeof why) != FOM_OK) {
        free(owned);
        set_err(err, err_size, why);
        return TP_EFOM;
    }
    tp_federate *f = NULL;
    r = open_conn(opt, &f, why, sizeof why);
    if (r < 0) {
        if (!f) set_err(err, err_size, why);
        goto fail;
    }
    f->fom = fom;
    fom = NULL;
    f->resign_action = opt->resign_action;
    if (cb) f->cb = *cb;
    f->ctx = ctx;
    if ((r = fom_tables(f)) < 0) {
        tpi_fail(f, r, "tp_join: out of memory for the FOM tables");
        goto fail;
    }
    /* JOIN is pipelined behind HELLO: one round trip for both. */
    struct wire_msg m;
    wire_msg_init(&m, WIRE_JOIN);
    m.req = tpi_req(f);
    m.code = (opt->restore  ? WIRE_JOIN_RESTORE
              : opt->create ? WIRE_JOIN_CREATE
                            : 0) |
             (opt->resign_action == TP_KEEP_OBJECTS ? WIRE_JOIN_KEEP_OBJECTS : 0);
    wire_str_set(&m.str[0], opt->federation);
    wire_str_set(&m.str[1], opt->federate);
    m.str[2].ptr = text;
    m.str[2].len = (uint32_t)len;
    wire_str_set(&m.str[3], secret);
    if ((r = tpi_send(f, &m)) < 0 || (r = tpi_wait_reply(f, 0, hello_reply, NULL)) < 0) goto fail;
    jc.fingerprint = f->fingerprint = fom_fingerprint(f->fom);
    while (!jc.joined)
        if ((r = tpi_wait_reply(f, m.req, join_reply, &jc)) < 0) goto fail;
    f->handle = jc.handle;
    f->joined = 1;
    if (opt->restore && (r = tpi_restore_part(f, jc.label, jc.part.data, jc.part.len)) < 0)
        goto fail;
    buf_fini(&jc.part);
    free(owned);
    tpi_log(f, TP_LOG_INFO, "joined federation \"%s\" as handle %u", opt->federation, f->handle);
    *out = f;
    return TP_OK;
fail:
    if (f) set_err(err, err_size, f->err);
    buf_fini(&jc.part);
    fom_free(fom);
    free(owned);
    tp_federate_free(f);
    return r;
}

int tp_resign(tp_federate *f, tp_resign_action action)
{
    int r = tpi_check_joined(f);
    if (r < 0) return r;
    if (action != TP_DELETE_OBJECTS && action != TP_KEEP_OBJECTS)
        return tpi_fail(f, TP_EINVAL, "tp_resign: %d is not a tp_resign_action", (int)action);
    struct wire_msg m;
    wire_msg_init(&m, WIRE_RESIGN);
    m.req = tpi_req(f);
    m.code = action == TP_KEEP_OBJECTS ? WIRE_RESIGN_KEEP_OBJECTS : WIRE_RESIGN_DELETE_OBJECTS;
    if ((r = tpi_send(f, &m)) == TP_OK) r = tpi_wait_reply(f, m.req, status_reply, "resign");
    f->joined = 0;
    tpi_close(f);
    buf_clear(&f->in);
    f->in_off = 0;
    return r;
}

void tp_federate_free(tp_federate *f)
{
    if (!f) return;
    /* Resign with the join-time action and wait for the answer (bounded by timeout_ms), so
     * that the RTI applies that action rather than treating a reset connection as lost. */
    if (f->joined && !f->closed) tp_resign(f, f->resign_action);
    tpi_close(f);
    buf_fini(&f->out);
    buf_fini(&f->in);
    buf_fini(&f->cur);
    fom_free(f->fom);
    free(f->pub_attr);
    free(f->pub_inter);
    free(f->objs);
    free(f->wv);
    free(f->out_wv);
    free(f->tv);
    free(f->th);
    free(f->str[0]);
    free(f->str[1]);
    for (size_t i = 0; i < f->n_syncs; i++)
        free(f->syncs[i].label);
    free(f->syncs);
    free(f);
}

tp_fed tp_federate_handle(const tp_federate *f)
{
    return f ? f->handle : 0;
}
