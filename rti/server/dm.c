/* Declaration management: publish/unpublish and subscribe/unsubscribe of object class
 * attributes and interaction classes, and the per-class routing lists built from them
 * (a subscription to a class matches its subclasses; each subscriber knows a class as the
 * most derived class it subscribes to, as in HLA). Serves doc/fom.md.
 * Read rti/server/om.c next: it routes updates through these lists. */
#include "rti/server/server_impl.h"

#include "rti/server/log.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static uint64_t *attr_bits(uint64_t *table, const struct federation *fx, fom_handle cls)
{
    return table + (size_t)cls * fx->attr_words;
}

static int bit_get(const uint64_t *w, uint32_t i)
{
    return (int)((w[i / 64] >> (i % 64)) & 1u);
}

static int any_bit(const uint64_t *w, uint32_t words)
{
    for (uint32_t i = 0; i < words; i++)
        if (w[i]) return 1;
    return 0;
}

int dm_federate_init(struct federation *fx, struct federate *f)
{
    size_t nw = (size_t)(fx->n_classes + 1) * fx->attr_words;
    f->pub_attrs = calloc(nw, sizeof *f->pub_attrs);
    f->sub_attrs = calloc(nw, sizeof *f->sub_attrs);
    f->pub_inter = calloc(fx->n_inters + 1, 1);
    f->sub_inter = calloc(fx->n_inters + 1, 1);
    if (!f->pub_attrs || !f->sub_attrs || !f->pub_inter || !f->sub_inter) {
        dm_federate_fini(f);
        return -1;
    }
    return 0;
}

void dm_federate_fini(struct federate *f)
{
    free(f->pub_attrs);
    free(f->sub_attrs);
    free(f->pub_inter);
    free(f->sub_inter);
    f->pub_attrs = f->sub_attrs = NULL;
    f->pub_inter = f->sub_inter = NULL;
}

int dm_publishes_attr(const struct federate *f, fom_handle cls, fom_handle attr)
{
    const struct federation *fx = f->fx;
    return bit_get(f->pub_attrs + (size_t)cls * fx->attr_words, attr);
}

int dm_publishes_class(const struct federate *f, fom_handle cls)
{
    const struct federation *fx = f->fx;
    return any_bit(f->pub_attrs + (size_t)cls * fx->attr_words, fx->attr_words);
}

int dm_subscribes_attr(const struct federate *f, fom_handle cls, fom_handle attr)
{
    const struct federation *fx = f->fx;
    return bit_get(f->sub_attrs + (size_t)cls * fx->attr_words, attr);
}

/* ---- routing lists ---------------------------------------------------------------------- */

static int route_push(struct route_list *l, struct federate *f, fom_handle known)
{
    if (l->n == l->cap) {
        uint32_t cap = l->cap ? 2 * l->cap : 4;
        struct route *v = realloc(l->v, cap * sizeof *v);
        if (!v) return -1;
        l->v = v;
        l->cap = cap;
    }
    l->v[l->n].fed = f;
    l->v[l->n].known = known;
    l->n++;
    return 0;
}

/* Rebuild every list: O(classes x federates x depth). Runs only after a declaration, join or
 * resign changed something, never per update. */
void dm_routes_update(struct federation *fx)
{
    if (!fx->routes_dirty) return;
    fx->routes_dirty = 0;
    for (fom_handle c = 1; c <= fx->n_classes; c++) {
        struct route_list *l = &fx->cls_routes[c];
        l->n = 0;
        for (uint32_t i = 0; i < fx->slot_cap; i++) {
            struct federate *f = fx->slots[i];
            if (!f) continue;
            for (fom_handle k = c; k != FOM_NONE; k = fom_class_parent(fx->fom, k)) {
                if (any_bit(attr_bits(f->sub_attrs, fx, k), fx->attr_words)) {
                    if (route_push(l, f, k) != 0) {
                        LOGE("dm", f->tag, "out of memory building routes: retrying later");
                        fx->routes_dirty = 1;
                    }
                    break;
                }
            }
        }
    }
    for (fom_handle c = 1; c <= fx->n_inters; c++) {
        struct route_list *l = &fx->inter_routes[c];
        l->n = 0;
        for (uint32_t i = 0; i < fx->slot_cap; i++) {
            struct federate *f = fx->slots[i];
            if (!f) continue;
            for (fom_handle k = c; k != FOM_NONE; k = fom_inter_parent(fx->fom, k)) {
                if (f->sub_inter[k]) {
                    if (route_push(l, f, k) != 0) {
                        LOGE("dm", f->tag, "out of memory building routes: retrying later");
                        fx->routes_dirty = 1;
                    }
                    break;
                }
            }
        }
    }
}

