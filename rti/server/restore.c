/* A federation from a checkpoint (RESTORE_FEDERATION): the folder is verified whole
 * (ckpt_open), the RTI's part decoded and checked, and the federation rebuilt as it was at
 * the save: its FOM, every federate parked under its saved handle and slot until it rejoins,
 * declarations, objects, sync points, queued time-stamped messages and the time-management
 * engine; then each federate's rejoin (JOIN with WIRE_JOIN_RESTORE) hands back its part.
 * Serves doc/checkpoint.md ("Restore", "The RTI's part"). Read rti/server/save.c first. */
#include "rti/server/server_impl.h"

#include "rti/flog/flog.h"
#include "rti/server/log.h"
#include "rti/tm/tm.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define RESTORE_RTI_MAGIC  0x49545254u /* "TRTI", as save.c writes it */
#define RESTORE_RTI_FORMAT 1u
#define RESTORE_SLOTS_MAX  (1u << 20) /* slots of a saved federation at most */
#define RESTORE_CHUNK_ROOM 512u       /* bytes of a RESTORE_PART frame besides its chunk */

/* ---- parking: a restored federate that has not rejoined yet ------------------------------- */

/* Its stand-in connection: every frame sent to it is kept (in its `held`) until it rejoins,
 * so the code that sends to federates needs no case of its own. */
struct park {
    struct link link;
    struct client cl;
    struct federate *f;
};

static int park_send(struct link *l, const void *bytes, size_t n)
{
    struct park *p = (struct park *)l;
    return buf_append(&p->f->held, bytes, n) == 0 ? 0 : -1;
}

static void park_close(struct link *l, const char *reason, int flush)
{
    (void)l;
    (void)reason;
    (void)flush; /* nothing to close: the federate rejoins or the federation goes */
}

static void park_label(struct link *l, const char *label)
{
    l->label = label;
}

static const struct link_ops park_ops = {park_send, park_close, park_label, NULL};

static int park(struct federate *f)
{
    struct park *p = calloc(1, sizeof *p);
    if (!p) return -1;
    p->link.ops = &park_ops;
    p->link.user = &p->cl;
    p->link.label = f->tag;
    snprintf(p->link.addr, sizeof p->link.addr, "restoring");
    p->cl.fed = f;
    p->cl.authed = 1;
    p->f = f;
    f->park = p;
    f->conn = &p->link;
    f->holding = 1;
    return 0;
}

void restore_unpark(struct federate *f)
{
    if (!f->park) return;
    if (f->conn == &f->park->link) f->conn = NULL;
    free(f->park);
    f->park = NULL;
}

/* ---- decoding the RTI's part (the layout of save_rti_part) ------------------------------- */

/* u64 length + bytes, pointing into the part. NULL and d->bad on an overrun. */
static const uint8_t *get_bytes(struct ckpt_dec *d, size_t *n)
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

/* Free the federates built so far (a restore that failed before the engine was restored:
 * nothing else refers to them but the objects, freed first). */
static void drop_federates(struct federation *fx)
{
    om_fini(fx);
    sync_fini(fx);
    for (uint32_t i = 0; i < fx->slot_cap; i++) {
        struct federate *f = fx->slots[i];
        if (!f) continue;
        restore_unpark(f);
        dm_federate_fini(f);
        save_federate_fini(f);
        free(f);
        fx->slots[i] = NULL;
    }
    if (fx->by_handle) memset(fx->by_handle, 0, fx->handle_cap * sizeof *fx->by_handle);
    fx->n_feds = 0;
}

static struct federate *find_name(struct federation *fx, const char *name)
{
    for (uint32_t i = 0; i < fx->slot_cap; i++)
        if (fx->slots[i] && strcmp(fx->slots[i]->name, name) == 0) return fx->slots[i];
    return NULL;
}

/* One saved federate: parked under its handle and slot, with its declarations, its held
 * frames and its own part (from the folder). */
