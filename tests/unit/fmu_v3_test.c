/* Unit tests of FMI 3.0 (federate/fmu/fmu_md3.c, fmu_v3.c): the modelDescription of every
 * type, arrays expanded element by element (a dimension given by a structural parameter),
 * the structure elements, and the refusals with their messages; then the hand-written FMU
 * examples/fmus3/feedthrough3 in both kinds: --set and read-back of every type and of array
 * elements, exact 64-bit integers, save and restore through fmi3GetFMUState/SetFMUState, an
 * array refused by value reference; and an example model in FMI 2.0 and FMI 3.0 form giving
 * the same bits; feedthrough3's FMI 3.0 state machine refusing an illegal call (so every test
 * that runs it checks the host's call sequence); its ticks in co-simulation with event mode
 * recorded as model exchange records them. Serves doc/fmu.md ("FMI 3.0").
 * Read next: tests/integration/fmi3_examples.sh (every federation file in FMI 3.0 form). */
#include <dlfcn.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "federate/fmu/fmi3.h"
#include "federate/fmu/fmu_md.h"
#include "federate/fmu/fmu_sim.h"
#include "federate/fmu/fmu_step.h"
#include "tests/check.h"

#define FT3 "build/fmus/fmi3/feedthrough3.fmu"

static char *slurp(const char *path)
{
    FILE *f = fopen(path, "rb");
    CHECK(f != NULL, "open %s", path);
    if (!f) return NULL;
    static char buf[1 << 16];
    size_t n = fread(buf, 1, sizeof buf - 1, f);
    fclose(f);
    buf[n] = '\0';
    return buf;
}

/* The description of feedthrough3: types, arrays, structure. */
static void test_md(void)
{
    const char *xml = slurp("examples/fmus3/modelDescription.xml");
    if (!xml) return;
    fmu_md *md = NULL;
    char err[512] = "";
    CHECK_INT_EQ(fmu_md_parse(xml, strlen(xml), &md, err, sizeof err), 0);
    if (!md) return;
    CHECK(md->fmi3, "fmi3 flag");
    CHECK_STR_EQ(md->guid, "{5a1e3b7c-0f3e-4c1a-9d2b-7e6f00000003}");
    CHECK(md->me.present && md->cs.present, "both kinds");
    CHECK(md->cs.can_get_and_set_fmu_state, "canGetAndSetFMUState read with its 3.0 spelling");
    /* 1 + 28 scalars + n + gain[3] + y[3] + m[2,3] + period + ticks + clk + clk_ticks */
    CHECK_INT_EQ(md->n_vars, 1 + 28 + 1 + 3 + 3 + 6 + 4);
    long clk = fmu_md_find(md, "clk");
    CHECK(clk >= 0 && md->vars[clk].clock == FMU_CLOCK_CONSTANT &&
              md->vars[clk].causality == FMU_C_INPUT && md->vars[clk].interval == 0.4 &&
              md->vars[clk].shift == 0.1,
          "input clock clk: constant, 0.4 s, shift 0.1 s");
    CHECK(md->cs.has_event_mode && md->cs.can_return_early, "hasEventMode, early return");
    static const struct {
        const char *name;
        fmu_vtype type;
        const char *type_name;
    } want[] = {
        {"Float32_in", FMU_T_FLOAT32, "Float32"}, {"Float64_in", FMU_T_REAL, "Float64"},
        {"Int8_out", FMU_T_INT8, "Int8"},         {"UInt16_in", FMU_T_UINT16, "UInt16"},
        {"Int32_in", FMU_T_INTEGER, "Int32"},     {"UInt64_out", FMU_T_UINT64, "UInt64"},
        {"Boolean_in", FMU_T_BOOLEAN, "Boolean"}, {"String_in", FMU_T_STRING, "String"},
        {"Binary_in", FMU_T_BINARY, "Binary"},    {"Enumeration_in", FMU_T_ENUM, "Enumeration"}};
    for (size_t i = 0; i < sizeof want / sizeof want[0]; i++) {
        long k = fmu_md_find(md, want[i].name);
        CHECK(k >= 0, "%s found", want[i].name);
        if (k < 0) continue;
        CHECK_INT_EQ(md->vars[k].type, want[i].type);
        CHECK_STR_EQ(fmu_md_type_name_of(md, md->vars[k].type), want[i].type_name);
    }
    long s = fmu_md_find(md, "String_in"), b = fmu_md_find(md, "Binary_in");
    if (s >= 0) CHECK_STR_EQ(md->vars[s].start_str, "hello, world");
    if (b >= 0) CHECK_STR_EQ(md->vars[b].start_str, "666f6f");
    /* Float32 and the integers default to discrete variability, Float64 to continuous. */
    long f32 = fmu_md_find(md, "Int8_in"), f64 = fmu_md_find(md, "Float64_in");
    if (f32 >= 0) CHECK_INT_EQ(md->vars[f32].variability, FMU_V_DISCRETE);
    if (f64 >= 0) CHECK_INT_EQ(md->vars[f64].variability, FMU_V_CONTINUOUS);
    /* gain[n] with n = 3 from the structural parameter; its start list element by element */
    for (int e = 0; e < 3; e++) {
        char name[32];
        snprintf(name, sizeof name, "gain[%d]", e + 1);
        long k = fmu_md_find(md, name);
        CHECK(k >= 0, "%s", name);
        if (k < 0) continue;
        CHECK_INT_EQ(md->vars[k].elem, e);
        CHECK_INT_EQ(md->vars[k].n_elems, 3);
        CHECK_NEAR(md->vars[k].start_real, e + 1.0, 0);
    }
    /* m[2,3] row-major: m[2,1] is element 3 */
    long m21 = fmu_md_find(md, "m[2,1]");
    CHECK(m21 >= 0 && md->vars[m21].elem == 3 && md->vars[m21].n_elems == 6, "m[2,1]");
    CHECK(fmu_md_find(md, "m[3,1]") < 0, "no m[3,1]");
    /* 14 scalar outputs, y[3], m[6], ticks, clk_ticks */
    CHECK_INT_EQ(md->n_outputs, 14 + 3 + 6 + 2);
    /* Dependencies by value reference, an array's every element: y[i] on Float64_in and
     * gain[1..3]; Float64_out on Float64_in; ticks on nothing; Int8_out not given (all). */
    long y2 = fmu_md_find(md, "y[2]"), u = fmu_md_find(md, "Float64_in");
    long g1 = fmu_md_find(md, "gain[1]"), f64o = fmu_md_find(md, "Float64_out");
    for (size_t i = 0; i < md->n_outputs; i++) {
        const fmu_unknown *o = &md->outputs[i];
        const char *name = md->vars[o->index - 1].name;
        if (o->index - 1 == y2) {
            CHECK(o->has_deps && o->n_deps == 4, "y[2]: %zu dependencies", o->n_deps);
            if (o->n_deps == 4)
                CHECK(o->deps[0] == u + 1 && o->deps[1] == g1 + 1 && o->deps[3] == g1 + 3,
                      "y[2] depends on Float64_in, gain[1..3]");
        } else if (o->index - 1 == f64o) {
            CHECK(o->has_deps && o->n_deps == 1 && o->deps[0] == u + 1, "Float64_out");
        } else if (!strcmp(name, "ticks")) {
            CHECK(o->has_deps && o->n_deps == 0, "ticks depends on no input");
        } else if (!strcmp(name, "Int8_out")) {
            CHECK(!o->has_deps, "Int8_out: no dependencies attribute");
        }
    }
    CHECK_INT_EQ(md->n_states, 0);
    CHECK_INT_EQ(md->n_event_indicators, 0);
    fmu_md_free(md);
}

