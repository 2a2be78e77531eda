/* SSP reader (federate/config/ssp.h): SystemStructure.ssd (libxml2) -> the JSON document of a
 * federation file (jansson). The mapping, the defaults and the refusals are doc/ssp.md.
 * Divisions: names and messages, units, the structure walk (systems, components,
 * connectors, connections, signal dictionaries), the document; the wiring is ssp_wire.c,
 * the parameter bindings (.ssv, .ssm) ssp_params.c, the documents and archives components
 * reference (other SSDs, SSP packages, variants) ssp_pkg.c.
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
#include "federate/fmu/fmu_load.h"
#include "federate/fmu/fmu_zip.h"

enum { NS_SSD = SSP_NS_SSD, NS_SSC = SSP_NS_SSC, NS_SSV = SSP_NS_SSV, NS_SSM = SSP_NS_SSM };

/* ======================================================================================
 * Names and messages
 * ====================================================================================== */

/* An element written with one of the standard prefixes that its document never declares
 * (libxml2 keeps "ssv:ParameterSet" as the name, without a namespace; some tools write inline
 * parameter sets so): read as that prefix's namespace. Its namespace index, or 0. */
static int undeclared_ns(const xmlNode *n)
{
    static const char *const prefix[] = {"", "ssd:", "ssc:", "ssv:", "ssm:"};
    if (n->ns || !n->name) return 0;
    for (int i = 1; i < 5; i++)
        if (!strncmp((const char *)n->name, prefix[i], 4) && n->name[4]) return i;
    return 0;
}

/* The element's name without an undeclared standard prefix (undeclared_ns). */
const char *ssp_local(const xmlNode *n)
{
    return (const char *)n->name + (undeclared_ns(n) ? 4 : 0);
}

static int ns_is(const xmlNode *n, int ns)
{
    static const char *const suffix[] = {"", "SystemStructureDescription", "SystemStructureCommon",
                                         "SystemStructureParameterValues",
                                         "SystemStructureParameterMapping"};
    if (n->type == XML_ELEMENT_NODE && !n->ns) return undeclared_ns(n) == ns;
    if (!n->ns || !n->ns->href) return 0;
    const char *h = (const char *)n->ns->href;
    if (strncmp(h, "http://ssp-standard.org/SSP1/", 29) &&
        strncmp(h, "http://ssp-standard.org/SSP2/", 29))
        return 0;
    return strcmp(h + 29, suffix[ns]) == 0;
}

static int is_el(const xmlNode *n, int ns, const char *name)
{
    return n->type == XML_ELEMENT_NODE && ns_is(n, ns) && !strcmp(ssp_local(n), name);
}

/* "FILE:LINE: PATH: message"; returns -1. */
int ssp_refuse(sx *s, const char *file, xmlNodePtr n, const char *fmt, ...)
{
    char msg[512];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    xmlChar *p = n ? xmlGetNodePath(n) : NULL;
    /* a node names its own document (a referenced .ssd, .ssv or .ssm: ssp_read_xml) */
    if (n && n->doc && n->doc->URL) file = (const char *)n->doc->URL;
    snprintf(s->err, s->errlen, "%s:%ld: %s: %s", file, n ? (long)xmlGetLineNo(n) : 0L,
             p ? (const char *)p : "(document)", msg);
    xmlFree(p);
    return -1;
}

int ssp_oom(sx *s)
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
    if (!ok) return ssp_refuse(s, file, n, "attribute %s: expected a finite number", name);
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
#define PUSH(s, arr, n, cap) (grow((void **)&(arr), &(cap), (n), sizeof *(arr)) ? ssp_oom(s) : 0)

char *ssp_join(const char *a, const char *b)
{
    size_t n = strlen(a) + strlen(b) + 2;
    char *r = malloc(n);
    if (r) snprintf(r, n, "%s%s%s", a, a[0] ? "." : "", b);
    return r;
}

/* A name made valid as a federate name ([A-Za-z_][A-Za-z0-9_-]*): '.' becomes '-', any
 * other byte outside the set '_'. ident: a FOM identifier ('-' becomes '_' too). */
