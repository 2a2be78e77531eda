/* Generator of modelDescription.xml from a model's fw_model table: the build links it with
 * the model's C file and runs `fw_mdgen me|cs|me3|cs3 OUT.xml` to write the description of one
 * kind, in FMI 2.0 or (me3, cs3) FMI 3.0 form, so that the XML and the binary can never
 * disagree on variables, indices or GUID.
 * doc/fmu.md. Read doc/example-fmus.md (the layout of the .fmu files) next. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "examples/fmus/framework/fw.h"

/* Only for the generator (the binary gets the real one from fw_fmi.c). */
double fw_input_der(const fw_ctx *c, unsigned vr, int order)
{
    return 0;
}

/* Write s with the five XML special characters escaped. */
static void xml_text(FILE *f, const char *s)
{
    for (; s && *s; s++) {
        switch (*s) {
        case '&':
            fputs("&amp;", f);
            break;
        case '<':
            fputs("&lt;", f);
            break;
        case '>':
            fputs("&gt;", f);
            break;
        case '"':
            fputs("&quot;", f);
            break;
        case '\'':
            fputs("&apos;", f);
            break;
        default:
            fputc(*s, f);
        }
    }
}

/* Print v in the fewest digits (6 to 17) that read back as the same double. */
static void put_double(FILE *f, double v)
{
    char buf[40];
    for (int prec = 6; prec <= 17; prec++) { /* from 6: "10", not "1e+01" */
        snprintf(buf, sizeof buf, "%.*g", prec, v);
        if (strtod(buf, NULL) == v) break; /* exact round trip is the point here */
    }
    fputs(buf, f);
}

static const char *const causality_names[] = {"parameter", "input", "output", "local"};

static void write_units(FILE *f, const fw_model *m)
{
    int any = 0;
    for (int i = 0; i < m->nvars; i++) {
        const char *u = m->vars[i].unit;
        int seen = 0;
        for (int j = 0; j < i && u; j++)
            seen = seen || (m->vars[j].unit && strcmp(m->vars[j].unit, u) == 0);
        if (!u || seen) continue;
        if (!any++) fputs("  <UnitDefinitions>\n", f);
        fputs("    <Unit name=\"", f);
        xml_text(f, u);
        fputs("\"/>\n", f);
    }
    if (any) fputs("  </UnitDefinitions>\n", f);
}

/* 1 when variable i is a continuous state (some variable is its derivative). */
static int is_state(const fw_model *m, int i)
{
    for (int j = 0; j < m->nvars; j++)
        if (m->vars[j].derivative_of == i) return 1;
    return 0;
}

/* ---- Output dependencies ------------------------------------------------------------------
 * Each output's direct dependencies on inputs and continuous states (the knowns of FMI 2.0's
 * ModelStructure/Outputs, FMI 3.0's Output) come from its fw_var.depends; an output that is a
 * state depends on itself. The declaration is checked against a probe: at three points, each
 * input and state in turn is moved and the model's derivatives and outputs recomputed; an
 * output that moves with a known its list lacks stops the build. (A probe can only show a
 * dependency, never its absence, so the list is the author's; doc/example-fmus.md.) */

#define DEP_MAX_VARS 256 /* variables of one model the probe handles */

/* 1 when variable k is a known of the output dependencies: an input or a continuous state. */
static int is_known(const fw_model *m, int k)
{
    return m->vars[k].causality == FW_INPUT || is_state(m, k);
}

/* The declared dependencies of output i into dep[0..nvars) (1: depends). 0, or -1 with a
 * message naming the model, the output and the fault. */
static int declared_deps(const fw_model *m, int i, unsigned char *dep)
{
    const fw_var *v = &m->vars[i];
    memset(dep, 0, (size_t)m->nvars);
    if (!v->depends) {
        if (is_state(m, i)) return dep[i] = 1, 0;
        fprintf(stderr, "fw_mdgen: model %s: output %s is no state and declares no depends\n",
                m->id, v->name);
        return -1;
    }
    const char *p = v->depends;
    while (*p) {
        size_t len = strcspn(p, " ");
        int k = -1;
        for (int j = 0; j < m->nvars && k < 0 && len; j++)
            if (strlen(m->vars[j].name) == len && strncmp(m->vars[j].name, p, len) == 0) k = j;
        if (len && (k < 0 || !is_known(m, k))) {
            fprintf(stderr,
                    "fw_mdgen: model %s: output %s depends on \"%.*s\", which is no input or "
                    "state\n",
                    m->id, v->name, (int)len, p);
            return -1;
        }
        if (len) dep[k] = 1;
        p += len + (p[len] == ' ');
    }
    return 0;
}

