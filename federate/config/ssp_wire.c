/* SSP reader, the wiring (federate/config/ssp_impl.h): connections put in the direction
 * values flow, followed from each component input back to the output that feeds it with
 * their transformations and units composed; the values of system connectors passed down
 * parameter connections; signal dictionary references bound to their dictionaries. The
 * mapping is doc/ssp.md. Read federate/config/ssp_params.c next.
 */
#include <libxml/tree.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "federate/config/ssp_impl.h"
#include "federate/fmu/fmu_load.h"

/* ======================================================================================
 * Wiring
 * ====================================================================================== */

ctr *ssp_find_ctr(sx *s, const char *owner, const char *name)
{
    for (size_t i = 0; i < s->n_ctrs; i++)
        if (!strcmp(s->ctrs[i].owner, owner) && !strcmp(s->ctrs[i].name, name)) return &s->ctrs[i];
    return NULL;
}

comp *ssp_find_comp(sx *s, const char *path)
{
    for (size_t i = 0; i < s->n_comps; i++)
        if (!strcmp(s->comps[i].path, path)) return &s->comps[i];
    return NULL;
}

/* The object "outputs"/"inputs"/"parameters" of a component, created on first use. */
json_t *ssp_section(comp *k, const char *key)
{
    json_t *o = json_object_get(k->obj, key);
    if (!o && (o = json_object()) && json_object_set_new(k->obj, key, o)) return NULL;
    return o;
}

/* The attribute Class.attr an output publishes (created on first use, unique in its class). */
static int publish(sx *s, comp *k, const char *var, const char **out)
{
    json_t *outs = ssp_section(k, "outputs");
    if (!outs) return ssp_oom(s);
    json_t *v = json_object_get(outs, var);
    if (v) return *out = json_string_value(v), 0;
    char *a = ssp_sanitize(var, 1);
    if (!a) return ssp_oom(s);
    char full[600]; /* class and attribute cut to 250 bytes each, so the suffix always fits */
    for (int i = 1;; i++) {
        snprintf(full, sizeof full, i == 1 ? "%.250s.%.250s" : "%.250s.%.250s_%d", k->cls, a, i);
        const char *key;
        json_t *x;
        int taken = 0;
        json_object_foreach(outs, key, x) taken |= !strcmp(json_string_value(x), full);
        if (!taken) break;
    }
    free(a);
    if (json_object_set_new(outs, var, json_string(full))) return ssp_oom(s);
    return *out = json_string_value(json_object_get(outs, var)), 0;
}

/* The role of a connector at one end of a connection declared in system `sys`: a source of
 * values (a component's output or calculated parameter, a system's own input or parameter seen
 * from inside, a subsystem's output seen from outside), a sink, or unknown (inout). */
enum { R_UNKNOWN = 0, R_SRC, R_SINK };
static int role(const ctr *k, const char *sys)
{
    int in = !strcmp(k->kind, "input") || !strcmp(k->kind, "parameter");
    int out = !strcmp(k->kind, "output") || !strcmp(k->kind, "calculatedParameter");
    if (!in && !out) return R_UNKNOWN;
    int inside = k->is_sys && !strcmp(k->owner, sys);
    return in != inside ? R_SINK : R_SRC;
}

/* Put every connection in the direction values flow: tools write some from the sink's side
 * (a system output connector as startConnector, an input before the output it reads). Two
 * sources or two sinks are refused naming both. */
static int orient(sx *s)
{
    for (size_t i = 0; i < s->n_cns; i++) {
        cn *c = &s->cns[i];
        ctr *from = ssp_find_ctr(s, c->from_owner, c->from),
            *to = ssp_find_ctr(s, c->to_owner, c->to);
        if (!from || !to)
            return ssp_refuse(
                s, s->file, c->node, "no connector \"%s\" on \"%s\"", from ? c->to : c->from,
                (from ? c->to_owner : c->from_owner)[0] ? (from ? c->to_owner : c->from_owner)
                                                        : "the system");
        int rf = role(from, c->sys), rt = role(to, c->sys);
        if (rf != R_UNKNOWN && rf == rt)
            return ssp_refuse(s, s->file, c->node,
                              "connector \"%s\" of \"%s\" (%s) and connector \"%s\" of \"%s\" (%s) "
                              "both %s values",
                              from->name, from->owner[0] ? from->owner : "the system", from->kind,
                              to->name, to->owner[0] ? to->owner : "the system", to->kind,
                              rf == R_SRC ? "give" : "take");
        if (rf == R_SINK || rt == R_SRC) { /* written from the sink's side: turn it round */
            char *t = c->from_owner;
            c->from_owner = c->to_owner, c->to_owner = t;
            t = c->from, c->from = c->to, c->to = t;
        }
        c->oriented = 1;
    }
    return 0;
}

