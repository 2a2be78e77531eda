/* The RTI server's core: the handshake and the dispatch of every decoded frame to the module
 * that serves it (federation.c, dm.c, om.c, sync.c, timesvc.c), over links (link.h) whatever
 * carries them: loop.c serves sockets, embed_link.c in-process queues.
 * Serves doc/protocol.md (protocol, refusals) and doc/rti.md (shared secret).
 * Read rti/server/federation.c next. */
#include "rti/server/server_impl.h"

#include "rti/flog/flog.h"
#include "rti/server/limits.h"
#include "rti/server/log.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define SERVER_SOFTWARE "tempo-rti 0.1"

/* ---- sending ---------------------------------------------------------------------------- */

int server_send(struct server *s, struct link *c, const struct wire_msg *m)
{
    char err[200];
    if (!c || c->closed) return -1;
    buf_clear(&s->out);
    int rc = wire_encode(&s->out, m, (uint32_t)s->hub.lim.max_frame, err, sizeof err);
    if (rc != WIRE_OK) {
        LOGE("server", c->label, "cannot encode %s: %s", wire_type_name(m->type), err);
        return -1;
    }
    const struct client *cl = c->user;
    if (cl && cl->fed) return federate_send(s, cl->fed, s->out.data, s->out.len);
    LOGT("server", c->label, "send %s (%zu bytes)", wire_type_name(m->type), s->out.len);
    s->frames_out++;
    return link_send(c, s->out.data, s->out.len);
}

void server_reply(struct server *s, struct link *c, uint32_t req, uint32_t status, uint64_t value,
                  const char *text)
{
    struct wire_msg m;
    wire_msg_init(&m, WIRE_REPLY);
    m.req = req;
    m.code = status;
    m.a = value;
    wire_str_set(&m.str[0], text ? text : "");
    server_send(s, c, &m);
}

void server_refuse(struct server *s, struct link *c, uint32_t req, uint32_t req_type,
                   uint32_t status, const char *text)
{
    LOGD("server", c->label, "refused %s: %s", wire_type_name(req_type), text);
    /* A request that names a req id waits for one REPLY; others get an asynchronous ERROR. */
    if (req != 0) {
        server_reply(s, c, req, status, 0, text);
        return;
    }
    struct wire_msg m;
    wire_msg_init(&m, WIRE_ERROR);
    m.req = req;
    m.code = status;
    m.a = req_type;
    wire_str_set(&m.str[0], text);
    server_send(s, c, &m);
}

int server_vals_reserve(struct server *s, uint32_t n)
{
    if (n <= s->vals_cap) return 0;
    uint32_t cap = s->vals_cap ? s->vals_cap : 16;
    while (cap < n)
        cap *= 2;
    struct wire_value *v = realloc(s->vals, cap * sizeof *v);
    if (!v) return -1;
    s->vals = v;
    s->vals_cap = cap;
    return 0;
}

/* ---- handshake and federation requests ---------------------------------------------------- */

/* Compare secrets without leaking the position of the first difference through timing. */
static int secret_ok(const struct server *s, const struct wire_str *given)
{
    const char *want = s->cfg.secret;
    if (!want || !want[0]) return 1;
    size_t wl = strlen(want);
    unsigned diff = (unsigned)(given->len != wl);
    for (size_t i = 0; i < wl; i++) {
        unsigned char g = i < given->len ? (unsigned char)given->ptr[i] : 0;
        diff |= (unsigned)(g ^ (unsigned char)want[i]);
    }
    return diff == 0;
}

/* What the federation log records of the secret a client frame carries (doc/log.md
 * "Secrets"): whether it matched, never the bytes (flog_frame_client). */
static const char *secret_verdict(const struct server *s, const struct wire_msg *m)
{
    int slot = flog_secret_slot(m->type);
    if (slot < 0) return NULL;
    if (!s->cfg.secret || !s->cfg.secret[0]) return FLOG_SECRET_UNUSED;
    return secret_ok(s, &m->str[slot]) ? FLOG_SECRET_MATCHED : FLOG_SECRET_WRONG;
}

