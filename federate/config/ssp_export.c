/* SSP writer (federate/config/ssp.h, ssp_export): a federation file's system as an .ssp
 * archive: SystemStructure.ssd (libxml2) with the FMUs under resources/ (libzip). The mapping
 * is doc/ssp.md, "Export"; it is the reader's mapping backwards, plus the Tempo annotation
 * that carries the settings SSP has no place for, so a round trip runs the same.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>
#include <libxml/tree.h>
#include <zip.h>

#include "federate/config/ssp.h"
#include "federate/config/ssp_impl.h"
#include "federate/fmu/fmu_load.h"
#include "federate/fmu/fmu_md.h"

#define SSD_NS "http://ssp-standard.org/SSP1/SystemStructureDescription"
#define SSC_NS "http://ssp-standard.org/SSP1/SystemStructureCommon"
#define SSV_NS "http://ssp-standard.org/SSP1/SystemStructureParameterValues"

typedef struct ex {
    xmlNsPtr ssd, ssc, ssv;
    char *err;
    size_t errlen;
} ex;

static xmlNodePtr child(xmlNodePtr parent, xmlNsPtr ns, const char *name)
{
    return xmlNewChild(parent, ns, (const xmlChar *)name, NULL);
}

static void prop(xmlNodePtr n, const char *name, const char *value)
{
    xmlNewProp(n, (const xmlChar *)name, (const xmlChar *)value);
}

/* The shortest decimal that reads back as the same double. */
static void prop_num(xmlNodePtr n, const char *name, double v)
{
    char b[40];
    for (int prec = 15; prec <= 17; prec++) {
        snprintf(b, sizeof b, "%.*g", prec, v);
        if (strtod(b, NULL) == v) break;
    }
    prop(n, name, b);
}

/* The SSP type of a parameter: the FMU variable's type when the description names it, else
 * the JSON value's kind. */
static const char *param_type(const fmu_md *md, const char *var, json_t *val)
{
    long i = md ? fmu_md_find(md, var) : -1;
    if (i >= 0) switch (md->vars[i].type) {
        case FMU_T_REAL:
        case FMU_T_FLOAT32:
            return "Real";
        case FMU_T_INTEGER:
        case FMU_T_ENUM:
        case FMU_T_INT8:
        case FMU_T_UINT8:
        case FMU_T_INT16:
        case FMU_T_UINT16:
        case FMU_T_UINT32:
        case FMU_T_INT64:
        case FMU_T_UINT64:
            return "Integer"; /* SSP 1.0 has one integer type (doc/ssp.md) */
        case FMU_T_BOOLEAN:
            return "Boolean";
        case FMU_T_STRING:
            return "String";
        case FMU_T_BINARY:
            return "Binary";
        case FMU_T_CLOCK: /* no parameter is a clock: the JSON value's kind decides */
        case FMU_T_NTYPES:
            break;
        }
    return json_is_real(val) || !val ? "Real"
           : json_is_integer(val)    ? "Integer"
           : json_is_boolean(val)    ? "Boolean"
                                     : "String";
}

/* The federate (and its output variable) that publishes "Class.attr", or NULL. */
static const char *publisher(json_t *feds, const char *ca, const char **var)
{
    for (size_t i = 0; i < json_array_size(feds); i++) {
        json_t *f = json_array_get(feds, i), *v;
        const char *k;
        json_object_foreach(json_object_get(f, "outputs"), k,
                            v) if (json_is_string(v) && !strcmp(json_string_value(v), ca))
        {
            *var = k;
            return json_string_value(json_object_get(f, "name"));
        }
    }
    return NULL;
}

static void connector(ex *x, xmlNodePtr cs, const char *name, const char *kind, const char *type)
{
    xmlNodePtr c = child(cs, x->ssd, "Connector");
    prop(c, "name", name);
    prop(c, "kind", kind);
    child(c, x->ssc, type);
}

