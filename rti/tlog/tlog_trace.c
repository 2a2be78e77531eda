/* tempo-log trace: a Chrome trace-event JSON file (the "JSON Object Format" that Perfetto
 * and chrome://tracing open), doc/log.md. One process (the federation), one track (tid)
 * per federate plus tid 0 for the RTI; "X" spans for the wall time each federate waits for
 * a grant (a run of polls without progress, the engine's rule, is one span from its first poll
 * to the progress); "i" instant events for every message and decision; flow events "s"/"f" from
 * each UPDATE / SEND_INTERACTION / DELETE_OBJECT to the REFLECT / RECEIVE_INTERACTION /
 * REMOVE_OBJECT that delivers it. Times are microseconds since the log started. Each event
 * is serialised by jansson, so every string is escaped correctly. Read rti/tlog/tlog_util.c. */
#include <inttypes.h>
#include <jansson.h>
#include <stdlib.h>
#include <string.h>

#include "rti/tlog/tlog_impl.h"

#define SEND_RING 4096 /* sends remembered for flow matching; older ones get no arrow */

/* A message send waiting for its deliveries. */
struct send_rec {
    uint32_t sender; /* federate */
    uint16_t group;  /* the delivery type it becomes (REFLECT, RECEIVE_INTERACTION, ...) */
    uint64_t a;      /* object or interaction class */
    int64_t time;    /* time stamp or WIRE_TIME_NONE */
    double ts;       /* µs since start */
    int used;        /* slot holds a send */
};

struct trace {
    const struct tlog *t;
    const struct tlog_filter *f; /* --federate, --from, --to */
    uint32_t only;               /* the handle --federate names (UINT32_MAX: none), 0 all */
    FILE *out;
    uint64_t events;       /* written so far (for the separator) */
    struct send_rec *ring; /* SEND_RING entries */
    uint32_t next;         /* next ring slot */
    int64_t *wait_since;   /* [fed]: wall ns of the open request, -1 none */
    uint32_t *wait_kind;   /* [fed]: its request kind */
    int64_t *wait_time;    /* [fed]: its requested time (the first poll's, in a run) */
    int64_t *last_grant;   /* [fed]: ticks of its last grant, 0 before one (T at join) */
    uint32_t *polls;       /* [fed]: grants in the open run that left it without progress */
    uint8_t *flags;        /* [fed]: WF_GOT | WF_PENDING */
    uint32_t cap;          /* entries of the arrays */
};

#define WF_GOT     1 /* a message was delivered to it since its last grant */
#define WF_PENDING 2 /* its request is not granted yet */

static void emit(struct trace *tr, json_t *ev)
{
    char *s = json_dumps(ev, JSON_COMPACT | JSON_ENSURE_ASCII);
    json_decref(ev);
    if (!s) return;
    fprintf(tr->out, "%s%s", tr->events ? ",\n" : "\n", s);
    free(s);
    tr->events++;
}

/* Make text valid for JSON strings: jansson refuses invalid UTF-8, and names or values taken
 * from the log may hold any bytes. Bytes of an invalid sequence become '?'. In place. */
static char *utf8_clean(char *s)
{
    unsigned char *p = (unsigned char *)s;
    while (*p) {
        int n = *p < 0x80 ? 1 : (*p >> 5) == 6 ? 2 : (*p >> 4) == 14 ? 3 : (*p >> 3) == 30 ? 4 : 0;
        int ok = n > 0;
        for (int k = 1; ok && k < n; k++)
            ok = (p[k] >> 6) == 2;
        if (ok && n > 1) { /* let jansson judge overlong forms and surrogates */
            json_t *j = json_stringn((const char *)p, (size_t)n);
            ok = j != NULL;
            json_decref(j);
        }
        if (!ok) {
            *p++ = '?';
            continue;
        }
        p += n;
    }
    return s;
}

static double usec(const struct tlog *t, int64_t wall_ns)
{
    return (double)(wall_ns - t->hdr.start_wall_ns) / 1e3;
}