static int handle_hello(struct server *s, struct link *c, const struct wire_msg *m)
{
    char why[200];
    if (m->type != WIRE_HELLO) {
        snprintf(why, sizeof why, "handshake: first frame is %s, expected HELLO",
                 wire_type_name(m->type));
    } else if (m->str[0].len != WIRE_MAGIC_LEN || memcmp(m->str[0].ptr, WIRE_MAGIC, 4) != 0) {
        snprintf(why, sizeof why, "handshake: bad magic (expected \"TMPO\")");
    } else if (m->code != WIRE_VERSION) {
        snprintf(why, sizeof why, "handshake: protocol version %u, this RTI speaks %u", m->code,
                 WIRE_VERSION);
    } else {
        struct client *cl = calloc(1, sizeof *cl);
        if (!cl) {
            link_close(c, "out of memory at handshake", 0);
            return -1;
        }
        if (limits_open(s, c, &cl->acct) != 0) {
            free(cl);
            link_close(c, "out of memory at handshake", 0);
            return -1;
        }
        cl->authed = !(s->cfg.secret && s->cfg.secret[0]);
        c->user = cl;
        char sw[64];
        wire_str_copy(&m->str[1], sw, sizeof sw);
        LOGD("server", c->label, "handshake ok (client \"%s\")", sw);
        struct wire_msg r;
        wire_msg_init(&r, WIRE_HELLO_OK);
        r.code = WIRE_VERSION;
        wire_str_set(&r.str[0], SERVER_SOFTWARE);
        server_send(s, c, &r);
        return 0;
    }
    struct wire_msg e;
    wire_msg_init(&e, WIRE_ERROR);
    e.code = STATUS_EPROTO;
    e.a = m->type;
    wire_str_set(&e.str[0], why);
    server_send(s, c, &e);
    link_close(c, why, 1);
    return -1;
}

static void handle_create(struct server *s, struct link *c, struct client *cl,
                          const struct wire_msg *m)
{
    char name[RTI_NAME_MAX], err[RTI_ERR_MAX];
    /* str2 carries the secret; a connection that already passed a JOIN with it needs none. */
    if (!cl->authed && !secret_ok(s, &m->str[2])) {
        LOGW("server", c->label, "create federation refused: wrong or missing shared secret");
        server_refuse(s, c, m->req, m->type, STATUS_EAUTH, "shared secret missing or wrong");
        return;
    }
    cl->authed = 1;
    if (m->str[0].len == 0 || wire_str_copy(&m->str[0], name, sizeof name) != 0) {
        server_refuse(s, c, m->req, m->type, STATUS_EINVAL,
                      "federation name is empty or longer than 127 bytes");
        return;
    }
    /* A federation nobody joins counts against its creator until someone does, and expires
     * (doc/rti.md "Memory quotas"): creating many never blocks the RTI for good. */
    federation_expire(s);
    if (federation_find(s, name)) {
        snprintf(err, sizeof err, "federation '%s' already exists", name);
        server_refuse(s, c, m->req, m->type, STATUS_EEXISTS, err);
        return;
    }
    struct charge ch;
    int st = limits_charge(s, &cl->acct, &ch, QR_UNJOINED, 1, "CREATE_FEDERATION", c->label, err,
                           sizeof err);
    if (st != STATUS_OK) {
        server_refuse(s, c, m->req, m->type, (uint32_t)st, err);
        return;
    }
    struct federation *fx;
    st = federation_create(s, name, m->str[1].ptr, m->str[1].len, &fx, err, sizeof err);
    if (st != STATUS_OK) {
        limits_uncharge(s, &ch, QR_UNJOINED, 1);
        server_refuse(s, c, m->req, m->type, (uint32_t)st, err);
        return;
    }
    fx->creator = ch;
    if (m->req) server_reply(s, c, m->req, STATUS_OK, fx->fingerprint, "");
}