static int load_federate(struct federation *fx, struct ckpt_dec *d, const struct ckpt_reader *r,
                         uint64_t prev, char *err, size_t errlen)
{
    char name[RTI_NAME_MAX], part[CKPT_NAME_MAX + 8];
    uint64_t h = ckpt_get_u64(d);
    uint32_t slot = ckpt_get_u32(d);
    ckpt_get_str(d, name, sizeof name);
    uint32_t action = ckpt_get_u32(d);
    ckpt_get_str(d, part, sizeof part);
    uint32_t words = ckpt_get_u32(d);
    size_t want = (size_t)(fx->n_classes + 1) * fx->attr_words;
    if (d->bad || h <= prev || h >= fx->next_fed || h >= TM_MAX_HANDLE || slot >= fx->slot_cap ||
        fx->slots[slot] || !name[0] || find_name(fx, name) || action > WIRE_RESIGN_KEEP_OBJECTS ||
        words != want) {
        snprintf(err, errlen,
                 "federate record after handle %llu: bad handle, slot, name or FOM "
                 "size",
                 (unsigned long long)prev);
        return -1;
    }
    if (h >= fx->handle_cap) {
        uint32_t cap = fx->handle_cap ? fx->handle_cap : 16;
        while (cap <= h)
            cap *= 2;
        struct federate **nb = realloc(fx->by_handle, cap * sizeof *nb);
        if (!nb) goto nomem;
        memset(nb + fx->handle_cap, 0, (cap - fx->handle_cap) * sizeof *nb);
        fx->by_handle = nb;
        fx->handle_cap = cap;
    }
    struct federate *f = calloc(1, sizeof *f);
    if (!f) goto nomem;
    f->handle = h;
    f->slot = slot;
    f->fx = fx;
    f->resign_action = action;
    snprintf(f->name, sizeof f->name, "%s", name);
    snprintf(f->tag, sizeof f->tag, "%s@%s", name, fx->name);
    if (dm_federate_init(fx, f) != 0) {
        free(f);
        goto nomem;
    }
    /* in the federation from here on: drop_federates frees it on a later failure */
    fx->slots[slot] = f;
    fx->by_handle[h] = f;
    fx->n_feds++;
    for (size_t w = 0; w < words; w++) {
        f->pub_attrs[w] = ckpt_get_u64(d);
        f->sub_attrs[w] = ckpt_get_u64(d);
    }
    uint32_t ni = ckpt_get_u32(d);
    if (d->bad || ni != fx->n_inters + 1 || 2 * (size_t)ni > d->n - d->off) {
        snprintf(err, errlen, "federate '%s': interaction tables of the wrong size", name);
        return -1;
    }
    memcpy(f->pub_inter, d->p + d->off, ni);
    memcpy(f->sub_inter, d->p + d->off + ni, ni);
    d->off += 2 * (size_t)ni;
    f->tso_bytes = (size_t)ckpt_get_u64(d);
    f->last_req = ckpt_get_i64(d);
    size_t nh;
    const uint8_t *held = get_bytes(d, &nh);
    if (d->bad) {
        snprintf(err, errlen, "federate '%s': record cut short", name);
        return -1;
    }
    const uint8_t *own;
    size_t own_len;
    if (ckpt_part(r, part, &own, &own_len) != CKPT_OK) {
        snprintf(err, errlen, "federate '%s': the checkpoint has no part '%s'", name, part);
        return -1;
    }
    if ((nh && buf_append(&f->held, held, nh) != 0) || park(f) != 0 ||
        (own_len && !(f->restore_part = malloc(own_len))))
        goto nomem;
    if (own_len) memcpy(f->restore_part, own, own_len);
    f->restore_len = own_len;
    return 0;
nomem:
    snprintf(err, errlen, "out of memory restoring federate '%s'", name);
    return -1;
}

static int load_objects(struct federation *fx, struct ckpt_dec *d, char *err, size_t errlen)
{
    uint32_t n = ckpt_get_u32(d);
    for (uint32_t i = 0; i < n && !d->bad; i++) {
        char name[RTI_NAME_MAX];
        uint64_t h = ckpt_get_u64(d);
        uint32_t cls = ckpt_get_u32(d);
        ckpt_get_str(d, name, sizeof name);
        uint64_t owner = ckpt_get_u64(d), owner_handle = ckpt_get_u64(d);
        uint32_t k = ckpt_get_u32(d);
        if (d->bad || k > fx->n_feds || (owner && !federation_federate(fx, owner))) {
            snprintf(err, errlen, "object %u: record cut short, or unknown owner", i);
            return -1;
        }
        struct object *o;
        if (om_restore(fx, h, cls, name, owner ? federation_federate(fx, owner) : NULL,
                       owner_handle, &o, err, errlen) != 0)
            return -1;
        for (uint32_t j = 0; j < k; j++) {
            struct federate *kf = federation_federate(fx, ckpt_get_u64(d));
            if (!kf || d->bad) {
                snprintf(err, errlen, "object '%s': discovered by an unknown federate", name);
                return -1;
            }
            o->known[kf->slot] = 1;
        }
    }
    if (d->bad) snprintf(err, errlen, "objects: record cut short");
    return d->bad ? -1 : 0;
}

