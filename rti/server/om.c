/* Object management: register (optional unique name), discover (also for late subscribers
 * and joiners), update -> reflect of the subscribed attributes only, delete -> remove,
 * interactions, request attribute value update -> provide. Time-stamped messages go through
 * timesvc.c (tm decides their delivery); receive-order ones are queued at once.
 * Serves doc/fom.md; routing is O(subscribers) per update. Read rti/server/sync.c next. */
#include "rti/server/server_impl.h"

#include "rti/server/limits.h"
#include "rti/server/log.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define AUTO_NAME_PREFIX "HLAobject" /* names the RTI chooses; refused from federates */

/* ---- object tables ------------------------------------------------------------------------ */

static uint32_t name_hash(const char *s)
{
    uint32_t h = 2166136261u; /* FNV-1a */
    for (; *s; s++)
        h = (h ^ (uint8_t)*s) * 16777619u;
    return h;
}

static struct object *obj_find(const struct federation *fx, uint64_t handle)
{
    for (struct object *o = fx->obj_by_handle[handle & (fx->obj_buckets - 1)]; o; o = o->hnext)
        if (o->handle == handle) return o;
    return NULL;
}

static struct object *obj_find_name(const struct federation *fx, const char *name)
{
    for (struct object *o = fx->obj_by_name[name_hash(name) & (fx->obj_buckets - 1)]; o;
         o = o->nnext)
        if (strcmp(o->name, name) == 0) return o;
    return NULL;
}

static void obj_link(struct federation *fx, struct object *o)
{
    uint32_t m = fx->obj_buckets - 1;
    o->hnext = fx->obj_by_handle[o->handle & m];
    fx->obj_by_handle[o->handle & m] = o;
    uint32_t nh = name_hash(o->name) & m;
    o->nnext = fx->obj_by_name[nh];
    fx->obj_by_name[nh] = o;
}

/* Double the buckets when the tables get crowded (amortised O(1) per register). */
static void obj_rehash(struct federation *fx)
{
    uint32_t nb = fx->obj_buckets * 2;
    struct object **bh = calloc(nb, sizeof *bh), **bn = calloc(nb, sizeof *bn);
    if (!bh || !bn) {
        free(bh);
        free(bn);
        return; /* longer chains, still correct */
    }
    free(fx->obj_by_handle);
    free(fx->obj_by_name);
    fx->obj_by_handle = bh;
    fx->obj_by_name = bn;
    fx->obj_buckets = nb;
    for (struct object *o = fx->objects; o; o = o->next)
        obj_link(fx, o);
}

static void obj_remove(struct federation *fx, struct object *o)
{
    uint32_t m = fx->obj_buckets - 1;
    for (struct object **p = &fx->obj_by_handle[o->handle & m]; *p; p = &(*p)->hnext)
        if (*p == o) {
            *p = o->hnext;
            break;
        }
    for (struct object **p = &fx->obj_by_name[name_hash(o->name) & m]; *p; p = &(*p)->nnext)
        if (*p == o) {
            *p = o->nnext;
            break;
        }
    if (o->prev)
        o->prev->next = o->next;
    else
        fx->objects = o->next;
    if (o->next) o->next->prev = o->prev;
    if (o->owner) o->owner->n_owned--;
    limits_uncharge(fx->srv, &o->charge, QR_OBJECTS, 1);
    fx->n_objects--;
    free(o->name);
    free(o->known);
    free(o);
}

int om_slots_grow(struct federation *fx, uint32_t new_cap)
{
    for (struct object *o = fx->objects; o; o = o->next) {
        uint8_t *k = realloc(o->known, new_cap);
        if (!k) return -1;
        memset(k + fx->slot_cap, 0, new_cap - fx->slot_cap);
        o->known = k;
    }
    return 0;
}

void om_fini(struct federation *fx)
{
    while (fx->objects)
        obj_remove(fx, fx->objects);
    free(fx->obj_by_handle);
    free(fx->obj_by_name);
    fx->obj_by_handle = fx->obj_by_name = NULL;
}

/* ---- discovery ---------------------------------------------------------------------------- */

static void send_discover(struct server *s, struct federate *to, struct object *o, fom_handle known)
{
    struct wire_msg d;
    wire_msg_init(&d, WIRE_DISCOVER);
    d.a = o->handle;
    d.b = known;
    d.c = o->owner_handle;
    wire_str_set(&d.str[0], o->name);
    o->known[to->slot] = 1;
    server_send(s, to->conn, &d);
}