static void handle_destroy(struct server *s, struct link *c, struct client *cl,
                           const struct wire_msg *m)
{
    char name[RTI_NAME_MAX], err[RTI_ERR_MAX];
    /* str1 carries the secret, as for CREATE_FEDERATION. */
    if (!cl->authed && !secret_ok(s, &m->str[1])) {
        LOGW("server", c->label, "destroy federation refused: wrong or missing shared secret");
        server_refuse(s, c, m->req, m->type, STATUS_EAUTH, "shared secret missing or wrong");
        return;
    }
    cl->authed = 1;
    wire_str_copy(&m->str[0], name, sizeof name);
    struct federation *fx = federation_find(s, name);
    if (!fx) {
        snprintf(err, sizeof err, "no federation named '%s'", name);
        server_refuse(s, c, m->req, m->type, STATUS_ENOTFOUND, err);
        return;
    }
    if (fx->n_feds > 0) {
        size_t n = (size_t)snprintf(
            err, sizeof err, "federation '%s' still has %u joined federate(s):", name, fx->n_feds);
        for (uint32_t i = 0; i < fx->slot_cap && n < sizeof err - 40; i++)
            if (fx->slots[i])
                n += (size_t)snprintf(err + n, sizeof err - n, " %s", fx->slots[i]->name);
        server_refuse(s, c, m->req, m->type, STATUS_EREFUSED, err);
        return;
    }
    federation_destroy(s, fx);
    if (m->req) server_reply(s, c, m->req, STATUS_OK, 0, "");
}

/* RESTORE_FEDERATION: the secret as for CREATE_FEDERATION (str2), then restore.c. */
static void handle_restore(struct server *s, struct link *c, struct client *cl,
                           const struct wire_msg *m)
{
    if (!cl->authed && !secret_ok(s, &m->str[2])) {
        LOGW("server", c->label, "restore federation refused: wrong or missing shared secret");
        server_refuse(s, c, m->req, m->type, STATUS_EAUTH, "shared secret missing or wrong");
        return;
    }
    cl->authed = 1;
    restore_handle(s, c, m);
}

/* Does a joining federate's FOM text describe the federation's FOM (same fingerprint)? */
static int same_fom(const struct federation *fx, const char *name, const struct wire_str *text,
                    char *err, size_t errlen)
{
    struct fom *fom = NULL;
    char ferr[FOM_ERRLEN];
    int lst = limits_fom(fx->srv, fx->name, text->len, err, errlen);
    if (lst != STATUS_OK) return lst;
    if (fom_parse_mem(text->ptr, text->len, "JOIN FOM", &fom, ferr, sizeof ferr) != FOM_OK) {
        snprintf(err, errlen, "federate '%s': FOM does not parse: %s", name, ferr);
        return STATUS_EFOM;
    }
    uint64_t fp = fom_fingerprint(fom);
    int st = STATUS_OK;
    if (fp != fx->fingerprint) {
        snprintf(err, errlen,
                 "federate '%s': its FOM '%s' (fingerprint %016llx) differs from the FOM '%s' "
                 "of federation '%s' (fingerprint %016llx)",
                 name, fom_name(fom), (unsigned long long)fp, fom_name(fx->fom), fx->name,
                 (unsigned long long)fx->fingerprint);
        st = STATUS_EFOMDIFF;
    }
    fom_free(fom);
    return st;
}

/* Tell the others about f, and f about the others already joined. */
static void announce_join(struct server *s, struct federate *f)
{
    struct federation *fx = f->fx;
    struct wire_msg j;
    wire_msg_init(&j, WIRE_FEDERATE_JOINED);
    j.a = f->handle;
    wire_str_set(&j.str[0], f->name);
    federation_broadcast(s, fx, f, &j);
    for (uint32_t i = 0; i < fx->slot_cap; i++) {
        struct federate *o = fx->slots[i];
        if (!o || o == f) continue;
        wire_msg_init(&j, WIRE_FEDERATE_JOINED);
        j.a = o->handle;
        wire_str_set(&j.str[0], o->name);
        server_send(s, f->conn, &j);
    }
}