static void parameters(ex *x, xmlNodePtr el, json_t *params, const fmu_md *md)
{
    xmlNodePtr pv = child(child(child(el, x->ssd, "ParameterBindings"), x->ssd, "ParameterBinding"),
                          x->ssd, "ParameterValues");
    xmlNodePtr set = child(pv, x->ssv, "ParameterSet");
    prop(set, "version", "1.0");
    prop(set, "name", "parameters");
    xmlNodePtr ps = child(set, x->ssv, "Parameters");
    const char *k;
    json_t *v;
    json_object_foreach(params, k, v)
    {
        xmlNodePtr p = child(ps, x->ssv, "Parameter");
        prop(p, "name", k);
        char b[40];
        if (!strcmp(param_type(md, k, v), "Real") && json_is_number(v)) {
            prop_num(child(p, x->ssv, "Real"), "value", json_number_value(v));
        } else if (json_is_integer(v)) {
            snprintf(b, sizeof b, "%lld", (long long)json_integer_value(v));
            prop(child(p, x->ssv, "Integer"), "value", b);
        } else if (json_is_boolean(v)) {
            prop(child(p, x->ssv, "Boolean"), "value", json_is_true(v) ? "true" : "false");
        } else {
            prop(child(p, x->ssv, "String"), "value", json_string_value(v));
        }
    }
}

/* The SSD text of the document; *fmus receives, per federate in order, the archive name of
 * its FMU ("resources/<name>.fmu"). */
