/* libtempo dispatch: tp_evoke() decodes queued frames and runs the user's callbacks
 * (the HLA "evoked" model, doc/protocol.md). One handler per RTI→client message type, chosen by
 * one switch. Read federate/libtempo/client_om.c next (object services and the object table).
 *
 * Cost: per frame one wire_decode, one copy of the frame (so that callback arguments survive
 * a callback that makes the input buffer grow), and no allocation once the scratch arrays
 * have grown to the largest message seen. */
#include <stdlib.h>
#include <string.h>

#include "federate/libtempo/client_impl.h"

int tpi_scratch(tp_federate *f, uint32_t n)
{
    if (n <= f->scratch_cap) return TP_OK;
    uint32_t cap = f->scratch_cap ? f->scratch_cap : 16;
    while (cap < n)
        cap = cap > UINT32_MAX / 2 ? n : cap * 2;
    struct wire_value *wv = realloc(f->wv, cap * sizeof *wv);
    if (wv) f->wv = wv;
    tp_value *tv = realloc(f->tv, cap * sizeof *tv);
    if (tv) f->tv = tv;
    tp_handle *th = realloc(f->th, cap * sizeof *th);
    if (th) f->th = th;
    if (!wv || !tv || !th)
        return tpi_fail(f, TP_ENOMEM, "federate \"%s\": scratch arrays cannot grow to %u", f->name,
                        n);
    f->scratch_cap = cap;
    return TP_OK;
}

/* NUL-terminated copy of a string field in scratch slot @p slot (0 or 1); "" on failure. */
static const char *cstr(tp_federate *f, int slot, const struct wire_str *s)
{
    if ((size_t)s->len + 1 > f->str_cap[slot]) {
        size_t cap = (size_t)s->len + 64;
        char *p = realloc(f->str[slot], cap);
        if (!p) return "";
        f->str[slot] = p;
        f->str_cap[slot] = cap;
    }
    if (s->len) memcpy(f->str[slot], s->ptr, s->len);
    f->str[slot][s->len] = '\0';
    return f->str[slot];
}

/* Decode the values of @p m into f->tv. @return count, or -1 (TP_ENOMEM recorded). */
static long values_of(tp_federate *f, const struct wire_msg *m)
{
    if (tpi_scratch(f, m->nvalues) < 0) return -1;
    uint32_t n = wire_msg_values(m, f->wv, f->scratch_cap);
    for (uint32_t i = 0; i < n; i++) {
        f->tv[i].handle = f->wv[i].handle;
        f->tv[i].data = f->wv[i].data;
        f->tv[i].size = f->wv[i].len;
    }
    return n;
}

static tp_order order_of(uint32_t code)
{
    return code == WIRE_ORDER_TSO ? TP_TIMESTAMP_ORDER : TP_RECEIVE_ORDER;
}

static void on_discover(tp_federate *f, const struct wire_msg *m)
{
    if (tpi_obj_add(f, m->a, (tp_handle)m->b, 0) < 0) tpi_log(f, TP_LOG_ERROR, "%s", f->err);
    if (f->cb.discover)
        f->cb.discover(f->ctx, m->a, (tp_handle)m->b, cstr(f, 0, &m->str[0]), (tp_fed)m->c);
}

static void on_reflect(tp_federate *f, const struct wire_msg *m)
{
    if (!f->cb.reflect) return;
    long n = values_of(f, m);
    if (n < 0) {
        tpi_log(f, TP_LOG_ERROR, "reflect of object %llu dropped: %s", (unsigned long long)m->a,
                f->err);
        return;
    }
    const struct tpi_obj *o = tpi_obj_find(f, m->a);
    tp_reflection r = {
        .object = m->a,
        .object_class = o ? o->cls : 0,
        .values = f->tv,
        .n_values = (size_t)n,
        .time = m->time,
        .order = order_of(m->code),
        .sender = (tp_fed)m->c,
        .tag = m->str[0].len ? m->str[0].ptr : NULL,
        .tag_size = m->str[0].len,
    };
    f->cb.reflect(f->ctx, &r);
}

static void on_receive(tp_federate *f, const struct wire_msg *m)
{
    if (!f->cb.receive) return;
    long n = values_of(f, m);
    if (n < 0) {
        tpi_log(f, TP_LOG_ERROR, "interaction %llu dropped: %s", (unsigned long long)m->a, f->err);
        return;
    }
    tp_interaction i = {
        .interaction_class = (tp_handle)m->a,
        .params = f->tv,
        .n_params = (size_t)n,
        .time = m->time,
        .order = order_of(m->code),
        .sender = (tp_fed)m->c,
        .tag = m->str[0].len ? m->str[0].ptr : NULL,
        .tag_size = m->str[0].len,
    };
    f->cb.receive(f->ctx, &i);
}

