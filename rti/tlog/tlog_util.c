/* tempo-log shared code: loading a log, the first pass (federate names, objects and their
 * classes), decoding each record's frame, filters and one-line descriptions (doc/log.md).
 * Read rti/tlog/tlog_impl.h first; the subcommands are rti/tlog/tlog_<name>.c. */
#include <inttypes.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>

#include "rti/proto/ticks.h"
#include "rti/tlog/tlog_impl.h"

/* ---- first pass ---------------------------------------------------------------------------- */

/* A REGISTER_OBJECT waiting for its REPLY (which carries the object handle). */
struct pending_reg {
    uint32_t fed, req;
    fom_handle cls;
    char name[TLOG_NAME_MAX];
};

/* The registrations still waiting for their reply (unordered): grows as needed (a
 * federation may register any number of objects before the RTI answers). */
struct pending_regs {
    struct pending_reg *at; /* [n] used of [cap] (owned) */
    size_t n, cap;
};

/* A free slot at the end of p, or NULL when out of memory. */
static struct pending_reg *pending_push(struct pending_regs *p)
{
    if (p->n == p->cap) {
        size_t cap = p->cap ? p->cap * 2 : 64;
        struct pending_reg *a = realloc(p->at, cap * sizeof *a);
        if (!a) return NULL;
        p->at = a;
        p->cap = cap;
    }
    return &p->at[p->n++];
}

static int grow_names(struct tlog *t, uint32_t h)
{
    if (h < t->names_cap) return 0;
    if (h >= TLOG_MAX_HANDLE) return -1;
    uint32_t cap = t->names_cap ? t->names_cap : 16;
    while (cap <= h)
        cap *= 2;
    void *n = realloc(t->names, (size_t)cap * TLOG_NAME_MAX);
    if (!n) return -1;
    memset((char *)n + (size_t)t->names_cap * TLOG_NAME_MAX, 0,
           (size_t)(cap - t->names_cap) * TLOG_NAME_MAX);
    t->names = n;
    uint32_t *ro = realloc(t->run_of, (size_t)cap * sizeof *ro);
    if (!ro) return -1;
    memset(ro + t->names_cap, 0, (size_t)(cap - t->names_cap) * sizeof *ro);
    t->run_of = ro;
    t->names_cap = cap;
    return 0;
}

static struct tlog_obj *obj_slot(struct tlog *t, uint64_t h)
{
    if (h == 0 || h >= TLOG_MAX_HANDLE) return NULL;
    if (h >= t->objs_cap) {
        uint32_t cap = t->objs_cap ? t->objs_cap : 64;
        while (cap <= h)
            cap *= 2;
        struct tlog_obj *n = realloc(t->objs, (size_t)cap * sizeof *n);
        if (!n) return NULL;
        memset(n + t->objs_cap, 0, (size_t)(cap - t->objs_cap) * sizeof *n);
        t->objs = n;
        t->objs_cap = cap;
    }
    return &t->objs[h];
}

static void copy_str(const struct wire_str *s, char *dst, size_t cap)
{
    wire_str_copy(s, dst, cap);
}

/* Runs: a JOINED while nobody is joined begins a run (doc/log.md, "several runs in one
 * file"); every record up to the next such JOINED belongs to it. */
static int run_join(struct tlog *t, const struct flog_record *r)
{
    if (t->live == 0 || t->n_runs == 0) {
        if (t->n_runs == t->runs_cap) {
            uint32_t cap = t->runs_cap ? 2 * t->runs_cap : 4;
            struct tlog_run *a = realloc(t->runs, cap * sizeof *a);
            if (!a) return -1;
            t->runs = a;
            t->runs_cap = cap;
        }
        t->runs[t->n_runs++] = (struct tlog_run){r->seq, r->seq, r->wall_ns, r->wall_ns, 0};
    }
    t->runs[t->n_runs - 1].feds++;
    t->run_of[r->fed] = t->n_runs;
    t->live++;
    return 0;
}

static void run_leave(struct tlog *t, const struct flog_record *r)
{
    /* a federate leaves once: a LOST after its RESIGN (or a second one) changes nothing */
    if (r->fed && r->fed < t->names_cap && t->run_of[r->fed] &&
        !(t->run_of[r->fed] & 0x80000000u)) {
        t->run_of[r->fed] |= 0x80000000u;
        if (t->live) t->live--;
    }
}