/* Refusals, each with its message. */
static void test_md_errors(void)
{
    static const char head[] =
        "<fmiModelDescription fmiVersion=\"3.0\" modelName=\"m\" instantiationToken=\"t\">"
        "<CoSimulation modelIdentifier=\"m\"/>";
    static const struct {
        const char *body, *want;
    } bad[] = {
        {"<ModelVariables><Float64 name=\"a\" valueReference=\"0\"><Dimension start=\"2\" "
         "valueReference=\"0\"/></Float64></ModelVariables><ModelStructure/>",
         "exactly one of start and valueReference"},
        {"<ModelVariables><Float64 name=\"a\" valueReference=\"0\"><Dimension "
         "valueReference=\"7\"/></Float64></ModelVariables><ModelStructure/>",
         "valueReference=\"7\" names no variable"},
        {"<ModelVariables><Float64 name=\"a\" valueReference=\"0\" causality=\"parameter\" "
         "variability=\"fixed\" start=\"1 2\"><Dimension start=\"3\"/></Float64></ModelVariables>"
         "<ModelStructure/>",
         "start has no value for element 3"},
        {"<ModelVariables><Int8 name=\"a\" valueReference=\"0\" variability=\"continuous\"/>"
         "</ModelVariables><ModelStructure/>",
         "only Float32 and Float64 variables can be continuous"},
        {"<ModelVariables><Binary name=\"a\" valueReference=\"0\" causality=\"input\"><Start "
         "value=\"6g\"/></Binary></ModelVariables><ModelStructure/>",
         "is not hexadecimal"},
        {"<ModelVariables><Float64 name=\"a\" valueReference=\"0\"/></ModelVariables>"
         "<ModelStructure><Output valueReference=\"0\"/></ModelStructure>",
         "\"a\" is not an output"},
        {"<ModelVariables><Clock name=\"c\" valueReference=\"0\" causality=\"input\"/>"
         "</ModelVariables><ModelStructure/>",
         "a Clock needs attribute intervalVariability"},
        {"<ModelVariables><Float32 name=\"a\" valueReference=\"0\"/><Float32 name=\"a\" "
         "valueReference=\"1\"/></ModelVariables><ModelStructure/>",
         "duplicate name \"a\""},
        {"<ModelVariables><Float64 name=\"a\" valueReference=\"4\"/><Int8 name=\"b\" "
         "valueReference=\"4\"/></ModelVariables><ModelStructure/>",
         "FMI 3.0 value references are unique"},
        {"<ModelVariables><Float64 name=\"a\" valueReference=\"0\" causality=\"output\"/>"
         "</ModelVariables><ModelStructure><Output valueReference=\"0\" dependencies=\"9\"/>"
         "</ModelStructure>",
         "dependencies: \"9\" names no variable"},
        {"<ModelVariables><Float64 name=\"a\" valueReference=\"0\" causality=\"output\"/>"
         "<Float64 name=\"u\" valueReference=\"1\" causality=\"input\" start=\"0\"/>"
         "</ModelVariables><ModelStructure><Output valueReference=\"0\" dependencies=\"1\" "
         "dependenciesKind=\"dependent fixed\"/></ModelStructure>",
         "dependenciesKind has 2 entries, dependencies 1"},
        {"<ModelVariables><Float64 name=\"a\" valueReference=\"0\" causality=\"output\"/>"
         "<Float64 name=\"u\" valueReference=\"1\" causality=\"input\" start=\"0\"/>"
         "</ModelVariables><ModelStructure><Output valueReference=\"0\" dependencies=\"1\" "
         "dependenciesKind=\"linear\"/></ModelStructure>",
         "dependenciesKind: unknown kind \"linear\""},
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        char xml[2048], err[512] = "";
        snprintf(xml, sizeof xml, "%s%s</fmiModelDescription>", head, bad[i].body);
        fmu_md *md = NULL;
        CHECK(fmu_md_parse(xml, strlen(xml), &md, err, sizeof err) == -1 && !md,
              "case %zu accepted", i);
        CHECK_STR_HAS(err, bad[i].want);
        fmu_md_free(md);
    }
    /* Scheduled Execution alone is refused with the reason. */
    const char *se = "<fmiModelDescription fmiVersion=\"3.0\" modelName=\"m\" instantiationToken="
                     "\"t\"><ScheduledExecution modelIdentifier=\"m\"/><ModelVariables/>"
                     "<ModelStructure/></fmiModelDescription>";
    fmu_md *md = NULL;
    char err[512] = "";
    CHECK_INT_EQ(fmu_md_parse(se, strlen(se), &md, err, sizeof err), -1);
    CHECK_STR_HAS(err, "only ScheduledExecution, which Tempo does not support");
    /* A clock of FMI 3.0 is read with its kind and interval. */
    const char *ck = "<fmiModelDescription fmiVersion=\"3.0\" modelName=\"m\" instantiationToken="
                     "\"t\"><ModelExchange modelIdentifier=\"m\"/><ModelVariables><Clock "
                     "name=\"tick\" valueReference=\"3\" causality=\"output\" "
                     "intervalVariability=\"constant\" intervalDecimal=\"0.25\"/>"
                     "</ModelVariables><ModelStructure><Output valueReference=\"3\"/>"
                     "</ModelStructure></fmiModelDescription>";
    CHECK_INT_EQ(fmu_md_parse(ck, strlen(ck), &md, err, sizeof err), 0);
    if (md) {
        CHECK_INT_EQ(md->n_clocks, 1);
        CHECK_INT_EQ(md->vars[0].clock, FMU_CLOCK_CONSTANT);
        CHECK_NEAR(md->vars[0].interval, 0.25, 0);
    }
    fmu_md_free(md);
    /* A declared type's unit, min and max where the variable has none of its own; its own win;
     * min above max after the merge is refused naming the type. */
    const char *ty =
        "<fmiModelDescription fmiVersion=\"3.0\" modelName=\"m\" instantiationToken=\"t\">"
        "<ModelExchange modelIdentifier=\"m\"/><TypeDefinitions><Float64Type name=\"P\" "
        "unit=\"m\" min=\"0\" max=\"10\"/><Int32Type name=\"N\" min=\"1\"/></TypeDefinitions>"
        "<ModelVariables><Float64 name=\"h\" valueReference=\"1\" declaredType=\"P\"/>"
        "<Float64 name=\"k\" valueReference=\"2\" declaredType=\"P\" unit=\"cm\" max=\"5\"/>"
        "<Int32 name=\"n\" valueReference=\"3\" declaredType=\"N\"/></ModelVariables>"
        "<ModelStructure/></fmiModelDescription>";
    CHECK_INT_EQ(fmu_md_parse(ty, strlen(ty), &md, err, sizeof err), 0);
    if (md) {
        CHECK_STR_EQ(md->vars[0].unit ? md->vars[0].unit : "", "m");
        CHECK(md->vars[0].has_min && md->vars[0].min == 0 && md->vars[0].has_max &&
                  md->vars[0].max == 10,
              "h takes the type's bounds");
        CHECK_STR_EQ(md->vars[1].unit ? md->vars[1].unit : "", "cm");
        CHECK(md->vars[1].max == 5 && md->vars[1].min == 0, "k: its own max, the type's min");
        CHECK(md->vars[2].has_min && md->vars[2].min == 1 && !md->vars[2].has_max, "n");
    }
    fmu_md_free(md);
    const char *bty =
        "<fmiModelDescription fmiVersion=\"3.0\" modelName=\"m\" instantiationToken=\"t\">"
        "<ModelExchange modelIdentifier=\"m\"/><TypeDefinitions><Float64Type name=\"P\" "
        "min=\"0\"/></TypeDefinitions><ModelVariables><Float64 name=\"k\" valueReference=\"2\" "
        "declaredType=\"P\" max=\"-5\"/></ModelVariables><ModelStructure/></fmiModelDescription>";
    CHECK_INT_EQ(fmu_md_parse(bty, strlen(bty), &md, err, sizeof err), -1);
    CHECK_STR_HAS(err, "min 0 is above max -5 (with declaredType \"P\")");
    fmu_md_free(md);
}

