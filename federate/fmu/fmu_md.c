/* modelDescription.xml decoder and checker (FMI 2.0 standard §2.2) with libxml2.
 * Serves doc/fmu.md. Every refusal names the line, the element and the reason.
 * Divisions: small helpers; attributes; ScalarVariable; ModelStructure; whole-file checks.
 * Read next: federate/fmu/fmu_load.c. */
#include "federate/fmu/fmu_md.h"
#include "federate/fmu/fmu_md_impl.h"

#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <libxml/parser.h>

/* ---- helpers ----------------------------------------------------------------------------- */

int md_fail(md_ctx *c, const xmlNode *n, const char *fmt, ...)
{
    char msg[400];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    if (c->errlen) {
        if (n)
            snprintf(c->err, c->errlen, "modelDescription.xml:%ld: <%s>: %s", (long)xmlGetLineNo(n),
                     (const char *)n->name, msg);
        else
            snprintf(c->err, c->errlen, "modelDescription.xml: %s", msg);
    }
    return -1;
}

int md_is_el(const xmlNode *n, const char *name)
{
    return n->type == XML_ELEMENT_NODE && strcmp((const char *)n->name, name) == 0;
}

char *md_dupstr(md_ctx *c, const char *s)
{
    if (!s) return NULL;
    char *d = strdup(s);
    if (!d) c->oom = 1;
    return d;
}

/* Attribute as a malloc'd string (NULL when absent or on OOM: check c->oom). */
char *md_attr(md_ctx *c, const xmlNode *n, const char *name)
{
    xmlChar *v = xmlGetProp(n, (const xmlChar *)name);
    if (!v) return NULL;
    char *d = md_dupstr(c, (const char *)v);
    xmlFree(v);
    return d;
}

/* Reads a boolean attribute ("true"/"false"; absent = def). */
int md_attr_bool(md_ctx *c, const xmlNode *n, const char *name, int def, int *out)
{
    char *v = md_attr(c, n, name);
    if (c->oom) return -2;
    if (!v) {
        *out = def;
        return 0;
    }
    int rc = 0;
    if (strcmp(v, "true") == 0 || strcmp(v, "1") == 0)
        *out = 1;
    else if (strcmp(v, "false") == 0 || strcmp(v, "0") == 0)
        *out = 0;
    else
        rc = md_fail(c, n, "attribute %s=\"%.40s\" is not a boolean", name, v);
    free(v);
    return rc;
}

/* Reads a finite double attribute; *present tells whether it exists. */
int md_attr_real(md_ctx *c, const xmlNode *n, const char *name, int *present, double *out)
{
    char *v = md_attr(c, n, name);
    if (c->oom) return -2;
    *present = v != NULL;
    if (!v) return 0;
    char *end;
    errno = 0;
    double d = strtod(v, &end);
    int rc = 0;
    if (end == v || *end != '\0' || errno == ERANGE || !isfinite(d))
        rc = md_fail(c, n, "attribute %s=\"%.40s\" is not a finite real number", name, v);
    else
        *out = d;
    free(v);
    return rc;
}

/* Reads an integer attribute within [lo, hi]. */
int md_attr_long(md_ctx *c, const xmlNode *n, const char *name, long lo, long hi, int *present,
                 long *out)
{
    char *v = md_attr(c, n, name);
    if (c->oom) return -2;
    *present = v != NULL;
    if (!v) return 0;
    char *end;
    errno = 0;
    long x = strtol(v, &end, 10);
    int rc = 0;
    if (end == v || *end != '\0' || errno == ERANGE || x < lo || x > hi)
        rc = md_fail(c, n, "attribute %s=\"%.40s\" is not an integer in [%ld, %ld]", name, v, lo,
                     hi);
    else
        *out = x;
    free(v);
    return rc;
}

/* Matches an attribute against a list of names; absent = def. */
int md_attr_enum(md_ctx *c, const xmlNode *n, const char *name, const char *const *names, int count,
                 int def, int *out)
{
    char *v = md_attr(c, n, name);
    if (c->oom) return -2;
    if (!v) {
        *out = def;
        return 0;
    }
    for (int i = 0; i < count; i++)
        if (strcmp(v, names[i]) == 0) {
            *out = i;
            free(v);
            return 0;
        }
    int rc = md_fail(c, n, "attribute %s=\"%.40s\" is not a known value", name, v);
    free(v);
    return rc;
}

static const char *const type_names[] = {"Real",    "Integer", "Boolean", "String", "Enumeration",
                                         "Float32", "Int8",    "UInt8",   "Int16",  "UInt16",
                                         "UInt32",  "Int64",   "UInt64",  "Binary", "Clock"};
static const char *const causality_names[] = {"parameter", "calculatedParameter", "input", "output",
                                              "local",     "independent"};
static const char *const variability_names[] = {"constant", "fixed", "tunable", "discrete",
                                                "continuous"};
static const char *const initial_names[] = {"none", "exact", "approx", "calculated"};

