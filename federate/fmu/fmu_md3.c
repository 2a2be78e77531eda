/* modelDescription.xml of FMI 3.0 (standard §2.4): the capability elements, the type
 * definitions, the typed variables with their dimensions (each array expanded into one fmu_var
 * per element, named "v[1]", "v[2,3]"), clocks, and the ModelStructure (Output,
 * ContinuousStateDerivative, InitialUnknown, EventIndicator), mapped onto the fmu_md shape of
 * FMI 2.0 so that every user of fmu_md reads both versions alike. Serves doc/fmu.md.
 * Divisions: capabilities; dimensions; one variable; the variables; structure.
 * Read next: federate/fmu/fmu_v3.c (how such an FMU is called). */
#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "federate/fmu/fmu_md.h"
#include "federate/fmu/fmu_md_impl.h"

#define MD3_MAX_DIMS 16 /* dimensions of one array */

/* Element names of the variable types, indexed by fmu_vtype. */
static const char *const el_names[FMU_T_NTYPES] = {
    "Float64", "Int32",  "Boolean", "String", "Enumeration", "Float32", "Int8", "UInt8",
    "Int16",   "UInt16", "UInt32",  "Int64",  "UInt64",      "Binary",  "Clock"};
static const char *const causality3[] = {
    "parameter",   "calculatedParameter", "input", "output", "local",
    "independent", "structuralParameter"};
static const char *const variability3[] = {"constant", "fixed", "tunable", "discrete",
                                           "continuous"};
static const char *const initial3[] = {"exact", "approx", "calculated"};
static const char *const clock_kinds[] = {"constant", "fixed",     "tunable",
                                          "changing", "countdown", "triggered"};

/* ---- capabilities ------------------------------------------------------------------------- */

static int parse_caps3(md_ctx *c, const xmlNode *n, fmu_caps *k, int cs)
{
    int rc, present;
    k->present = 1;
    if ((rc = md_model_identifier(c, n, k))) return rc;
    /* FMI 3.0 spells FMUState with a capital S and directional derivatives in the plural. */
    if ((rc = md_attr_bool(c, n, "needsExecutionTool", 0, &k->needs_execution_tool)) ||
        (rc = md_attr_bool(c, n, "canBeInstantiatedOnlyOncePerProcess", 0,
                           &k->can_be_instantiated_only_once_per_process)) ||
        (rc = md_attr_bool(c, n, "canGetAndSetFMUState", 0, &k->can_get_and_set_fmu_state)) ||
        (rc = md_attr_bool(c, n, "canSerializeFMUState", 0, &k->can_serialize_fmu_state)) ||
        (rc = md_attr_bool(c, n, "providesDirectionalDerivatives", 0,
                           &k->provides_directional_derivative)) ||
        (rc = md_attr_bool(c, n, "providesEvaluateDiscreteStates", 0,
                           &k->provides_evaluate_discrete_states)))
        return rc;
    if (!cs) {
        int needs = 0;
        rc = md_attr_bool(c, n, "needsCompletedIntegratorStep", 0, &needs);
        k->completed_integrator_step_not_needed = !needs;
        return rc;
    }
    long order = 0;
    if ((rc = md_attr_bool(c, n, "canHandleVariableCommunicationStepSize", 0,
                           &k->can_handle_variable_communication_step_size)) ||
        (rc = md_attr_long(c, n, "maxOutputDerivativeOrder", 0, 100, &present, &order)) ||
        (rc = md_attr_bool(c, n, "hasEventMode", 0, &k->has_event_mode)) ||
        (rc = md_attr_bool(c, n, "providesIntermediateUpdate", 0,
                           &k->provides_intermediate_update)) ||
        (rc = md_attr_bool(c, n, "canReturnEarlyAfterIntermediateUpdate", 0,
                           &k->can_return_early)) ||
        (rc = md_attr_real(c, n, "fixedInternalStepSize", &k->has_fixed_internal_step,
                           &k->fixed_internal_step)))
        return rc;
    k->max_output_derivative_order = (int)order;
    /* FMI 3.0 has no input derivatives (fmi2SetRealInputDerivatives is gone). */
    k->can_interpolate_inputs = 0;
    return 0;
}

/* ---- dimensions --------------------------------------------------------------------------- */

static int type_of(const xmlNode *n)
{
    for (int k = 0; k < FMU_T_NTYPES; k++)
        if (md_is_el(n, el_names[k])) return k;
    return -1;
}