static const char *text_of(fmu_step *s, const char *name)
{
    const char *t = NULL;
    int rc = fmu_step_get_text(s, name, &t);
    CHECK(rc == 0, "get %s: %s", name, fmu_step_errmsg(s));
    return rc ? "" : t;
}

/* Every type set by text and read back, in both kinds, and a restore. */
static void test_types(void)
{
    static const char *const set[][2] = {{"Float32_in", "0.1"},
                                         {"Float64_in", "-2.5"},
                                         {"Int8_in", "-128"},
                                         {"UInt8_in", "255"},
                                         {"Int16_in", "-32768"},
                                         {"UInt16_in", "65535"},
                                         {"Int32_in", "-2147483648"},
                                         {"UInt32_in", "4294967295"},
                                         {"Int64_in", "-9223372036854775808"},
                                         {"UInt64_in", "18446744073709551615"},
                                         {"Boolean_in", "false"},
                                         {"String_in", "a, \"b\""},
                                         {"Binary_in", "00ff10"},
                                         {"Enumeration_in", "2"}};
    static const char *const out[] = {"0.1",
                                      "-2.5",
                                      "-128",
                                      "255",
                                      "-32768",
                                      "65535",
                                      "-2147483648",
                                      "4294967295",
                                      "-9223372036854775808",
                                      "18446744073709551615",
                                      "0",
                                      "a, \"b\"",
                                      "00ff10",
                                      "2"};
    for (int kind = FMU_KIND_ME; kind <= FMU_KIND_CS; kind++) {
        const char *names[20], *values[20];
        size_t n = 0;
        for (size_t i = 0; i < sizeof set / sizeof set[0]; i++)
            names[n] = set[i][0], values[n++] = set[i][1];
        names[n] = "gain[2]", values[n++] = "10";
        fmu_step_opts o = {
            .kind = (fmu_kind)kind, .n_params = n, .param_names = names, .param_values = values};
        fmu_step *s = NULL;
        char err[FMU_ERR_LEN] = "";
        CHECK_INT_EQ(fmu_step_open(FT3, &o, &s, err, sizeof err), FMU_STEP_OK);
        if (!s) {
            fprintf(stderr, "%s\n", err);
            continue;
        }
        for (size_t i = 0; i < sizeof out / sizeof out[0]; i++) {
            char name[32];
            snprintf(name, sizeof name, "%.*s_out", (int)(strlen(set[i][0]) - 3), set[i][0]);
            CHECK_STR_EQ(text_of(s, name), out[i]);
        }
        CHECK_STR_EQ(text_of(s, "y[2]"), "-25");           /* gain[2] * Float64_in */
        CHECK_STR_EQ(text_of(s, "m[2,3]"), "-2147483625"); /* 23 + Int32_in */
        /* Out of range, not parsable, fixed after initialization: refused, FMU untouched. */
        CHECK_INT_EQ(fmu_step_set_text(s, "UInt8_in", "256"), FMU_STEP_EUSAGE);
        CHECK_STR_HAS(fmu_step_errmsg(s), "not a UInt8");
        CHECK_INT_EQ(fmu_step_set_text(s, "Binary_in", "0f0"), FMU_STEP_EUSAGE);
        CHECK_INT_EQ(fmu_step_set_text(s, "gain[1]", "2"), FMU_STEP_EUSAGE);
        CHECK_STR_HAS(fmu_step_errmsg(s), "after initialization");
        /* An array is refused through the value-reference calls, by name it works. */
        double y[3];
        fmi2ValueReference vr = 30;
        CHECK_INT_EQ(fmu_step_get_real(s, 1, &vr, y), FMU_STEP_EFMU);
        fmu_step_close(s);
        s = NULL;
        CHECK_INT_EQ(fmu_step_open(FT3, &o, &s, err, sizeof err), FMU_STEP_OK);
        if (!s) continue;
        /* Save, change, restore: the saved values come back. */
        fmu_step_state *st = NULL;
        CHECK_INT_EQ(fmu_step_save(s, &st), FMU_STEP_OK);
        CHECK_INT_EQ(fmu_step_set_text(s, "String_in", "changed"), FMU_STEP_OK);
        CHECK_INT_EQ(fmu_step_set_text(s, "Int64_in", "5"), FMU_STEP_OK);
        CHECK_INT_EQ(fmu_step_do(s, 0.5, NULL, NULL), FMU_STEP_OK);
        CHECK_STR_EQ(text_of(s, "String_out"), "changed");
        CHECK_INT_EQ(fmu_step_restore(s, st), FMU_STEP_OK);
        CHECK_STR_EQ(text_of(s, "String_out"), "a, \"b\"");
        CHECK_STR_EQ(text_of(s, "Int64_out"), "-9223372036854775808");
        CHECK_NEAR(fmu_step_time(s), 0, 0);
        fmu_step_state_free(s, st);
        fmu_step_close(s);
    }
}