static int load_syncs(struct federation *fx, struct ckpt_dec *d, char *err, size_t errlen)
{
    uint32_t n = ckpt_get_u32(d);
    for (uint32_t i = 0; i < n && !d->bad; i++) {
        char label[RTI_NAME_MAX];
        size_t tag_len;
        ckpt_get_str(d, label, sizeof label);
        const uint8_t *tag = get_bytes(d, &tag_len);
        uint8_t all = ckpt_get_u8(d);
        uint32_t m = ckpt_get_u32(d);
        if (d->bad || all > 1 || m > fx->n_feds || tag_len > UINT32_MAX) {
            snprintf(err, errlen, "synchronization point %u: record cut short or malformed", i);
            return -1;
        }
        uint64_t *mem = calloc(m ? m : 1, sizeof *mem);
        uint8_t *ach = calloc(m ? m : 1, 1);
        int rc = mem && ach ? 0 : -1;
        for (uint32_t j = 0; j < m && rc == 0; j++) {
            mem[j] = ckpt_get_u64(d);
            ach[j] = ckpt_get_u8(d);
        }
        if (rc != 0 || d->bad)
            snprintf(err, errlen, "synchronization point '%s': cut short or no memory", label);
        else
            rc = sync_restore(fx, label, tag, (uint32_t)tag_len, all, mem, ach, m, err, errlen);
        free(mem);
        free(ach);
        if (rc != 0 || d->bad) return -1;
    }
    return 0;
}

/* Rebuild fx (created from the saved FOM, empty) from the RTI's part after its header. */
static int load_body(struct federation *fx, struct ckpt_dec *d, const struct ckpt_reader *r,
                     char *err, size_t errlen)
{
    fx->next_fed = ckpt_get_u64(d);
    fx->next_obj = ckpt_get_u64(d);
    uint32_t slot_cap = ckpt_get_u32(d), n = ckpt_get_u32(d);
    if (d->bad || fx->next_fed == 0 || fx->next_fed > TM_MAX_HANDLE || fx->next_obj == 0 ||
        slot_cap > RESTORE_SLOTS_MAX || n > slot_cap) {
        snprintf(err, errlen, "federation record: counters out of range");
        return -1;
    }
    if (slot_cap) {
        fx->slots = calloc(slot_cap, sizeof *fx->slots);
        if (!fx->slots) {
            snprintf(err, errlen, "out of memory for %u slots", slot_cap);
            return -1;
        }
        fx->slot_cap = slot_cap;
    }
    uint64_t prev = 0;
    for (uint32_t i = 0; i < n; i++) {
        if (load_federate(fx, d, r, prev, err, errlen) != 0) return -1;
        for (uint32_t k = 0; k < fx->slot_cap; k++)
            if (fx->slots[k] && fx->slots[k]->handle > prev) prev = fx->slots[k]->handle;
    }
    if (load_objects(fx, d, err, errlen) != 0 || load_syncs(fx, d, err, errlen) != 0) return -1;
    fx->routes_dirty = 1;
    fx->ever_joined = 1;
    return 0;
}

/* ---- RESTORE_FEDERATION -------------------------------------------------------------------- */

/* Open the folder and decode the header of its RTI part. STATUS_OK with *rd, the saved name,
 * fingerprint and FOM (pointing into the part), and d after the header; else a STATUS_*. */
static int open_checkpoint(const char *path, struct ckpt_reader **rd, struct ckpt_dec *d,
                           char *saved, size_t saved_cap, uint64_t *fp, const uint8_t **fom,
                           size_t *fom_len, char *err, size_t errlen)
{
    char cerr[CKPT_ERR_LEN];
    const uint8_t *p;
    size_t n;
    if (ckpt_open(rd, path, cerr, sizeof cerr) != CKPT_OK) {
        snprintf(err, errlen, "RESTORE_FEDERATION: %s", cerr);
        return STATUS_ECKPT;
    }
    if (ckpt_part(*rd, "rti", &p, &n) != CKPT_OK) {
        snprintf(err, errlen,
                 "RESTORE_FEDERATION: checkpoint %.600s has no part 'rti' (not a "
                 "federation's checkpoint)",
                 path);
        return STATUS_ECKPT;
    }
    ckpt_dec_init(d, p, n);
    uint32_t magic = ckpt_get_u32(d), version = ckpt_get_u32(d);
    ckpt_get_str(d, saved, saved_cap);
    *fp = ckpt_get_u64(d);
    *fom = get_bytes(d, fom_len);
    if (d->bad || magic != RESTORE_RTI_MAGIC || version != RESTORE_RTI_FORMAT || !saved[0] ||
        *fom_len == 0) {
        snprintf(err, errlen,
                 "RESTORE_FEDERATION: %.600s/rti: not an RTI part of format %u (magic %08x, "
                 "version %u)",
                 path, RESTORE_RTI_FORMAT, magic, version);
        return STATUS_ECKPT;
    }
    return STATUS_OK;
}

