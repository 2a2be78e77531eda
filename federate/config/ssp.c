/* SSP reader (federate/config/ssp.h): SystemStructure.ssd (libxml2) -> the JSON document of a
 * federation file (jansson). The mapping, the defaults and the refusals are doc/ssp.md.
 * Divisions: names and messages, units, the structure walk (systems, components,
 * connectors, connections), parameter bindings (.ssv, .ssm), wiring, the document.
 * Every element the reader does not understand is refused with its path and line; only the
 * purely graphical elements and foreign annotations are skipped (doc/ssp.md lists them).
 */
#include "federate/config/ssp.h"

#include <ctype.h>
#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>

#include <jansson.h>
#include <libxml/parser.h>
#include <libxml/tree.h>

#include "federate/config/ssp_impl.h"
#include "federate/fmu/fmu_zip.h"

enum { NS_SSD = SSP_NS_SSD, NS_SSC = SSP_NS_SSC, NS_SSV = SSP_NS_SSV, NS_SSM = SSP_NS_SSM };
enum { T_UNKNOWN = 0, T_REAL, T_OTHER };

/* A connector of a component or system: owner is the dotted path of the element ("" for the
 * root system). */
typedef struct ctr {
    char *owner, *name, *kind; /* kind as written ("input", "output", ...) */
    int type;                  /* T_REAL, T_OTHER (typename says which), T_UNKNOWN */
    const char *typename;
    char *unit; /* the Real connector's unit, or NULL */
    int is_sys; /* owner is a system */
    xmlNodePtr node;
} ctr;

typedef struct comp {
    char *path; /* dotted path below the root system */
    char *fed;  /* federate name */
    char *cls;  /* object class of its outputs */
    json_t *obj;
    xmlNodePtr node;
} comp;

typedef struct cn {
    char *from_owner, *from, *to_owner, *to;
    double factor, offset;
    xmlNodePtr node;
} cn;

typedef struct bnd {
    char *owner;
    int is_sys;
    xmlNodePtr node;
} bnd;

typedef struct unit {
    char *name;
    int exp[8]; /* kg m s A K mol cd rad */
    double factor, offset;
} unit;

typedef struct sx {
    const char *file; /* the SSD, for messages */
    char *dir;        /* its folder (absolute) */
    char *beside;     /* an archive's folder: sources not inside are looked up there; or NULL */
    int archive;
    const char *archive_path; /* the .ssp as given, or NULL */
    char *err;
    size_t errlen;
    ctr *ctrs;
    size_t n_ctrs, cap_ctrs;
    comp *comps;
    size_t n_comps, cap_comps;
    cn *cns;
    size_t n_cns, cap_cns;
    bnd *bnds;
    size_t n_bnds, cap_bnds;
    unit *units;
    size_t n_units, cap_units;
    xmlDocPtr extra[64]; /* .ssv/.ssm documents kept for messages until the end */
    size_t n_extra;
} sx;

/* ======================================================================================
 * Names and messages
 * ====================================================================================== */

static int ns_is(const xmlNode *n, int ns)
{
    static const char *const suffix[] = {"", "SystemStructureDescription", "SystemStructureCommon",
                                         "SystemStructureParameterValues",
                                         "SystemStructureParameterMapping"};
    if (!n->ns || !n->ns->href) return 0;
    const char *h = (const char *)n->ns->href;
    if (strncmp(h, "http://ssp-standard.org/SSP1/", 29) &&
        strncmp(h, "http://ssp-standard.org/SSP2/", 29))
        return 0;
    return strcmp(h + 29, suffix[ns]) == 0;
}

static int is_el(const xmlNode *n, int ns, const char *name)
{
    return n->type == XML_ELEMENT_NODE && ns_is(n, ns) && !strcmp((const char *)n->name, name);
}

/* "FILE:LINE: PATH: message"; returns -1. */
static int refuse(sx *s, const char *file, xmlNodePtr n, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));
static int refuse(sx *s, const char *file, xmlNodePtr n, const char *fmt, ...)
{
    char msg[512];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    xmlChar *p = n ? xmlGetNodePath(n) : NULL;
    snprintf(s->err, s->errlen, "%s:%ld: %s: %s", file, n ? (long)xmlGetLineNo(n) : 0L,
             p ? (const char *)p : "(document)", msg);
    xmlFree(p);
    return -1;
}

static int oom(sx *s)
{
    snprintf(s->err, s->errlen, "%s: out of memory", s->file);
    return -2;
}

/* An attribute as a malloc'd string, or NULL when absent. */
static char *attr(xmlNodePtr n, const char *name)
{
    xmlChar *v = xmlGetProp(n, (const xmlChar *)name);
    if (!v) return NULL;
    char *r = strdup((const char *)v);
    xmlFree(v);
    return r;
}

static int get_double(sx *s, const char *file, xmlNodePtr n, const char *name, double dflt,
                      double *out)
{
    char *v = attr(n, name);
    *out = dflt;
    if (!v) return 0;
    char *end;
    errno = 0;
    double d = strtod(v, &end);
    int ok = end != v && *end == '\0' && errno == 0 && isfinite(d);
    free(v);
    if (!ok) return refuse(s, file, n, "attribute %s: expected a finite number", name);
    *out = d;
    return 0;
}

/* Grow an array of `size`-byte items to hold one more. */
static int grow(void **arr, size_t *cap, size_t n, size_t size)
{
    if (n < *cap) return 0;
    size_t c = *cap ? *cap * 2 : 16;
    void *p = realloc(*arr, c * size);
    if (!p) return -1;
    *arr = p;
    *cap = c;
    return 0;
}
#define PUSH(s, arr, n, cap) (grow((void **)&(arr), &(cap), (n), sizeof *(arr)) ? oom(s) : 0)

