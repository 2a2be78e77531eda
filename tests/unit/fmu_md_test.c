/* Unit tests of the modelDescription.xml decoder (federate/fmu/fmu_md.c): a complete valid
 * description read field by field, then one broken description per check, each refused with
 * its line, element and reason. Serves doc/fmu.md. Read next: tests/unit/fmu_load_test.c. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "federate/fmu/fmu_load.h"
#include "federate/fmu/fmu_md.h"
#include "tests/check.h"

/* A valid ME+CS description; tests replace one marked line to break it. */
static const char *const good[] = {
    "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n",                                /* 1 */
    "<fmiModelDescription fmiVersion=\"2.0\" modelName=\"ball\" guid=\"{123}\"\n", /* 2 */
    "  numberOfEventIndicators=\"1\" generationTool=\"hand\">\n",                  /* 3 */
    "<ModelExchange modelIdentifier=\"ball\" canGetAndSetFMUstate=\"true\"/>\n",   /* 4 */
    "<CoSimulation modelIdentifier=\"ball_cs\" canHandleVariableCommunicationStepSize=\"true\""
    " canInterpolateInputs=\"true\" maxOutputDerivativeOrder=\"2\"/>\n", /* 5 */
    "<TypeDefinitions><SimpleType name=\"Height\"><Real unit=\"m\"/></SimpleType>"
    "</TypeDefinitions>\n", /* 6 */
    "<LogCategories><Category name=\"logEvents\"/><Category name=\"logAll\"/>"
    "</LogCategories>\n", /* 7 */
    "<DefaultExperiment startTime=\"0\" stopTime=\"3\" tolerance=\"1e-8\" stepSize=\"0.01\"/>\n",
    "<ModelVariables>\n", /* 9 */
    "<ScalarVariable name=\"h\" valueReference=\"0\" causality=\"output\" initial=\"exact\">"
    "<Real declaredType=\"Height\" start=\"1\"/></ScalarVariable>\n", /* 10 */
    "<ScalarVariable name=\"der(h)\" valueReference=\"1\"><Real derivative=\"1\"/>"
    "</ScalarVariable>\n", /* 11 */
    "<ScalarVariable name=\"v\" valueReference=\"2\" initial=\"exact\"><Real start=\"0\"/>"
    "</ScalarVariable>\n", /* 12 */
    "<ScalarVariable name=\"der(v)\" valueReference=\"3\"><Real derivative=\"3\"/>"
    "</ScalarVariable>\n", /* 13 */
    "<ScalarVariable name=\"g\" valueReference=\"4\" causality=\"parameter\" "
    "variability=\"fixed\"><Real start=\"9.81\" min=\"0\" max=\"100\" unit=\"m/s2\"/>"
    "</ScalarVariable>\n", /* 14 */
    "<ScalarVariable name=\"n\" valueReference=\"0\" causality=\"output\" "
    "variability=\"discrete\"><Integer/></ScalarVariable>\n", /* 15 */
    "<ScalarVariable name=\"on\" valueReference=\"0\" causality=\"input\" "
    "variability=\"discrete\"><Boolean start=\"true\"/></ScalarVariable>\n", /* 16 */
    "<ScalarVariable name=\"label\" valueReference=\"0\" causality=\"parameter\" "
    "variability=\"fixed\"><String start=\"hi\"/></ScalarVariable>\n", /* 17 */
    "<ScalarVariable name=\"f\" valueReference=\"5\" causality=\"input\"><Real start=\"0\"/>"
    "</ScalarVariable>\n", /* 18 */
    "</ModelVariables>\n", /* 19 */
    "<ModelStructure>\n",  /* 20 */
    "<Outputs><Unknown index=\"1\" dependencies=\"\"/><Unknown index=\"6\"/></Outputs>\n",
    "<Derivatives><Unknown index=\"2\" dependencies=\"3\" dependenciesKind=\"fixed\"/>"
    "<Unknown index=\"4\" dependencies=\"5 9\"/></Derivatives>\n", /* 22 */
    "<InitialUnknowns><Unknown index=\"2\"/></InitialUnknowns>\n", /* 23 */
    "</ModelStructure>\n",                                         /* 24 */
    "</fmiModelDescription>\n",                                    /* 25 */
};
enum { N_LINES = sizeof good / sizeof good[0] };