/* Learn names and objects from one record. Returns -1 only on out of memory. */
static int learn(struct tlog *t, const struct tlog_rec *x, struct pending_regs *pend)
{
    const struct flog_record *r = &x->r;
    if (r->kind == FLOG_K_JOINED) {
        if (grow_names(t, r->fed) != 0) return r->fed >= TLOG_MAX_HANDLE ? 0 : -1;
        size_t n = r->payload_len < TLOG_NAME_MAX - 1 ? r->payload_len : TLOG_NAME_MAX - 1;
        memcpy(t->names[r->fed], r->payload, n);
        t->names[r->fed][n] = '\0';
        if (run_join(t, r) != 0) return -1;
        return 0;
    }
    if (r->kind == FLOG_K_LOST) run_leave(t, r);
    if (!x->has_msg) return 0;
    const struct wire_msg *m = &x->msg;
    if (r->kind == FLOG_K_RECV && m->type == WIRE_RESIGN) run_leave(t, r);
    if (r->kind == FLOG_K_SENT && m->type == WIRE_DISCOVER) {
        struct tlog_obj *o = obj_slot(t, m->a);
        if (!o) return m->a >= TLOG_MAX_HANDLE ? 0 : -1;
        o->cls = (fom_handle)m->b;
        copy_str(&m->str[0], o->name, sizeof o->name);
    } else if (r->kind == FLOG_K_RECV && m->type == WIRE_REGISTER_OBJECT && m->req) {
        struct pending_reg *p = pending_push(pend);
        if (!p) return -1;
        p->fed = r->fed;
        p->req = m->req;
        p->cls = (fom_handle)m->a;
        copy_str(&m->str[0], p->name, sizeof p->name);
    } else if (r->kind == FLOG_K_SENT && m->type == WIRE_REPLY && m->code == 0) {
        for (size_t i = pend->n; i-- > 0;) {
            struct pending_reg *p = &pend->at[i];
            if (p->fed != r->fed || p->req != m->req) continue;
            struct tlog_obj *o = obj_slot(t, m->a);
            if (o) {
                o->cls = p->cls;
                if (!o->name[0]) snprintf(o->name, sizeof o->name, "%s", p->name);
            }
            *p = pend->at[--pend->n];
            break;
        }
    }
    return 0;
}

int tlog_load(struct tlog *t, const char *path, char *err, size_t errlen)
{
    memset(t, 0, sizeof *t);
    t->path = path;
    t->resolution = 1e-9;
    if (flog_load_file(path, &t->data, &t->len, err, errlen) != FLOG_OK) return -1;
    struct flog_reader r;
    char rerr[FLOG_ERR_LEN];
    if (flog_reader_init(&r, t->data, t->len, rerr, sizeof rerr) != FLOG_OK) {
        snprintf(err, errlen, "%s: %s", path, rerr);
        return -1;
    }
    t->hdr = r.hdr;
    char res[64];
    size_t rl = t->hdr.resolution_len < sizeof res - 1 ? t->hdr.resolution_len : sizeof res - 1;
    memcpy(res, t->hdr.resolution, rl);
    res[rl] = '\0';
    char *end = NULL;
    double d = strtod(res, &end);
    if (end != res && *end == '\0' && d > 0 && isfinite(d)) t->resolution = d;
    if (t->hdr.fom_len > 0) {
        if (fom_parse_mem(t->hdr.fom, t->hdr.fom_len, "log header FOM", &t->fom, t->fom_err,
                          sizeof t->fom_err) != FOM_OK)
            t->fom = NULL;
    } else {
        snprintf(t->fom_err, sizeof t->fom_err, "the log header holds no FOM");
    }
    /* First pass: names and objects, the count of complete records, and where it is cut. */
    struct pending_regs pend = {NULL, 0, 0};
    struct tlog_rec x;
    t->last_wall_ns = t->hdr.start_wall_ns;
    for (;;) {
        int rc = flog_reader_next(&r, &x.r, rerr, sizeof rerr);
        if (rc == 0) break;
        if (rc < 0) {
            t->cut = rc;
            snprintf(t->cut_msg, sizeof t->cut_msg, "%s", rerr);
            break;
        }
        t->records++;
        t->last_wall_ns = x.r.wall_ns;
        if (t->n_runs)
            t->runs[t->n_runs - 1].last = x.r.seq, t->runs[t->n_runs - 1].wall1 = x.r.wall_ns;
        /* the RTI's closing record: the log ends whole (anything after it would be odd) */
        t->closed = x.r.kind == FLOG_K_NOTE && x.r.fed == 0 &&
                    x.r.payload_len == strlen(FLOG_NOTE_CLOSED) &&
                    memcmp(x.r.payload, FLOG_NOTE_CLOSED, x.r.payload_len) == 0;
        x.has_msg = 0;
        if ((x.r.kind == FLOG_K_RECV || x.r.kind == FLOG_K_SENT) &&
            wire_decode(x.r.payload, x.r.payload_len, &x.msg, NULL, 0) == WIRE_OK)
            x.has_msg = 1;
        if (learn(t, &x, &pend) != 0) {
            snprintf(err, errlen, "%s: out of memory", path);
            free(pend.at);
            tlog_fini(t);
            return -1;
        }
    }
    free(pend.at);
    for (uint32_t h = 0; h < t->names_cap; h++)
        t->run_of[h] &= 0x7fffffffu; /* the "has left" marks served the first pass only */
    return 0;
}