static void on_provide(tp_federate *f, const struct wire_msg *m)
{
    if (!f->cb.provide) return;
    if (tpi_scratch(f, m->nhandles) < 0) {
        tpi_log(f, TP_LOG_ERROR, "provide request dropped: %s", f->err);
        return;
    }
    for (uint32_t i = 0; i < m->nhandles; i++)
        f->th[i] = wire_msg_handle(m, i);
    f->cb.provide(f->ctx, m->a, f->th, m->nhandles);
}

static void on_error(tp_federate *f, const struct wire_msg *m)
{
    int code = tpi_rti_code(m->code);
    if (code == TP_OK) code = TP_EREFUSED;
    tpi_on_time_refused(f, (uint32_t)m->a);
    tpi_note_late(f, m, f->cur_pos); /* the next blocking call returns it too */
    tpi_fail(f, code, "RTI refused %s: %.*s", m->a ? wire_type_name((unsigned)m->a) : "a request",
             (int)m->str[0].len, m->str[0].ptr ? m->str[0].ptr : "");
    tpi_log(f, TP_LOG_WARN, "%s", f->err);
    if (f->cb.error) f->cb.error(f->ctx, code, f->err);
}

static void on_sync(tp_federate *f, const struct wire_msg *m)
{
    struct tpi_sync *s = tpi_sync_get(f, m->str[0].ptr, m->str[0].len, 1);
    const char *label = cstr(f, 0, &m->str[0]);
    switch (m->type) {
    case WIRE_SYNC_REGISTERED: {
        int st = m->code ? tpi_rti_code(m->code) : TP_OK;
        if (m->code && st == TP_OK) st = TP_EREFUSED;
        if (f->cb.sync_registered) f->cb.sync_registered(f->ctx, label, st, cstr(f, 1, &m->str[1]));
        break;
    }
    case WIRE_ANNOUNCE_SYNC:
        if (s) s->announced = 1;
        if (f->cb.sync_announced)
            f->cb.sync_announced(f->ctx, label, m->str[1].len ? m->str[1].ptr : NULL,
                                 m->str[1].len);
        break;
    default: /* WIRE_FEDERATION_SYNCED */
        if (s) s->synced = 1;
        if (f->cb.synchronized) f->cb.synchronized(f->ctx, label);
        break;
    }
}

/* Run the handler of one decoded frame (a copy in f->cur). */
static void dispatch(tp_federate *f, const struct wire_msg *m)
{
    /* the cut of a save: what this federate has seen since it was asked (client_ckpt.c) */
    if (f->save_asked && wire_type_state(m->type)) f->save_frames++;
    switch (m->type) {
    case WIRE_REFLECT:
        on_reflect(f, m);
        break;
    case WIRE_RECEIVE_INTERACTION:
        on_receive(f, m);
        break;
    case WIRE_DISCOVER:
        on_discover(f, m);
        break;
    case WIRE_REMOVE_OBJECT:
        tpi_obj_del(f, m->a);
        if (f->cb.remove) f->cb.remove(f->ctx, m->a, m->time, order_of(m->code), (tp_fed)m->c);
        break;
    case WIRE_PROVIDE_UPDATE:
        on_provide(f, m);
        break;
    case WIRE_TIME_GRANT:
        tpi_on_grant(f, m->code, m->time);
        if (f->cb.grant) f->cb.grant(f->ctx, m->time);
        /* the closing grant a save waited for (doc/checkpoint.md "The cut") */
        if (f->save_armed && f->granted_strict) tpi_after_grant(f);
        break;
    case WIRE_INITIATE_SAVE:
        tpi_on_initiate_save(f, m);
        break;
    case WIRE_FEDERATION_SAVED:
        tpi_on_federation_saved(f, m);
        break;
    case WIRE_REGULATION_ENABLED:
        tpi_on_regulation_enabled(f, m->time);
        if (m->time2 != WIRE_TIME_NONE) tpi_on_regulation_bound(f, m->time2, m->code != 0);
        if (f->cb.regulation_enabled) f->cb.regulation_enabled(f->ctx, m->time);
        break;
    case WIRE_CONSTRAINED_ENABLED:
        tpi_on_constrained_enabled(f, m->time);
        if (f->cb.constrained_enabled) f->cb.constrained_enabled(f->ctx, m->time);
        break;
    case WIRE_FEDERATE_JOINED:
        if (f->cb.federate_joined)
            f->cb.federate_joined(f->ctx, (tp_fed)m->a, cstr(f, 0, &m->str[0]));
        break;
    case WIRE_FEDERATE_RESIGNED:
        if (f->cb.federate_resigned)
            f->cb.federate_resigned(f->ctx, (tp_fed)m->a, cstr(f, 0, &m->str[0]),
                                    cstr(f, 1, &m->str[1]));
        break;
    case WIRE_SYNC_REGISTERED:
    case WIRE_ANNOUNCE_SYNC:
    case WIRE_FEDERATION_SYNCED:
        on_sync(f, m);
        break;
    case WIRE_ERROR:
        on_error(f, m);
        break;
    case WIRE_PING: {
        struct wire_msg pong;
        wire_msg_init(&pong, WIRE_PONG);
        pong.req = m->req;
        pong.str[0] = m->str[0];
        if (tpi_send(f, &pong) < 0) tpi_log(f, TP_LOG_WARN, "cannot answer PING: %s", f->err);
        break;
    }
    case WIRE_PONG: /* the answer to a liveness PING: its arrival was the point */
        break;
    default:
        /* A late REPLY (its wait timed out) or a type the client does not expect. */
        tpi_log(f, TP_LOG_DEBUG, "ignored %s frame from the RTI (req %u)", wire_type_name(m->type),
                (unsigned)m->req);
        break;
    }
}