void dm_routes_fini(struct federation *fx)
{
    if (fx->cls_routes)
        for (fom_handle c = 0; c <= fx->n_classes; c++)
            free(fx->cls_routes[c].v);
    if (fx->inter_routes)
        for (fom_handle c = 0; c <= fx->n_inters; c++)
            free(fx->inter_routes[c].v);
    free(fx->cls_routes);
    free(fx->inter_routes);
    fx->cls_routes = fx->inter_routes = NULL;
}

/* ---- requests --------------------------------------------------------------------------- */

/* PUBLISH/SUBSCRIBE/UNPUBLISH/UNSUBSCRIBE_OBJECT: validate every handle first, then apply, so
 * a refused request changes nothing. An empty attribute list means every attribute of the
 * class (inherited ones included). */
static int object_decl(struct federate *f, const struct wire_msg *m, int *discover, char *err,
                       size_t errlen)
{
    struct federation *fx = f->fx;
    fom_handle cls = (fom_handle)m->a;
    if (m->a == 0 || m->a > fx->n_classes) {
        snprintf(err, errlen, "%s: no object class with handle %llu", wire_type_name(m->type),
                 (unsigned long long)m->a);
        return STATUS_EHANDLE;
    }
    for (uint32_t i = 0; i < m->nhandles; i++) {
        fom_handle a = wire_msg_handle(m, i);
        if (!fom_class_has_attr(fx->fom, cls, a)) {
            snprintf(err, errlen, "%s: attribute handle %u is not an attribute of class '%s'",
                     wire_type_name(m->type), a, fom_class_qname(fx->fom, cls));
            return STATUS_EHANDLE;
        }
    }
    int publish = m->type == WIRE_PUBLISH_OBJECT || m->type == WIRE_UNPUBLISH_OBJECT;
    int set = m->type == WIRE_PUBLISH_OBJECT || m->type == WIRE_SUBSCRIBE_OBJECT;
    uint64_t *w = attr_bits(publish ? f->pub_attrs : f->sub_attrs, fx, cls);
    if (m->nhandles == 0) {
        fom_handle all[1024];
        uint32_t n = fom_class_attrs(fx->fom, cls, all, 1024);
        if (n > 1024) {
            snprintf(err, errlen, "%s: class '%s' has %u attributes; list them explicitly",
                     wire_type_name(m->type), fom_class_qname(fx->fom, cls), n);
            return STATUS_EINVAL;
        }
        if (!set)
            memset(w, 0, fx->attr_words * sizeof *w);
        else
            for (uint32_t i = 0; i < n; i++)
                w[all[i] / 64] |= (uint64_t)1 << (all[i] % 64);
    } else {
        for (uint32_t i = 0; i < m->nhandles; i++) {
            fom_handle a = wire_msg_handle(m, i);
            if (set)
                w[a / 64] |= (uint64_t)1 << (a % 64);
            else
                w[a / 64] &= ~((uint64_t)1 << (a % 64));
        }
    }
    if (!publish) {
        fx->routes_dirty = 1;
        *discover = set;
    }
    LOGD("dm", f->tag, "%s class '%s' (%u attribute(s))", wire_type_name(m->type),
         fom_class_qname(fx->fom, cls), m->nhandles);
    return STATUS_OK;
}

static int interaction_decl(struct federate *f, const struct wire_msg *m, char *err, size_t errlen)
{
    struct federation *fx = f->fx;
    if (m->a == 0 || m->a > fx->n_inters) {
        snprintf(err, errlen, "%s: no interaction class with handle %llu", wire_type_name(m->type),
                 (unsigned long long)m->a);
        return STATUS_EHANDLE;
    }
    fom_handle ic = (fom_handle)m->a;
    switch (m->type) {
    case WIRE_PUBLISH_INTERACTION:
        f->pub_inter[ic] = 1;
        break;
    case WIRE_UNPUBLISH_INTERACTION:
        f->pub_inter[ic] = 0;
        break;
    case WIRE_SUBSCRIBE_INTERACTION:
        f->sub_inter[ic] = 1;
        fx->routes_dirty = 1;
        break;
    default:
        f->sub_inter[ic] = 0;
        fx->routes_dirty = 1;
        break;
    }
    LOGD("dm", f->tag, "%s '%s'", wire_type_name(m->type), fom_inter_qname(fx->fom, ic));
    return STATUS_OK;
}

void dm_handle(struct server *s, struct federate *f, const struct wire_msg *m)
{
    char err[RTI_ERR_MAX];
    int st, discover = 0;
    if (m->type >= WIRE_PUBLISH_OBJECT && m->type <= WIRE_UNSUBSCRIBE_OBJECT)
        st = object_decl(f, m, &discover, err, sizeof err);
    else
        st = interaction_decl(f, m, err, sizeof err);
    if (st != STATUS_OK)
        server_refuse(s, f->conn, m->req, m->type, (uint32_t)st, err);
    else if (m->req)
        server_reply(s, f->conn, m->req, STATUS_OK, 0, "");
    /* After the reply: the subscription is in force, then the objects it reveals follow. */
    if (discover) om_discover_for(s, f);
}