void tlog_fini(struct tlog *t)
{
    fom_free(t->fom);
    free(t->names);
    free(t->run_of);
    free(t->runs);
    free(t->objs);
    free(t->data);
    memset(t, 0, sizeof *t);
}

void tlog_rewind(const struct tlog *t, struct flog_reader *r)
{
    /* the header was read by tlog_load: this cannot fail, and sets every reader field */
    if (flog_reader_init(r, t->data, t->len, NULL, 0) != FLOG_OK) r->n = r->off;
}

void tlog_report_cut(const struct tlog *t)
{
    if (t->cut)
        fprintf(stderr, "tempo-log: %s: %s; %" PRIu64 " complete records read before it\n", t->path,
                t->cut_msg, t->records);
}

/* ---- per-record decoding ---------------------------------------------------------------- */

const struct tlog_obj *tlog_obj(const struct tlog *t, uint64_t h)
{
    if (h == 0 || h >= t->objs_cap) return NULL;
    const struct tlog_obj *o = &t->objs[h];
    return (o->cls || o->name[0]) ? o : NULL;
}

static fom_handle class_of_object(const struct tlog *t, uint64_t h)
{
    const struct tlog_obj *o = tlog_obj(t, h);
    return o ? o->cls : FOM_NONE;
}

void tlog_classify(const struct tlog *t, struct tlog_rec *x)
{
    const struct wire_msg *m = &x->msg;
    x->cls = FOM_NONE;
    x->inter = FOM_NONE;
    x->ltime = m->type != WIRE_JOIN_OK && m->type != WIRE_TIME_STATUS ? m->time : TM_NO_TIME;
    switch (m->type) {
    case WIRE_UPDATE:
    case WIRE_REFLECT:
    case WIRE_DELETE_OBJECT:
    case WIRE_REMOVE_OBJECT:
    case WIRE_PROVIDE_UPDATE:
        x->cls = class_of_object(t, m->a);
        break;
    case WIRE_DISCOVER:
        x->cls = (fom_handle)m->b;
        break;
    case WIRE_REGISTER_OBJECT:
    case WIRE_PUBLISH_OBJECT:
    case WIRE_UNPUBLISH_OBJECT:
    case WIRE_SUBSCRIBE_OBJECT:
    case WIRE_UNSUBSCRIBE_OBJECT:
        x->cls = (fom_handle)m->a;
        break;
    case WIRE_REQUEST_UPDATE:
        x->cls = m->code == WIRE_RU_CLASS ? (fom_handle)m->a : class_of_object(t, m->a);
        break;
    case WIRE_SEND_INTERACTION:
    case WIRE_RECEIVE_INTERACTION:
    case WIRE_PUBLISH_INTERACTION:
    case WIRE_UNPUBLISH_INTERACTION:
    case WIRE_SUBSCRIBE_INTERACTION:
    case WIRE_UNSUBSCRIBE_INTERACTION:
        x->inter = (fom_handle)m->a;
        break;
    default:
        break;
    }
}

