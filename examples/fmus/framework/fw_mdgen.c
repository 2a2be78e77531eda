/* Generator of modelDescription.xml from a model's fw_model table: the build links it with
 * the model's C file and runs `fw_mdgen me|cs|me3|cs3 OUT.xml` to write the description of one
 * kind, in FMI 2.0 or (me3, cs3) FMI 3.0 form, so that the XML and the binary can never
 * disagree on variables, indices or GUID.
 * doc/fmu.md. Read doc/example-fmus.md (the layout of the .fmu files) next. */
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
        if (m->vars[i].causality == FW_OUTPUT)
            fprintf(f, "%s      <Unknown index=\"%d\"/>\n", n++ ? "" : "    <Outputs>\n", i + 1);
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
        if (m->vars[i].causality == FW_OUTPUT)
            fprintf(f, "    <Output valueReference=\"%d\"/>\n", i);
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