const char *fmu_md_type_name(fmu_vtype t)
{
    return type_names[t];
}
const char *fmu_md_type_name_of(const fmu_md *md, fmu_vtype t)
{
    if (md && md->fmi3 && t == FMU_T_REAL) return "Float64";
    if (md && md->fmi3 && t == FMU_T_INTEGER) return "Int32";
    return type_names[t];
}
const char *fmu_md_causality_name(fmu_causality x)
{
    return causality_names[x];
}
const char *fmu_md_variability_name(fmu_variability v)
{
    return variability_names[v];
}

const char *fmu_md_initial_name(fmu_initial i)
{
    return i == FMU_I_NONE ? "" : initial_names[i];
}

fmu_initial fmu_md_initial(const fmu_var *v)
{
    if (v->initial != FMU_I_NONE) return v->initial;
    switch (v->causality) {
    case FMU_C_PARAMETER:
        return FMU_I_EXACT;
    case FMU_C_CALCULATED_PARAMETER:
        return FMU_I_CALCULATED;
    case FMU_C_OUTPUT:
    case FMU_C_LOCAL:
        return v->variability == FMU_V_CONSTANT ? FMU_I_EXACT : FMU_I_CALCULATED;
    default:
        return FMU_I_NONE; /* input, independent */
    }
}

/* ---- capability elements ----------------------------------------------------------------- */

