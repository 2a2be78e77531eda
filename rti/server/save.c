/* The coordinated save of a federation (HLA's timed save): REQUEST_SAVE opens it, each
 * federate is asked for its part (INITIATE_SAVE) in the grant that brings it to the save time
 * or past it, reports it (SAVE_DONE, in chunks) and is held; once all have reported the RTI
 * writes its own part and the checkpoint folder (rti/proto/ckpt.h) and tells everyone
 * (FEDERATION_SAVED). A federate that cannot save, resigns or joins meanwhile makes the save
 * fail, naming it; the federation goes on either way.
 * Serves doc/checkpoint.md ("The coordinated save", "The cut", "The RTI's part") and
 * doc/protocol.md (checkpoint messages). Read rti/server/restore.c next.
 *
 * Divisions: 1. holding frames, 2. asking and ending, 3. requests, 4. the RTI's part. */
#include "rti/server/server_impl.h"

#include "rti/flog/flog.h"
#include "rti/server/log.h"
#include "rti/tm/tm.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#define SAVE_MIN_FRAME  1024u       /* --max-frame below this cannot carry part chunks */
#define SAVE_CHUNK_ROOM 512u        /* bytes of a SAVE_DONE frame besides its chunk */
#define SAVE_PART_MAX   (1u << 30)  /* bytes of one federate's part the RTI accepts */
#define SAVE_DETAIL_MAX 3000u       /* bytes of the failure text sent in FEDERATION_SAVED */
#define SAVE_RTI_MAGIC  0x49545254u /* "TRTI" in file order */
#define SAVE_RTI_FORMAT 1u

/* The save under way in a federation. */
struct save {
    uint32_t id;                   /* req of its frames */
    char label[CKPT_NAME_MAX + 1]; /* as requested */
    int64_t time;                  /* the save time T (ticks) */
    char folder[1024];             /* where it goes: checkpoint_dir/label */
    char requester[RTI_NAME_MAX];  /* who asked (log lines) */
    struct buf fail;               /* failures so far: "'A': why; 'B': why" */
};

/* ==== 1. holding frames ====================================================================== */

/* Add "'name': why; " to the failures of sv (bounded: the text travels in one frame). */
static void fail_add(struct save *sv, const char *name, const char *why)
{
    char line[600];
    int n = snprintf(line, sizeof line, "'%s': %s; ", name, why);
    if (n > 0 && sv->fail.len < SAVE_DETAIL_MAX)
        buf_append(&sv->fail, line, (size_t)n < sizeof line ? (size_t)n : sizeof line - 1);
}

static int frame_type(const uint8_t *frame, size_t n)
{
    return n >= WIRE_HEADER_SIZE ? frame[4] | frame[5] << 8 : 0;
}

int save_hold_frame(struct federate *f, const uint8_t *frame, size_t n)
{
    if (!f->holding && f->save_state != SAVE_FED_TOLD) return 0;
    if (!wire_type_state((unsigned)frame_type(frame, n))) return 0;
    struct buf *into = f->holding ? &f->held : &f->window;
    if (buf_append(into, frame, n) != 0) {
        LOGE("save", f->tag, "out of memory keeping a %s frame back: it is lost",
             wire_type_name((unsigned)frame_type(frame, n)));
        if (f->fx->save)
            fail_add(f->fx->save, f->name, "the RTI ran out of memory keeping its frames");
    }
    return f->holding; /* held frames are not sent; window frames are, and are copied */
}

/* Frames of `window` after the first `skip` (the federate dispatched those before its
 * snapshot) go to `replay`: the RTI's part stores them before the held frames, so that a
 * federate restored from this save gets them again; in the run that goes on, the federate
 * still has them in its input and they are not sent twice. -1 when it reports more than
 * were sent. */
static int cut_window(struct federate *f, uint64_t skip)
{
    size_t off = 0;
    for (uint64_t i = 0; i < skip; i++) {
        if (f->window.len - off < WIRE_HEADER_SIZE) return -1;
        const uint8_t *h = f->window.data + off;
        off += WIRE_HEADER_SIZE +
               ((size_t)h[0] | (size_t)h[1] << 8 | (size_t)h[2] << 16 | (size_t)h[3] << 24);
    }
    buf_clear(&f->replay);
    if (buf_append(&f->replay, f->window.data + off, f->window.len - off) != 0) return -1;
    buf_clear(&f->window);
    return 0;
}