int tlog_next(const struct tlog *t, struct flog_reader *r, struct tlog_rec *x)
{
    memset(x, 0, sizeof *x);
    if (flog_reader_next(r, &x->r, NULL, 0) != 1) return 0;
    x->ltime = TM_NO_TIME;
    const struct flog_record *rec = &x->r;
    if (rec->kind == FLOG_K_DECISION) {
        x->ltime = rec->dec.time;
        tm_fed h = rec->dec.grant.holder;
        if (rec->dec.grant.row) { /* stored as facts: word the reason as the RTI would have */
            char nb1[32], nb2[32];
            const char *holder = h ? tlog_fed_name(t, h, nb2, sizeof nb2) : NULL;
            x->r.dec.reason_len =
                (uint32_t)flog_grant_text(x->why, sizeof x->why, &rec->dec,
                                          tlog_fed_name(t, rec->fed, nb1, sizeof nb1), holder);
            x->r.dec.reason = x->why;
        }
    } else if (rec->kind == FLOG_K_TM_SEND) {
        x->ltime = rec->send.ts;
    } else if (rec->kind == FLOG_K_RECV || rec->kind == FLOG_K_SENT) {
        int rc =
            wire_decode(rec->payload, rec->payload_len, &x->msg, x->msg_err, sizeof x->msg_err);
        if (rc != WIRE_OK) return 1;
        x->has_msg = 1;
        tlog_classify(t, x);
    }
    return 1;
}

/* ---- names, times, filters ---------------------------------------------------------------- */

const char *tlog_fed_name(const struct tlog *t, uint32_t fed, char *buf, size_t cap)
{
    if (fed == 0) return "-";
    if (fed < t->names_cap && t->names[fed][0]) return t->names[fed];
    snprintf(buf, cap, "fed%u", fed);
    return buf;
}

uint32_t tlog_fed_find(const struct tlog *t, const char *name)
{
    uint32_t first = 0;
    for (uint32_t h = 1; h < t->names_cap; h++)
        if (strcmp(t->names[h], name) == 0) {
            if (!t->run_sel || t->run_of[h] == t->run_sel) return h;
            if (!first) first = h;
        }
    if (first) return 0; /* named only in another run than the one selected */
    if (t->handle_sel && t->handle_sel < t->names_cap && strcmp(t->names[t->handle_sel], name) == 0)
        return t->handle_sel;
    /* "fed<N>" names a federate whose JOINED record is missing. */
    if (strncmp(name, "fed", 3) == 0 && name[3]) {
        char *end;
        unsigned long v = strtoul(name + 3, &end, 10);
        if (*end == '\0' && v > 0 && v < UINT32_MAX) return (uint32_t)v;
    }
    return 0;
}

double tlog_secs(const struct tlog *t, int64_t ticks)
{
    return ticks_seconds(t->resolution, ticks); /* doc/time.md "Seconds from ticks" */
}

int tlog_parse_secs(const struct tlog *t, const char *s, int64_t *ticks)
{
    char *end = NULL;
    double v = strtod(s, &end);
    if (end == s || *end != '\0' || !isfinite(v)) return -1;
    double tk = v / t->resolution;
    if (tk >= 9.2e18)
        *ticks = INT64_MAX;
    else if (tk <= -9.2e18)
        *ticks = INT64_MIN + 1;
    else
        *ticks = (int64_t)llround(tk);
    return 0;
}

static int kind_matches(const struct tlog_rec *x, const char *kind)
{
    if (strcasecmp(kind, flog_kind_name(x->r.kind)) == 0) return 1;
    if (x->has_msg && strcasecmp(kind, wire_type_name(x->msg.type)) == 0) return 1;
    if (x->r.kind == FLOG_K_DECISION) {
        static const char *const dn[] = {
            "", "GRANT", "DELIVER", "REG_ENABLED", "CON_ENABLED", "DISCARD", "REFUSED"};
        if (x->r.dec.kind < 7 && strcasecmp(kind, dn[x->r.dec.kind]) == 0) return 1;
    }
    return 0;
}