static char *join(const char *a, const char *b)
{
    size_t n = strlen(a) + strlen(b) + 2;
    char *r = malloc(n);
    if (r) snprintf(r, n, "%s%s%s", a, a[0] ? "." : "", b);
    return r;
}

/* A name made valid as a federate name ([A-Za-z_][A-Za-z0-9_-]*): '.' becomes '-', any
 * other byte outside the set '_'. ident: a FOM identifier ('-' becomes '_' too). */
static char *sanitize(const char *s, int ident)
{
    size_t n = strlen(s);
    char *r = malloc(n + 2), *q = r;
    if (!r) return NULL;
    if (!(isalpha((unsigned char)s[0]) || s[0] == '_')) *q++ = '_';
    for (size_t i = 0; i < n; i++) {
        unsigned char ch = (unsigned char)s[i];
        *q++ = (char)(isalnum(ch) || ch == '_'               ? ch
                      : (!ident && (ch == '.' || ch == '-')) ? '-'
                                                             : '_');
    }
    *q = '\0';
    return r;
}

int ssp_is_ssp_path(const char *path)
{
    size_t n = path ? strlen(path) : 0;
    return n > 4 && (!strcasecmp(path + n - 4, ".ssp") || !strcasecmp(path + n - 4, ".ssd"));
}

/* A source URI of the SSD as a file path: relative (resolved against the SSD's folder, then
 * beside an archive) or "file:" absolute. Percent escapes decoded. NULL with err set. */
static char *source_path(sx *s, xmlNodePtr n, const char *uri)
{
    const char *u = uri;
    if (!strncmp(u, "file://", 7))
        u += 7;
    else if (!strncmp(u, "file:", 5))
        u += 5;
    else
        for (const char *p = u; *p && *p != '/'; p++)
            if (*p == ':') {
                refuse(s, s->file, n,
                       "source \"%s\": only relative paths and file: URIs are supported", uri);
                return NULL;
            }
    char *dec = malloc(strlen(u) + 1), *q = dec;
    if (!dec) return oom(s), NULL;
    for (const char *p = u; *p; p++) {
        if (p[0] == '%' && isxdigit((unsigned char)p[1]) && isxdigit((unsigned char)p[2])) {
            char hex[3] = {p[1], p[2], 0};
            *q++ = (char)strtol(hex, NULL, 16);
            p += 2;
        } else
            *q++ = *p;
    }
    *q = '\0';
    if (dec[0] == '/' || !dec[0]) return dec;
    if (s->archive && (strstr(dec, "../") == dec || strstr(dec, "/../"))) {
        refuse(s, s->file, n, "source \"%s\": an archive's sources may not leave it (\"..\")", uri);
        free(dec);
        return NULL;
    }
    for (int k = 0; k < 2; k++) {
        const char *base = k == 0 ? s->dir : s->beside;
        if (!base) continue;
        size_t len = strlen(base) + strlen(dec) + 2;
        char *r = malloc(len);
        if (!r) return free(dec), oom(s), NULL;
        snprintf(r, len, "%s/%s", base, dec);
        struct stat sb;
        if (stat(r, &sb) == 0 || !s->beside) {
            free(dec);
            return r;
        }
        free(r);
    }
    /* found neither inside nor beside: the path inside, for the message that follows */
    size_t len = strlen(s->dir) + strlen(dec) + 2;
    char *r = malloc(len);
    if (r) snprintf(r, len, "%s/%s", s->dir, dec);
    free(dec);
    return r ? r : (oom(s), NULL);
}

/* ======================================================================================
 * Units (ssd:Units, ssc:Unit, ssc:BaseUnit)
 * ====================================================================================== */

static int skipped(const xmlNode *n);

static int read_units(sx *s, xmlNodePtr us)
{
    static const char *const base[8] = {"kg", "m", "s", "A", "K", "mol", "cd", "rad"};
    for (xmlNodePtr u = us->children; u; u = u->next) {
        if (u->type != XML_ELEMENT_NODE) continue;
        if (!is_el(u, NS_SSC, "Unit")) return refuse(s, s->file, u, "expected ssc:Unit");
        if (PUSH(s, s->units, s->n_units, s->cap_units)) return -2;
        unit *un = &s->units[s->n_units];
        memset(un, 0, sizeof *un);
        un->factor = 1;
        if (!(un->name = attr(u, "name"))) return refuse(s, s->file, u, "a unit needs a name");
        s->n_units++;
        int have = 0;
        for (xmlNodePtr b = u->children; b; b = b->next) {
            if (b->type != XML_ELEMENT_NODE || skipped(b)) continue;
            if (!is_el(b, NS_SSC, "BaseUnit") || have++)
                return refuse(s, s->file, b, "expected one ssc:BaseUnit");
            for (int k = 0; k < 8; k++) {
                double e;
                if (get_double(s, s->file, b, base[k], 0, &e)) return -1;
                if (e != floor(e) || fabs(e) > 100)
                    return refuse(s, s->file, b, "attribute %s: expected an integer exponent",
                                  base[k]);
                un->exp[k] = (int)e;
            }
            if (get_double(s, s->file, b, "factor", 1, &un->factor) ||
                get_double(s, s->file, b, "offset", 0, &un->offset))
                return -1;
            if (un->factor == 0) return refuse(s, s->file, b, "factor 0");
        }
    }
    return 0;
}

static const unit *find_unit(const sx *s, const char *name)
{
    for (size_t i = 0; name && i < s->n_units; i++)
        if (!strcmp(s->units[i].name, name)) return &s->units[i];
    return NULL;
}

/* The conversion from unit a to unit b: value_b = value_a * f + o. Refused (naming both) when
 * the dimensions differ or a unit is not declared in ssd:Units. Same names: identity. */
