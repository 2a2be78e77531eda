/* The live view's data: one sample per federate each second, and the state of the RTI as JSON
 * (the /api/state body and each /api/stream event). The wait-for edges and the federate to
 * look at come from the engine's rule (tm_waits_for, tm_wait_root: rti/tm/tm_wait.c), the
 * one `tempo-log explain` follows. Serves doc/live.md (every field). Read rti/server/live.c
 * first. */
#include "rti/server/live_impl.h"

#include "rti/tm/tm.h"

#include <event2/buffer.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define LIVE_EDGES_MAX 16 /* edges drawn out of one federate */

void live_sample(struct live *lv)
{
    for (struct federation *fx = lv->s->feds; fx; fx = fx->next) {
        for (uint32_t i = 0; i < fx->slot_cap; i++) {
            struct federate *f = fx->slots[i];
            if (!f) continue;
            if (!f->hist && !(f->hist = calloc(1, sizeof *f->hist))) continue;
            tm_status st;
            int64_t t = f->last_req;
            if (t < 0 && fx->tm && tm_query(fx->tm, f->handle, &st, NULL, 0) == TM_OK) t = st.time;
            struct live_hist *h = f->hist;
            h->asked[h->head] = t < 0 ? 0 : t;
            h->frames[h->head] = f->frames_in;
            h->progress[h->head] = f->progress;
            h->head = (h->head + 1) % LIVE_SAMPLES;
            if (h->n < LIVE_SAMPLES) h->n++;
        }
    }
}

/* ---- JSON writing ---------------------------------------------------------------------------- */

/* A JSON string: quotes, backslashes and control characters escaped, and '<' too, so that
 * the text is also safe inside HTML. */
static void js_str(struct evbuffer *o, const char *s)
{
    evbuffer_add(o, "\"", 1);
    for (const unsigned char *p = (const unsigned char *)s; *p; p++) {
        if (*p == '"' || *p == '\\')
            evbuffer_add_printf(o, "\\%c", *p);
        else if (*p < 0x20 || *p == '<' || *p == 0x7f)
            evbuffer_add_printf(o, "\\u%04x", *p);
        else
            evbuffer_add(o, p, 1);
    }
    evbuffer_add(o, "\"", 1);
}

/* Seconds of logical time, or null for "none" (TM_TIME_MAX / TM_NO_TIME). */
static void js_secs(struct evbuffer *o, int64_t ticks, double spt)
{
    if (ticks == TM_TIME_MAX || ticks == TM_NO_TIME || ticks < 0)
        evbuffer_add_printf(o, "null");
    else
        evbuffer_add_printf(o, "%.9g", (double)ticks * spt);
}

static const char *tf(int b)
{
    return b ? "true" : "false";
}

static const char *fed_name(struct federation *fx, tm_fed h)
{
    struct federate *f = federation_federate(fx, h);
    return f ? f->name : "?";
}

/* The sample i steps back from the newest (0 = newest). */
static uint32_t ring_at(const struct live_hist *h, uint32_t back)
{
    return (h->head + LIVE_SAMPLES - 1 - back) % LIVE_SAMPLES;
}

/* Samples since this federate last progressed (a delivery to it, or a grant that advanced its
 * time: federate.progress), capped by the samples held. */
static uint32_t idle_samples(const struct live_hist *h)
{
    if (!h || h->n == 0) return 0;
    uint64_t last = h->progress[ring_at(h, 0)];
    uint32_t k = 1;
    while (k < h->n && h->progress[ring_at(h, k)] == last)
        k++;
    return k - 1;
}

/* "rate": logical seconds per wall second of the time it asks for, "msgs": frames per second,
 * oldest first. */
static void js_hist(struct evbuffer *o, const struct live_hist *h, double spt)
{
    uint32_t n = h ? h->n : 0;
    evbuffer_add_printf(o, ",\"rate\":[");
    for (uint32_t k = n > 1 ? n - 1 : 0; k-- > 0;) {
        int64_t d = h->asked[ring_at(h, k)] - h->asked[ring_at(h, k + 1)];
        evbuffer_add_printf(o, "%s%.6g", k == n - 2 ? "" : ",",
                            (double)d * spt * 1000.0 / LIVE_SAMPLE_MS);
    }
    evbuffer_add_printf(o, "],\"msgs\":[");
    for (uint32_t k = n > 1 ? n - 1 : 0; k-- > 0;) {
        uint64_t d = h->frames[ring_at(h, k)] - h->frames[ring_at(h, k + 1)];
        evbuffer_add_printf(o, "%s%.6g", k == n - 2 ? "" : ",",
                            (double)d * 1000.0 / LIVE_SAMPLE_MS);
    }
    evbuffer_add_printf(o, "]");
}