int tlog_match(const struct tlog *t, const struct tlog_filter *f, const struct tlog_rec *x)
{
    if (f->federate) {
        /* by name: every run of a log that holds several (each has its own handles) */
        uint32_t other = x->r.kind == FLOG_K_DECISION ? x->r.dec.sender : 0;
        char b1[32], b2[32];
        if (strcmp(tlog_fed_name(t, x->r.fed, b1, sizeof b1), f->federate) != 0 &&
            (!other || strcmp(tlog_fed_name(t, other, b2, sizeof b2), f->federate) != 0))
            return 0;
    }
    if (f->kind && !kind_matches(x, f->kind)) return 0;
    if (f->cls) {
        int ok = 0;
        if (t->fom) {
            fom_handle c = fom_class_find(t->fom, f->cls);
            fom_handle ic = fom_inter_find(t->fom, f->cls);
            if (c && x->cls && fom_class_is_a(t->fom, x->cls, c)) ok = 1;
            if (ic && x->inter && fom_inter_is_a(t->fom, x->inter, ic)) ok = 1;
        }
        if (!ok) return 0;
    }
    if (f->has_from || f->has_to) {
        if (x->ltime == TM_NO_TIME) return 0;
        if (f->has_from && x->ltime < f->from) return 0;
        if (f->has_to && x->ltime > f->to) return 0;
    }
    int64_t rel = x->r.wall_ns - t->hdr.start_wall_ns;
    if (f->has_wfrom && rel < f->wfrom) return 0;
    if (f->has_wto && rel > f->wto) return 0;
    return 1;
}

/* ---- values and descriptions --------------------------------------------------------------- */

static void hex(const uint8_t *p, uint32_t n, char *buf, size_t cap)
{
    size_t o = 0;
    buf[0] = '\0';
    for (uint32_t i = 0; i < n && o + 3 < cap; i++)
        o += (size_t)snprintf(buf + o, cap - o, "%02x", p[i]);
}

void tlog_value_text(const struct tlog *t, int param, uint32_t handle, const uint8_t *p, uint32_t n,
                     char *buf, size_t cap)
{
    enum fom_type ty = FOM_T_NONE;
    uint32_t alen = 0;
    if (t->fom) {
        ty = param ? fom_param_type(t->fom, handle) : fom_attr_type(t->fom, handle);
        alen = param ? fom_param_length(t->fom, handle) : fom_attr_length(t->fom, handle);
    }
    if (ty == FOM_T_NONE || !fom_value_ok(ty, alen, p, n) || ty == FOM_T_BYTES) {
        hex(p, n, buf, cap);
        return;
    }
    double d;
    int64_t i64;
    int32_t i32;
    switch (ty) {
    case FOM_T_FLOAT64:
        memcpy(&d, p, 8); /* little-endian hosts only, like the codec's users (doc/fom.md) */
        snprintf(buf, cap, "%.17g", d);
        return;
    case FOM_T_INT64:
        memcpy(&i64, p, 8);
        snprintf(buf, cap, "%" PRId64, i64);
        return;
    case FOM_T_INT32:
        memcpy(&i32, p, 4);
        snprintf(buf, cap, "%" PRId32, i32);
        return;
    case FOM_T_BOOLEAN:
        snprintf(buf, cap, "%u", p[0]);
        return;
    case FOM_T_STRING:
        snprintf(buf, cap, "%.*s", (int)(n > 200 ? 200 : n), (const char *)p);
        return;
    case FOM_T_FLOAT64_ARRAY: {
        size_t o = 0;
        buf[0] = '\0';
        for (uint32_t k = 0; k + 8 <= n && o + 2 < cap; k += 8) {
            memcpy(&d, p + k, 8);
            o += (size_t)snprintf(buf + o, cap - o, "%s%.17g", k ? " " : "", d);
        }
        return;
    }
    default:
        hex(p, n, buf, cap);
    }
}

static const char *decision_name(unsigned k)
{
    static const char *const dn[] = {"?",           "GRANT",   "DELIVER", "REG_ENABLED",
                                     "CON_ENABLED", "DISCARD", "REFUSED"};
    return k < 7 ? dn[k] : "?";
}

