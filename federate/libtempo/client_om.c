/* libtempo object management: the table of known objects, register, update, delete, send
 * interaction and request attribute update, each validated locally before it is sent
 * (doc/fom.md; the RTI checks again). Read federate/libtempo/client_dm.c next (publish/subscribe).
 *
 * Hot path: tp_update validates each value (published? right size?) in O(n values) with
 * table lookups, converts into a scratch array and appends one frame to the output buffer:
 * no allocation once the scratch arrays and the buffer are warm. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "federate/libtempo/client_impl.h"

/* ---- object table (open addressing, linear probing) -------------------------------------- */

static size_t slot_of(tp_object obj, size_t cap)
{
    uint64_t h = obj * 0x9e3779b97f4a7c15ull; /* Fibonacci hashing spreads sequential ids */
    return (size_t)(h >> 17) & (cap - 1);
}

struct tpi_obj *tpi_obj_find(const tp_federate *f, tp_object obj)
{
    if (!f->objs || obj == 0 || obj == TPI_OBJ_TOMB) return NULL;
    for (size_t i = slot_of(obj, f->objs_cap);; i = (i + 1) & (f->objs_cap - 1)) {
        if (f->objs[i].obj == obj) return &f->objs[i];
        if (f->objs[i].obj == 0) return NULL;
    }
}

static int grow(tp_federate *f)
{
    size_t cap = f->objs_cap ? f->objs_cap * 2 : 64;
    struct tpi_obj *t = calloc(cap, sizeof *t);
    if (!t)
        return tpi_fail(f, TP_ENOMEM, "federate \"%s\": object table cannot grow to %zu", f->name,
                        cap);
    size_t used = 0;
    for (size_t j = 0; j < f->objs_cap; j++) {
        struct tpi_obj *o = &f->objs[j];
        if (o->obj == 0 || o->obj == TPI_OBJ_TOMB) continue;
        size_t i = slot_of(o->obj, cap);
        while (t[i].obj)
            i = (i + 1) & (cap - 1);
        t[i] = *o;
        used++;
    }
    free(f->objs);
    f->objs = t;
    f->objs_cap = cap;
    f->objs_used = used;
    return TP_OK;
}

int tpi_obj_add(tp_federate *f, tp_object obj, tp_handle cls, int owned)
{
    if (obj == 0 || obj == TPI_OBJ_TOMB)
        return tpi_fail(f, TP_EPROTO, "federate \"%s\": invalid object handle %llu from the RTI",
                        f->name, (unsigned long long)obj);
    struct tpi_obj *o = tpi_obj_find(f, obj);
    if (o) {
        o->cls = cls;
        o->owned = owned;
        return TP_OK;
    }
    /* Keep the load (live + tombstones) at most 1/2 so probes stay short. */
    if ((f->objs_used + 1) * 2 > f->objs_cap && grow(f) < 0) return TP_ENOMEM;
    size_t i = slot_of(obj, f->objs_cap);
    while (f->objs[i].obj != 0 && f->objs[i].obj != TPI_OBJ_TOMB)
        i = (i + 1) & (f->objs_cap - 1);
    if (f->objs[i].obj == 0) f->objs_used++;
    f->objs[i] = (struct tpi_obj){.obj = obj, .cls = cls, .owned = owned};
    return TP_OK;
}

void tpi_obj_del(tp_federate *f, tp_object obj)
{
    struct tpi_obj *o = tpi_obj_find(f, obj);
    if (o) *o = (struct tpi_obj){.obj = TPI_OBJ_TOMB};
}

/* ---- register / delete -------------------------------------------------------------------- */

static int published_class(const tp_federate *f, tp_handle cls)
{
    return cls >= 1 && cls <= f->n_classes && f->pub_attr[(size_t)(f->n_attrs + 1) * cls];
}

struct reg_ctx {
    const char *what; /* the object, for messages */
    tp_object obj;    /* result: the RTI's handle */
};