static int grow(struct trace *tr, uint32_t h)
{
    if (h < tr->cap) return 0;
    if (h >= TLOG_MAX_HANDLE) return -1;
    uint32_t nc = tr->cap ? tr->cap : 16;
    while (nc <= h)
        nc *= 2;
    int64_t *a = realloc(tr->wait_since, nc * sizeof *a);
    if (!a) return -1;
    tr->wait_since = a;
    uint32_t *k = realloc(tr->wait_kind, nc * sizeof *k);
    if (!k) return -1;
    tr->wait_kind = k;
    int64_t *w = realloc(tr->wait_time, nc * sizeof *w);
    if (!w) return -1;
    tr->wait_time = w;
    int64_t *g = realloc(tr->last_grant, nc * sizeof *g);
    if (!g) return -1;
    tr->last_grant = g;
    uint32_t *p = realloc(tr->polls, nc * sizeof *p);
    if (!p) return -1;
    tr->polls = p;
    uint8_t *fl = realloc(tr->flags, nc * sizeof *fl);
    if (!fl) return -1;
    tr->flags = fl;
    for (uint32_t i = tr->cap; i < nc; i++) {
        tr->wait_since[i] = -1, tr->wait_kind[i] = 0, tr->wait_time[i] = 0;
        tr->last_grant[i] = 0, tr->polls[i] = 0, tr->flags[i] = 0;
    }
    tr->cap = nc;
    return 0;
}

static json_t *ltime_json(int64_t v)
{
    return v == TM_NO_TIME ? json_null() : json_integer(v);
}

static void wait_span(struct trace *tr, uint32_t fed, int64_t end_ns, int64_t granted, int open)
{
    char name[96], tb[40];
    const struct tlog_filter *f = tr->f;
    int64_t asked = tr->wait_time[fed];
    if ((f->has_from && asked < f->from) || (f->has_to && asked > f->to)) return;
    if (tr->only && fed != tr->only) return;
    /* seconds in the name (what a reader scans); ticks in args */
    uint32_t polls = tr->polls[fed];
    const char *end = !open                         ? ""
                      : tr->flags[fed] & WF_PENDING ? " STILL PENDING at end of log"
                                                    : " POLLING WITHOUT PROGRESS at end of log";
    char np[32] = "";
    if (polls) snprintf(np, sizeof np, " x%" PRIu32 " polls", polls + (open ? 0 : 1));
    snprintf(name, sizeof name, "wait %s(%s)%s%s", tm_req_name((tm_req)tr->wait_kind[fed]),
             tlog_sfmt(tr->t, asked, tb, sizeof tb), np, end);
    double ts = usec(tr->t, tr->wait_since[fed]), dur = usec(tr->t, end_ns) - ts;
    json_t *args = json_pack("{s:I,s:f}", "requested", (json_int_t)tr->wait_time[fed],
                             "requested_s", tlog_secs(tr->t, tr->wait_time[fed]));
    json_object_set_new(args, "duration_s", json_real(dur < 0 ? 0.0 : dur / 1e6));
    /* the requests of the run: its polls granted without progress, and the one that made it */
    json_object_set_new(args, "polls", json_integer((json_int_t)polls + (open ? 0 : 1)));
    if (open)
        json_object_set_new(args, "pending_at_end_of_log", json_true());
    else
        json_object_set_new(args, "granted", ltime_json(granted));
    json_t *ev =
        json_pack("{s:s,s:s,s:s,s:f,s:f,s:i,s:I,s:o}", "name", name, "cat", "wait", "ph", "X", "ts",
                  ts, "dur", dur < 0 ? 0.0 : dur, "pid", 1, "tid", (json_int_t)fed, "args", args);
    if (open) json_object_set_new(ev, "cname", json_string("terrible")); /* drawn red */
    emit(tr, ev);
}

static uint16_t delivery_of(uint16_t send_type)
{
    switch (send_type) {
    case WIRE_UPDATE:
        return WIRE_REFLECT;
    case WIRE_SEND_INTERACTION:
        return WIRE_RECEIVE_INTERACTION;
    case WIRE_DELETE_OBJECT:
        return WIRE_REMOVE_OBJECT;
    default:
        return 0;
    }
}