/* Append printf output to buf at *o, never past cap. */
static void addf(char *buf, size_t cap, size_t *o, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));
static void addf(char *buf, size_t cap, size_t *o, const char *fmt, ...)
{
    if (*o >= cap) return;
    va_list ap;
    va_start(ap, fmt);
    int w = vsnprintf(buf + *o, cap - *o, fmt, ap);
    va_end(ap);
    if (w > 0) *o = (size_t)w >= cap - *o ? cap : *o + (size_t)w;
}

static void add_time(const struct tlog *t, char *buf, size_t cap, size_t *o, const char *label,
                     int64_t v)
{
    if (v == TM_NO_TIME) return;
    if (v == INT64_MAX)
        addf(buf, cap, o, " %s=inf", label);
    else
        addf(buf, cap, o, " %s=%gs [%" PRId64 "]", label, tlog_secs(t, v), v); /* seconds first */
}

static void describe_msg(const struct tlog *t, const struct tlog_rec *x, char *buf, size_t cap,
                         size_t *o)
{
    *o = *o < cap ? *o : cap;
    const struct wire_msg *m = &x->msg;
    char nb[32];
    addf(buf, cap, o, "%s", wire_type_name(m->type));
    if (m->req) addf(buf, cap, o, " req=%u", m->req);
    if (m->type == WIRE_TIME_REQUEST || m->type == WIRE_TIME_GRANT) {
        addf(buf, cap, o, " %s", tm_req_name((tm_req)m->code));
        add_time(t, buf, cap, o, "t", m->time);
        return;
    }
    int objlike = x->cls && (m->type == WIRE_UPDATE || m->type == WIRE_REFLECT ||
                             m->type == WIRE_DELETE_OBJECT || m->type == WIRE_REMOVE_OBJECT ||
                             m->type == WIRE_DISCOVER || m->type == WIRE_PROVIDE_UPDATE);
    if (objlike) {
        const struct tlog_obj *ob = tlog_obj(t, m->a);
        addf(buf, cap, o, " object=%" PRIu64 "%s%s%s", m->a, ob && ob->name[0] ? "(" : "",
             ob && ob->name[0] ? ob->name : "", ob && ob->name[0] ? ")" : "");
        if (t->fom)
            addf(buf, cap, o, " class=%s",
                 fom_class_name(t->fom, x->cls) ? fom_class_name(t->fom, x->cls) : "?");
    } else if (x->inter && t->fom && fom_inter_name(t->fom, x->inter)) {
        addf(buf, cap, o, " interaction=%s", fom_inter_name(t->fom, x->inter));
    } else if (x->cls && t->fom && fom_class_name(t->fom, x->cls)) {
        addf(buf, cap, o, " class=%s", fom_class_name(t->fom, x->cls));
    } else {
        if (m->code) addf(buf, cap, o, " code=%u", m->code);
        if (m->a) addf(buf, cap, o, " a=%" PRIu64, m->a);
        if (m->b) addf(buf, cap, o, " b=%" PRIu64, m->b);
    }
    if (m->c && (m->type == WIRE_REFLECT || m->type == WIRE_RECEIVE_INTERACTION ||
                 m->type == WIRE_REMOVE_OBJECT))
        addf(buf, cap, o, " from=%s %s", tlog_fed_name(t, (uint32_t)m->c, nb, sizeof nb),
             m->code == WIRE_ORDER_TSO ? "TSO" : "RO");
    add_time(t, buf, cap, o, "t", m->time);
    if (m->time2 != WIRE_TIME_NONE) addf(buf, cap, o, " lookahead=%" PRId64, m->time2);
    for (int i = 0; i < WIRE_MAX_STRS; i++) {
        const struct wire_str *s = &m->str[i];
        /* FOM texts are not printed, secrets never: the note the writer put in the secret's
         * place, or "not shown" for a log written before (doc/log.md "Secrets"). */
        if (s->len && i == flog_secret_slot(m->type)) {
            addf(buf, cap, o, " secret=\"%s\"", flog_secret_text(s->ptr, s->len));
            continue;
        }
        if (!s->len || m->type == WIRE_JOIN || m->type == WIRE_CREATE_FEDERATION) {
            if (i == 1 && s->len && m->type == WIRE_JOIN)
                addf(buf, cap, o, " name=\"%.*s\"", (int)(s->len > 60 ? 60 : s->len), s->ptr);
            continue;
        }
        int printable = 1;
        for (uint32_t k = 0; k < s->len && k < 60; k++)
            if ((unsigned char)s->ptr[k] < 0x20) printable = 0;
        if (printable)
            addf(buf, cap, o, " str%d=\"%.*s\"", i, (int)(s->len > 60 ? 60 : s->len), s->ptr);
        else
            addf(buf, cap, o, " str%d=<%u bytes>", i, s->len);
    }
    struct wire_value_iter it;
    struct wire_value v;
    wire_value_iter_init(&it, m);
    int param = m->type == WIRE_SEND_INTERACTION || m->type == WIRE_RECEIVE_INTERACTION;
    while (m->type != WIRE_TIME_STATUS && wire_value_next(&it, &v)) {
        const char *nm = NULL;
        if (t->fom) nm = param ? fom_param_name(t->fom, v.handle) : fom_attr_name(t->fom, v.handle);
        char val[96];
        tlog_value_text(t, param, v.handle, v.data, v.len, val, sizeof val);
        if (nm)
            addf(buf, cap, o, " %s=%s", nm, val);
        else
            addf(buf, cap, o, " #%u=%s", v.handle, val);
    }
    if (m->nhandles) addf(buf, cap, o, " handles=%u", m->nhandles);
}