/* The connection that feeds connector (owner, name), or NULL. */
static cn *feeder(sx *s, const char *owner, const char *name)
{
    for (size_t j = 0; j < s->n_cns; j++)
        if (!strcmp(s->cns[j].to_owner, owner) && !strcmp(s->cns[j].to, name)) return &s->cns[j];
    return NULL;
}

/* The integer value of item `item` of the enumeration named `en` (any, when NULL) of the
 * SSD's ssd:Enumerations; 0 when none declares it. */
static int enum_item(sx *s, const char *en, const char *item, long long *out)
{
    xmlNodePtr es = ssp_enumerations(s);
    for (xmlNodePtr e = es ? es->children : NULL; e; e = e->next) {
        if (!ssp_is_el(e, SSP_NS_SSC, "Enumeration")) continue;
        char *name = ssp_attr(e, "name");
        int match = !en || (name && !strcmp(name, en));
        free(name);
        for (xmlNodePtr it = e->children; match && it; it = it->next) {
            if (!ssp_is_el(it, SSP_NS_SSC, "Item")) continue;
            char *in = ssp_attr(it, "name"), *iv = ssp_attr(it, "value"), *end = NULL;
            int ok = in && iv && !strcmp(in, item);
            if (ok) *out = strtoll(iv, &end, 10);
            ok = ok && *iv && !*end;
            free(in), free(iv);
            if (ok) return 1;
        }
    }
    return 0;
}

/* One side of an ssc:MapEntry as the number on the wire: an integer, a Boolean as 0/1, an
 * enumeration item as its value in the enumeration of connector k. */
static int map_side(sx *s, xmlNodePtr t, xmlNodePtr e, const char *text, const ctr *k,
                    long long *out)
{
    char *end = NULL;
    if (ssp_is_el(t, SSP_NS_SSC, "IntegerMappingTransformation")) {
        *out = strtoll(text, &end, 10);
        if (*text && !*end) return 0;
    } else if (ssp_is_el(t, SSP_NS_SSC, "BooleanMappingTransformation")) {
        int tr = !strcmp(text, "true") || !strcmp(text, "1");
        *out = tr;
        if (tr || !strcmp(text, "false") || !strcmp(text, "0")) return 0;
    } else if (enum_item(s, k->enum_name, text, out))
        return 0;
    return ssp_refuse(s, s->file, e, "\"%s\" is no value of the transformation's type%s%s%s", text,
                      k->enum_name ? " (enumeration \"" : "", k->enum_name ? k->enum_name : "",
                      k->enum_name ? "\" of ssd:Enumerations)" : "");
}

/* A mapping transformation as the pairs [from, to] of a "transform" map (doc/federation.md):
 * sources in the type of connector `src`, targets in that of `dst`. NULL (refused) on a bad
 * entry. */
static json_t *map_pairs(sx *s, xmlNodePtr t, const ctr *src, const ctr *dst)
{
    json_t *pairs = json_array();
    if (!pairs) return ssp_oom(s), NULL;
    for (xmlNodePtr e = t->children; e; e = e->next) {
        if (e->type != XML_ELEMENT_NODE || ssp_skipped(e)) continue;
        char *a = ssp_is_el(e, SSP_NS_SSC, "MapEntry") ? ssp_attr(e, "source") : NULL;
        char *b = a ? ssp_attr(e, "target") : NULL;
        long long x = 0, y = 0;
        int rc = !a || !b ? ssp_refuse(s, s->file, e, "expected ssc:MapEntry source target")
                          : map_side(s, t, e, a, src, &x) || map_side(s, t, e, b, dst, &y);
        free(a), free(b);
        json_t *p = rc ? NULL : json_pack("[II]", (json_int_t)x, (json_int_t)y);
        if (rc || !p || json_array_append_new(pairs, p)) {
            json_decref(pairs);
            if (!rc) ssp_oom(s);
            return NULL;
        }
    }
    if (!json_array_size(pairs)) {
        json_decref(pairs);
        ssp_refuse(s, s->file, t, "a mapping transformation without ssc:MapEntry");
        return NULL;
    }
    return pairs;
}

/* The FMU variable behind connector c of component k, when its FMU can be read: a connection
 * of a variable that carries no number (String, Binary, Clock), a 64-bit integer or a variable
 * the FMU lacks is refused naming the connection `at`, whatever the connector's own type says
 * (an untyped connector takes the variable's). An FMU that cannot be read is named when the
 * federate loads it. */
