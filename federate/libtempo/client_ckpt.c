/* libtempo checkpoints: the save request, this federate's part of a coordinated save (the
 * library's own state of the federate, then what the `save` callback returns; chunks to the
 * RTI; the hold until the outcome) and the restoring join's part.
 * Serves doc/checkpoint.md ("The coordinated save", "The cut", "A federate's part") and
 * doc/protocol.md (checkpoint messages). Read rti/server/save.c for the RTI's side.
 *
 * A federate's part, little-endian (rti/proto/ckpt.h codec):
 *     u32 "TPFD"  u32 version (1)  str federate name  u64 FOM fingerprint
 *     i64 logical time  i64 lookahead  u8 regulation  u8 constrained  u8 pending request
 *     i64 its time  u8 granted-strict  (i64, u8) promise  (i64, u8) promise before the request
 *     u64 N + N bytes: published attributes  u64 M + M bytes: published interactions
 *     u32 K objects, each: u64 handle  u32 class  u8 owned
 *     u32 S sync points, each: str label  u8 announced  u8 achieved  u8 synced
 *     u64 L + L bytes: what the save callback returned */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "federate/libtempo/client_impl.h"
#include "rti/proto/ckpt.h"

#define TPI_PART_MAGIC   0x44465054u /* "TPFD" in file order */
#define TPI_PART_VERSION 1u

int tp_request_save(tp_federate *f, const char *label, tp_time time)
{
    int r = tpi_check_joined(f);
    if (r < 0) return r;
    if (!label || !ckpt_name_ok(label))
        return tpi_fail(f, TP_EINVAL,
                        "tp_request_save: label '%s' is not 1..64 bytes of [A-Za-z0-9._-] "
                        "(not starting with '.', not MANIFEST)",
                        label ? label : "(null)");
    if (time == TP_NO_TIME || time < 0 || time == TP_TIME_MAX)
        return tpi_fail(f, TP_EINVAL, "tp_request_save '%s': %lld is not a save time", label,
                        (long long)time);
    if (time < f->now)
        return tpi_fail(f, TP_ETIME,
                        "tp_request_save '%s': save time %lld is below the logical time %lld",
                        label, (long long)time, (long long)f->now);
    struct wire_msg m;
    wire_msg_init(&m, WIRE_REQUEST_SAVE);
    m.time = time;
    wire_str_set(&m.str[0], label);
    if ((r = tpi_send(f, &m)) < 0) return r;
    return tpi_flush(f);
}

/* ---- the part ------------------------------------------------------------------------------ */

static int put_blob(struct buf *b, const void *p, size_t n)
{
    return ckpt_put_u64(b, n) | (n ? buf_append(b, p, n) : 0);
}

/* The library's state of this federate: what a restoring join must find again. */
static int put_state(tp_federate *f, struct buf *b)
{
    int rc = ckpt_put_u32(b, TPI_PART_MAGIC) | ckpt_put_u32(b, TPI_PART_VERSION);
    rc |= ckpt_put_str(b, f->name) | ckpt_put_u64(b, f->fingerprint);
    rc |= ckpt_put_i64(b, f->now) | ckpt_put_i64(b, f->lookahead);
    rc |= ckpt_put_u8(b, (uint8_t)f->regulation) | ckpt_put_u8(b, (uint8_t)f->constrained);
    rc |= ckpt_put_u8(b, (uint8_t)f->pending) | ckpt_put_i64(b, f->pending_time);
    rc |= ckpt_put_u8(b, (uint8_t)(f->granted_strict != 0));
    rc |= ckpt_put_i64(b, f->promised) | ckpt_put_u8(b, (uint8_t)(f->promised_strict != 0));
    rc |= ckpt_put_i64(b, f->promised_before);
    rc |= ckpt_put_u8(b, (uint8_t)(f->promised_before_strict != 0));
    rc |= put_blob(b, f->pub_attr, (size_t)(f->n_classes + 1) * (f->n_attrs + 1));
    rc |= put_blob(b, f->pub_inter, (size_t)f->n_inters + 1);
    uint32_t n = 0;
    for (size_t i = 0; i < f->objs_cap; i++)
        n += f->objs[i].obj != 0 && f->objs[i].obj != TPI_OBJ_TOMB;
    rc |= ckpt_put_u32(b, n);
    for (size_t i = 0; i < f->objs_cap; i++) {
        const struct tpi_obj *o = &f->objs[i];
        if (o->obj == 0 || o->obj == TPI_OBJ_TOMB) continue;
        rc |= ckpt_put_u64(b, o->obj) | ckpt_put_u32(b, o->cls) | ckpt_put_u8(b, o->owned != 0);
    }
    rc |= ckpt_put_u32(b, (uint32_t)f->n_syncs);
    for (size_t i = 0; i < f->n_syncs; i++) {
        const struct tpi_sync *s = &f->syncs[i];
        rc |= ckpt_put_str(b, s->label) | ckpt_put_u8(b, s->announced != 0);
        rc |= ckpt_put_u8(b, s->achieved != 0) | ckpt_put_u8(b, s->synced != 0);
    }
    return rc;
}