/* The start value of the integer structural parameter (or constant) with value reference vr,
 * which sizes a dimension; with sized, the value fmu_md_parse_sized was given for it first. */
static int dim_from_vr(md_ctx *c, const xmlNode *mv, const xmlNode *dim, unsigned long vr,
                       int sized, unsigned long *size)
{
    for (size_t i = 0; sized && i < c->n_sizes; i++)
        if (c->sizes[i].vr == vr) {
            if (c->sizes[i].value > MD_MAX_VARS)
                return md_fail(c, dim, "valueReference=\"%lu\" is set to %lu, above %d", vr,
                               c->sizes[i].value, MD_MAX_VARS);
            *size = c->sizes[i].value;
            return 0;
        }
    for (const xmlNode *n = mv->children; n; n = n->next) {
        /* A file of many arrays sized by many structural parameters must not cost n^2. */
        if (++c->dim_work > MD_MAX_DIM_WORK)
            return md_fail(c, dim, "too many dimensions given by valueReference");
        int t = n->type == XML_ELEMENT_NODE ? type_of(n) : -1;
        if (t < 0) continue;
        long x = -1;
        int present, rc;
        if ((rc = md_attr_long(c, n, "valueReference", 0, (long)UINT_MAX, &present, &x))) return rc;
        if (!present || (unsigned long)x != vr) continue;
        long v = 0;
        if ((rc = md_attr_long(c, n, "start", 0, MD_MAX_VARS, &present, &v))) return rc;
        if (!present)
            return md_fail(c, dim, "valueReference=\"%lu\" names a variable without a start", vr);
        *size = (unsigned long)v;
        return 0;
    }
    return md_fail(c, dim, "valueReference=\"%lu\" names no variable", vr);
}

/* Reads the <Dimension> children of variable n: their sizes into dims, their count into *nd,
 * and the number of elements into *count (1 for a scalar); sized: as dim_from_vr. */
static int parse_dims(md_ctx *c, const xmlNode *mv, const xmlNode *n, int sized,
                      unsigned long dims[], int *nd, size_t *count)
{
    *nd = 0;
    *count = 1;
    for (const xmlNode *d = n->children; d; d = d->next) {
        if (!md_is_el(d, "Dimension")) continue;
        if (*nd == MD3_MAX_DIMS) return md_fail(c, d, "more than %d dimensions", MD3_MAX_DIMS);
        int has_start, has_vr, rc;
        long start = 0, vr = 0;
        if ((rc = md_attr_long(c, d, "start", 0, MD_MAX_VARS, &has_start, &start)) ||
            (rc = md_attr_long(c, d, "valueReference", 0, (long)UINT_MAX, &has_vr, &vr)))
            return rc;
        unsigned long size = (unsigned long)start;
        if (has_start == has_vr)
            return md_fail(c, d, "a Dimension needs exactly one of start and valueReference");
        if (has_vr && (rc = dim_from_vr(c, mv, d, (unsigned long)vr, sized, &size))) return rc;
        if (size == 0)
            return md_fail(c, d, "a dimension of size 0 is not supported%s",
                           has_vr ? " (an empty array: its structural parameter is 0)" : "");
        dims[(*nd)++] = size;
        if (*count > MD_MAX_VARS / size) return md_fail(c, n, "more than %d elements", MD_MAX_VARS);
        *count *= size;
    }
    return 0;
}

/* ---- one variable ------------------------------------------------------------------------- */

/* The next whitespace-separated token at *pos, copied, *pos moved past it (NULL at the end
 * or on OOM: check c->oom). One pass over a start list for all its elements. */
static char *next_token(md_ctx *c, const char **pos)
{
    const char *s = *pos;
    while (*s == ' ' || *s == '\t' || *s == '\n' || *s == '\r')
        s++;
    if (!*s) return NULL;
    size_t l = strcspn(s, " \t\n\r");
    char *t = malloc(l + 1);
    if (!t) return c->oom = 1, NULL;
    memcpy(t, s, l);
    t[l] = '\0';
    *pos = s + l;
    return t;
}

static size_t count_tokens(const char *s)
{
    size_t n = 0;
    for (int in = 0; *s; s++) {
        int sp = *s == ' ' || *s == '\t' || *s == '\n' || *s == '\r';
        n += !sp && !in;
        in = !sp;
    }
    return n;
}

/* Where the start values of a variable's elements come from, walked once: the start list (one
 * value for every element, or a single one for all) or, for String and Binary, the <Start
 * value=...> children (likewise). */