int ssp_unit_conv(sx *s, const char *file, xmlNodePtr n, const char *a, const char *b, double *f,
                  double *o)
{
    *f = 1, *o = 0;
    if (!a || !b || !strcmp(a, b)) return 0;
    const unit *ua = find_unit(s, a), *ub = find_unit(s, b);
    if (!ua || !ub)
        return refuse(s, file, n,
                      "unit \"%s\" is not declared in ssd:Units (converting \"%s\" to \"%s\")",
                      ua ? b : a, a, b);
    if (memcmp(ua->exp, ub->exp, sizeof ua->exp))
        return refuse(s, file, n, "incompatible units \"%s\" and \"%s\" (different base units)", a,
                      b);
    /* SI value = factor * value + offset */
    *f = ua->factor / ub->factor;
    *o = (ua->offset - ub->offset) / ub->factor;
    return 0;
}

/* ======================================================================================
 * The structure walk
 * ====================================================================================== */

/* Graphical or descriptive elements that change nothing in a run (doc/ssp.md). */
static int skipped(const xmlNode *n)
{
    static const char *const ssd[] = {"ElementGeometry", "ConnectorGeometry", "ConnectionGeometry",
                                      "SystemGeometry",  "GraphicalElements", NULL};
    /* SSP 1.0 writes ssd:Annotations (ssv:, ssm: in their files); some tools ssc: */
    if (n->type == XML_ELEMENT_NODE && !strcmp((const char *)n->name, "Annotations") &&
        (ns_is(n, NS_SSD) || ns_is(n, NS_SSC) || ns_is(n, NS_SSV) || ns_is(n, NS_SSM)))
        return 1;
    for (int i = 0; ssd[i]; i++)
        if (is_el(n, NS_SSD, ssd[i])) return 1;
    return 0;
}

static int read_connectors(sx *s, xmlNodePtr cs, const char *owner, int is_sys)
{
    for (xmlNodePtr c = cs->children; c; c = c->next) {
        if (c->type != XML_ELEMENT_NODE) continue;
        if (!is_el(c, NS_SSD, "Connector")) return refuse(s, s->file, c, "expected ssd:Connector");
        if (PUSH(s, s->ctrs, s->n_ctrs, s->cap_ctrs)) return -2;
        ctr *k = &s->ctrs[s->n_ctrs];
        memset(k, 0, sizeof *k);
        k->node = c;
        k->is_sys = is_sys;
        k->owner = strdup(owner);
        k->name = attr(c, "name");
        k->kind = attr(c, "kind");
        s->n_ctrs++;
        if (!k->owner) return oom(s);
        if (!k->name || !k->kind)
            return refuse(s, s->file, c, "a connector needs a name and a kind");
        for (size_t i = 0; i + 1 < s->n_ctrs; i++)
            if (!strcmp(s->ctrs[i].owner, owner) && !strcmp(s->ctrs[i].name, k->name))
                return refuse(s, s->file, c, "connector \"%s\" declared twice", k->name);
        for (xmlNodePtr t = c->children; t; t = t->next) {
            if (t->type != XML_ELEMENT_NODE || skipped(t)) continue;
            if (!ns_is(t, NS_SSC) || k->type != T_UNKNOWN)
                return refuse(s, s->file, t, "expected one type element (ssc:Real, ...)");
            const char *tn = (const char *)t->name;
            k->type = !strcmp(tn, "Real") || !strcmp(tn, "Float64") || !strcmp(tn, "Float32")
                          ? T_REAL
                          : T_OTHER;
            k->typename = tn;
            if (k->type == T_REAL) k->unit = attr(t, "unit");
        }
    }
    return 0;
}

static int walk_system(sx *s, xmlNodePtr sys, const char *path);

static int add_binding(sx *s, xmlNodePtr pbs, const char *owner, int is_sys)
{
    for (xmlNodePtr b = pbs->children; b; b = b->next) {
        if (b->type != XML_ELEMENT_NODE) continue;
        if (!is_el(b, NS_SSD, "ParameterBinding"))
            return refuse(s, s->file, b, "expected ssd:ParameterBinding");
        if (PUSH(s, s->bnds, s->n_bnds, s->cap_bnds)) return -2;
        s->bnds[s->n_bnds] = (bnd){strdup(owner), is_sys, b};
        if (!s->bnds[s->n_bnds++].owner) return oom(s);
    }
    return 0;
}

static int walk_component(sx *s, xmlNodePtr c, const char *path)
{
    char *type = attr(c, "type"), *src = attr(c, "source"), *impl = attr(c, "implementation");
    int bad_type = type && strcmp(type, "application/x-fmu-sharedlibrary");
    int bad_impl = impl && strcmp(impl, "any") && strcmp(impl, "CoSimulation") &&
                   strcmp(impl, "ModelExchange");
    free(type);
    free(impl);
    if (bad_type) {
        free(src);
        return refuse(s, s->file, c,
                      "component type is not application/x-fmu-sharedlibrary (only FMUs are run)");
    }
    if (bad_impl) {
        free(src);
        return refuse(s, s->file, c, "implementation: expected any, CoSimulation or ModelExchange");
    }
    if (!src) return refuse(s, s->file, c, "a component needs a source (the FMU)");
    char *fmu = source_path(s, c, src);
    free(src);
    if (!fmu) return s->err[0] ? -1 : -2;
    if (PUSH(s, s->comps, s->n_comps, s->cap_comps)) return free(fmu), -2;
    comp *k = &s->comps[s->n_comps];
    memset(k, 0, sizeof *k);
    k->node = c;
    k->path = strdup(path);
    k->fed = sanitize(path, 0);
    k->obj = json_object();
    s->n_comps++;
    if (!k->path || !k->fed || !k->obj ||
        json_object_set_new(k->obj, "name", json_string(k->fed)) ||
        json_object_set_new(k->obj, "fmu", json_string(fmu)))
        return free(fmu), oom(s);
    free(fmu);
    for (size_t i = 0; i + 1 < s->n_comps; i++)
        if (!strcmp(s->comps[i].fed, k->fed))
            return refuse(s, s->file, c, "elements \"%s\" and \"%s\" both become federate \"%s\"",
                          s->comps[i].path, path, k->fed);
    for (xmlNodePtr e = c->children; e; e = e->next) {
        if (e->type != XML_ELEMENT_NODE || skipped(e)) continue;
        int rc = 0;
        if (is_el(e, NS_SSD, "Connectors"))
            rc = read_connectors(s, e, path, 0);
        else if (is_el(e, NS_SSD, "ParameterBindings"))
            rc = add_binding(s, e, path, 0);
        else
            rc = refuse(s, s->file, e, "not supported in a component");
        if (rc) return rc;
    }
    return 0;
}