/* The description with line `line` (1-based) replaced by repl (NULL: unchanged). */
static char *build(int line, const char *repl)
{
    size_t n = 1;
    for (int i = 0; i < N_LINES; i++)
        n += strlen(good[i]) + (repl ? strlen(repl) : 0) + 1;
    char *s = malloc(n);
    s[0] = '\0';
    for (int i = 0; i < N_LINES; i++) {
        if (i + 1 == line) {
            strcat(s, repl);
            strcat(s, "\n");
        } else {
            strcat(s, good[i]);
        }
    }
    return s;
}

static void test_good(void)
{
    char *xml = build(0, NULL), err[512];
    fmu_md *md = NULL;
    int rc = fmu_md_parse(xml, strlen(xml), &md, err, sizeof err);
    CHECK_INT_EQ(rc, 0);
    CHECK(md != NULL, "parse failed: %s", err);
    if (!md) return free(xml);
    CHECK_STR_EQ(md->model_name, "ball");
    CHECK_STR_EQ(md->guid, "{123}");
    CHECK_STR_EQ(md->generation_tool, "hand");
    CHECK_INT_EQ(md->n_event_indicators, 1);
    CHECK(md->me.present && md->cs.present, "both kinds");
    CHECK_STR_EQ(md->me.model_identifier, "ball");
    CHECK_STR_EQ(md->cs.model_identifier, "ball_cs");
    CHECK_INT_EQ(md->me.can_get_and_set_fmu_state, 1);
    CHECK_INT_EQ(md->cs.can_get_and_set_fmu_state, 0);
    CHECK_INT_EQ(md->cs.can_interpolate_inputs, 1);
    CHECK_INT_EQ(md->cs.can_handle_variable_communication_step_size, 1);
    CHECK_INT_EQ(md->cs.max_output_derivative_order, 2);
    CHECK(md->has_start && md->has_stop && md->has_tolerance && md->has_step, "experiment");
    CHECK_NEAR(md->stop_time, 3.0, 0);
    CHECK_NEAR(md->tolerance, 1e-8, 0);
    CHECK_NEAR(md->step_size, 0.01, 0);
    CHECK_INT_EQ(md->n_log_categories, 2);
    CHECK_STR_EQ(md->log_categories[1], "logAll");
    CHECK_INT_EQ(md->n_vars, 9);
    {
        const fmu_var *g = &md->vars[4];
        CHECK(g->has_min && g->has_max, "g has min and max");
        CHECK_NEAR(g->min, 0, 0);
        CHECK_NEAR(g->max, 100, 0);
        CHECK_STR_EQ(g->unit ? g->unit : "(none)", "m/s2");
        CHECK(!md->vars[0].has_min && md->vars[0].unit == NULL, "h: no bounds, no own unit");
        CHECK_INT_EQ(fmu_md_initial(&md->vars[1]), FMU_I_CALCULATED); /* der(h): local */
        CHECK_INT_EQ(fmu_md_initial(g), FMU_I_EXACT);
    }
    const fmu_var *h = &md->vars[0];
    CHECK_STR_EQ(h->name, "h");
    CHECK_INT_EQ(h->causality, FMU_C_OUTPUT);
    CHECK_INT_EQ(h->variability, FMU_V_CONTINUOUS);
    CHECK_INT_EQ(h->initial, FMU_I_EXACT);
    CHECK_STR_EQ(h->declared_type, "Height");
    CHECK(h->has_start, "start");
    CHECK_NEAR(h->start_real, 1.0, 0);
    CHECK_INT_EQ(h->line, 10);
    CHECK_INT_EQ(md->vars[1].derivative, 1);
    CHECK_INT_EQ(md->vars[6].type, FMU_T_BOOLEAN);
    CHECK_INT_EQ(md->vars[6].start_int, 1);
    CHECK_STR_EQ(md->vars[7].start_str, "hi");
    CHECK_INT_EQ(md->vars[5].type, FMU_T_INTEGER);
    CHECK_INT_EQ(md->vars[4].causality, FMU_C_PARAMETER);
    CHECK_INT_EQ(md->n_outputs, 2);
    CHECK_INT_EQ(md->outputs[0].has_deps, 1);
    CHECK_INT_EQ(md->outputs[0].n_deps, 0);
    CHECK_INT_EQ(md->outputs[1].has_deps, 0);
    CHECK_INT_EQ(md->n_derivatives, 2);
    CHECK_INT_EQ(md->derivatives[1].n_deps, 2);
    if (md->derivatives[1].n_deps == 2) CHECK_INT_EQ(md->derivatives[1].deps[1], 9);
    CHECK_INT_EQ(md->n_initial_unknowns, 1);
    CHECK_INT_EQ(md->n_states, 2);
    CHECK_INT_EQ(md->state_index[0], 0); /* h */
    CHECK_INT_EQ(md->state_index[1], 2); /* v */
    CHECK_INT_EQ(fmu_md_find(md, "g"), 4);
    CHECK_INT_EQ(fmu_md_find(md, "nope"), -1);
    CHECK_INT_EQ(fmu_md_find_vr(md, FMU_T_REAL, 5), 8);
    CHECK_INT_EQ(fmu_md_find_vr(md, FMU_T_INTEGER, 0), 5);
    fmu_md_free(md);
    free(xml);
}