typedef struct {
    const char *list, *pos;   /* the start attribute, NULL when absent; the next token */
    size_t n_tok;             /* tokens in list */
    const xmlNode *first, *s; /* the first <Start> child; the next one */
    size_t n_start;           /* <Start> children */
} start_walk;

static void walk_init(start_walk *w, const xmlNode *n, const char *list)
{
    *w = (start_walk){.list = list, .pos = list, .n_tok = list ? count_tokens(list) : 0};
    for (const xmlNode *s = n->children; s; s = s->next)
        if (md_is_el(s, "Start")) {
            if (!w->first) w->first = w->s = s;
            w->n_start++;
        }
}

/* Element e's start value (e counts up by one from 0 between calls). */
static int element_start(md_ctx *c, const xmlNode *n, fmu_var *v, start_walk *w, size_t e)
{
    if (v->type == FMU_T_STRING || v->type == FMU_T_BINARY) {
        const xmlNode *pick = w->n_start == 1 ? w->first : w->s;
        if (w->s)
            for (w->s = w->s->next; w->s && !md_is_el(w->s, "Start"); w->s = w->s->next) {
            }
        if (!pick) return 0;
        v->start_str = md_attr(c, pick, "value");
        if (c->oom) return -2;
        if (!v->start_str) return md_fail(c, pick, "missing attribute value");
        v->has_start = 1;
        if (v->type == FMU_T_BINARY) {
            size_t l = strlen(v->start_str);
            if (l % 2 || strspn(v->start_str, "0123456789abcdefABCDEF") != l)
                return md_fail(c, pick, "variable \"%.80s\": start \"%.40s\" is not hexadecimal",
                               v->name, v->start_str);
        }
        return 0;
    }
    if (!w->list) return 0;
    const char *one = w->list;
    char *t = w->n_tok == 1 ? next_token(c, &one) : next_token(c, &w->pos);
    if (c->oom) return -2;
    if (!t)
        return md_fail(c, n, "variable \"%.80s\": start has no value for element %zu", v->name,
                       e + 1);
    v->start_str = t;
    v->has_start = 1;
    char *end;
    errno = 0;
    if (v->type == FMU_T_BOOLEAN) {
        if (!strcmp(t, "true") || !strcmp(t, "1"))
            v->start_int = 1;
        else if (!strcmp(t, "false") || !strcmp(t, "0"))
            v->start_int = 0;
        else
            return md_fail(c, n, "variable \"%.80s\": start \"%.40s\" is not a boolean", v->name,
                           t);
    } else if (v->type == FMU_T_REAL || v->type == FMU_T_FLOAT32) {
        v->start_real = strtod(t, &end);
        if (end == t || *end || !isfinite(v->start_real))
            return md_fail(c, n, "variable \"%.80s\": start \"%.40s\" is not a finite number",
                           v->name, t);
    } else if (v->type == FMU_T_UINT64) {
        unsigned long long u = strtoull(t, &end, 10);
        if (end == t || *end || errno == ERANGE || t[0] == '-')
            return md_fail(c, n, "variable \"%.80s\": start \"%.40s\" is not a UInt64", v->name, t);
        v->start_int = (long)(u > LONG_MAX ? LONG_MAX : u);
        v->start_real = (double)u;
    } else if (v->type != FMU_T_CLOCK) {
        v->start_int = strtol(t, &end, 10);
        if (end == t || *end || errno == ERANGE)
            return md_fail(c, n, "variable \"%.80s\": start \"%.40s\" is not an integer", v->name,
                           t);
        v->start_real = (double)v->start_int;
    }
    return 0;
}

/* An array resized by fmu_md_parse_sized keeps the start values of the description where
 * they apply: element (i, j, ...) takes the start of the element with the same indices at the
 * description's sizes (a 3 x 3 identity matrix becomes the 2 x 2 identity), and an element
 * beyond those sizes has none. *at receives where each of the ocount starts is (a token of
 * the list, or a <Start> child), so that each element finds its own in O(1). */
static int resized_starts(md_ctx *c, const start_walk *w, size_t ocount, const void ***at)
{
    *at = calloc(ocount ? ocount : 1, sizeof **at);
    if (!*at) return c->oom = 1, -2;
    const char *p = w->list;
    for (size_t k = 0; p && k < ocount && k < w->n_tok; k++) {
        while (*p == ' ' || *p == '\t' || *p == '\n' || *p == '\r')
            p++;
        (*at)[k] = p;
        p += strcspn(p, " \t\n\r");
    }
    size_t k = 0;
    for (const xmlNode *s = w->first; s && k < ocount; s = s->next)
        if (md_is_el(s, "Start")) (*at)[k++] = s;
    return 0;
}