static int read_connections(sx *s, xmlNodePtr cs, const char *sys)
{
    for (xmlNodePtr c = cs->children; c; c = c->next) {
        if (c->type != XML_ELEMENT_NODE) continue;
        if (!is_el(c, NS_SSD, "Connection"))
            return refuse(s, s->file, c, "expected ssd:Connection");
        char *se = attr(c, "startElement"), *sc = attr(c, "startConnector");
        char *ee = attr(c, "endElement"), *ec = attr(c, "endConnector");
        cn k = {
            se ? join(sys, se) : strdup(sys), sc, ee ? join(sys, ee) : strdup(sys), ec, 1, 0, c};
        free(se);
        free(ee);
        if (PUSH(s, s->cns, s->n_cns, s->cap_cns)) return -2;
        s->cns[s->n_cns++] = k;
        if (!k.from_owner || !k.to_owner) return oom(s);
        if (!sc || !ec)
            return refuse(s, s->file, c, "a connection needs startConnector and endConnector");
        for (xmlNodePtr t = c->children; t; t = t->next) {
            if (t->type != XML_ELEMENT_NODE || skipped(t)) continue;
            if (!is_el(t, NS_SSC, "LinearTransformation"))
                return refuse(s, s->file, t,
                              "only ssc:LinearTransformation is supported on a connection");
            if (get_double(s, s->file, t, "factor", 1, &s->cns[s->n_cns - 1].factor) ||
                get_double(s, s->file, t, "offset", 0, &s->cns[s->n_cns - 1].offset))
                return -1;
        }
    }
    return 0;
}

static int walk_system(sx *s, xmlNodePtr sys, const char *path)
{
    for (xmlNodePtr e = sys->children; e; e = e->next) {
        if (e->type != XML_ELEMENT_NODE || skipped(e)) continue;
        int rc = 0;
        if (is_el(e, NS_SSD, "Connectors"))
            rc = read_connectors(s, e, path, 1);
        else if (is_el(e, NS_SSD, "ParameterBindings"))
            rc = add_binding(s, e, path, 1);
        else if (is_el(e, NS_SSD, "Connections"))
            rc = read_connections(s, e, path);
        else if (is_el(e, NS_SSD, "Elements")) {
            for (xmlNodePtr c = e->children; c && !rc; c = c->next) {
                if (c->type != XML_ELEMENT_NODE) continue;
                char *name = attr(c, "name");
                if (!name) return refuse(s, s->file, c, "an element needs a name");
                char *sub = join(path, name);
                free(name);
                if (!sub) return oom(s);
                if (is_el(c, NS_SSD, "Component"))
                    rc = walk_component(s, c, sub);
                else if (is_el(c, NS_SSD, "System"))
                    rc = walk_system(s, c, sub);
                else if (is_el(c, NS_SSD, "SignalDictionaryReference"))
                    rc = refuse(s, s->file, c, "signal dictionaries are not supported");
                else
                    rc = refuse(s, s->file, c, "not supported as an element");
                free(sub);
            }
        } else if (is_el(e, NS_SSD, "SignalDictionaries"))
            rc = refuse(s, s->file, e, "signal dictionaries are not supported");
        else
            rc = refuse(s, s->file, e, "not supported in a system");
        if (rc) return rc;
    }
    return 0;
}

/* ======================================================================================
 * Wiring
 * ====================================================================================== */

static ctr *find_ctr(sx *s, const char *owner, const char *name)
{
    for (size_t i = 0; i < s->n_ctrs; i++)
        if (!strcmp(s->ctrs[i].owner, owner) && !strcmp(s->ctrs[i].name, name)) return &s->ctrs[i];
    return NULL;
}

static comp *find_comp(sx *s, const char *path)
{
    for (size_t i = 0; i < s->n_comps; i++)
        if (!strcmp(s->comps[i].path, path)) return &s->comps[i];
    return NULL;
}

/* The object "outputs"/"inputs"/"parameters" of a component, created on first use. */
static json_t *section(comp *k, const char *key)
{
    json_t *o = json_object_get(k->obj, key);
    if (!o && (o = json_object()) && json_object_set_new(k->obj, key, o)) return NULL;
    return o;
}

/* The attribute Class.attr an output publishes (created on first use, unique in its class). */
static int publish(sx *s, comp *k, const char *var, const char **out)
{
    json_t *outs = section(k, "outputs");
    if (!outs) return oom(s);
    json_t *v = json_object_get(outs, var);
    if (v) return *out = json_string_value(v), 0;
    char *a = sanitize(var, 1);
    if (!a) return oom(s);
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
    if (json_object_set_new(outs, var, json_string(full))) return oom(s);
    return *out = json_string_value(json_object_get(outs, var)), 0;
}

/* Every connection that ends at a component's input: follow the chain back through system
 * connectors to a component's output, compose the transformations, check types and units. */