/* Each broken variant: which line is replaced, by what, and what the error must contain. */
static const struct {
    int line;
    const char *repl;
    const char *want1, *want2;
} bad[] = {
    {2, "<fmiModelDescription fmiVersion=\"3.0-beta.4\" modelName=\"ball\" guid=\"{123}\"",
     "unsupported fmiVersion \"3.0-beta.4\" (FMI 2.0 and 3.0 are supported)",
     ":3: <fmiModelDescription>"},
    {2, "<fmiModelDescription fmiVersion=\"3.0\" modelName=\"ball\" guid=\"{123}\"",
     "missing attribute instantiationToken", ":3: <fmiModelDescription>"},
    {2, "<fmiModelDescription fmiVersion=\"1.0\" modelName=\"ball\" guid=\"{123}\"",
     "unsupported fmiVersion", "fmiModelDescription"},
    {2, "<fmiModelDescription modelName=\"ball\" guid=\"{123}\"", "missing attribute fmiVersion",
     ":3:"},
    {2, "<fmiModelDescription fmiVersion=\"2.0\" modelName=\"ball\"", "missing attribute guid",
     "fmiModelDescription"},
    {3, "  generationTool=\"hand\">", "numberOfEventIndicators is missing", "ModelExchange"},
    {3, "  numberOfEventIndicators=\"-1\">", "numberOfEventIndicators", "not an integer"},
    {4, "<ModelExchange canGetAndSetFMUstate=\"true\"/>", "missing attribute modelIdentifier",
     ":4: <ModelExchange>"},
    {4, "<ModelExchange modelIdentifier=\"../evil\"/>", "not a valid file name", ":4:"},
    {4, "<ModelExchange modelIdentifier=\"ball\" canGetAndSetFMUstate=\"yes\"/>",
     "canGetAndSetFMUstate=\"yes\" is not a boolean", ":4:"},
    {5, "<CoSimulation modelIdentifier=\"b\" maxOutputDerivativeOrder=\"x\"/>",
     "maxOutputDerivativeOrder", ":5: <CoSimulation>"},
    {8, "<DefaultExperiment startTime=\"2\" stopTime=\"1\"/>", "stopTime is before startTime",
     ":8:"},
    {8, "<DefaultExperiment tolerance=\"abc\"/>", "tolerance=\"abc\" is not a finite", ":8:"},
    {10, "<ScalarVariable valueReference=\"0\"><Real/></ScalarVariable>", "missing attribute name",
     ":10: <ScalarVariable>"},
    {10, "<ScalarVariable name=\"h\" causality=\"output\"><Real/></ScalarVariable>",
     "missing valueReference", ":10:"},
    {10,
     "<ScalarVariable name=\"h\" valueReference=\"-3\" causality=\"output\"><Real/>"
     "</ScalarVariable>",
     "valueReference=\"-3\"", ":10:"},
    {12, "<ScalarVariable name=\"h\" valueReference=\"2\"><Real/></ScalarVariable>",
     "duplicate name \"h\"", ":12:"},
    /* Value references: an input on the parameter g's (both with a start) is a clash, named
     * with both variables; a Real alias without a start is legal (FMI 2.0 §2.2.7). */
    {18,
     "<ScalarVariable name=\"f\" valueReference=\"4\" causality=\"input\"><Real start=\"0\"/>"
     "</ScalarVariable>",
     "variable \"f\" (input) has valueReference 4, as \"g\" (line 14, parameter)", ":18:"},
    {12,
     "<ScalarVariable name=\"v\" valueReference=\"4\" initial=\"exact\"><Real start=\"0\"/>"
     "</ScalarVariable>",
     "both have a start value", ":14:"},
    {12, "<ScalarVariable name=\"v\" valueReference=\"0\"><Real/></ScalarVariable>", NULL, NULL},
    {11,
     "<ScalarVariable name=\"der(h)\" valueReference=\"1\"><Real derivative=\"99\"/>"
     "</ScalarVariable>",
     "derivative=\"99\"", ":11: <Real>"},
    {11,
     "<ScalarVariable name=\"der(h)\" valueReference=\"1\"><Real derivative=\"2\"/>"
     "</ScalarVariable>",
     "must name another Real variable", ":11:"},
    {11,
     "<ScalarVariable name=\"der(h)\" valueReference=\"1\"><Real derivative=\"6\"/>"
     "</ScalarVariable>",
     "must name another Real variable", ":11:"},
    {14,
     "<ScalarVariable name=\"g\" valueReference=\"4\" causality=\"parameter\"><Real "
     "start=\"1\"/></ScalarVariable>",
     "causality=\"parameter\" with variability=\"continuous\"", ":14:"},
    {14,
     "<ScalarVariable name=\"g\" valueReference=\"4\" causality=\"input\" "
     "variability=\"fixed\"><Real start=\"1\"/></ScalarVariable>",
     "causality=\"input\" with variability=\"fixed\"", ":14:"},
    {14,
     "<ScalarVariable name=\"g\" valueReference=\"4\" causality=\"parameter\" "
     "variability=\"fixed\"><Real/></ScalarVariable>",
     "needs a start value", ":14: <Real>"},
    {14,
     "<ScalarVariable name=\"g\" valueReference=\"4\" causality=\"sideways\"><Real/>"
     "</ScalarVariable>",
     "causality=\"sideways\" is not a known value", ":14:"},
    {14, "<ScalarVariable name=\"g\" valueReference=\"4\"/>", "has no type element", ":14:"},
    {14,
     "<ScalarVariable name=\"g\" valueReference=\"4\" causality=\"parameter\" "
     "variability=\"fixed\"><Real start=\"1\" min=\"2\" max=\"1\"/></ScalarVariable>",
     "variable \"g\": min 2 is above max 1", ":14: <Real>"},
    {14,
     "<ScalarVariable name=\"g\" valueReference=\"4\" causality=\"parameter\" "
     "variability=\"fixed\"><Real start=\"1\" max=\"big\"/></ScalarVariable>",
     "max", ":14: <Real>"},
    {14, "<ScalarVariable name=\"g\" valueReference=\"4\"><Real/><Integer/></ScalarVariable>",
     "more than one type element", ":14: <Integer>"},
    {15,
     "<ScalarVariable name=\"n\" valueReference=\"0\" causality=\"output\"><Integer/>"
     "</ScalarVariable>",
     "only Real variables can be continuous", ":15:"},
    {16,
     "<ScalarVariable name=\"on\" valueReference=\"0\" causality=\"input\" "
     "variability=\"discrete\" initial=\"exact\"><Boolean start=\"true\"/></ScalarVariable>",
     "must not have attribute initial", ":16:"},
    {10,
     "<ScalarVariable name=\"h\" valueReference=\"0\" causality=\"output\" "
     "initial=\"exact\"><Real declaredType=\"Width\" start=\"1\"/></ScalarVariable>",
     "declaredType \"Width\" is not defined", ":10:"},
    {10,
     "<ScalarVariable name=\"h\" valueReference=\"0\" causality=\"output\" "
     "initial=\"calculated\"><Real start=\"1\"/></ScalarVariable>",
     "must not have a start value", ":10:"},
    {21, "<Outputs><Unknown index=\"1\"/></Outputs>", "output \"n\" (index 6) is not listed",
     ":15:"},
    {21, "<Outputs><Unknown index=\"1\"/><Unknown index=\"6\"/><Unknown index=\"2\"/></Outputs>",
     "\"der(h)\") is not an output", ":21: <Outputs>"},
    {21, "<Outputs><Unknown index=\"1\"/><Unknown index=\"60\"/></Outputs>", "index=\"60\"",
     ":21: <Unknown>"},
    {22, "<Derivatives><Unknown index=\"3\"/></Derivatives>", "has no derivative attribute",
     ":22: <Derivatives>"},
    {22, "<Derivatives><Unknown index=\"2\" dependencies=\"3 0\"/></Derivatives>",
     "\"0\" is not a variable index", ":22: <Unknown>"},
    {22,
     "<Derivatives><Unknown index=\"2\" dependencies=\"3 4\" dependenciesKind=\"fixed\"/>"
     "</Derivatives>",
     "dependenciesKind has 1 entries but dependencies has 2", ":22:"},
    {22, "<Derivatives><Unknown/></Derivatives>", "missing attribute index", ":22: <Unknown>"},
    {7,
     "<LogCategories><Category name=\"a\"/></LogCategories><LogCategories>"
     "<Category name=\"b\"/><Category name=\"c\"/></LogCategories>",
     "duplicate element", ":7: <LogCategories>"},
    {6, "<TypeDefinitions/><TypeDefinitions><SimpleType name=\"Height\"/></TypeDefinitions>",
     "duplicate element", ":6: <TypeDefinitions>"},
    {7, "<LogCategories><Category/></LogCategories>", "missing attribute name", ":7: <Category>"},
    {20, "<ModelStructureX>", "malformed XML", ":"},
    {19, "</ModelVariables", "malformed XML", "modelDescription.xml:"},
    {1, "<?xml version=\"1.0\"?><!DOCTYPE x [<!ENTITY e SYSTEM \"file:///etc/passwd\">]>", NULL,
     NULL}, /* an external entity is not fetched: still parses (entities unused) */
};

