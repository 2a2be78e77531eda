/* SSP parameter bindings (federate/config/ssp_impl.h): ssd:ParameterBinding with its values
 * (ssv:ParameterSet, inline or from a .ssv file) and its mapping (ssm:ParameterMapping, inline
 * or from a .ssm file) into the components' "parameters"; and the Tempo annotation merged into
 * the document. The rules are doc/ssp.md, "Parameters".
 */
#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "federate/config/ssp_impl.h"

#define R(s, file, n, msg) ssp_refuse_msg((s), (file), (n), (msg))

/* The root of a referenced document (source) or the single inline child of `holder`. */
static int doc_root(sx *s, xmlNodePtr holder, const char *source, int ns, const char *root,
                    xmlNodePtr *out, const char **file)
{
    *out = NULL;
    *file = ssp_file(s);
    if (source) {
        char *p = ssp_source(s, holder, source);
        if (!p) return -1;
        struct stat sb;
        if (stat(p, &sb) != 0) {
            char m[PATH_MAX + 64];
            snprintf(m, sizeof m, "source \"%.200s\": %s", source, strerror(errno));
            free(p);
            return R(s, *file, holder, m);
        }
        xmlDocPtr d = ssp_read_xml(s, p);
        if (!d) return free(p), -1;
        xmlNodePtr r = xmlDocGetRootElement(d);
        /* the message names the referenced file; it stays alive with the document */
        *file = (const char *)d->URL;
        free(p);
        if (!r || !ssp_is_el(r, ns, root)) {
            char m[160];
            snprintf(m, sizeof m, "the root is not %s:%s", ns == SSP_NS_SSV ? "ssv" : "ssm", root);
            return R(s, *file, r, m);
        }
        *out = r;
        return 0;
    }
    for (xmlNodePtr c = holder->children; c; c = c->next) {
        if (c->type != XML_ELEMENT_NODE || ssp_skipped(c)) continue;
        if (!ssp_is_el(c, ns, root) || *out) {
            char m[160];
            snprintf(m, sizeof m, "expected one %s:%s", ns == SSP_NS_SSV ? "ssv" : "ssm", root);
            return R(s, *file, c, m);
        }
        *out = c;
    }
    if (!*out) return R(s, *file, holder, "no source and no inline content");
    return 0;
}

typedef struct entry {
    char *source, *target;
    double factor, offset;
    int linear;
    xmlNodePtr map; /* an ssc:Boolean-, Integer- or EnumerationMappingTransformation, or NULL */
    xmlNodePtr node;
} entry;

static void free_entries(entry *e, size_t n)
{
    for (size_t i = 0; i < n; i++)
        free(e[i].source), free(e[i].target);
    free(e);
}

/* The folder the sources of `n` (a binding or a mapping) resolve against, by its sourceBase:
 * "SSD" (the default) its document's (s->dir, left as is), "component" the component's
 * source (ssp_component_base). */
static int source_base(sx *s, xmlNodePtr n, const bnd *b)
{
    char *base = ssp_attr(n, "sourceBase");
    int rc = 0;
    if (base && !strcmp(base, "component")) {
        const char *dir;
        if (!(rc = ssp_component_base(s, n, b, &dir))) s->dir = (char *)dir;
    } else if (base && strcmp(base, "SSD"))
        rc = R(s, ssp_file(s), n, "sourceBase: expected SSD or component");
    free(base);
    return rc;
}

