/* Federations and federates: create from FOM text, join with a unique name, resign with an
 * action for owned objects, destroy when empty; many fully isolated federations per server.
 * Serves doc/fom.md (federation services) and doc/rti.md (a dead federate is resigned).
 * Read rti/server/dm.c next. */
#include "rti/server/server_impl.h"

#include "rti/flog/flog.h"
#include "rti/server/limits.h"
#include "rti/server/log.h"
#include "rti/tm/tm.h"

#include <fnmatch.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define OBJ_BUCKETS_INITIAL 64u /* object hash buckets of a new federation (power of two) */

struct federation *federation_find(struct server *s, const char *name)
{
    for (struct federation *fx = s->feds; fx; fx = fx->next)
        if (strcmp(fx->name, name) == 0) return fx;
    return NULL;
}

struct federate *federation_federate(struct federation *fx, uint64_t handle)
{
    return handle < fx->handle_cap ? fx->by_handle[handle] : NULL;
}

static void federation_free(struct federation *fx)
{
    if (!fx) return;
    if (fx->flog) {
        char err[FLOG_ERR_LEN];
        flog_note(fx->flog, 0, FLOG_NOTE_CLOSED);
        if (flog_close(fx->flog, err, sizeof err) < 0)
            LOGW("flog", "-", "federation '%s': log: %s", fx->name, err);
        fx->flog = NULL;
    }
    if (fx->srv) limits_uncharge(fx->srv, &fx->creator, QR_UNJOINED, 1);
    timesvc_fini(fx);
    om_fini(fx);
    sync_fini(fx);
    dm_routes_fini(fx);
    free(fx->slots);
    free(fx->by_handle);
    fom_free(fx->fom);
    free(fx->fom_text);
    free(fx);
}

/* Does the per-federation setting --log-only select federation @p name? @p patterns is a
 * comma-separated list of fnmatch(3) globs; NULL or empty selects every federation. */
static int flog_wanted(const char *patterns, const char *name)
{
    if (!patterns || !*patterns) return 1;
    const char *p = patterns;
    while (*p) {
        const char *end = strchr(p, ',');
        size_t len = end ? (size_t)(end - p) : strlen(p);
        char pat[256];
        if (len > 0 && len < sizeof pat) {
            memcpy(pat, p, len);
            pat[len] = '\0';
            if (fnmatch(pat, name, 0) == 0) return 1;
        }
        if (!end) break;
        p = end + 1;
    }
    return 0;
}