static void js_federate(struct evbuffer *o, struct federation *fx, const tm_status *s, double spt)
{
    struct federate *f = federation_federate(fx, s->fed);
    evbuffer_add_printf(o, "{\"handle\":%" PRIu64 ",\"name\":", (uint64_t)s->fed);
    js_str(o, f ? f->name : s->name);
    evbuffer_add_printf(o, ",\"host\":");
    js_str(o, f && f->conn ? f->conn->addr : "");
    evbuffer_add_printf(o, ",\"time\":%" PRId64 ",\"time_s\":", (int64_t)s->time);
    js_secs(o, s->time, spt);
    evbuffer_add_printf(o, ",\"asked_s\":");
    js_secs(o, f && f->last_req >= 0 ? f->last_req : TM_NO_TIME, spt);
    evbuffer_add_printf(o, ",\"request\":");
    if (s->req)
        js_str(o, tm_req_name(s->req));
    else
        evbuffer_add_printf(o, "null");
    evbuffer_add_printf(o, ",\"request_time_s\":");
    js_secs(o, s->req ? s->req_time : TM_NO_TIME, spt);
    evbuffer_add_printf(o, ",\"lookahead_s\":");
    js_secs(o, s->regulating ? s->lookahead : TM_NO_TIME, spt);
    evbuffer_add_printf(o, ",\"regulating\":%s,\"constrained\":%s,\"constrained_pending\":%s",
                        tf(s->regulating), tf(s->constrained), tf(s->constrained_pending));
    evbuffer_add_printf(o, ",\"galt_s\":");
    js_secs(o, s->galt.t, spt);
    evbuffer_add_printf(o, ",\"queued\":%zu,\"waits\":%s,\"stalled\":%s,\"polls\":%" PRIu32,
                        s->queued, tf(tm_waits(s)), tf(s->stalled), s->polls);
    tm_fed w[LIVE_EDGES_MAX];
    size_t nw = tm_waits_for(fx->tm, s, w, LIVE_EDGES_MAX);
    evbuffer_add_printf(o, ",\"waits_for\":[");
    for (size_t i = 0; i < nw && i < LIVE_EDGES_MAX; i++) {
        if (i) evbuffer_add(o, ",", 1);
        js_str(o, fed_name(fx, w[i]));
    }
    evbuffer_add_printf(o,
                        "],\"frames_in\":%" PRIu64 ",\"progress\":%" PRIu64 ",\"idle_s\":%" PRIu32,
                        f ? f->frames_in : 0, f ? f->progress : 0, f ? idle_samples(f->hist) : 0);
    js_hist(o, f ? f->hist : NULL, spt);
    evbuffer_add(o, "}", 1);
}

/* The federate to look at (tm_look_at, the rule the status dump uses too); *cycle when a
 * waiting federate's chain closes on itself instead. */
static tm_fed look_at(struct federation *fx, const tm_status *v, size_t n, int *cycle)
{
    bool cyc = false;
    tm_fed r = tm_look_at(fx->tm, v, n, NULL, &cyc);
    *cycle = cyc;
    return r;
}

static void js_federation(struct evbuffer *o, struct federation *fx)
{
    double spt = strtod(fx->resolution, NULL);
    size_t n = fx->tm ? tm_count(fx->tm) : 0;
    tm_status *v = n ? calloc(n, sizeof *v) : NULL;
    if (!v) n = 0;
    if (n) n = tm_status_all(fx->tm, v, n);
    evbuffer_add_printf(o, "{\"name\":");
    js_str(o, fx->name);
    evbuffer_add_printf(o, ",\"seconds_per_tick\":");
    js_str(o, fx->resolution);
    evbuffer_add_printf(o, ",\"log\":");
    if (fx->flog_path[0])
        js_str(o, fx->flog_path);
    else
        evbuffer_add_printf(o, "null");
    evbuffer_add_printf(o, ",\"objects\":%" PRIu32 ",\"federates\":[", fx->n_objects);
    int waiting = 0;
    uint32_t idle = UINT32_MAX;
    for (size_t i = 0; i < n; i++) {
        waiting |= tm_waits(&v[i]);
        struct federate *f = federation_federate(fx, v[i].fed);
        uint32_t is = f ? idle_samples(f->hist) : 0;
        if (is < idle) idle = is;
    }
    int cycle = 0;
    tm_fed la = waiting ? look_at(fx, v, n, &cycle) : TM_NO_FED;
    /* The first LIVE_FEDERATES_SHOWN federates in handle order, and the one to look at when
     * it comes later: the reply stays bounded however many federates joined. */
    size_t shown = 0;
    for (size_t i = 0; i < n; i++) {
        if (shown >= LIVE_FEDERATES_SHOWN && v[i].fed != la) continue;
        if (shown++) evbuffer_add(o, ",", 1);
        js_federate(o, fx, &v[i], spt);
    }
    int stalled = waiting && n > 0 && idle >= LIVE_STALL_S;
    evbuffer_add_printf(o,
                        "],\"federates_total\":%zu,\"federates_truncated\":%s,\"waiting\":%s,"
                        "\"stalled\":%s,\"idle_s\":%" PRIu32 ",\"cycle\":%s",
                        n, tf(shown < n), tf(waiting), tf(stalled), n ? idle : 0, tf(cycle));
    evbuffer_add_printf(o, ",\"look_at\":");
    if (la != TM_NO_FED)
        js_str(o, fed_name(fx, la));
    else
        evbuffer_add_printf(o, "null");
    evbuffer_add_printf(o, ",\"sync_points\":[");
    for (struct syncpt *p = fx->syncs; p; p = p->next) {
        uint32_t done = 0;
        for (uint32_t i = 0; i < p->n; i++)
            done += p->achieved[i] ? 1 : 0;
        evbuffer_add_printf(o, "%s{\"label\":", p == fx->syncs ? "" : ",");
        js_str(o, p->label);
        evbuffer_add_printf(o, ",\"all\":%s,\"members\":%" PRIu32 ",\"achieved\":%" PRIu32 "}",
                            tf(p->all), p->n, done);
    }
    evbuffer_add_printf(o, "]}");
    free(v);
}

