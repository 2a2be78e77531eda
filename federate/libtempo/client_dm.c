/* libtempo declaration management and FOM handle lookups: publish/subscribe of object class
 * attributes and interaction classes (and the un- variants), resolved and checked against
 * the local copy of the FOM before anything is sent (doc/fom.md). Refusals by the RTI come
 * back asynchronously as `error` callbacks. Read federate/libtempo/client_sync.c next. */
#include <stdio.h>
#include <string.h>

#include "federate/libtempo/client_impl.h"

/* ---- handles ---------------------------------------------------------------------------- */

int tp_object_class(tp_federate *f, const char *name, tp_handle *out)
{
    if (!f || !name || !out) return tpi_fail(f, TP_EINVAL, "tp_object_class: NULL argument");
    *out = fom_class_find(f->fom, name);
    if (*out == FOM_NONE)
        return tpi_fail(f, TP_ENAME, "no object class \"%s\" in FOM \"%s\"", name,
                        fom_name(f->fom));
    return TP_OK;
}

int tp_attribute(tp_federate *f, tp_handle cls, const char *name, tp_handle *out)
{
    if (!f || !name || !out) return tpi_fail(f, TP_EINVAL, "tp_attribute: NULL argument");
    *out = 0;
    if (cls < 1 || cls > f->n_classes)
        return tpi_fail(f, TP_EHANDLE, "tp_attribute(\"%s\"): %u is not an object class handle",
                        name, cls);
    *out = fom_attr_find(f->fom, cls, name);
    if (*out == FOM_NONE)
        return tpi_fail(f, TP_ENAME, "object class %s has no attribute \"%s\"",
                        fom_class_qname(f->fom, cls), name);
    return TP_OK;
}

int tp_interaction_class(tp_federate *f, const char *name, tp_handle *out)
{
    if (!f || !name || !out) return tpi_fail(f, TP_EINVAL, "tp_interaction_class: NULL argument");
    *out = fom_inter_find(f->fom, name);
    if (*out == FOM_NONE)
        return tpi_fail(f, TP_ENAME, "no interaction class \"%s\" in FOM \"%s\"", name,
                        fom_name(f->fom));
    return TP_OK;
}

int tp_parameter(tp_federate *f, tp_handle ic, const char *name, tp_handle *out)
{
    if (!f || !name || !out) return tpi_fail(f, TP_EINVAL, "tp_parameter: NULL argument");
    *out = 0;
    if (ic < 1 || ic > f->n_inters)
        return tpi_fail(f, TP_EHANDLE,
                        "tp_parameter(\"%s\"): %u is not an interaction class "
                        "handle",
                        name, ic);
    *out = fom_param_find(f->fom, ic, name);
    if (*out == FOM_NONE)
        return tpi_fail(f, TP_ENAME, "interaction class %s has no parameter \"%s\"",
                        fom_inter_qname(f->fom, ic), name);
    return TP_OK;
}

const char *tp_handle_name(tp_federate *f, char kind, tp_handle h)
{
    if (!f) return NULL;
    switch (kind) {
    case 'o':
        return fom_class_qname(f->fom, h);
    case 'a':
        return fom_attr_name(f->fom, h);
    case 'i':
        return fom_inter_qname(f->fom, h);
    case 'p':
        return fom_param_name(f->fom, h);
    default:
        return NULL;
    }
}

/* ---- object classes --------------------------------------------------------------------- */

/* Common checks and the frame of the four object-class calls. */
static int object_decl(tp_federate *f, unsigned type, const char *what, tp_handle cls,
                       const tp_handle *attrs, size_t n)
{
    int r = tpi_check_joined(f);
    if (r < 0) return r;
    if (cls < 1 || cls > f->n_classes)
        return tpi_fail(f, TP_EHANDLE, "%s: %u is not an object class handle", what, cls);
    if ((n && !attrs) || n > UINT32_MAX)
        return tpi_fail(f, TP_EINVAL, "%s: attrs is NULL with n = %zu", what, n);
    for (size_t i = 0; i < n; i++)
        if (!fom_class_has_attr(f->fom, cls, attrs[i]))
            return tpi_fail(f, TP_EHANDLE,
                            "%s: attrs[%zu] = %u is not an attribute of class "
                            "%s",
                            what, i, attrs[i], fom_class_qname(f->fom, cls));
    struct wire_msg m;
    wire_msg_init(&m, type);
    m.a = cls;
    m.nhandles = (uint32_t)n;
    m.handles = n ? attrs : NULL;
    return tpi_send(f, &m);
}