void tlog_describe(const struct tlog *t, const struct tlog_rec *x, char *buf, size_t cap)
{
    size_t o = 0;
    char nb[32], nb2[32];
    const struct flog_record *r = &x->r;
    buf[0] = '\0';
    addf(buf, cap, &o, "#%-6" PRIu64 " +%.6fs %-10s %-8s ", r->seq,
         (double)(r->wall_ns - t->hdr.start_wall_ns) / 1e9, tlog_fed_name(t, r->fed, nb, sizeof nb),
         flog_kind_name(r->kind));
    switch (r->kind) {
    case FLOG_K_RECV:
    case FLOG_K_SENT:
        if (x->has_msg)
            describe_msg(t, x, buf, cap, &o);
        else
            addf(buf, cap, &o, "undecodable frame (%u bytes): %s", r->payload_len, x->msg_err);
        break;
    case FLOG_K_JOINED:
    case FLOG_K_LOST:
    case FLOG_K_NOTE:
        addf(buf, cap, &o, "%.*s", (int)(r->payload_len > 300 ? 300 : r->payload_len),
             (const char *)r->payload);
        break;
    case FLOG_K_DECISION:
        addf(buf, cap, &o, "%s", decision_name(r->dec.kind));
        if (r->dec.kind == TM_D_GRANT) addf(buf, cap, &o, " %s", tm_req_name((tm_req)r->dec.req));
        add_time(t, buf, cap, &o, "t", r->dec.time);
        if (r->dec.kind == TM_D_DELIVER || r->dec.kind == TM_D_DISCARD)
            addf(buf, cap, &o, " from=%s seq=%" PRIu64 " %s",
                 tlog_fed_name(t, r->dec.sender, nb2, sizeof nb2), r->dec.seq,
                 r->dec.tso ? "TSO" : "RO");
        if (r->dec.reason_len)
            addf(buf, cap, &o, ": %.*s", (int)(r->dec.reason_len > 300 ? 300 : r->dec.reason_len),
                 r->dec.reason);
        break;
    case FLOG_K_TM_SEND:
        add_time(t, buf, cap, &o, "ts", r->send.ts);
        addf(buf, cap, &o, " token=%" PRIu64 " to", r->send.token);
        for (uint32_t i = 0; i < r->send.n && i < 16; i++)
            addf(buf, cap, &o, " %s",
                 tlog_fed_name(t, flog_tm_send_receiver(&r->send, i), nb2, sizeof nb2));
        if (r->send.n > 16) addf(buf, cap, &o, " ... (%u)", r->send.n);
        break;
    default:
        break;
    }
}

void tlog_describe_msg(const struct tlog *t, const struct tlog_rec *x, char *buf, size_t cap)
{
    size_t o = 0;
    buf[0] = '\0';
    if (x->has_msg)
        describe_msg(t, x, buf, cap, &o);
    else
        snprintf(buf, cap, "undecodable frame: %s", x->msg_err);
}