void restore_handle(struct server *s, struct link *c, const struct wire_msg *m)
{
    char path[1024], name[RTI_NAME_MAX], saved[RTI_NAME_MAX], err[2 * RTI_ERR_MAX],
        why[RTI_ERR_MAX];
    struct ckpt_reader *rd = NULL;
    struct ckpt_dec d;
    struct federation *fx = NULL;
    uint64_t fp = 0;
    const uint8_t *fom = NULL;
    size_t fom_len = 0;
    int st = STATUS_OK;
    if (m->str[1].len == 0 || wire_str_copy(&m->str[1], path, sizeof path) != 0 ||
        wire_str_copy(&m->str[0], name, sizeof name) != 0) {
        snprintf(err, sizeof err,
                 "RESTORE_FEDERATION: the folder must be 1..1023 bytes and the "
                 "name 0..127");
        st = STATUS_EINVAL;
    }
    if (st == STATUS_OK)
        st = open_checkpoint(path, &rd, &d, saved, sizeof saved, &fp, &fom, &fom_len, err,
                             sizeof err);
    if (st == STATUS_OK && !name[0]) snprintf(name, sizeof name, "%s", saved);
    federation_expire(s);
    if (st == STATUS_OK && federation_find(s, name)) {
        snprintf(err, sizeof err, "RESTORE_FEDERATION: federation '%s' already exists", name);
        st = STATUS_EEXISTS;
    }
    if (st == STATUS_OK)
        st = federation_create(s, name, (const char *)fom, fom_len, &fx, err, sizeof err);
    if (st == STATUS_OK && fx->fingerprint != fp) {
        snprintf(err, sizeof err,
                 "RESTORE_FEDERATION: %.600s/rti: its FOM does not match its "
                 "fingerprint",
                 path);
        st = STATUS_ECKPT;
    }
    if (st == STATUS_OK && load_body(fx, &d, rd, why, sizeof why) != 0) {
        snprintf(err, sizeof err, "RESTORE_FEDERATION: %.600s/rti: %s", path, why);
        st = STATUS_ECKPT;
    }
    if (st == STATUS_OK && timesvc_restore(fx, &d, why, sizeof why) != 0) {
        snprintf(err, sizeof err, "RESTORE_FEDERATION: %.600s/rti: %s", path, why);
        st = STATUS_ECKPT;
    }
    if (st == STATUS_OK && d.off != d.n) {
        /* the engine holds the records now: nothing may fail after timesvc_restore but this
         * check, so the federation is destroyed as a whole (its federates resign) */
        snprintf(err, sizeof err, "RESTORE_FEDERATION: %.600s/rti: %zu bytes after the last record",
                 path, d.n - d.off);
        federation_destroy(s, fx);
        fx = NULL;
        st = STATUS_ECKPT;
    }
    if (st != STATUS_OK) {
        if (fx) {
            drop_federates(fx);
            federation_destroy(s, fx);
        }
        ckpt_close(rd);
        LOGW("save", c->label, "%s", err);
        server_refuse(s, c, m->req, m->type, (uint32_t)st, err);
        return;
    }
    snprintf(fx->restored_from, sizeof fx->restored_from, "%s", ckpt_label(rd));
    if (fx->flog) {
        /* the engine's state after the text: tempo-log explain re-runs from it */
        char note[RTI_ERR_MAX + 512], terr[TM_ERR_LEN];
        struct buf tmb;
        buf_init(&tmb);
        snprintf(note, sizeof note, FLOG_NOTE_RESTORED " '%s' at %lld: %.600s (federation '%s')",
                 ckpt_label(rd), (long long)ckpt_time(rd), path, saved);
        if (tm_save(fx->tm, &tmb, terr, sizeof terr) != TM_OK ||
            flog_note_data(fx->flog, 0, note, tmb.data, tmb.len) != FLOG_OK) {
            LOGW("flog", "-", "federation '%s': the log lacks the restored state", fx->name);
            flog_note(fx->flog, 0, note);
        }
        buf_fini(&tmb);
        for (uint32_t h = 0; h < fx->handle_cap; h++)
            if (fx->by_handle[h]) flog_joined(fx->flog, h, fx->by_handle[h]->name);
    }
    LOGI("save", c->label,
         "federation '%s' restored from %s (save '%s' at %lld, %u federates "
         "to rejoin)",
         fx->name, path, ckpt_label(rd), (long long)ckpt_time(rd), fx->n_feds);
    ckpt_close(rd);
    if (m->req) server_reply(s, c, m->req, STATUS_OK, fx->fingerprint, "");
}