static int write_ssd(ex *x, json_t *doc, fmu_md **mds, xmlChar **text, int *len)
{
    json_t *feds = json_object_get(doc, "federates"), *alg = json_object_get(doc, "algorithm");
    xmlDocPtr d = xmlNewDoc((const xmlChar *)"1.0");
    xmlNodePtr root = xmlNewNode(NULL, (const xmlChar *)"SystemStructureDescription");
    if (!d || !root) return xmlFreeDoc(d), xmlFreeNode(root), -2;
    xmlDocSetRootElement(d, root);
    x->ssd = xmlNewNs(root, (const xmlChar *)SSD_NS, (const xmlChar *)"ssd");
    x->ssc = xmlNewNs(root, (const xmlChar *)SSC_NS, (const xmlChar *)"ssc");
    x->ssv = xmlNewNs(root, (const xmlChar *)SSV_NS, (const xmlChar *)"ssv");
    xmlSetNs(root, x->ssd);
    const char *name = json_string_value(json_object_get(doc, "federation"));
    prop(root, "version", "1.0");
    prop(root, "name", name);
    xmlNodePtr sys = child(root, x->ssd, "System");
    prop(sys, "name", name);
    xmlNodePtr els = child(sys, x->ssd, "Elements");
    xmlNodePtr cns = NULL;
    json_t *tfeds = json_object();
    for (size_t i = 0; i < json_array_size(feds); i++) {
        json_t *f = json_array_get(feds, i), *v;
        const char *fname = json_string_value(json_object_get(f, "name")), *k;
        xmlNodePtr c = child(els, x->ssd, "Component");
        prop(c, "name", fname);
        prop(c, "type", "application/x-fmu-sharedlibrary");
        char src[300];
        snprintf(src, sizeof src, "resources/%s.fmu", fname);
        prop(c, "source", src);
        xmlNodePtr cs = child(c, x->ssd, "Connectors");
        /* a wired variable's type is its FMU's (whole numbers are wired by the peer methods) */
        json_t *real = json_real(0);
        json_object_foreach(json_object_get(f, "inputs"), k, v)
            connector(x, cs, k, "input", param_type(mds[i], k, real));
        json_object_foreach(json_object_get(f, "outputs"), k, v)
            connector(x, cs, k, "output", param_type(mds[i], k, real));
        json_decref(real);
        json_object_foreach(json_object_get(f, "parameters"), k, v)
            connector(x, cs, k, "parameter", param_type(mds[i], k, v));
        if (json_object_size(json_object_get(f, "parameters")))
            parameters(x, c, json_object_get(f, "parameters"), mds[i]);
        json_object_foreach(json_object_get(f, "inputs"), k, v)
        {
            const char *var = NULL, *from = publisher(feds, json_string_value(v), &var);
            if (!from) continue; /* fedfile_load refused it already */
            if (!cns) cns = xmlNewNode(x->ssd, (const xmlChar *)"Connections");
            xmlNodePtr con = child(cns, x->ssd, "Connection");
            prop(con, "startElement", from);
            prop(con, "startConnector", var);
            prop(con, "endElement", fname);
            prop(con, "endConnector", k);
            /* the input's "transform": the connection's linear transformation */
            json_t *t = json_object_get(json_object_get(f, "transform"), k);
            json_t *map = json_object_get(t, "map");
            if (map) { /* whole numbers: a mapping of the input's type */
                json_t *r = json_real(0);
                int b = !strcmp(param_type(mds[i], k, r), "Boolean");
                json_decref(r);
                xmlNodePtr mt =
                    child(con, x->ssc,
                          b ? "BooleanMappingTransformation" : "IntegerMappingTransformation");
                size_t j;
                json_t *pr;
                json_array_foreach(map, j, pr)
                {
                    char a[32], z[32];
                    long long va = json_integer_value(json_array_get(pr, 0)),
                              vz = json_integer_value(json_array_get(pr, 1));
                    snprintf(a, sizeof a, "%lld", va);
                    snprintf(z, sizeof z, "%lld", vz);
                    xmlNodePtr me = child(mt, x->ssc, "MapEntry");
                    prop(me, "source", b ? (va ? "true" : "false") : a);
                    prop(me, "target", b ? (vz ? "true" : "false") : z);
                }
            }
            if (t && (json_object_get(t, "factor") || json_object_get(t, "offset") || !map)) {
                xmlNodePtr lt = child(con, x->ssc, "LinearTransformation");
                json_t *fa = json_object_get(t, "factor"), *of = json_object_get(t, "offset");
                prop_num(lt, "factor", fa ? json_number_value(fa) : 1);
                prop_num(lt, "offset", of ? json_number_value(of) : 0);
            }
        }
        json_t *tf = json_object();
        static const char *const keep[] = {"solver", "record", "quantum", "role", "outputs"};
        for (int j = 0; j < 5; j++)
            if (json_object_get(f, keep[j]))
                json_object_set(tf, keep[j], json_object_get(f, keep[j]));
        if (json_object_size(tf)) json_object_set(tfeds, fname, tf);
        json_decref(tf);
    }
    if (cns) xmlAddChild(sys, cns);
    xmlNodePtr dx = child(root, x->ssd, "DefaultExperiment");
    prop_num(dx, "startTime", json_number_value(json_object_get(alg, "start")));
    prop_num(dx, "stopTime", json_number_value(json_object_get(alg, "end")));
    /* the Tempo annotation: what SSP has no place for (doc/ssp.md) */
    json_t *t = json_object();
    json_object_set(t, "algorithm", alg);
    static const char *const top[] = {"solver", "resolution"};
    for (int j = 0; j < 2; j++)
        if (json_object_get(doc, top[j])) json_object_set(t, top[j], json_object_get(doc, top[j]));
    if (json_object_size(tfeds)) json_object_set(t, "federates", tfeds);
    json_decref(tfeds);
    char *js = json_dumps(t, JSON_SORT_KEYS | JSON_REAL_PRECISION(17));
    json_decref(t);
    xmlNodePtr an = child(child(root, x->ssd, "Annotations"), x->ssc, "Annotation");
    prop(an, "type", SSP_TEMPO_ANNOTATION);
    if (js) xmlNodeAddContent(an, (const xmlChar *)js);
    free(js);
    xmlDocDumpFormatMemoryEnc(d, text, len, "UTF-8", 1);
    xmlFreeDoc(d);
    return *text ? 0 : -2;
}