void live_json_state(struct live *lv, struct evbuffer *o)
{
    struct server *s = lv->s;
    const struct server_config *c = &s->cfg;
    evbuffer_add_printf(o, "{\"version\":");
    js_str(o, TEMPO_VERSION);
    evbuffer_add_printf(o, ",\"pid\":%ld,\"uptime_s\":%.3f,\"rti\":", (long)getpid(),
                        (double)(limits_now_ms() - s->started_ms) / 1000.0);
    js_str(o, s->address);
    evbuffer_add_printf(o, ",\"unix\":");
    if (c->unix_path)
        js_str(o, c->unix_path);
    else
        evbuffer_add_printf(o, "null");
    evbuffer_add_printf(o, ",\"http\":");
    js_str(o, lv->address);
    evbuffer_add_printf(o,
                        ",\"connections\":%zu,\"http_connections\":%zu,\"http_streams\":%zu,"
                        "\"http_refused\":%" PRIu64 ",\"http_dropped\":%" PRIu64
                        ",\"http_timeouts\":%" PRIu64 ",\"frames_in\":%" PRIu64
                        ",\"frames_out\":%" PRIu64 ",\"sample_ms\":%d",
                        s->hub.n_conns, lv->n_conns, lv->n_streams, lv->n_refused, lv->n_dropped,
                        lv->n_timeouts, s->frames_in, s->frames_out, LIVE_SAMPLE_MS);
    evbuffer_add_printf(o,
                        ",\"limits\":{\"max_connections\":%zu,\"max_federates\":%" PRIu32
                        ",\"max_federations\":%" PRIu32 ",\"max_frame\":%zu,\"max_queued\":%zu"
                        ",\"max_total_queued\":%zu,\"max_fom_bytes\":%zu,\"secret\":%s"
                        ",\"http_max_connections\":%d,\"http_max_head\":%d"
                        ",\"http_max_queued\":%u,\"http_read_ms\":%d,\"http_write_ms\":%d}",
                        s->hub.lim.max_conns, c->max_federates, c->max_federations,
                        s->hub.lim.max_frame, s->hub.lim.max_queued, s->hub.lim.max_total_queued,
                        c->max_fom_bytes, tf(c->secret && c->secret[0]), LIVE_MAX_CONNS,
                        LIVE_HEAD_MAX, LIVE_OUT_MAX, LIVE_READ_MS, LIVE_WRITE_MS);
    evbuffer_add_printf(o, ",\"federations\":[");
    /* Federations are listed oldest first while the text stays under LIVE_STATE_MAX; the rest
     * are counted (federations_total) and the reply says it was cut (truncated). */
    size_t total = 0, listed = 0, start = evbuffer_get_length(o);
    for (struct federation *fx = s->feds; fx; fx = fx->next)
        total++;
    struct federation **order = total ? malloc(total * sizeof *order) : NULL;
    size_t k = total;
    for (struct federation *fx = s->feds; order && fx; fx = fx->next)
        order[--k] = fx; /* s->feds holds the newest first */
    for (size_t i = 0; order && i < total; i++) {
        if (evbuffer_get_length(o) - start >= LIVE_STATE_MAX) break;
        if (listed++) evbuffer_add(o, ",", 1);
        js_federation(o, order[i]);
    }
    free(order);
    evbuffer_add_printf(o, "],\"federations_total\":%zu,\"truncated\":%s}", total,
                        tf(listed < total));
}