/* It names a file (the binary): keep it to a safe character set. */
int md_model_identifier(md_ctx *c, const xmlNode *n, fmu_caps *k)
{
    k->model_identifier = md_attr(c, n, "modelIdentifier");
    if (c->oom) return -2;
    if (!k->model_identifier || !k->model_identifier[0])
        return md_fail(c, n, "missing attribute modelIdentifier");
    for (const char *p = k->model_identifier; *p; p++)
        if (!((*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z') || (*p >= '0' && *p <= '9') ||
              *p == '_' || *p == '-' || *p == '.') ||
            (p == k->model_identifier && *p == '.'))
            return md_fail(c, n, "modelIdentifier \"%.40s\" is not a valid file name",
                           k->model_identifier);
    return 0;
}

static int parse_caps(md_ctx *c, const xmlNode *n, fmu_caps *k, int cs)
{
    int rc;
    k->present = 1;
    if ((rc = md_model_identifier(c, n, k))) return rc;
    if ((rc = md_attr_bool(c, n, "needsExecutionTool", 0, &k->needs_execution_tool)) ||
        (rc = md_attr_bool(c, n, "canBeInstantiatedOnlyOncePerProcess", 0,
                           &k->can_be_instantiated_only_once_per_process)) ||
        (rc = md_attr_bool(c, n, "canNotUseMemoryManagementFunctions", 0,
                           &k->can_not_use_memory_management_functions)) ||
        (rc = md_attr_bool(c, n, "canGetAndSetFMUstate", 0, &k->can_get_and_set_fmu_state)) ||
        (rc = md_attr_bool(c, n, "canSerializeFMUstate", 0, &k->can_serialize_fmu_state)) ||
        (rc = md_attr_bool(c, n, "providesDirectionalDerivative", 0,
                           &k->provides_directional_derivative)))
        return rc;
    if (!cs)
        return md_attr_bool(c, n, "completedIntegratorStepNotNeeded", 0,
                            &k->completed_integrator_step_not_needed);
    long order = 0;
    int present;
    if ((rc = md_attr_bool(c, n, "canHandleVariableCommunicationStepSize", 0,
                           &k->can_handle_variable_communication_step_size)) ||
        (rc = md_attr_bool(c, n, "canInterpolateInputs", 0, &k->can_interpolate_inputs)) ||
        (rc = md_attr_bool(c, n, "canRunAsynchronuously", 0, &k->can_run_asynchronuously)) ||
        (rc = md_attr_long(c, n, "maxOutputDerivativeOrder", 0, 100, &present, &order)))
        return rc;
    k->max_output_derivative_order = (int)order;
    return 0;
}

/* ---- ScalarVariable ---------------------------------------------------------------------- */

/* Standard §2.2.7, table of allowed causality x variability combinations. */
static int combination_allowed(fmu_causality ca, fmu_variability va)
{
    static const unsigned char ok[5][6] = {
        /* param calc input output local indep */
        {0, 0, 0, 1, 1, 0}, /* constant */
        {1, 1, 0, 0, 1, 0}, /* fixed */
        {1, 1, 0, 0, 1, 0}, /* tunable */
        {0, 0, 1, 1, 1, 0}, /* discrete */
        {0, 0, 1, 1, 1, 1}, /* continuous */
    };
    return ok[va][ca];
}

static int parse_start(md_ctx *c, const xmlNode *t, fmu_var *v)
{
    int rc, present = 0;
    switch (v->type) {
    case FMU_T_REAL:
        rc = md_attr_real(c, t, "start", &present, &v->start_real);
        break;
    case FMU_T_INTEGER:
    case FMU_T_ENUM:
        rc = md_attr_long(c, t, "start", INT_MIN, INT_MAX, &present, &v->start_int);
        break;
    case FMU_T_BOOLEAN: {
        char *s = md_attr(c, t, "start");
        if (c->oom) return -2;
        present = s != NULL;
        int b = 0;
        rc = md_attr_bool(c, t, "start", 0, &b);
        v->start_int = b;
        free(s);
        break;
    }
    default:
        v->start_str = md_attr(c, t, "start");
        if (c->oom) return -2;
        present = v->start_str != NULL;
        rc = 0;
        break;
    }
    v->has_start = present;
    return rc;
}

static int parse_var(md_ctx *c, const xmlNode *n, fmu_var *v, size_t n_vars)
{
    int rc, present = 0, x = 0;
    long l = 0;
    v->line = (int)xmlGetLineNo(n);
    v->name = md_attr(c, n, "name");
    v->description = md_attr(c, n, "description");
    if (c->oom) return -2;
    if (!v->name || !v->name[0]) return md_fail(c, n, "missing attribute name");
    if ((rc = md_attr_long(c, n, "valueReference", 0, (long)UINT_MAX, &present, &l))) return rc;
    if (!present) return md_fail(c, n, "variable \"%.80s\": missing valueReference", v->name);
    v->vr = (unsigned)l;
    if ((rc = md_attr_enum(c, n, "causality", causality_names, 6, FMU_C_LOCAL, &x))) return rc;
    v->causality = (fmu_causality)x;
    if ((rc = md_attr_enum(c, n, "variability", variability_names, 5, FMU_V_CONTINUOUS, &x)))
        return rc;
    v->variability = (fmu_variability)x;
    if ((rc = md_attr_enum(c, n, "initial", initial_names + 1, 3, -1, &x))) return rc;
    v->initial = (fmu_initial)(x + 1);

    const xmlNode *t = NULL;
    for (const xmlNode *ch = n->children; ch; ch = ch->next) {
        if (ch->type != XML_ELEMENT_NODE) continue;
        int k;
        for (k = 0; k < 5; k++)
            if (md_is_el(ch, type_names[k])) break;
        if (k == 5) continue; /* Annotations and the like */
        if (t) return md_fail(c, ch, "variable \"%.80s\" has more than one type element", v->name);
        t = ch;
        v->type = (fmu_vtype)k;
    }
    if (!t) return md_fail(c, n, "variable \"%.80s\" has no type element", v->name);
    v->declared_type = md_attr(c, t, "declaredType");
    if (c->oom) return -2;
    if ((rc = parse_start(c, t, v))) return rc;
    if (v->type == FMU_T_REAL) {
        if ((rc = md_attr_real(c, t, "min", &v->has_min, &v->min)) ||
            (rc = md_attr_real(c, t, "max", &v->has_max, &v->max)))
            return rc;
        v->unit = md_attr(c, t, "unit");
        if (c->oom) return -2;
    } else if (v->type == FMU_T_INTEGER || v->type == FMU_T_ENUM) {
        long lo = 0, hi = 0;
        if ((rc = md_attr_long(c, t, "min", INT_MIN, INT_MAX, &v->has_min, &lo)) ||
            (rc = md_attr_long(c, t, "max", INT_MIN, INT_MAX, &v->has_max, &hi)))
            return rc;
        v->min = (double)lo, v->max = (double)hi;
    }
    if (v->has_min && v->has_max && v->min > v->max)
        return md_fail(c, t, "variable \"%.80s\": min %g is above max %g", v->name, v->min, v->max);
    if (v->type == FMU_T_REAL) {
        if ((rc = md_attr_long(c, t, "derivative", 1, (long)n_vars, &present, &l))) return rc;
        v->derivative = present ? (int)l : 0;
    }

    /* Consistency rules of §2.2.7. */
    if (!combination_allowed(v->causality, v->variability))
        return md_fail(c, n,
                       "variable \"%.80s\": causality=\"%s\" with variability=\"%s\" is not "
                       "allowed by FMI 2.0",
                       v->name, causality_names[v->causality], variability_names[v->variability]);
    if (v->variability == FMU_V_CONTINUOUS && v->type != FMU_T_REAL)
        return md_fail(c, n, "variable \"%.80s\": only Real variables can be continuous (it is %s)",
                       v->name, type_names[v->type]);
    if ((v->causality == FMU_C_INPUT || v->causality == FMU_C_INDEPENDENT) &&
        v->initial != FMU_I_NONE)
        return md_fail(c, n, "variable \"%.80s\": %s variables must not have attribute initial",
                       v->name, causality_names[v->causality]);
    if (v->causality == FMU_C_PARAMETER && v->initial != FMU_I_NONE && v->initial != FMU_I_EXACT)
        return md_fail(c, n, "variable \"%.80s\": a parameter must have initial=\"exact\"",
                       v->name);
    int needs_start = v->causality == FMU_C_PARAMETER || v->causality == FMU_C_INPUT ||
                      v->variability == FMU_V_CONSTANT || v->initial == FMU_I_EXACT ||
                      v->initial == FMU_I_APPROX;
    if (needs_start && !v->has_start)
        return md_fail(c, t, "variable \"%.80s\" (%s, %s) needs a start value", v->name,
                       causality_names[v->causality], variability_names[v->variability]);
    if (v->has_start && (v->initial == FMU_I_CALCULATED || v->causality == FMU_C_INDEPENDENT ||
                         v->causality == FMU_C_CALCULATED_PARAMETER))
        return md_fail(c, t, "variable \"%.80s\" must not have a start value (it is calculated)",
                       v->name);
    return 0;
}

static int parse_vars(md_ctx *c, const xmlNode *mv)
{
    size_t n = 0;
    for (const xmlNode *ch = mv->children; ch; ch = ch->next)
        if (md_is_el(ch, "ScalarVariable") && ++n > MD_MAX_VARS)
            return md_fail(c, mv, "more than %d variables", MD_MAX_VARS);
    fmu_md *md = c->md;
    md->vars = calloc(n ? n : 1, sizeof *md->vars);
    if (!md->vars) return c->oom = 1, -2;
    for (const xmlNode *ch = mv->children; ch; ch = ch->next) {
        if (!md_is_el(ch, "ScalarVariable")) continue;
        int rc = parse_var(c, ch, &md->vars[md->n_vars++], n);
        if (rc) return rc;
    }
    return 0;
}

/* ---- ModelStructure ---------------------------------------------------------------------- */

static int parse_index_list(md_ctx *c, const xmlNode *u, const char *s, size_t *count, int **out)
{
    size_t n = 0;
    const char *p = s;
    int *a = NULL;
    for (;;) {
        while (*p == ' ' || *p == '\t' || *p == '\n' || *p == '\r')
            p++;
        if (!*p) break;
        char *end;
        errno = 0;
        long x = strtol(p, &end, 10);
        if (end == p || errno == ERANGE || x < 1 || x > (long)c->md->n_vars) {
            free(a);
            return md_fail(c, u, "dependencies: \"%.20s\" is not a variable index in [1, %zu]", p,
                           c->md->n_vars);
        }
        if (n >= MD_MAX_DEPS) {
            free(a);
            return md_fail(c, u, "more than %d dependencies", MD_MAX_DEPS);
        }
        if ((n & (n - 1)) == 0) { /* grow at powers of two */
            int *b = realloc(a, (n ? 2 * n : 1) * sizeof *a);
            if (!b) return free(a), c->oom = 1, -2;
            a = b;
        }
        a[n++] = (int)x;
        p = end;
    }
    *count = n;
    *out = a;
    return 0;
}

static size_t count_words(const char *s)
{
    size_t n = 0;
    int in = 0;
    for (; *s; s++) {
        int sp = *s == ' ' || *s == '\t' || *s == '\n' || *s == '\r';
        if (!sp && !in) n++;
        in = !sp;
    }
    return n;
}

static int parse_unknowns(md_ctx *c, const xmlNode *list, size_t *count, fmu_unknown **out)
{
    size_t n = 0;
    for (const xmlNode *ch = list->children; ch; ch = ch->next)
        if (md_is_el(ch, "Unknown")) n++;
    if (n > c->md->n_vars) return md_fail(c, list, "more Unknowns than variables");
    fmu_unknown *a = calloc(n ? n : 1, sizeof *a);
    if (!a) return c->oom = 1, -2;
    *out = a;
    *count = 0;
    for (const xmlNode *ch = list->children; ch; ch = ch->next) {
        if (!md_is_el(ch, "Unknown")) continue;
        fmu_unknown *u = &a[(*count)++];
        int rc, present;
        long idx;
        if ((rc = md_attr_long(c, ch, "index", 1, (long)c->md->n_vars, &present, &idx))) return rc;
        if (!present) return md_fail(c, ch, "missing attribute index");
        u->index = (int)idx;
        char *deps = md_attr(c, ch, "dependencies");
        char *kinds = md_attr(c, ch, "dependenciesKind");
        if (c->oom) return free(deps), free(kinds), -2;
        u->has_deps = deps != NULL;
        rc = deps ? parse_index_list(c, ch, deps, &u->n_deps, &u->deps) : 0;
        if (!rc && kinds && (!deps || count_words(kinds) != u->n_deps))
            rc = md_fail(c, ch, "dependenciesKind has %zu entries but dependencies has %zu",
                         count_words(kinds), u->n_deps);
        free(deps);
        free(kinds);
        if (rc) return rc;
    }
    return 0;
}

static int parse_structure(md_ctx *c, const xmlNode *ms)
{
    fmu_md *md = c->md;
    int rc;
    for (const xmlNode *ch = ms->children; ch; ch = ch->next) {
        if (md_is_el(ch, "Outputs")) {
            if (md->outputs) return md_fail(c, ch, "duplicate element");
            if ((rc = parse_unknowns(c, ch, &md->n_outputs, &md->outputs))) return rc;
            for (size_t i = 0; i < md->n_outputs; i++)
                if (md->vars[md->outputs[i].index - 1].causality != FMU_C_OUTPUT)
                    return md_fail(c, ch, "Unknown index=%d (\"%.80s\") is not an output variable",
                                   md->outputs[i].index, md->vars[md->outputs[i].index - 1].name);
        } else if (md_is_el(ch, "Derivatives")) {
            if (md->derivatives) return md_fail(c, ch, "duplicate element");
            if ((rc = parse_unknowns(c, ch, &md->n_derivatives, &md->derivatives))) return rc;
            for (size_t i = 0; i < md->n_derivatives; i++) {
                const fmu_var *v = &md->vars[md->derivatives[i].index - 1];
                if (v->type != FMU_T_REAL || !v->derivative)
                    return md_fail(c, ch,
                                   "Unknown index=%d (\"%.80s\") has no derivative attribute",
                                   md->derivatives[i].index, v->name);
            }
        } else if (md_is_el(ch, "InitialUnknowns")) {
            if (md->initial_unknowns) return md_fail(c, ch, "duplicate element");
            if ((rc = parse_unknowns(c, ch, &md->n_initial_unknowns, &md->initial_unknowns)))
                return rc;
        }
    }
    return 0;
}

/* ---- whole file -------------------------------------------------------------------------- */

static int parse_root_attrs(md_ctx *c, const xmlNode *root)
{
    fmu_md *md = c->md;
    md->fmi_version = md_attr(c, root, "fmiVersion");
    md->model_name = md_attr(c, root, "modelName");
    md->description = md_attr(c, root, "description");
    md->generation_tool = md_attr(c, root, "generationTool");
    if (c->oom) return -2;
    if (!md->fmi_version) return md_fail(c, root, "missing attribute fmiVersion");
    /* FMI 2.0 files say "2.0"; FMI 3.0 files "3.0" (patch releases keep the string; a
     * pre-release such as "3.0-beta.4" is not the standard and is refused). */
    md->fmi3 = strcmp(md->fmi_version, "3.0") == 0;
    if (strcmp(md->fmi_version, "2.0") != 0 && !md->fmi3)
        return md_fail(c, root, "unsupported fmiVersion \"%.20s\" (FMI 2.0 and 3.0 are supported)",
                       md->fmi_version);
    /* FMI 3.0 renamed the guid to instantiationToken. */
    md->guid = md_attr(c, root, md->fmi3 ? "instantiationToken" : "guid");
    if (c->oom) return -2;
    if (!md->model_name) return md_fail(c, root, "missing attribute modelName");
    if (!md->guid)
        return md_fail(c, root, "missing attribute %s", md->fmi3 ? "instantiationToken" : "guid");
    if (md->fmi3) return 0; /* event indicators are listed in the ModelStructure */
    int present, rc;
    long nz = 0;
    if ((rc =
             md_attr_long(c, root, "numberOfEventIndicators", 0, MD_MAX_INDICATORS, &present, &nz)))
        return rc;
    md->n_event_indicators = (int)nz;
    return present ? 0 : 1; /* 1: attribute absent (checked later for ME) */
}

static int parse_children(md_ctx *c, const xmlNode *root)
{
    fmu_md *md = c->md;
    const xmlNode *mv = NULL, *ms = NULL;
    int rc;
    for (const xmlNode *ch = root->children; ch; ch = ch->next) {
        if (ch->type != XML_ELEMENT_NODE) continue;
        if (md->fmi3 && (md_is_el(ch, "ModelExchange") || md_is_el(ch, "CoSimulation") ||
                         md_is_el(ch, "ScheduledExecution") || md_is_el(ch, "TypeDefinitions")))
            continue; /* fmu_md3_children */
        if (md_is_el(ch, "ModelExchange") || md_is_el(ch, "CoSimulation")) {
            int cs = md_is_el(ch, "CoSimulation");
            fmu_caps *k = cs ? &md->cs : &md->me;
            if (k->present) return md_fail(c, ch, "duplicate element");
            if ((rc = parse_caps(c, ch, k, cs))) return rc;
        } else if (md_is_el(ch, "DefaultExperiment")) {
            if ((rc = md_attr_real(c, ch, "startTime", &md->has_start, &md->start_time)) ||
                (rc = md_attr_real(c, ch, "stopTime", &md->has_stop, &md->stop_time)) ||
                (rc = md_attr_real(c, ch, "tolerance", &md->has_tolerance, &md->tolerance)) ||
                (rc = md_attr_real(c, ch, "stepSize", &md->has_step, &md->step_size)))
                return rc;
            if (md->has_tolerance && !(md->tolerance > 0))
                return md_fail(c, ch, "tolerance must be positive");
            if (md->has_step && !(md->step_size > 0))
                return md_fail(c, ch, "stepSize must be positive");
            if (md->has_start && md->has_stop && !(md->stop_time >= md->start_time))
                return md_fail(c, ch, "stopTime is before startTime");
        } else if (md_is_el(ch, "LogCategories") || md_is_el(ch, "TypeDefinitions")) {
            int logc = md_is_el(ch, "LogCategories");
            const char *elname = logc ? "Category" : "SimpleType";
            if (logc ? md->log_categories != NULL : md->type_names != NULL)
                return md_fail(c, ch, "duplicate element");
            size_t n = 0;
            for (const xmlNode *e = ch->children; e; e = e->next)
                n += md_is_el(e, elname);
            char **names = calloc(n ? n : 1, sizeof *names);
            if (!names) return c->oom = 1, -2;
            if (logc)
                md->log_categories = names;
            else
                md->type_names = names;
            size_t *cnt = logc ? &md->n_log_categories : &md->n_types;
            for (const xmlNode *e = ch->children; e; e = e->next) {
                if (!md_is_el(e, elname)) continue;
                names[*cnt] = md_attr(c, e, "name");
                if (c->oom) return -2;
                if (!names[(*cnt)++]) return md_fail(c, e, "missing attribute name");
            }
        } else if (md_is_el(ch, "ModelVariables")) {
            if (mv) return md_fail(c, ch, "duplicate element");
            mv = ch;
        } else if (md_is_el(ch, "ModelStructure")) {
            if (ms) return md_fail(c, ch, "duplicate element");
            ms = ch;
        }
    }
    if (!mv) return md_fail(c, root, "missing element ModelVariables");
    if (!ms) return md_fail(c, root, "missing element ModelStructure");
    if (md->fmi3) return fmu_md3_children(c, root);
    if ((rc = parse_vars(c, mv))) return rc;
    return parse_structure(c, ms);
}

static int name_cmp(const void *a, const void *b)
{
    const fmu_var *const *x = a, *const *y = b;
    return strcmp((*x)->name, (*y)->name);
}

/* Order of (type, valueReference), then of position: the members of an alias set adjacent. */
static int vr_cmp(const void *a, const void *b)
{
    const fmu_var *const *x = a, *const *y = b;
    if ((*x)->type != (*y)->type) return (*x)->type < (*y)->type ? -1 : 1;
    if ((*x)->vr != (*y)->vr) return (*x)->vr < (*y)->vr ? -1 : 1;
    return (*x < *y) ? -1 : (*x > *y);
}

/* Variables of one type that share a valueReference are aliases: one value (FMI 2.0 §2.2.7).
 * At most one member of an alias set that is not a constant may carry a start value, so two
 * settable variables (parameters and inputs must have a start) or two initial values can
 * never claim one value reference: such a clash is refused, naming both. sorted holds every
 * variable in vr_cmp order. */
static int check_aliases(md_ctx *c, const fmu_var **sorted, size_t n)
{
    for (size_t i = 0; i < n;) {
        size_t j = i + 1;
        while (j < n && sorted[j]->type == sorted[i]->type && sorted[j]->vr == sorted[i]->vr)
            j++;
        const fmu_var *first = NULL;
        for (size_t k = i; k < j; k++) {
            const fmu_var *v = sorted[k];
            if (!v->has_start || v->variability == FMU_V_CONSTANT) continue;
            if (!first) {
                first = v;
                continue;
            }
            snprintf(c->err, c->errlen,
                     "modelDescription.xml:%d: <ScalarVariable>: variable \"%.80s\" (%s) has "
                     "valueReference %u, as \"%.80s\" (line %d, %s): both have a start value, "
                     "and of variables sharing a valueReference (aliases) at most one may "
                     "(FMI 2.0 §2.2.7)",
                     v->line, v->name, fmu_md_causality_name(v->causality), v->vr, first->name,
                     first->line, fmu_md_causality_name(first->causality));
            return -1;
        }
        i = j;
    }
    return 0;
}

/* FMI 3.0: order of valueReference whatever the type, then of position. */
static int vr3_cmp(const void *a, const void *b)
{
    const fmu_var *const *x = a, *const *y = b;
    if ((*x)->vr != (*y)->vr) return (*x)->vr < (*y)->vr ? -1 : 1;
    return (*x < *y) ? -1 : (*x > *y);
}

/* FMI 3.0 has no aliases by value reference: each variable has its own (§2.4.7); the
 * elements of one array share it. sorted holds every variable in vr3_cmp order. */
static int check_unique_vrs(md_ctx *c, const fmu_var **sorted, size_t n)
{
    for (size_t i = 1; i < n; i++) {
        const fmu_var *a = sorted[i - 1], *b = sorted[i];
        if (a->vr != b->vr) continue;
        int same_array =
            a->n_elems && a->n_elems == b->n_elems && (size_t)(b - a) == b->elem - a->elem;
        if (same_array) continue;
        snprintf(c->err, c->errlen,
                 "modelDescription.xml:%d: <%s>: variable \"%.80s\" has valueReference %u, as "
                 "\"%.80s\" (line %d): FMI 3.0 value references are unique",
                 b->line, fmu_md_type_name_of(c->md, b->type), b->name, b->vr, a->name, a->line);
        return -1;
    }
    return 0;
}

/* Checks across variables: unique names, value references, declared types exist, derivative
 * relations. */
static int check_vars(md_ctx *c)
{
    fmu_md *md = c->md;
    const fmu_var **sorted = malloc((md->n_vars ? md->n_vars : 1) * sizeof *sorted);
    if (!sorted) return c->oom = 1, -2;
    for (size_t i = 0; i < md->n_vars; i++)
        sorted[i] = &md->vars[i];
    qsort(sorted, md->n_vars, sizeof *sorted, name_cmp);
    for (size_t i = 1; i < md->n_vars; i++)
        if (strcmp(sorted[i]->name, sorted[i - 1]->name) == 0) {
            int line =
                sorted[i]->line > sorted[i - 1]->line ? sorted[i]->line : sorted[i - 1]->line;
            snprintf(c->err, c->errlen,
                     "modelDescription.xml:%d: <ScalarVariable>: duplicate name \"%.80s\"", line,
                     sorted[i]->name);
            free(sorted);
            return -1;
        }
    qsort(sorted, md->n_vars, sizeof *sorted, md->fmi3 ? vr3_cmp : vr_cmp);
    int rc =
        md->fmi3 ? check_unique_vrs(c, sorted, md->n_vars) : check_aliases(c, sorted, md->n_vars);
    free(sorted);
    if (rc) return rc;
    for (size_t i = 0; i < md->n_vars; i++) {
        const fmu_var *v = &md->vars[i];
        if (v->declared_type) {
            size_t k;
            for (k = 0; k < md->n_types && strcmp(md->type_names[k], v->declared_type); k++) {
            }
            if (k == md->n_types) {
                snprintf(c->err, c->errlen,
                         "modelDescription.xml:%d: <ScalarVariable>: variable \"%.80s\": "
                         "declaredType \"%.40s\" is not defined in TypeDefinitions",
                         v->line, v->name, v->declared_type);
                return -1;
            }
        }
        if (v->derivative) {
            const fmu_var *s = &md->vars[v->derivative - 1];
            if (s->type != FMU_T_REAL || (size_t)v->derivative - 1 == i) {
                snprintf(c->err, c->errlen,
                         "modelDescription.xml:%d: <ScalarVariable>: variable \"%.80s\": "
                         "derivative=\"%d\" must name another Real variable",
                         v->line, v->name, v->derivative);
                return -1;
            }
        }
    }
    return 0;
}

/* Outputs must list every output variable; states come from the Derivatives list. */
static int check_structure(md_ctx *c)
{
    fmu_md *md = c->md;
    for (size_t i = 0; i < md->n_vars; i++) {
        if (md->vars[i].causality != FMU_C_OUTPUT) continue;
        size_t k;
        for (k = 0; k < md->n_outputs && (size_t)md->outputs[k].index != i + 1; k++) {
        }
        if (k == md->n_outputs) {
            snprintf(c->err, c->errlen,
                     "modelDescription.xml:%d: <ScalarVariable>: output \"%.80s\" (index %zu) "
                     "is not listed in ModelStructure/Outputs",
                     md->vars[i].line, md->vars[i].name, i + 1);
            return -1;
        }
    }
    md->n_states = md->n_derivatives;
    md->state_index = malloc((md->n_states ? md->n_states : 1) * sizeof *md->state_index);
    if (!md->state_index) return c->oom = 1, -2;
    for (size_t i = 0; i < md->n_states; i++)
        md->state_index[i] = md->vars[md->derivatives[i].index - 1].derivative - 1;
    return 0;
}

/* Handles above every value reference (fmu_md_wire_vr): variable k's is elem_vr_base + k,
 * when they all fit in 32 bits. */
static void set_handles(fmu_md *md)
{
    unsigned top = 0;
    int arrays = 0;
    for (size_t i = 0; i < md->n_vars; i++) {
        top = md->vars[i].vr > top ? md->vars[i].vr : top;
        arrays |= md->vars[i].n_elems != 0;
    }
    md->elem_vr_base = arrays && (unsigned long long)top + 1 + md->n_vars <= UINT_MAX ? top + 1 : 0;
}

static void silent_error(void *ctx, const char *msg, ...)
{
    (void)ctx, (void)msg;
}

int fmu_md_parse(const char *buf, size_t len, fmu_md **out, char *err, size_t errlen)
{
    return fmu_md_parse_sized(buf, len, NULL, 0, out, err, errlen);
}

int fmu_md_parse_sized(const char *buf, size_t len, const fmu_md_size *sizes, size_t n,
                       fmu_md **out, char *err, size_t errlen)
{
    *out = NULL;
    if (errlen) err[0] = '\0';
    md_ctx c = {.err = err, .errlen = errlen, .sizes = sizes, .n_sizes = n};
    if (len > FMU_MD_MAX_BYTES || len > INT_MAX) {
        snprintf(err, errlen, "modelDescription.xml: larger than %u bytes", FMU_MD_MAX_BYTES);
        return -1;
    }
    /* Some libxml2 errors (encoding conversion) bypass XML_PARSE_NOERROR and go to the
     * generic handler: silence it for this call and put the caller's back afterwards. */
    xmlGenericErrorFunc saved_fn = xmlGenericError;
    void *saved_ctx = xmlGenericErrorContext;
    xmlSetGenericErrorFunc(NULL, silent_error);
    xmlParserCtxtPtr px = xmlNewParserCtxt();
    /* NONET: never fetch anything; NOERROR/NOWARNING: no stderr noise. No NOENT: entities
     * are not substituted, so no external file is ever read. */
    xmlDocPtr doc =
        px ? xmlCtxtReadMemory(px, buf, (int)len, "modelDescription.xml", NULL,
                               XML_PARSE_NONET | XML_PARSE_NOERROR | XML_PARSE_NOWARNING)
           : NULL;
    xmlSetGenericErrorFunc(saved_ctx, saved_fn);
    if (!px) return snprintf(err, errlen, "modelDescription.xml: out of memory"), -2;
    if (!doc) {
        const xmlError *e = xmlCtxtGetLastError(px);
        char msg[200] = "not well-formed XML";
        if (e && e->message) {
            snprintf(msg, sizeof msg, "%s", e->message);
            size_t l = strlen(msg);
            while (l && (msg[l - 1] == '\n' || msg[l - 1] == ' '))
                msg[--l] = '\0';
        }
        snprintf(err, errlen, "modelDescription.xml:%d: malformed XML: %s", e ? e->line : 0, msg);
        xmlFreeParserCtxt(px);
        return -1;
    }
    xmlFreeParserCtxt(px);

    int rc = -2;
    c.md = calloc(1, sizeof *c.md);
    if (!c.md) goto fail;
    const xmlNode *root = xmlDocGetRootElement(doc);
    if (!root || !md_is_el(root, "fmiModelDescription")) {
        rc = md_fail(&c, root, "root element is not fmiModelDescription");
        goto fail;
    }
    int nz_absent = 0;
    rc = parse_root_attrs(&c, root);
    if (rc == 1) nz_absent = 1, rc = 0;
    if (rc || (rc = parse_children(&c, root)) || (rc = check_vars(&c)) ||
        (rc = check_structure(&c)))
        goto fail;
    set_handles(c.md);
    if (!c.md->me.present && !c.md->cs.present) {
        rc = md_fail(&c, root, "neither ModelExchange nor CoSimulation is declared");
        goto fail;
    }
    if (c.md->me.present && nz_absent) {
        rc = md_fail(&c, root, "numberOfEventIndicators is missing (required for ModelExchange)");
        goto fail;
    }
    xmlFreeDoc(doc);
    *out = c.md;
    return 0;
fail:
    if (c.oom || rc == -2) {
        snprintf(err, errlen, "modelDescription.xml: out of memory");
        rc = -2;
    }
    xmlFreeDoc(doc);
    fmu_md_free(c.md);
    return rc;
}

static void free_unknowns(fmu_unknown *u, size_t n)
{
    if (!u) return;
    for (size_t i = 0; i < n; i++)
        free(u[i].deps);
    free(u);
}

void fmu_md_free(fmu_md *md)
{
    if (!md) return;
    free(md->fmi_version);
    free(md->model_name);
    free(md->guid);
    free(md->description);
    free(md->generation_tool);
    free(md->me.model_identifier);
    free(md->cs.model_identifier);
    for (size_t i = 0; i < md->n_log_categories; i++)
        free(md->log_categories[i]);
    free(md->log_categories);
    for (size_t i = 0; i < md->n_types; i++)
        free(md->type_names[i]);
    free(md->type_names);
    for (size_t i = 0; i < md->n_vars; i++) {
        free(md->vars[i].name);
        free(md->vars[i].description);
        free(md->vars[i].declared_type);
        free(md->vars[i].start_str);
        free(md->vars[i].unit);
    }
    free(md->clocks);
    free(md->vars);
    free_unknowns(md->outputs, md->n_outputs);
    free_unknowns(md->derivatives, md->n_derivatives);
    free_unknowns(md->initial_unknowns, md->n_initial_unknowns);
    free(md->state_index);
    free(md);
}

long fmu_md_find(const fmu_md *md, const char *name)
{
    for (size_t i = 0; i < md->n_vars; i++)
        if (strcmp(md->vars[i].name, name) == 0) return (long)i;
    return -1;
}

long fmu_md_find_vr(const fmu_md *md, fmu_vtype type, unsigned vr)
{
    for (size_t i = 0; i < md->n_vars; i++)
        if (md->vars[i].type == type && md->vars[i].vr == vr) return (long)i;
    return -1;
}

int fmu_md_wire_vr(const fmu_md *md, long k, unsigned *vr)
{
    if (!md->vars[k].n_elems) return *vr = md->vars[k].vr, 0;
    if (!md->elem_vr_base) return -1;
    *vr = md->elem_vr_base + (unsigned)k;
    return 0;
}

long fmu_md_elem_of_vr(const fmu_md *md, unsigned vr)
{
    if (!md->elem_vr_base || vr < md->elem_vr_base || vr - md->elem_vr_base >= md->n_vars)
        return -1;
    long k = (long)(vr - md->elem_vr_base);
    return md->vars[k].n_elems ? k : -1;
}

long fmu_md_find_array(const fmu_md *md, const char *name)
{
    size_t l = strlen(name);
    for (size_t i = 0; md->fmi3 && i < md->n_vars; i++)
        if (md->vars[i].n_elems && !md->vars[i].elem && !strncmp(md->vars[i].name, name, l) &&
            md->vars[i].name[l] == '[')
            return (long)i;
    return -1;
}

long fmu_md_find_any_vr(const fmu_md *md, unsigned vr)
{
    for (size_t i = 0; i < md->n_vars; i++)
        if (md->vars[i].vr == vr) return (long)i;
    return -1;
}