/* One model in FMI 2.0 and FMI 3.0 form (the same binary behind fmi2 and fmi3 calls): the
 * same bits at every communication point, both kinds, with a rollback in the middle. */
static void test_same_bits(void)
{
    static const char *const pairs[][2] = {
        {"build/fmus/bouncingball_me.fmu", "build/fmus/fmi3/bouncingball_me.fmu"},
        {"build/fmus/bouncingball_cs.fmu", "build/fmus/fmi3/bouncingball_cs.fmu"},
        {"build/fmus/vanderpol_me.fmu", "build/fmus/fmi3/vanderpol_me.fmu"}};
    for (size_t p = 0; p < sizeof pairs / sizeof pairs[0]; p++) {
        fmu_step *s[2] = {NULL, NULL};
        char err[FMU_ERR_LEN] = "";
        for (int v = 0; v < 2; v++)
            CHECK(fmu_step_open(pairs[p][v], NULL, &s[v], err, sizeof err) == 0, "%s", err);
        if (!s[0] || !s[1]) {
            fmu_step_close(s[0]), fmu_step_close(s[1]);
            continue;
        }
        const fmu_md *md = fmu_step_md(s[0]);
        int differ = 0;
        fmu_step_state *st = NULL;
        for (int k = 0; k < 200 && !differ; k++) {
            for (int v = 0; v < 2; v++) {
                if (k == 100) CHECK_INT_EQ(fmu_step_save(s[v], &st), 0);
                CHECK_INT_EQ(fmu_step_do(s[v], 0.01, NULL, NULL), 0);
                if (k == 100) { /* step again from the saved state */
                    CHECK_INT_EQ(fmu_step_restore(s[v], st), 0);
                    CHECK_INT_EQ(fmu_step_do(s[v], 0.01, NULL, NULL), 0);
                    fmu_step_state_free(s[v], st);
                    st = NULL;
                }
            }
            for (size_t i = 0; i < md->n_outputs; i++) {
                const char *name = md->vars[md->outputs[i].index - 1].name;
                double a, b;
                fmu_step_get_by_name(s[0], name, &a);
                fmu_step_get_by_name(s[1], name, &b);
                differ |= memcmp(&a, &b, sizeof a) != 0;
            }
        }
        CHECK(!differ, "%s and its FMI 3.0 form differ", pairs[p][0]);
        fmu_step_close(s[0]);
        fmu_step_close(s[1]);
    }
}

/* tempo-fmu --simulate with a CSV of typed inputs: held from row to row, integers exact to
 * 64 bits, booleans as true/false; the change at t = 1 is an input event, recorded as fmusim
 * records it (doc/fmu.md §8): model exchange writes a row before the event (old values) and
 * one after (new values); co-simulation writes at t = 1 what the step to 1 produced (the
 * inputs of 0.5: Float64 1, the old integers) and the new values from the next step on. */
static void test_sim_typed_inputs(void)
{
    /* A name of this run's own: release and sanitized runs may go at once. */
    char csv[96];
    snprintf(csv, sizeof csv, "build/fmu-fixtures/fmu_v3_test.%ld.csv", (long)getpid());
    FILE *f = fopen(csv, "w");
    CHECK(f != NULL, "create %s", csv);
    if (!f) return;
    fputs("time,Int8_in,UInt64_in,Int64_in,Boolean_in,Float64_in\n"
          "0,-128,0,-9223372036854775808,true,0\n"
          "1,127,18446744073709551615,9223372036854775807,false,2\n",
          f);
    fclose(f);
    /* time, Float32, Float64 (linear: 2 at t=1), Int8 ... UInt64, Boolean */
    const char *old_me = "1,0.5,2,-128,8,-16,16,-32,32,-9223372036854775808,0,1,";
    const char *old_cs = "1,0.5,1,-128,8,-16,16,-32,32,-9223372036854775808,0,1,";
    const char *new_vals = ",0.5,2,127,8,-16,16,-32,32,9223372036854775807,18446744073709551615,0,";
    for (int kind = FMU_KIND_ME; kind <= FMU_KIND_CS; kind++) {
        fmu_sim_opts o = {.fmu_path = FT3, .input_csv = csv, .fopts = {.kind = (fmu_kind)kind}};
        char err[FMU_ERR_LEN] = "", line[1024] = "", first1[1024] = "", last1[1024] = "",
             row15[1024] = "";
        int n1 = 0;
        FILE *out = tmpfile();
        if (!out) continue;
        CHECK_INT_EQ(fmu_sim_run(&o, out, err, sizeof err), 0);
        rewind(out);
        while (fgets(line, sizeof line, out)) {
            if (!strncmp(line, "1,", 2) && !n1++) snprintf(first1, sizeof first1, "%s", line);
            if (!strncmp(line, "1,", 2)) snprintf(last1, sizeof last1, "%s", line);
            if (!strncmp(line, "1.5,", 4)) snprintf(row15, sizeof row15, "%s", line);
        }
        fclose(out);
        if (kind == FMU_KIND_ME) {
            CHECK_INT_EQ(n1, 2);
            CHECK_STR_HAS(first1, old_me);
            CHECK(!strncmp(last1, "1", 1) && strstr(last1, new_vals) == last1 + 1, "after: %s",
                  last1);
        } else {
            CHECK_INT_EQ(n1, 1);
            CHECK_STR_HAS(first1, old_cs);
            CHECK(strstr(row15, new_vals) == row15 + 3, "t = 1.5: %s", row15);
        }
    }
    remove(csv);
}