/* Make the part: the state above, then the callback's bytes. TP_OK, or a code with why. */
static int make_part(tp_federate *f, tp_time t, struct buf *part, char *why, size_t why_size)
{
    if (!f->cb.save) {
        snprintf(why, why_size, "federate \"%s\" cannot save: it has no save callback", f->name);
        return TP_EINVAL;
    }
    void *bytes = NULL;
    size_t n = 0;
    why[0] = '\0';
    int rc = f->cb.save(f->ctx, f->save_label, t, &bytes, &n, why, why_size);
    if (rc == TP_OK && n > 0 && !bytes) {
        snprintf(why, why_size, "its save callback returned %zu bytes at NULL", n);
        rc = TP_EINVAL;
    }
    if (rc == TP_OK && (put_state(f, part) != 0 || put_blob(part, bytes, n) != 0)) {
        snprintf(why, why_size, "out of memory for its part (%zu bytes)", n);
        rc = TP_ENOMEM;
    }
    if (rc != TP_OK && !why[0]) snprintf(why, why_size, "its save callback: %s", tp_strerror(rc));
    free(bytes);
    return rc;
}

/* The outcome ends the hold. */
struct outcome {
    int got;
};

static void call_saved(tp_federate *f, const struct wire_msg *m)
{
    int st = m->code ? tpi_rti_code(m->code) : TP_OK;
    if (m->code && st == TP_OK) st = TP_EREFUSED;
    char label[72], detail[4096];
    wire_str_copy(&m->str[0], label, sizeof label);
    wire_str_copy(&m->str[1], detail, sizeof detail);
    tpi_log(f, st == TP_OK ? TP_LOG_INFO : TP_LOG_WARN, "save '%s': %s", label, detail);
    if (f->cb.saved) f->cb.saved(f->ctx, label, st, detail);
}

static int saved_reply(tp_federate *f, const struct wire_msg *m, void *arg)
{
    ((struct outcome *)arg)->got = 1;
    call_saved(f, m);
    return TP_OK;
}

/* Save now: the part, in chunks, or the reason it cannot; then wait for the outcome (the RTI
 * holds everything else meanwhile). */