/* REGISTER_OBJECT's answer: REPLY with the handle in a, or a refusal (REPLY/ERROR code). */
static int reg_reply(tp_federate *f, const struct wire_msg *m, void *arg)
{
    struct reg_ctx *rc = arg;
    int code = tpi_rti_code(m->code);
    if (m->type == WIRE_ERROR && code == TP_OK) code = TP_EREFUSED;
    if (code < 0)
        return tpi_fail(f, code, "register object %s refused by the RTI: %.*s", rc->what,
                        (int)m->str[0].len, m->str[0].ptr ? m->str[0].ptr : "");
    if (m->type != WIRE_REPLY || m->a == 0 || m->a == TPI_OBJ_TOMB)
        return tpi_fail(f, TP_EPROTO, "register object %s: unexpected %s from the RTI", rc->what,
                        wire_type_name(m->type));
    rc->obj = m->a;
    return TP_OK;
}

int tp_register_object(tp_federate *f, tp_handle cls, const char *name, tp_object *out)
{
    int r = tpi_check_joined(f);
    if (r < 0) return r;
    if (!out) return tpi_fail(f, TP_EINVAL, "tp_register_object: out is NULL");
    *out = 0;
    if (cls < 1 || cls > f->n_classes)
        return tpi_fail(f, TP_EHANDLE, "tp_register_object: %u is not an object class handle", cls);
    if (!published_class(f, cls))
        return tpi_fail(f, TP_ENOTPUB,
                        "tp_register_object: class %s is not published by "
                        "federate \"%s\"",
                        fom_class_qname(f->fom, cls), f->name);
    struct wire_msg m;
    wire_msg_init(&m, WIRE_REGISTER_OBJECT);
    m.req = tpi_req(f);
    m.a = cls;
    wire_str_set(&m.str[0], name);
    if ((r = tpi_send(f, &m)) < 0) return r;
    char what[200];
    snprintf(what, sizeof what, "\"%s\" of class %s", name ? name : "(unnamed)",
             fom_class_qname(f->fom, cls));
    struct reg_ctx rc = {.what = what};
    if ((r = tpi_wait_reply(f, m.req, reg_reply, &rc)) < 0) return r;
    if ((r = tpi_obj_add(f, rc.obj, cls, 1)) < 0) return r;
    *out = rc.obj;
    return TP_OK;
}

/* Look up an object this federate owns. */
static int owned(tp_federate *f, tp_object obj, const char *what, struct tpi_obj **o)
{
    *o = tpi_obj_find(f, obj);
    if (!*o)
        return tpi_fail(f, TP_EHANDLE, "%s: object %llu is unknown to federate \"%s\"", what,
                        (unsigned long long)obj, f->name);
    if (!(*o)->owned)
        return tpi_fail(f, TP_EHANDLE, "%s: object %llu is not owned by federate \"%s\"", what,
                        (unsigned long long)obj, f->name);
    return TP_OK;
}

int tp_delete_object(tp_federate *f, tp_object obj, tp_time time)
{
    int r = tpi_check_joined(f);
    struct tpi_obj *o;
    if (r < 0 || (r = owned(f, obj, "tp_delete_object", &o)) < 0) return r;
    if (time != TP_NO_TIME && (r = tpi_check_send_time(f, time, "delete")) < 0) return r;
    struct wire_msg m;
    wire_msg_init(&m, WIRE_DELETE_OBJECT);
    m.a = obj;
    m.time = time;
    if ((r = tpi_send(f, &m)) < 0) return r;
    tpi_obj_del(f, obj);
    return TP_OK;
}

/* ---- update / interaction ----------------------------------------------------------------- */

/* Make the outgoing value array hold @p n entries (grows, never shrinks). */
static int out_scratch(tp_federate *f, uint32_t n)
{
    if (n <= f->out_cap) return TP_OK;
    uint32_t cap = f->out_cap ? f->out_cap : 16;
    while (cap < n)
        cap = cap > UINT32_MAX / 2 ? n : cap * 2;
    struct wire_value *w = realloc(f->out_wv, (size_t)cap * sizeof *w);
    if (!w) return TP_ENOMEM;
    f->out_wv = w;
    f->out_cap = cap;
    return TP_OK;
}