/* Flows: remember sends; on a delivery, find the latest matching send and draw the arrow. */
static void flows(struct trace *tr, const struct tlog_rec *x, double ts)
{
    const struct wire_msg *m = &x->msg;
    if (x->r.kind == FLOG_K_RECV && delivery_of(m->type)) {
        struct send_rec *s = &tr->ring[tr->next];
        tr->next = (tr->next + 1) % SEND_RING;
        *s = (struct send_rec){x->r.fed, delivery_of(m->type), m->a, m->time, ts, 1};
        return;
    }
    if (x->r.kind != FLOG_K_SENT || (m->type != WIRE_REFLECT && m->type != WIRE_REMOVE_OBJECT &&
                                     m->type != WIRE_RECEIVE_INTERACTION))
        return;
    for (uint32_t i = 0; i < SEND_RING; i++) {
        const struct send_rec *s = &tr->ring[(tr->next + SEND_RING - 1 - i) % SEND_RING];
        if (!s->used) break;
        if (s->group != m->type || s->sender != m->c || s->a != m->a || s->time != m->time)
            continue;
        json_int_t id = (json_int_t)x->r.seq; /* one arrow per delivery record */
        emit(tr, json_pack("{s:s,s:s,s:s,s:I,s:f,s:i,s:I,s:s}", "name", "message", "cat", "flow",
                           "ph", "s", "id", id, "ts", s->ts, "pid", 1, "tid", (json_int_t)s->sender,
                           "bp", "e"));
        emit(tr,
             json_pack("{s:s,s:s,s:s,s:I,s:f,s:i,s:I,s:s}", "name", "message", "cat", "flow", "ph",
                       "f", "id", id, "ts", ts, "pid", 1, "tid", (json_int_t)x->r.fed, "bp", "e"));
        return;
    }
}

static void instant(struct trace *tr, const struct tlog_rec *x, double ts)
{
    char line[512], name[64];
    const struct flog_record *r = &x->r;
    tlog_describe(tr->t, x, line, sizeof line);
    const char *cat = r->kind == FLOG_K_RECV                                    ? "request"
                      : r->kind == FLOG_K_SENT                                  ? "callback"
                      : r->kind == FLOG_K_DECISION || r->kind == FLOG_K_TM_SEND ? "tm"
                                                                                : "federation";
    if (x->has_msg)
        snprintf(name, sizeof name, "%s %s", r->kind == FLOG_K_RECV ? "->" : "<-",
                 wire_type_name(x->msg.type));
    else if (r->kind == FLOG_K_DECISION) {
        static const char *const dn[] = {"?",           "GRANT",   "DELIVER", "REG_ENABLED",
                                         "CON_ENABLED", "DISCARD", "REFUSED"};
        snprintf(name, sizeof name, "tm %s", r->dec.kind < 7 ? dn[r->dec.kind] : "?");
    } else
        snprintf(name, sizeof name, "%s", flog_kind_name(r->kind));
    json_t *args = json_pack("{s:I,s:o,s:s}", "seq", (json_int_t)r->seq, "ltime",
                             ltime_json(x->ltime), "what", utf8_clean(line));
    emit(tr, json_pack("{s:s,s:s,s:s,s:s,s:f,s:i,s:I,s:o}", "name", name, "cat", cat, "ph", "i",
                       "s", "t", "ts", ts, "pid", 1, "tid", (json_int_t)r->fed, "args", args));
}