/* JOIN: secret, federation (created when asked), FOM fingerprint, unique name. */
static void handle_join(struct server *s, struct link *c, struct client *cl,
                        const struct wire_msg *m, const uint8_t *frame, size_t len)
{
    char fxname[RTI_NAME_MAX], name[RTI_NAME_MAX], err[RTI_ERR_MAX];
    if (cl->fed) {
        snprintf(err, sizeof err, "this connection is already joined as '%s'", cl->fed->name);
        server_refuse(s, c, m->req, m->type, STATUS_ESTATE, err);
        return;
    }
    if (!secret_ok(s, &m->str[3])) {
        LOGW("server", c->label, "join refused: wrong or missing shared secret");
        server_refuse(s, c, m->req, m->type, STATUS_EAUTH, "shared secret missing or wrong");
        return;
    }
    cl->authed = 1;
    if (m->str[0].len == 0 || wire_str_copy(&m->str[0], fxname, sizeof fxname) != 0 ||
        m->str[1].len == 0 || wire_str_copy(&m->str[1], name, sizeof name) != 0) {
        server_refuse(s, c, m->req, m->type, STATUS_EINVAL,
                      "federation and federate names must be 1..127 bytes");
        return;
    }
    struct federation *fx = federation_find(s, fxname);
    int created = 0;
    if (m->code & WIRE_JOIN_RESTORE) {
        int st = STATUS_OK;
        if (!fx) {
            snprintf(err, sizeof err,
                     "no federation named '%s' to rejoin (restore it first: RESTORE_FEDERATION, "
                     "tp_restore_federation)",
                     fxname);
            st = STATUS_ENOTFOUND;
        } else if (m->str[2].len > 0) {
            st = same_fom(fx, name, &m->str[2], err, sizeof err);
        }
        if (st == STATUS_OK)
            st = restore_rejoin(s, fx, name, c, cl, m, frame, len, secret_verdict(s, m), err,
                                sizeof err);
        if (st != STATUS_OK) server_refuse(s, c, m->req, m->type, (uint32_t)st, err);
        return;
    }
    if (!fx) {
        if (!(m->code & WIRE_JOIN_CREATE) || m->str[2].len == 0) {
            snprintf(err, sizeof err, "no federation named '%s'%s", fxname,
                     (m->code & WIRE_JOIN_CREATE) ? " (create asked, but no FOM text given)" : "");
            server_refuse(s, c, m->req, m->type, STATUS_ENOTFOUND, err);
            return;
        }
        federation_expire(s);
        int st = federation_create(s, fxname, m->str[2].ptr, m->str[2].len, &fx, err, sizeof err);
        if (st != STATUS_OK) {
            server_refuse(s, c, m->req, m->type, (uint32_t)st, err);
            return;
        }
        created = 1;
    } else if (m->str[2].len > 0) {
        int st = same_fom(fx, name, &m->str[2], err, sizeof err);
        if (st != STATUS_OK) {
            server_refuse(s, c, m->req, m->type, (uint32_t)st, err);
            return;
        }
    }
    struct federate *f;
    int st = federate_join(s, fx, name, c, &f, err, sizeof err);
    if (st != STATUS_OK) {
        server_refuse(s, c, m->req, m->type, (uint32_t)st, err);
        if (created) federation_destroy(s, fx);
        return;
    }
    cl->fed = f;
    link_joined(c);
    /* What the RTI does with its objects if its connection drops (on_close). */
    f->resign_action =
        (m->code & WIRE_JOIN_KEEP_OBJECTS) ? WIRE_RESIGN_KEEP_OBJECTS : WIRE_RESIGN_DELETE_OBJECTS;
    link_set_label(c, f->tag);
    flog_joined(fx->flog, (uint32_t)f->handle, f->name);
    flog_frame_client(fx->flog, (uint32_t)f->handle, frame, len, m, secret_verdict(s, m));
    struct wire_msg r;
    wire_msg_init(&r, WIRE_JOIN_OK);
    r.req = m->req;
    r.a = f->handle;
    r.b = fx->fingerprint;
    wire_str_set(&r.str[0], fx->name);
    wire_str_set(&r.str[1], fx->resolution);
    server_send(s, c, &r);
    LOGI("fed", f->tag, "joined federation '%s' as federate %llu (%u joined)", fx->name,
         (unsigned long long)f->handle, fx->n_feds);
    announce_join(s, f);
    sync_federate_joined(s, f);
    /* a save under way cannot hold a federate it never asked: it fails naming it */
    if (fx->save) save_federate_event(s, f, "joined during the save");
}

static void handle_resign(struct server *s, struct link *c, struct client *cl,
                          const struct wire_msg *m)
{
    struct federate *f = cl->fed;
    /* The reply first, while f is still joined, so that the federation log records it;
     * nothing can fail after this point. */
    if (m->req) server_reply(s, c, m->req, STATUS_OK, 0, "");
    cl->fed = NULL;
    federate_resign(s, f, m->code, WIRE_REASON_RESIGNED, "resigned");
}

/* ---- dispatch ----------------------------------------------------------------------------- */