static int export_doc(json_t *doc, const char *dir, const char *out, char *err, size_t errlen)
{
    ex x = {.err = err, .errlen = errlen};
    json_t *feds = json_object_get(doc, "federates");
    for (size_t i = 0; i < json_array_size(feds); i++)
        if (!json_object_get(json_array_get(feds, i), "fmu")) {
            snprintf(err, errlen, "federates[%zu]: a program federate has no SSP form (only FMUs)",
                     i);
            return -1;
        }
    for (size_t i = 0; i < json_array_size(feds); i++) {
        const char *k;
        json_t *t;
        json_object_foreach(json_object_get(json_array_get(feds, i), "transform"), k, t)
        {
            if (json_object_get(t, "map") &&
                (json_object_get(t, "factor") || json_object_get(t, "offset"))) {
                snprintf(err, errlen,
                         "federates[%zu].transform[\"%s\"]: a map with a factor or offset has no "
                         "SSP form (one transformation per connection)",
                         i, k);
                return -1;
            }
        }
    }
    if (json_object_get(doc, "system")) {
        snprintf(err, errlen, "system: the file already names an SSP");
        return -1;
    }
    /* the FMUs' descriptions give the parameters their SSP types */
    size_t nf = json_array_size(feds);
    fmu_md **mds = calloc(nf + 1, sizeof *mds);
    if (!mds) return snprintf(err, errlen, "out of memory"), -2;
    for (size_t i = 0; i < nf; i++) {
        const char *fmu = json_string_value(json_object_get(json_array_get(feds, i), "fmu"));
        char path[4096], e2[256];
        snprintf(path, sizeof path, "%s%s%s", fmu[0] == '/' ? "" : dir, fmu[0] == '/' ? "" : "/",
                 fmu);
        if (fmu_load_md(path, NULL, &mds[i], e2, sizeof e2)) mds[i] = NULL; /* JSON kinds */
    }
    xmlChar *text = NULL;
    int len = 0;
    int wr = write_ssd(&x, doc, mds, &text, &len);
    for (size_t i = 0; i < nf; i++)
        fmu_md_free(mds[i]);
    free(mds);
    if (wr) {
        snprintf(err, errlen, "%s: out of memory", out);
        return -2;
    }
    int zerr = 0;
    zip_t *za = zip_open(out, ZIP_CREATE | ZIP_TRUNCATE, &zerr);
    if (!za) {
        xmlFree(text);
        snprintf(err, errlen, "%s: cannot create (libzip error %d)", out, zerr);
        return -2;
    }
    zip_source_t *s = zip_source_buffer(za, text, (zip_uint64_t)len, 0);
    int rc = !s || zip_file_add(za, "SystemStructure.ssd", s, ZIP_FL_OVERWRITE) < 0;
    if (s && rc) zip_source_free(s);
    for (size_t i = 0; !rc && i < json_array_size(feds); i++) {
        json_t *f = json_array_get(feds, i);
        const char *fmu = json_string_value(json_object_get(f, "fmu"));
        char path[4096], name[300];
        snprintf(path, sizeof path, "%s%s%s", fmu[0] == '/' ? "" : dir, fmu[0] == '/' ? "" : "/",
                 fmu);
        snprintf(name, sizeof name, "resources/%s.fmu",
                 json_string_value(json_object_get(f, "name")));
        zip_source_t *fs = zip_source_file(za, path, 0, 0);
        if (!fs || zip_file_add(za, name, fs, ZIP_FL_OVERWRITE) < 0) {
            if (fs) zip_source_free(fs);
            snprintf(err, errlen, "%.200s: cannot add %.300s: %s", out, path, zip_strerror(za));
            rc = 2;
        }
    }
    if (rc == 1) snprintf(err, errlen, "%s: %s", out, zip_strerror(za));
    if (rc) {
        zip_discard(za);
        xmlFree(text);
        return -2;
    }
    if (zip_close(za) != 0) {
        snprintf(err, errlen, "%s: %s", out, zip_strerror(za));
        zip_discard(za);
        xmlFree(text);
        return -2;
    }
    xmlFree(text);
    return 0;
}

int ssp_export(const char *path, const char *out, char *err, size_t errlen)
{
    json_error_t je;
    json_t *doc = json_load_file(path, JSON_REJECT_DUPLICATES, &je);
    if (!doc) {
        snprintf(err, errlen, "%s:%d:%d: %s", path, je.line, je.column, je.text);
        return -1;
    }
    const char *slash = strrchr(path, '/');
    char *dir = slash ? strndup(path, slash == path ? 1 : (size_t)(slash - path)) : strdup(".");
    char msg[768];
    int rc = dir ? export_doc(doc, dir, out, msg, sizeof msg) : -2;
    if (rc) snprintf(err, errlen, "%s: %s", path, dir ? msg : "out of memory");
    free(dir);
    json_decref(doc);
    return rc;
}