void om_discover_for(struct server *s, struct federate *f)
{
    struct federation *fx = f->fx;
    dm_routes_update(fx);
    for (struct object *o = fx->objects; o; o = o->next) {
        if (o->owner == f || o->known[f->slot]) continue;
        const struct route_list *l = &fx->cls_routes[o->cls];
        for (uint32_t i = 0; i < l->n; i++) {
            if (l->v[i].fed == f) {
                send_discover(s, f, o, l->v[i].known);
                break;
            }
        }
    }
}

/* ---- fan-out ------------------------------------------------------------------------------ */

/* Queue one encoded frame for a receiver: at once (receive order) or through tm. */
static void deliver(struct server *s, struct federate *to, int tso, const struct buf *frame)
{
    if (tso)
        timesvc_add(s, to, frame->data, frame->len);
    else
        federate_send(s, to, frame->data, frame->len);
}

static int encode(struct server *s, struct buf *b, const struct wire_msg *m)
{
    char err[200];
    buf_clear(b);
    int rc = wire_encode(b, m, (uint32_t)s->hub.lim.max_frame, err, sizeof err);
    if (rc != WIRE_OK) LOGE("om", "-", "cannot encode %s: %s", wire_type_name(m->type), err);
    return rc;
}

/* ---- requests ----------------------------------------------------------------------------- */

static int do_register(struct server *s, struct federate *f, const struct wire_msg *m,
                       uint64_t *handle, char *err, size_t errlen)
{
    struct federation *fx = f->fx;
    fom_handle cls = (fom_handle)m->a;
    char name[RTI_NAME_MAX];
    if (m->a == 0 || m->a > fx->n_classes) {
        snprintf(err, errlen, "REGISTER_OBJECT: no object class with handle %llu",
                 (unsigned long long)m->a);
        return STATUS_EHANDLE;
    }
    if (!dm_publishes_class(f, cls)) {
        snprintf(err, errlen, "REGISTER_OBJECT: federate '%s' does not publish class '%s'", f->name,
                 fom_class_qname(fx->fom, cls));
        return STATUS_ENOTPUB;
    }
    if (wire_str_copy(&m->str[0], name, sizeof name) != 0) {
        snprintf(err, errlen, "REGISTER_OBJECT: object name longer than %d bytes",
                 RTI_NAME_MAX - 1);
        return STATUS_EINVAL;
    }
    if (name[0] && strncmp(name, "HLA", 3) == 0) {
        snprintf(err, errlen, "REGISTER_OBJECT: object name '%s' starts with the reserved 'HLA'",
                 name);
        return STATUS_EINVAL;
    }
    if (name[0]) {
        struct object *dup = obj_find_name(fx, name);
        if (dup) {
            snprintf(err, errlen,
                     "REGISTER_OBJECT: object name '%s' is already registered (object %llu)", name,
                     (unsigned long long)dup->handle);
            return STATUS_EEXISTS;
        }
    } else {
        snprintf(name, sizeof name, AUTO_NAME_PREFIX "%llu", (unsigned long long)fx->next_obj);
    }
    /* Counted against the federation and the registrant's connection and address, kept
     * objects included: resigning with "keep" and rejoining under new names cannot pass the
     * limits (doc/rti.md "Memory quotas"). */
    struct charge ch;
    int lst = limits_charge(s, federate_accts(f), &ch, QR_OBJECTS, 1, "REGISTER_OBJECT", f->name,
                            err, errlen);
    if (lst != STATUS_OK) return lst;
    lst = limits_federation_objects(s, fx, err, errlen);
    if (lst != STATUS_OK) {
        limits_uncharge(s, &ch, QR_OBJECTS, 1);
        return lst;
    }
    struct object *o = calloc(1, sizeof *o);
    if (o) {
        o->name = strdup(name);
        o->known = calloc(fx->slot_cap ? fx->slot_cap : 1, 1);
    }
    if (!o || !o->name || !o->known) {
        if (o) {
            free(o->name);
            free(o->known);
        }
        free(o);
        limits_uncharge(s, &ch, QR_OBJECTS, 1);
        snprintf(err, errlen, "REGISTER_OBJECT: out of memory");
        return STATUS_EREFUSED;
    }
    o->charge = ch;
    o->handle = fx->next_obj++;
    o->cls = cls;
    o->owner = f;
    o->owner_handle = f->handle;
    f->n_owned++;
    o->next = fx->objects;
    if (fx->objects) fx->objects->prev = o;
    fx->objects = o;
    fx->n_objects++;
    obj_link(fx, o);
    if (fx->n_objects > 2 * fx->obj_buckets) obj_rehash(fx);
    *handle = o->handle;
    LOGD("om", f->tag, "registered object %llu '%s' of class '%s'", (unsigned long long)o->handle,
         o->name, fom_class_qname(fx->fom, cls));
    dm_routes_update(fx);
    const struct route_list *l = &fx->cls_routes[cls];
    for (uint32_t i = 0; i < l->n; i++)
        if (l->v[i].fed != f) send_discover(s, l->v[i].fed, o, l->v[i].known);
    return STATUS_OK;
}