/* Dispatch every complete queued frame. @return frames dispatched or a TP_E* code. */
static int dispatch_queued(tp_federate *f)
{
    int count = 0;
    for (;;) {
        size_t flen = 0;
        char why[200];
        int s = wire_split(f->in.data + f->in_off, f->in.len - f->in_off, f->max_frame, &flen, why,
                           sizeof why);
        if (s == 0) return count;
        if (s < 0) {
            int r =
                tpi_fail(f, TP_EPROTO, "federate \"%s\": bad frame from the RTI: %s", f->name, why);
            tpi_log(f, TP_LOG_ERROR, "%s", f->err);
            tpi_close(f);
            return r;
        }
        /* Copy the frame out first: a callback may make f->in grow (realloc) or move. */
        buf_clear(&f->cur);
        if (buf_append(&f->cur, f->in.data + f->in_off, flen) < 0)
            return tpi_fail(f, TP_ENOMEM, "federate \"%s\": frame copy", f->name);
        f->cur_pos = f->in_base + f->in_off;
        f->in_off += flen;
        struct wire_msg m;
        if (wire_decode(f->cur.data, flen, &m, why, sizeof why) < 0) {
            char hex[WIRE_HEX_BUFSZ];
            int r = tpi_fail(f, TP_EPROTO,
                             "federate \"%s\": malformed frame from the RTI: %s "
                             "(%s)",
                             f->name, why, wire_hex_sample(f->cur.data, flen, hex, sizeof hex));
            tpi_log(f, TP_LOG_ERROR, "%s", f->err);
            tpi_close(f);
            return r;
        }
        f->dispatching = 1;
        dispatch(f, &m);
        f->dispatching = 0;
        count++;
    }
}

int tp_evoke(tp_federate *f, int timeout_ms)
{
    if (!f) return TP_EINVAL;
    if (!f->joined)
        return tpi_fail(f, TP_ESTATE, "federate \"%s\" is not joined (resigned)", f->name);
    if (f->dispatching) return tpi_fail(f, TP_ESTATE, "tp_evoke called from inside a callback");
    int r;
    if (!f->closed && (r = tpi_flush(f)) < 0 && !f->closed) return r;
    /* Frames received before the connection closed are still delivered, then TP_ECLOSED
     * (f->err keeps the reason the connection ended). */
    int n = dispatch_queued(f);
    if (n != 0) return n;
    if (f->closed) return TP_ECLOSED;
    r = tpi_read(f, timeout_ms);
    if (r <= 0) return r;
    for (;;) {
        n = dispatch_queued(f);
        if (n != 0 || timeout_ms >= 0 || f->closed) return n;
        /* timeout < 0: a partial frame arrived; keep waiting for a whole one. */
        if ((r = tpi_read(f, -1)) < 0) return r;
    }
}

int tpi_wait_until(tp_federate *f, int (*done)(tp_federate *f, const void *arg), const void *arg,
                   int timeout_ms)
{
    if (f->dispatching)
        return tpi_fail(f, TP_ESTATE,
                        "federate \"%s\": a tp_wait call from inside a callback "
                        "would nest dispatching",
                        f->name);
    int64_t start = tpi_now_ms();
    for (;;) {
        /* an asynchronous request the RTI refused since the last blocking call */
        int late = tpi_take_late(f);
        if (late) return late;
        if (done(f, arg)) return TP_OK;
        int t = -1;
        if (timeout_ms >= 0) {
            int64_t left = start + timeout_ms - tpi_now_ms();
            t = left > 0 ? (int)left : 0;
        }
        int r = tp_evoke(f, t);
        if ((late = tpi_take_late(f)) != 0) return late;
        if (r < 0) return done(f, arg) ? TP_OK : r;
        /* Out of time: stop once a non-waiting evoke finds nothing more (so that a timeout of
         * 0 still dispatches what has already arrived). */
        if (t == 0 && r == 0) return done(f, arg) ? TP_OK : TP_TIMEOUT;
    }
}