static void test_bad(void)
{
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        char *xml = build(bad[i].line, bad[i].repl), err[512] = "";
        fmu_md *md = NULL;
        int rc = fmu_md_parse(xml, strlen(xml), &md, err, sizeof err);
        if (!bad[i].want1) {
            CHECK(rc == 0, "case %zu: %s", i, err);
        } else {
            CHECK(rc == -1 && md == NULL, "case %zu (%s) was accepted", i, bad[i].want1);
            CHECK_STR_HAS(err, bad[i].want1);
            CHECK_STR_HAS(err, bad[i].want2);
        }
        fmu_md_free(md);
        free(xml);
    }
}

static void test_misc(void)
{
    char err[512];
    fmu_md *md = (fmu_md *)1;
    CHECK_INT_EQ(fmu_md_parse("", 0, &md, err, sizeof err), -1);
    CHECK(md == NULL, "out cleared");
    CHECK_STR_HAS(err, "malformed XML");
    const char *other = "<?xml version=\"1.0\"?><html/>";
    CHECK_INT_EQ(fmu_md_parse(other, strlen(other), &md, err, sizeof err), -1);
    CHECK_STR_HAS(err, "root element is not fmiModelDescription");
    const char *nokind = "<fmiModelDescription fmiVersion=\"2.0\" modelName=\"m\" guid=\"g\">"
                         "<ModelVariables/><ModelStructure/></fmiModelDescription>";
    CHECK_INT_EQ(fmu_md_parse(nokind, strlen(nokind), &md, err, sizeof err), -1);
    CHECK_STR_HAS(err, "neither ModelExchange nor CoSimulation");
    const char *novars = "<fmiModelDescription fmiVersion=\"2.0\" modelName=\"m\" guid=\"g\">"
                         "<CoSimulation modelIdentifier=\"m\"/><ModelStructure/>"
                         "</fmiModelDescription>";
    CHECK_INT_EQ(fmu_md_parse(novars, strlen(novars), &md, err, sizeof err), -1);
    CHECK_STR_HAS(err, "missing element ModelVariables");
    /* Minimal CS-only description: no event indicator count needed, zero variables. */
    const char *min = "<fmiModelDescription fmiVersion=\"2.0\" modelName=\"m\" guid=\"g\">"
                      "<CoSimulation modelIdentifier=\"m\"/><ModelVariables/><ModelStructure/>"
                      "</fmiModelDescription>";
    CHECK_INT_EQ(fmu_md_parse(min, strlen(min), &md, err, sizeof err), 0);
    if (md) {
        CHECK_INT_EQ(md->n_vars, 0);
        CHECK_INT_EQ(md->n_states, 0);
        CHECK_INT_EQ(md->me.present, 0);
    }
    fmu_md_free(md);
    fmu_md_free(NULL);
    CHECK_STR_EQ(fmu_md_causality_name(FMU_C_CALCULATED_PARAMETER), "calculatedParameter");
    CHECK_STR_EQ(fmu_md_variability_name(FMU_V_TUNABLE), "tunable");
    CHECK_STR_EQ(fmu_md_type_name(FMU_T_ENUM), "Enumeration");
}