static int read_mapping(sx *s, xmlNodePtr pm, const bnd *bd, entry **out, size_t *n_out)
{
    char *type = ssp_attr(pm, "type"), *src = ssp_attr(pm, "source");
    int bad = type && strcmp(type, "application/x-ssp-parameter-mapping");
    free(type);
    if (bad) {
        free(src);
        return R(s, ssp_file(s), pm, "only type application/x-ssp-parameter-mapping is supported");
    }
    xmlNodePtr root;
    const char *file;
    char *saved = s->dir;
    int rc = source_base(s, pm, bd);
    if (!rc) rc = doc_root(s, pm, src, SSP_NS_SSM, "ParameterMapping", &root, &file);
    s->dir = saved;
    free(src);
    if (rc) return rc;
    size_t n = 0;
    for (xmlNodePtr e = root->children; e; e = e->next)
        n += e->type == XML_ELEMENT_NODE;
    entry *es = calloc(n + 1, sizeof *es);
    if (!es) return ssp_oom(s);
    size_t k = 0;
    for (xmlNodePtr e = root->children; e; e = e->next) {
        if (e->type != XML_ELEMENT_NODE || ssp_skipped(e)) continue;
        if (!ssp_is_el(e, SSP_NS_SSM, "MappingEntry"))
            return free_entries(es, k), R(s, file, e, "expected ssm:MappingEntry");
        entry *m = &es[k++];
        m->node = e;
        m->factor = 1;
        m->source = ssp_attr(e, "source");
        m->target = ssp_attr(e, "target");
        if (!m->source || !m->target)
            return free_entries(es, k), R(s, file, e, "a mapping entry needs source and target");
        for (xmlNodePtr t = e->children; t; t = t->next) {
            if (t->type != XML_ELEMENT_NODE || ssp_skipped(t)) continue;
            int lin = ssp_is_el(t, SSP_NS_SSC, "LinearTransformation");
            int map = ssp_is_el(t, SSP_NS_SSC, "BooleanMappingTransformation") ||
                      ssp_is_el(t, SSP_NS_SSC, "IntegerMappingTransformation") ||
                      ssp_is_el(t, SSP_NS_SSC, "EnumerationMappingTransformation");
            if ((!lin && !map) || m->linear || m->map)
                return free_entries(es, k),
                       R(s, file, t,
                         "expected one transformation (ssc:LinearTransformation, "
                         "ssc:BooleanMappingTransformation, ssc:IntegerMappingTransformation or "
                         "ssc:EnumerationMappingTransformation)");
            if (map) {
                m->map = t;
                continue;
            }
            m->linear = 1;
            if (ssp_get_double(s, file, t, "factor", 1, &m->factor) ||
                ssp_get_double(s, file, t, "offset", 0, &m->offset))
                return free_entries(es, k), -1;
        }
    }
    *out = es;
    *n_out = k;
    return 0;
}

/* The integer of an ssv:Enumeration value: the item named `value` of the ssc:Enumeration
 * named `type` (any, when the value names none) declared in the parameter set's
 * ssv:Enumerations or the SSD's ssd:Enumerations. -1 (refused) when there is none. */
static int enum_value(sx *s, const char *file, xmlNodePtr v, const char *item, xmlNodePtr set_enums,
                      long long *out)
{
    char *value = item ? strdup(item) : NULL, *type = ssp_attr(v, "name");
    xmlNodePtr lists[2] = {set_enums, ssp_enumerations(s)};
    int found = 0;
    for (int l = 0; l < 2 && !found && value; l++)
        for (xmlNodePtr e = lists[l] ? lists[l]->children : NULL; e && !found; e = e->next) {
            if (!ssp_is_el(e, SSP_NS_SSC, "Enumeration")) continue;
            char *en = ssp_attr(e, "name");
            int match = !type || (en && !strcmp(en, type));
            free(en);
            for (xmlNodePtr it = e->children; match && it && !found; it = it->next) {
                if (!ssp_is_el(it, SSP_NS_SSC, "Item")) continue;
                char *in = ssp_attr(it, "name"), *iv = ssp_attr(it, "value"), *end = NULL;
                if (in && iv && !strcmp(in, value)) {
                    *out = strtoll(iv, &end, 10);
                    found = *iv && !*end ? 1 : -1;
                }
                free(in), free(iv);
            }
        }
    char msg[400];
    snprintf(msg, sizeof msg,
             found < 0
                 ? "the item \"%.100s\" of the enumeration has no integer value"
                 : "no ssc:Enumeration%s%.100s%s declares an item \"%.100s\" (ssd:Enumerations "
                   "or ssv:Enumerations)",
             type ? " \"" : "", type ? type : "", type ? "\"" : "", value ? value : "");
    free(value), free(type);
    return found > 0 ? 0 : R(s, file, v, msg);
}

/* A value through a mapping transformation: the target of the ssc:MapEntry whose source
 * equals it (integers by value, Booleans as true/false/1/0, enumeration items by name), the
 * value unchanged when no entry names it. NULL (refused) for a transformation of another
 * type or an entry without source or target. */