/* Checkpoints of an FMI 3.0 FMU: fmu_step_serialize (fmi3SerializedFMUStateSize,
 * fmi3SerializeFMUState) at t = 1, 100 steps on, fmu_step_deserialize
 * (fmi3DeserializeFMUState) in a second instance, the same 100 steps: the same bits. */
static void test_serialize(void)
{
    const char *path = "build/fmus/fmi3/bouncingball_cs.fmu";
    fmu_step *a = NULL, *b = NULL;
    char err[FMU_ERR_LEN] = "";
    CHECK(fmu_step_open(path, NULL, &a, err, sizeof err) == 0, "%s", err);
    CHECK(fmu_step_open(path, NULL, &b, err, sizeof err) == 0, "%s", err);
    if (!a || !b) {
        fmu_step_close(a), fmu_step_close(b);
        return;
    }
    CHECK(fmu_step_can_serialize(a), "canSerializeFMUState");
    for (int k = 0; k < 100; k++)
        fmu_step_do(a, 0.01, NULL, NULL);
    unsigned char *bytes = NULL;
    size_t len = 0;
    CHECK_INT_EQ(fmu_step_serialize(a, &bytes, &len), 0);
    CHECK_INT_EQ(fmu_step_deserialize(b, bytes, len), 0);
    free(bytes);
    CHECK_NEAR(fmu_step_time(b), fmu_step_time(a), 0);
    int differ = 0;
    for (int k = 0; k < 100; k++) {
        fmu_step_do(a, 0.01, NULL, NULL);
        fmu_step_do(b, 0.01, NULL, NULL);
        double x, y;
        fmu_step_get_by_name(a, "h", &x);
        fmu_step_get_by_name(b, "h", &y);
        differ |= memcmp(&x, &y, sizeof x) != 0;
    }
    CHECK(!differ, "the deserialized instance went another way");
    fmu_step_close(a);
    fmu_step_close(b);
}

/* feedthrough3 itself: a call its state machine forbids answers fmi3Error with a message
 * naming the call and the state (fmi3GetFloat64 and fmi3DoStep before initialization). */
static char last_msg[256];
static void keep_msg(fmi3InstanceEnvironment env, fmi3Status st, fmi3String cat, fmi3String msg)
{
    snprintf(last_msg, sizeof last_msg, "%s", msg);
}
static void test_call_sequence(void)
{
    void *so = dlopen("build/fmus/so/feedthrough3.so", RTLD_NOW | RTLD_LOCAL);
    CHECK(so != NULL, "dlopen feedthrough3.so: %s", dlerror());
    if (!so) return;
    fmi3InstantiateCoSimulationTYPE *inst =
        (fmi3InstantiateCoSimulationTYPE *)dlsym(so, "fmi3InstantiateCoSimulation");
    fmi3GetFloat64TYPE *get = (fmi3GetFloat64TYPE *)dlsym(so, "fmi3GetFloat64");
    fmi3DoStepTYPE *step = (fmi3DoStepTYPE *)dlsym(so, "fmi3DoStep");
    fmi3EnterInitializationModeTYPE *init =
        (fmi3EnterInitializationModeTYPE *)dlsym(so, "fmi3EnterInitializationMode");
    fmi3FreeInstanceTYPE *freei = (fmi3FreeInstanceTYPE *)dlsym(so, "fmi3FreeInstance");
    CHECK(inst && get && step && init && freei, "functions found");
    if (!inst || !get || !step || !init || !freei) return (void)dlclose(so);
    fmi3Instance i = inst("ft", "{5a1e3b7c-0f3e-4c1a-9d2b-7e6f00000003}", NULL, false, false, false,
                          false, NULL, 0, NULL, keep_msg, NULL);
    CHECK(i != NULL, "instantiated");
    if (i) {
        fmi3ValueReference vr = 3;
        double y = 0;
        CHECK_INT_EQ(get(i, &vr, 1, &y, 1), fmi3Error);
        CHECK_STR_HAS(last_msg, "fmi3GetFloat64: illegal call in Instantiated");
        bool ev, term, early;
        double last;
        CHECK_INT_EQ(step(i, 0, 1, false, &ev, &term, &early, &last), fmi3Error);
        CHECK_STR_HAS(last_msg, "fmi3DoStep: illegal call in Instantiated");
        CHECK_INT_EQ(init(i, false, 0, 0, false, 0), fmi3OK);
        CHECK_INT_EQ(init(i, false, 0, 0, false, 0), fmi3Error);
        CHECK_STR_HAS(last_msg, "fmi3EnterInitializationMode: illegal call in Initialization");
        freei(i);
    }
    dlclose(so);
}

/* Co-simulation with event mode (fmu_step_opts.event_mode, tempo-fmu --event-mode): the FMU
 * returns early at each tick, the host runs the event iteration, and --simulate writes a row
 * before and one after it, as model exchange does at the same time events: the two kinds give
 * the same rows of (time, ticks, clk_ticks). The input clock clk (every 0.4 s from 0.1 s) is
 * driven by the host in both kinds (fmi3SetClock at its ticks: time events in model exchange,
 * sub-steps ending in event mode in co-simulation); its tick at 0.1 + 2 * 0.4 and the period's
 * at 3 * 0.3 are a rounding apart, one event. Without --event-mode co-simulation writes the grid
 * only, with the same counts. */