int federation_create(struct server *s, const char *name, const char *fom_text, size_t fom_len,
                      struct federation **out, char *err, size_t errlen)
{
    char ferr[FOM_ERRLEN];
    *out = NULL;
    if (s->n_federations >= s->cfg.max_federations) {
        snprintf(err, errlen,
                 "federation '%s': the RTI already runs %u federations "
                 "(--max-federations)",
                 name, s->n_federations);
        return STATUS_EREFUSED;
    }
    if (!fom_text || fom_len == 0) {
        snprintf(err, errlen, "federation '%s': no FOM text given", name);
        return STATUS_EINVAL;
    }
    int lst = limits_fom(s, name, fom_len, err, errlen);
    if (lst != STATUS_OK) return lst;
    struct federation *fx = calloc(1, sizeof *fx);
    if (!fx) {
        snprintf(err, errlen, "federation '%s': out of memory", name);
        return STATUS_EREFUSED;
    }
    snprintf(fx->name, sizeof fx->name, "%s", name);
    fx->srv = s;
    fx->created_ms = limits_now_ms();
    if (fom_parse_mem(fom_text, fom_len, name, &fx->fom, ferr, sizeof ferr) != FOM_OK) {
        snprintf(err, errlen, "federation '%s': FOM does not parse: %s", name, ferr);
        free(fx);
        return STATUS_EFOM;
    }
    fx->fingerprint = fom_fingerprint(fx->fom);
    fx->fom_text = malloc(fom_len); /* a checkpoint stores it (save.c) */
    if (!fx->fom_text) {
        snprintf(err, errlen, "federation '%s': out of memory", name);
        federation_free(fx);
        return STATUS_EREFUSED;
    }
    memcpy(fx->fom_text, fom_text, fom_len);
    fx->fom_len = fom_len;
    /* The shortest of 15 or 17 significant digits that reads back to the same double. */
    double res = fom_resolution(fx->fom);
    snprintf(fx->resolution, sizeof fx->resolution, "%.15g", res);
    double back = strtod(fx->resolution, NULL);
    if (memcmp(&back, &res, sizeof res) != 0) /* same bits, not a float comparison */
        snprintf(fx->resolution, sizeof fx->resolution, "%.17g", res);
    fx->n_classes = fom_class_count(fx->fom);
    fx->n_attrs = fom_attr_count(fx->fom);
    fx->n_inters = fom_inter_count(fx->fom);
    fx->attr_words = (fx->n_attrs + 1 + 63) / 64;
    fx->next_fed = 1;
    fx->next_obj = 1;
    fx->obj_buckets = OBJ_BUCKETS_INITIAL;
    fx->obj_by_handle = calloc(fx->obj_buckets, sizeof *fx->obj_by_handle);
    fx->obj_by_name = calloc(fx->obj_buckets, sizeof *fx->obj_by_name);
    fx->cls_routes = calloc(fx->n_classes + 1, sizeof *fx->cls_routes);
    fx->inter_routes = calloc(fx->n_inters + 1, sizeof *fx->inter_routes);
    if (!fx->obj_by_handle || !fx->obj_by_name || !fx->cls_routes || !fx->inter_routes) {
        snprintf(err, errlen, "federation '%s': out of memory", name);
        federation_free(fx);
        return STATUS_EREFUSED;
    }
    if (timesvc_init(fx, err, errlen) != 0) {
        federation_free(fx);
        return STATUS_EREFUSED;
    }
    if (s->cfg.flog_dir && flog_wanted(s->cfg.flog_only, name)) {
        char path[512], lerr[FLOG_ERR_LEN];
        /* Stamps are the system clock in ns (CLOCK_REALTIME), read once per received frame
         * (flog_hold_stamp in server.c) and once per record outside a frame. */
        struct flog_info info = {fx->name, fom_text, fom_len, fx->resolution, 0};
        if (flog_open_dir(&fx->flog, s->cfg.flog_dir, &info, path, sizeof path, lerr,
                          sizeof lerr) != FLOG_OK) {
            LOGW("flog", "-", "federation '%s': no federation log: %s", name, lerr);
        } else {
            LOGI("flog", "-", "federation '%s': logging to %s", name, path);
            snprintf(fx->flog_path, sizeof fx->flog_path, "%s", path);
        }
    }
    fx->next = s->feds;
    s->feds = fx;
    s->n_federations++;
    LOGI("fed", "-", "federation '%s' created (FOM '%s', fingerprint %016llx, %s s/tick)", name,
         fom_name(fx->fom), (unsigned long long)fx->fingerprint, fx->resolution);
    *out = fx;
    return STATUS_OK;
}

void federation_destroy(struct server *s, struct federation *fx)
{
    save_fini(fx); /* an open save ends without an outcome: nobody is left to tell */
    /* At shutdown federates may remain only if a connection was lost without on_close;
     * resign them so that tm reports (and we free) every queued payload. */
    for (uint32_t i = 0; i < fx->slot_cap; i++)
        if (fx->slots[i])
            federate_resign(s, fx->slots[i], WIRE_RESIGN_DELETE_OBJECTS, WIRE_REASON_EXPELLED,
                            "federation destroyed");
    for (struct federation **p = &s->feds; *p; p = &(*p)->next) {
        if (*p == fx) {
            *p = fx->next;
            s->n_federations--;
            break;
        }
    }
    LOGI("fed", "-", "federation '%s' destroyed", fx->name);
    federation_free(fx);
}

/* Make room for one more federate: a free slot index, growing slots (and every object's
 * known[] array) when full. Returns the slot or UINT32_MAX. */