/* A structural parameter given another value (fmu_md_parse_sized) starts at that value. */
static int sized_start(md_ctx *c, fmu_var *v)
{
    for (size_t i = 0; i < c->n_sizes; i++) {
        if (c->sizes[i].vr != v->vr) continue;
        char text[24];
        snprintf(text, sizeof text, "%lu", c->sizes[i].value);
        free(v->start_str);
        if (!(v->start_str = md_dupstr(c, text))) return -2;
        v->has_start = 1;
        v->start_int = (long)c->sizes[i].value;
        v->start_real = (double)c->sizes[i].value;
    }
    return 0;
}

/* Points the walk at element e's start (resized_starts); 0 when the element has none. */
static int resized_walk(start_walk *w, const void **at, const unsigned long dims[],
                        const unsigned long odims[], int nd, size_t e, size_t ocount)
{
    size_t f = 0, stride = 1;
    for (int d = nd - 1; d >= 0; d--) {
        size_t i = e % dims[d];
        e /= dims[d];
        if (i >= odims[d]) return 0;
        f += i * stride;
        stride *= odims[d];
    }
    if (f >= ocount) return 0;
    if (w->n_tok == 1 || w->n_start == 1) return 1; /* one value for all */
    if (!at[f]) return 0;
    if (w->list)
        w->pos = at[f];
    else
        w->s = at[f];
    return 1;
}

/* A declared type's unit, min and max where the variable gives none of its own (FMI 3.0:
 * a variable's attributes override its type's): the <TYPEType name=declaredType> of
 * TypeDefinitions (Float64Type for a Float64, ...). */
static int inherit_type(md_ctx *c, const xmlNode *n, fmu_var *v)
{
    char el[32];
    snprintf(el, sizeof el, "%sType", el_names[v->type]);
    for (const xmlNode *t = c->typedefs ? c->typedefs->children : NULL; t; t = t->next) {
        if (++c->dim_work > MD_MAX_DIM_WORK) /* many variables of many types: bounded */
            return md_fail(c, n, "too many declared types to look up");
        if (!md_is_el(t, el)) continue;
        char *tn = md_attr(c, t, "name");
        if (c->oom) return -2;
        int match = tn && !strcmp(tn, v->declared_type);
        free(tn);
        if (!match) continue;
        int rc, has;
        double x;
        if ((v->type == FMU_T_REAL || v->type == FMU_T_FLOAT32) && !v->unit &&
            !(v->unit = md_attr(c, t, "unit")) && c->oom)
            return -2;
        if (v->type == FMU_T_BOOLEAN || v->type == FMU_T_STRING || v->type == FMU_T_BINARY ||
            v->type == FMU_T_CLOCK)
            return 0;
        if ((rc = md_attr_real(c, t, "min", &has, &x))) return rc;
        if (has && !v->has_min) v->has_min = 1, v->min = x;
        if ((rc = md_attr_real(c, t, "max", &has, &x))) return rc;
        if (has && !v->has_max) v->has_max = 1, v->max = x;
        if (v->has_min && v->has_max && v->min > v->max)
            return md_fail(c, n, "min %g is above max %g (with declaredType \"%.80s\")", v->min,
                           v->max, v->declared_type);
        return 0;
    }
    return 0;
}