/* Derivatives and outputs of the model at the values in r (t = 0.25 s). */
static void evaluate(const fw_model *m, double *r)
{
    fw_ctx c = {.t = 0.25, .r = r, .inst = NULL};
    if (m->derivatives) m->derivatives(&c);
    if (m->outputs) m->outputs(&c);
}

/* 1 when the two doubles differ in any bit (the probe asks whether a value moved at all). */
static int moved(double a, double b)
{
    return memcmp(&a, &b, sizeof a) != 0;
}

/* Checks every output's declared list against the probe; 0, or -1 after naming each miss. */
static int check_deps(const fw_model *m)
{
    int n = m->nvars, bad = 0;
    if (n > DEP_MAX_VARS) {
        fprintf(stderr, "fw_mdgen: model %s: %d variables, the probe takes %d\n", m->id, n,
                DEP_MAX_VARS);
        return -1;
    }
    double base[DEP_MAX_VARS], r0[DEP_MAX_VARS], r1[DEP_MAX_VARS];
    unsigned char dep[DEP_MAX_VARS];
    for (int i = 0; i < n; i++)
        if (m->vars[i].causality == FW_OUTPUT && declared_deps(m, i, dep)) bad = 1;
    if (bad) return -1;
    for (int point = 0; point < 3; point++) {
        for (int i = 0; i < n; i++)
            base[i] = m->vars[i].start;
        fw_ctx c = {.t = 0, .r = base, .inst = NULL};
        if (m->init) m->init(&c);
        for (int k = 0; k < n; k++) /* away from the start: 0, 1, 1.2 + 0.1 k times */
            if (is_known(m, k)) base[k] = base[k] * (1 + 0.2 * point) + 0.1 * point * (k + 1);
        memcpy(r0, base, (size_t)n * sizeof *r0);
        evaluate(m, r0);
        for (int k = 0; k < n; k++) {
            if (!is_known(m, k)) continue;
            memcpy(r1, base, (size_t)n * sizeof *r1);
            r1[k] += 0.37 * (1 + fabs(r1[k]));
            evaluate(m, r1);
            for (int i = 0; i < n; i++) {
                if (m->vars[i].causality != FW_OUTPUT) continue;
                declared_deps(m, i, dep);
                if (!dep[k] && moved(r0[i], r1[i])) {
                    fprintf(stderr,
                            "fw_mdgen: model %s: output %s moves with %s, which its depends "
                            "list lacks\n",
                            m->id, m->vars[i].name, m->vars[k].name);
                    bad = 1;
                }
            }
        }
    }
    return bad ? -1 : 0;
}

/* The 1-based indices (FMI 2.0) or value references (FMI 3.0: base 0) of output i's
 * dependencies, as an attribute. */
static void write_deps(FILE *f, const fw_model *m, int i, int base)
{
    unsigned char dep[DEP_MAX_VARS];
    declared_deps(m, i, dep); /* checked by check_deps before anything is written */
    fputs(" dependencies=\"", f);
    for (int k = 0, first = 1; k < m->nvars; k++)
        if (dep[k]) fprintf(f, "%s%d", first ? "" : " ", k + base), first = 0;
    fputs("\"", f);
}

static void write_variables(FILE *f, const fw_model *m, int cs)
{
    fputs("  <ModelVariables>\n", f);
    for (int i = 0; i < m->nvars; i++) {
        const fw_var *v = &m->vars[i];
        const char *variability = v->causality == FW_PARAM ? "fixed"
                                  : v->discrete            ? "discrete"
                                                           : "continuous";
        fprintf(f, "    <!-- index %d -->\n    <ScalarVariable name=\"", i + 1);
        xml_text(f, v->name);
        fprintf(f, "\" valueReference=\"%d\" causality=\"%s\" variability=\"%s\"", i,
                causality_names[v->causality], variability);
        if (v->causality == FW_PARAM)
            fputs(" initial=\"exact\"", f);
        else if (v->causality != FW_INPUT)
            fputs(" initial=\"calculated\"", f);
        if (v->description) {
            fputs(" description=\"", f);
            xml_text(f, v->description);
            fputs("\"", f);
        }
        fputs(">\n      <Real", f);
        if (v->unit) {
            fputs(" unit=\"", f);
            xml_text(f, v->unit);
            fputs("\"", f);
        }
        for (int b = 0; b < m->nbounds; b++) {
            if (m->bounds[b].vr != i) continue;
            fputs(" min=\"", f);
            put_double(f, m->bounds[b].min);
            fputs("\" max=\"", f);
            put_double(f, m->bounds[b].max);
            fputs("\"", f);
        }
        if (v->causality == FW_PARAM || v->causality == FW_INPUT) {
            fputs(" start=\"", f);
            put_double(f, v->start);
            fputs("\"", f);
        }
        if (v->derivative_of >= 0) fprintf(f, " derivative=\"%d\"", v->derivative_of + 1);
        /* ME: an event handler may re-initialise any state (the ball's velocity). */
        if (!cs && m->event && is_state(m, i)) fputs(" reinit=\"true\"", f);
        fputs("/>\n    </ScalarVariable>\n", f);
    }
    fputs("  </ModelVariables>\n", f);
}