static uint32_t free_slot(struct federation *fx)
{
    for (uint32_t i = 0; i < fx->slot_cap; i++)
        if (!fx->slots[i]) return i;
    uint32_t cap = fx->slot_cap ? 2 * fx->slot_cap : 8;
    struct federate **ns = realloc(fx->slots, cap * sizeof *ns);
    if (!ns) return UINT32_MAX;
    memset(ns + fx->slot_cap, 0, (cap - fx->slot_cap) * sizeof *ns);
    fx->slots = ns;
    if (om_slots_grow(fx, cap) != 0) return UINT32_MAX;
    uint32_t slot = fx->slot_cap;
    fx->slot_cap = cap;
    return slot;
}

int federate_join(struct server *s, struct federation *fx, const char *name, struct link *c,
                  struct federate **out, char *err, size_t errlen)
{
    *out = NULL;
    for (uint32_t i = 0; i < fx->slot_cap; i++) {
        if (fx->slots[i] && strcmp(fx->slots[i]->name, name) == 0) {
            snprintf(err, errlen, "federate name '%s' is already joined to federation '%s'", name,
                     fx->name);
            return STATUS_EEXISTS;
        }
    }
    if (fx->n_feds >= s->cfg.max_federates) {
        snprintf(err, errlen, "federation '%s' is full: %u federates (--max-federates)", fx->name,
                 fx->n_feds);
        return STATUS_EREFUSED;
    }
    if (fx->next_fed >= TM_MAX_HANDLE) {
        snprintf(err, errlen, "federation '%s' has used all %u federate handles", fx->name,
                 TM_MAX_HANDLE - 1);
        return STATUS_EREFUSED;
    }
    uint64_t handle = fx->next_fed;
    if (handle >= fx->handle_cap) {
        uint32_t cap = fx->handle_cap ? 2 * fx->handle_cap : 16;
        while (cap <= handle)
            cap *= 2;
        struct federate **nb = realloc(fx->by_handle, cap * sizeof *nb);
        if (!nb) goto nomem;
        memset(nb + fx->handle_cap, 0, (cap - fx->handle_cap) * sizeof *nb);
        fx->by_handle = nb;
        fx->handle_cap = cap;
    }
    uint32_t slot = free_slot(fx);
    if (slot == UINT32_MAX) goto nomem;
    struct federate *f = calloc(1, sizeof *f);
    if (!f) goto nomem;
    f->handle = handle;
    f->slot = slot;
    f->fx = fx;
    f->conn = c;
    f->resign_action = WIRE_RESIGN_DELETE_OBJECTS;
    f->last_req = -1;
    snprintf(f->name, sizeof f->name, "%s", name);
    snprintf(f->tag, sizeof f->tag, "%s@%s", name, fx->name);
    if (dm_federate_init(fx, f) != 0) {
        free(f);
        goto nomem;
    }
    if (timesvc_join(s, f) != 0) {
        dm_federate_fini(f);
        free(f);
        goto nomem;
    }
    fx->next_fed++;
    fx->slots[slot] = f;
    fx->by_handle[handle] = f;
    fx->n_feds++;
    fx->ever_joined = 1;
    limits_uncharge(s, &fx->creator, QR_UNJOINED, 1); /* joined: no longer its creator's */
    fx->routes_dirty = 1;
    *out = f;
    return STATUS_OK;
nomem:
    snprintf(err, errlen, "federation '%s': out of memory joining '%s'", fx->name, name);
    return STATUS_EREFUSED;
}