/* ---- the rejoin ---------------------------------------------------------------------------- */

int restore_rejoin(struct server *s, struct federation *fx, const char *name, struct link *c,
                   struct client *cl, const struct wire_msg *m, const uint8_t *frame, size_t len,
                   const char *verdict, char *err, size_t errlen)
{
    struct federate *f = find_name(fx, name);
    if (!f) {
        snprintf(err, errlen, "federation '%s'%s%s%s has no saved federate '%s'", fx->name,
                 fx->restored_from[0] ? " (restored from '" : " (not restored", fx->restored_from,
                 fx->restored_from[0] ? "')" : ")", name);
        return STATUS_ENOTFOUND;
    }
    if (!f->park) {
        snprintf(err, errlen, "federate '%s' of federation '%s' has rejoined already", name,
                 fx->name);
        return STATUS_EEXISTS;
    }
    restore_unpark(f);
    f->conn = c;
    cl->fed = f;
    link_joined(c);
    f->resign_action =
        (m->code & WIRE_JOIN_KEEP_OBJECTS) ? WIRE_RESIGN_KEEP_OBJECTS : WIRE_RESIGN_DELETE_OBJECTS;
    link_set_label(c, f->tag);
    flog_frame_client(fx->flog, (uint32_t)f->handle, frame, len, m, verdict);
    if (fx->flog) {
        char note[RTI_NAME_MAX + 40];
        snprintf(note, sizeof note, FLOG_NOTE_REJOINED " '%s'", f->name);
        flog_note(fx->flog, (uint32_t)f->handle, note);
    }
    tm_status ts;
    int64_t t = tm_query(fx->tm, (tm_fed)f->handle, &ts, NULL, 0) == TM_OK ? ts.time : 0;
    /* Its part, in chunks that fit the library's frames whatever --max-frame says. */
    size_t lim = s->hub.lim.max_frame < WIRE_MAX_FRAME_DEFAULT ? s->hub.lim.max_frame
                                                               : WIRE_MAX_FRAME_DEFAULT;
    size_t chunk = lim > 2 * RESTORE_CHUNK_ROOM ? lim - RESTORE_CHUNK_ROOM : RESTORE_CHUNK_ROOM;
    size_t off = 0;
    do {
        size_t k = f->restore_len - off < chunk ? f->restore_len - off : chunk;
        struct wire_msg p;
        wire_msg_init(&p, WIRE_RESTORE_PART);
        p.req = m->req;
        p.code = off + k < f->restore_len ? 1u : 0u;
        p.time = t;
        wire_str_set(&p.str[0], fx->restored_from);
        p.str[1].ptr = (const char *)f->restore_part + off;
        p.str[1].len = (uint32_t)k;
        server_send(s, c, &p);
        off += k;
    } while (off < f->restore_len);
    free(f->restore_part);
    f->restore_part = NULL;
    f->restore_len = 0;
    struct wire_msg r;
    wire_msg_init(&r, WIRE_JOIN_OK);
    r.req = m->req;
    r.a = f->handle;
    r.b = fx->fingerprint;
    r.time = t;
    wire_str_set(&r.str[0], fx->name);
    wire_str_set(&r.str[1], fx->resolution);
    server_send(s, c, &r);
    /* what the federation sent it since the save (and before, when it was held then) */
    f->holding = 0;
    if (f->held.len) link_send(c, f->held.data, f->held.len);
    buf_clear(&f->held);
    LOGI("fed", f->tag, "rejoined federation '%s' as federate %llu (restored from '%s')", fx->name,
         (unsigned long long)f->handle, fx->restored_from);
    return STATUS_OK;
}