/* Convert and check @p n values; @p kind 'a' attributes of class cls, 'p' parameters of ic. */
static int check_values(tp_federate *f, const char *what, char kind, tp_handle owner_cls,
                        const tp_value *v, size_t n)
{
    if (n > 0 && !v) return tpi_fail(f, TP_EINVAL, "%s: values is NULL with n = %zu", what, n);
    if (n > UINT32_MAX || out_scratch(f, (uint32_t)n) < 0)
        return tpi_fail(f, TP_ENOMEM, "%s: %zu values", what, n);
    for (size_t i = 0; i < n; i++) {
        tp_handle h = v[i].handle;
        enum fom_type t;
        uint32_t len;
        if (kind == 'a') {
            if (!fom_class_has_attr(f->fom, owner_cls, h))
                return tpi_fail(f, TP_EHANDLE,
                                "%s: values[%zu]: %u is not an attribute of "
                                "class %s",
                                what, i, h, fom_class_qname(f->fom, owner_cls));
            if (!f->pub_attr[(size_t)(f->n_attrs + 1) * owner_cls + h])
                return tpi_fail(f, TP_ENOTPUB,
                                "%s: attribute %s of class %s is not published "
                                "by federate \"%s\"",
                                what, fom_attr_name(f->fom, h), fom_class_qname(f->fom, owner_cls),
                                f->name);
            t = fom_attr_type(f->fom, h);
            len = fom_attr_length(f->fom, h);
        } else {
            if (!fom_inter_has_param(f->fom, owner_cls, h))
                return tpi_fail(f, TP_EHANDLE,
                                "%s: values[%zu]: %u is not a parameter of "
                                "interaction %s",
                                what, i, h, fom_inter_qname(f->fom, owner_cls));
            t = fom_param_type(f->fom, h);
            len = fom_param_length(f->fom, h);
        }
        if (v[i].size > UINT32_MAX || (v[i].size && !v[i].data) ||
            !fom_value_ok(t, len, v[i].data, v[i].size))
            return tpi_fail(f, TP_ESIZE,
                            "%s: value of %s (%s%s) has a bad size or content "
                            "(%zu bytes)",
                            what,
                            kind == 'a' ? fom_attr_name(f->fom, h) : fom_param_name(f->fom, h),
                            fom_type_name(t), len ? ", fixed length" : "", v[i].size);
        f->out_wv[i].handle = h;
        f->out_wv[i].len = (uint32_t)v[i].size;
        f->out_wv[i].data = v[i].data;
    }
    return TP_OK;
}

int tp_update_tagged(tp_federate *f, tp_object obj, const tp_value *values, size_t n, tp_time time,
                     const void *tag, size_t tag_size)
{
    int r = tpi_check_joined(f);
    struct tpi_obj *o;
    if (r < 0 || (r = owned(f, obj, "tp_update", &o)) < 0) return r;
    if (n == 0)
        return tpi_fail(f, TP_EINVAL, "tp_update: no values for object %llu",
                        (unsigned long long)obj);
    if ((tag_size && !tag) || tag_size > UINT32_MAX)
        return tpi_fail(f, TP_EINVAL, "tp_update: bad tag");
    if ((r = check_values(f, "tp_update", 'a', o->cls, values, n)) < 0) return r;
    if (time != TP_NO_TIME && (r = tpi_check_send_time(f, time, "update")) < 0) return r;
    struct wire_msg m;
    wire_msg_init(&m, WIRE_UPDATE);
    m.a = obj;
    m.time = time;
    m.nvalues = (uint32_t)n;
    m.values = f->out_wv;
    m.str[0].ptr = tag;
    m.str[0].len = (uint32_t)tag_size;
    return tpi_send(f, &m);
}

