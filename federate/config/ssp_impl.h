/* Private to federate/config/ssp*.c: the reader's state shared by the structure walk (ssp.c),
 * the wiring (ssp_wire.c), the parameter bindings (ssp_params.c) and the referenced documents
 * and archives (ssp_pkg.c). doc/ssp.md is the mapping.
 */
#ifndef TEMPO_FEDERATE_CONFIG_SSP_IMPL_H
#define TEMPO_FEDERATE_CONFIG_SSP_IMPL_H

#include <stddef.h>

#include <jansson.h>
#include <libxml/tree.h>

/* ssc:Annotation type of the settings Tempo adds to an SSP (doc/ssp.md). */
#define SSP_TEMPO_ANNOTATION "org.tempo-rti.federation"

enum { SSP_NS_SSD = 1, SSP_NS_SSC, SSP_NS_SSV, SSP_NS_SSM };
/* Connector types: Real (1.0) or Float64/Float32 (2.0); whole numbers (Integer, Boolean,
 * Enumeration; 2.0's Int8 ... UInt64), wired for the peer methods; the others (String,
 * Binary, Clock) not wired. */
enum { T_UNKNOWN = 0, T_REAL, T_WHOLE, T_OTHER };

/* A connector of a component or system: owner is the dotted path of the element ("" for the
 * root system). */
typedef struct ctr {
    char *owner, *name, *kind; /* kind as written ("input", "output", ...) */
    int type;                  /* T_REAL, T_WHOLE, T_OTHER (typename says which), T_UNKNOWN */
    const char *typename;
    char *unit;      /* the Real connector's unit, or NULL */
    char *enum_name; /* an Enumeration connector's enumeration (its name attribute), or NULL */
    int is_sys;      /* owner is a system */
    xmlNodePtr node;
} ctr;

typedef struct comp {
    char *path; /* dotted path below the root system */
    char *fed;  /* federate name */
    char *cls;  /* object class of its outputs */
    json_t *obj;
    xmlNodePtr node;
    void *md;    /* its FMU's fmu_md once read (ssp_wire's type checks), or NULL */
    int md_read; /* 1 once a read was tried (an FMU that cannot be read is named later) */
} comp;

typedef struct cn {
    char *from_owner, *from, *to_owner, *to;
    char *sys; /* the system the connection is declared in ("" the root) */
    double factor, offset;
    int no_units;   /* suppressUnitConversion="true": no unit conversion on this leg */
    int oriented;   /* 1 once orient() has put it in the direction values flow */
    xmlNodePtr map; /* an ssc:Boolean-, Integer- or EnumerationMappingTransformation, or NULL */
    xmlNodePtr node;
} cn;

typedef struct bnd {
    char *owner;
    int is_sys;
    xmlNodePtr node;
    char *dir;      /* the folder its sources resolve against (its document's: walk_nested) */
    char *comp_fmu; /* a component's binding: its FMU (sourceBase="component"), or NULL */
    char *comp_dir; /* a component that is a system: its document's folder, or NULL */
    int in_pkg;     /* declared inside a package (sx.in_pkg) */
} bnd;

typedef struct unit {
    char *name;
    int exp[8]; /* kg m s A K mol cd rad */
    double factor, offset;
} unit;

/* A signal dictionary declared in a system (ssd:SignalDictionary), and a reference to one
 * (ssd:SignalDictionaryReference): the reference's connectors are the dictionary's entries,
 * one signal per entry name whichever reference reaches it (doc/ssp.md). */