static int check_var(sx *s, xmlNodePtr at, comp *k, const ctr *c)
{
    if (!k->md_read) {
        k->md_read = 1;
        fmu_md *md = NULL;
        char e[256];
        const char *path = json_string_value(json_object_get(k->obj, "fmu"));
        if (path && fmu_load_md(path, NULL, &md, e, sizeof e) == 0) k->md = md;
    }
    const fmu_md *md = k->md;
    if (!md) return 0;
    long v = fmu_md_find(md, c->name);
    if (v < 0)
        return ssp_refuse(s, s->file, at,
                          "connector \"%s\" of \"%s\": its FMU has no variable \"%s\"", c->name,
                          c->owner, c->name);
    fmu_vtype t = md->vars[v].type;
    if (t == FMU_T_STRING || t == FMU_T_BINARY || t == FMU_T_CLOCK)
        return ssp_refuse(s, s->file, at,
                          "connector \"%s\" of \"%s\" is a %s variable of its FMU: Tempo "
                          "exchanges numbers only (Real, Integer, Boolean, Enumeration)",
                          c->name, c->owner,
                          t == FMU_T_STRING   ? "String"
                          : t == FMU_T_BINARY ? "Binary"
                                              : "Clock");
    if (t == FMU_T_INT64 || t == FMU_T_UINT64)
        return ssp_refuse(s, s->file, at,
                          "connector \"%s\" of \"%s\" is a 64-bit integer variable of its FMU: "
                          "the coupling carries doubles, exact to 2^53 only",
                          c->name, c->owner);
    return 0;
}

/* Every connection that ends at a component's input: follow the chain back through system
 * connectors to a component's output, compose the transformations, check types and units;
 * a connection that is not the identity gives the input a "transform" (doc/ssp.md). */