/* A request of a joined federate: route it to the module that serves it. */
static void dispatch_joined(struct server *s, struct link *c, struct client *cl,
                            const struct wire_msg *m)
{
    char err[160];
    struct federate *f = cl->fed;
    if (save_refuses(s, f, m)) return; /* it saved its part: held until the save ends */
    switch (m->type) {
    case WIRE_REQUEST_SAVE:
    case WIRE_SAVE_DONE:
        save_handle(s, f, m);
        break;
    case WIRE_RESIGN:
        handle_resign(s, c, cl, m);
        break;
    case WIRE_PUBLISH_OBJECT:
    case WIRE_UNPUBLISH_OBJECT:
    case WIRE_SUBSCRIBE_OBJECT:
    case WIRE_UNSUBSCRIBE_OBJECT:
    case WIRE_PUBLISH_INTERACTION:
    case WIRE_UNPUBLISH_INTERACTION:
    case WIRE_SUBSCRIBE_INTERACTION:
    case WIRE_UNSUBSCRIBE_INTERACTION:
        dm_handle(s, f, m);
        break;
    case WIRE_REGISTER_OBJECT:
    case WIRE_UPDATE:
    case WIRE_DELETE_OBJECT:
    case WIRE_SEND_INTERACTION:
    case WIRE_REQUEST_UPDATE:
        om_handle(s, f, m);
        break;
    case WIRE_REGISTER_SYNC:
    case WIRE_ACHIEVE_SYNC:
        sync_handle(s, f, m);
        break;
    case WIRE_ENABLE_REGULATION:
    case WIRE_DISABLE_REGULATION:
    case WIRE_ENABLE_CONSTRAINED:
    case WIRE_DISABLE_CONSTRAINED:
    case WIRE_MODIFY_LOOKAHEAD:
    case WIRE_TIME_REQUEST:
    case WIRE_QUERY_TIME:
        timesvc_handle(s, f, m);
        break;
    default:
        snprintf(err, sizeof err, "%s is not served by this RTI", wire_type_name(m->type));
        server_refuse(s, c, m->req, m->type, STATUS_EPROTO, err);
        break;
    }
}

int server_on_frame(struct server *s, struct link *c, const uint8_t *frame, size_t len)
{
    struct wire_msg m;
    char err[256];
    s->frames_in++;
    int rc = wire_decode(frame, len, &m, err, sizeof err);
    if (rc != WIRE_OK) {
        char hex[WIRE_HEX_BUFSZ], why[sizeof err + sizeof hex + 128];
        /* The reason reaches the logs (the federation log's LOST record too): of a frame that
         * may carry the shared secret, only the header is shown (doc/log.md "Secrets"). */
        int secret = len >= WIRE_HEADER_SIZE && flog_secret_slot(frame[4] | frame[5] << 8) >= 0;
        size_t shown = secret ? WIRE_HEADER_SIZE : len < WIRE_HEX_MAX ? len : WIRE_HEX_MAX;
        wire_hex_sample(frame, shown, hex, sizeof hex);
        snprintf(why, sizeof why, "malformed frame (%s): %s; %s%s", wire_strerror(rc), err, hex,
                 secret ? " (header only: the body may hold the shared secret)" : "");
        if (!c->user) { /* the first frame: the handshake's answer says why (doc/rti.md) */
            struct wire_msg e;
            wire_msg_init(&e, WIRE_ERROR);
            e.code = STATUS_EPROTO;
            snprintf(why, sizeof why, "handshake: malformed first frame (%s): %s",
                     wire_strerror(rc), err);
            wire_str_set(&e.str[0], why);
            server_send(s, c, &e);
        }
        link_close(c, why, !c->user);
        return -1;
    }
    LOGT("server", c->label, "recv %s (%zu bytes)", wire_type_name(m.type), len);
    struct client *cl = c->user;
    if (!cl) return handle_hello(s, c, &m);
    if (cl->fed) cl->fed->frames_in++;
    if (!(wire_type_dir(m.type) & WIRE_DIR_C2R) || m.type == WIRE_HELLO) {
        char why[120];
        snprintf(why, sizeof why, "protocol error: unexpected %s from a client",
                 wire_type_name(m.type));
        link_close(c, why, 0);
        return -1;
    }
    switch (m.type) {
    case WIRE_PING: {
        struct wire_msg r;
        wire_msg_init(&r, WIRE_PONG);
        r.req = m.req;
        r.str[0] = m.str[0];
        server_send(s, c, &r);
        return 0;
    }
    case WIRE_PONG:
        return 0;
    case WIRE_CREATE_FEDERATION:
        handle_create(s, c, cl, &m);
        return 0;
    case WIRE_DESTROY_FEDERATION:
        handle_destroy(s, c, cl, &m);
        return 0;
    case WIRE_JOIN:
        handle_join(s, c, cl, &m, frame, len);
        return 0;
    case WIRE_RESTORE_FEDERATION:
        handle_restore(s, c, cl, &m);
        return 0;
    default:
        break;
    }
    if (!cl->fed) {
        snprintf(err, sizeof err, "%s: this connection has not joined a federation",
                 wire_type_name(m.type));
        server_refuse(s, c, m.req, m.type, STATUS_ESTATE, err);
        return 0;
    }
    /* The frame and every record it causes share one stamp. The federation (and its log)
     * outlives dispatch: only DESTROY, refused while anyone is joined, frees it. */
    struct flog *lg = cl->fed->fx->flog;
    flog_hold_stamp(lg);
    flog_frame_client(lg, (uint32_t)cl->fed->handle, frame, len, &m, secret_verdict(s, &m));
    s->dispatching++;
    dispatch_joined(s, c, cl, &m);
    /* a save under way may now ask someone, end, or find that it cannot end (save.c) */
    for (struct federation *o = s->feds; o; o = o->next)
        if (o->save) save_poll(s, o);
    s->dispatching--;
    flog_release_stamp(lg);
    /* a RESIGN (or a loss it caused) may have emptied federations: reap them now, after the
     * log's stamp is released */
    if (!s->dispatching) {
        for (struct federation *o = s->feds, *nx; o; o = nx) {
            nx = o->next;
            if (o->n_feds == 0) federation_reap(s, o);
        }
    }
    return 0;
}