static const char *map_value(sx *s, const char *file, xmlNodePtr tf, const char *type,
                             const char *value, char *buf, size_t len)
{
    char want[64];
    snprintf(want, sizeof want, "%sMappingTransformation", type);
    if (strcmp(ssp_local(tf), want)) {
        char msg[200];
        snprintf(msg, sizeof msg, "an ssc:%s does not apply to a value of type %s", ssp_local(tf),
                 type);
        R(s, file, tf, msg);
        return NULL;
    }
    int is_bool = !strcmp(type, "Boolean"), is_int = !strcmp(type, "Integer");
    for (xmlNodePtr e = tf->children; e; e = e->next) {
        if (!ssp_is_el(e, SSP_NS_SSC, "MapEntry")) continue;
        char *src = ssp_attr(e, "source"), *tgt = ssp_attr(e, "target");
        if (!src || !tgt) {
            free(src), free(tgt);
            R(s, file, e, "a map entry needs source and target");
            return NULL;
        }
        int match = 0;
        if (is_int)
            match = strtoll(src, NULL, 10) == strtoll(value, NULL, 10);
        else if (is_bool)
            match = (!strcmp(src, "true") || !strcmp(src, "1")) ==
                    (!strcmp(value, "true") || !strcmp(value, "1"));
        else
            match = !strcmp(src, value);
        if (match) snprintf(buf, len, "%s", tgt);
        free(src), free(tgt);
        if (match) return buf;
    }
    return value;
}

/* One ssv:Parameter: into the parameters of the component it names, or down the connections
 * of the system connector it names (ssp_system_value). `prefix` is the binding's. */
static int apply_one(sx *s, const char *file, xmlNodePtr p, const char *owner, int is_sys,
                     const char *prefix, const entry *map, size_t n_map, xmlNodePtr set_enums);

/* One ssv:Parameter through its mapping: every ssm:MappingEntry whose source is its name
 * gives it to that entry's target (one parameter may feed several, as OMSimulator's files
 * map one value to many inputs); a parameter no entry names keeps its name. */
static int apply_param(sx *s, const char *file, xmlNodePtr p, const char *owner, int is_sys,
                       const char *prefix, const entry *map, size_t n_map, xmlNodePtr set_enums)
{
    char *bare = ssp_attr(p, "name");
    if (!bare) return R(s, file, p, "a parameter needs a name");
    size_t nl = strlen(prefix) + strlen(bare) + 1;
    char *name = malloc(nl);
    if (!name) return free(bare), ssp_oom(s);
    snprintf(name, nl, "%s%s", prefix, bare);
    free(bare);
    int any = 0, rc = 0;
    for (size_t i = 0; i < n_map && !rc; i++)
        if (!strcmp(map[i].source, name)) {
            any = 1;
            rc = apply_one(s, file, p, owner, is_sys, prefix, &map[i], 1, set_enums);
        }
    free(name);
    if (!any && !rc) rc = apply_one(s, file, p, owner, is_sys, prefix, NULL, 0, set_enums);
    return rc;
}