/* ---- times in seconds, the end of the log, runs ------------------------------------------ */

const char *tlog_sfmt(const struct tlog *t, int64_t ticks, char *buf, size_t cap)
{
    if (ticks == TM_TIME_MAX)
        snprintf(buf, cap, "inf");
    else if (ticks == TM_NO_TIME)
        snprintf(buf, cap, "none");
    else
        snprintf(buf, cap, "%.9g s", tlog_secs(t, ticks));
    return buf;
}

const char *tlog_tfmt(const struct tlog *t, int64_t ticks, char *buf, size_t cap)
{
    if (ticks == TM_TIME_MAX || ticks == TM_NO_TIME) return tlog_sfmt(t, ticks, buf, cap);
    snprintf(buf, cap, "%.9g s [%" PRId64 "]", tlog_secs(t, ticks), ticks);
    return buf;
}

void tlog_report_end(const struct tlog *t, FILE *out)
{
    if (t->closed) return;
    struct timespec now;
    clock_gettime(CLOCK_REALTIME, &now);
    int64_t age = (int64_t)now.tv_sec * 1000000000 + now.tv_nsec - t->last_wall_ns;
    time_t sec = (time_t)(t->last_wall_ns / 1000000000);
    struct tm tmv;
    char when[40] = "?";
    if (gmtime_r(&sec, &tmv)) strftime(when, sizeof when, "%Y-%m-%d %H:%M:%S", &tmv);
    double rel = (double)(t->last_wall_ns - t->hdr.start_wall_ns) / 1e9;
    /* A running RTI writes a record at least every FLOG_ALIVE_NS (its "rti alive" note), so a
     * log quiet for twice that without the closing record was left by an RTI that stopped. */
    if (age < 2 * (int64_t)FLOG_ALIVE_NS && !t->cut)
        fprintf(out,
                "the log has no closing record yet: the RTI still runs (its last record, at "
                "+%.6f s, is %.3f s old)\n",
                rel, (double)age / 1e9);
    else
        fprintf(out,
                "the log ends without the RTI's closing record: the RTI stopped abruptly "
                "(killed or crashed%s) at about %s.%06ld UTC, +%.6f s after the log began "
                "(its last record, %.1f s ago)\n",
                t->cut ? ", the log is cut" : "", when,
                (long)((t->last_wall_ns % 1000000000) / 1000), rel, (double)age / 1e9);
}

int tlog_select_run(struct tlog *t, uint32_t want, FILE *note)
{
    t->run_sel = 0;
    if (want > t->n_runs || (want && t->n_runs == 0)) {
        fprintf(stderr, "tempo-log: --run %u: the log holds %u run%s\n", want, t->n_runs,
                t->n_runs == 1 ? "" : "s");
        return -1;
    }
    if (t->n_runs <= 1) return 0;
    if (t->handle_sel && t->handle_sel < t->names_cap && t->run_of[t->handle_sel]) {
        t->run_sel = t->run_of[t->handle_sel];
        if (want && want != t->run_sel) {
            fprintf(stderr, "tempo-log: --handle %u belongs to run %u, not run %u\n", t->handle_sel,
                    t->run_sel, want);
            return -1;
        }
        return 0;
    }
    t->run_sel = want ? want : t->n_runs;
    if (!want) {
        const struct tlog_run *r = &t->runs[t->run_sel - 1];
        fprintf(note,
                "tempo-log: note: the log holds %u runs of the federation (its federates joined "
                "anew after all had left); reading the last, run %u (records #%" PRIu64
                "..#%" PRIu64 ", %u federates); choose one with --run N\n",
                t->n_runs, t->run_sel, r->first, r->last, r->feds);
    }
    return 0;
}

int tlog_in_run(const struct tlog *t, uint64_t seq)
{
    if (!t->run_sel) return 1;
    const struct tlog_run *r = &t->runs[t->run_sel - 1];
    /* records before the first run (none normally) belong to the first */
    uint64_t lo = t->run_sel == 1 ? 0 : r->first;
    uint64_t hi = t->run_sel == t->n_runs ? UINT64_MAX : t->runs[t->run_sel].first - 1;
    return seq >= lo && seq <= hi;
}