static void write_structure(FILE *f, const fw_model *m)
{
    fputs("  <ModelStructure>\n", f);
    int n = 0;
    for (int i = 0; i < m->nvars; i++)
        if (m->vars[i].causality == FW_OUTPUT) {
            fprintf(f, "%s      <Unknown index=\"%d\"", n++ ? "" : "    <Outputs>\n", i + 1);
            write_deps(f, m, i, 1);
            fputs("/>\n", f);
        }
    if (n) fputs("    </Outputs>\n", f);
    n = 0;
    for (int i = 0; i < m->nvars; i++)
        if (m->vars[i].derivative_of >= 0)
            fprintf(f, "%s      <Unknown index=\"%d\"/>\n", n++ ? "" : "    <Derivatives>\n",
                    i + 1);
    if (n) fputs("    </Derivatives>\n", f);
    /* Initial unknowns: calculated outputs, states and derivatives, in index order; without a
     * dependencies attribute each depends on every known (allowed by the standard). */
    n = 0;
    for (int i = 0; i < m->nvars; i++) {
        const fw_var *v = &m->vars[i];
        if (v->causality == FW_OUTPUT || v->derivative_of >= 0 || is_state(m, i))
            fprintf(f, "%s      <Unknown index=\"%d\"/>\n", n++ ? "" : "    <InitialUnknowns>\n",
                    i + 1);
    }
    if (n) fputs("    </InitialUnknowns>\n", f);
    fputs("  </ModelStructure>\n", f);
}

static void write_description(FILE *f, const fw_model *m, int cs)
{
    char guid[39];
    fw_guid(m, guid);
    fputs("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n", f);
    fprintf(f, "<!-- Generated by examples/fmus/framework/fw_mdgen.c from %s.c: do not edit. -->\n",
            m->id);
    fprintf(f, "<fmiModelDescription fmiVersion=\"2.0\" modelName=\"%s\" guid=\"%s\"\n", m->id,
            guid);
    fputs("  description=\"", f);
    xml_text(f, m->description);
    fprintf(f,
            "\"\n  generationTool=\"Tempo fw_mdgen\" variableNamingConvention=\"flat\" "
            "numberOfEventIndicators=\"%d\">\n",
            m->nz);
    if (cs)
        fprintf(
            f,
            "  <CoSimulation modelIdentifier=\"%s\" needsExecutionTool=\"false\"\n"
            "    canHandleVariableCommunicationStepSize=\"true\" canInterpolateInputs=\"true\"\n"
            "    maxOutputDerivativeOrder=\"%d\" canRunAsynchronuously=\"false\"\n"
            "    canBeInstantiatedOnlyOncePerProcess=\"%s\" "
            "canNotUseMemoryManagementFunctions=\"false\"\n"
            "    canGetAndSetFMUstate=\"true\" canSerializeFMUstate=\"true\" "
            "providesDirectionalDerivative=\"%s\"/>\n",
            m->id, m->max_output_order, m->once_per_process ? "true" : "false",
            m->partial ? "true" : "false");
    else
        fprintf(f,
                "  <ModelExchange modelIdentifier=\"%s\" needsExecutionTool=\"false\"\n"
                "    completedIntegratorStepNotNeeded=\"true\" "
                "canBeInstantiatedOnlyOncePerProcess=\"%s\"\n"
                "    canNotUseMemoryManagementFunctions=\"false\" canGetAndSetFMUstate=\"true\"\n"
                "    canSerializeFMUstate=\"true\" providesDirectionalDerivative=\"%s\"/>\n",
                m->id, m->once_per_process ? "true" : "false", m->partial ? "true" : "false");
    write_units(f, m);
    fputs("  <LogCategories>\n"
          "    <Category name=\"logEvents\" description=\"events and their handling\"/>\n"
          "    <Category name=\"logStatusWarning\" description=\"calls that return fmi2Warning "
          "or fmi2Discard\"/>\n"
          "    <Category name=\"logStatusError\" description=\"calls that return fmi2Error "
          "(always logged)\"/>\n"
          "    <Category name=\"logCalls\" description=\"every FMI call\"/>\n"
          "    <Category name=\"logSolver\" description=\"internal integrator (co-simulation)\"/>\n"
          "  </LogCategories>\n",
          f);
    fputs("  <DefaultExperiment startTime=\"0\" stopTime=\"", f);
    put_double(f, m->stop_time);
    fputs("\" tolerance=\"", f);
    put_double(f, m->tolerance);
    fputs("\" stepSize=\"", f);
    put_double(f, m->step_size);
    fputs("\"/>\n", f);
    write_variables(f, m, cs);
    write_structure(f, m);
    fputs("</fmiModelDescription>\n", f);
}