static int wire(sx *s)
{
    for (size_t i = 0; i < s->n_cns; i++) {
        cn *c = &s->cns[i];
        ctr *from = find_ctr(s, c->from_owner, c->from), *to = find_ctr(s, c->to_owner, c->to);
        if (!from || !to)
            return refuse(
                s, s->file, c->node, "no connector \"%s\" on \"%s\"", from ? c->to : c->from,
                (from ? c->to_owner : c->from_owner)[0] ? (from ? c->to_owner : c->from_owner)
                                                        : "the system");
        if (!from->is_sys && !to->is_sys && !strcmp(from->kind, "input") &&
            !strcmp(to->kind, "output")) { /* written from the input's side: turn it round */
            ctr *t = from;
            from = to, to = t;
        }
        if (to->is_sys) continue; /* an inner leg of a chain, followed from its end */
        if (strcmp(to->kind, "input"))
            return refuse(s, s->file, c->node,
                          "connection into connector \"%s\" of kind %s: only component inputs "
                          "(kind input) are fed by connections",
                          to->name, to->kind);
        double f = c->factor, o = c->offset;
        xmlNodePtr at = c->node;
        int hops = 0;
        while (from->is_sys) { /* find the connection that feeds this system connector */
            cn *up = NULL;
            for (size_t j = 0; j < s->n_cns && !up; j++)
                if (!strcmp(s->cns[j].to_owner, from->owner) && !strcmp(s->cns[j].to, from->name))
                    up = &s->cns[j];
            if (!up) break;
            ctr *nf = find_ctr(s, up->from_owner, up->from);
            if (!nf) return refuse(s, s->file, up->node, "no connector \"%s\"", up->from);
            o = o + f * up->offset; /* y = f (f_up x + o_up) + o */
            f = f * up->factor;
            from = nf;
            if (++hops > 1000) return refuse(s, s->file, at, "a cycle of system connectors");
        }
        if (from->is_sys) continue; /* fed from outside the root system: keeps its start value */
        if (strcmp(from->kind, "output"))
            return refuse(s, s->file, at,
                          "connector \"%s\" of \"%s\" has kind %s: only outputs feed inputs",
                          from->name, from->owner, from->kind);
        if (from->type == T_OTHER || to->type == T_OTHER)
            return refuse(s, s->file, at, "connection of type %s: Tempo exchanges Real values only",
                          from->type == T_OTHER ? from->typename : to->typename);
        double uf, uo;
        if (ssp_unit_conv(s, s->file, at, from->unit, to->unit, &uf, &uo)) return -1;
        o = uf * o + uo;
        f = uf * f;
        if (f != 1 || o != 0)
            return refuse(s, s->file, at,
                          "the connection from \"%s.%s\" to \"%s.%s\" scales by %g and adds %g "
                          "(linear transformation or unit conversion): Tempo's wiring carries "
                          "values unchanged, so only identity transformations are supported",
                          from->owner, from->name, to->owner, to->name, f, o);
        comp *src = find_comp(s, from->owner), *dst = find_comp(s, to->owner);
        if (!src || !dst) return refuse(s, s->file, at, "connector owner is not a component");
        const char *ca;
        if (publish(s, src, from->name, &ca)) return -2;
        json_t *ins = section(dst, "inputs");
        if (!ins) return oom(s);
        if (json_object_get(ins, to->name))
            return refuse(s, s->file, at, "input \"%s\" of \"%s\" is fed by two connections",
                          to->name, to->owner);
        if (json_object_set_new(ins, to->name, json_string(ca))) return oom(s);
    }
    return 0;
}

/* The Tempo annotation's federates.NAME.outputs {"var": "Class.attribute"}: the names an
 * exported federation used, so a round trip publishes the same attributes (doc/ssp.md). */
static int preset_outputs(sx *s, json_t *tempo)
{
    json_t *feds = json_object_get(tempo, "federates");
    for (size_t i = 0; json_is_object(feds) && i < s->n_comps; i++) {
        comp *k = &s->comps[i];
        json_t *o = json_object_get(json_object_get(feds, k->fed), "outputs"), *v;
        const char *var;
        json_object_foreach(o, var, v)
        {
            ctr *c = find_ctr(s, k->path, var);
            if (!c || strcmp(c->kind, "output") || !json_is_string(v))
                return refuse(s, s->file, k->node,
                              "Tempo annotation: federates.%s.outputs: \"%s\" is not an output "
                              "connector named to a \"Class.attribute\"",
                              k->fed, var);
            json_t *outs = section(k, "outputs");
            if (!outs || json_object_set(outs, var, v)) return oom(s);
        }
    }
    return 0;
}

/* Every output connector of a component typed Real is published, connected or not, in the
 * order of its connectors: the federate records its outputs (doc/ssp.md). An untyped one is
 * published when connected (wire), since its FMU variable may not be Real. */
static int publish_outputs(sx *s)
{
    for (size_t i = 0; i < s->n_ctrs; i++) {
        ctr *c = &s->ctrs[i];
        if (c->is_sys || strcmp(c->kind, "output") || c->type != T_REAL) continue;
        comp *k = find_comp(s, c->owner);
        const char *ca;
        if (k && publish(s, k, c->name, &ca)) return -2;
    }
    return 0;
}

/* ======================================================================================
 * The document
 * ====================================================================================== */

static void sx_free(sx *s)
{
    for (size_t i = 0; i < s->n_ctrs; i++)
        free(s->ctrs[i].owner), free(s->ctrs[i].name), free(s->ctrs[i].kind), free(s->ctrs[i].unit);
    for (size_t i = 0; i < s->n_comps; i++)
        free(s->comps[i].path), free(s->comps[i].fed), free(s->comps[i].cls),
            json_decref(s->comps[i].obj);
    for (size_t i = 0; i < s->n_cns; i++)
        free(s->cns[i].from_owner), free(s->cns[i].from), free(s->cns[i].to_owner),
            free(s->cns[i].to);
    for (size_t i = 0; i < s->n_bnds; i++)
        free(s->bnds[i].owner);
    for (size_t i = 0; i < s->n_units; i++)
        free(s->units[i].name);
    for (size_t i = 0; i < s->n_extra; i++)
        xmlFreeDoc(s->extra[i]);
    free(s->ctrs), free(s->comps), free(s->cns), free(s->bnds), free(s->units);
    free(s->dir);
    free(s->beside);
}