int tlog_trace(struct tlog *t, const struct tlog_filter *f, FILE *out)
{
    struct trace tr = {.t = t, .f = f, .out = out};
    if (f->federate && !(tr.only = tlog_fed_find(t, f->federate))) tr.only = UINT32_MAX;
    tr.ring = calloc(SEND_RING, sizeof *tr.ring);
    if (!tr.ring) {
        fprintf(stderr, "tempo-log: out of memory\n");
        return 1;
    }
    fprintf(out, "{\"displayTimeUnit\":\"ms\",\"traceEvents\":[");
    char fname[160], nb[32];
    snprintf(fname, sizeof fname, "federation %.*s",
             (int)(t->hdr.federation_len > 120 ? 120 : t->hdr.federation_len), t->hdr.federation);
    emit(&tr, json_pack("{s:s,s:s,s:i,s:i,s:{s:s}}", "name", "process_name", "ph", "M", "pid", 1,
                        "tid", 0, "args", "name", utf8_clean(fname)));
    emit(&tr, json_pack("{s:s,s:s,s:i,s:i,s:{s:s}}", "name", "thread_name", "ph", "M", "pid", 1,
                        "tid", 0, "args", "name", "RTI"));
    for (uint32_t h = 1; h < t->names_cap; h++) {
        if (!t->names[h][0] || (tr.only && h != tr.only)) continue;
        char nm[TLOG_NAME_MAX];
        snprintf(nm, sizeof nm, "%s", tlog_fed_name(t, h, nb, sizeof nb));
        emit(&tr, json_pack("{s:s,s:s,s:i,s:I,s:{s:s}}", "name", "thread_name", "ph", "M", "pid", 1,
                            "tid", (json_int_t)h, "args", "name", utf8_clean(nm)));
    }
    struct flog_reader r;
    struct tlog_rec x;
    tlog_rewind(t, &r);
    while (tlog_next(t, &r, &x)) {
        double ts = usec(t, x.r.wall_ns);
        uint32_t fed = x.r.fed;
        if (x.has_msg && fed && grow(&tr, fed) == 0) {
            if (x.r.kind == FLOG_K_RECV && x.msg.type == WIRE_TIME_REQUEST) {
                tr.flags[fed] |= WF_PENDING;
                if (tr.wait_since[fed] < 0) { /* else a poll inside an open run: an instant */
                    tr.wait_since[fed] = x.r.wall_ns;
                    tr.wait_kind[fed] = x.msg.code;
                    tr.wait_time[fed] = x.msg.time;
                }
            } else if (x.r.kind == FLOG_K_SENT && x.msg.type == WIRE_TIME_GRANT) {
                /* Progress as the engine counts it (rti/tm/tm.h, tm_status.polls): a later time,
                 * or a message delivered since the last grant. Without it the run goes on. */
                int progress = x.msg.time > tr.last_grant[fed] || (tr.flags[fed] & WF_GOT);
                tr.flags[fed] &= (uint8_t) ~(WF_GOT | WF_PENDING);
                tr.last_grant[fed] = x.msg.time;
                if (tr.wait_since[fed] >= 0 && progress) {
                    wait_span(&tr, fed, x.r.wall_ns, x.msg.time, 0);
                    tr.wait_since[fed] = -1;
                    tr.polls[fed] = 0;
                } else if (tr.wait_since[fed] >= 0) {
                    tr.polls[fed]++;
                }
            }
        } else if (x.r.kind == FLOG_K_DECISION && x.r.dec.kind == TM_D_DELIVER && fed &&
                   grow(&tr, fed) == 0) {
            tr.flags[fed] |= WF_GOT;
        }
        if (!tlog_match(t, f, &x)) continue; /* spans are filtered in wait_span */
        instant(&tr, &x, ts);
        if (x.has_msg) flows(&tr, &x, ts);
    }
    for (uint32_t h = 1; h < tr.cap; h++)
        if (tr.wait_since[h] >= 0) wait_span(&tr, h, t->last_wall_ns, TM_NO_TIME, 1);
    json_t *other = json_pack("{s:I,s:b}", "records", (json_int_t)t->records, "cut", t->cut != 0);
    char cut[sizeof t->cut_msg];
    snprintf(cut, sizeof cut, "%s", t->cut_msg);
    if (t->cut) json_object_set_new(other, "cut_reason", json_string(utf8_clean(cut)));
    char *os = json_dumps(other, JSON_COMPACT | JSON_ENSURE_ASCII);
    json_decref(other);
    fprintf(out, "\n],\"otherData\":%s}\n", os ? os : "{}");
    free(os);
    free(tr.ring);
    free(tr.wait_since);
    free(tr.wait_kind);
    free(tr.wait_time);
    free(tr.last_grant);
    free(tr.polls);
    free(tr.flags);
    return 0;
}