/* ---- FMI 3.0 ------------------------------------------------------------------------------ */

/* One Float64 variable per model variable (value reference = index), then the event
 * indicators as the Float64 array of value reference nvars (fw_fmi3.c serves it). */
static void write_variables3(FILE *f, const fw_model *m, int cs)
{
    fputs("  <ModelVariables>\n", f);
    for (int i = 0; i < m->nvars; i++) {
        const fw_var *v = &m->vars[i];
        const char *variability = v->causality == FW_PARAM ? "fixed"
                                  : v->discrete            ? "discrete"
                                                           : "continuous";
        fputs("    <Float64 name=\"", f);
        xml_text(f, v->name);
        fprintf(f, "\" valueReference=\"%d\" causality=\"%s\" variability=\"%s\"", i,
                causality_names[v->causality], variability);
        if (v->causality == FW_PARAM)
            fputs(" initial=\"exact\"", f);
        else if (v->causality != FW_INPUT)
            fputs(" initial=\"calculated\"", f);
        if (v->description) {
            fputs(" description=\"", f);
            xml_text(f, v->description);
            fputs("\"", f);
        }
        if (v->unit) {
            fputs(" unit=\"", f);
            xml_text(f, v->unit);
            fputs("\"", f);
        }
        for (int b = 0; b < m->nbounds; b++) {
            if (m->bounds[b].vr != i) continue;
            fputs(" min=\"", f);
            put_double(f, m->bounds[b].min);
            fputs("\" max=\"", f);
            put_double(f, m->bounds[b].max);
            fputs("\"", f);
        }
        if (v->causality == FW_PARAM || v->causality == FW_INPUT) {
            fputs(" start=\"", f);
            put_double(f, v->start);
            fputs("\"", f);
        }
        if (v->derivative_of >= 0) fprintf(f, " derivative=\"%d\"", v->derivative_of);
        if (!cs && m->event && is_state(m, i)) fputs(" reinit=\"true\"", f);
        fputs("/>\n", f);
    }
    if (m->nz)
        fprintf(f,
                "    <Float64 name=\"event_indicators\" valueReference=\"%d\" causality=\"local\" "
                "variability=\"continuous\" initial=\"calculated\">\n"
                "      <Dimension start=\"%d\"/>\n    </Float64>\n",
                m->nvars, m->nz);
    fputs("  </ModelVariables>\n", f);
}

static void write_structure3(FILE *f, const fw_model *m)
{
    fputs("  <ModelStructure>\n", f);
    for (int i = 0; i < m->nvars; i++)
        if (m->vars[i].causality == FW_OUTPUT) {
            fprintf(f, "    <Output valueReference=\"%d\"", i);
            write_deps(f, m, i, 0);
            fputs("/>\n", f);
        }
    for (int i = 0; i < m->nvars; i++)
        if (m->vars[i].derivative_of >= 0)
            fprintf(f, "    <ContinuousStateDerivative valueReference=\"%d\"/>\n", i);
    for (int i = 0; i < m->nvars; i++) {
        const fw_var *v = &m->vars[i];
        if (v->causality == FW_OUTPUT || v->derivative_of >= 0)
            fprintf(f, "    <InitialUnknown valueReference=\"%d\"/>\n", i);
    }
    if (m->nz) fprintf(f, "    <EventIndicator valueReference=\"%d\"/>\n", m->nvars);
    fputs("  </ModelStructure>\n", f);
}