xmlDocPtr ssp_read_xml(sx *s, const char *file)
{
    /* a file of an unpacked archive is named ARCHIVE/ENTRY in messages */
    char shown[PATH_MAX + 64];
    size_t dl = strlen(s->dir);
    if (s->archive && !strncmp(file, s->dir, dl) && file[dl] == '/')
        snprintf(shown, sizeof shown, "%s%s", s->archive_path, file + dl);
    else
        snprintf(shown, sizeof shown, "%s", file);
    if (s->n_extra == sizeof s->extra / sizeof s->extra[0]) {
        snprintf(s->err, s->errlen, "%s: more than %zu XML files in one system", shown, s->n_extra);
        return NULL;
    }
    xmlResetLastError();
    xmlDocPtr d =
        xmlReadFile(file, NULL, XML_PARSE_NONET | XML_PARSE_NOERROR | XML_PARSE_NOWARNING);
    if (!d) {
        const xmlError *e = xmlGetLastError();
        snprintf(s->err, s->errlen, "%s:%d: not well-formed XML: %s", shown, e ? e->line : 0,
                 e && e->message ? e->message : "cannot read\n");
        size_t n = strlen(s->err);
        if (n && s->err[n - 1] == '\n') s->err[n - 1] = '\0';
        return NULL;
    }
    xmlFree((xmlChar *)d->URL);
    d->URL = xmlStrdup((const xmlChar *)shown);
    s->extra[s->n_extra++] = d;
    if (!d->URL) return oom(s), NULL;
    return d;
}

/* The step: the Tempo annotation's algorithm.step when given, else (stop - start) / 1000 in
 * whole nanoseconds (doc/ssp.md). */
static double default_step(double start, double stop)
{
    double ns = floor((stop - start) / 1000 * 1e9 + 0.5);
    return (ns < 1 ? 1 : ns) * 1e-9;
}

/* The first element named `el` with a positive number in attribute `at` below n, or 0. */
static double find_step(xmlNodePtr n, const char *el, const char *at)
{
    for (xmlNodePtr c = n->children; c; c = c->next) {
        if (c->type != XML_ELEMENT_NODE) continue;
        if (!strcmp((const char *)c->name, el)) {
            char *v = attr(c, at), *end = NULL;
            double d = v ? strtod(v, &end) : 0;
            int ok = v && end != v && *end == '\0' && isfinite(d) && d > 0;
            free(v);
            if (ok) return d;
        }
        double d = find_step(c, el, at);
        if (d > 0) return d;
    }
    return 0;
}

/* A fixed step other tools record in their annotations of a system or the DefaultExperiment
 * (doc/ssp.md): OMSimulator's org.openmodelica FixedStepMaster stepSize, the Open Simulation
 * Platform's com.opensimulationplatform FixedStepAlgorithm baseStepSize; else 0. */
static double foreign_step(xmlNodePtr n)
{
    for (xmlNodePtr a = n->children; a; a = a->next) {
        if (!skipped(a) || strcmp((const char *)a->name, "Annotations")) continue;
        for (xmlNodePtr t = a->children; t; t = t->next) {
            if (!is_el(t, NS_SSC, "Annotation")) continue;
            char *type = attr(t, "type");
            double d = !type ? 0
                       : !strcmp(type, "org.openmodelica")
                           ? find_step(t, "FixedStepMaster", "stepSize")
                       : !strcmp(type, "com.opensimulationplatform")
                           ? find_step(t, "FixedStepAlgorithm", "baseStepSize")
                           : 0;
            free(type);
            if (d > 0) return d;
        }
    }
    return 0;
}

/* ssd:Annotations (or ssc:Annotations) of the root: ssc:Annotation type="org.tempo-rti.federation"
 * holds the JSON text of the settings a round trip needs (doc/ssp.md); others are skipped. */
static int read_tempo_annotation(sx *s, xmlNodePtr anns, json_t **tempo)
{
    for (xmlNodePtr a = anns->children; a; a = a->next) {
        if (!is_el(a, NS_SSC, "Annotation")) continue;
        char *type = attr(a, "type");
        int ours = type && !strcmp(type, SSP_TEMPO_ANNOTATION);
        free(type);
        if (!ours) continue;
        xmlChar *txt = xmlNodeGetContent(a);
        json_error_t je;
        *tempo = txt ? json_loads((const char *)txt, JSON_REJECT_DUPLICATES, &je) : NULL;
        xmlFree(txt);
        if (!*tempo || !json_is_object(*tempo))
            return refuse(s, s->file, a, "the Tempo annotation is not a JSON object");
    }
    return 0;
}