char *ssp_sanitize(const char *s, int ident)
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
                ssp_refuse(s, s->file, n,
                           "source \"%s\": only relative paths and file: URIs are supported", uri);
                return NULL;
            }
    char *dec = malloc(strlen(u) + 1), *q = dec;
    if (!dec) return ssp_oom(s), NULL;
    for (const char *p = u; *p; p++) {
        if (p[0] == '%' && isxdigit((unsigned char)p[1]) && isxdigit((unsigned char)p[2])) {
            char hex[3] = {p[1], p[2], 0};
            *q++ = (char)strtol(hex, NULL, 16);
            p += 2;
        } else
            *q++ = *p;
    }
    *q = '\0';
    for (q = dec; *q; q++) /* a Windows tool's "resources\\x.fmu" */
        if (*q == '\\') *q = '/';
    if (dec[0] == '/' || !dec[0]) return dec;
    if ((s->archive || s->in_pkg) && (strstr(dec, "../") == dec || strstr(dec, "/../"))) {
        ssp_refuse(s, s->file, n, "source \"%s\": an archive's sources may not leave it (\"..\")",
                   uri);
        free(dec);
        return NULL;
    }
    for (int k = 0; k < 2; k++) {
        const char *base = k == 0 ? s->dir : s->beside;
        if (!base) continue;
        size_t len = strlen(base) + strlen(dec) + 2;
        char *r = malloc(len);
        if (!r) return free(dec), ssp_oom(s), NULL;
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
    return r ? r : (ssp_oom(s), NULL);
}

/* ======================================================================================
 * Units (ssd:Units, ssc:Unit, ssc:BaseUnit)
 * ====================================================================================== */

static int skipped(const xmlNode *n);