static void write_description3(FILE *f, const fw_model *m, int cs)
{
    char guid[39];
    fw_guid(m, guid);
    fputs("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n", f);
    fprintf(f, "<!-- Generated by examples/fmus/framework/fw_mdgen.c from %s.c: do not edit. -->\n",
            m->id);
    fprintf(f,
            "<fmiModelDescription fmiVersion=\"3.0\" modelName=\"%s\" instantiationToken=\"%s\"\n",
            m->id, guid);
    fputs("  description=\"", f);
    xml_text(f, m->description);
    fputs("\"\n  generationTool=\"Tempo fw_mdgen\" variableNamingConvention=\"flat\">\n", f);
    if (cs)
        fprintf(
            f,
            "  <CoSimulation modelIdentifier=\"%s\" needsExecutionTool=\"false\"\n"
            "    canHandleVariableCommunicationStepSize=\"true\" maxOutputDerivativeOrder=\"%d\"\n"
            "    canBeInstantiatedOnlyOncePerProcess=\"false\" canGetAndSetFMUState=\"true\"\n"
            "    canSerializeFMUState=\"true\" providesDirectionalDerivatives=\"%s\"\n"
            "    hasEventMode=\"false\" canReturnEarlyAfterIntermediateUpdate=\"%s\"/>\n",
            m->id, m->max_output_order, m->partial ? "true" : "false", m->event ? "true" : "false");
    else
        fprintf(f,
                "  <ModelExchange modelIdentifier=\"%s\" needsExecutionTool=\"false\"\n"
                "    needsCompletedIntegratorStep=\"false\" "
                "canBeInstantiatedOnlyOncePerProcess=\"false\"\n"
                "    canGetAndSetFMUState=\"true\" canSerializeFMUState=\"true\"\n"
                "    providesDirectionalDerivatives=\"%s\"/>\n",
                m->id, m->partial ? "true" : "false");
    write_units(f, m);
    fputs("  <LogCategories>\n"
          "    <Category name=\"logEvents\" description=\"events and their handling\"/>\n"
          "    <Category name=\"logStatusWarning\" description=\"calls that return a warning or "
          "discard\"/>\n"
          "    <Category name=\"logStatusError\" description=\"calls that return an error "
          "(always logged)\"/>\n"
          "    <Category name=\"logCalls\" description=\"every FMI call\"/>\n"
          "    <Category name=\"logSolver\" description=\"internal integrator (co-simulation)\"/>\n"
          "  </LogCategories>\n",
          f);
    fputs("  <DefaultExperiment startTime=\"0\" stopTime=\"", f);
    put_double(f, m->stop_time);
    fputs("\" tolerance=\"", f);
    put_double(f, m->tolerance);
    fputs("\" stepSize=\"", f);
    put_double(f, m->step_size);
    fputs("\"/>\n", f);
    write_variables3(f, m, cs);
    write_structure3(f, m);
    fputs("</fmiModelDescription>\n", f);
}

int main(int argc, char **argv)
{
    const fw_model *m = &fw_model_def;
    const char *kind = argc == 3 ? argv[1] : "";
    int v3 = strcmp(kind, "me3") == 0 || strcmp(kind, "cs3") == 0;
    int cs = strcmp(kind, "cs") == 0 || strcmp(kind, "cs3") == 0;
    if (argc != 3 || (!cs && strcmp(kind, "me") != 0 && strcmp(kind, "me3") != 0)) {
        fprintf(stderr, "usage: %s me|cs|me3|cs3 OUT.xml (model %s)\n", argv[0], m->id);
        return 2;
    }
    if ((cs && !m->has_cs) || (!cs && !m->has_me)) {
        fprintf(stderr, "%s: model %s has no %s interface\n", argv[0], m->id, argv[1]);
        return 1;
    }
    if (check_deps(m)) return 1;
    FILE *f = fopen(argv[2], "w");
    if (!f) {
        perror(argv[2]);
        return 1;
    }
    if (v3)
        write_description3(f, m, cs);
    else
        write_description(f, m, cs);
    if (fclose(f) != 0) {
        perror(argv[2]);
        return 1;
    }
    return 0;
}