static int build(sx *s, xmlNodePtr root, int need_end, json_t **out)
{
    xmlNodePtr sys = NULL, dx = NULL;
    json_t *tempo = NULL;
    for (xmlNodePtr e = root->children; e; e = e->next) {
        if (e->type != XML_ELEMENT_NODE) continue;
        int rc = 0;
        if (is_el(e, NS_SSD, "System") && !sys)
            sys = e;
        else if (is_el(e, NS_SSD, "Units"))
            rc = read_units(s, e);
        else if (is_el(e, NS_SSD, "DefaultExperiment") && !dx)
            dx = e;
        else if (skipped(e) && !strcmp((const char *)e->name, "Annotations"))
            rc = read_tempo_annotation(s, e, &tempo);
        else if (is_el(e, NS_SSD, "Enumerations") || is_el(e, NS_SSD, "MetaData") ||
                 is_el(e, NS_SSD, "Signature"))
            continue; /* enumerations serve Enumeration connectors only, refused where used */
        else
            rc = refuse(s, s->file, e, "not supported here");
        if (rc) return json_decref(tempo), rc;
    }
    if (!sys) return json_decref(tempo), refuse(s, s->file, root, "no ssd:System");
    double start = 0, stop = NAN;
    if (dx) {
        for (xmlNodePtr e = dx->children; e; e = e->next)
            if (e->type == XML_ELEMENT_NODE && !skipped(e))
                return json_decref(tempo), refuse(s, s->file, e, "not supported here");
        if (get_double(s, s->file, dx, "startTime", 0, &start) ||
            get_double(s, s->file, dx, "stopTime", NAN, &stop))
            return json_decref(tempo), -1;
    }
    if (need_end && isnan(stop))
        return json_decref(tempo),
               refuse(s, s->file, dx ? dx : root,
                      "no ssd:DefaultExperiment stopTime (give one, or name this system from a "
                      "federation file with algorithm.end)");
    int rc = walk_system(s, sys, "");
    if (rc) return json_decref(tempo), rc;
    if (s->n_comps == 0) return json_decref(tempo), refuse(s, s->file, sys, "no component");
    for (size_t i = 0; i < s->n_comps; i++) {
        comp *k = &s->comps[i];
        if (!(k->cls = sanitize(k->fed, 1))) return json_decref(tempo), oom(s);
        for (size_t j = 0; j < i; j++)
            if (!strcmp(s->comps[j].cls, k->cls)) { /* "a-b" and "a_b" */
                size_t n = strlen(k->cls) + 24;
                char *c2 = malloc(n);
                if (!c2) return json_decref(tempo), oom(s);
                snprintf(c2, n, "%s_%zu", k->cls, i);
                free(k->cls);
                k->cls = c2;
            }
    }
    if ((tempo && (rc = preset_outputs(s, tempo))) || (rc = publish_outputs(s)) || (rc = wire(s)) ||
        (rc = ssp_bind_parameters(s)))
        return json_decref(tempo), rc;
    char *name = attr(sys, "name");
    char *fname = name ? sanitize(name, 0) : strdup("ssp");
    free(name);
    json_t *doc = json_object(), *alg = json_object(), *feds = json_array();
    if (!doc || !alg || !feds || !fname) {
        free(fname), json_decref(doc), json_decref(alg), json_decref(feds), json_decref(tempo);
        return oom(s);
    }
    json_object_set_new(doc, "federation", json_string(fname));
    free(fname);
    json_object_set_new(doc, "description", json_string(s->file));
    json_object_set_new(alg, "method", json_string("jacobi"));
    json_object_set_new(alg, "start", json_real(start));
    if (!isnan(stop)) {
        json_object_set_new(alg, "end", json_real(stop));
        double h = foreign_step(sys);
        if (!(h > 0) && dx) h = foreign_step(dx);
        json_object_set_new(alg, "step", json_real(h > 0 ? h : default_step(start, stop)));
    }
    json_object_set_new(doc, "algorithm", alg);
    for (size_t i = 0; i < s->n_comps; i++)
        json_array_append(feds, s->comps[i].obj);
    json_object_set_new(doc, "federates", feds);
    if (tempo && (rc = ssp_apply_tempo(s, doc, tempo))) {
        json_decref(doc);
        json_decref(tempo);
        return rc;
    }
    json_decref(tempo);
    *out = doc;
    return 0;
}

/* The folder of a path, absolute. */
static char *abs_dir(const char *path)
{
    const char *slash = strrchr(path, '/');
    char *d = slash ? strndup(path, slash == path ? 1 : (size_t)(slash - path)) : strdup(".");
    if (!d) return NULL;
    char *r = realpath(d, NULL);
    free(d);
    return r;
}

int ssp_load(const char *path, int need_end, void **doc, char **tmpdir, char *err, size_t errlen)
{
    if (!path || !doc || !tmpdir || !err || !errlen) return -2;
    *doc = NULL;
    *tmpdir = NULL;
    err[0] = '\0';
    size_t n = strlen(path);
    int archive = n > 4 && !strcasecmp(path + n - 4, ".ssp");
    char ssd[PATH_MAX + 32], shown[PATH_MAX + 32];
    sx s = {.err = err, .errlen = errlen, .archive = archive};
    if (archive) {
        char dir[PATH_MAX];
        if (fmu_zip_extract(path, NULL, dir, sizeof dir, err, errlen)) return -1;
        if (!(*tmpdir = strdup(dir)) || !(s.dir = strdup(dir)) || !(s.beside = abs_dir(path))) {
            snprintf(err, errlen, "%s: out of memory", path);
            goto fail;
        }
        snprintf(ssd, sizeof ssd, "%s/SystemStructure.ssd", dir);
        snprintf(shown, sizeof shown, "%s/SystemStructure.ssd", path);
        s.file = shown; /* messages name ARCHIVE/SystemStructure.ssd */
        s.archive_path = path;
        struct stat sb;
        if (stat(ssd, &sb) != 0) {
            snprintf(err, errlen, "%s: no SystemStructure.ssd at the archive's root", path);
            goto fail;
        }
    } else {
        snprintf(ssd, sizeof ssd, "%s", path);
        s.file = path;
        if (!(s.dir = abs_dir(path))) {
            snprintf(err, errlen, "%s: %s", path, strerror(errno));
            goto fail;
        }
    }
    xmlDocPtr d = ssp_read_xml(&s, ssd);
    if (!d) goto fail;
    xmlNodePtr root = xmlDocGetRootElement(d);
    if (!root || !is_el(root, NS_SSD, "SystemStructureDescription")) {
        refuse(&s, s.file, root,
               "the root is not ssd:SystemStructureDescription (namespace "
               "http://ssp-standard.org/SSP1/SystemStructureDescription)");
        goto fail;
    }
    char *ver = attr(root, "version");
    int ok = ver && (!strncmp(ver, "1.", 2) || !strncmp(ver, "2.", 2));
    free(ver);
    if (!ok) {
        refuse(&s, s.file, root, "version: expected 1.x or 2.x");
        goto fail;
    }
    json_t *j = NULL;
    if (build(&s, root, need_end, &j)) goto fail;
    sx_free(&s);
    *doc = j;
    return 0;
fail:
    if (!err[0]) snprintf(err, errlen, "%s: out of memory", path);
    sx_free(&s);
    if (*tmpdir) {
        char e2[256];
        fmu_zip_remove_tree(*tmpdir, e2, sizeof e2);
        free(*tmpdir);
        *tmpdir = NULL;
    }
    return strstr(err, "out of memory") ? -2 : -1;
}