/* A connection is gone: resign its federate (connection loss or expulsion), free its state. */
void server_on_close(struct server *s, struct link *c, const char *reason, int peer_gone)
{
    struct client *cl = c->user;
    if (!cl) return;
    if (cl->fed) {
        struct federate *f = cl->fed;
        /* The peer left (or its socket failed, or the RTI stops): disconnected; the RTI
         * closed it for a reason of its own (bad frame, too slow): expelled. */
        uint32_t why = peer_gone || s->stopping ? WIRE_REASON_DISCONNECTED : WIRE_REASON_EXPELLED;
        cl->fed = NULL;
        flog_lost(f->fx->flog, (uint32_t)f->handle, reason);
        LOGW("fed", f->tag, "connection lost (%s): resigning it, %s its objects", reason,
             f->resign_action == WIRE_RESIGN_KEEP_OBJECTS ? "keeping" : "deleting");
        struct federation *fx = f->fx;
        federate_resign(s, f, f->resign_action, why, reason);
        federation_reap(s, fx); /* inside a frame's dispatch, on_frame reaps it after */
    }
    limits_close(s, &cl->acct); /* what it still holds stays charged to its accounts */
    free(cl);
    c->user = NULL;
}

/* ---- the core's life cycle ------------------------------------------------------------------ */

void server_core_init(struct server *s, const struct server_config *cfg)
{
    s->cfg = *cfg;
    if (!s->cfg.listen) s->cfg.listen = SERVER_DEFAULT_LISTEN;
    if (!s->cfg.max_federates) s->cfg.max_federates = SERVER_MAX_FEDERATES_DEFAULT;
    if (!s->cfg.max_federations) s->cfg.max_federations = SERVER_MAX_FEDERATIONS_DEFAULT;
    if (!s->cfg.max_fom_bytes) s->cfg.max_fom_bytes = SERVER_MAX_FOM_BYTES_DEFAULT;
    limits_defaults(s);
    s->started_ms = limits_now_ms();
}

void server_core_fini(struct server *s)
{
    while (s->feds)
        federation_destroy(s, s->feds);
    buf_fini(&s->out);
    buf_fini(&s->fan);
    buf_fini(&s->fan_full);
    free(s->vals);
    s->vals = NULL;
}