/* The attributes every element of variable n shares (name and start excepted). */
static int var_attrs(md_ctx *c, const xmlNode *n, fmu_var *v, int type)
{
    int rc, present = 0, x = 0;
    long l = 0;
    v->type = (fmu_vtype)type;
    v->line = (int)xmlGetLineNo(n);
    v->description = md_attr(c, n, "description");
    v->declared_type = md_attr(c, n, "declaredType");
    if (type == FMU_T_REAL || type == FMU_T_FLOAT32) v->unit = md_attr(c, n, "unit");
    if (c->oom) return -2;
    if ((rc = md_attr_long(c, n, "valueReference", 0, (long)UINT_MAX, &present, &l))) return rc;
    if (!present) return md_fail(c, n, "missing attribute valueReference");
    v->vr = (unsigned)l;
    if ((rc = md_attr_enum(c, n, "causality", causality3, 7, FMU_C_LOCAL, &x))) return rc;
    /* A structural parameter is a parameter here: set before initialization only (in
     * configuration mode, fmu_v3_set_text). */
    v->causality = x == 6 ? FMU_C_PARAMETER : (fmu_causality)x;
    v->structural = x == 6;
    int floaty = type == FMU_T_REAL || type == FMU_T_FLOAT32;
    if ((rc = md_attr_enum(c, n, "variability", variability3, 5,
                           floaty ? FMU_V_CONTINUOUS : FMU_V_DISCRETE, &x)))
        return rc;
    v->variability = (fmu_variability)x;
    if ((rc = md_attr_enum(c, n, "initial", initial3, 3, -1, &x))) return rc;
    v->initial = (fmu_initial)(x + 1);
    if ((rc = md_attr_bool(c, n, "intermediateUpdate", 0, &v->intermediate_update))) return rc;
    if (type != FMU_T_STRING && type != FMU_T_BINARY && type != FMU_T_CLOCK &&
        type != FMU_T_BOOLEAN) {
        if ((rc = md_attr_real(c, n, "min", &v->has_min, &v->min)) ||
            (rc = md_attr_real(c, n, "max", &v->has_max, &v->max)))
            return rc;
        if (v->has_min && v->has_max && v->min > v->max)
            return md_fail(c, n, "min %g is above max %g", v->min, v->max);
    }
    if (v->declared_type && (rc = inherit_type(c, n, v))) return rc;
    if (floaty && (rc = md_attr_long(c, n, "derivative", 0, (long)UINT_MAX, &present, &l)))
        return rc;
    /* The value reference of the state for now; turned into an index by link_derivatives. */
    v->derivative = floaty && present ? (int)(l + 1) : 0;
    if (type == FMU_T_CLOCK) {
        /* The clock's attributes are its own, else those of its ClockType. */
        const xmlNode *src = n;
        if ((rc = md_attr_enum(c, n, "intervalVariability", clock_kinds, 6, -1, &x))) return rc;
        for (const xmlNode *t = c->typedefs ? c->typedefs->children : NULL;
             x < 0 && v->declared_type && t; t = t->next) {
            char *tn = md_is_el(t, "ClockType") ? md_attr(c, t, "name") : NULL;
            if (c->oom) return -2;
            int match = tn && strcmp(tn, v->declared_type) == 0;
            free(tn);
            if (match && (rc = md_attr_enum(c, t, "intervalVariability", clock_kinds, 6, -1, &x)))
                return rc;
            if (match) src = t;
        }
        if (x < 0) return md_fail(c, n, "a Clock needs attribute intervalVariability");
        v->clock = (fmu_clock_kind)(x + 1);
        if ((rc = md_attr_real(c, src, "intervalDecimal", &v->has_interval, &v->interval)) ||
            (rc = md_attr_real(c, src, "shiftDecimal", &present, &v->shift)))
            return rc;
    }
    if (v->variability == FMU_V_CONTINUOUS && !floaty)
        return md_fail(c, n, "only Float32 and Float64 variables can be continuous");
    if ((v->causality == FMU_C_INPUT || v->causality == FMU_C_INDEPENDENT) &&
        v->initial != FMU_I_NONE && v->initial != FMU_I_EXACT)
        return md_fail(c, n, "%s variables must not have initial=\"%s\"", causality3[v->causality],
                       initial3[v->initial - 1]);
    if (v->causality == FMU_C_INPUT) v->initial = FMU_I_NONE; /* inputs are set, not computed */
    return 0;
}

/* The name of element e of an array with these dimensions: "name[i,j]", 1-based. */
static char *element_name(md_ctx *c, const char *name, const unsigned long dims[], int nd, size_t e)
{
    size_t idx[MD3_MAX_DIMS];
    for (int d = nd - 1; d >= 0; d--) {
        idx[d] = e % dims[d];
        e /= dims[d];
    }
    size_t cap = strlen(name) + 2 + (size_t)nd * 21, used;
    char *s = malloc(cap);
    if (!s) return c->oom = 1, NULL;
    used = (size_t)snprintf(s, cap, "%s[", name);
    for (int d = 0; d < nd; d++)
        used += (size_t)snprintf(s + used, cap - used, "%s%zu", d ? "," : "", idx[d] + 1);
    snprintf(s + used, cap - used, "]");
    return s;
}

/* ---- the variables ------------------------------------------------------------------------ */

