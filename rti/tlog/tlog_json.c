/* tempo-log json: JSON lines for scripts (jansson), doc/log.md. Line 1 is the header,
 * then one object per record with every field (frames decoded field by field, values
 * decoded with the FOM when it knows them), then one END or CUT line with the record count.
 * Field names: doc/log.md. Read rti/tlog/tlog_util.c for the decoding helpers. */
#include <inttypes.h>
#include <jansson.h>
#include <stdlib.h>
#include <string.h>

#include "rti/tlog/tlog_impl.h"

static json_t *jhex(const uint8_t *p, size_t n);

/* A string field: a JSON string when it is valid UTF-8 without NUL, else {"hex": "..."}. */
static json_t *jstr(const char *p, size_t n)
{
    json_t *s = NULL;
    if (!memchr(p ? p : "", 0, p ? n : 0)) s = json_stringn(p ? p : "", n);
    if (s) return s;
    return json_pack("{s:o}", "hex", jhex((const uint8_t *)p, n));
}

/* Bytes as a lowercase hex JSON string. */
static json_t *jhex(const uint8_t *p, size_t n)
{
    char *h = malloc(2 * n + 1);
    if (!h) return json_null();
    for (size_t i = 0; i < n; i++)
        snprintf(h + 2 * i, 3, "%02x", p[i]);
    h[2 * n] = '\0';
    json_t *s = json_string(h);
    free(h);
    return s;
}

static json_t *jtime(int64_t v)
{
    return v == TM_NO_TIME ? json_null() : json_integer(v);
}

static json_t *msg_json(const struct tlog *t, const struct wire_msg *m)
{
    json_t *o = json_object();
    json_object_set_new(o, "type", json_string(wire_type_name(m->type)));
    json_object_set_new(o, "type_id", json_integer(m->type));
    json_object_set_new(o, "flags", json_integer(m->flags));
    json_object_set_new(o, "req", json_integer(m->req));
    json_object_set_new(o, "code", json_integer(m->code));
    json_object_set_new(o, "a", json_integer((json_int_t)m->a));
    json_object_set_new(o, "b", json_integer((json_int_t)m->b));
    json_object_set_new(o, "c", json_integer((json_int_t)m->c));
    json_object_set_new(o, "time", jtime(m->time));
    json_object_set_new(o, "time2", jtime(m->time2));
    json_t *strs = json_array();
    for (int i = 0; i < WIRE_MAX_STRS; i++) {
        /* The secret's slot: the writer's note, never bytes (doc/log.md "Secrets"). */
        const char *note = i == flog_secret_slot(m->type) && m->str[i].len
                               ? flog_secret_text(m->str[i].ptr, m->str[i].len)
                               : NULL;
        json_array_append_new(strs, note ? json_string(note) : jstr(m->str[i].ptr, m->str[i].len));
    }
    json_object_set_new(o, "str", strs);
    json_t *vals = json_array();
    struct wire_value_iter it;
    struct wire_value v;
    wire_value_iter_init(&it, m);
    int param = m->type == WIRE_SEND_INTERACTION || m->type == WIRE_RECEIVE_INTERACTION;
    while (wire_value_next(&it, &v)) {
        json_t *jv = json_object();
        json_object_set_new(jv, "handle", json_integer(v.handle));
        json_object_set_new(jv, "bytes", jhex(v.data, v.len));
        if (t->fom && m->type != WIRE_TIME_STATUS) {
            const char *nm =
                param ? fom_param_name(t->fom, v.handle) : fom_attr_name(t->fom, v.handle);
            if (nm) {
                char txt[512];
                tlog_value_text(t, param, v.handle, v.data, v.len, txt, sizeof txt);
                json_object_set_new(jv, "name", jstr(nm, strlen(nm)));
                json_object_set_new(jv, "value", jstr(txt, strlen(txt)));
            }
        }
        json_array_append_new(vals, jv);
    }
    json_object_set_new(o, "values", vals);
    json_t *hs = json_array();
    for (uint32_t i = 0; i < m->nhandles; i++)
        json_array_append_new(hs, json_integer(wire_msg_handle(m, i)));
    json_object_set_new(o, "handles", hs);
    return o;
}