/* Check an update's object, ownership and values before anything is routed. */
static int check_update(struct federate *f, const struct wire_msg *m, struct object **out,
                        char *err, size_t errlen)
{
    struct federation *fx = f->fx;
    struct object *o = obj_find(fx, m->a);
    if (!o) {
        snprintf(err, errlen, "UPDATE: no object with handle %llu", (unsigned long long)m->a);
        return STATUS_EHANDLE;
    }
    if (o->owner != f) {
        snprintf(err, errlen, "UPDATE: object '%s' is not owned by federate '%s'", o->name,
                 f->name);
        return STATUS_ENOTPUB;
    }
    struct wire_value_iter it;
    struct wire_value v;
    wire_value_iter_init(&it, m);
    while (wire_value_next(&it, &v)) {
        if (!fom_class_has_attr(fx->fom, o->cls, v.handle)) {
            snprintf(err, errlen,
                     "UPDATE of '%s': attribute handle %u is not an attribute of "
                     "class '%s'",
                     o->name, v.handle, fom_class_qname(fx->fom, o->cls));
            return STATUS_EHANDLE;
        }
        if (!dm_publishes_attr(f, o->cls, v.handle)) {
            snprintf(err, errlen,
                     "UPDATE of '%s': federate '%s' does not publish attribute "
                     "'%s' of class '%s'",
                     o->name, f->name, fom_attr_name(fx->fom, v.handle),
                     fom_class_qname(fx->fom, o->cls));
            return STATUS_ENOTPUB;
        }
        if (!fom_value_ok(fom_attr_type(fx->fom, v.handle), fom_attr_length(fx->fom, v.handle),
                          v.data, v.len)) {
            snprintf(err, errlen,
                     "UPDATE of '%s': attribute '%s' (%s) has an invalid value "
                     "of %u bytes",
                     o->name, fom_attr_name(fx->fom, v.handle),
                     fom_type_name(fom_attr_type(fx->fom, v.handle)), v.len);
            return STATUS_ESIZE;
        }
    }
    *out = o;
    return STATUS_OK;
}

/* UPDATE -> REFLECT to each subscriber that discovered the object, with only the attributes
 * it subscribes at the class it knows the object as. Cost O(subscribers x values); frames
 * are encoded into reused buffers (no allocation once warm). */
static int do_update(struct server *s, struct federate *f, const struct wire_msg *m, char *err,
                     size_t errlen)
{
    struct federation *fx = f->fx;
    struct object *o;
    int st = check_update(f, m, &o, err, errlen);
    if (st != STATUS_OK) return st;
    if (server_vals_reserve(s, m->nvalues) != 0) {
        snprintf(err, errlen, "UPDATE: out of memory");
        return STATUS_EREFUSED;
    }
    int tso = m->time != WIRE_TIME_NONE;
    struct wire_msg r;
    wire_msg_init(&r, WIRE_REFLECT);
    r.a = o->handle;
    r.code = tso ? WIRE_ORDER_TSO : WIRE_ORDER_RO;
    r.c = f->handle;
    r.time = m->time;
    r.str[0] = m->str[0];
    r.nvalues = m->nvalues;
    r.values_raw = m->values_raw;
    r.values_raw_len = m->values_raw_len;
    /* The unfiltered reflection first: it is the largest one, so if it fits every filtered
     * one fits, and an update whose reflection would pass --max-frame is refused to its
     * sender instead of being lost. */
    if (encode(s, &s->fan_full, &r) != WIRE_OK) {
        snprintf(err, errlen,
                 "UPDATE of '%s': its reflection would exceed the frame limit "
                 "(--max-frame %zu)",
                 o->name, s->hub.lim.max_frame);
        return STATUS_EINVAL;
    }
    if (tso) timesvc_begin(s, f, m->time);
    dm_routes_update(fx);
    const struct route_list *l = &fx->cls_routes[o->cls];
    for (uint32_t i = 0; i < l->n; i++) {
        struct federate *to = l->v[i].fed;
        if (to == f || !o->known[to->slot]) continue;
        /* Keep only the attributes subscribed at the class it knows the object as. */
        uint32_t n = 0;
        struct wire_value_iter it;
        struct wire_value v;
        wire_value_iter_init(&it, m);
        while (wire_value_next(&it, &v))
            if (dm_subscribes_attr(to, l->v[i].known, v.handle)) s->vals[n++] = v;
        if (n == 0) continue;
        if (n == m->nvalues) {
            deliver(s, to, tso, &s->fan_full);
            continue;
        }
        r.nvalues = n;
        r.values = s->vals;
        r.values_raw = NULL;
        r.values_raw_len = 0;
        if (encode(s, &s->fan, &r) == WIRE_OK) deliver(s, to, tso, &s->fan);
    }
    return tso ? timesvc_commit(s, f, err, errlen) : STATUS_OK;
}