/* One variable element n: its elements appended to md->vars. */
static int add_variable(md_ctx *c, const xmlNode *mv, const xmlNode *n, int type)
{
    fmu_md *md = c->md;
    unsigned long dims[MD3_MAX_DIMS];
    int nd, rc;
    size_t count;
    if ((rc = parse_dims(c, mv, n, 1, dims, &nd, &count))) return rc;
    /* Sized by a structural parameter set to another value than its start: the start values
     * are the description's, for its sizes (resized_walk). */
    unsigned long odims[MD3_MAX_DIMS];
    int ond = 0;
    size_t ocount = 1;
    if (c->n_sizes && (rc = parse_dims(c, mv, n, 0, odims, &ond, &ocount))) return rc;
    int resized = c->n_sizes && memcmp(odims, dims, (size_t)nd * sizeof *dims) != 0;
    char *name = md_attr(c, n, "name");
    char *list = md_attr(c, n, "start");
    if (c->oom) return free(name), free(list), -2;
    if (!name || !name[0]) {
        free(name), free(list);
        return md_fail(c, n, "missing attribute name");
    }
    fmu_var *grown = realloc(md->vars, (md->n_vars + count) * sizeof *md->vars);
    if (!grown) return free(name), free(list), c->oom = 1, -2;
    md->vars = grown;
    memset(md->vars + md->n_vars, 0, count * sizeof *md->vars);
    start_walk walk;
    walk_init(&walk, n, list);
    const void **at = NULL; /* resized: where each of the description's starts is */
    rc = resized ? resized_starts(c, &walk, ocount, &at) : 0;
    for (size_t e = 0; !rc && e < count; e++) {
        fmu_var *v = &md->vars[md->n_vars++];
        v->name = nd ? element_name(c, name, dims, nd, e) : md_dupstr(c, name);
        if (c->oom) rc = -2;
        if (!rc && (rc = var_attrs(c, n, v, type))) break;
        v->elem = e;
        v->n_elems = nd ? count : 0;
        if (!resized)
            rc = element_start(c, n, v, &walk, e);
        else if (resized_walk(&walk, at, dims, odims, nd, e, ocount))
            rc = element_start(c, n, v, &walk, e);
    }
    free(at);
    if (!rc && count == 1 && md->vars[md->n_vars - 1].structural)
        rc = sized_start(c, &md->vars[md->n_vars - 1]);
    if (!rc && !resized) {
        const fmu_var *v = &md->vars[md->n_vars - 1];
        int needs_start = v->causality == FMU_C_PARAMETER || v->causality == FMU_C_INPUT ||
                          v->variability == FMU_V_CONSTANT || v->initial == FMU_I_EXACT ||
                          v->initial == FMU_I_APPROX;
        if (needs_start && !v->has_start && type != FMU_T_CLOCK)
            rc = md_fail(c, n, "variable \"%.80s\" (%s, %s) needs a start value", name,
                         causality3[v->causality], variability3[v->variability]);
    }
    free(name);
    free(list);
    return rc;
}

static int parse_vars3(md_ctx *c, const xmlNode *mv)
{
    for (const xmlNode *n = mv->children; n; n = n->next) {
        if (n->type != XML_ELEMENT_NODE) continue;
        int t = type_of(n);
        if (t < 0) return md_fail(c, n, "unknown variable type element");
        int rc = add_variable(c, mv, n, t);
        if (rc) return rc;
        if (c->md->n_vars > MD_MAX_VARS)
            return md_fail(c, mv, "more than %d variables", MD_MAX_VARS);
    }
    return 0; /* the handles above every value reference: fmu_md.c set_handles */
}

/* derivative="vr" names the state by value reference: element k of a derivative array is the
 * derivative of element k of the state array. Stored as the 1-based index FMI 2.0 uses. */
static int link_derivatives(md_ctx *c)
{
    fmu_md *md = c->md;
    for (size_t i = 0; i < md->n_vars; i++) {
        fmu_var *v = &md->vars[i];
        if (!v->derivative) continue;
        long s = fmu_md_find_any_vr(md, (unsigned)(v->derivative - 1));
        if (s < 0 || md->vars[s].n_elems != v->n_elems)
            return md_fail(c, NULL,
                           "line %d: variable \"%.80s\": derivative=\"%d\" names no variable of "
                           "the same size",
                           v->line, v->name, v->derivative - 1);
        v->derivative = (int)(s + (long)v->elem + 1);
    }
    return 0;
}

/* ---- structure ---------------------------------------------------------------------------- */

/* The dependencies of an unknown (FMI 3.0 §2.4.8): value references, each naming a variable
 * whose every element the unknown depends on, into 1-based indices; dependenciesKind, when
 * given, holds one known kind per value reference. */