int ssp_wire(sx *s)
{
    if (orient(s)) return -1;
    for (size_t i = 0; i < s->n_cns; i++) /* a system connector or signal has one writer */
        for (size_t j = 0; j < i; j++)
            if (!strcmp(s->cns[i].to_owner, s->cns[j].to_owner) &&
                !strcmp(s->cns[i].to, s->cns[j].to) &&
                ssp_find_ctr(s, s->cns[i].to_owner, s->cns[i].to)->is_sys)
                return ssp_refuse(s, s->file, s->cns[i].node,
                                  "connector \"%s\" of \"%s\" is fed by two connections (the "
                                  "other at line %ld)",
                                  s->cns[i].to,
                                  s->cns[i].to_owner[0] ? s->cns[i].to_owner : "the system",
                                  (long)xmlGetLineNo(s->cns[j].node));
    for (size_t i = 0; i < s->n_cns; i++) {
        cn *c = &s->cns[i];
        ctr *from = ssp_find_ctr(s, c->from_owner, c->from),
            *to = ssp_find_ctr(s, c->to_owner, c->to);
        if (to->is_sys) continue; /* an inner leg of a chain, followed from its end */
        int param = !strcmp(to->kind, "parameter");
        double f = c->factor, o = c->offset;
        int no_units = c->no_units, maps = c->map != NULL;
        xmlNodePtr at = c->node, map = c->map;
        ctr *last = to; /* the sink of the leg carrying the map (its enumeration) */
        int hops = 0;
        while (from->is_sys) { /* find the connection that feeds this system connector */
            cn *up = feeder(s, from->owner, from->name);
            if (!up) break;
            o = o + f * up->offset; /* y = f (f_up x + o_up) + o */
            f = f * up->factor;
            no_units |= up->no_units;
            if (up->map) map = up->map, last = from, maps++;
            from = ssp_find_ctr(s, up->from_owner, up->from);
            if (++hops > 1000) return ssp_refuse(s, s->file, at, "a cycle of system connectors");
        }
        if (from->is_sys)
            continue; /* fed from outside the root, or by a parameter binding of
                         a system connector (ssp_system_value): start values */
        if (param)
            return ssp_refuse(s, s->file, at,
                              "parameter \"%s\" of \"%s\" is fed by connector \"%s\" of \"%s\": a "
                              "parameter takes a value at the start, not a signal",
                              to->name, to->owner, from->name, from->owner);
        if (strcmp(from->kind, "output") && strcmp(from->kind, "inout") &&
            strcmp(from->kind, "calculatedParameter"))
            return ssp_refuse(s, s->file, at,
                              "connector \"%s\" of \"%s\" has kind %s: only outputs and "
                              "calculated parameters feed inputs",
                              from->name, from->owner, from->kind);
        if (from->type == T_OTHER || to->type == T_OTHER)
            return ssp_refuse(s, s->file, at,
                              "connection of type %s: Tempo exchanges numbers only (Real, Integer, "
                              "Boolean, Enumeration; not String, Binary or Clock)",
                              from->type == T_OTHER ? from->typename : to->typename);
        double uf = 1, uo = 0;
        if (!no_units && ssp_unit_conv(s, s->file, at, from->unit, to->unit, &uf, &uo)) return -1;
        o = uf * o + uo;
        f = uf * f;
        if (maps && (from->type == T_REAL || to->type == T_REAL))
            return ssp_refuse(
                s, s->file, at,
                "a mapping transformation applies to Integer, Boolean and "
                "Enumeration connectors (\"%s\" of \"%s\" to \"%s\" of \"%s\" is Real)",
                from->name, from->owner, to->name, to->owner);
        /* exactly the identity (not a tolerance) beside one mapping */
        if (maps && (maps > 1 || f != 1 || o != 0))
            return ssp_refuse(s, s->file, at,
                              "a mapping transformation combined with another transformation or "
                              "a unit conversion along the way to \"%s\" of \"%s\"",
                              to->name, to->owner);
        comp *src = ssp_find_comp(s, from->owner), *dst = ssp_find_comp(s, to->owner);
        if (!src || !dst) return ssp_refuse(s, s->file, at, "connector owner is not a component");
        if (check_var(s, at, src, from) || check_var(s, at, dst, to)) return -1;
        const char *ca;
        if (publish(s, src, from->name, &ca)) return -2;
        json_t *ins = ssp_section(dst, "inputs");
        if (!ins) return ssp_oom(s);
        if (json_object_get(ins, to->name))
            return ssp_refuse(s, s->file, at, "input \"%s\" of \"%s\" is fed by two connections",
                              to->name, to->owner);
        if (json_object_set_new(ins, to->name, json_string(ca))) return ssp_oom(s);
        if (maps) {
            json_t *pairs = map_pairs(s, map, from, last);
            if (!pairs) return s->err[0] ? -1 : -2;
            json_t *tf = ssp_section(dst, "transform"), *e = json_object();
            if (!tf || !e || json_object_set_new(e, "map", pairs) ||
                json_object_set_new(tf, to->name, e))
                return json_decref(e), ssp_oom(s);
            continue;
        }
        /* exactly the identity (not a tolerance): no transform, the value's bits pass */
        if (f != 1 || o != 0) {
            json_t *tf = ssp_section(dst, "transform"), *e = json_object();
            if (!tf || !e || json_object_set_new(e, "factor", json_real(f)) ||
                json_object_set_new(e, "offset", json_real(o)) ||
                json_object_set_new(tf, to->name, e))
                return ssp_oom(s);
        }
    }
    return 0;
}

/* A parameter binding of system `sys` naming one of the connectors of that system or of a
 * subsystem (`target` "C" or "Sub.C"): the value goes down every connection from that
 * connector to the component parameters and inputs it reaches (their start values), each
 * leg's linear transformation applied to a Real value. *found: 0 when `target` names no
 * system connector. A connector that reaches nothing takes the value to no variable. */
static int push_value(sx *s, const char *file, xmlNodePtr at, ctr *k, json_t *val, int depth)
{
    if (depth > 1000) return ssp_refuse(s, file, at, "a cycle of system connectors");
    for (size_t j = 0; j < s->n_cns; j++) {
        cn *c = &s->cns[j];
        if (strcmp(c->from_owner, k->owner) || strcmp(c->from, k->name)) continue;
        ctr *to = ssp_find_ctr(s, c->to_owner, c->to);
        json_t *v = val;
        if (json_is_real(val) && (c->factor != 1 || c->offset != 0))
            v = json_real(c->factor * json_real_value(val) + c->offset);
        else
            json_incref(v);
        if (!v) return ssp_oom(s);
        int rc = 0;
        if (to->is_sys)
            rc = push_value(s, file, at, to, v, depth + 1);
        else if (!strcmp(to->kind, "output") || !strcmp(to->kind, "calculatedParameter"))
            rc = ssp_refuse(s, file, at, "the value reaches connector \"%s\" of \"%s\", of kind %s",
                            to->name, to->owner, to->kind);
        else {
            json_t *params = ssp_section(ssp_find_comp(s, to->owner), "parameters");
            rc = params && !json_object_set(params, to->name, v) ? 0 : ssp_oom(s);
        }
        json_decref(v);
        if (rc) return rc;
    }
    return 0;
}