static void send_removes(struct server *s, struct federate *from, struct object *o, int64_t time,
                         const struct wire_str *tag)
{
    struct federation *fx = from->fx;
    struct wire_msg r;
    int tso = time != WIRE_TIME_NONE;
    wire_msg_init(&r, WIRE_REMOVE_OBJECT);
    r.a = o->handle;
    r.code = tso ? WIRE_ORDER_TSO : WIRE_ORDER_RO;
    r.c = from->handle;
    r.time = time;
    if (tag) r.str[0] = *tag;
    if (encode(s, &s->fan, &r) != WIRE_OK) return;
    for (uint32_t i = 0; i < fx->slot_cap; i++) {
        struct federate *to = fx->slots[i];
        if (to && to != from && o->known[i]) deliver(s, to, tso, &s->fan);
    }
}

static int do_delete(struct server *s, struct federate *f, const struct wire_msg *m, char *err,
                     size_t errlen)
{
    struct federation *fx = f->fx;
    struct object *o = obj_find(fx, m->a);
    if (!o) {
        snprintf(err, errlen, "DELETE_OBJECT: no object with handle %llu",
                 (unsigned long long)m->a);
        return STATUS_EHANDLE;
    }
    if (o->owner != f) {
        snprintf(err, errlen, "DELETE_OBJECT: object '%s' is not owned by federate '%s'", o->name,
                 f->name);
        return STATUS_ENOTPUB;
    }
    int tso = m->time != WIRE_TIME_NONE;
    if (tso) timesvc_begin(s, f, m->time);
    send_removes(s, f, o, m->time, &m->str[0]);
    if (tso) {
        int st = timesvc_commit(s, f, err, errlen);
        if (st != STATUS_OK) return st; /* refused (bound): the object stays */
    }
    LOGD("om", f->tag, "deleted object %llu '%s'", (unsigned long long)o->handle, o->name);
    obj_remove(fx, o);
    return STATUS_OK;
}

/* Check an interaction's class, publication and parameters before anything is routed. */
static int check_interaction(struct federate *f, const struct wire_msg *m, char *err, size_t errlen)
{
    struct federation *fx = f->fx;
    fom_handle ic = (fom_handle)m->a;
    if (m->a == 0 || m->a > fx->n_inters) {
        snprintf(err, errlen, "SEND_INTERACTION: no interaction class with handle %llu",
                 (unsigned long long)m->a);
        return STATUS_EHANDLE;
    }
    if (!f->pub_inter[ic]) {
        snprintf(err, errlen, "SEND_INTERACTION: federate '%s' does not publish '%s'", f->name,
                 fom_inter_qname(fx->fom, ic));
        return STATUS_ENOTPUB;
    }
    struct wire_value_iter it;
    struct wire_value v;
    wire_value_iter_init(&it, m);
    while (wire_value_next(&it, &v)) {
        if (!fom_inter_has_param(fx->fom, ic, v.handle)) {
            snprintf(err, errlen,
                     "SEND_INTERACTION '%s': parameter handle %u is not a "
                     "parameter of it",
                     fom_inter_qname(fx->fom, ic), v.handle);
            return STATUS_EHANDLE;
        }
        if (!fom_value_ok(fom_param_type(fx->fom, v.handle), fom_param_length(fx->fom, v.handle),
                          v.data, v.len)) {
            snprintf(err, errlen,
                     "SEND_INTERACTION '%s': parameter '%s' (%s) has an invalid "
                     "value of %u bytes",
                     fom_inter_qname(fx->fom, ic), fom_param_name(fx->fom, v.handle),
                     fom_type_name(fom_param_type(fx->fom, v.handle)), v.len);
            return STATUS_ESIZE;
        }
    }
    return STATUS_OK;
}