/* One ssv:Parameter to one place: map is the one entry that renames it, or NULL. */
static int apply_one(sx *s, const char *file, xmlNodePtr p, const char *owner, int is_sys,
                     const char *prefix, const entry *map, size_t n_map, xmlNodePtr set_enums)
{
    char *bare = ssp_attr(p, "name");
    if (!bare) return R(s, file, p, "a parameter needs a name");
    size_t nl = strlen(prefix) + strlen(bare) + 1;
    char *name = malloc(nl);
    if (!name) return free(bare), ssp_oom(s);
    snprintf(name, nl, "%s%s", prefix, bare);
    free(bare);
    xmlNodePtr v = NULL;
    for (xmlNodePtr c = p->children; c; c = c->next) {
        if (c->type != XML_ELEMENT_NODE || ssp_skipped(c)) continue;
        if (v || !ssp_is_el(c, SSP_NS_SSV, ssp_local(c)))
            return free(name), R(s, file, c, "expected one value element (ssv:Real, ...)");
        v = c;
    }
    if (!v) return free(name), R(s, file, p, "no value");
    const char *tn = ssp_local(v);
    int real = !strcmp(tn, "Real") || !strcmp(tn, "Float64") || !strcmp(tn, "Float32");
    int integer = !strcmp(tn, "Integer") || !strncmp(tn, "Int", 3) || !strncmp(tn, "UInt", 4);
    int boolean = !strcmp(tn, "Boolean"), string = !strcmp(tn, "String");
    int enumeration = !strcmp(tn, "Enumeration");
    if (!real && !integer && !boolean && !string && !enumeration)
        return free(name), R(s, file, v,
                             "only Real, Integer, Boolean, String and Enumeration parameter "
                             "values are supported (not Binary)");
    const entry *m = NULL;
    for (size_t i = 0; i < n_map; i++)
        if (!strcmp(map[i].source, name)) m = &map[i];
    const char *target = m ? m->target : name;
    const char *path = owner, *var = target;
    if (is_sys) path = ssp_component_for(s, owner, target, &var);
    json_t *val = NULL;
    if (real) {
        double d, f, o;
        if (ssp_get_double(s, file, v, "value", NAN, &d)) return free(name), -1;
        if (isnan(d)) return free(name), R(s, file, v, "no value attribute");
        if (m && m->linear) d = d * m->factor + m->offset;
        char *u = ssp_attr(v, "unit");
        int rc = ssp_unit_conv(s, file, v, u,
                               path ? ssp_connector_unit(s, path, var)
                                    : ssp_sys_connector_unit(s, owner, target),
                               &f, &o);
        free(u);
        if (rc) return free(name), rc;
        val = json_real(d * f + o);
    } else if (m && m->linear) {
        return free(name), R(s, file, m->node, "a linear transformation applies to Real only");
    } else {
        char *x = ssp_attr(v, "value"), buf[256];
        if (!x) return free(name), R(s, file, v, "no value attribute");
        const char *mx = x;
        if (m && m->map &&
            !(mx = map_value(s, file, m->map,
                             enumeration ? "Enumeration"
                             : integer   ? "Integer"
                             : boolean   ? "Boolean"
                                         : "String",
                             x, buf, sizeof buf)))
            return free(x), free(name), -1;
        char *end = NULL;
        long long e = 0;
        if (enumeration) {
            int erc = enum_value(s, file, v, mx, set_enums, &e);
            free(x);
            if (erc) return free(name), -1;
            val = json_integer(e);
        } else {
            if (integer) {
                long long i = strtoll(mx, &end, 10);
                val = *mx && !*end ? json_integer(i) : NULL;
            } else if (boolean) {
                int t = !strcmp(mx, "true") || !strcmp(mx, "1"),
                    f = !strcmp(mx, "false") || !strcmp(mx, "0");
                val = t || f ? json_boolean(t) : NULL;
            } else
                val = json_string(mx);
            free(x);
            if (!val) return free(name), R(s, file, v, "value is not of the element's type");
        }
    }
    int rc = 0;
    if (!val)
        rc = ssp_oom(s);
    else if (path) {
        json_t *params = ssp_component_params(s, path);
        rc = params && !json_object_set(params, var, val) ? 0 : ssp_oom(s);
    } else {
        int found = 0;
        rc = ssp_system_value(s, file, p, owner, target, val, &found);
        if (!rc && !found) {
            char msg[400];
            snprintf(msg, sizeof msg,
                     "parameter \"%.200s\" names no component variable (\"Component.variable\") "
                     "and no connector of the system",
                     target);
            rc = R(s, file, p, msg);
        }
    }
    json_decref(val);
    free(name); /* var and target may point into it */
    return rc;
}

static int apply_binding(sx *s, const bnd *bd)
{
    xmlNodePtr b = bd->node;
    const char *owner = bd->owner;
    int is_sys = bd->is_sys;
    char *type = ssp_attr(b, "type"), *src = ssp_attr(b, "source");
    char *prefix = ssp_attr(b, "prefix");
    int bad = type && strcmp(type, "application/x-ssp-parameter-set");
    free(type);
    if (bad)
        return free(src), free(prefix),
               R(s, ssp_file(s), b, "only type application/x-ssp-parameter-set is supported");
    xmlNodePtr values = NULL, mapping = NULL;
    for (xmlNodePtr c = b->children; c; c = c->next) {
        if (c->type != XML_ELEMENT_NODE || ssp_skipped(c)) continue;
        if (ssp_is_el(c, SSP_NS_SSD, "ParameterValues") && !values && !src)
            values = c;
        else if (ssp_is_el(c, SSP_NS_SSD, "ParameterMapping") && !mapping)
            mapping = c;
        else
            return free(src), R(s, ssp_file(s), c, "not supported here (or given twice)");
    }
    xmlNodePtr set;
    const char *file;
    char *saved = s->dir;
    int rc = src ? source_base(s, b, bd) : 0;
    if (!rc) rc = doc_root(s, values ? values : b, src, SSP_NS_SSV, "ParameterSet", &set, &file);
    s->dir = saved;
    free(src);
    if (rc) return free(prefix), rc;
    entry *map = NULL;
    size_t n_map = 0;
    if (mapping && (rc = read_mapping(s, mapping, bd, &map, &n_map))) return free(prefix), rc;
    /* the set's own units and enumerations serve its values (after the SSD's) */
    xmlNodePtr enums = NULL;
    for (xmlNodePtr c = set->children; c && !rc; c = c->next) {
        if (ssp_is_el(c, SSP_NS_SSV, "Units")) rc = ssp_read_units(s, file, c);
        if (ssp_is_el(c, SSP_NS_SSV, "Enumerations")) enums = c;
    }
    for (xmlNodePtr c = set->children; c && !rc; c = c->next) {
        if (c->type != XML_ELEMENT_NODE || ssp_skipped(c) || ssp_is_el(c, SSP_NS_SSV, "Units") ||
            ssp_is_el(c, SSP_NS_SSV, "Enumerations"))
            continue;
        if (!ssp_is_el(c, SSP_NS_SSV, "Parameters")) {
            rc = R(s, file, c, "not supported in a parameter set");
            break;
        }
        for (xmlNodePtr p = c->children; p && !rc; p = p->next) {
            if (p->type != XML_ELEMENT_NODE || ssp_skipped(p)) continue;
            if (!ssp_is_el(p, SSP_NS_SSV, "Parameter"))
                rc = R(s, file, p, "expected ssv:Parameter");
            else
                rc =
                    apply_param(s, file, p, owner, is_sys, prefix ? prefix : "", map, n_map, enums);
        }
    }
    free_entries(map, n_map);
    free(prefix);
    return rc;
}