/* 1 when output OUT of the description depends on KNOWN by fmu_md_output_depends, 0 when not,
 * -1 when either is missing. */
static int dep(const fmu_md *md, const char *out, const char *known)
{
    long o = fmu_md_find(md, out), k = fmu_md_find(md, known);
    return o < 0 || k < 0 ? -1 : fmu_md_output_depends(md, (size_t)o, (size_t)k);
}

/* The example FMUs' declared output dependencies (examples/fmus/framework/fw_mdgen.c), in
 * FMI 2.0 and 3.0 form: a state output depends on itself only, the gain's y on its input u,
 * the spring's force on its state s and its input v, its energy on s alone. */
static void test_output_dependencies(void)
{
    const char *const kinds[] = {"build/fmus/%s_%s.fmu", "build/fmus/fmi3/%s_%s.fmu"};
    for (int v3 = 0; v3 < 2; v3++) {
        char path[128], e[512];
        fmu_md *md = NULL;
        snprintf(path, sizeof path, kinds[v3], "lv_prey", "me");
        if (fmu_load_md(path, NULL, &md, e, sizeof e) != 0) {
            CHECK(0, "%s: %s", path, e);
            continue;
        }
        CHECK_INT_EQ(dep(md, "x", "y"), 0);
        CHECK_INT_EQ(dep(md, "x", "x"), 1);
        CHECK_INT_EQ(fmu_md_output_depends(md, md->n_vars, 0), -1);
        fmu_md_free(md);
        snprintf(path, sizeof path, kinds[v3], "gain", "cs");
        if (fmu_load_md(path, NULL, &md, e, sizeof e) != 0) {
            CHECK(0, "%s: %s", path, e);
            continue;
        }
        CHECK_INT_EQ(dep(md, "y", "u"), 1);
        CHECK_INT_EQ(dep(md, "y", "k"), 0);
        fmu_md_free(md);
        snprintf(path, sizeof path, kinds[v3], "spring", "cs");
        if (fmu_load_md(path, NULL, &md, e, sizeof e) != 0) {
            CHECK(0, "%s: %s", path, e);
            continue;
        }
        CHECK_INT_EQ(dep(md, "f", "s"), 1);
        CHECK_INT_EQ(dep(md, "f", "v"), 1);
        CHECK_INT_EQ(dep(md, "W", "s"), 1);
        CHECK_INT_EQ(dep(md, "W", "v"), 0);
        CHECK_INT_EQ(dep(md, "fdot", "s"), 0);
        fmu_md_free(md);
    }
}

int main(void)
{
    test_good();
    test_bad();
    test_misc();
    test_output_dependencies();
    return check_summary();
}