void save_federate_fini(struct federate *f)
{
    buf_fini(&f->part);
    buf_fini(&f->window);
    buf_fini(&f->replay);
    buf_fini(&f->held);
    free(f->restore_part);
    f->restore_part = NULL;
}

/* ==== 2. asking and ending =================================================================== */

/* The federation log records a save as notes (doc/log.md "Saves and restores"); the frames
 * of the save are recorded as every frame is. */
static void log_note(struct federation *fx, uint32_t fed, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
static void log_note(struct federation *fx, uint32_t fed, const char *fmt, ...)
{
    if (!fx->flog) return;
    char text[SAVE_DETAIL_MAX + 200];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(text, sizeof text, fmt, ap);
    va_end(ap);
    flog_note(fx->flog, fed, text);
}

static uint32_t chunk_size(const struct server *s)
{
    return (uint32_t)s->hub.lim.max_frame - SAVE_CHUNK_ROOM;
}

/* INITIATE_SAVE to f, whose logical time is t: from now on its state frames are copied into
 * its window until it reports. */
static void tell(struct server *s, struct federate *f, int64_t t)
{
    struct save *sv = f->fx->save;
    struct wire_msg m;
    wire_msg_init(&m, WIRE_INITIATE_SAVE);
    m.req = sv->id;
    m.a = chunk_size(s);
    m.time = t;
    m.time2 = sv->time;
    wire_str_set(&m.str[0], sv->label);
    f->save_state = SAVE_FED_TOLD;
    buf_clear(&f->window);
    buf_clear(&f->replay);
    buf_clear(&f->part);
    LOGD("save", f->tag, "asked for its part of save '%s' at %lld", sv->label, (long long)t);
    server_send(s, f->conn, &m);
}

void save_before_grant(struct server *s, struct federate *f, int64_t t)
{
    struct save *sv = f->fx->save;
    if (sv && f->save_state == SAVE_FED_NONE && t >= sv->time) tell(s, f, t);
}

/* The part's file name: "fed-NAME" when that is a valid part name, else "fedh-HANDLE" (no
 * valid "fed-" name starts so). */
static void part_name(const struct federate *f, char *out, size_t cap)
{
    size_t n = strlen(f->name);
    if (n <= CKPT_NAME_MAX - 4 && n + 5 <= cap) {
        memcpy(out, "fed-", 4);
        memcpy(out + 4, f->name, n + 1);
        if (ckpt_name_ok(out)) return;
    }
    snprintf(out, cap, "fedh-%llu", (unsigned long long)f->handle);
}

/* Write the checkpoint folder: the RTI's part, then each federate's. STATUS_OK, or
 * STATUS_ESYS with err naming the file. */
static int write_folder(struct federation *fx, char *err, size_t errlen)
{
    struct save *sv = fx->save;
    struct buf rti;
    buf_init(&rti);
    if (save_rti_part(fx, &rti, err, errlen) != 0) {
        buf_fini(&rti);
        return STATUS_ESYS;
    }
    struct ckpt_writer *w = NULL;
    char cerr[CKPT_ERR_LEN];
    int rc = ckpt_begin(&w, sv->folder, sv->label, sv->time, cerr, sizeof cerr);
    if (rc == CKPT_OK) rc = ckpt_add(w, "rti", rti.data, rti.len, cerr, sizeof cerr);
    for (uint32_t i = 0; i < fx->handle_cap && rc == CKPT_OK; i++) {
        struct federate *f = fx->by_handle[i];
        if (!f) continue;
        char name[CKPT_NAME_MAX + 8];
        part_name(f, name, sizeof name);
        rc = ckpt_add(w, name, f->part.data, f->part.len, cerr, sizeof cerr);
    }
    if (rc == CKPT_OK) {
        rc = ckpt_commit(w, cerr, sizeof cerr);
        w = NULL;
    }
    ckpt_abort(w);
    buf_fini(&rti);
    if (rc != CKPT_OK) {
        snprintf(err, errlen, "the RTI could not write checkpoint '%s': %s", sv->folder, cerr);
        return STATUS_ESYS;
    }
    return STATUS_OK;
}

/* End the save: write it when nothing failed, tell every federate the outcome, release the
 * frames held for them, forget the save. */
static void finish(struct server *s, struct federation *fx)
{
    struct save *sv = fx->save;
    char detail[SAVE_DETAIL_MAX + 64];
    uint32_t status = STATUS_OK;
    if (sv->fail.len) {
        status = STATUS_ECKPT;
        size_t n = sv->fail.len - 2; /* without the last "; " */
        snprintf(detail, sizeof detail, "save '%s' at %lld failed: %.*s", sv->label,
                 (long long)sv->time, (int)(n < SAVE_DETAIL_MAX ? n : SAVE_DETAIL_MAX),
                 (const char *)sv->fail.data);
    } else {
        status = (uint32_t)write_folder(fx, detail, sizeof detail);
        if (status == STATUS_OK) snprintf(detail, sizeof detail, "%s", sv->folder);
    }
    if (status == STATUS_OK)
        LOGI("save", "-", "federation '%s': save '%s' at %lld written to %s", fx->name, sv->label,
             (long long)sv->time, sv->folder);
    else
        LOGW("save", "-", "federation '%s': %s", fx->name, detail);
    if (status == STATUS_OK)
        log_note(fx, 0, FLOG_NOTE_SAVED " '%s' at %lld: %s", sv->label, (long long)sv->time,
                 detail);
    else
        log_note(fx, 0, FLOG_NOTE_SAVE_FAILED " '%s' at %lld: %s", sv->label, (long long)sv->time,
                 detail);
    struct wire_msg m;
    wire_msg_init(&m, WIRE_FEDERATION_SAVED);
    m.req = sv->id;
    m.code = status;
    m.time = sv->time;
    wire_str_set(&m.str[0], sv->label);
    wire_str_set(&m.str[1], detail);
    fx->save = NULL;
    for (uint32_t i = 0; i < fx->slot_cap; i++) {
        struct federate *f = fx->slots[i];
        if (!f) continue;
        server_send(s, f->conn, &m);
        f->save_state = SAVE_FED_NONE;
        buf_clear(&f->part);
        buf_clear(&f->window);
        buf_clear(&f->replay);
        if (f->park) continue; /* restored, not rejoined: keeps its frames until it does */
        f->holding = 0;
        if (f->held.len && f->conn) link_send(f->conn, f->held.data, f->held.len);
        buf_clear(&f->held);
    }
    buf_fini(&sv->fail);
    free(sv);
}

void save_fini(struct federation *fx)
{
    if (!fx->save) return;
    buf_fini(&fx->save->fail);
    free(fx->save);
    fx->save = NULL;
}

void save_federate_event(struct server *s, struct federate *f, const char *why)
{
    struct save *sv = f->fx->save;
    if (!sv) return;
    fail_add(sv, f->name, why);
    finish(s, f->fx);
}

void save_poll(struct server *s, struct federation *fx)
{
    struct save *sv = fx->save;
    if (!sv) return;
    tm_status st;
    for (uint32_t i = 0; i < fx->slot_cap; i++) {
        struct federate *f = fx->slots[i];
        if (!f || f->save_state != SAVE_FED_NONE) continue;
        if (tm_query(fx->tm, (tm_fed)f->handle, &st, NULL, 0) != TM_OK) continue;
        /* granted (no request pending) at or past T, or managing no time at all: now */
        if (st.req == TM_REQ_NONE && !st.constrained_pending &&
            (st.time >= sv->time || (!st.regulating && !st.constrained)))
            tell(s, f, st.time);
    }
    uint32_t none = 0, told = 0, done = 0;
    for (uint32_t i = 0; i < fx->slot_cap; i++) {
        struct federate *f = fx->slots[i];
        if (!f) continue;
        none += f->save_state == SAVE_FED_NONE;
        told += f->save_state == SAVE_FED_TOLD;
        done += f->save_state == SAVE_FED_DONE;
    }
    if (none == 0 && told == 0) {
        finish(s, fx);
        return;
    }
    if (told > 0 || done == 0) return;
    /* Everyone asked has reported and is held; each federate not asked yet waits for a grant.
     * Their bounds are fixed by their requests and the held federates' by their state: no
     * event can come, so no grant will (doc/checkpoint.md "When the save time is not
     * reached"). The save fails naming them, and everyone goes on. */
    for (uint32_t i = 0; i < fx->slot_cap; i++) {
        struct federate *f = fx->slots[i];
        if (!f || f->save_state != SAVE_FED_NONE) continue;
        if (tm_query(fx->tm, (tm_fed)f->handle, &st, NULL, 0) != TM_OK) return;
        if (st.req == TM_REQ_NONE && !st.constrained_pending) return; /* it may still act */
    }
    for (uint32_t i = 0; i < fx->slot_cap; i++) {
        struct federate *f = fx->slots[i];
        if (!f || f->save_state != SAVE_FED_NONE) continue;
        char why[200];
        tm_query(fx->tm, (tm_fed)f->handle, &st, NULL, 0);
        if (st.req != TM_REQ_NONE)
            snprintf(why, sizeof why,
                     "cannot reach the save time: at %lld with %s(%lld) pending, it waits for "
                     "federates held at the save",
                     (long long)st.time, tm_req_name(st.req), (long long)st.req_time);
        else
            snprintf(why, sizeof why,
                     "cannot reach the save time: at %lld, enabling time constraint, it waits "
                     "for federates held at the save",
                     (long long)st.time);
        fail_add(sv, f->name, why);
    }
    finish(s, fx);
}

/* ==== 3. requests ============================================================================ */

static void request(struct server *s, struct federate *f, const struct wire_msg *m)
{
    struct federation *fx = f->fx;
    char err[2 * RTI_ERR_MAX], label[CKPT_NAME_MAX + 2];
    uint32_t st = STATUS_OK;
    tm_status ts;
    int label_ok = wire_str_copy(&m->str[0], label, sizeof label) == 0 && ckpt_name_ok(label);
    if (fx->save) {
        snprintf(err, sizeof err, "REQUEST_SAVE: save '%s' at %lld is under way", fx->save->label,
                 (long long)fx->save->time);
        st = STATUS_ESTATE;
    } else if (!s->cfg.checkpoint_dir || !s->cfg.checkpoint_dir[0]) {
        snprintf(err, sizeof err,
                 "REQUEST_SAVE: this RTI writes no checkpoints (start tempo-rti with "
                 "--checkpoint-dir DIR; in process, set tp_inproc_options.checkpoint_dir)");
        st = STATUS_EREFUSED;
    } else if (!label_ok) {
        snprintf(err, sizeof err,
                 "REQUEST_SAVE: label '%.*s' is not 1..64 bytes of [A-Za-z0-9._-] (not "
                 "starting with '.', not MANIFEST)",
                 (int)(m->str[0].len < 80 ? m->str[0].len : 80),
                 m->str[0].ptr ? m->str[0].ptr : "");
        st = STATUS_EINVAL;
    } else if (m->time == WIRE_TIME_NONE || m->time < 0 || m->time == INT64_MAX) {
        snprintf(err, sizeof err, "REQUEST_SAVE '%s': %lld is not a save time", label,
                 (long long)m->time);
        st = STATUS_EINVAL;
    } else if (tm_query(fx->tm, (tm_fed)f->handle, &ts, NULL, 0) == TM_OK && m->time < ts.time) {
        snprintf(err, sizeof err,
                 "REQUEST_SAVE '%s': save time %lld is below the logical time %lld of '%s'", label,
                 (long long)m->time, (long long)ts.time, f->name);
        st = STATUS_ETIME;
    } else if (s->hub.lim.max_frame < SAVE_MIN_FRAME) {
        snprintf(err, sizeof err,
                 "REQUEST_SAVE '%s': --max-frame %zu is too small to carry the parts (%u at "
                 "least)",
                 label, s->hub.lim.max_frame, SAVE_MIN_FRAME);
        st = STATUS_EREFUSED;
    }
    for (uint32_t i = 0; st == STATUS_OK && i < fx->slot_cap; i++)
        if (fx->slots[i] && fx->slots[i]->park) {
            snprintf(err, sizeof err,
                     "REQUEST_SAVE '%s': federate '%s' of this restored federation has not "
                     "rejoined yet",
                     label, fx->slots[i]->name);
            st = STATUS_ESTATE;
        }
    char folder[1024];
    struct stat sb;
    if (st == STATUS_OK) {
        snprintf(folder, sizeof folder, "%s/%s", s->cfg.checkpoint_dir, label);
        if (lstat(folder, &sb) == 0) {
            snprintf(err, sizeof err,
                     "REQUEST_SAVE '%s': %s exists already (a checkpoint is never overwritten)",
                     label, folder);
            st = STATUS_EEXISTS;
        }
    }
    struct save *sv = st == STATUS_OK ? calloc(1, sizeof *sv) : NULL;
    if (st == STATUS_OK && !sv) {
        snprintf(err, sizeof err, "REQUEST_SAVE '%s': out of memory", label);
        st = STATUS_EREFUSED;
    }
    if (st != STATUS_OK) {
        server_refuse(s, f->conn, m->req, m->type, st, err);
        return;
    }
    if (++fx->next_save == 0) fx->next_save = 1;
    sv->id = fx->next_save;
    memcpy(sv->label, label, strlen(label) + 1); /* ckpt_name_ok: at most 64 bytes */
    sv->time = m->time;
    snprintf(sv->folder, sizeof sv->folder, "%s", folder);
    snprintf(sv->requester, sizeof sv->requester, "%s", f->name);
    buf_init(&sv->fail);
    fx->save = sv;
    LOGI("save", f->tag, "save '%s' at %lld requested (into %s)", label, (long long)m->time,
         folder);
    log_note(fx, (uint32_t)f->handle, FLOG_NOTE_SAVE " '%s' at %lld requested into %s", label,
             (long long)m->time, folder);
    if (m->req) server_reply(s, f->conn, m->req, STATUS_OK, 0, "");
    /* save_poll runs after this frame (server_on_frame): it asks who may save now */
}

static void done(struct server *s, struct federate *f, const struct wire_msg *m)
{
    struct federation *fx = f->fx;
    struct save *sv = fx->save;
    char err[RTI_ERR_MAX];
    if (!sv || m->req != sv->id || f->save_state != SAVE_FED_TOLD ||
        !wire_str_eq(&m->str[0], sv->label)) {
        snprintf(err, sizeof err, "SAVE_DONE (save %u): no such save asked of federate '%s'",
                 m->req, f->name);
        server_refuse(s, f->conn, 0, m->type, STATUS_ESTATE, err);
        return;
    }
    if (m->code != WIRE_SAVE_FAILED) {
        if (f->part.len + m->str[1].len > SAVE_PART_MAX) {
            char why[160];
            snprintf(why, sizeof why, "part larger than the RTI accepts (%u bytes)", SAVE_PART_MAX);
            fail_add(sv, f->name, why);
            buf_clear(&f->part);
        } else if (buf_append(&f->part, m->str[1].ptr, m->str[1].len) != 0) {
            fail_add(sv, f->name, "the RTI ran out of memory for its part");
        }
        if (m->code == WIRE_SAVE_MORE) return;
    } else {
        char why[400];
        wire_str_copy(&m->str[2], why, sizeof why);
        fail_add(sv, f->name, why[0] ? why : "failed (no reason given)");
        LOGW("save", f->tag, "cannot save its part of '%s': %s", sv->label, why);
    }
    f->save_state = SAVE_FED_DONE;
    if (cut_window(f, m->a) != 0)
        fail_add(sv, f->name,
                 "reported more frames dispatched than the RTI sent it (protocol error)");
    f->holding = 1;
    LOGD("save", f->tag, "reported its part of '%s' (%zu bytes); held", sv->label, f->part.len);
}

void save_handle(struct server *s, struct federate *f, const struct wire_msg *m)
{
    if (m->type == WIRE_REQUEST_SAVE)
        request(s, f, m);
    else
        done(s, f, m);
}

int save_refuses(struct server *s, struct federate *f, const struct wire_msg *m)
{
    struct save *sv = f->fx->save;
    if (!sv || f->save_state != SAVE_FED_DONE) return 0;
    switch (m->type) {
    case WIRE_QUERY_TIME:
    case WIRE_RESIGN:
    case WIRE_REQUEST_SAVE: /* refused as "under way" */
    case WIRE_SAVE_DONE:    /* refused as not asked */
        return 0;
    default:
        break;
    }
    char err[RTI_ERR_MAX];
    snprintf(err, sizeof err,
             "%s refused: federate '%s' has saved its part of save '%s' (at %lld) and is held "
             "until the save ends",
             wire_type_name(m->type), f->name, sv->label, (long long)sv->time);
    server_refuse(s, f->conn, m->req, m->type, STATUS_ESTATE, err);
    return 1;
}

/* ==== 4. the RTI's part ====================================================================== */

static int put_bytes(struct buf *b, const void *p, size_t n)
{
    return ckpt_put_u64(b, n) | (n ? buf_append(b, p, n) : 0);
}

int save_rti_part(struct federation *fx, struct buf *b, char *err, size_t errlen)
{
    int rc = ckpt_put_u32(b, SAVE_RTI_MAGIC) | ckpt_put_u32(b, SAVE_RTI_FORMAT);
    rc |= ckpt_put_str(b, fx->name) | ckpt_put_u64(b, fx->fingerprint);
    rc |= put_bytes(b, fx->fom_text, fx->fom_len);
    rc |= ckpt_put_u64(b, fx->next_fed) | ckpt_put_u64(b, fx->next_obj);
    rc |= ckpt_put_u32(b, fx->slot_cap) | ckpt_put_u32(b, fx->n_feds);
    size_t words = (size_t)(fx->n_classes + 1) * fx->attr_words;
    for (uint32_t h = 0; h < fx->handle_cap && rc == 0; h++) {
        const struct federate *f = fx->by_handle[h];
        if (!f) continue;
        char name[CKPT_NAME_MAX + 8];
        part_name(f, name, sizeof name);
        rc |= ckpt_put_u64(b, f->handle) | ckpt_put_u32(b, f->slot) | ckpt_put_str(b, f->name);
        rc |= ckpt_put_u32(b, f->resign_action) | ckpt_put_str(b, name);
        rc |= ckpt_put_u32(b, (uint32_t)words);
        for (size_t w = 0; w < words; w++)
            rc |= ckpt_put_u64(b, f->pub_attrs[w]) | ckpt_put_u64(b, f->sub_attrs[w]);
        rc |= ckpt_put_u32(b, fx->n_inters + 1);
        rc |= buf_append(b, f->pub_inter, fx->n_inters + 1);
        rc |= buf_append(b, f->sub_inter, fx->n_inters + 1);
        rc |= ckpt_put_u64(b, f->tso_bytes) | ckpt_put_i64(b, f->last_req);
        rc |= ckpt_put_u64(b, f->replay.len + f->held.len); /* what it gets at its rejoin */
        rc |=
            buf_append(b, f->replay.data, f->replay.len) | buf_append(b, f->held.data, f->held.len);
    }
    rc |= ckpt_put_u32(b, fx->n_objects);
    for (const struct object *o = fx->objects; o && rc == 0; o = o->next) {
        rc |= ckpt_put_u64(b, o->handle) | ckpt_put_u32(b, o->cls) | ckpt_put_str(b, o->name);
        rc |= ckpt_put_u64(b, o->owner ? o->owner->handle : 0) | ckpt_put_u64(b, o->owner_handle);
        uint32_t k = 0;
        for (uint32_t i = 0; i < fx->slot_cap; i++)
            k += fx->slots[i] && o->known[i];
        rc |= ckpt_put_u32(b, k);
        for (uint32_t i = 0; i < fx->slot_cap; i++)
            if (fx->slots[i] && o->known[i]) rc |= ckpt_put_u64(b, fx->slots[i]->handle);
    }
    uint32_t ns = 0;
    for (const struct syncpt *p = fx->syncs; p; p = p->next)
        ns++;
    rc |= ckpt_put_u32(b, ns);
    for (const struct syncpt *p = fx->syncs; p && rc == 0; p = p->next) {
        rc |= ckpt_put_str(b, p->label) | put_bytes(b, p->tag, p->tag_len);
        rc |= ckpt_put_u8(b, p->all ? 1 : 0) | ckpt_put_u32(b, p->n);
        for (uint32_t i = 0; i < p->n; i++)
            rc |= ckpt_put_u64(b, p->members[i]) | ckpt_put_u8(b, p->achieved[i]);
    }
    if (rc != 0) {
        snprintf(err, errlen, "out of memory writing the RTI's part");
        return -1;
    }
    return timesvc_save(fx, b, err, errlen);
}