static int parse_deps3(md_ctx *c, const xmlNode *u, int **deps, size_t *n_deps)
{
    static const char *const kinds[] = {"dependent", "constant", "fixed", "tunable", "discrete"};
    fmu_md *md = c->md;
    char *list = md_attr(c, u, "dependencies"), *kind = md_attr(c, u, "dependenciesKind");
    int rc = c->oom ? -2 : 0;
    size_t n_vr = 0, n_kind = 0, cap = 0;
    char *save = NULL;
    for (char *w = list ? strtok_r(list, " \t\r\n", &save) : NULL; !rc && w;
         w = strtok_r(NULL, " \t\r\n", &save)) {
        char *end;
        errno = 0;
        unsigned long vr = strtoul(w, &end, 10);
        long k = *end || errno || vr > UINT_MAX || w[0] == '-'
                     ? -1
                     : fmu_md_find_any_vr(md, (unsigned)vr);
        if (k < 0) {
            rc = md_fail(c, u, "dependencies: \"%.40s\" names no variable", w);
            break;
        }
        n_vr++;
        size_t m = md->vars[k].n_elems ? md->vars[k].n_elems : 1;
        if (*n_deps + m > cap) {
            size_t nc = (*n_deps + m) * 2;
            int *g = realloc(*deps, nc * sizeof *g);
            if (!g) {
                rc = -2, c->oom = 1;
                break;
            }
            *deps = g, cap = nc;
        }
        for (size_t e = 0; e < m; e++)
            (*deps)[(*n_deps)++] = (int)(k + (long)e + 1);
    }
    for (char *w = kind && !rc ? strtok_r(kind, " \t\r\n", &save) : NULL; !rc && w;
         w = strtok_r(NULL, " \t\r\n", &save)) {
        size_t j = 0;
        while (j < sizeof kinds / sizeof *kinds && strcmp(w, kinds[j]))
            j++;
        if (j == sizeof kinds / sizeof *kinds)
            rc = md_fail(c, u, "dependenciesKind: unknown kind \"%.40s\"", w);
        n_kind++;
    }
    if (!rc && kind && (!list || n_kind != n_vr))
        rc = md_fail(c, u, "dependenciesKind has %zu entries, dependencies %zu", n_kind, n_vr);
    free(list);
    free(kind);
    return rc;
}

/* Appends every element of the variable with the value reference of u to list, each with the
 * unknown's dependencies (absent: it depends on everything). */
static int add_unknown(md_ctx *c, const xmlNode *u, size_t *count, fmu_unknown **list, size_t *cap)
{
    fmu_md *md = c->md;
    int present, rc;
    long vr = 0;
    if ((rc = md_attr_long(c, u, "valueReference", 0, (long)UINT_MAX, &present, &vr))) return rc;
    if (!present) return md_fail(c, u, "missing attribute valueReference");
    long k = fmu_md_find_any_vr(md, (unsigned)vr);
    if (k < 0) return md_fail(c, u, "valueReference=\"%ld\" names no variable", vr);
    size_t n = md->vars[k].n_elems ? md->vars[k].n_elems : 1;
    if (*count + n > *cap) {
        size_t nc = (*count + n) * 2;
        fmu_unknown *g = realloc(*list, nc * sizeof *g);
        if (!g) return c->oom = 1, -2;
        *list = g, *cap = nc;
    }
    int *deps = NULL, has = xmlHasProp(u, (const xmlChar *)"dependencies") != NULL;
    size_t n_deps = 0;
    if (has && (rc = parse_deps3(c, u, &deps, &n_deps))) return free(deps), rc;
    for (size_t e = 0; !rc && e < n; e++) {
        fmu_unknown *g = &(*list)[*count];
        *g = (fmu_unknown){.index = (int)(k + (long)e + 1), .has_deps = has, .n_deps = n_deps};
        if (n_deps && !(g->deps = malloc(n_deps * sizeof *g->deps))) rc = -2, c->oom = 1;
        if (g->deps) memcpy(g->deps, deps, n_deps * sizeof *deps);
        ++*count;
    }
    free(deps);
    return rc;
}