static int read_units(sx *s, const char *file, xmlNodePtr us)
{
    static const char *const base[8] = {"kg", "m", "s", "A", "K", "mol", "cd", "rad"};
    for (xmlNodePtr u = us->children; u; u = u->next) {
        if (u->type != XML_ELEMENT_NODE) continue;
        if (!is_el(u, NS_SSC, "Unit")) return ssp_refuse(s, file, u, "expected ssc:Unit");
        if (PUSH(s, s->units, s->n_units, s->cap_units)) return -2;
        unit *un = &s->units[s->n_units];
        memset(un, 0, sizeof *un);
        un->factor = 1;
        if (!(un->name = attr(u, "name"))) return ssp_refuse(s, file, u, "a unit needs a name");
        s->n_units++;
        int have = 0;
        for (xmlNodePtr b = u->children; b; b = b->next) {
            if (b->type != XML_ELEMENT_NODE || skipped(b)) continue;
            if (!is_el(b, NS_SSC, "BaseUnit") || have++)
                return ssp_refuse(s, file, b, "expected one ssc:BaseUnit");
            for (int k = 0; k < 8; k++) {
                double e;
                if (get_double(s, file, b, base[k], 0, &e)) return -1;
                if (e != floor(e) || fabs(e) > 100)
                    return ssp_refuse(s, file, b, "attribute %s: expected an integer exponent",
                                      base[k]);
                un->exp[k] = (int)e;
            }
            if (get_double(s, file, b, "factor", 1, &un->factor) ||
                get_double(s, file, b, "offset", 0, &un->offset))
                return -1;
            if (un->factor == 0) return ssp_refuse(s, file, b, "factor 0");
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
    /* unit="" (written by tools for a variable without a unit) is no unit */
    if (!a || !b || !a[0] || !b[0] || !strcmp(a, b)) return 0;
    const unit *ua = find_unit(s, a), *ub = find_unit(s, b);
    if (!ua || !ub)
        return ssp_refuse(s, file, n,
                          "unit \"%s\" is not declared in ssd:Units (converting \"%s\" to \"%s\")",
                          ua ? b : a, a, b);
    if (memcmp(ua->exp, ub->exp, sizeof ua->exp))
        return ssp_refuse(s, file, n, "incompatible units \"%s\" and \"%s\" (different base units)",
                          a, b);
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
    if (n->type == XML_ELEMENT_NODE && !strcmp(ssp_local(n), "Annotations") &&
        (ns_is(n, NS_SSD) || ns_is(n, NS_SSC) || ns_is(n, NS_SSV) || ns_is(n, NS_SSM)))
        return 1;
    for (int i = 0; ssd[i]; i++)
        if (is_el(n, NS_SSD, ssd[i])) return 1;
    /* SSP 2.0: meta data and signatures on most elements (ssc:, some tools ssd:) */
    return is_el(n, NS_SSC, "MetaData") || is_el(n, NS_SSD, "MetaData") ||
           is_el(n, NS_SSC, "Signature") || is_el(n, NS_SSD, "Signature");
}

/* merge: a connector already declared for this owner is skipped (a component referencing
 * another SSD repeats the connectors of that SSD's system); else it is refused. */
static int read_connectors(sx *s, xmlNodePtr cs, const char *owner, int is_sys, int merge)
{
    for (xmlNodePtr c = cs->children; c; c = c->next) {
        if (c->type != XML_ELEMENT_NODE) continue;
        if (!is_el(c, NS_SSD, "Connector"))
            return ssp_refuse(s, s->file, c, "expected ssd:Connector");
        if (PUSH(s, s->ctrs, s->n_ctrs, s->cap_ctrs)) return -2;
        ctr *k = &s->ctrs[s->n_ctrs];
        memset(k, 0, sizeof *k);
        k->node = c;
        k->is_sys = is_sys;
        k->owner = strdup(owner);
        k->name = attr(c, "name");
        k->kind = attr(c, "kind");
        s->n_ctrs++;
        if (!k->owner) return ssp_oom(s);
        if (!k->name || !k->kind)
            return ssp_refuse(s, s->file, c, "a connector needs a name and a kind");
        int twice = 0;
        for (size_t i = 0; i + 1 < s->n_ctrs && !twice; i++)
            twice = !strcmp(s->ctrs[i].owner, owner) && !strcmp(s->ctrs[i].name, k->name);
        if (twice && merge) {
            free(k->owner), free(k->name), free(k->kind);
            s->n_ctrs--;
            continue;
        }
        if (twice) return ssp_refuse(s, s->file, c, "connector \"%s\" declared twice", k->name);
        for (xmlNodePtr t = c->children; t; t = t->next) {
            if (t->type != XML_ELEMENT_NODE || skipped(t)) continue;
            if (!ns_is(t, NS_SSC) || k->type != T_UNKNOWN)
                return ssp_refuse(s, s->file, t, "expected one type element (ssc:Real, ...)");
            const char *tn = ssp_local(t);
            k->type =
                !strcmp(tn, "Real") || !strcmp(tn, "Float64") || !strcmp(tn, "Float32") ? T_REAL
                : !strcmp(tn, "Integer") || !strcmp(tn, "Boolean") || !strcmp(tn, "Enumeration") ||
                        !strncmp(tn, "Int", 3) || !strncmp(tn, "UInt", 4)
                    ? T_WHOLE
                    : T_OTHER;
            k->typename = tn;
            if (k->type == T_REAL) k->unit = attr(t, "unit");
            if (!strcmp(tn, "Enumeration")) k->enum_name = attr(t, "name");
        }
    }
    return 0;
}

static int walk_system(sx *s, xmlNodePtr sys, const char *path);

/* The bindings of an element; comp_fmu (a component's FMU) or comp_dir (the folder of the
 * document a component references) is what sourceBase="component" resolves against. */
static int add_binding(sx *s, xmlNodePtr pbs, const char *owner, int is_sys, const char *comp_fmu,
                       const char *comp_dir)
{
    for (xmlNodePtr b = pbs->children; b; b = b->next) {
        if (b->type != XML_ELEMENT_NODE) continue;
        if (!is_el(b, NS_SSD, "ParameterBinding"))
            return ssp_refuse(s, s->file, b, "expected ssd:ParameterBinding");
        if (PUSH(s, s->bnds, s->n_bnds, s->cap_bnds)) return -2;
        bnd *k = &s->bnds[s->n_bnds++];
        *k = (bnd){strdup(owner),
                   is_sys,
                   b,
                   strdup(s->dir),
                   comp_fmu ? strdup(comp_fmu) : NULL,
                   comp_dir ? strdup(comp_dir) : NULL,
                   s->in_pkg};
        if (!k->owner || !k->dir || (comp_fmu && !k->comp_fmu) || (comp_dir && !k->comp_dir))
            return ssp_oom(s);
    }
    return 0;
}

static int walk_system(sx *s, xmlNodePtr sys, const char *path);

/* A component referencing another system structure (application/x-ssp-definition, or
 * application/x-ssp-package: package 1): that system walked as a subsystem at this
 * component's path (ssp_nested_system), then the component's connectors (merged with the
 * system's) and its parameter bindings, which come after the system's own (SSP 1.0: as if
 * they were the last bindings of that system). */
static int walk_nested(sx *s, xmlNodePtr c, const char *path, const char *src, int package)
{
    if (!src) return ssp_refuse(s, s->file, c, "a component needs a source");
    if (s->depth >= 16)
        return ssp_refuse(s, s->file, c, "systems referenced more than 16 deep (a cycle?)");
    char *dir = NULL, *saved = s->dir;
    xmlNodePtr sys = ssp_nested_system(s, c, src, &package, &dir);
    if (!sys) return free(dir), s->err[0] ? -1 : -2;
    if (dir) s->dir = dir;
    s->depth++;
    s->in_pkg += package;
    int rc = walk_system(s, sys, path);
    s->in_pkg -= package;
    s->depth--;
    s->dir = saved;
    for (xmlNodePtr e = c->children; e && !rc; e = e->next) {
        if (e->type != XML_ELEMENT_NODE || skipped(e)) continue;
        if (is_el(e, NS_SSD, "Connectors"))
            rc = read_connectors(s, e, path, 1, 1);
        else if (is_el(e, NS_SSD, "ParameterBindings"))
            rc = add_binding(s, e, path, 1, NULL, dir ? dir : s->dir);
        else
            rc = ssp_refuse(s, s->file, e, "not supported in a component");
    }
    free(dir);
    return rc;
}

/* A MIME type as compared: without parameters (";...") and surrounding blanks, lower case. */
static void mime_base(char *t)
{
    if (!t) return;
    char *semi = strchr(t, ';');
    if (semi) *semi = '\0';
    size_t n = strlen(t), i = 0;
    while (n && isspace((unsigned char)t[n - 1]))
        t[--n] = '\0';
    while (isspace((unsigned char)t[i]))
        i++;
    memmove(t, t + i, n - i + 1);
    for (char *q = t; *q; q++)
        *q = (char)tolower((unsigned char)*q);
}

static int walk_component(sx *s, xmlNodePtr c, const char *path)
{
    char *type = attr(c, "type"), *src = attr(c, "source"), *impl = attr(c, "implementation");
    mime_base(type);
    int package = type && !strcmp(type, "application/x-ssp-package");
    if (type && (package || !strcmp(type, "application/x-ssp-definition"))) {
        free(type), free(impl);
        int rc = walk_nested(s, c, path, src, package);
        free(src);
        return rc;
    }
    int bad_type = type && strcmp(type, "application/x-fmu-sharedlibrary");
    int bad_impl = impl && strcmp(impl, "any") && strcmp(impl, "CoSimulation") &&
                   strcmp(impl, "ModelExchange");
    free(type);
    free(impl);
    if (bad_type) {
        free(src);
        return ssp_refuse(
            s, s->file, c,
            "component type is not application/x-fmu-sharedlibrary, application/x-ssp-definition "
            "or application/x-ssp-package (only FMUs and systems are run)");
    }
    if (bad_impl) {
        free(src);
        return ssp_refuse(s, s->file, c,
                          "implementation: expected any, CoSimulation or ModelExchange");
    }
    if (!src) return ssp_refuse(s, s->file, c, "a component needs a source (the FMU)");
    char *fmu = source_path(s, c, src);
    free(src);
    if (!fmu) return s->err[0] ? -1 : -2;
    if (PUSH(s, s->comps, s->n_comps, s->cap_comps)) return free(fmu), -2;
    comp *k = &s->comps[s->n_comps];
    memset(k, 0, sizeof *k);
    k->node = c;
    k->path = strdup(path);
    k->fed = ssp_sanitize(path, 0);
    k->obj = json_object();
    s->n_comps++;
    if (!k->path || !k->fed || !k->obj ||
        json_object_set_new(k->obj, "name", json_string(k->fed)) ||
        json_object_set_new(k->obj, "fmu", json_string(fmu)))
        return free(fmu), ssp_oom(s);
    free(fmu);
    for (size_t i = 0; i + 1 < s->n_comps; i++)
        if (!strcmp(s->comps[i].fed, k->fed))
            return ssp_refuse(s, s->file, c,
                              "elements \"%s\" and \"%s\" both become federate \"%s\"",
                              s->comps[i].path, path, k->fed);
    for (xmlNodePtr e = c->children; e; e = e->next) {
        if (e->type != XML_ELEMENT_NODE || skipped(e)) continue;
        int rc = 0;
        if (is_el(e, NS_SSD, "Connectors"))
            rc = read_connectors(s, e, path, 0, 0);
        else if (is_el(e, NS_SSD, "ParameterBindings"))
            rc =
                add_binding(s, e, path, 0, json_string_value(json_object_get(k->obj, "fmu")), NULL);
        else
            rc = ssp_refuse(s, s->file, e, "not supported in a component");
        if (rc) return rc;
    }
    return 0;
}

static int read_connections(sx *s, xmlNodePtr cs, const char *sys)
{
    for (xmlNodePtr c = cs->children; c; c = c->next) {
        if (c->type != XML_ELEMENT_NODE) continue;
        if (!is_el(c, NS_SSD, "Connection"))
            return ssp_refuse(s, s->file, c, "expected ssd:Connection");
        char *se = attr(c, "startElement"), *sc = attr(c, "startConnector");
        char *ee = attr(c, "endElement"), *ec = attr(c, "endConnector");
        char *su = attr(c, "suppressUnitConversion");
        /* an empty startElement/endElement is the system itself, as an absent one */
        cn k = {.from_owner = se && se[0] ? ssp_join(sys, se) : strdup(sys),
                .from = sc,
                .to_owner = ee && ee[0] ? ssp_join(sys, ee) : strdup(sys),
                .to = ec,
                .sys = strdup(sys),
                .factor = 1,
                .no_units = su && (!strcmp(su, "true") || !strcmp(su, "1")),
                .node = c};
        free(se);
        free(ee);
        free(su);
        if (PUSH(s, s->cns, s->n_cns, s->cap_cns)) return -2;
        s->cns[s->n_cns++] = k;
        if (!k.from_owner || !k.to_owner || !k.sys) return ssp_oom(s);
        if (!sc || !ec)
            return ssp_refuse(s, s->file, c, "a connection needs startConnector and endConnector");
        int have = 0;
        for (xmlNodePtr t = c->children; t; t = t->next) {
            if (t->type != XML_ELEMENT_NODE || skipped(t)) continue;
            int map = is_el(t, NS_SSC, "BooleanMappingTransformation") ||
                      is_el(t, NS_SSC, "IntegerMappingTransformation") ||
                      is_el(t, NS_SSC, "EnumerationMappingTransformation");
            if (!map && !is_el(t, NS_SSC, "LinearTransformation"))
                return ssp_refuse(s, s->file, t,
                                  "only ssc:LinearTransformation and the Boolean, Integer and "
                                  "Enumeration mapping transformations are supported on a "
                                  "connection");
            if (have++) return ssp_refuse(s, s->file, t, "a second transformation");
            if (map) {
                s->cns[s->n_cns - 1].map = t;
                continue;
            }
            if (get_double(s, s->file, t, "factor", 1, &s->cns[s->n_cns - 1].factor) ||
                get_double(s, s->file, t, "offset", 0, &s->cns[s->n_cns - 1].offset))
                return -1;
            if (s->cns[s->n_cns - 1].factor == 0)
                return ssp_refuse(s, s->file, t,
                                  "factor 0 (the input would not depend on the output)");
        }
    }
    return 0;
}

/* ssd:SignalDictionaries of system `path`: each ssd:SignalDictionary's name (its entries'
 * types are not needed: an entry carries what its writer's connector gives). */
static int read_dicts(sx *s, xmlNodePtr ds, const char *path)
{
    for (xmlNodePtr d = ds->children; d; d = d->next) {
        if (d->type != XML_ELEMENT_NODE || skipped(d)) continue;
        if (!is_el(d, NS_SSD, "SignalDictionary"))
            return ssp_refuse(s, s->file, d, "expected ssd:SignalDictionary");
        if (PUSH(s, s->dicts, s->n_dicts, s->cap_dicts)) return -2;
        sdict *k = &s->dicts[s->n_dicts++];
        k->sys = strdup(path);
        k->name = attr(d, "name");
        if (!k->sys) return ssp_oom(s);
        if (!k->name) return ssp_refuse(s, s->file, d, "a signal dictionary needs a name");
    }
    return 0;
}

/* An ssd:SignalDictionaryReference `path` in system `sys`: its connectors, all "inout" (a
 * signal's direction comes from the component connectors at its ends). */
static int read_dref(sx *s, xmlNodePtr r, const char *path, const char *sys)
{
    if (PUSH(s, s->drefs, s->n_drefs, s->cap_drefs)) return -2;
    sdref *k = &s->drefs[s->n_drefs++];
    *k = (sdref){strdup(path), strdup(sys), attr(r, "dictionary"), r};
    if (!k->path || !k->sys) return ssp_oom(s);
    if (!k->dict)
        return ssp_refuse(s, s->file, r, "a signal dictionary reference needs a dictionary");
    for (xmlNodePtr e = r->children; e; e = e->next) {
        if (e->type != XML_ELEMENT_NODE || skipped(e)) continue;
        if (!is_el(e, NS_SSD, "Connectors"))
            return ssp_refuse(s, s->file, e, "not supported in a signal dictionary reference");
        size_t first = s->n_ctrs;
        int rc = read_connectors(s, e, path, 1, 0);
        if (rc) return rc;
        for (size_t i = first; i < s->n_ctrs; i++) {
            free(s->ctrs[i].kind);
            if (!(s->ctrs[i].kind = strdup("inout"))) return ssp_oom(s);
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
            rc = read_connectors(s, e, path, 1, 0);
        else if (is_el(e, NS_SSD, "ParameterBindings"))
            rc = add_binding(s, e, path, 1, NULL, NULL);
        else if (is_el(e, NS_SSD, "Connections"))
            rc = read_connections(s, e, path);
        else if (is_el(e, NS_SSD, "Elements")) {
            for (xmlNodePtr c = e->children; c && !rc; c = c->next) {
                if (c->type != XML_ELEMENT_NODE) continue;
                char *name = attr(c, "name");
                if (!name) return ssp_refuse(s, s->file, c, "an element needs a name");
                char *sub = ssp_join(path, name);
                free(name);
                if (!sub) return ssp_oom(s);
                if (is_el(c, NS_SSD, "Component"))
                    rc = walk_component(s, c, sub);
                else if (is_el(c, NS_SSD, "System"))
                    rc = walk_system(s, c, sub);
                else if (is_el(c, NS_SSD, "SignalDictionaryReference"))
                    rc = read_dref(s, c, sub, path);
                else
                    rc = ssp_refuse(s, s->file, c, "not supported as an element");
                free(sub);
            }
        } else if (is_el(e, NS_SSD, "SignalDictionaries"))
            rc = read_dicts(s, e, path);
        else if (is_el(e, NS_SSD, "SimulationInformation"))
            continue; /* an early OMSimulator's solver settings; its step: foreign_step */
        else
            rc = ssp_refuse(s, s->file, e, "not supported in a system");
        if (rc) return rc;
    }
    return 0;
}

/* ======================================================================================
 * The document
 * ====================================================================================== */

static void sx_free(sx *s)
{
    for (size_t i = 0; i < s->n_ctrs; i++)
        free(s->ctrs[i].owner), free(s->ctrs[i].name), free(s->ctrs[i].kind), free(s->ctrs[i].unit),
            free(s->ctrs[i].enum_name);
    for (size_t i = 0; i < s->n_comps; i++)
        free(s->comps[i].path), free(s->comps[i].fed), free(s->comps[i].cls),
            json_decref(s->comps[i].obj), fmu_md_free(s->comps[i].md);
    for (size_t i = 0; i < s->n_cns; i++)
        free(s->cns[i].from_owner), free(s->cns[i].from), free(s->cns[i].to_owner),
            free(s->cns[i].to), free(s->cns[i].sys);
    for (size_t i = 0; i < s->n_bnds; i++)
        free(s->bnds[i].owner), free(s->bnds[i].dir), free(s->bnds[i].comp_fmu),
            free(s->bnds[i].comp_dir);
    ssp_unpacked_free(s);
    free(s->dir0);
    for (size_t i = 0; i < s->n_units; i++)
        free(s->units[i].name);
    for (size_t i = 0; i < s->n_extra; i++)
        xmlFreeDoc(s->extra[i]);
    for (size_t i = 0; i < s->n_dicts; i++)
        free(s->dicts[i].sys), free(s->dicts[i].name);
    for (size_t i = 0; i < s->n_drefs; i++)
        free(s->drefs[i].path), free(s->drefs[i].sys), free(s->drefs[i].dict);
    free(s->dicts), free(s->drefs);
    free(s->ctrs), free(s->comps), free(s->cns), free(s->bnds), free(s->units);
    free(s->dir);
    free(s->beside);
}

xmlDocPtr ssp_read_xml(sx *s, const char *file)
{
    /* a file of an unpacked archive is named ARCHIVE/ENTRY in messages */
    char shown[PATH_MAX + 64];
    ssp_shown(s, file, shown, sizeof shown);
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
    if (!d->URL) return ssp_oom(s), NULL;
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
        /* a foreign prefix the document does not declare stays in the name ("oms:...") */
        const char *local = strchr((const char *)c->name, ':');
        if (!strcmp(local ? local + 1 : (const char *)c->name, el)) {
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
        if (is_el(a, NS_SSD, "SimulationInformation")) {
            double d = find_step(a, "FixedStepMaster", "stepSize");
            if (d > 0) return d;
        }
        if (!skipped(a) || strcmp(ssp_local(a), "Annotations")) continue;
        for (xmlNodePtr t = a->children; t; t = t->next) {
            if (!is_el(t, NS_SSC, "Annotation") && !is_el(t, NS_SSD, "Annotation")) continue;
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
        if (!is_el(a, NS_SSC, "Annotation") && !is_el(a, NS_SSD, "Annotation")) continue;
        char *type = attr(a, "type");
        int ours = type && !strcmp(type, SSP_TEMPO_ANNOTATION);
        free(type);
        if (!ours) continue;
        xmlChar *txt = xmlNodeGetContent(a);
        json_error_t je;
        *tempo = txt ? json_loads((const char *)txt, JSON_REJECT_DUPLICATES, &je) : NULL;
        xmlFree(txt);
        if (!*tempo || !json_is_object(*tempo))
            return ssp_refuse(s, s->file, a, "the Tempo annotation is not a JSON object");
    }
    return 0;
}

/* No stopTime in the SSD: the latest DefaultExperiment stopTime of the components' FMUs
 * (doc/ssp.md), NaN when none gives one. An FMU that cannot be read is skipped here: loading
 * the federation names it. */
static double fmus_stop(sx *s)
{
    double stop = NAN;
    for (size_t i = 0; i < s->n_comps; i++) {
        fmu_md *md = NULL;
        char e[256];
        const char *path = json_string_value(json_object_get(s->comps[i].obj, "fmu"));
        if (!path || fmu_load_md(path, NULL, &md, e, sizeof e)) continue;
        if (md->has_stop && (isnan(stop) || md->stop_time > stop)) stop = md->stop_time;
        fmu_md_free(md);
    }
    return stop;
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
            rc = read_units(s, s->file, e);
        else if (is_el(e, NS_SSD, "DefaultExperiment") && !dx)
            dx = e;
        else if (skipped(e) && !strcmp(ssp_local(e), "Annotations"))
            rc = read_tempo_annotation(s, e, &tempo);
        else if (is_el(e, NS_SSD, "Enumerations"))
            s->enums = e; /* for ssv:Enumeration parameter values */
        else if (skipped(e))
            continue;
        else
            rc = ssp_refuse(s, s->file, e, "not supported here");
        if (rc) return json_decref(tempo), rc;
    }
    if (!sys) return json_decref(tempo), ssp_refuse(s, s->file, root, "no ssd:System");
    double start = 0, stop = NAN;
    if (dx) {
        for (xmlNodePtr e = dx->children; e; e = e->next)
            if (e->type == XML_ELEMENT_NODE && !skipped(e))
                return json_decref(tempo), ssp_refuse(s, s->file, e, "not supported here");
        if (get_double(s, s->file, dx, "startTime", 0, &start) ||
            get_double(s, s->file, dx, "stopTime", NAN, &stop))
            return json_decref(tempo), -1;
    }
    int rc = walk_system(s, sys, "");
    if (!rc) rc = ssp_bind_drefs(s);
    if (rc) return json_decref(tempo), rc;
    if (s->n_comps == 0) return json_decref(tempo), ssp_refuse(s, s->file, sys, "no component");
    if (need_end && isnan(stop) && !(stop = fmus_stop(s), stop > start))
        return json_decref(tempo),
               ssp_refuse(s, s->file, dx ? dx : root,
                          "no ssd:DefaultExperiment stopTime, and no FMU's DefaultExperiment gives "
                          "one after the start (give one, or name this system from a federation "
                          "file with algorithm.end)");
    for (size_t i = 0; i < s->n_comps; i++) {
        comp *k = &s->comps[i];
        if (!(k->cls = ssp_sanitize(k->fed, 1))) return json_decref(tempo), ssp_oom(s);
        for (size_t j = 0; j < i; j++)
            if (!strcmp(s->comps[j].cls, k->cls)) { /* "a-b" and "a_b" */
                size_t n = strlen(k->cls) + 24;
                char *c2 = malloc(n);
                if (!c2) return json_decref(tempo), ssp_oom(s);
                snprintf(c2, n, "%s_%zu", k->cls, i);
                free(k->cls);
                k->cls = c2;
            }
    }
    if ((tempo && (rc = ssp_preset_outputs(s, tempo))) || (rc = ssp_publish_outputs(s)) ||
        (rc = ssp_wire(s)) || (rc = ssp_bind_parameters(s)))
        return json_decref(tempo), rc;
    char *name = attr(sys, "name");
    char *fname = name ? ssp_sanitize(name, 0) : strdup("ssp");
    free(name);
    json_t *doc = json_object(), *alg = json_object(), *feds = json_array();
    if (!doc || !alg || !feds || !fname) {
        free(fname), json_decref(doc), json_decref(alg), json_decref(feds), json_decref(tempo);
        return ssp_oom(s);
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
char *ssp_abs_dir(const char *path)
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
    /* "plant.ssp#Variant.ssd": another SSD of the archive than SystemStructure.ssd */
    const char *hash = strchr(path, '#');
    size_t n = hash ? (size_t)(hash - path) : strlen(path);
    int archive = n > 4 && !strncasecmp(path + n - 4, ".ssp", 4);
    const char *entry = archive && hash ? hash + 1 : "SystemStructure.ssd";
    char ssd[PATH_MAX + 32], shown[PATH_MAX + 32], apath[PATH_MAX];
    sx s = {.err = err, .errlen = errlen, .archive = archive};
    if (archive) {
        char dir[PATH_MAX];
        snprintf(apath, sizeof apath, "%.*s", (int)n, path);
        if (!entry[0] || strstr(entry, "..") || strchr(entry, '/') || !ssp_is_ssp_path(entry)) {
            snprintf(err, errlen,
                     "%s: the variant after '#' is the name of an .ssd file at the "
                     "archive's root",
                     path);
            goto fail;
        }
        if (fmu_zip_extract(apath, NULL, dir, sizeof dir, err, errlen)) return -1;
        if (!(s.tmp = strdup(dir)) || !(s.dir = strdup(dir)) || !(s.dir0 = strdup(dir)) ||
            !(s.beside = ssp_abs_dir(apath))) {
            if (!s.tmp) fmu_zip_remove_tree(dir, err, errlen);
            snprintf(err, errlen, "%s: out of memory", path);
            goto fail;
        }
        snprintf(ssd, sizeof ssd, "%s/%s", dir, entry);
        snprintf(shown, sizeof shown, "%s/%s", apath, entry);
        s.file = shown; /* messages name ARCHIVE/SystemStructure.ssd */
        s.archive_path = apath;
        struct stat sb;
        if (stat(ssd, &sb) != 0) {
            snprintf(err, errlen, "%s: no %s at the archive's root", apath, entry);
            goto fail;
        }
    } else {
        snprintf(ssd, sizeof ssd, "%s", path);
        s.file = path;
        if (!(s.dir = ssp_abs_dir(path))) {
            snprintf(err, errlen, "%s: %s", path, strerror(errno));
            goto fail;
        }
    }
    xmlDocPtr d = ssp_read_xml(&s, ssd);
    if (!d) goto fail;
    xmlNodePtr root = xmlDocGetRootElement(d);
    if (!root || !is_el(root, NS_SSD, "SystemStructureDescription")) {
        ssp_refuse(&s, s.file, root,
                   "the root is not ssd:SystemStructureDescription (namespace "
                   "http://ssp-standard.org/SSP1/SystemStructureDescription)");
        goto fail;
    }
    /* absent (required by the schema, left out by hand-written files): read as 1.0 */
    char *ver = attr(root, "version");
    int ok = !ver || !strncmp(ver, "1.", 2) || !strncmp(ver, "2.", 2);
    free(ver);
    if (!ok) {
        ssp_refuse(&s, s.file, root, "version: expected 1.x or 2.x (or none)");
        goto fail;
    }
    json_t *j = NULL;
    if (build(&s, root, need_end, &j)) goto fail;
    *tmpdir = s.tmp; /* the FMUs of every archive are below it */
    s.tmp = NULL;
    sx_free(&s);
    *doc = j;
    return 0;
fail:
    if (!err[0]) snprintf(err, errlen, "%s: out of memory", path);
    sx_free(&s);
    if (s.tmp) {
        char e2[256];
        fmu_zip_remove_tree(s.tmp, e2, sizeof e2);
        free(s.tmp);
    }
    return strstr(err, "out of memory") ? -2 : -1;
}

/* Accessors for ssp_params.c (ssp_impl.h). */
xmlNodePtr ssp_enumerations(sx *s)
{
    return s->enums;
}
int ssp_read_units(sx *s, const char *file, xmlNodePtr units)
{
    return read_units(s, file, units);
}
/* The unit of the system connector `target` ("C" or "Sub.C") of system `sys`, or NULL. */
const char *ssp_sys_connector_unit(sx *s, const char *sys, const char *target)
{
    char *full = ssp_join(sys, target);
    const char *u = NULL;
    for (size_t i = 0; full && i < s->n_ctrs && !u; i++) {
        ctr *c = &s->ctrs[i];
        size_t ol = strlen(c->owner);
        if (c->is_sys && !strncmp(full, c->owner, ol) &&
            (ol ? full[ol] == '.' && !strcmp(full + ol + 1, c->name) : !strcmp(full, c->name)))
            u = c->unit;
    }
    free(full);
    return u;
}
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
    return ssp_refuse(s, file, n, "%s", msg);
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
    comp *k = ssp_find_comp(s, path);
    return k ? ssp_section(k, "parameters") : NULL;
}
const char *ssp_connector_unit(sx *s, const char *owner, const char *name)
{
    ctr *k = ssp_find_ctr(s, owner, name);
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