static void test_cs_event_mode(void)
{
    char rows[3][4096];
    for (int run = 0; run < 3; run++) {
        const char *n[] = {"period"}, *v[] = {"0.3"};
        fmu_sim_opts o = {.fmu_path = FT3, .has_step = 1, .step = 0.25, .has_stop = 1, .stop = 1};
        o.fopts.kind = run == 0 ? FMU_KIND_ME : FMU_KIND_CS;
        o.fopts.event_mode = run == 1;
        o.fopts.n_params = 1, o.fopts.param_names = n, o.fopts.param_values = v;
        char err[FMU_ERR_LEN] = "", line[2048];
        FILE *out = tmpfile();
        if (!out) return;
        CHECK(fmu_sim_run(&o, out, err, sizeof err) == 0, "run %d: %s", run, err);
        rewind(out);
        rows[run][0] = '\0';
        while (fgets(line, sizeof line, out)) { /* time and the last two columns */
            char *last = strrchr(line, ',');
            if (last) *last = ';';
            char *prev = strrchr(line, ',');
            if (last) *last = ',';
            size_t l = strlen(rows[run]);
            snprintf(rows[run] + l, sizeof rows[run] - l, "%.*s%s", (int)strcspn(line, ","), line,
                     prev ? prev : "\n");
        }
        fclose(out);
    }
    CHECK_STR_EQ(rows[1], rows[0]);
    CHECK_STR_HAS(rows[0], "0,0,0\n0.1,0,0\n0.1,0,1\n0.25,0,1\n0.3,0,1\n0.3,1,1\n0.5,1,1\n0.5,1,2\n"
                           "0.6,1,2\n0.6,2,2\n0.75,2,2\n0.8999999999999999,2,2\n"
                           "0.8999999999999999,3,3\n1,3,3\n");
    CHECK_STR_HAS(rows[2], "0,0,0\n0.25,0,1\n0.5,1,2\n0.75,2,2\n1,3,3\n");
}

/* A rollback with an input clock: the clock schedule is part of the saved state, so the
 * steps after a restore tick the clock again (clk at 0.5 and 0.9 counted twice over). */
static void test_clock_rollback(void)
{
    for (int kind = FMU_KIND_ME; kind <= FMU_KIND_CS; kind++) {
        fmu_step_opts o = {.kind = (fmu_kind)kind};
        fmu_step *s = NULL;
        char err[FMU_ERR_LEN] = "";
        CHECK(fmu_step_open(FT3, &o, &s, err, sizeof err) == FMU_STEP_OK, "%s", err);
        if (!s) continue;
        fmu_step_state *st = NULL;
        CHECK_INT_EQ(fmu_step_to(s, 0.3, NULL, NULL), FMU_STEP_OK);
        CHECK_STR_EQ(text_of(s, "clk_ticks"), "1");
        CHECK_INT_EQ(fmu_step_save(s, &st), FMU_STEP_OK);
        CHECK_INT_EQ(fmu_step_to(s, 1, NULL, NULL), FMU_STEP_OK);
        CHECK_STR_EQ(text_of(s, "clk_ticks"), "3");
        CHECK_INT_EQ(fmu_step_restore(s, st), FMU_STEP_OK);
        CHECK_STR_EQ(text_of(s, "clk_ticks"), "1");
        CHECK_INT_EQ(fmu_step_to(s, 1, NULL, NULL), FMU_STEP_OK);
        CHECK_STR_EQ(text_of(s, "clk_ticks"), "3");
        fmu_step_state_free(s, st);
        fmu_step_close(s);
    }
}

/* Input clocks whose intervals the FMU tells at run time (clocks3, doc/fmu.md §10 "Clocks"):
 * the countdown clock cd ticks at 0.3, 0.5, 0.8, 1.2, 1.7 (0.3 s after the start, then
 * 0.1 (n + 1) s after its n-th tick), the changing clock ch at 0.2, 0.5, 0.9, 1.4 (0.2 + 0.1 n
 * s after its n-th tick), the tunable clock tu every 0.25 s from 0.05 (interval and shift told
 * in initialization mode), in model exchange and in co-simulation (event mode), on a grid of
 * 0.1 s; the FMU answers fmi3Error to a clock call outside the modes the standard allows it
 * in. A state saved at 0.6 and restored ticks the same clocks again (their schedules are part
 * of it). The last ticks' times within 1e-12 s. */
static void test_runtime_clocks(void)
{
    static const char *const want[][2] = {{"cd_ticks", "5"}, {"ch_ticks", "4"}, {"tu_ticks", "8"}};
    const double last[] = {1.7, 1.4, 1.8};
    const char *lasts[] = {"cd_last", "ch_last", "tu_last"};
    for (int kind = FMU_KIND_ME; kind <= FMU_KIND_CS; kind++) {
        fmu_step_opts o = {.kind = (fmu_kind)kind};
        fmu_step *s = NULL;
        char err[FMU_ERR_LEN] = "";
        CHECK(fmu_step_open("build/fmus/fmi3/clocks3.fmu", &o, &s, err, sizeof err) == 0, "%s",
              err);
        if (!s) continue;
        fmu_step_state *st = NULL;
        for (int pass = 0; pass < 2; pass++) {
            for (int k = pass ? 7 : 1; k <= 19; k++) {
                CHECK_INT_EQ(fmu_step_to(s, k / 10.0, NULL, NULL), FMU_STEP_OK);
                if (k == 6 && !pass) {
                    CHECK_STR_EQ(text_of(s, "cd_ticks"), "2");
                    CHECK_STR_EQ(text_of(s, "ch_ticks"), "2");
                    CHECK_STR_EQ(text_of(s, "tu_ticks"), "3");
                    CHECK_INT_EQ(fmu_step_save(s, &st), FMU_STEP_OK);
                }
            }
            for (int c = 0; c < 3; c++) {
                double t = 0;
                CHECK_STR_EQ(text_of(s, want[c][0]), want[c][1]);
                CHECK_INT_EQ(fmu_step_get_by_name(s, lasts[c], &t), FMU_STEP_OK);
                CHECK(fabs(t - last[c]) <= 1e-12, "kind %d pass %d: %s = %.17g, want %g", kind,
                      pass, lasts[c], t, last[c]);
            }
            if (!pass) CHECK_INT_EQ(fmu_step_restore(s, st), FMU_STEP_OK);
        }
        fmu_step_state_free(s, st);
        fmu_step_close(s);
    }
}

/* Intermediate updates (fmu_step_opts.intermediate_update, --record-intermediate-values):
 * feedthrough3 calls the callback in the middle of every fmi3DoStep, here of the sub-steps
 * the host cuts at the clock's ticks (0.1, 0.5, 0.9; 0.1 + 0.4 / 2 = 0.30000000000000004)
 * unless the period's tick (0.75) returns first; --simulate writes a row there, read in
 * Intermediate Update Mode, beside the regular rows. */