static int parse_structure3(md_ctx *c, const xmlNode *ms)
{
    fmu_md *md = c->md;
    size_t cap_o = 0, cap_d = 0, cap_i = 0, cap_e = 0, n_ind = 0;
    fmu_unknown *ind = NULL;
    int rc = 0;
    for (const xmlNode *u = ms->children; !rc && u; u = u->next) {
        if (md_is_el(u, "Output")) {
            rc = add_unknown(c, u, &md->n_outputs, &md->outputs, &cap_o);
            if (!rc && md->vars[md->outputs[md->n_outputs - 1].index - 1].causality != FMU_C_OUTPUT)
                rc = md_fail(c, u, "variable \"%.80s\" is not an output",
                             md->vars[md->outputs[md->n_outputs - 1].index - 1].name);
        } else if (md_is_el(u, "ContinuousStateDerivative")) {
            rc = add_unknown(c, u, &md->n_derivatives, &md->derivatives, &cap_d);
            for (size_t i = 0; !rc && i < md->n_derivatives; i++) {
                const fmu_var *v = &md->vars[md->derivatives[i].index - 1];
                if (!v->derivative || v->type != FMU_T_REAL)
                    rc = md_fail(c, u, "variable \"%.80s\" is no Float64 derivative", v->name);
            }
        } else if (md_is_el(u, "InitialUnknown")) {
            rc = add_unknown(c, u, &md->n_initial_unknowns, &md->initial_unknowns, &cap_i);
        } else if (md_is_el(u, "EventIndicator")) {
            rc = add_unknown(c, u, &n_ind, &ind, &cap_e);
        }
    }
    for (size_t i = 0; i < n_ind; i++)
        free(ind[i].deps);
    free(ind);
    md->n_event_indicators = (int)n_ind;
    if (!md->outputs) md->outputs = calloc(1, sizeof *md->outputs);
    if (!md->derivatives) md->derivatives = calloc(1, sizeof *md->derivatives);
    if (!md->initial_unknowns) md->initial_unknowns = calloc(1, sizeof *md->initial_unknowns);
    if (!md->outputs || !md->derivatives || !md->initial_unknowns) c->oom = 1;
    return c->oom ? -2 : rc;
}

static int parse_types3(md_ctx *c, const xmlNode *td)
{
    fmu_md *md = c->md;
    size_t n = 0;
    for (const xmlNode *e = td->children; e; e = e->next)
        n += e->type == XML_ELEMENT_NODE;
    md->type_names = calloc(n ? n : 1, sizeof *md->type_names);
    if (!md->type_names) return c->oom = 1, -2;
    for (const xmlNode *e = td->children; e; e = e->next) {
        if (e->type != XML_ELEMENT_NODE) continue;
        md->type_names[md->n_types] = md_attr(c, e, "name");
        if (c->oom) return -2;
        if (!md->type_names[md->n_types++]) return md_fail(c, e, "missing attribute name");
    }
    return 0;
}

int fmu_md3_children(md_ctx *c, const xmlNode *root)
{
    fmu_md *md = c->md;
    const xmlNode *mv = NULL, *ms = NULL;
    int rc;
    md->vars = calloc(1, sizeof *md->vars);
    if (!md->vars) return c->oom = 1, -2;
    for (const xmlNode *ch = root->children; ch; ch = ch->next) {
        if (md_is_el(ch, "ModelExchange") || md_is_el(ch, "CoSimulation")) {
            int cs = md_is_el(ch, "CoSimulation");
            fmu_caps *k = cs ? &md->cs : &md->me;
            if (k->present) return md_fail(c, ch, "duplicate element");
            if ((rc = parse_caps3(c, ch, k, cs))) return rc;
        } else if (md_is_el(ch, "ScheduledExecution")) {
            md->se_present = 1;
        } else if (md_is_el(ch, "TypeDefinitions")) {
            if (md->type_names) return md_fail(c, ch, "duplicate element");
            c->typedefs = ch;
            if ((rc = parse_types3(c, ch))) return rc;
        } else if (md_is_el(ch, "ModelVariables")) {
            mv = ch;
        } else if (md_is_el(ch, "ModelStructure")) {
            ms = ch;
        }
    }
    if ((rc = parse_vars3(c, mv)) || (rc = link_derivatives(c)) || (rc = parse_structure3(c, ms)))
        return rc;
    for (size_t i = 0; i < md->n_vars; i++)
        md->n_clocks += md->vars[i].type == FMU_T_CLOCK;
    md->clocks = malloc((md->n_clocks ? md->n_clocks : 1) * sizeof *md->clocks);
    if (!md->clocks) return c->oom = 1, -2;
    for (size_t i = 0, k = 0; i < md->n_vars; i++)
        if (md->vars[i].type == FMU_T_CLOCK) md->clocks[k++] = (int)i;
    if (!md->me.present && !md->cs.present && md->se_present)
        return md_fail(c, root,
                       "the FMU offers only ScheduledExecution, which Tempo does not support "
                       "(it needs ModelExchange or CoSimulation)");
    return 0;
}