static void run_save(tp_federate *f)
{
    struct buf part;
    char why[512];
    buf_init(&part);
    f->save_asked = 0;
    f->save_armed = 0;
    int rc = make_part(f, f->now, &part, why, sizeof why);
    struct wire_msg m;
    size_t off = 0;
    int r = TP_OK;
    do {
        size_t k = part.len - off < f->save_chunk ? part.len - off : f->save_chunk;
        wire_msg_init(&m, WIRE_SAVE_DONE);
        m.req = f->save_id;
        m.a = f->save_frames;
        wire_str_set(&m.str[0], f->save_label);
        if (rc != TP_OK) {
            m.code = WIRE_SAVE_FAILED;
            wire_str_set(&m.str[2], why);
            k = part.len - off;
        } else {
            m.code = off + k < part.len ? WIRE_SAVE_MORE : WIRE_SAVE_OK;
            m.str[1].ptr = (const char *)part.data + off;
            m.str[1].len = (uint32_t)k;
        }
        off += k;
        r = tpi_send(f, &m);
    } while (r == TP_OK && off < part.len);
    buf_fini(&part);
    if (r < 0 && rc == TP_OK && !f->closed) { /* a chunk could not go: the RTI must not wait */
        snprintf(why, sizeof why, "its part could not be sent: %.400s", f->err);
        wire_msg_init(&m, WIRE_SAVE_DONE);
        m.req = f->save_id;
        m.code = WIRE_SAVE_FAILED;
        m.a = f->save_frames;
        wire_str_set(&m.str[0], f->save_label);
        wire_str_set(&m.str[2], why);
        rc = TP_EREFUSED;
        r = tpi_send(f, &m);
    }
    if (rc != TP_OK) tpi_log(f, TP_LOG_WARN, "save '%s': %s", f->save_label, why);
    struct outcome out = {0};
    if (r == TP_OK) r = tpi_wait_frame(f, WIRE_FEDERATION_SAVED, f->save_id, -1, saved_reply, &out);
    if (r < 0 || !out.got)
        tpi_log(f, TP_LOG_ERROR, "save '%s': no outcome from the RTI: %s", f->save_label, f->err);
}

void tpi_on_initiate_save(tp_federate *f, const struct wire_msg *m)
{
    f->save_id = m->req;
    /* what the RTI takes, and what this library sends in one frame (whichever is smaller) */
    uint64_t room = f->max_frame > 1024 ? f->max_frame - 512 : 512;
    f->save_chunk = (uint32_t)(m->a > 0 && m->a < room ? m->a : room);
    wire_str_copy(&m->str[0], f->save_label, sizeof f->save_label);
    f->save_frames = 0;
    f->save_asked = 1;
    /* The TIME_GRANT that brings it to the save time follows (code 1 with a request
     * pending): the part is made right after it, the RTI sending that grant before anything
     * it holds. A federate at an open grant (TARA, NERA) with nothing pending has not yet sent
     * what it sends at that instant, and a federate waiting for that would wait for a held
     * one: its part waits for its next closing grant (TAR, NER, FQR). A federate granted
     * nothing yet (no time management) is at no open grant. Otherwise now, a request pending
     * or not: the RTI saw none (one in flight is then pre-snapshot for both), or saw one that
     * cannot be granted while the others are held (doc/checkpoint.md "The cut", "When the
     * save time is not reached"). */
    if ((m->code == 1 && f->pending != TP_REQ_NONE) ||
        (f->pending == TP_REQ_NONE && f->grants > 0 && !f->granted_strict)) {
        f->save_armed = 1;
        return;
    }
    run_save(f);
}

void tpi_after_grant(tp_federate *f)
{
    run_save(f);
}

void tpi_after_open_request(tp_federate *f)
{
    run_save(f);
}

void tpi_on_federation_saved(tp_federate *f, const struct wire_msg *m)
{
    call_saved(f, m);
}

/* ---- restore ------------------------------------------------------------------------------- */

static const uint8_t *get_blob(struct ckpt_dec *d, size_t *n)
{
    uint64_t len = ckpt_get_u64(d);
    if (d->bad || len > d->n - d->off) {
        d->bad = true;
        *n = 0;
        return NULL;
    }
    const uint8_t *p = d->p + d->off;
    d->off += (size_t)len;
    *n = (size_t)len;
    return p;
}