static void test_intermediate_update(void)
{
    for (int on = 0; on <= 1; on++) {
        fmu_sim_opts o = {.fmu_path = FT3, .has_step = 1, .step = 0.5, .has_stop = 1, .stop = 1};
        o.fopts.kind = FMU_KIND_CS;
        o.fopts.intermediate_update = on;
        char err[FMU_ERR_LEN] = "", line[2048], times[512] = "";
        FILE *out = tmpfile();
        if (!out) return;
        CHECK(fmu_sim_run(&o, out, err, sizeof err) == 0, "%s", err);
        rewind(out);
        while (fgets(line, sizeof line, out)) {
            size_t l = strlen(times);
            snprintf(times + l, sizeof times - l, "%.*s ", (int)strcspn(line, ","), line);
        }
        fclose(out);
        CHECK_STR_EQ(times, on ? "time 0 0.05 0.30000000000000004 0.5 0.7 0.825 0.95 1 "
                               : "time 0 0.5 1 ");
    }
}

/* statespace3, the Reference FMU StateSpace's interface: array parameters set element by
 * element before initialization (A diagonal -1, -2, -3 in three sets of one array; x0[2] = 5),
 * the state vector x[3] integrated by CVODE (model exchange) or the FMU's Runge-Kutta
 * (co-simulation), the output array y = x + u against the exact
 * x_i = u_i / i + (x0_i - u_i / i) exp(-i t), u = (1, 2, 3), within 1e-8 at t = 1. */
static void test_statespace(void)
{
    const char *names[] = {"A[1,1]", "A[2,2]", "A[3,3]", "x0[2]"};
    const char *values[] = {"-1", "-2", "-3", "5"};
    for (int kind = FMU_KIND_ME; kind <= FMU_KIND_CS; kind++) {
        fmu_step_opts o = {.kind = (fmu_kind)kind,
                           .rtol = 1e-10,
                           .atol = 1e-12,
                           .n_params = 4,
                           .param_names = names,
                           .param_values = values};
        fmu_step *s = NULL;
        char err[FMU_ERR_LEN] = "";
        CHECK(fmu_step_open("build/fmus/fmi3/statespace3.fmu", &o, &s, err, sizeof err) == 0, "%s",
              err);
        if (!s) continue;
        CHECK_INT_EQ(fmu_step_n_states(s), kind == FMU_KIND_ME ? 3 : 0);
        for (int k = 1; k <= 4; k++)
            CHECK_INT_EQ(fmu_step_to(s, k * 0.25, NULL, NULL), FMU_STEP_OK);
        for (int i = 1; i <= 3; i++) {
            char name[16];
            snprintf(name, sizeof name, "y[%d]", i);
            double y = 0, u = i, x0 = i == 2 ? 5 : 0;
            double want = u / i + (x0 - u / i) * exp(-i * 1.0) + u;
            CHECK_INT_EQ(fmu_step_get_by_name(s, name, &y), FMU_STEP_OK);
            CHECK(fabs(y - want) <= 1e-8, "kind %d: %s = %.17g, exact %.17g", kind, name, y, want);
        }
        fmu_step_close(s);
    }
}

/* statespace3 resized by its structural parameters (n = 2 states, m = 1 input, r = 2 outputs,
 * set in configuration mode; the FMU refuses them elsewhere), whole arrays set from lists as
 * fmusim's --start-value takes them: A = [0 1; -1 0], B = [0; 1], the resized C and D keep
 * the leading block of their identity starts and u[1] its start 1. So x1' = x2,
 * x2' = -x1 + 1 from 0: y1 = x1 + u1 = 2 - cos t, y2 = x2 = sin t, within 1e-8 at t = 1.
 * The instance's description has 2 states and y[1], y[2] only; another instance of the same
 * file keeps the sizes of the description; n cannot be set after initialization. */
static void test_statespace_resized(void)
{
    const char *names[] = {"A", "n", "r", "B", "m"};
    const char *values[] = {"0 1 -1 0", "2", "2", "0 1", "1"};
    for (int kind = FMU_KIND_ME; kind <= FMU_KIND_CS; kind++) {
        fmu_step_opts o = {.kind = (fmu_kind)kind,
                           .rtol = 1e-10,
                           .atol = 1e-12,
                           .n_params = 5,
                           .param_names = names,
                           .param_values = values};
        fmu_step *s = NULL, *plain = NULL;
        char err[FMU_ERR_LEN] = "";
        CHECK(fmu_step_open("build/fmus/fmi3/statespace3.fmu", &o, &s, err, sizeof err) == 0, "%s",
              err);
        fmu_step_opts po = {.kind = (fmu_kind)kind};
        CHECK(fmu_step_open("build/fmus/fmi3/statespace3.fmu", &po, &plain, err, sizeof err) == 0,
              "%s", err);
        if (!s || !plain) {
            fmu_step_close(s), fmu_step_close(plain);
            continue;
        }
        CHECK_INT_EQ(fmu_step_n_states(s), kind == FMU_KIND_ME ? 2 : 0);
        CHECK(fmu_md_find(fmu_step_md(s), "y[3]") < 0 && fmu_md_find(fmu_step_md(s), "y[2]") >= 0,
              "kind %d: the resized description has y[1], y[2] only", kind);
        CHECK(fmu_md_find(fmu_step_md(plain), "y[3]") >= 0, "kind %d: the file's sizes", kind);
        for (int k = 1; k <= 4; k++)
            CHECK_INT_EQ(fmu_step_to(s, k * 0.25, NULL, NULL), FMU_STEP_OK);
        double y1 = 0, y2 = 0;
        CHECK_INT_EQ(fmu_step_get_by_name(s, "y[1]", &y1), FMU_STEP_OK);
        CHECK_INT_EQ(fmu_step_get_by_name(s, "y[2]", &y2), FMU_STEP_OK);
        CHECK(fabs(y1 - (2 - cos(1.0))) <= 1e-8 && fabs(y2 - sin(1.0)) <= 1e-8,
              "kind %d: y = (%.17g, %.17g), exact (%.17g, %.17g)", kind, y1, y2, 2 - cos(1.0),
              sin(1.0));
        CHECK_INT_EQ(fmu_step_set_text(s, "n", "3"), FMU_STEP_EUSAGE);
        CHECK(strstr(fmu_step_errmsg(s), "structural") != NULL, "%s", fmu_step_errmsg(s));
        CHECK_INT_EQ(fmu_step_set_text(s, "u", "1 2"), FMU_STEP_EUSAGE);
        CHECK(strstr(fmu_step_errmsg(s), "2 values for an array of 1 elements") != NULL, "%s",
              fmu_step_errmsg(s));
        fmu_step_close(s);
        fmu_step_close(plain);
    }
    /* A structural parameter that would empty an array is refused with the line and reason. */
    const char *zn[] = {"m"}, *zv[] = {"0"};
    fmu_step_opts z = {.n_params = 1, .param_names = zn, .param_values = zv};
    fmu_step *s = NULL;
    char err[FMU_ERR_LEN] = "";
    CHECK(fmu_step_open("build/fmus/fmi3/statespace3.fmu", &z, &s, err, sizeof err) != 0, "m=0");
    CHECK(strstr(err, "<Dimension>: a dimension of size 0 is not supported") != NULL, "%s", err);
    fmu_step_close(s);
}