int ssp_system_value(sx *s, const char *file, xmlNodePtr at, const char *sys, const char *target,
                     json_t *val, int *found)
{
    *found = 0;
    char *full = ssp_join(sys, target);
    if (!full) return ssp_oom(s);
    ctr *k = NULL;
    for (size_t i = 0; i < s->n_ctrs && !k; i++) {
        ctr *c = &s->ctrs[i];
        size_t ol = strlen(c->owner);
        if (c->is_sys && !strncmp(full, c->owner, ol) &&
            (ol ? full[ol] == '.' && !strcmp(full + ol + 1, c->name) : !strcmp(full, c->name)))
            k = c;
    }
    free(full);
    if (!k) return 0;
    *found = 1;
    return push_value(s, file, at, k, val, 0);
}

/* The Tempo annotation's federates.NAME.outputs {"var": "Class.attribute"}: the names an
 * exported federation used, so a round trip publishes the same attributes (doc/ssp.md). */
int ssp_preset_outputs(sx *s, json_t *tempo)
{
    json_t *feds = json_object_get(tempo, "federates");
    for (size_t i = 0; json_is_object(feds) && i < s->n_comps; i++) {
        comp *k = &s->comps[i];
        json_t *o = json_object_get(json_object_get(feds, k->fed), "outputs"), *v;
        const char *var;
        json_object_foreach(o, var, v)
        {
            ctr *c = ssp_find_ctr(s, k->path, var);
            if (!c || strcmp(c->kind, "output") || !json_is_string(v))
                return ssp_refuse(s, s->file, k->node,
                                  "Tempo annotation: federates.%s.outputs: \"%s\" is not an output "
                                  "connector named to a \"Class.attribute\"",
                                  k->fed, var);
            json_t *outs = ssp_section(k, "outputs");
            if (!outs || json_object_set(outs, var, v)) return ssp_oom(s);
        }
    }
    return 0;
}

/* Every output connector of a component typed Real is published, connected or not, in the
 * order of its connectors: the federate records its outputs (doc/ssp.md). An untyped one is
 * published when connected (wire), since its FMU variable may not be Real. */
int ssp_publish_outputs(sx *s)
{
    for (size_t i = 0; i < s->n_ctrs; i++) {
        ctr *c = &s->ctrs[i];
        if (c->is_sys || strcmp(c->kind, "output") || c->type != T_REAL) continue;
        comp *k = ssp_find_comp(s, c->owner);
        const char *ca;
        if (k && publish(s, k, c->name, &ca)) return -2;
    }
    return 0;
}

/* Every reference bound to the dictionary it names, declared in its system or the nearest
 * enclosing one: its connectors and the connections to it renamed to the dictionary, so the
 * references of one dictionary share its entries. */
int ssp_bind_drefs(sx *s)
{
    for (size_t i = 0; i < s->n_drefs; i++) {
        sdref *r = &s->drefs[i];
        const sdict *best = NULL;
        for (size_t j = 0; j < s->n_dicts; j++) {
            const sdict *d = &s->dicts[j];
            size_t l = strlen(d->sys);
            int encloses = !l || (!strncmp(r->sys, d->sys, l) && (!r->sys[l] || r->sys[l] == '.'));
            if (!strcmp(d->name, r->dict) && encloses && (!best || l > strlen(best->sys))) best = d;
        }
        if (!best)
            return ssp_refuse(s, s->file, r->node,
                              "no ssd:SignalDictionary \"%s\" in this system or an enclosing one",
                              r->dict);
        size_t n = strlen(best->name) + strlen(best->sys) + 40;
        char *canon = malloc(n);
        if (!canon) return ssp_oom(s);
        snprintf(canon, n, "signal dictionary %s of %s", best->name,
                 best->sys[0] ? best->sys : "the system");
        int bad = 0;
        for (size_t k = 0; k < s->n_ctrs && !bad; k++)
            if (!strcmp(s->ctrs[k].owner, r->path)) {
                free(s->ctrs[k].owner);
                bad = !(s->ctrs[k].owner = strdup(canon));
            }
        for (size_t k = 0; k < s->n_cns && !bad; k++) {
            char **ends[2] = {&s->cns[k].from_owner, &s->cns[k].to_owner};
            for (int e = 0; e < 2 && !bad; e++)
                if (!strcmp(*ends[e], r->path)) {
                    free(*ends[e]);
                    bad = !(*ends[e] = strdup(canon));
                }
        }
        free(canon);
        if (bad) return ssp_oom(s);
    }
    return 0;
}