static json_t *record_json(const struct tlog *t, const struct tlog_rec *x)
{
    const struct flog_record *r = &x->r;
    char nb[32];
    json_t *o = json_object();
    json_object_set_new(o, "record", json_integer((json_int_t)r->index));
    json_object_set_new(o, "seq", json_integer((json_int_t)r->seq));
    json_object_set_new(o, "offset", json_integer((json_int_t)r->offset));
    json_object_set_new(o, "kind", json_string(flog_kind_name(r->kind)));
    json_object_set_new(o, "fed", json_integer(r->fed));
    {
        const char *fn = tlog_fed_name(t, r->fed, nb, sizeof nb);
        json_object_set_new(o, "federate", jstr(fn, strlen(fn)));
    }
    json_object_set_new(o, "wall_ns", json_integer(r->wall_ns));
    json_object_set_new(o, "wall_s", json_real((double)(r->wall_ns - t->hdr.start_wall_ns) / 1e9));
    json_object_set_new(o, "ltime", jtime(x->ltime));
    switch (r->kind) {
    case FLOG_K_RECV:
    case FLOG_K_SENT:
        json_object_set_new(o, "frame_len", json_integer(r->payload_len));
        if (x->has_msg)
            json_object_set_new(o, "msg", msg_json(t, &x->msg));
        else {
            json_object_set_new(o, "frame", jhex(r->payload, r->payload_len));
            json_object_set_new(o, "error", jstr(x->msg_err, strlen(x->msg_err)));
        }
        break;
    case FLOG_K_JOINED:
    case FLOG_K_LOST:
    case FLOG_K_NOTE: {
        /* a note may carry data after its text's NUL (a restored federation's first note:
         * doc/log.md "Saves and restores"): the text alone, the data's size beside it */
        const char *nul = memchr(r->payload, 0, r->payload_len);
        size_t n = nul ? (size_t)(nul - (const char *)r->payload) : r->payload_len;
        json_object_set_new(o, "text", jstr((const char *)r->payload, n));
        if (nul)
            json_object_set_new(o, "data_bytes",
                                json_integer((json_int_t)(r->payload_len - n - 1)));
        break;
    }
    case FLOG_K_DECISION: {
        static const char *const dn[] = {"?",           "GRANT",   "DELIVER", "REG_ENABLED",
                                         "CON_ENABLED", "DISCARD", "REFUSED"};
        json_t *d = json_object();
        json_object_set_new(d, "kind", json_string(r->dec.kind < 7 ? dn[r->dec.kind] : "?"));
        json_object_set_new(d, "req", json_string(tm_req_name((tm_req)r->dec.req)));
        json_object_set_new(d, "tso", json_boolean(r->dec.tso));
        json_object_set_new(d, "code", json_integer(r->dec.code));
        json_object_set_new(d, "time", jtime(r->dec.time));
        json_object_set_new(d, "sender", json_integer(r->dec.sender));
        json_object_set_new(d, "seq", json_integer((json_int_t)r->dec.seq));
        json_object_set_new(d, "token", json_integer((json_int_t)r->dec.token));
        json_object_set_new(d, "reason", jstr(r->dec.reason, r->dec.reason_len));
        const tm_grant_facts *gf = &r->dec.grant;
        if (gf->row) { /* stored as its facts (GRANTED): those too, for scripts */
            static const char *const rows[] = {"?", "AT_ONCE", "TAR", "NER", "FQR"};
            json_t *g = json_pack("{s:s,s:o,s:o,s:{s:o,s:b},s:I,s:b}", "row",
                                  rows[gf->row <= TM_GROW_FQR ? gf->row : 0], "asked",
                                  jtime(gf->asked), "prev", jtime(gf->prev), "galt", "t",
                                  jtime(gf->galt.t), "strict", (int)gf->galt.strict, "holder",
                                  (json_int_t)gf->holder, "queued", (int)gf->queued);
            json_object_set_new(d, "grant", g);
        }
        json_object_set_new(o, "decision", d);
        break;
    }
    case FLOG_K_TM_SEND: {
        json_t *rs = json_array();
        for (uint32_t i = 0; i < r->send.n; i++)
            json_array_append_new(rs, json_integer(flog_tm_send_receiver(&r->send, i)));
        json_t *s = json_pack("{s:o,s:I,s:o}", "ts", jtime(r->send.ts), "token",
                              (json_int_t)r->send.token, "receivers", rs);
        json_object_set_new(o, "send", s);
        break;
    }
    default:
        break;
    }
    return o;
}

/* Print one object as a line and free it. 0, or -1 when it cannot be serialised. */
static int emit(json_t *o, FILE *out)
{
    char *s = json_dumps(o, JSON_COMPACT | JSON_ENSURE_ASCII | JSON_REAL_PRECISION(15));
    json_decref(o);
    if (!s) return -1;
    fprintf(out, "%s\n", s);
    free(s);
    return 0;
}

int tlog_json(struct tlog *t, const struct tlog_filter *f, FILE *out)
{
    json_t *h = json_object();
    json_object_set_new(h, "kind", json_string("HEADER"));
    json_object_set_new(h, "version", json_integer(t->hdr.version));
    json_object_set_new(h, "federation", jstr(t->hdr.federation, t->hdr.federation_len));
    json_object_set_new(h, "resolution", jstr(t->hdr.resolution, t->hdr.resolution_len));
    json_object_set_new(h, "start_wall_ns", json_integer(t->hdr.start_wall_ns));
    json_object_set_new(h, "fom", jstr(t->hdr.fom, t->hdr.fom_len));
    if (emit(h, out) != 0) return 1;
    struct flog_reader r;
    struct tlog_rec x;
    tlog_rewind(t, &r);
    uint64_t n = 0;
    while (tlog_next(t, &r, &x)) {
        if (!tlog_match(t, f, &x)) continue; /* --federate, --from, --to: as show */
        if (emit(record_json(t, &x), out) != 0) {
            fprintf(stderr, "tempo-log: record %" PRIu64 " could not be serialised\n", x.r.index);
            return 1;
        }
        n++;
    }
    json_t *e = json_object();
    json_object_set_new(e, "kind", json_string(t->cut ? "CUT" : "END"));
    json_object_set_new(e, "records", json_integer((json_int_t)n));
    json_object_set_new(e, "offset", json_integer((json_int_t)r.off));
    if (t->cut) json_object_set_new(e, "error", jstr(t->cut_msg, strlen(t->cut_msg)));
    return emit(e, out) != 0;
}