static int do_interaction(struct server *s, struct federate *f, const struct wire_msg *m, char *err,
                          size_t errlen)
{
    struct federation *fx = f->fx;
    fom_handle ic = (fom_handle)m->a;
    struct wire_value_iter it;
    struct wire_value v;
    int st = check_interaction(f, m, err, errlen);
    if (st != STATUS_OK) return st;
    if (server_vals_reserve(s, m->nvalues) != 0) {
        snprintf(err, errlen, "SEND_INTERACTION: out of memory");
        return STATUS_EREFUSED;
    }
    int tso = m->time != WIRE_TIME_NONE;
    struct wire_msg r;
    wire_msg_init(&r, WIRE_RECEIVE_INTERACTION);
    r.code = tso ? WIRE_ORDER_TSO : WIRE_ORDER_RO;
    r.c = f->handle;
    r.time = m->time;
    r.str[0] = m->str[0];
    r.a = ic;
    r.nvalues = m->nvalues;
    r.values_raw = m->values_raw;
    r.values_raw_len = m->values_raw_len;
    /* As for updates: the largest delivery must fit in a frame, or the send is refused. */
    if (encode(s, &s->fan_full, &r) != WIRE_OK) {
        snprintf(err, errlen,
                 "SEND_INTERACTION '%s': the delivery would exceed the frame limit "
                 "(--max-frame %zu)",
                 fom_inter_qname(fx->fom, ic), s->hub.lim.max_frame);
        return STATUS_EINVAL;
    }
    r.values_raw = NULL;
    r.values_raw_len = 0;
    if (tso) timesvc_begin(s, f, m->time);
    dm_routes_update(fx);
    const struct route_list *l = &fx->inter_routes[ic];
    for (uint32_t i = 0; i < l->n; i++) {
        struct federate *to = l->v[i].fed;
        if (to == f) continue;
        /* Received as the class it subscribes to, with that class's parameters only. */
        fom_handle known = l->v[i].known;
        if (known == ic) {
            deliver(s, to, tso, &s->fan_full);
            continue;
        }
        uint32_t n = 0;
        wire_value_iter_init(&it, m);
        while (wire_value_next(&it, &v))
            if (fom_inter_has_param(fx->fom, known, v.handle)) s->vals[n++] = v;
        r.a = known;
        r.nvalues = n;
        r.values = s->vals;
        if (encode(s, &s->fan, &r) != WIRE_OK) continue;
        deliver(s, to, tso, &s->fan);
    }
    return tso ? timesvc_commit(s, f, err, errlen) : STATUS_OK;
}

static void provide(struct server *s, struct federate *requester, struct object *o,
                    const struct wire_msg *m)
{
    if (!o->owner || o->owner == requester || !o->owner->conn) return;
    struct wire_msg p;
    wire_msg_init(&p, WIRE_PROVIDE_UPDATE);
    p.a = o->handle;
    p.c = requester->handle;
    p.nhandles = m->nhandles;
    p.handles = NULL;
    p.handles_raw = m->handles_raw;
    server_send(s, o->owner->conn, &p);
}