typedef struct sdict {
    char *sys, *name;
} sdict;
typedef struct sdref {
    char *path, *sys, *dict; /* the reference's dotted path, its system, the dictionary named */
    xmlNodePtr node;
} sdref;

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
    sdict *dicts;
    size_t n_dicts, cap_dicts;
    sdref *drefs;
    size_t n_drefs, cap_drefs;
    xmlNodePtr enums;    /* the root's ssd:Enumerations, or NULL */
    int depth;           /* systems referenced from components being walked (walk_nested) */
    int in_pkg;          /* packages being walked: their sources may not leave them ("..") */
    xmlDocPtr extra[64]; /* .ssv/.ssm documents kept for messages until the end */
    size_t n_extra;
    char *dir0; /* the archive's unpacked folder (messages name its files ARCHIVE/ENTRY) */
    char *tmp;  /* the run's temporary folder (an archive's, else the first package's), or NULL */
    struct ssp_unpacked {
        char *src, *dir, *shown; /* an archive referenced by a component, its folder, its name */
    } unp[16];
    size_t n_unp;
} sx;

/* ssp.c: messages and names. ssp_refuse: "FILE:LINE: PATH: message", returns -1. */
int ssp_refuse(sx *s, const char *file, xmlNodePtr n, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));
char *ssp_join(const char *a, const char *b);
char *ssp_sanitize(const char *s, int ident);

/* ssp_wire.c */
ctr *ssp_find_ctr(sx *s, const char *owner, const char *name);
comp *ssp_find_comp(sx *s, const char *path);
json_t *ssp_section(comp *k, const char *key);
int ssp_wire(sx *s);
int ssp_preset_outputs(sx *s, json_t *tempo);
int ssp_publish_outputs(sx *s);
int ssp_bind_drefs(sx *s);

const char *ssp_file(const sx *s);
char *ssp_source(sx *s, xmlNodePtr n, const char *uri);
int ssp_refuse_msg(sx *s, const char *file, xmlNodePtr n, const char *msg);
int ssp_oom(sx *s);
size_t ssp_n_bindings(const sx *s);
xmlNodePtr ssp_binding(const sx *s, size_t i, const char **owner, int *is_sys);
json_t *ssp_component_params(sx *s, const char *path);
const char *ssp_connector_unit(sx *s, const char *owner, const char *name);
int ssp_is_el(const xmlNode *n, int ns, const char *name);
const char *ssp_local(const xmlNode *n);
char *ssp_attr(xmlNodePtr n, const char *name);
int ssp_get_double(sx *s, const char *file, xmlNodePtr n, const char *name, double dflt,
                   double *out);
int ssp_skipped(const xmlNode *n);
const char *ssp_component_for(sx *s, const char *sys, const char *name, const char **var);
int ssp_unit_conv(sx *s, const char *file, xmlNodePtr n, const char *a, const char *b, double *f,
                  double *o);
xmlDocPtr ssp_read_xml(sx *s, const char *file);
xmlNodePtr ssp_enumerations(sx *s);
int ssp_read_units(sx *s, const char *file, xmlNodePtr units);
const char *ssp_sys_connector_unit(sx *s, const char *sys, const char *target);
int ssp_system_value(sx *s, const char *file, xmlNodePtr at, const char *sys, const char *target,
                     json_t *val, int *found);

/* ssp_pkg.c: documents referenced by components, unpacked archives (doc/ssp.md). */
char *ssp_abs_dir(const char *path);
void ssp_shown(const sx *s, const char *file, char *out, size_t n);
int ssp_unpack(sx *s, xmlNodePtr at, const char *path, const char **dir);
void ssp_unpacked_free(sx *s);
xmlNodePtr ssp_nested_system(sx *s, xmlNodePtr c, const char *src, int *package, char **dir);
int ssp_component_base(sx *s, xmlNodePtr at, const bnd *b, const char **dir);

/* ssp_params.c: every ssd:ParameterBinding into the components' "parameters"; outer systems
 * first, so an inner binding overrides. Returns 0, -1 refused, -2 out of memory. */
int ssp_bind_parameters(sx *s);
/* ssp_params.c: the Tempo annotation's keys merged into the document. */
int ssp_apply_tempo(sx *s, json_t *doc, json_t *tempo);

#endif