int tp_publish_object_class(tp_federate *f, tp_handle cls, const tp_handle *attrs, size_t n)
{
    int r = object_decl(f, WIRE_PUBLISH_OBJECT, "tp_publish_object_class", cls, attrs, n);
    if (r < 0) return r;
    uint8_t *row = f->pub_attr + (size_t)(f->n_attrs + 1) * cls;
    row[0] = 1;
    for (size_t i = 0; i < n; i++)
        row[attrs[i]] = 1;
    if (n == 0) { /* an empty list means every attribute of the class, inherited included */
        for (tp_handle a = 1; a <= f->n_attrs; a++)
            if (fom_class_has_attr(f->fom, cls, a)) row[a] = 1;
    }
    return TP_OK;
}

int tp_unpublish_object_class(tp_federate *f, tp_handle cls)
{
    if (f && f->joined && cls >= 1 && cls <= f->n_classes &&
        !f->pub_attr[(size_t)(f->n_attrs + 1) * cls])
        return tpi_fail(f, TP_ENOTPUB,
                        "tp_unpublish_object_class: class %s is not published "
                        "by federate \"%s\"",
                        fom_class_qname(f->fom, cls), f->name);
    int r = object_decl(f, WIRE_UNPUBLISH_OBJECT, "tp_unpublish_object_class", cls, NULL, 0);
    if (r < 0) return r;
    memset(f->pub_attr + (size_t)(f->n_attrs + 1) * cls, 0, f->n_attrs + 1);
    return TP_OK;
}

int tp_subscribe_object_class(tp_federate *f, tp_handle cls, const tp_handle *attrs, size_t n)
{
    return object_decl(f, WIRE_SUBSCRIBE_OBJECT, "tp_subscribe_object_class", cls, attrs, n);
}

int tp_unsubscribe_object_class(tp_federate *f, tp_handle cls)
{
    return object_decl(f, WIRE_UNSUBSCRIBE_OBJECT, "tp_unsubscribe_object_class", cls, NULL, 0);
}

/* ---- interaction classes ---------------------------------------------------------------- */

static int inter_decl(tp_federate *f, unsigned type, const char *what, tp_handle ic)
{
    int r = tpi_check_joined(f);
    if (r < 0) return r;
    if (ic < 1 || ic > f->n_inters)
        return tpi_fail(f, TP_EHANDLE, "%s: %u is not an interaction class handle", what, ic);
    struct wire_msg m;
    wire_msg_init(&m, type);
    m.a = ic;
    return tpi_send(f, &m);
}

int tp_publish_interaction_class(tp_federate *f, tp_handle ic)
{
    int r = inter_decl(f, WIRE_PUBLISH_INTERACTION, "tp_publish_interaction_class", ic);
    if (r == TP_OK) f->pub_inter[ic] = 1;
    return r;
}

int tp_unpublish_interaction_class(tp_federate *f, tp_handle ic)
{
    if (f && f->joined && ic >= 1 && ic <= f->n_inters && !f->pub_inter[ic])
        return tpi_fail(f, TP_ENOTPUB,
                        "tp_unpublish_interaction_class: %s is not published "
                        "by federate \"%s\"",
                        fom_inter_qname(f->fom, ic), f->name);
    int r = inter_decl(f, WIRE_UNPUBLISH_INTERACTION, "tp_unpublish_interaction_class", ic);
    if (r == TP_OK) f->pub_inter[ic] = 0;
    return r;
}

int tp_subscribe_interaction_class(tp_federate *f, tp_handle ic)
{
    return inter_decl(f, WIRE_SUBSCRIBE_INTERACTION, "tp_subscribe_interaction_class", ic);
}

int tp_unsubscribe_interaction_class(tp_federate *f, tp_handle ic)
{
    return inter_decl(f, WIRE_UNSUBSCRIBE_INTERACTION, "tp_unsubscribe_interaction_class", ic);
}