int tp_update(tp_federate *f, tp_object obj, const tp_value *values, size_t n, tp_time time)
{
    return tp_update_tagged(f, obj, values, n, time, NULL, 0);
}

int tp_send_interaction_tagged(tp_federate *f, tp_handle ic, const tp_value *params, size_t n,
                               tp_time time, const void *tag, size_t tag_size)
{
    int r = tpi_check_joined(f);
    if (r < 0) return r;
    if (ic < 1 || ic > f->n_inters)
        return tpi_fail(f, TP_EHANDLE,
                        "tp_send_interaction: %u is not an interaction class "
                        "handle",
                        ic);
    if (!f->pub_inter[ic])
        return tpi_fail(f, TP_ENOTPUB,
                        "tp_send_interaction: interaction %s is not published "
                        "by federate \"%s\"",
                        fom_inter_qname(f->fom, ic), f->name);
    if ((tag_size && !tag) || tag_size > UINT32_MAX)
        return tpi_fail(f, TP_EINVAL, "tp_send_interaction: bad tag");
    if ((r = check_values(f, "tp_send_interaction", 'p', ic, params, n)) < 0) return r;
    if (time != TP_NO_TIME && (r = tpi_check_send_time(f, time, "interaction")) < 0) return r;
    struct wire_msg m;
    wire_msg_init(&m, WIRE_SEND_INTERACTION);
    m.a = ic;
    m.time = time;
    m.nvalues = (uint32_t)n;
    m.values = n ? f->out_wv : NULL;
    m.str[0].ptr = tag;
    m.str[0].len = (uint32_t)tag_size;
    return tpi_send(f, &m);
}

int tp_send_interaction(tp_federate *f, tp_handle ic, const tp_value *params, size_t n,
                        tp_time time)
{
    return tp_send_interaction_tagged(f, ic, params, n, time, NULL, 0);
}

/* ---- request attribute value update ------------------------------------------------------- */

static int request_update(tp_federate *f, uint32_t target, uint64_t a, tp_handle cls,
                          const tp_handle *attrs, size_t n, const char *what)
{
    if (n == 0 || !attrs || n > UINT32_MAX)
        return tpi_fail(f, TP_EINVAL, "%s: no attributes given", what);
    for (size_t i = 0; i < n; i++)
        if (!fom_class_has_attr(f->fom, cls, attrs[i]))
            return tpi_fail(f, TP_EHANDLE,
                            "%s: attrs[%zu] = %u is not an attribute of class "
                            "%s",
                            what, i, attrs[i], fom_class_qname(f->fom, cls));
    struct wire_msg m;
    wire_msg_init(&m, WIRE_REQUEST_UPDATE);
    m.code = target;
    m.a = a;
    m.nhandles = (uint32_t)n;
    m.handles = attrs;
    return tpi_send(f, &m);
}

int tp_request_update(tp_federate *f, tp_object obj, const tp_handle *attrs, size_t n)
{
    int r = tpi_check_joined(f);
    if (r < 0) return r;
    struct tpi_obj *o = tpi_obj_find(f, obj);
    if (!o)
        return tpi_fail(f, TP_EHANDLE,
                        "tp_request_update: object %llu is not known to "
                        "federate \"%s\" (not discovered)",
                        (unsigned long long)obj, f->name);
    return request_update(f, WIRE_RU_OBJECT, obj, o->cls, attrs, n, "tp_request_update");
}

int tp_request_class_update(tp_federate *f, tp_handle cls, const tp_handle *attrs, size_t n)
{
    int r = tpi_check_joined(f);
    if (r < 0) return r;
    if (cls < 1 || cls > f->n_classes)
        return tpi_fail(f, TP_EHANDLE,
                        "tp_request_class_update: %u is not an object class "
                        "handle",
                        cls);
    return request_update(f, WIRE_RU_CLASS, cls, cls, attrs, n, "tp_request_class_update");
}