/* SSP 1.0 §5.3.5 (the schema's ParameterBinding): within one element a later binding wins;
 * across levels a binding higher in the hierarchy wins. So the deepest elements are bound
 * first and the root last, each in document order. */
int ssp_bind_parameters(sx *s)
{
    size_t n = ssp_n_bindings(s), max_depth = 0;
    for (size_t i = 0; i < n; i++) {
        const char *owner;
        int is_sys;
        ssp_binding(s, i, &owner, &is_sys);
        size_t depth = owner[0] != '\0';
        for (const char *q = owner; *q; q++)
            depth += *q == '.';
        if (depth > max_depth) max_depth = depth;
    }
    for (size_t pass = max_depth + 1; pass-- > 0;)
        for (size_t i = 0; i < n; i++) {
            const char *owner;
            int is_sys;
            ssp_binding(s, i, &owner, &is_sys);
            size_t depth = owner[0] != '\0';
            for (const char *q = owner; *q; q++)
                depth += *q == '.';
            if (depth != pass) continue;
            char *saved = s->dir; /* a binding's sources resolve against its document */
            s->dir = s->bnds[i].dir;
            s->in_pkg = s->bnds[i].in_pkg;
            int rc = apply_binding(s, &s->bnds[i]);
            s->dir = saved;
            s->in_pkg = 0;
            if (rc) return rc;
        }
    return 0;
}

int ssp_apply_tempo(sx *s, json_t *doc, json_t *tempo)
{
    static const char *const keys[] = {"algorithm", "solver", "resolution", "federates", NULL};
    static const char *const fkeys[] = {"solver", "record", "quantum", "role", "outputs", NULL};
    const char *key;
    json_t *v;
    char msg[300];
    json_object_foreach(tempo, key, v)
    {
        int ok = 0;
        for (int i = 0; keys[i]; i++)
            ok |= !strcmp(keys[i], key);
        if (!ok) {
            snprintf(msg, sizeof msg, "Tempo annotation: unknown key \"%.100s\"", key);
            return R(s, ssp_file(s), NULL, msg);
        }
        if (strcmp(key, "federates")) {
            if (json_object_set(doc, key, v)) return ssp_oom(s);
            continue;
        }
        const char *fname;
        json_t *fo;
        json_t *feds = json_object_get(doc, "federates");
        if (!json_is_object(v))
            return R(s, ssp_file(s), NULL, "Tempo annotation: federates: expected an object");
        json_object_foreach(v, fname, fo)
        {
            json_t *target = NULL;
            for (size_t i = 0; i < json_array_size(feds); i++)
                if (!strcmp(json_string_value(json_object_get(json_array_get(feds, i), "name")),
                            fname))
                    target = json_array_get(feds, i);
            if (!target || !json_is_object(fo)) {
                snprintf(msg, sizeof msg, "Tempo annotation: federates: \"%.100s\" is no component",
                         fname);
                return R(s, ssp_file(s), NULL, msg);
            }
            const char *k2;
            json_t *x;
            json_object_foreach(fo, k2, x)
            {
                int ok2 = 0;
                for (int i = 0; fkeys[i]; i++)
                    ok2 |= !strcmp(fkeys[i], k2);
                if (!ok2) {
                    snprintf(msg, sizeof msg,
                             "Tempo annotation: federates.%.100s: unknown key \"%.60s\"", fname,
                             k2);
                    return R(s, ssp_file(s), NULL, msg);
                }
                if (strcmp(k2, "outputs") && json_object_set(target, k2, x)) return ssp_oom(s);
            }
        }
    }
    return 0;
}