void federate_resign(struct server *s, struct federate *f, uint32_t action, uint32_t reason,
                     const char *why)
{
    struct federation *fx = f->fx;
    LOGI("fed", f->tag, "resigns from '%s' (%s; objects: %s)", fx->name, why,
         action == WIRE_RESIGN_KEEP_OBJECTS ? "kept" : "deleted");
    f->conn = NULL; /* nothing more is sent to it */
    /* a save under way fails naming it (finish sends it nothing: its conn is gone) */
    if (fx->save)
        save_federate_event(s, f,
                            reason == WIRE_REASON_RESIGNED ? "resigned during the save"
                                                           : "was lost during the save");
    restore_unpark(f);
    uint32_t owned = f->n_owned;
    om_federate_gone(s, f, action);
    if (action != WIRE_RESIGN_KEEP_OBJECTS) limits_released(s, owned);
    sync_federate_gone(s, f);
    fx->slots[f->slot] = NULL;
    fx->by_handle[f->handle] = NULL;
    fx->n_feds--;
    fx->routes_dirty = 1;
    struct wire_msg m;
    wire_msg_init(&m, WIRE_FEDERATE_RESIGNED);
    m.a = f->handle;
    m.code = reason;
    wire_str_set(&m.str[0], f->name);
    wire_str_set(&m.str[1], why);
    federation_broadcast(s, fx, NULL, &m);
    /* Last, so that grants it releases reach the others after they learn why. */
    timesvc_resign(s, f);
    dm_federate_fini(f);
    save_federate_fini(f);
    free(f->hist);
    free(f);
}

void federation_expire(struct server *s)
{
    int64_t now = limits_now_ms();
    for (struct federation *fx = s->feds, *nx; fx; fx = nx) {
        nx = fx->next;
        if (fx->ever_joined || fx->n_feds > 0 || now - fx->created_ms < s->cfg.unjoined_ms)
            continue;
        LOGI("fed", "-",
             "federation '%s': nobody joined it within %d ms of its creation "
             "(--unjoined-federation-ms): destroyed",
             fx->name, s->cfg.unjoined_ms);
        federation_destroy(s, fx);
    }
}

int federation_reap(struct server *s, struct federation *fx)
{
    if (!fx || !fx->ever_joined || fx->n_feds > 0 || s->cfg.keep_federations || s->stopping ||
        s->dispatching || fx->n_objects > 0)
        return 0;
    /* Every run of a federation gets its own federation log (doc/log.md): the next JOIN with
     * the create flag makes a new federation, and a new file. */
    LOGI("fed", "-", "federation '%s': its last federate left", fx->name);
    federation_destroy(s, fx);
    return 1;
}

void federation_flog_check(struct federation *fx)
{
    if (fx->flog && !fx->flog_warned && flog_error(fx->flog)[0]) {
        fx->flog_warned = 1;
        LOGW("flog", "-", "federation '%s': federation log stopped: %s", fx->name,
             flog_error(fx->flog));
    }
}

int federate_send_unlogged(struct server *s, struct federate *to, const void *bytes, size_t n)
{
    if (!to->conn) return -1;
    /* across a save (and until a restored federate rejoins) its state frames wait: save.c */
    if ((to->holding || to->save_state == SAVE_FED_TOLD) && save_hold_frame(to, bytes, n)) return 0;
    const uint8_t *b = bytes;
    LOGT("fed", to->tag, "send %s (%zu bytes)",
         wire_type_name(n >= WIRE_HEADER_SIZE ? (unsigned)(b[4] | b[5] << 8) : 0), n);
    s->frames_out++;
    return link_send(to->conn, bytes, n);
}

int federate_send(struct server *s, struct federate *to, const void *bytes, size_t n)
{
    if (!to->conn) return -1;
    flog_frame(to->fx->flog, FLOG_K_SENT, (uint32_t)to->handle, bytes, n);
    return federate_send_unlogged(s, to, bytes, n);
}

void federation_broadcast(struct server *s, struct federation *fx, struct federate *skip,
                          const struct wire_msg *m)
{
    char err[200];
    buf_clear(&s->out);
    if (wire_encode(&s->out, m, (uint32_t)s->hub.lim.max_frame, err, sizeof err) != WIRE_OK) {
        LOGE("fed", "-", "cannot encode %s: %s", wire_type_name(m->type), err);
        return;
    }
    for (uint32_t i = 0; i < fx->slot_cap; i++) {
        struct federate *o = fx->slots[i];
        if (o && o != skip) federate_send(s, o, s->out.data, s->out.len);
    }
}