static int do_request_update(struct server *s, struct federate *f, const struct wire_msg *m,
                             char *err, size_t errlen)
{
    struct federation *fx = f->fx;
    if (m->code == WIRE_RU_OBJECT) {
        struct object *o = obj_find(fx, m->a);
        if (!o) {
            snprintf(err, errlen, "REQUEST_UPDATE: no object with handle %llu",
                     (unsigned long long)m->a);
            return STATUS_EHANDLE;
        }
        for (uint32_t i = 0; i < m->nhandles; i++) {
            if (!fom_class_has_attr(fx->fom, o->cls, wire_msg_handle(m, i))) {
                snprintf(err, errlen,
                         "REQUEST_UPDATE of '%s': attribute handle %u is not an "
                         "attribute of class '%s'",
                         o->name, wire_msg_handle(m, i), fom_class_qname(fx->fom, o->cls));
                return STATUS_EHANDLE;
            }
        }
        provide(s, f, o, m);
        return STATUS_OK;
    }
    fom_handle cls = (fom_handle)m->a;
    if (m->a == 0 || m->a > fx->n_classes) {
        snprintf(err, errlen, "REQUEST_UPDATE: no object class with handle %llu",
                 (unsigned long long)m->a);
        return STATUS_EHANDLE;
    }
    for (uint32_t i = 0; i < m->nhandles; i++) {
        if (!fom_class_has_attr(fx->fom, cls, wire_msg_handle(m, i))) {
            snprintf(err, errlen,
                     "REQUEST_UPDATE: attribute handle %u is not an attribute of "
                     "class '%s'",
                     wire_msg_handle(m, i), fom_class_qname(fx->fom, cls));
            return STATUS_EHANDLE;
        }
    }
    /* O(objects): a class-wide request is rare (start-up, late joiners). */
    for (struct object *o = fx->objects; o; o = o->next)
        if (fom_class_is_a(fx->fom, o->cls, cls)) provide(s, f, o, m);
    return STATUS_OK;
}

void om_handle(struct server *s, struct federate *f, const struct wire_msg *m)
{
    char err[RTI_ERR_MAX];
    uint64_t value = 0;
    int st;
    switch (m->type) {
    case WIRE_REGISTER_OBJECT:
        st = do_register(s, f, m, &value, err, sizeof err);
        break;
    case WIRE_UPDATE:
        st = do_update(s, f, m, err, sizeof err);
        break;
    case WIRE_DELETE_OBJECT:
        st = do_delete(s, f, m, err, sizeof err);
        break;
    case WIRE_SEND_INTERACTION:
        st = do_interaction(s, f, m, err, sizeof err);
        break;
    default:
        st = do_request_update(s, f, m, err, sizeof err);
        break;
    }
    if (!f->conn) return;
    if (st != STATUS_OK)
        server_refuse(s, f->conn, m->req, m->type, (uint32_t)st, err);
    else if (m->req)
        server_reply(s, f->conn, m->req, STATUS_OK, value, "");
}

void om_federate_gone(struct server *s, struct federate *f, uint32_t action)
{
    struct federation *fx = f->fx;
    struct object *o = fx->objects;
    while (o) {
        struct object *next = o->next;
        o->known[f->slot] = 0; /* the slot may be reused by a later joiner */
        if (o->owner == f) {
            if (action == WIRE_RESIGN_KEEP_OBJECTS) {
                o->owner = NULL;
                f->n_owned--;
            } else {
                send_removes(s, f, o, WIRE_TIME_NONE, NULL);
                obj_remove(fx, o);
            }
        }
        o = next;
    }
}

/* ---- restore (rti/server/restore.c) ------------------------------------------------------- */

int om_restore(struct federation *fx, uint64_t handle, fom_handle cls, const char *name,
               struct federate *owner, uint64_t owner_handle, struct object **out, char *err,
               size_t errlen)
{
    *out = NULL;
    if (handle == 0 || handle >= fx->next_obj || cls == 0 || cls > fx->n_classes || !name[0]) {
        snprintf(err, errlen, "object %llu '%s': handle or class %u out of range",
                 (unsigned long long)handle, name, cls);
        return -1;
    }
    if (obj_find(fx, handle) || obj_find_name(fx, name)) {
        snprintf(err, errlen, "object %llu '%s' listed twice", (unsigned long long)handle, name);
        return -1;
    }
    struct object *o = calloc(1, sizeof *o);
    if (o) {
        o->name = strdup(name);
        o->known = calloc(fx->slot_cap ? fx->slot_cap : 1, 1);
    }
    if (!o || !o->name || !o->known) {
        if (o) {
            free(o->name);
            free(o->known);
        }
        free(o);
        snprintf(err, errlen, "out of memory for object %llu", (unsigned long long)handle);
        return -1;
    }
    o->handle = handle;
    o->cls = cls;
    o->owner = owner;
    o->owner_handle = owner_handle;
    if (owner) owner->n_owned++;
    /* appended: the list keeps the saved order, which om_discover_for walks */
    struct object *last = fx->objects;
    while (last && last->next)
        last = last->next;
    o->prev = last;
    if (last)
        last->next = o;
    else
        fx->objects = o;
    fx->n_objects++;
    obj_link(fx, o);
    if (fx->n_objects > 2 * fx->obj_buckets) obj_rehash(fx);
    *out = o;
    return 0;
}