/* Accessors for ssp_params.c (ssp_impl.h). */
const char *ssp_file(const sx *s)
{
    return s->file;
}
char *ssp_source(sx *s, xmlNodePtr n, const char *uri)
{
    return source_path(s, n, uri);
}
int ssp_refuse_msg(sx *s, const char *file, xmlNodePtr n, const char *msg)
{
    return refuse(s, file, n, "%s", msg);
}
int ssp_oom(sx *s)
{
    return oom(s);
}
size_t ssp_n_bindings(const sx *s)
{
    return s->n_bnds;
}
xmlNodePtr ssp_binding(const sx *s, size_t i, const char **owner, int *is_sys)
{
    *owner = s->bnds[i].owner;
    *is_sys = s->bnds[i].is_sys;
    return s->bnds[i].node;
}
json_t *ssp_component_params(sx *s, const char *path)
{
    comp *k = find_comp(s, path);
    return k ? section(k, "parameters") : NULL;
}
const char *ssp_connector_unit(sx *s, const char *owner, const char *name)
{
    ctr *k = find_ctr(s, owner, name);
    return k ? k->unit : NULL;
}
int ssp_is_el(const xmlNode *n, int ns, const char *name)
{
    return is_el(n, ns, name);
}
char *ssp_attr(xmlNodePtr n, const char *name)
{
    return attr(n, name);
}
int ssp_get_double(sx *s, const char *file, xmlNodePtr n, const char *name, double dflt,
                   double *out)
{
    return get_double(s, file, n, name, dflt, out);
}
int ssp_skipped(const xmlNode *n)
{
    return skipped(n);
}
/* The component under system `sys` that `name` ("Sub.A.k") addresses: the longest component
 * path P with sys.P a prefix of sys.name followed by '.'; *var receives the rest. */
const char *ssp_component_for(sx *s, const char *sys, const char *name, const char **var)
{
    const char *best = NULL;
    size_t best_len = 0, sl = strlen(sys);
    for (size_t i = 0; i < s->n_comps; i++) {
        const char *p = s->comps[i].path;
        if (sl && (strncmp(p, sys, sl) || p[sl] != '.')) continue;
        const char *rel = sl ? p + sl + 1 : p;
        size_t rl = strlen(rel);
        if (!strncmp(name, rel, rl) && name[rl] == '.' && rl > best_len)
            best = p, best_len = rl, *var = name + rl + 1;
    }
    return best;
}

int ssp_merge_system(void *user, const char *dir, void **doc, char **tmpdir, char *err,
                     size_t errlen)
{
    static const char *const keys[] = {
        "system", "federation",  "description", "rti",       "resolution",   "algorithm", "solver",
        "output", "secret_file", "log",         "placement", "record_every", NULL};
    json_t *u = user, *sys = json_object_get(u, "system");
    *doc = NULL;
    *tmpdir = NULL;
    const char *key;
    json_t *v;
    json_object_foreach(u, key, v)
    {
        int ok = 0;
        for (int i = 0; keys[i]; i++)
            ok |= !strcmp(keys[i], key);
        if (!ok) {
            snprintf(err, errlen,
                     "%s: a federation file naming a \"system\" adds only algorithm settings, "
                     "placement and recording; \"%s\" comes from the SSP (doc/ssp.md)",
                     "system", key);
            return -1;
        }
    }
    if (!json_is_string(sys) || !ssp_is_ssp_path(json_string_value(sys))) {
        snprintf(err, errlen, "system: expected the path of an .ssp or .ssd file");
        return -1;
    }
    const char *p = json_string_value(sys);
    size_t n = strlen(dir) + strlen(p) + 2;
    char *full = malloc(n);
    if (!full) return -2;
    snprintf(full, n, "%s/%s", p[0] == '/' ? "" : dir, p);
    json_t *ua = json_object_get(u, "algorithm");
    json_t *d = NULL;
    int rc = ssp_load(p[0] == '/' ? p : full, !(json_is_object(ua) && json_object_get(ua, "end")),
                      (void **)&d, tmpdir, err, errlen);
    free(full);
    if (rc) return rc;
    json_t *sa = json_object_get(d, "algorithm");
    json_object_foreach(u, key, v)
    {
        if (!strcmp(key, "system")) continue;
        if (!strcmp(key, "algorithm") && json_is_object(v)) {
            /* start, end and step from the SSP unless given; no step for variable-step
             * methods (doc/ssp.md) */
            json_t *a = json_deep_copy(v);
            const char *m = json_string_value(json_object_get(a, "method"));
            int fixed = !m || (strcmp(m, "jacobi-de") && strcmp(m, "defect-control") &&
                               strcmp(m, "f3ornits"));
            static const char *const inherit[] = {"start", "end", "step"};
            for (int i = 0; a && i < 3; i++)
                if (!json_object_get(a, inherit[i]) && json_object_get(sa, inherit[i]) &&
                    (i < 2 || fixed))
                    json_object_set(a, inherit[i], json_object_get(sa, inherit[i]));
            if (!a || json_object_set_new(d, key, a)) rc = -2;
        } else if (json_object_set(d, key, v))
            rc = -2;
    }
    if (rc) {
        json_decref(d);
        snprintf(err, errlen, "out of memory");
        return rc;
    }
    *doc = d;
    return 0;
}