int tpi_restore_part(tp_federate *f, const char *label, const uint8_t *p, size_t n)
{
    struct ckpt_dec d;
    char name[sizeof f->name];
    ckpt_dec_init(&d, p, n);
    uint32_t magic = ckpt_get_u32(&d), version = ckpt_get_u32(&d);
    ckpt_get_str(&d, name, sizeof name);
    uint64_t fp = ckpt_get_u64(&d);
    if (d.bad || magic != TPI_PART_MAGIC || version != TPI_PART_VERSION)
        return tpi_fail(f, TP_ECKPT,
                        "restore '%s': the part of \"%s\" is not a libtempo part "
                        "of version %u",
                        label, f->name, TPI_PART_VERSION);
    if (strcmp(name, f->name) != 0 || fp != f->fingerprint)
        return tpi_fail(f, TP_ECKPT,
                        "restore '%s': the part is federate \"%s\"'s with FOM %016llx, not "
                        "\"%s\"'s with FOM %016llx",
                        label, name, (unsigned long long)fp, f->name,
                        (unsigned long long)f->fingerprint);
    f->now = ckpt_get_i64(&d);
    f->lookahead = ckpt_get_i64(&d);
    uint8_t reg = ckpt_get_u8(&d), con = ckpt_get_u8(&d), pend = ckpt_get_u8(&d);
    f->pending_time = ckpt_get_i64(&d);
    f->granted_strict = ckpt_get_u8(&d) != 0;
    f->promised = ckpt_get_i64(&d);
    f->promised_strict = ckpt_get_u8(&d) != 0;
    f->promised_before = ckpt_get_i64(&d);
    f->promised_before_strict = ckpt_get_u8(&d) != 0;
    size_t na, ni;
    const uint8_t *pa = get_blob(&d, &na), *pi = get_blob(&d, &ni);
    if (d.bad || reg > TPI_ON || con > TPI_ON || pend > TP_REQ_FQR ||
        na != (size_t)(f->n_classes + 1) * (f->n_attrs + 1) || ni != (size_t)f->n_inters + 1)
        return tpi_fail(f, TP_ECKPT, "restore '%s': the part of \"%s\" is malformed (state)", label,
                        f->name);
    f->regulation = (enum tpi_enable)reg;
    f->constrained = (enum tpi_enable)con;
    f->pending = (tp_request_kind)pend;
    memcpy(f->pub_attr, pa, na);
    memcpy(f->pub_inter, pi, ni);
    uint32_t no = ckpt_get_u32(&d);
    for (uint32_t i = 0; i < no && !d.bad; i++) {
        tp_object o = ckpt_get_u64(&d);
        uint32_t cls = ckpt_get_u32(&d);
        uint8_t owned = ckpt_get_u8(&d);
        if (d.bad || o == 0 || o == TPI_OBJ_TOMB || owned > 1) break;
        int r = tpi_obj_add(f, o, cls, owned);
        if (r < 0) return r;
    }
    uint32_t ns = ckpt_get_u32(&d);
    for (uint32_t i = 0; i < ns && !d.bad; i++) {
        char sl[256];
        ckpt_get_str(&d, sl, sizeof sl);
        uint8_t an = ckpt_get_u8(&d), ac = ckpt_get_u8(&d), sy = ckpt_get_u8(&d);
        if (d.bad) break;
        struct tpi_sync *s = tpi_sync_get(f, sl, strlen(sl), 1);
        if (!s) return tpi_fail(f, TP_ENOMEM, "restore '%s': sync point '%s'", label, sl);
        s->announced = an != 0;
        s->achieved = ac != 0;
        s->synced = sy != 0;
    }
    size_t nu;
    const uint8_t *user = get_blob(&d, &nu);
    if (d.bad || d.off != d.n)
        return tpi_fail(f, TP_ECKPT, "restore '%s': the part of \"%s\" is malformed (%s)", label,
                        f->name, d.bad ? "cut short" : "bytes after its end");
    if (!f->cb.restore)
        return tpi_fail(f, TP_EINVAL, "restore '%s': federate \"%s\" has no restore callback",
                        label, f->name);
    char why[512] = "";
    f->dispatching = 1; /* the callback must not evoke */
    int rc = f->cb.restore(f->ctx, label, f->now, nu ? user : NULL, nu, why, sizeof why);
    f->dispatching = 0;
    if (rc != TP_OK)
        return tpi_fail(f, rc < 0 ? rc : TP_EREFUSED, "restore '%s': federate \"%s\": %s", label,
                        f->name, why[0] ? why : tp_strerror(rc));
    return TP_OK;
}