/* A whole array from a CSV column, its values separated by spaces as fmusim reads them
 * ("u" = "1 2 3", then "4 5 6" from t = 1), with --set A=0 and C=0 (y = D u = u):
 * co-simulation records at t what the step to t produced (the new u from t = 2), model
 * exchange a row before and after the input event at t = 1. A count that does not fit the
 * array is refused. */
static void test_sim_array_input(void)
{
    char csv[96];
    snprintf(csv, sizeof csv, "build/fmu-fixtures/fmu_v3_arr.%ld.csv", (long)getpid());
    FILE *f = fopen(csv, "w");
    CHECK(f != NULL, "create %s", csv);
    if (!f) return;
    fputs("time,u\n0,1 2 3\n1,4 5 6\n", f);
    fclose(f);
    const char *names[] = {"A", "C"}, *values[] = {"0", "0"};
    const char *want[2] = {"time,y[1],y[2],y[3]\n0,1,2,3\n1,1,2,3\n1,4,5,6\n2,4,5,6\n",
                           "time,y[1],y[2],y[3]\n0,1,2,3\n1,1,2,3\n2,4,5,6\n"};
    for (int kind = FMU_KIND_ME; kind <= FMU_KIND_CS; kind++) {
        fmu_sim_opts o = {.fmu_path = "build/fmus/fmi3/statespace3.fmu",
                          .input_csv = csv,
                          .has_step = 1,
                          .step = 1,
                          .has_stop = 1,
                          .stop = 2};
        o.fopts.kind = (fmu_kind)kind;
        o.fopts.n_params = 2;
        o.fopts.param_names = names;
        o.fopts.param_values = values;
        char err[FMU_ERR_LEN] = "", got[512] = "";
        FILE *out = tmpfile();
        if (!out) continue;
        CHECK(fmu_sim_run(&o, out, err, sizeof err) == 0, "%s", err);
        rewind(out);
        size_t n = fread(got, 1, sizeof got - 1, out);
        got[n] = '\0';
        fclose(out);
        CHECK_STR_EQ(got, want[kind == FMU_KIND_CS]);
    }
    f = fopen(csv, "w");
    if (f) fputs("time,u\n0,1 2\n", f), fclose(f);
    fmu_sim_opts o = {.fmu_path = "build/fmus/fmi3/statespace3.fmu", .input_csv = csv};
    char err[FMU_ERR_LEN] = "";
    FILE *out = tmpfile();
    if (out) {
        CHECK(fmu_sim_run(&o, out, err, sizeof err) != 0, "a short list");
        CHECK(strstr(err, "u=\"1 2\": 2 values for an array of 3 elements") != NULL, "%s", err);
        fclose(out);
    }
    remove(csv);
}

/* A continuous Float32 input from a CSV is interpolated as fmusim does (the rows as floats,
 * the line in double, the value a float): co-simulation records at t what the step to t
 * produced (the input of the previous point), model exchange sets the input of t first. */
static void test_sim_float32_input(void)
{
    char csv[96];
    snprintf(csv, sizeof csv, "build/fmu-fixtures/fmu_v3_f32.%ld.csv", (long)getpid());
    FILE *f = fopen(csv, "w");
    CHECK(f != NULL, "create %s", csv);
    if (!f) return;
    fputs("time,Float32_in\n0,0\n1,0.3\n", f);
    fclose(f);
    for (int kind = FMU_KIND_ME; kind <= FMU_KIND_CS; kind++) {
        fmu_sim_opts o = {.fmu_path = FT3, .input_csv = csv, .has_step = 1, .step = 0.25};
        o.fopts.kind = (fmu_kind)kind;
        char err[FMU_ERR_LEN] = "", line[2048];
        float at05 = -1, at1 = -1; /* the last row of each time */
        FILE *out = tmpfile();
        if (!out) continue;
        CHECK(fmu_sim_run(&o, out, err, sizeof err) == 0, "%s", err);
        rewind(out);
        while (fgets(line, sizeof line, out)) {
            if (!strncmp(line, "0.5,", 4)) at05 = strtof(line + 4, NULL);
            if (!strncmp(line, "1,", 2)) at1 = strtof(line + 2, NULL);
        }
        fclose(out);
        double x1 = (float)0.3; /* v(t) = (float)(0 + (t - 0) * (x1 - 0) / (1 - 0)) */
        float v025 = (float)(0.25 * x1), v05 = (float)(0.5 * x1), v075 = (float)(0.75 * x1);
        int cs = kind == FMU_KIND_CS;
        CHECK(at05 == (cs ? v025 : v05) && at1 == (cs ? v075 : (float)x1),
              "kind %d: Float32_out %.9g at 0.5, %.9g at 1", kind, at05, at1);
    }
    remove(csv);
}

int main(void)
{
    test_sim_float32_input();
    test_sim_array_input();
    test_statespace();
    test_statespace_resized();
    test_intermediate_update();
    test_clock_rollback();
    test_runtime_clocks();
    test_call_sequence();
    test_cs_event_mode();
    test_serialize();
    mkdir("build/fmu-fixtures", 0755);
    test_sim_typed_inputs();
    test_md();
    test_md_errors();
    test_types();
    test_same_bits();
    return check_summary();
}
